// SPDX-License-Identifier: GPL-2.0

//! The per-SoC data against Linux 7.3's `mtk_mmc_compatible` table (mtk-sd.c), and the pad
//! tuning register offsets against the register documentation.

use msdc::clock::DividerWidth;
use msdc::soc::*;

const EIGHT_BIT: [SocData; 4] = [MT6795, MT7620, MT8135, MT8173];
const TWELVE_BIT: [SocData; 9] = [
    MT2701, MT2712, MT6779, MT7622, MT7986, MT8183, MT8189, MT8196, MT8516,
];

#[test]
fn divider_width_follows_generation() {
    for old in EIGHT_BIT {
        assert_eq!(old.clock_divider, DividerWidth::Bits8);
        assert_eq!(old.clock_divider.max_divider(), 0xff);
        assert_eq!(old.pad_tune_reg, PadTuneRegister::PadTune);
    }
    for new in TWELVE_BIT {
        assert_eq!(new.clock_divider, DividerWidth::Bits12);
        assert_eq!(new.clock_divider.max_divider(), 0xfff);
        assert_eq!(new.pad_tune_reg, PadTuneRegister::PadTune0);
    }
}

#[test]
fn pad_tune_registers_sit_where_the_datasheet_says() {
    // MSDC_PAD_TUNE at 0xEC on the 8-bit generation, MSDC_PAD_TUNE0 at 0xF0 after it.
    assert_eq!(PadTuneRegister::PadTune.offset(), 0xEC);
    assert_eq!(PadTuneRegister::PadTune0.offset(), 0xF0);
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

// The data is constant: these checks hold when the test builds.
#[test]
fn newest_socs_differ_where_upstream_says() {
    const {
        assert!(!MT8189.data_tune);
        assert!(MT8189.pop_en_cnt == 8);
        assert!(MT8189.support_spm_res_release);
        assert!(!MT8189.support_new_tx && !MT8189.support_new_rx);

        assert!(MT8196.data_tune);
        assert!(MT8196.stop_dly_sel == 1);
        assert!(MT8196.pop_en_cnt == 2);
        assert!(MT8196.support_new_tx && MT8196.support_new_rx);
        assert!(!MT8196.support_spm_res_release);
    }
}

#[test]
fn per_soc_quirks() {
    const {
        assert!(MT7620.use_internal_cd);
        assert!(MT6795.hs400_tune && MT8173.hs400_tune);
        assert!(MT2701.recheck_sdio_irq && !MT2701.busy_check && !MT2701.stop_clk_fix);
        assert!(MT2701.async_fifo && MT2701.data_tune && !MT2701.enhance_rx);
        assert!(MT7622.enhance_rx && !MT7622.support_64g);
        assert!(MT8516.busy_check && !MT8516.enhance_rx && !MT8516.support_64g);
        assert!(MT8516.stop_dly_sel == 3);
        assert!(MT8183.support_64g && !MT8183.recheck_sdio_irq);
    }
    assert_eq!(MT2712, MT6779);
}

/// One SoC of Linux 7.3's `mtk_mmc_compatible` table (fields left out there are false or
/// 0): the data, `clk_div_bits`, the flags in the order of [`flags`], `stop_dly_sel`,
/// `pop_en_cnt` and `support_spm_res_release`.
type Upstream = (SocData, u32, [bool; 12], u8, u8, bool);

/// The flags of `soc` in the order of the table's header; the last stands for both the new
/// transmit and the new receive path, which come together.
fn flags(soc: &SocData) -> [bool; 12] {
    [
        soc.recheck_sdio_irq,
        soc.hs400_tune,
        soc.needs_top_base,
        soc.pad_tune_reg == PadTuneRegister::PadTune0,
        soc.async_fifo,
        soc.data_tune,
        soc.busy_check,
        soc.stop_clk_fix,
        soc.enhance_rx,
        soc.support_64g,
        soc.use_internal_cd,
        soc.support_new_tx,
    ]
}

const T: bool = true;
const F: bool = false;

/// `mt*_compat` of mtk-sd.c, field for field.
#[rustfmt::skip]
const UPSTREAM: [Upstream; 13] = [
    // rc recheck_sdio_irq, hs hs400_tune, tp needs_top_base, t0 MSDC_PAD_TUNE0, af async_fifo,
    // dt data_tune, bc busy_check, sf stop_clk_fix, er enhance_rx, 64 support_64g,
    // cd use_internal_cd, nw support_new_tx/rx; then stop_dly_sel, pop_en_cnt, spm_res_release.
    //            rc hs tp t0 af dt bc sf er 64 cd nw
    (MT2701, 12, [T, F, F, T, T, T, F, F, F, F, F, F], 0, 0, F),
    (MT2712, 12, [F, F, F, T, T, T, T, T, T, T, F, F], 3, 0, F),
    (MT6779, 12, [F, F, F, T, T, T, T, T, T, T, F, F], 3, 0, F),
    (MT6795,  8, [F, T, F, F, F, F, F, F, F, F, F, F], 0, 0, F),
    (MT7620,  8, [T, F, F, F, F, F, F, F, F, F, T, F], 0, 0, F),
    (MT7622, 12, [T, F, F, T, T, T, T, T, T, F, F, F], 3, 0, F),
    (MT7986, 12, [T, F, T, T, T, T, T, T, T, T, F, F], 3, 0, F),
    (MT8135,  8, [T, F, F, F, F, F, F, F, F, F, F, F], 0, 0, F),
    (MT8173,  8, [T, T, F, F, F, F, F, F, F, F, F, F], 0, 0, F),
    (MT8183, 12, [F, F, T, T, T, T, T, T, T, T, F, F], 3, 0, F),
    (MT8516, 12, [T, F, F, T, T, T, T, T, F, F, F, F], 3, 0, F),
    (MT8189, 12, [F, F, T, T, T, F, T, T, T, T, F, F], 3, 8, T),
    (MT8196, 12, [F, F, T, T, T, T, T, T, T, T, F, T], 1, 2, F),
];

#[test]
fn every_field_matches_upstream() {
    for (index, (soc, clk_div_bits, flag_row, stop_dly_sel, pop_en_cnt, spm)) in
        UPSTREAM.iter().enumerate()
    {
        assert_eq!(soc.clock_divider.bits(), *clk_div_bits, "#{index}");
        assert_eq!(flags(soc), *flag_row, "#{index}: {soc:?}");
        assert_eq!(soc.support_new_rx, soc.support_new_tx, "#{index}");
        assert_eq!(soc.support_spm_res_release, *spm, "#{index}");
        assert_eq!(
            (soc.stop_dly_sel, soc.pop_en_cnt),
            (*stop_dly_sel, *pop_en_cnt),
            "#{index}"
        );
    }
}

#[test]
fn patch_values_fit_their_fields() {
    // PATCH_BIT1.STOP_DLY 11:8 and PATCH_BIT2.POP_EN_CNT 23:20 are four bits wide; a stop
    // delay comes with the stop-clock fix only.
    for soc in EIGHT_BIT.iter().chain(&TWELVE_BIT) {
        assert!(soc.stop_dly_sel <= 0xF && soc.pop_en_cnt <= 0xF, "{soc:?}");
        assert_eq!(soc.stop_dly_sel != 0, soc.stop_clk_fix, "{soc:?}");
    }
}
