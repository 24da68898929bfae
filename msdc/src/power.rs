// SPDX-License-Identifier: GPL-2.0

//! The MSDC configuration that runtime power management must carry across a power-off:
//! which registers [`Controller::suspend`] saves and [`Controller::resume`] writes back, and
//! the saved copy the setters program while the controller is suspended.
//!
//! On MediaTek SoCs the MSDC's power domain may go off while the device is runtime
//! suspended; every register then comes back at its reset value. With only the clocks
//! gated the registers keep their values but cannot be accessed. The save set therefore
//! holds every register that differs from its reset value because software configured it
//! outside a request:
//!
//! - upstream's set (`msdc_save_reg`): `MSDC_CFG`, `MSDC_IOCON`, `SDC_CFG`,
//!   `MSDC_PATCH_BIT0`/`1`/`2`, the SoC's pad tune register (`MSDC_PAD_TUNE` or
//!   `MSDC_PAD_TUNE0`), `PAD_DS_TUNE`, `PAD_CMD_TUNE`, `EMMC50_CFG0`, `EMMC50_CFG3` and
//!   `SDC_FIFO_CFG`;
//! - what the controller also configures and upstream loses or re-creates otherwise:
//!   `MSDC_INTEN` (the standing card-detect and SDIO interrupts), `MSDC_PS` (internal card
//!   detect and its debounce), `SDC_ADV_CFG0` (DAT1 interrupt detection, enhanced receive
//!   path) and `MSDC_DMA_CFG` (descriptor checksums).
//!
//! - what tuning configures: the second pad tune register (four bytes after the first)
//!   with a 64-cell tuning step, whose `*2` delays and selects upstream loses;
//! - on SoCs with a top region (`needs_top_base`), upstream's top set: `EMMC_TOP_CONTROL`,
//!   `EMMC_TOP_CMD`, `EMMC50_PAD_DS_TUNE` and `LOOP_TEST_CONTROL`, written back after the
//!   base registers.
//!
//! Not saved, because every request programs them again: `SDC_CMD`, `SDC_ARG`,
//! `SDC_BLK_NUM`, `DMA_SA_H4BIT`, `MSDC_DMA_SA`, `MSDC_DMA_CTRL` and the events in
//! `MSDC_INT` (`MSDC_FIFOCS`, `SDC_STS` and `MSDC_DMA_CA` hold status only). Not saved
//! either, because nothing writes them and they hold their reset value before and after a
//! power-off: `EMMC_IOCON` (the card reset pulse leaves it as it found it),
//! `MSDC_DAT_RDDLY0`/`1` and `EMMC50_CFG2`. `MSDC_NEW_RX_CFG` and `SDC_ADV_CFG0.NEW_TX_EN`
//! (the new transmit and receive paths) must go from 0 to 1 again, which resume does before
//! it writes the save set back, as initialisation does. The enhanced strobe registers
//! (`EMMC50_CFG1`, `EMMC51_CFG0`, `CQHCI_SETTING`; upstream loses them) are programmed
//! again by resume from the controller's own record of the setting. A register that starts
//! being configured outside requests must join `save_set`.
//!
//! The CQHCI block's own registers belong to the `cqhci` engine, which is suspended before
//! the controller and re-enables itself, running the controller's hooks again, with the
//! first request after resume.

use core::cell::Cell;

#[cfg(doc)]
use super::controller::Controller;
use super::regs::{
    MsdcBase, MsdcRegs, MsdcTop, EMMC50_CFG0, EMMC50_CFG3, EMMC50_PAD_DS_TUNE, EMMC_TOP_CMD,
    EMMC_TOP_CONTROL, LOOP_TEST_CONTROL, MSDC_CFG, MSDC_DMA_CFG, MSDC_INTEN, MSDC_IOCON,
    MSDC_PATCH_BIT0, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS, PAD_CMD_TUNE, PAD_DS_TUNE,
    SDC_ADV_CFG0, SDC_CFG, SDC_FIFO_CFG,
};
use super::soc::SocData;
use super::tuning::TuningStep;
use crate::registers::{Io, PollLimit, Register};

