// SPDX-License-Identifier: GPL-2.0

//! Runtime suspend and resume: the configuration survives a power-off of the controller
//! (resume onto a fresh model, every register at its reset value) and a clock gating
//! (registers kept), nothing touches the registers while suspended, a clock that never
//! settles ends the resume after the bounded wait, and initialisation runs again on a
//! controller in use, as the glue does on power-up.

use std::cell::RefCell;

use cqhci::regs::CQSSC1;
use cqhci::CqhciHost;
use models::emmc::Card;
use models::msdc::regs::{
    EMMC50_CFG0, EMMC50_CFG3, MSDC_CFG, MSDC_DMA_CFG, MSDC_INT, MSDC_INTEN, MSDC_IOCON,
    MSDC_PAD_TUNE, MSDC_PAD_TUNE0, MSDC_PATCH_BIT, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS,
    PAD_CMD_TUNE, PAD_DS_TUNE, SDC_ADV_CFG0, SDC_CFG, SDC_STS,
};
use models::msdc::{CardSlot, MsdcModel};
use models::sd::{SdCard, BLOCK_SIZE};
use msdc::clock::Timing;
use msdc::controller::{
    BusClock, CardDetect, HwError, Progress, Resumed, StartError, SuspendError, POLL_LIMIT,
};
use msdc::regs::MsdcBase;
use msdc::soc::{self, PadTuneRegister};
use registers::{Io, PollLimit, Window};

use crate::emmc::{emmc_host, emmc_rig};
use crate::rig::{
    block_request, command, filled, flags, legacy_config, model_config, modern_config, patterned,
    request, serial, Host, Rig,
};
use crate::sd::{rca_arg, sd_host, sd_rig};

const INT_CDSC: u32 = MSDC_INT::zeroed().with_cdsc(true).raw();
const INT_SDIOIRQ: u32 = MSDC_INT::zeroed().with_sdioirq(true).raw();
const INT_CMDRDY: u32 = MSDC_INT::zeroed().with_cmdrdy(true).raw();
const CFG_CKPDN: u32 = MSDC_CFG::zeroed().with_ckpdn(true).raw();
const PS_CDEN: u32 = MSDC_PS::zeroed().with_cden(true).raw();
const SDC_CFG_SDIO: u32 = SDC_CFG::zeroed().with_sdio(true).raw();
const SDC_CFG_SDIOIDE: u32 = SDC_CFG::zeroed().with_sdioide(true).raw();
/// `SDC_CFG.BUSWIDTH`, bits 17:16.
const SDC_CFG_BUSWIDTH: u32 = 3 << 16;
/// `SDC_ADV_CFG0` DAT1 interrupt detection (SDIO mode), bit 19.
const ADV_DAT1_IRQ_TRIGGER: u32 = 1 << 19;
/// The model's register, at mtk-sd.c's offset; the bench keeps it (see `rig.rs`).
const SDC_FIFO_CFG: usize = models::msdc::regs::SDC_FIFO_CFG::OFFSET;

/// Every configuration register a power-off resets, by the model's names and offsets: both
/// pad tune registers (a SoC has one of them; the other stays at zero).
const CONFIGURATION: [(&str, usize); 16] = [
    ("MSDC_CFG", MSDC_CFG::OFFSET),
    ("MSDC_IOCON", MSDC_IOCON::OFFSET),
    ("MSDC_PS", MSDC_PS::OFFSET),
    ("MSDC_INTEN", MSDC_INTEN::OFFSET),
    ("SDC_CFG", SDC_CFG::OFFSET),
    ("SDC_ADV_CFG0", SDC_ADV_CFG0::OFFSET),
    ("MSDC_DMA_CFG", MSDC_DMA_CFG::OFFSET),
    ("MSDC_PATCH_BIT", MSDC_PATCH_BIT::OFFSET),
    ("MSDC_PATCH_BIT1", MSDC_PATCH_BIT1::OFFSET),
    ("MSDC_PATCH_BIT2", MSDC_PATCH_BIT2::OFFSET),
    ("MSDC_PAD_TUNE", MSDC_PAD_TUNE::OFFSET),
    ("MSDC_PAD_TUNE0", MSDC_PAD_TUNE0::OFFSET),
    ("PAD_DS_TUNE", PAD_DS_TUNE::OFFSET),
    ("PAD_CMD_TUNE", PAD_CMD_TUNE::OFFSET),
    ("EMMC50_CFG0", EMMC50_CFG0::OFFSET),
    ("EMMC50_CFG3", EMMC50_CFG3::OFFSET),
];

