// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the per-SoC data matches the Linux 7.3 compatible table.

#[kernel::prelude::kunit_tests(mtk_sd_rust_soc)]
mod tests {
    use crate::msdc::clock::DividerWidth;
    use crate::soc::*;

    #[test]
    fn divider_width_follows_generation() {
        for old in [MT6795, MT7620, MT8135, MT8173] {
            assert_eq!(old.clock_divider, DividerWidth::Bits8);
            assert_eq!(old.clock_divider.max_divider(), 0xff);
            assert_eq!(old.pad_tune_reg, MSDC_PAD_TUNE);
        }
        for new in [
            MT2701, MT2712, MT6779, MT7622, MT7986, MT8183, MT8189, MT8196, MT8516,
        ] {
            assert_eq!(new.clock_divider, DividerWidth::Bits12);
            assert_eq!(new.clock_divider.max_divider(), 0xfff);
            assert_eq!(new.pad_tune_reg, MSDC_PAD_TUNE0);
        }
    }

    #[test]
    fn top_base_is_required_from_mt7986_and_mt8183_on() {
        let with_top = [MT7986, MT8183, MT8189, MT8196];
        let without_top = [
            MT2701, MT2712, MT6779, MT6795, MT7620, MT7622, MT8135, MT8173, MT8516,
        ];
        assert!(with_top.iter().all(|soc| soc.needs_top_base));
        assert!(without_top.iter().all(|soc| !soc.needs_top_base));
    }

    #[test]
    fn newest_socs_differ_where_upstream_says() {
        assert!(!MT8189.data_tune);
        assert_eq!(MT8189.pop_en_cnt, 8);
        assert!(MT8189.support_spm_res_release);
        assert!(!MT8189.support_new_tx && !MT8189.support_new_rx);

        assert!(MT8196.data_tune);
        assert_eq!(MT8196.stop_dly_sel, 1);
        assert_eq!(MT8196.pop_en_cnt, 2);
        assert!(MT8196.support_new_tx && MT8196.support_new_rx);
        assert!(!MT8196.support_spm_res_release);
    }

    #[test]
    fn per_soc_quirks() {
        assert!(MT7620.use_internal_cd);
        assert!(MT6795.hs400_tune && MT8173.hs400_tune);
        assert!(MT2701.recheck_sdio_irq && !MT2701.busy_check && !MT2701.stop_clk_fix);
        assert!(MT2701.async_fifo && MT2701.data_tune && !MT2701.enhance_rx);
        assert_eq!(MT2712, MT6779);
        assert!(MT7622.enhance_rx && !MT7622.support_64g);
        assert!(MT8516.busy_check && !MT8516.enhance_rx && !MT8516.support_64g);
        assert_eq!(MT8516.stop_dly_sel, 3);
        assert!(MT8183.support_64g && !MT8183.recheck_sdio_irq);
    }
}
