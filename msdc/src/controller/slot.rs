// SPDX-License-Identifier: GPL-2.0

//! The slot around the controller: card detect, the SDIO card interrupt, the card's lines
//! (DAT0 busy, the eMMC hardware reset) and the signalling voltage.

use super::super::regs::{
    InterruptSet, MsdcBase, EMMC_IOCON, MSDC_INT, MSDC_INTEN, MSDC_PS, SDC_ADV_CFG0, SDC_CFG,
};
use super::super::soc::SocData;
use super::Controller;
use crate::registers::Io;

/// `MSDC_PS.CDDEBOUNCE` upstream programs for the internal card detect (8 cycles).
pub const CARD_DETECT_DEBOUNCE: u32 = 8;

/// How long the eMMC `RST_n` line is held low for a hardware reset, in µs.
pub const CARD_RESET_PULSE_US: u32 = 10;

/// How a slot learns that a card came or went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardDetect {
    /// The card cannot be removed (`non-removable`).
    Fixed,
    /// A `cd-gpios` line, handled by the MMC core.
    Gpio,
    /// The controller's own card-detect pin (`MSDC_PS.CDSTS`), with the `CDSC` interrupt.
    Internal {
        /// The pin is high with a card in the slot (`cd-inverted`, which the MMC core turns
        /// into `MMC_CAP2_CD_ACTIVE_HIGH`); by default it is active low.
        active_high: bool,
    },
    /// Nothing tells: the core polls.
    Polled,
}

impl CardDetect {
    /// The mode of a slot, in upstream's order of precedence: a non-removable card, a
    /// card-detect GPIO, the internal pin (SoCs with `use_internal_cd`, unless the device
    /// tree asks for polling) with the polarity `MMC_CAP2_CD_ACTIVE_HIGH` gives, polling.
    pub const fn for_slot(
        non_removable: bool,
        has_gpio: bool,
        needs_poll: bool,
        cd_active_high: bool,
        soc: &SocData,
    ) -> Self {
        if non_removable {
            Self::Fixed
        } else if has_gpio {
            Self::Gpio
        } else if !needs_poll && soc.use_internal_cd {
            Self::Internal {
                active_high: cd_active_high,
            }
        } else {
            Self::Polled
        }
    }
}

/// Signalling voltage of the card interface (`mmc_ios.signal_voltage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalVoltage {
    /// `MMC_SIGNAL_VOLTAGE_330`.
    V330,
    /// `MMC_SIGNAL_VOLTAGE_180`.
    V180,
    /// `MMC_SIGNAL_VOLTAGE_120`.
    V120,
}

impl SignalVoltage {
    /// Maps an `MMC_SIGNAL_VOLTAGE_*` value.
    pub const fn from_mmc(value: u32) -> Option<Self> {
        match value {
            0 => Some(Self::V330),
            1 => Some(Self::V180),
            2 => Some(Self::V120),
            _ => None,
        }
    }
}

/// The pin configuration that goes with a signalling voltage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadState {
    /// The pinctrl "default" state (3.3 V).
    Default,
    /// The pinctrl "state_uhs" state (1.8 V).
    Uhs,
}

/// A signalling voltage the MSDC pads cannot drive (`-EINVAL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedVoltage(pub SignalVoltage);

impl<R> Controller<R> {
    /// The last signalling voltage accepted by [`Controller::start_voltage_switch`].
    pub const fn signal_voltage(&self) -> SignalVoltage {
        self.signal_voltage
    }

    /// How the slot detects cards, as last set by [`Controller::set_card_detect`].
    pub const fn card_detect(&self) -> CardDetect {
        self.card_detect
    }

    /// Whether the MMC core has the SDIO card interrupt enabled
    /// ([`Controller::enable_sdio_irq`]), even while it is masked between its event and the
    /// core's acknowledgment.
    pub const fn sdio_irq_enabled(&self) -> bool {
        self.sdio_irq_enabled
    }

    /// Whether a card is in the slot, from the internal card-detect pin (`MSDC_PS.CDSTS`)
    /// with the polarity of [`CardDetect::Internal`]: active low unless `active_high`, as
    /// upstream reads it. Meaningful only with [`CardDetect::Internal`] (other modes read
    /// the pin as active low). While suspended, the pin as it was at suspend.
    pub fn card_present(&self, r: &impl Io<MsdcBase>) -> bool {
        let active_high = matches!(self.card_detect, CardDetect::Internal { active_high: true });
        self.pin_status(r).cdsts() == active_high
    }