/// The configuration registers as the bench holds them, `SDC_FIFO_CFG` included.
fn configuration<C: CardSlot>(rig: &Rig<C>) -> Vec<(&'static str, u32)> {
    let mut values: Vec<_> = CONFIGURATION
        .iter()
        .map(|&(name, offset)| (name, rig.peek(offset)))
        .collect();
    values.push(("SDC_FIFO_CFG", rig.fifo_cfg.get()));
    values
}

/// The model's offset of the pad tune register the bench's SoC has.
fn pad_tune<C: CardSlot>(rig: &Rig<C>) -> usize {
    match rig.config.soc.pad_tune_reg {
        PadTuneRegister::PadTune => MSDC_PAD_TUNE::OFFSET,
        PadTuneRegister::PadTune0 => MSDC_PAD_TUNE0::OFFSET,
    }
}

/// What tuning would leave in the delay and sampling registers (none of it is written by
/// the engine yet): values unlike the reset value in every field the registers have.
fn tune<C: CardSlot>(rig: &Rig<C>) {
    let pad_tune = pad_tune(rig);
    let mut model = rig.model();
    model.write(MSDC_IOCON::OFFSET, 0x0000_0006);
    model.write(pad_tune, 0x0812_0304);
    model.write(PAD_DS_TUNE::OFFSET, 0x0001_2345);
    model.write(PAD_CMD_TUNE::OFFSET, 0x0000_0153);
    model.write(EMMC50_CFG3::OFFSET, 0x0000_0005);
}

/// A power-off of the controller's power domain: every register back at its reset value.
fn power_off<C: CardSlot>(rig: &Rig<C>) {
    *rig.model() = MsdcModel::new(model_config(&rig.config));
    rig.fifo_cfg.set(0);
}

/// An [`Io`] that must not be used: the controller is suspended.
struct Forbidden;

impl<W: Window> Io<W> for Forbidden {
    fn read32(&self, offset: usize) -> u32 {
        panic!("{} register {offset:#x} read while suspended", W::NAME);
    }

    fn write32(&self, offset: usize, value: u32) {
        panic!(
            "{} register {offset:#x} written ({value:#x}) while suspended",
            W::NAME
        );
    }

    fn poll32(
        &self,
        offset: usize,
        _done: impl FnMut(u32) -> bool,
        _limit: PollLimit,
    ) -> Result<u32, u32> {
        panic!("{} register {offset:#x} polled while suspended", W::NAME);
    }
}

/// The bench, with every register write recorded.
struct Recorded<'r, C: CardSlot> {
    rig: &'r Rig<C>,
    writes: RefCell<Vec<(usize, u32)>>,
}

impl<'r, C: CardSlot> Recorded<'r, C> {
    fn new(rig: &'r Rig<C>) -> Self {
        Self {
            rig,
            writes: RefCell::new(Vec::new()),
        }
    }
}

/// Records the base window's writes (the top window's, on a SoC with one, go through).
impl<C: CardSlot, W: Window> Io<W> for Recorded<'_, C>
where
    Rig<C>: Io<W>,
{
    fn read32(&self, offset: usize) -> u32 {
        Io::<W>::read32(self.rig, offset)
    }

    fn write32(&self, offset: usize, value: u32) {
        if W::NAME == MsdcBase::NAME {
            self.writes.borrow_mut().push((offset, value));
        }
        Io::<W>::write32(self.rig, offset, value);
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        Io::<W>::poll32(self.rig, offset, done, limit)
    }
}

