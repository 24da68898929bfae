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
//! Not saved, because every request programs them again: `SDC_CMD`, `SDC_ARG`,
//! `SDC_BLK_NUM`, `DMA_SA_H4BIT`, `MSDC_DMA_SA`, `MSDC_DMA_CTRL` and the events in
//! `MSDC_INT` (`MSDC_FIFOCS`, `SDC_STS` and `MSDC_DMA_CA` hold status only). Not saved
//! either, because nothing writes them and they hold their reset value before and after a
//! power-off: `EMMC_IOCON` (the card reset pulse leaves it as it found it),
//! `MSDC_NEW_RX_CFG` and `SDC_ADV_CFG0.NEW_TX_EN` (the new transmit and receive paths are
//! not enabled; once they are, resume must toggle them 0 then 1 as initialisation does),
//! `MSDC_PAD_TUNE1`, `MSDC_DAT_RDDLY0`/`1` (there is no tuning code yet; upstream never
//! writes them), `EMMC50_CFG1`/`2`, `EMMC51_CFG0` and `CQHCI_SETTING`. A register that
//! starts being configured outside requests must join `save_set`.
//!
//! The CQHCI block's own registers belong to the `cqhci` engine, which is suspended before
//! the controller and re-enables itself, running the controller's hooks again, with the
//! first request after resume.
//!
//! The top region (`reg[1]`: `EMMC_TOP_CONTROL`, `EMMC_TOP_CMD`, `EMMC50_PAD_DS_TUNE`,
//! `LOOP_TEST_CONTROL`), which upstream saves instead of the pad tune register on SoCs with
//! `needs_top_base`, is not mapped by the driver yet (issue #13) and is not saved: on those
//! SoCs a power-off resets it (nothing writes it today either).

use core::cell::Cell;

#[cfg(doc)]
use super::controller::Controller;
use super::regs::{
    MsdcBase, EMMC50_CFG0, EMMC50_CFG3, MSDC_CFG, MSDC_DMA_CFG, MSDC_INTEN, MSDC_IOCON,
    MSDC_PATCH_BIT0, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS, PAD_CMD_TUNE, PAD_DS_TUNE,
    SDC_ADV_CFG0, SDC_CFG, SDC_FIFO_CFG,
};
use super::soc::SocData;
use crate::registers::{Io, PollLimit, Register};

/// Registers in the save set.
const SAVED: usize = 16;

/// Position of `MSDC_CFG` in the save set: written back first, so the clock can settle
/// before anything depends on it.
const CLOCK: usize = 0;

/// Position of `MSDC_INTEN` in the save set: written back last, so nothing interrupts a
/// controller that is restored half way.
const ENABLES: usize = SAVED - 1;

/// The offsets of the save set of a controller of `soc`, in the order resume writes them.
const fn save_set(soc: &SocData) -> [usize; SAVED] {
    [
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
        MSDC_INTEN::OFFSET,
    ]
}

/// Where the register at `offset` is in the save set `offsets`.
fn index_of(offsets: &[usize; SAVED], offset: usize) -> Option<usize> {
    offsets.iter().position(|&saved| saved == offset)
}

/// The save set as read at suspend (and changed by the setters while suspended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SavedRegisters {
    offsets: [usize; SAVED],
    values: [u32; SAVED],
}

impl SavedRegisters {
    /// Reads the save set of a controller of `soc`.
    pub(super) fn save(r: &impl Io<MsdcBase>, soc: &SocData) -> Self {
        let offsets = save_set(soc);
        Self {
            offsets,
            values: offsets.map(|offset| r.read32(offset)),
        }
    }

    /// `MSDC_CFG` as saved.
    pub(super) fn clock_configuration(&self) -> MSDC_CFG {
        MSDC_CFG::from_raw(self.values[CLOCK])
    }

    /// `MSDC_INTEN` as saved.
    pub(super) fn interrupt_enables(&self) -> MSDC_INTEN {
        MSDC_INTEN::from_raw(self.values[ENABLES])
    }

    /// Writes back the save set but `MSDC_CFG` and `MSDC_INTEN`, in order.
    ///
    /// Read-only and status bits go back as they were read; the hardware ignores them. None
    /// of these registers has a bit that acts when written.
    pub(super) fn restore_configuration(&self, r: &impl Io<MsdcBase>) {
        for (&offset, &value) in self
            .offsets
            .iter()
            .zip(&self.values)
            .take(ENABLES)
            .skip(CLOCK + 1)
        {
            r.write32(offset, value);
        }
    }

    /// Register `R` as saved; zero for a register outside the save set.
    pub(super) fn read<R: Register<Window = MsdcBase>>(&self) -> R {
        let value = index_of(&self.offsets, R::OFFSET).and_then(|index| self.values.get(index));
        R::from_raw(value.copied().unwrap_or(0))
    }

    /// The saved copy as registers, for the setters to program while suspended.
    pub(super) fn image(&mut self) -> SavedImage<'_> {
        SavedImage {
            offsets: &self.offsets,
            values: Cell::from_mut(&mut self.values[..]).as_slice_of_cells(),
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
    offsets: &'a [usize; SAVED],
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