    /// Sets how the slot detects cards. [`CardDetect::Internal`] enables the internal card
    /// detect: `MSDC_PS.CDEN` with upstream's debounce, the `CDSC` interrupt and wake-up on
    /// insertion (`SDC_CFG.INSWKUP`); every other mode disables it. While suspended,
    /// programs the saved registers, for resume to write.
    pub fn set_card_detect(&mut self, r: &impl Io<MsdcBase>, mode: CardDetect) {
        self.card_detect = mode;
        self.configure(r, |ctrl, r| ctrl.program_card_detect(r));
    }

    /// Silences the controller for good before its host goes away (driver removal, after
    /// the MMC core has finished with the card): card detect off, the SDIO interrupt off,
    /// `MSDC_INTEN` cleared and every latched `MSDC_INT` event acknowledged, so nothing can
    /// signal the interrupt line or ask for a rescan. Only [`Controller::init_hardware`]
    /// enables interrupts again. While suspended, in the saved registers, whose resume
    /// would otherwise bring them back.
    pub fn quiesce(&mut self, r: &impl Io<MsdcBase>) {
        self.card_detect = CardDetect::Fixed;
        self.configure(r, |ctrl, r| {
            ctrl.program_card_detect(r);
            ctrl.program_sdio_irq(r, false);
            ctrl.standing_interrupts = InterruptSet::empty();
            r.write(MSDC_INTEN::zeroed());
            let latched = InterruptSet::from_bits_retain(r.read::<MSDC_INT>().raw());
            r.write(latched.as_acknowledge());
        });
    }

    /// Whether the card holds DAT0 low (busy), `msdc_card_busy`. While suspended, DAT0 as
    /// it was at suspend.
    pub fn card_busy(&self, r: &impl Io<MsdcBase>) -> bool {
        !self.pin_status(r).dat0()
    }

    /// Pulses the eMMC `RST_n` line (`EMMC_IOCON.BOOTRST`) for a card hardware reset: low
    /// for 10 µs, well above JESD84-B51's 1 µs minimum (tRSTW). The card then needs 200 µs
    /// (tRSCA) before its first command; the glue sleeps that out of its lock.
    ///
    /// `delay_us` busy-waits the pulse time (`udelay` in the kernel): [`Io`] has no wait of
    /// its own outside a poll. While suspended nothing happens: no pulse, no wait.
    pub fn pulse_card_reset(&mut self, r: &impl Io<MsdcBase>, delay_us: impl FnOnce(u32)) {
        if self.is_suspended() {
            return;
        }
        r.update::<EMMC_IOCON>(|v| v.with_bootrst(true));
        delay_us(CARD_RESET_PULSE_US);
        r.update::<EMMC_IOCON>(|v| v.with_bootrst(false));
    }

    /// Consumes a pending, enabled card-detect change (`CDSC`); true if there was one, and
    /// the glue then schedules card detection (`mmc_detect_change`, 20 ms). Always false
    /// unless the mode is [`CardDetect::Internal`], and false, touching nothing, while
    /// suspended.
    pub fn card_detect_event(&mut self, r: &impl Io<MsdcBase>) -> bool {
        self.consume_standing_event(r, InterruptSet::CDSC)
    }

    /// Selects SDIO mode (`SDC_CFG.SDIO` and DAT1 interrupt detection, for slots without
    /// `MMC_CAP2_NO_SDIO`) or plain memory-card mode, which also disables the SDIO interrupt.
    /// While suspended, programs the saved registers, for resume to write.
    pub fn set_sdio_mode(&mut self, r: &impl Io<MsdcBase>, sdio: bool) {
        self.sdio_mode = sdio;
        self.configure(r, |ctrl, r| ctrl.program_sdio_mode(r, sdio));
    }

    /// Enables or disables the SDIO card interrupt for the MMC core (`enable_sdio_irq`):
    /// `MSDC_INTEN.SDIOIRQ` and `SDC_CFG.SDIOIDE`. While suspended, in the saved registers,
    /// for resume to write.
    pub fn enable_sdio_irq(&mut self, r: &impl Io<MsdcBase>, enable: bool) {
        self.configure(r, |ctrl, r| ctrl.program_sdio_irq(r, enable));
    }

    /// The MMC core handled the SDIO interrupt (`ack_sdio_irq`): unmasks it again if the
    /// core still has it enabled. While suspended, in the saved registers, for resume to
    /// write.
    pub fn ack_sdio_irq(&mut self, r: &impl Io<MsdcBase>) {
        if self.sdio_irq_enabled {
            self.configure(r, |ctrl, r| ctrl.unmask_sdio_irq(r, true));
        }
    }

    /// Consumes a pending, enabled SDIO card interrupt; true if there was one. The SDIO
    /// interrupt is then masked, as upstream does, until the core acknowledges it
    /// ([`Controller::ack_sdio_irq`]); the glue calls `sdio_signal_irq`. False, touching
    /// nothing, while suspended.
    pub fn sdio_irq_event(&mut self, r: &impl Io<MsdcBase>) -> bool {
        if !self.consume_standing_event(r, InterruptSet::SDIOIRQ) {
            return false;
        }
        self.unmask_sdio_irq(r, false);
        true
    }