/// Sets up internal card detect, SDIO mode with its interrupt enabled and the tuning
/// registers on a host whose card is in transfer state at its running clock.
fn configure_slot<C: CardSlot>(host: &mut Host<'_, C>) {
    let rig = host.rig;
    host.ctrl()
        .set_card_detect(rig, CardDetect::Internal { active_high: false });
    host.ctrl().set_sdio_mode(rig, true);
    host.ctrl().enable_sdio_irq(rig, true);
    tune(rig);
    assert_eq!(rig.peek(MSDC_INTEN::OFFSET), INT_CDSC | INT_SDIOIRQ);
    assert_ne!(rig.peek(MSDC_PS::OFFSET) & PS_CDEN, 0);
    assert_eq!(
        rig.peek(SDC_CFG::OFFSET) & (SDC_CFG_SDIO | SDC_CFG_SDIOIDE),
        SDC_CFG_SDIO | SDC_CFG_SDIOIDE
    );
}

/// Suspends, powers the controller off and resumes it; checks that every configuration
/// register is back as it was, and the order resume writes them in.
fn survive_power_off<C: CardSlot>(host: &mut Host<'_, C>) {
    let rig = host.rig;
    let before = configuration(rig);
    let clock = host.ctrl().bus_clock_hz();
    assert_ne!(clock, 0, "the clock runs");
    host.ctrl().suspend(rig).expect("suspend");
    assert!(host.ctrl().is_suspended());
    assert_eq!(rig.peek(MSDC_INTEN::OFFSET), 0, "masked until resume");
    rig.assert_no_violations();

    power_off(rig);
    assert_eq!(rig.peek(SDC_CFG::OFFSET), 0, "the power-off reset it");
    let recorded = Recorded::new(rig);
    assert_eq!(host.ctrl().resume(&recorded), Ok(()));
    assert!(!host.ctrl().is_suspended());
    assert_eq!(configuration(rig), before);
    assert_eq!(host.ctrl().bus_clock_hz(), clock);
    assert_eq!(rig.model().bus_clock_hz(), clock);

    let writes = recorded.writes.take();
    let saved_cfg = before[0].1;
    let (first, second) = (writes[0], writes[1]);
    assert_eq!(first.0, MSDC_CFG::OFFSET, "MSDC_CFG goes back first");
    assert_eq!(
        first.1 & CFG_CKPDN,
        0,
        "with the clock gated while it settles"
    );
    assert_eq!(
        second,
        (MSDC_CFG::OFFSET, saved_cfg & !(1 << 7)),
        "then ungated"
    );
    let (acknowledge, enables) = (writes[writes.len() - 2], writes[writes.len() - 1]);
    assert_eq!(acknowledge.0, MSDC_INT::OFFSET, "stale events cleared");
    assert_eq!(
        enables,
        (MSDC_INTEN::OFFSET, INT_CDSC | INT_SDIOIRQ),
        "INTEN last"
    );
    let mut written: Vec<usize> = writes.iter().map(|&(offset, _)| offset).collect();
    written.sort_unstable();
    written.dedup();
    let pad_tune = pad_tune(rig);
    let mut expected: Vec<usize> = CONFIGURATION
        .iter()
        .map(|&(_, offset)| offset)
        .filter(|&offset| {
            (offset != MSDC_PAD_TUNE::OFFSET && offset != MSDC_PAD_TUNE0::OFFSET)
                || offset == pad_tune
        })
        .chain([MSDC_INT::OFFSET, SDC_FIFO_CFG])
        .collect();
    expected.sort_unstable();
    assert_eq!(
        written, expected,
        "resume writes the save set and nothing else"
    );
    rig.assert_no_violations();
}

fn assert_ok(result: &mmc_request::RequestResult) {
    assert_eq!(result.first_error(), None, "{result:?}");
}

