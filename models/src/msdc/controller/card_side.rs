// SPDX-License-Identifier: GPL-2.0
//! The card side of the controller: the hardware reset pulse, the card clock and the line
//! levels the card drove at the last step, which `MSDC_PS` reports and the SDIO interrupt
//! detector watches.

use super::super::{
    regs::{MSDC_INT, MSDC_PS},
    slot::CardSlot,
};
use super::MsdcModel;

/// The levels the card drove on the bus when the model last looked ([`MsdcModel::step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lines {
    /// DAT3..DAT0.
    data: u8,
    cmd: bool,
    /// The card asserts an SDIO interrupt.
    pub(super) sdio_interrupt: bool,
}

impl Lines {
    pub(super) const IDLE: Self = Self {
        data: 0xF,
        cmd: true,
        sdio_interrupt: false,
    };
}

impl MsdcModel {
    /// Brings the card up to date with what the controller did since the last look, and
    /// takes the card's line levels: a hardware reset pulse on `EMMC_IOCON`, the card clock
    /// starting or stopping (`MSDC_CFG.CKPDN` with the source clock and power), DAT3..DAT0
    /// and CMD for `MSDC_PS`, and the SDIO interrupt into `MSDC_INT.SDIOIRQ`.
    /// [`MsdcModel::step`] does this before and after its work; a board can call it when it
    /// has no work to run.
    pub fn sync_card<C: CardSlot + ?Sized>(&mut self, card: &mut C) {
        if core::mem::take(&mut self.hardware_reset) {
            card.hardware_reset();
            // RST_n aborts what the card was doing.
            self.busy_until = None;
        }
        if !self.card_busy_now() {
            self.busy_until = None;
        }
        let running = self.clocked() && self.cfg.ckpdn();
        if running != self.card_clock {
            self.card_clock = running;
            card.clock_running(running);
        }
        self.lines = Lines {
            // The card's own levels; `line_levels` adds DAT0 held low while it is busy.
            data: card.data_lines(),
            cmd: card.cmd_line(),
            sdio_interrupt: card.sdio_interrupt(),
        };
        let detected = self.sdio_interrupt_seen();
        if detected && !self.sdio_detected {
            self.raise(MSDC_INT::with_sdioirq);
        }
        self.sdio_detected = detected;
    }

    /// `MSDC_PS`'s line levels: DAT3..DAT0 and CMD as the card drove them at the last step
    /// (DAT0 low: busy), DAT7..DAT4 pulled up.
    pub(super) fn line_levels(&self) -> MSDC_PS {
        // A card busy (programming, or stuck) holds DAT0 low until the model clock's
        // present time, whether or not a step ran since.
        let busy = if self.card_busy_now() { !1 } else { 0xFF };
        let dat = 0xF0 | u32::from(self.lines.data & busy & 0xF);
        MSDC_PS::LINES_IDLE
            .try_with_dat(dat)
            .unwrap_or(MSDC_PS::LINES_IDLE)
            .with_cmd(self.lines.cmd)
    }
}