/// Registers of the base window in the largest save set.
const SAVED: usize = 17;

/// Position of `MSDC_CFG` in the save set: written back first, so the clock can settle
/// before anything depends on it.
const CLOCK: usize = 0;

/// Registers of the top window in the save set of a SoC that has one, in the order resume
/// writes them.
const TOP_SET: [usize; 4] = [
    EMMC_TOP_CONTROL::OFFSET,
    EMMC_TOP_CMD::OFFSET,
    EMMC50_PAD_DS_TUNE::OFFSET,
    LOOP_TEST_CONTROL::OFFSET,
];

/// The offsets of the save set of a controller of `soc` tuning in `step`s, in the order
/// resume writes them, and how many there are: `MSDC_INTEN` is the last, written back
/// last so that nothing interrupts a controller that is restored half way.
const fn save_set(soc: &SocData, step: TuningStep) -> ([usize; SAVED], usize) {
    let second_pad_tune = matches!(step, TuningStep::Cells64);
    let mut offsets = [
        MSDC_CFG::OFFSET,
        MSDC_IOCON::OFFSET,
        MSDC_PS::OFFSET,
        SDC_CFG::OFFSET,
        SDC_ADV_CFG0::OFFSET,
        MSDC_DMA_CFG::OFFSET,
        MSDC_PATCH_BIT0::OFFSET,
        MSDC_PATCH_BIT1::OFFSET,
        MSDC_PATCH_BIT2::OFFSET,
        soc.pad_tune_reg.offset(),
        PAD_DS_TUNE::OFFSET,
        PAD_CMD_TUNE::OFFSET,
        EMMC50_CFG0::OFFSET,
        EMMC50_CFG3::OFFSET,
        SDC_FIFO_CFG::OFFSET,
        soc.pad_tune_reg.second_offset(),
        MSDC_INTEN::OFFSET,
    ];
    if second_pad_tune {
        (offsets, SAVED)
    } else {
        offsets[SAVED - 2] = MSDC_INTEN::OFFSET;
        (offsets, SAVED - 1)
    }
}

/// Where the register at `offset` is in the save set `offsets`.
fn index_of(offsets: &[usize], offset: usize) -> Option<usize> {
    offsets.iter().position(|&saved| saved == offset)
}

/// The save set as read at suspend (and changed by the setters while suspended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SavedRegisters {
    offsets: [usize; SAVED],
    values: [u32; SAVED],
    /// How many of `offsets` and `values` are in use; `MSDC_INTEN` is the last of them.
    len: usize,
    /// The top window's set, on a SoC that has one.
    top: Option<[u32; TOP_SET.len()]>,
}

impl SavedRegisters {
    /// Reads the save set of a controller of `soc` tuning in `step`s; the top window only
    /// where the SoC has one.
    pub(super) fn save(r: &impl MsdcRegs, soc: &SocData, step: TuningStep) -> Self {
        let (offsets, len) = save_set(soc, step);
        let mut values = [0; SAVED];
        for (value, &offset) in values.iter_mut().zip(&offsets).take(len) {
            *value = Io::<MsdcBase>::read32(r, offset);
        }
        let top = soc
            .needs_top_base
            .then(|| TOP_SET.map(|offset| Io::<MsdcTop>::read32(r, offset)));
        Self {
            offsets,
            values,
            len,
            top,
        }
    }

    /// Index of `MSDC_INTEN`, the last of the set.
    fn enables(&self) -> usize {
        self.len.saturating_sub(1)
    }

    /// `MSDC_CFG` as saved.
    pub(super) fn clock_configuration(&self) -> MSDC_CFG {
        MSDC_CFG::from_raw(self.values[CLOCK])
    }