/// A read and a write of the card's blocks, checked against its storage.
fn transfer<C: CardSlot>(host: &mut Host<'_, C>, expect: &[u8], storage: impl Fn(&C) -> Vec<u8>) {
    let rig = host.rig;
    let result = host.run(&block_request(false, 6, 2, false), &[(0, 1024)]);
    assert_ok(&result);
    assert_eq!(rig.data(0, 1024), expect[6 * 512..8 * 512]);
    rig.fill(0x2000, &[0xC3; 1536]);
    let result = host.run(&block_request(true, 20, 3, true), &[(0x2000, 1536)]);
    assert_ok(&result);
    let written = storage(&rig.card());
    assert!(filled(&written[20 * 512..23 * 512], 0xC3));
    rig.assert_no_violations();
}

#[test]
fn sd_configuration_survives_a_power_off() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_slot(&mut host);
    // A data command programmed its timeout.
    assert_ok(&host.run(&block_request(false, 1, 1, false), &[(0, 512)]));
    assert_eq!(
        rig.peek(SDC_CFG::OFFSET) & SDC_CFG_BUSWIDTH,
        1 << 16,
        "4 lines"
    );
    assert_ne!(rig.peek(SDC_CFG::OFFSET) >> 24, 0, "DTOC");
    survive_power_off(&mut host);
    transfer(&mut host, &expect, |card: &SdCard<'_>| {
        card.storage().to_vec()
    });
}

#[test]
fn emmc_configuration_survives_a_power_off() {
    let (mut storage, expect) = patterned(64 * 512);
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);
    configure_slot(&mut host);
    assert_eq!(
        rig.peek(SDC_CFG::OFFSET) & SDC_CFG_BUSWIDTH,
        2 << 16,
        "8 lines"
    );
    survive_power_off(&mut host);
    transfer(&mut host, &expect, |card: &Card<'_>| {
        card.storage().to_vec()
    });
    // A second cycle from the restored state.
    survive_power_off(&mut host);
    transfer(&mut host, &expect, |card: &Card<'_>| {
        card.storage().to_vec()
    });
}

#[test]
fn suspend_is_refused_while_a_request_is_in_flight() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    host.start(&block_request(false, 0, 1, false), &[(0, 512)])
        .unwrap();
    let (reads, writes) = (rig.reads.get(), rig.writes.get());
    assert_eq!(host.ctrl().suspend(&rig), Err(SuspendError::Busy));
    assert!(!host.ctrl().is_suspended());
    assert_eq!((rig.reads.get(), rig.writes.get()), (reads, writes));
    let result = host.wait().expect("the request goes on");
    assert_ok(&result);
    assert_eq!(host.ctrl().suspend(&rig), Ok(()));
    assert_eq!(host.ctrl().resume(&rig), Ok(()));
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    rig.assert_no_violations();
}

