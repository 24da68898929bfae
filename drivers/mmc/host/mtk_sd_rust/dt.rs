// SPDX-License-Identifier: GPL-2.0

//! The MediaTek-specific device tree properties of an MSDC node (the generic MMC ones are
//! read by the MMC core's `mmc_of_parse`).

use kernel::fmt;

use kernel::{device::Device, prelude::*};

use crate::msdc::tuning::{BoardTuning, TuningStep};

/// Largest delay-cell count of the pad and internal delay fields (5-bit fields).
const MAX_DELAY_CELLS: u32 = 31;
/// Largest `mediatek,latch-ck` value (3-bit `MSDC_PATCH_BIT0.CKGEN_MSDC_DLY_SEL` use).
const MAX_LATCH_CK: u32 = 7;
/// Tuning steps the pad delay lines have: half (32 cells) or full (64 cells) range.
const TUNING_STEPS: [u32; 2] = [32, 64];

/// Board tuning values and features from the device tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MediatekProperties {
    /// `mediatek,latch-ck`: read-data latch clock delay.
    pub(crate) latch_ck: Option<u32>,
    /// `hs400-ds-delay`: data-strobe delay for HS400 (register value).
    pub(crate) hs400_ds_delay: Option<u32>,
    /// `mediatek,hs400-ds-dly3`: third data-strobe delay stage.
    pub(crate) hs400_ds_dly3: Option<u32>,
    /// `mediatek,hs200-cmd-int-delay`: command internal delay in HS200.
    pub(crate) hs200_cmd_int_delay: Option<u32>,
    /// `mediatek,hs400-cmd-int-delay`: command internal delay in HS400.
    pub(crate) hs400_cmd_int_delay: Option<u32>,
    /// `mediatek,hs400-cmd-resp-sel-rising`: sample HS400 command responses on the rising edge.
    pub(crate) hs400_cmd_resp_sel_rising: bool,
    /// `mediatek,tuning-step`: delay cells swept while tuning.
    pub(crate) tuning_step: Option<u32>,
    /// `supports-cqe`: the controller's CQHCI block may be used.
    pub(crate) supports_cqe: bool,
}

impl MediatekProperties {
    /// The board's tuning values as the controller takes them (0 for an absent number, as
    /// upstream), with upstream's default tuning step for a slot with or without
    /// `no-mmc`.
    pub(crate) fn board_tuning(&self, no_mmc: bool) -> BoardTuning {
        let defaults = BoardTuning::defaults(no_mmc);
        BoardTuning {
            latch_ck: self.latch_ck.unwrap_or(0),
            hs400_ds_delay: self.hs400_ds_delay.unwrap_or(0),
            hs400_ds_dly3: self.hs400_ds_dly3.unwrap_or(0),
            hs200_cmd_int_delay: self.hs200_cmd_int_delay.unwrap_or(0),
            hs400_cmd_int_delay: self.hs400_cmd_int_delay.unwrap_or(0),
            hs400_cmd_resp_sel_rising: self.hs400_cmd_resp_sel_rising,
            tuning_step: self
                .tuning_step
                .and_then(TuningStep::from_dt)
                .unwrap_or(defaults.tuning_step),
        }
    }

    /// Reads and checks the properties; an out-of-range value is a device tree error.
    pub(crate) fn read(dev: &Device) -> Result<Self> {
        let Some(node) = dev.fwnode() else {
            dev_err!(dev, "no device tree node\n");
            return Err(ENODEV);
        };
        let bounded = |name: &CStr, max: u32| -> Result<Option<u32>> {
            match node.property_read::<u32>(name).optional() {
                Some(v) if v > max => {
                    dev_err!(dev, "\"{}\" = {} is out of range (0..={})\n", name, v, max);
                    Err(EINVAL)
                }
                v => Ok(v),
            }
        };
        let props = Self {
            latch_ck: bounded(c"mediatek,latch-ck", MAX_LATCH_CK)?,
            hs400_ds_delay: node.property_read::<u32>(c"hs400-ds-delay").optional(),
            hs400_ds_dly3: bounded(c"mediatek,hs400-ds-dly3", MAX_DELAY_CELLS)?,
            hs200_cmd_int_delay: bounded(c"mediatek,hs200-cmd-int-delay", MAX_DELAY_CELLS)?,
            hs400_cmd_int_delay: bounded(c"mediatek,hs400-cmd-int-delay", MAX_DELAY_CELLS)?,
            hs400_cmd_resp_sel_rising: node
                .property_read_bool(c"mediatek,hs400-cmd-resp-sel-rising"),
            tuning_step: node
                .property_read::<u32>(c"mediatek,tuning-step")
                .optional(),
            supports_cqe: node.property_read_bool(c"supports-cqe"),
        };
        if let Some(step) = props.tuning_step {
            if !TUNING_STEPS.contains(&step) {
                dev_err!(
                    dev,
                    "\"mediatek,tuning-step\" = {} must be 32 or 64\n",
                    step
                );
                return Err(EINVAL);
            }
        }
        Ok(props)
    }

    /// A one-line description for the probe message.
    pub(crate) fn summary(&self) -> Summary<'_> {
        Summary(self)
    }
}

/// [`MediatekProperties`] as the probe message shows them.
pub(crate) struct Summary<'a>(&'a MediatekProperties);

impl kernel::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        if p.supports_cqe {
            f.write_str(", supports-cqe")?;
        }
        for (name, value) in [
            ("latch-ck", p.latch_ck),
            ("hs400-ds-delay", p.hs400_ds_delay),
            ("hs400-ds-dly3", p.hs400_ds_dly3),
            ("hs200-cmd-int-delay", p.hs200_cmd_int_delay),
            ("hs400-cmd-int-delay", p.hs400_cmd_int_delay),
            ("tuning-step", p.tuning_step),
        ] {
            if let Some(v) = value {
                write!(f, ", {name} {v:#x}")?;
            }
        }
        if p.hs400_cmd_resp_sel_rising {
            f.write_str(", hs400 responses on rising edge")?;
        }
        Ok(())
    }
}
