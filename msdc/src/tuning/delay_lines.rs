// SPDX-License-Identifier: GPL-2.0

//! Where the sample points live in the registers: the delay lines and sample edges tuning
//! programs on each SoC generation, and the snapshot of them that tuning saves and
//! restores.

use super::super::regs::{
    MsdcBase, MsdcRegs, MsdcTop, EMMC50_PAD_DS_TUNE, EMMC_TOP_CMD, EMMC_TOP_CONTROL, MSDC_IOCON,
    MSDC_PAD_TUNE0, MSDC_PAD_TUNE1, MSDC_PATCH_BIT0, MSDC_PATCH_BIT2, PAD_CMD_TUNE, PAD_DS_TUNE,
};
use super::super::soc::SocData;
use super::{SampleEdge, TuningStep, DELAY_LINE_CELLS};
use crate::registers::{FieldOverflow, Io};

/// The first and second delay fields for `cell`: below 32 the first alone, above it the
/// first at 31 and the rest in the second.
fn split_cell(cell: u8) -> (u32, u32) {
    let last = u32::from(DELAY_LINE_CELLS - 1);
    let cell = u32::from(cell);
    if cell <= last {
        (cell, 0)
    } else {
        (last, (cell - u32::from(DELAY_LINE_CELLS)).min(last))
    }
}

/// The pad tune register of `soc`, in [`MSDC_PAD_TUNE0`]'s layout (the two share it).
pub(super) fn read_pad_tune(r: &impl Io<MsdcBase>, soc: &SocData) -> MSDC_PAD_TUNE0 {
    MSDC_PAD_TUNE0::from_raw(r.read32(soc.pad_tune_reg.offset()))
}

pub(super) fn write_pad_tune(r: &impl Io<MsdcBase>, soc: &SocData, value: MSDC_PAD_TUNE0) {
    r.write32(soc.pad_tune_reg.offset(), value.raw());
}

/// The pad tune register's second delay line, in [`MSDC_PAD_TUNE1`]'s layout.
pub(super) fn read_pad_tune2(r: &impl Io<MsdcBase>, soc: &SocData) -> MSDC_PAD_TUNE1 {
    MSDC_PAD_TUNE1::from_raw(r.read32(soc.pad_tune_reg.second_offset()))
}

pub(super) fn write_pad_tune2(r: &impl Io<MsdcBase>, soc: &SocData, value: MSDC_PAD_TUNE1) {
    r.write32(soc.pad_tune_reg.second_offset(), value.raw());
}

/// Programs the command delay line at `cell`.
pub(super) fn set_command_delay(r: &impl MsdcRegs, soc: &SocData, step: TuningStep, cell: u8) {
    let (first, second) = split_cell(cell);
    if soc.needs_top_base {
        Io::<MsdcTop>::update::<EMMC_TOP_CMD>(r, |v| {
            let v = v.try_with_pad_cmd_rxdly(first).unwrap_or(v);
            v.try_with_pad_cmd_rxdly2(second).unwrap_or(v)
        });
    } else {
        let fields: PadTuneFields = (
            MSDC_PAD_TUNE0::try_with_cmdrdly,
            MSDC_PAD_TUNE1::try_with_cmdrdly2,
        );
        set_pad_tune_delay(r, soc, step, (first, second), fields);
    }
}

/// Programs the data delay line at `cell`.
pub(super) fn set_data_delay(r: &impl MsdcRegs, soc: &SocData, step: TuningStep, cell: u8) {
    let (first, second) = split_cell(cell);
    if soc.needs_top_base {
        Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| {
            let v = v.try_with_pad_dat_rd_rxdly(first).unwrap_or(v);
            v.try_with_pad_dat_rd_rxdly2(second).unwrap_or(v)
        });
    } else {
        let fields: PadTuneFields = (
            MSDC_PAD_TUNE0::try_with_datrrdly,
            MSDC_PAD_TUNE1::try_with_datrrdly2,
        );
        set_pad_tune_delay(r, soc, step, (first, second), fields);
    }
}

/// A setter of a delay field.
type DelayField<T> = fn(T, u32) -> Result<T, FieldOverflow>;

/// The setters of one delay line's fields in the pad tune register and its second one.
type PadTuneFields = (DelayField<MSDC_PAD_TUNE0>, DelayField<MSDC_PAD_TUNE1>);

/// A delay line of the pad tune register: `values.0` into its field `fields.0` and, with a
/// 64-cell step, `values.1` into the second register's `fields.1`.
fn set_pad_tune_delay(
    r: &impl MsdcRegs,
    soc: &SocData,
    step: TuningStep,
    values: (u32, u32),
    fields: PadTuneFields,
) {
    // `split_cell` keeps both values within the 5-bit fields.
    let tune = read_pad_tune(r, soc);
    write_pad_tune(r, soc, (fields.0)(tune, values.0).unwrap_or(tune));
    if step.uses_second_line() {
        let tune2 = read_pad_tune2(r, soc);
        write_pad_tune2(r, soc, (fields.1)(tune2, values.1).unwrap_or(tune2));
    }
}

pub(super) fn set_command_edge(r: &impl MsdcRegs, edge: SampleEdge) {
    Io::<MsdcBase>::update::<MSDC_IOCON>(r, |v| v.with_rspl(edge.falling()));
}