#[test]
fn nothing_touches_the_registers_while_suspended() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_slot(&mut host);
    let status = request(command(13, 0, flags::R1 | flags::AC));
    let token = host.token(&status, 7);
    let mut ctrl = host.ctrl();
    ctrl.suspend(&rig).unwrap();

    // The interrupt handler of a shared line.
    assert!(!ctrl.sdio_irq_event(&Forbidden));
    assert!(!ctrl.card_detect_event(&Forbidden));
    assert_eq!(ctrl.command_queue_event(&Forbidden), None);
    assert!(matches!(
        ctrl.handle_interrupt(&Forbidden),
        Progress::Pending
    ));
    assert!(!ctrl.recheck_sdio_irq(&Forbidden));
    assert!(ctrl.abort(&Forbidden).is_none());
    // What must reach the hardware at once is refused.
    assert_eq!(
        ctrl.start(&Forbidden, &status, None, token)
            .map_err(|(token, error)| (serial(&token), error)),
        Err((7, StartError::Suspended))
    );
    assert_eq!(
        ctrl.set_clock(&Forbidden, 400_000, Timing::Legacy),
        Err(HwError::Suspended)
    );
    assert_eq!(ctrl.reset(&Forbidden), Err(HwError::Suspended));
    assert!(matches!(
        ctrl.init_hardware(&Forbidden),
        Err(HwError::Suspended)
    ));
    let mut waited = false;
    ctrl.pulse_card_reset(&Forbidden, |_| waited = true);
    assert!(!waited, "no reset pulse");
    // The pins as they were at suspend.
    assert!(ctrl.card_present(&Forbidden));
    assert!(!ctrl.card_busy(&Forbidden));
    // The CQHCI hooks do nothing.
    let hooks = ctrl.cqe_hooks(&Forbidden, CQSSC1::zeroed());
    hooks.enable(&Forbidden);
    hooks.disable(&Forbidden, true);
    hooks.pre_enable(&Forbidden);
    hooks.post_disable(&Forbidden);
    let aftermath = hooks.finish();
    ctrl.absorb_cqe(aftermath);
    // The setters change the saved copy.
    ctrl.set_bus_width(&Forbidden, 1);
    ctrl.set_bus_width(&Forbidden, 4);
    ctrl.set_card_detect(&Forbidden, CardDetect::Polled);
    ctrl.enable_sdio_irq(&Forbidden, false);
    ctrl.ack_sdio_irq(&Forbidden);
    assert_eq!(ctrl.suspend(&Forbidden), Ok(()), "already suspended");
    assert!(ctrl.is_suspended());

    power_off(&rig);
    assert_eq!(ctrl.resume(&rig), Ok(()));
    assert_eq!(ctrl.card_detect(), CardDetect::Polled);
    assert!(!ctrl.sdio_irq_enabled());
    assert_eq!(rig.peek(MSDC_INTEN::OFFSET), 0);
    assert_eq!(rig.peek(MSDC_PS::OFFSET) & PS_CDEN, 0);
    let sdc_cfg = rig.peek(SDC_CFG::OFFSET);
    assert_eq!(sdc_cfg & (SDC_CFG_SDIO | SDC_CFG_SDIOIDE), SDC_CFG_SDIO);
    assert_eq!(sdc_cfg & SDC_CFG_BUSWIDTH, 1 << 16, "4 lines");
    assert_eq!(
        ctrl.resume(&Forbidden),
        Ok(()),
        "not suspended: nothing to do"
    );
    drop(ctrl);
    host.ok(13, rca_arg(), flags::R1 | flags::AC);
    assert_ok(&host.run(&block_request(false, 2, 1, false), &[(0, 512)]));
    rig.assert_no_violations();
}

#[test]
fn resume_without_a_stable_clock_fails_after_the_bounded_wait() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    let before = configure_and_power_off(&mut host);
    rig.misbehave.pin_clock_unstable.set(true);
    let reads = rig.reads.get();
    assert_eq!(host.ctrl().resume(&rig), Err(HwError::ClockTimeout));
    assert!(
        rig.reads.get() - reads <= u64::from(POLL_LIMIT) + 8,
        "bounded"
    );
    assert_resumed_with_the_clock_gated(&host);
    // Everything else went back.
    let after = configuration(&rig);
    assert_eq!(after[1..], before[1..]);

    // The clock was forgotten: the same request programs it again once it can settle,
    // and with it the default sample points (at 50 MHz; no tuning ran), in place of the
    // values `tune` wrote behind the controller's back.
    rig.misbehave.pin_clock_unstable.set(false);
    assert_eq!(host.clock(50_000_000, Timing::SdHighSpeed), 50_000_000);
    assert_eq!(
        without_sample_points(configuration(&rig)),
        without_sample_points(before)
    );
    assert_eq!(rig.peek(MSDC_IOCON::OFFSET), 0);
    // MT2712 tunes data: RD_SEL 13 and CMD_SEL 21 selected, every delay 0.
    assert_eq!(rig.peek(MSDC_PAD_TUNE0::OFFSET), (1 << 13) | (1 << 21));
    assert_ok(&host.run(&block_request(false, 3, 1, false), &[(0, 512)]));
    rig.assert_no_violations();
}

