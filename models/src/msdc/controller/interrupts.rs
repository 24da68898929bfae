// SPDX-License-Identifier: GPL-2.0
//! `MSDC_INT` and the interrupt line: events latching in `MSDC_INT`, the CQHCI block's
//! `CMDQ` as read, the line as `MSDC_INTEN` masks it, and the SDIO interrupt detector that
//! latches `SDIOIRQ`.

use super::super::regs::{MSDC_INT, SDC_ADV_CFG0};
use super::{MsdcModel, Phase};

/// An `MSDC_INT` event, named by the setter of its bit (`MSDC_INT::with_cmdrdy`).
pub(super) type Event = fn(MSDC_INT, bool) -> MSDC_INT;

impl MsdcModel {
    /// `MSDC_INT` as read: the latched events, and `CMDQ` while the CQHCI block signals an
    /// interrupt (CQIS & CQISGE) or a host-detected error of the block is latched.
    pub(super) fn int_status(&self) -> MSDC_INT {
        let signalled = self.cqhci.as_ref().is_some_and(|c| c.status_signalled());
        self.int
            .with_cmdq(self.int.cmdq() || self.cmdq_error || signalled)
    }

    /// Latches `event` in `MSDC_INT`.
    pub(super) fn raise(&mut self, event: Event) {
        self.int = event(self.int, true);
    }

    /// `MSDC_INT & MSDC_INTEN != 0`: the interrupt line (`MSDC_INT` as read, so with the
    /// CQHCI block's `CMDQ`).
    pub fn interrupt_pending(&self) -> bool {
        self.powered && self.int_status().raw() & self.inten.raw() != 0
    }

    /// Whether the SDIO interrupt detector sees an interrupt: SDIO mode with detection on
    /// (`SDC_CFG.SDIO`, `SDIOIDE`, `SDC_ADV_CFG0.DAT1_IRQ_TRIGGER`) and the card asserting
    /// it where DAT1 carries interrupts: always on a 1-bit bus, outside data phases on a
    /// wider one (the SDIO interrupt period).
    pub(super) fn sdio_interrupt_seen(&self) -> bool {
        let adv = SDC_ADV_CFG0::from_raw(self.plain_value(SDC_ADV_CFG0::OFFSET));
        let period = self.host_bus_width() <= 1 || !matches!(self.phase, Phase::Data(_));
        self.powered
            && self.sdc_cfg.sdio()
            && self.sdc_cfg.sdioide()
            && adv.dat1_irq_trigger()
            && self.lines.sdio_interrupt
            && period
    }
}