    /// `MSDC_INTEN` as saved.
    pub(super) fn interrupt_enables(&self) -> MSDC_INTEN {
        MSDC_INTEN::from_raw(self.values.get(self.enables()).copied().unwrap_or(0))
    }

    /// Writes back the save set but `MSDC_CFG` and `MSDC_INTEN`, in order, then the top
    /// window's set.
    ///
    /// Read-only and status bits go back as they were read; the hardware ignores them. None
    /// of these registers has a bit that acts when written.
    pub(super) fn restore_configuration(&self, r: &impl MsdcRegs) {
        for (&offset, &value) in self
            .offsets
            .iter()
            .zip(&self.values)
            .take(self.enables())
            .skip(CLOCK + 1)
        {
            Io::<MsdcBase>::write32(r, offset, value);
        }
        if let Some(top) = &self.top {
            for (&offset, &value) in TOP_SET.iter().zip(top) {
                Io::<MsdcTop>::write32(r, offset, value);
            }
        }
    }

    /// Register `R` as saved; zero for a register outside the save set.
    pub(super) fn read<R: Register<Window = MsdcBase>>(&self) -> R {
        let offsets = self.offsets.get(..self.len).unwrap_or(&[]);
        let value = index_of(offsets, R::OFFSET).and_then(|index| self.values.get(index));
        R::from_raw(value.copied().unwrap_or(0))
    }

    /// The saved copy as registers, for the setters to program while suspended.
    pub(super) fn image(&mut self) -> SavedImage<'_> {
        let len = self.len.min(SAVED);
        SavedImage {
            offsets: &self.offsets[..len],
            values: Cell::from_mut(&mut self.values[..len]).as_slice_of_cells(),
        }
    }
}

/// The saved copy of the registers, as an [`Io`] that changes it instead of the hardware.
///
/// Only the save set is there: any other register reads as zero and writes to it are
/// dropped, and a poll ends at its first read (nothing in the copy changes on its own).
/// The setters that run on it touch only the save set.
#[derive(Debug)]
pub(super) struct SavedImage<'a> {
    offsets: &'a [usize],
    values: &'a [Cell<u32>],
}

impl SavedImage<'_> {
    fn slot(&self, offset: usize) -> Option<&Cell<u32>> {
        self.values.get(index_of(self.offsets, offset)?)
    }
}

impl Io<MsdcBase> for SavedImage<'_> {
    fn read32(&self, offset: usize) -> u32 {
        self.slot(offset).map_or(0, Cell::get)
    }

    fn write32(&self, offset: usize, value: u32) {
        if let Some(slot) = self.slot(offset) {
            slot.set(value);
        }
    }

    fn poll32(
        &self,
        offset: usize,
        mut done: impl FnMut(u32) -> bool,
        _limit: PollLimit,
    ) -> Result<u32, u32> {
        let value = self.read32(offset);
        if done(value) {
            Ok(value)
        } else {
            Err(value)
        }
    }
}

/// Where a setter's register accesses go: the hardware, or while the controller is
/// suspended the saved copy that resume writes back.
#[derive(Debug)]
pub(super) enum Configuration<'a, I> {
    /// The controller is powered: its registers.
    Hardware(&'a I),
    /// The controller is suspended: the saved copy.
    Saved(SavedImage<'a>),
}

impl<I: Io<MsdcBase>> Io<MsdcBase> for Configuration<'_, I> {
    fn read32(&self, offset: usize) -> u32 {
        match self {
            Self::Hardware(r) => r.read32(offset),
            Self::Saved(image) => image.read32(offset),
        }
    }

    fn write32(&self, offset: usize, value: u32) {
        match self {
            Self::Hardware(r) => r.write32(offset, value),
            Self::Saved(image) => image.write32(offset, value),
        }
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        match self {
            Self::Hardware(r) => r.poll32(offset, done, limit),
            Self::Saved(image) => image.poll32(offset, done, limit),
        }
    }
}