/// The configuration registers other than the sample points, which a clock programmed
/// again sets to the defaults for its rate (no tuning ran on these benches).
fn without_sample_points(c: Vec<(&'static str, u32)>) -> Vec<(&'static str, u32)> {
    let sample_points = ["MSDC_IOCON", "MSDC_PAD_TUNE0"];
    c.into_iter()
        .filter(|(name, _)| !sample_points.contains(name))
        .collect()
}

/// Configures the slot, suspends the controller and powers it off; returns the
/// configuration as it was before the suspend.
fn configure_and_power_off<C: CardSlot>(host: &mut Host<'_, C>) -> Vec<(&'static str, u32)> {
    configure_slot(host);
    let before = configuration(host.rig);
    host.ctrl().suspend(host.rig).unwrap();
    power_off(host.rig);
    before
}

/// After a resume that ended on an unstable clock: no longer suspended, and the clock
/// gated and known to be.
fn assert_resumed_with_the_clock_gated<C: CardSlot>(host: &Host<'_, C>) {
    assert!(
        !host.ctrl().is_suspended(),
        "no longer suspended, even on error"
    );
    assert_eq!(host.ctrl().bus_clock_hz(), 0);
    assert_eq!(
        host.rig.peek(MSDC_CFG::OFFSET) & CFG_CKPDN,
        0,
        "the clock stays gated"
    );
}

/// The clock `sd_host` leaves: 50 MHz, high speed.
const SD_BUS: BusClock = BusClock {
    hz: 50_000_000,
    timing: Timing::SdHighSpeed,
};

#[test]
fn resume_with_a_late_clock_programs_the_bus_again() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    let before = configure_and_power_off(&mut host);
    // Unstable through resume's own bounded wait, stable a few reads into the second.
    rig.misbehave.clock_unstable_reads.set(POLL_LIMIT + 8);
    assert_eq!(
        host.ctrl().resume_with_clock(&rig, SD_BUS),
        Ok(Resumed::ClockRestarted { hz: 50_000_000 })
    );
    assert_eq!(
        rig.misbehave.clock_unstable_reads.get(),
        0,
        "both waits ran"
    );
    assert!(!host.ctrl().is_suspended());
    assert_eq!(host.ctrl().bus_clock_hz(), 50_000_000);
    assert_ne!(rig.peek(MSDC_CFG::OFFSET) & CFG_CKPDN, 0, "the clock runs");
    assert_eq!(
        without_sample_points(configuration(&rig)),
        without_sample_points(before),
        "bus width, clock and the rest as before the suspend"
    );
    assert_ok(&host.run(&block_request(false, 3, 1, false), &[(0, 512)]));
    rig.assert_no_violations();
}

#[test]
fn resume_with_clock_fails_when_the_clock_never_comes_back() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_and_power_off(&mut host);
    rig.misbehave.pin_clock_unstable.set(true);
    assert_eq!(
        host.ctrl().resume_with_clock(&rig, SD_BUS),
        Err(HwError::ClockTimeout)
    );
    assert_resumed_with_the_clock_gated(&host);
}

#[test]
fn resume_with_clock_leaves_a_restored_controller_alone() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    let before = configure_and_power_off(&mut host);
    assert_eq!(
        host.ctrl().resume_with_clock(&rig, SD_BUS),
        Ok(Resumed::Restored)
    );
    assert_eq!(configuration(&rig), before, "the tuned sample points too");
}

#[test]
fn resume_after_the_clocks_were_only_gated() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_slot(&mut host);
    let before = configuration(&rig);
    host.ctrl().suspend(&rig).unwrap();
    // Latched while suspended: a card-detect change, and a stale command event.
    rig.misbehave.injected_events.set(INT_CDSC | INT_CMDRDY);
    assert_eq!(host.ctrl().resume(&rig), Ok(()));
    assert_eq!(configuration(&rig), before);
    assert_eq!(
        rig.misbehave.injected_events.get(),
        INT_CDSC,
        "the stale event is cleared, the card-detect change kept for its consumer"
    );
    assert_eq!(host.interrupt(), Some(Progress::Pending));
    assert_eq!(host.card_detect_changes(), 1);
    transfer(&mut host, &expect, |card: &SdCard<'_>| {
        card.storage().to_vec()
    });
}