    /// Looks for an SDIO interrupt the controller lost (`msdc_recheck_sdio_irq`; only on
    /// SoCs with `recheck_sdio_irq`, false elsewhere): the SDIO interrupt is unmasked, DAT1
    /// is low, but no event was latched. Then it masks the SDIO interrupt, as
    /// [`Controller::sdio_irq_event`] does, and returns true for the glue to signal it.
    /// False, touching nothing, while suspended.
    pub fn recheck_sdio_irq(&mut self, r: &impl Io<MsdcBase>) -> bool {
        if !self.setup.soc.recheck_sdio_irq
            || self.is_suspended()
            || !self.standing_interrupts.contains(InterruptSet::SDIOIRQ)
        {
            return false;
        }
        let latched = r.read::<MSDC_INT>().sdioirq();
        let dat1_high = r.read::<MSDC_PS>().data1();
        if latched || dat1_high {
            return false;
        }
        self.unmask_sdio_irq(r, false);
        true
    }

    /// Accepts a signalling voltage switch (`start_signal_voltage_switch`) and says which
    /// pin state goes with it; the glue switches the vqmmc regulator and the pinctrl state.
    ///
    /// The controller itself needs nothing more: the CMD11 word carries `VOLSWTH` (set by the
    /// command module), and the MMC core checks the line levels before and after the switch
    /// through [`Controller::card_busy`]. Only 3.3 V and 1.8 V are supported, as upstream.
    pub fn start_voltage_switch(
        &mut self,
        voltage: SignalVoltage,
    ) -> Result<PadState, UnsupportedVoltage> {
        let pads = match voltage {
            SignalVoltage::V330 => PadState::Default,
            SignalVoltage::V180 => PadState::Uhs,
            SignalVoltage::V120 => return Err(UnsupportedVoltage(voltage)),
        };
        self.signal_voltage = voltage;
        Ok(pads)
    }

    fn consume_standing_event(&mut self, r: &impl Io<MsdcBase>, event: InterruptSet) -> bool {
        if self.is_suspended() || !self.standing_interrupts.contains(event) {
            return false;
        }
        let pending = InterruptSet::pending_enabled(r.read(), r.read());
        if !pending.contains(event) {
            return false;
        }
        r.write(event.as_acknowledge());
        true
    }

    /// Programs the internal card detect on for [`CardDetect::Internal`], off otherwise.
    pub(super) fn program_card_detect(&mut self, r: &impl Io<MsdcBase>) {
        let enable = matches!(self.card_detect, CardDetect::Internal { .. });
        r.update::<MSDC_PS>(|ps| {
            let ps = if enable {
                ps.with_const_cddebounce::<CARD_DETECT_DEBOUNCE>()
            } else {
                ps
            };
            ps.with_cden(enable)
        });
        r.update::<SDC_CFG>(|cfg| cfg.with_inswkup(enable));
        self.set_standing(InterruptSet::CDSC, enable);
        r.update::<MSDC_INTEN>(|inten| inten.with_cdsc(enable));
    }

    /// Unmasks or masks the SDIO card interrupt: `MSDC_INTEN.SDIOIRQ` and `SDC_CFG.SDIOIDE`.
    fn unmask_sdio_irq(&mut self, r: &impl Io<MsdcBase>, unmask: bool) {
        self.set_standing(InterruptSet::SDIOIRQ, unmask);
        r.update::<MSDC_INTEN>(|inten| inten.with_sdioirq(unmask));
        r.update::<SDC_CFG>(|cfg| cfg.with_sdioide(unmask));
    }

    /// Adds `event` to the interrupts enabled outside requests, or takes it out.
    fn set_standing(&mut self, event: InterruptSet, enabled: bool) {
        if enabled {
            self.standing_interrupts |= event;
        } else {
            self.standing_interrupts = self.standing_interrupts - event;
        }
    }

    /// Records whether the MMC core wants the SDIO interrupt and unmasks or masks it.
    fn program_sdio_irq(&mut self, r: &impl Io<MsdcBase>, enable: bool) {
        self.sdio_irq_enabled = enable;
        self.unmask_sdio_irq(r, enable);
    }

    pub(super) fn program_sdio_mode(&mut self, r: &impl Io<MsdcBase>, sdio: bool) {
        if !sdio {
            self.program_sdio_irq(r, false);
        }
        r.update::<SDC_CFG>(|cfg| cfg.with_sdio(sdio).with_sdioide(false));
        r.update::<SDC_ADV_CFG0>(|adv| adv.with_dat1_irq_trigger(sdio));
    }
}
