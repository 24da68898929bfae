// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the driver's OF table selects Linux 7.3's per-SoC data for each of its
//! compatibles. The data itself is checked by `cargo test -p msdc` (`tests/facts/soc.rs`).

#[kernel::prelude::kunit_tests(mtk_sd_rust_soc)]
mod tests {
    use crate::msdc::soc::{self, SocData};
    use crate::platform_driver::COMPATIBLES;
    use kernel::prelude::CStr;

    /// Linux 7.3's `msdc_of_ids`: each compatible and the `mtk_mmc_compatible` it selects.
    const UPSTREAM: [(&CStr, SocData); 14] = [
        (c"mediatek,mt2701-mmc", soc::MT2701),
        (c"mediatek,mt2712-mmc", soc::MT2712),
        (c"mediatek,mt6779-mmc", soc::MT6779),
        (c"mediatek,mt6795-mmc", soc::MT6795),
        (c"mediatek,mt7620-mmc", soc::MT7620),
        (c"mediatek,mt7622-mmc", soc::MT7622),
        (c"mediatek,mt7986-mmc", soc::MT7986),
        (c"mediatek,mt7988-mmc", soc::MT7986),
        (c"mediatek,mt8135-mmc", soc::MT8135),
        (c"mediatek,mt8173-mmc", soc::MT8173),
        (c"mediatek,mt8183-mmc", soc::MT8183),
        (c"mediatek,mt8189-mmc", soc::MT8189),
        (c"mediatek,mt8196-mmc", soc::MT8196),
        (c"mediatek,mt8516-mmc", soc::MT8516),
    ];

    /// The per-SoC data the OF table gives `compatible`, if it lists it exactly once.
    fn selected(compatible: &CStr) -> Option<SocData> {
        let mut entries = COMPATIBLES.iter().filter(|(c, _)| *c == compatible);
        match (entries.next(), entries.next()) {
            (Some((_, soc)), None) => Some(**soc),
            _ => None,
        }
    }

    #[test]
    fn of_table_selects_upstreams_soc_data() {
        assert_eq!(COMPATIBLES.len(), UPSTREAM.len());
        for (compatible, expected) in UPSTREAM {
            assert!(selected(compatible) == Some(expected));
        }
    }

    #[test]
    fn of_table_lists_mediatek_mmc_nodes_only() {
        for (compatible, _) in COMPATIBLES {
            let name = compatible.to_bytes();
            assert!(name.starts_with(b"mediatek,mt") && name.ends_with(b"-mmc"));
        }
    }
}