#[test]
fn suspend_tells_the_power_manager_where_the_soc_needs_it() {
    let config = msdc::controller::HostSetup {
        soc: &soc::MT8189,
        ..modern_config()
    };
    let rig = Rig::new(&config, SdCard::new(&mut [], Default::default()));
    let mut ctrl = msdc::controller::Controller::<()>::new(config);
    ctrl.init_hardware(&rig).unwrap();
    let release = SDC_STS::zeroed().with_spm_resource_release(true).raw();
    assert_eq!(rig.peek(SDC_STS::OFFSET) & release, 0);
    ctrl.suspend(&rig).unwrap();
    assert_ne!(rig.peek(SDC_STS::OFFSET) & release, 0);
    assert_eq!(ctrl.resume(&rig), Ok(()));

    let rig = Rig::new(&modern_config(), SdCard::new(&mut [], Default::default()));
    let mut ctrl = msdc::controller::Controller::<()>::new(modern_config());
    ctrl.init_hardware(&rig).unwrap();
    ctrl.suspend(&rig).unwrap();
    assert_eq!(rig.peek(SDC_STS::OFFSET) & release, 0, "MT2712 is not told");
    rig.assert_no_violations();
}

#[test]
fn initialisation_again_on_a_controller_in_use() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_slot(&mut host);
    assert_eq!(host.ctrl().bus_clock_hz(), 50_000_000);

    host.ctrl()
        .init_hardware(&rig)
        .expect("init_hardware again");
    assert!(host.ctrl().is_idle());
    assert_eq!(
        host.ctrl().card_detect(),
        CardDetect::Internal { active_high: false },
        "kept"
    );
    assert!(
        !host.ctrl().sdio_irq_enabled(),
        "off, as upstream leaves it"
    );
    assert_eq!(rig.peek(MSDC_INTEN::OFFSET), INT_CDSC);
    assert_ne!(rig.peek(MSDC_PS::OFFSET) & PS_CDEN, 0);
    let sdc_cfg = rig.peek(SDC_CFG::OFFSET);
    assert_eq!(
        sdc_cfg & (SDC_CFG_SDIO | SDC_CFG_SDIOIDE),
        SDC_CFG_SDIO,
        "SDIO mode kept"
    );
    assert_eq!(
        sdc_cfg & SDC_CFG_BUSWIDTH,
        1 << 16,
        "the bus width is the core's"
    );
    assert_ne!(rig.peek(SDC_ADV_CFG0::OFFSET) & ADV_DAT1_IRQ_TRIGGER, 0);
    // Gated, and known to be: the engine's view matches the registers.
    assert_eq!(host.ctrl().bus_clock_hz(), 0);
    assert_eq!(rig.peek(MSDC_CFG::OFFSET) & CFG_CKPDN, 0);

    // The rate that ran before is programmed again, not taken as unchanged.
    let writes = rig.writes.get();
    assert_eq!(host.clock(50_000_000, Timing::SdHighSpeed), 50_000_000);
    assert!(rig.writes.get() > writes);
    assert_ne!(rig.peek(MSDC_CFG::OFFSET) & CFG_CKPDN, 0);
    assert_eq!(rig.model().bus_clock_hz(), 50_000_000);
    transfer(&mut host, &expect, |card: &SdCard<'_>| {
        card.storage().to_vec()
    });
}

#[test]
fn initialisation_under_a_request_hands_its_token_back() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);
    configure_slot(&mut host);
    host.start(&block_request(false, 2, 1, false), &[(0, 512)])
        .expect("started");
    assert!(!host.ctrl().is_idle());

    let aborted = host.ctrl().init_hardware(&rig).expect("init_hardware");
    let (token, result) = aborted.expect("the request in flight comes back");
    assert_eq!(serial(&token), host.started);
    assert_eq!(result.first_error(), Some(mmc_request::ErrorKind::TimedOut));
    assert!(host.ctrl().is_idle());
    // Idle: a second initialisation has nothing to hand back.
    assert!(matches!(host.ctrl().init_hardware(&rig), Ok(None)));
    rig.assert_no_violations();
}