pub(super) fn set_data_edge(r: &impl MsdcRegs, soc: &SocData, edge: SampleEdge) {
    let falling = edge.falling();
    if soc.support_new_rx {
        Io::<MsdcBase>::update::<MSDC_PATCH_BIT0>(r, |v| v.with_rd_dat_sel(falling));
        Io::<MsdcBase>::update::<MSDC_PATCH_BIT2>(r, |v| v.with_cfgcrcstsedge(falling));
    } else {
        Io::<MsdcBase>::update::<MSDC_IOCON>(r, |v| v.with_dspl(falling).with_w_dspl(falling));
    }
}

/// The internal command delay (`CMDRRDLY` of the pad tune register).
pub(super) fn set_internal_delay(
    r: &impl MsdcRegs,
    soc: &SocData,
    value: u32,
) -> Result<(), FieldOverflow> {
    let tune = read_pad_tune(r, soc).try_with_cmdrrdly(value)?;
    write_pad_tune(r, soc, tune);
    Ok(())
}

pub(super) fn set_hs400_command_delay(r: &impl MsdcRegs, cell: u8) {
    Io::<MsdcBase>::update::<PAD_CMD_TUNE>(r, |v| v.try_with_rx_dly3(u32::from(cell)).unwrap_or(v));
}

/// The strobe's first delay (`DLY1`), and what it was.
pub(super) fn set_strobe_delay(r: &impl MsdcRegs, soc: &SocData, cell: u8) -> u8 {
    let cell = u32::from(cell);
    let before = if soc.needs_top_base {
        let v = Io::<MsdcTop>::read::<EMMC50_PAD_DS_TUNE>(r);
        Io::<MsdcTop>::write(r, v.try_with_pad_ds_dly1(cell).unwrap_or(v));
        v.pad_ds_dly1()
    } else {
        let v = Io::<MsdcBase>::read::<PAD_DS_TUNE>(r);
        Io::<MsdcBase>::write(r, v.try_with_dly1(cell).unwrap_or(v));
        v.dly1()
    };
    // A 5-bit field.
    before as u8
}

pub(super) fn current_strobe_delay(r: &impl MsdcRegs, soc: &SocData) -> u8 {
    let dly1 = if soc.needs_top_base {
        Io::<MsdcTop>::read::<EMMC50_PAD_DS_TUNE>(r).pad_ds_dly1()
    } else {
        Io::<MsdcBase>::read::<PAD_DS_TUNE>(r).dly1()
    };
    // A 5-bit field.
    dly1 as u8
}

/// The delay lines and edges tuning sets, as read back: upstream's `msdc_tune_para`, plus
/// the second pad tune register with a 64-cell step and the new receive path's edge bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct TuneSnapshot {
    iocon: u32,
    pad_tune: u32,
    pad_tune2: u32,
    pad_cmd_tune: u32,
    top_control: u32,
    top_cmd: u32,
    data_falling: bool,
}

impl TuneSnapshot {
    /// Every field zero: what nothing has been read into yet.
    pub(super) const ZERO: Self = Self {
        iocon: 0,
        pad_tune: 0,
        pad_tune2: 0,
        pad_cmd_tune: 0,
        top_control: 0,
        top_cmd: 0,
        data_falling: false,
    };

    pub(super) fn read(r: &impl MsdcRegs, soc: &SocData, step: TuningStep) -> Self {
        let mut snapshot = Self {
            iocon: Io::<MsdcBase>::read::<MSDC_IOCON>(r).raw(),
            pad_cmd_tune: Io::<MsdcBase>::read::<PAD_CMD_TUNE>(r).raw(),
            ..Self::ZERO
        };
        if soc.support_new_rx {
            snapshot.data_falling = Io::<MsdcBase>::read::<MSDC_PATCH_BIT0>(r).rd_dat_sel();
        }
        if soc.needs_top_base {
            snapshot.top_control = Io::<MsdcTop>::read::<EMMC_TOP_CONTROL>(r).raw();
            snapshot.top_cmd = Io::<MsdcTop>::read::<EMMC_TOP_CMD>(r).raw();
        } else {
            snapshot.pad_tune = read_pad_tune(r, soc).raw();
            if step.uses_second_line() {
                snapshot.pad_tune2 = read_pad_tune2(r, soc).raw();
            }
        }
        snapshot
    }

    /// Writes the snapshot back; `PAD_CMD_TUNE` only for a tuned one (upstream's default
    /// restore leaves it).
    pub(super) fn write(
        &self,
        r: &impl MsdcRegs,
        soc: &SocData,
        step: TuningStep,
        command_pad: bool,
    ) {
        Io::<MsdcBase>::write(r, MSDC_IOCON::from_raw(self.iocon));
        if command_pad {
            Io::<MsdcBase>::write(r, PAD_CMD_TUNE::from_raw(self.pad_cmd_tune));
        }
        if soc.support_new_rx {
            set_data_edge(r, soc, SampleEdge::from_falling(self.data_falling));
        }
        if soc.needs_top_base {
            Io::<MsdcTop>::write(r, EMMC_TOP_CONTROL::from_raw(self.top_control));
            Io::<MsdcTop>::write(r, EMMC_TOP_CMD::from_raw(self.top_cmd));
        } else {
            write_pad_tune(r, soc, MSDC_PAD_TUNE0::from_raw(self.pad_tune));
            if step.uses_second_line() {
                write_pad_tune2(r, soc, MSDC_PAD_TUNE1::from_raw(self.pad_tune2));
            }
        }
    }
}
