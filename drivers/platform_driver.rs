// SPDX-License-Identifier: GPL-2.0

//! Binding to MSDC controllers described in the device tree.

use kernel::{device::Core, of, platform, prelude::*};

use crate::{
    mmc::HostAllocation,
    msdc::clock::DividerWidth,
    soc::{self, SocData},
};

/// The MSDC platform driver.
pub(crate) struct MsdcDriver;

kernel::of_device_table!(
    OF_TABLE,
    <MsdcDriver as platform::Driver>::IdInfo,
    [
        (of::DeviceId::new(c"mediatek,mt2701-mmc"), &soc::MT2701),
        (of::DeviceId::new(c"mediatek,mt2712-mmc"), &soc::MT2712),
        (of::DeviceId::new(c"mediatek,mt6779-mmc"), &soc::MT6779),
        (of::DeviceId::new(c"mediatek,mt6795-mmc"), &soc::MT6795),
        (of::DeviceId::new(c"mediatek,mt7620-mmc"), &soc::MT7620),
        (of::DeviceId::new(c"mediatek,mt7622-mmc"), &soc::MT7622),
        (of::DeviceId::new(c"mediatek,mt7986-mmc"), &soc::MT7986),
        (of::DeviceId::new(c"mediatek,mt7988-mmc"), &soc::MT7986),
        (of::DeviceId::new(c"mediatek,mt8135-mmc"), &soc::MT8135),
        (of::DeviceId::new(c"mediatek,mt8173-mmc"), &soc::MT8173),
        (of::DeviceId::new(c"mediatek,mt8183-mmc"), &soc::MT8183),
        (of::DeviceId::new(c"mediatek,mt8189-mmc"), &soc::MT8189),
        (of::DeviceId::new(c"mediatek,mt8196-mmc"), &soc::MT8196),
        (of::DeviceId::new(c"mediatek,mt8516-mmc"), &soc::MT8516),
    ]
);

impl platform::Driver for MsdcDriver {
    type IdInfo = &'static SocData;
    type Data<'bound> = Self;
    const OF_ID_TABLE: Option<of::IdTable<Self::IdInfo>> = Some(&OF_TABLE);

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self, Error> + 'bound {
        let dev = pdev.as_ref();
        let Some(soc) = info else {
            dev_err!(
                dev,
                "no per-SoC data: the device did not match a known compatible\n"
            );
            return Err(ENODEV);
        };
        dev_info!(
            dev,
            "MSDC with {}-bit clock divider, pad tune at {:#x}\n",
            match soc.clock_divider {
                DividerWidth::Bits8 => 8,
                DividerWidth::Bits12 => 12,
            },
            soc.pad_tune_reg
        );
        let host = HostAllocation::new(dev, 0)
            .inspect_err(|e| dev_err!(dev, "cannot allocate an MMC host: {:?}\n", e))?;
        // The request path lands with the first-light work; until then binding must
        // fail loudly (and free the host) rather than leave a dead slot behind.
        dev_err!(
            dev,
            "mmc{} (caps {:#x}): the Rust MSDC host is not supported yet\n",
            host.index(),
            host.caps()
        );
        Err(ENODEV)
    }
}
