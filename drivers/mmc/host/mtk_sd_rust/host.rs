// SPDX-License-Identifier: GPL-2.0

//! One MSDC slot serving the MMC core: requests in (one at a time, through the host software
//! queue, or as tasks of the CQHCI command queue engine), interrupts, and time limits.
//!
//! The engines decide every register access and every queueing decision: `msdc::controller`
//! runs one request on the bus, `hsq` orders the requests of a software queue, `cqhci` runs
//! the hardware queue. This module owns what they leave to their caller: the one lock around
//! them, the MMC requests themselves, the DMA memory, the interrupt line, the waits and the
//! clock of time.
//!
//! # Contexts
//!
//! The interrupt handler decodes, completes, and issues the next request of a software
//! queue straight from the completion. Anything that waits for more than a few
//! microseconds runs in process context: the request watchdog's timer only queues a work
//! item, which aborts the request; a software queue's dispatch that finds the bus busy (a
//! card still programming a write) is deferred to the busy retry work, which sleeps
//! between its looks at the bus with the lock released; the CQHCI halts and clears of
//! `cqe_off`, recovery and `cqe_disable` sleep between register checks with the lock
//! released.

#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
mod c_engines;
mod counters;
mod cqe_ops;
mod hardware_queue;
mod power;
mod slot_kernel;
mod software_queue;
mod tuning;

#[cfg(not(CONFIG_MMC_MTK_RUST_C_ENGINES))]
use core::convert::Infallible;

use kernel::{
    device::Device,
    impl_has_hr_timer, impl_has_work, new_condvar, new_work,
    prelude::*,
    sync::{aref::ARef, new_spinlock_irq, Arc, ArcBorrow, CondVar, SpinLockIrq},
    time::{
        delay::{fsleep, udelay},
        hrtimer::{
            ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
            HrTimerRestart, RelativeMode,
        },
        Delta, Instant, Monotonic,
    },
    workqueue::{Work, WorkItem},
};

#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
pub(crate) use c_engines::CEngineSlot;
pub(crate) use counters::Counters;
use hardware_queue::HardwareQueue;

use crate::{
    backend::RegisterWindow,
    cqhci,
    kernel_mmc::{
        self, DescriptorMemory, Host, HostOps, Ios, PinState, Pins, PowerMode, PreparedData,
        Request, TuningBus, TuningCard,
    },
    mmc_request::ErrorStat,
    msdc::{
        clock::Timing,
        controller::{
            CardDetect, Controller, HostSetup, HwError, PadState, SignalVoltage, StartError,
            POLL_INTERVAL_US, POLL_LIMIT,
        },
        dma,
    },
    slot,
};

/// How long the controller waits for a busy card before a command (the bound of its polls).
const BUSY_WAIT_US: u32 = POLL_LIMIT * POLL_INTERVAL_US;
/// Debounce between a card-detect interrupt and the core's rescan.
const CARD_DETECT_DELAY_MS: u32 = 20;
/// Wait after an eMMC hardware reset before the card takes commands (tRSCA is 200 µs).
const CARD_RESET_RECOVERY_US: i64 = 500;
/// The longest `cqe_wait_for_idle` waits: past the block layer's 60 s request timeout, after
/// which a hung CQHCI task turns into recovery (and the wait ends with `-EBUSY`).
const IDLE_WAIT_LIMIT_MS: i64 = 70_000;
/// How often a sleeping wait re-checks its condition when no wake-up comes.
const WAIT_RECHECK_MS: u32 = 10;
/// Sleep between two register checks of a CQHCI halt or clear.
const CQHCI_WAIT_STEP_US: i64 = 20;

/// The work items of a slot.
const WATCHDOG_WORK: u64 = 0;
const BUSY_RETRY_WORK: u64 = 1;

/// The controller's token for the request it runs.
type InFlight = slot::InFlight<Arc<Msdc>>;

/// How the slot queues requests: chosen at probe from the device tree.
enum Queue {
    /// One request at a time (a slot that may hold an SDIO card).
    OneAtATime,
    /// The host software queue (eMMC and SD slots without a command queue engine).
    Software(KBox<software_queue::SoftwareQueue>),
    /// The CQHCI command queue engine (`supports-cqe`).
    Hardware(KBox<HardwareQueue>),
}

/// What the probe chose for the slot.
pub(crate) enum QueueChoice {
    /// One request at a time.
    OneAtATime,
    /// The host software queue.
    Software,
    /// The CQHCI engine with its configuration, descriptor memory and idle timer.
    Hardware {
        /// The engine's fixed properties.
        config: cqhci::Config,
        /// Task descriptor list and transfer descriptors, as `config`'s layout needs.
        memory: DescriptorMemory,
        /// `CQSSC1` from the `hclk` rate and `CQCAP`.
        idle_timer: cqhci::regs::CQSSC1,
    },
    /// One of the kernel's C engines in the Rust engine's place (test kernels,
    /// `mtk_sd_rust_sim.engine=c`): the slot serves it one request at a time.
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    C {
        /// The engine, installed when the host is registered.
        engine: kernel_mmc::CEngine,
        /// `CQSSC1` for the C `cqhci`'s hooks (unused by `mmc_hsq`).
        idle_timer: cqhci::regs::CQSSC1,
    },
}

/// Everything the request lock protects. The engines own the slot's state (the request in
/// flight included); the glue adds the requests they refer to by tag, the memory and the
/// timer they do not know of.
struct State {
    controller: Controller<InFlight>,
    descriptors: DescriptorMemory,
    queue: Queue,
    watchdog: Option<ArcHrTimerHandle<Msdc>>,
    /// Whether the watchdog timer may be started: not while it runs or its work is queued,
    /// never again once [`Msdc::shutdown`] stopped it.
    watchdog_arming: slot::watchdog::Arming,
    /// The slot is going away ([`Msdc::shutdown`]): the busy retry work is never queued
    /// again, and one that runs stops.
    busy_retry_stopped: bool,
    /// What tells the controller of the SDIO card's interrupt while the core has it
    /// enabled; made and released outside the lock.
    sdio_source: slot::sdio_irq::SdioIrqSource<SdioSource>,
    /// The host has left the MMC core ([`Msdc::quiesce`]): no interrupt may ask it for a
    /// rescan or signal an SDIO card any more.
    removed: bool,
}

/// What keeps a runtime-suspended controller told of the SDIO card's interrupt.
enum SdioSource {
    /// The SDIO wake-up interrupt, on a slot that has one and a card that signals
    /// asynchronously: the controller may runtime-suspend, and the card's interrupt on
    /// DAT1 resumes it.
    Wake {
        /// Held for its drop, which frees the interrupt.
        _irq: kernel_mmc::pm::DedicatedWakeIrq,
    },
    /// A usage hold: the controller stays running.
    Hold {
        /// Held for its drop, which lets the controller suspend.
        _hold: kernel_mmc::pm::UsageHold,
    },
}

/// One MSDC controller and its slot.
#[pin_data]
pub(crate) struct Msdc {
    dev: ARef<Device>,
    host: ARef<Host>,
    /// See [`SlotParts::sdio_wake_irq`].
    sdio_wake_irq: Option<u32>,
    regs: RegisterWindow,
    pins: Pins,
    pub(crate) counters: Counters,
    /// The kernel's C engine, on a slot that runs one instead of the Rust engines.
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    c_engine: Option<CEngineSlot>,
    /// Iterations of insncount's calibration loop per request (simulated board only).
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    pub(crate) cost_loop: u32,
    #[pin]
    state: SpinLockIrq<State>,
    /// Woken when a queue may have become idle, or recovery started.
    #[pin]
    idle: CondVar,
    #[pin]
    timer: HrTimer<Msdc>,
    #[pin]
    watchdog_work: Work<Msdc, WATCHDOG_WORK>,
    /// Issues a software queue's dispatch that found the bus busy, once it is free.
    #[pin]
    busy_retry_work: Work<Msdc, BUSY_RETRY_WORK>,
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for Msdc {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
}

impl_has_work! {
    impl HasWork<Self, WATCHDOG_WORK> for Msdc { self.watchdog_work }
    impl HasWork<Self, BUSY_RETRY_WORK> for Msdc { self.busy_retry_work }
}

/// What a slot is made of, gathered by the probe.
pub(crate) struct SlotParts {
    /// The controller's device.
    pub(crate) dev: ARef<Device>,
    /// The MMC host the slot serves.
    pub(crate) host: ARef<Host>,
    /// The controller's registers.
    pub(crate) regs: RegisterWindow,
    /// The pad states.
    pub(crate) pins: Pins,
    /// Memory for the DMA descriptors.
    pub(crate) descriptors: DescriptorMemory,
    /// How cards are detected; the engine keeps it from here on.
    pub(crate) card_detect: CardDetect,
    /// The SDIO wake-up interrupt ("sdio_wakeup", with the "state_eint" pins), on slots
    /// whose device tree gives one for a card kept powered that wakes the system.
    pub(crate) sdio_wake_irq: Option<u32>,
}

impl Msdc {
    /// Sets the controller up (reset, interrupts off, clock gated) and returns the slot.
    pub(crate) fn new(
        parts: SlotParts,
        setup: HostSetup,
        choice: QueueChoice,
    ) -> Result<Arc<Self>> {
        let SlotParts {
            dev,
            host,
            regs,
            pins,
            descriptors,
            card_detect,
            sdio_wake_irq,
        } = parts;
        let mut controller = Controller::new(setup);
        // A new controller has no request in flight to hand back.
        let _idle = controller.init_hardware(&regs).map_err(|e| {
            dev_err!(dev, "controller initialisation failed: {:?}\n", e);
            EIO
        })?;
        controller.set_card_detect(&regs, card_detect);
        // A slot that may hold an SDIO card listens for its interrupt on DAT1.
        controller.set_sdio_mode(&regs, host.caps2() & kernel_mmc::caps::NO_SDIO == 0);
        #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
        let mut c_engine = None;
        let queue = match choice {
            QueueChoice::OneAtATime => Queue::OneAtATime,
            QueueChoice::Software => Queue::Software(KBox::init(
                software_queue::new_software_queue(),
                GFP_KERNEL,
            )?),
            QueueChoice::Hardware {
                config,
                memory,
                idle_timer,
            } => {
                let queue = hardware_queue::new_hardware_queue(config, memory, idle_timer)
                    .map_err(|e| {
                        dev_err!(dev, "CQHCI configuration refused: {:?}\n", e);
                        EINVAL
                    })?;
                Queue::Hardware(KBox::init(queue, GFP_KERNEL)?)
            }
            // The C engine queues; the slot runs what it dispatches one at a time.
            #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
            QueueChoice::C { engine, idle_timer } => {
                c_engine = Some(CEngineSlot::new(engine, idle_timer, host.clone()));
                Queue::OneAtATime
            }
        };
        let engine = match &queue {
            Queue::OneAtATime => counters::Engine::None,
            _ => counters::Engine::Rust,
        };
        #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
        let engine = if c_engine.is_some() {
            counters::Engine::C
        } else {
            engine
        };
        let msdc = Arc::pin_init(
            try_pin_init!(Self {
                dev,
                host,
                sdio_wake_irq,
                regs,
                pins,
                counters: Counters::default(),
                #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
                c_engine,
                #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
                cost_loop: kernel_mmc::simboard::cost_loop_iterations(),
                state <- new_spinlock_irq!(State {
                    controller,
                    descriptors,
                    queue,
                    watchdog: None,
                    watchdog_arming: slot::watchdog::Arming::new(),
                    busy_retry_stopped: false,
                    sdio_source: slot::sdio_irq::SdioIrqSource::new(),
                    removed: false,
                }),
                idle <- new_condvar!("Msdc::idle"),
                timer <- HrTimer::new(),
                watchdog_work <- new_work!("Msdc::watchdog_work"),
                busy_retry_work <- new_work!("Msdc::busy_retry_work"),
            }? Error),
            GFP_KERNEL,
        )?;
        msdc.counters.set_engine(engine);
        Ok(msdc)
    }

    /// Registers the SDIO wake-up interrupt `irq`; `None` (logged) if the PM core refuses
    /// it. The pads go through "state_eint" around it, as upstream does, since the wake-up
    /// interrupt's set-up can leave DAT1 in GPIO mode.
    fn arm_sdio_wake(&self, irq: u32) -> Option<kernel_mmc::pm::DedicatedWakeIrq> {
        if let Err(e) = self.pins.select(PinState::Eint) {
            dev_warn!(
                self.dev,
                "cannot select the state_eint pin state: {:?}\n",
                e
            );
        }
        let wake = kernel_mmc::pm::DedicatedWakeIrq::set(&self.dev, irq)
            .inspect_err(|e| {
                dev_err!(
                    self.dev,
                    "SDIO wake-up interrupt {} refused ({:?}): the controller stays on while \
                     the card's interrupt is enabled\n",
                    irq,
                    e
                )
            })
            .ok();
        let pads = match self.state.lock().controller.signal_voltage() {
            SignalVoltage::V180 => PinState::Uhs,
            _ => PinState::Default,
        };
        if let Err(e) = self.pins.select(pads) {
            dev_warn!(
                self.dev,
                "cannot select the {:?} pin state: {:?}\n",
                pads,
                e
            );
        }
        wake
    }

    /// Whether the SDIO wake-up interrupt is armed (the card's interrupt enabled on a slot
    /// that can wake on it).
    fn sdio_wake_armed(&self) -> bool {
        matches!(
            self.state.lock().sdio_source.source(),
            Some(SdioSource::Wake { .. })
        )
    }

    /// The controller's device.
    pub(crate) fn device(&self) -> &Device {
        &self.dev
    }

    // ---- Requests on the bus ----------------------------------------------------------

    /// The error a request that could not start completes with.
    fn start_failed(&self, opcode: u32, error: StartError) -> Error {
        match error {
            // The card held DAT0 low past the wait: upstream's answer too, and its log
            // ("Controller busy detected"); the core's recovery resets the card.
            StartError::BusBusy => {
                dev_err!(
                    self.dev,
                    "CMD{}: the card is still busy (DAT0 low) after {} us\n",
                    opcode,
                    BUSY_WAIT_US
                );
                ETIMEDOUT
            }
            // Suspended: the core always resumes the device before it sends a request.
            StartError::Busy | StartError::Suspended => EBUSY,
            StartError::Hardware(e) => {
                dev_err!(self.dev, "CMD{}: controller fault {:?}\n", opcode, e);
                EIO
            }
            e => {
                dev_err!(self.dev, "CMD{} refused: {:?}\n", opcode, e);
                EINVAL
            }
        }
    }

    /// On SoCs that can lose the SDIO interrupt, signals one that DAT1 still shows without
    /// a latched event.
    fn recheck_sdio_irq(self: &Arc<Self>) {
        slot::recheck_sdio_irq(self);
    }

    // ---- The interrupt -----------------------------------------------------------------

    /// The interrupt handler's work: consume events, complete what is done, issue what is
    /// next (`slot::interrupt`). The C `cqhci`'s CMDQ interrupt is taken out under the lock
    /// as the Rust engine's is, for `cqhci_irq` once the lock is released.
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    pub(crate) fn handle_interrupt(self: &Arc<Self>) -> slot::InterruptKind {
        slot::interrupt(
            self,
            |slot| {
                if self.runs_c_cqhci() {
                    slot.controller.command_queue_event(&self.regs)
                } else {
                    None
                }
            },
            |event| self.c_cqhci_irq(event),
        )
    }

    /// The interrupt handler's work: consume events, complete what is done, issue what is
    /// next (`slot::interrupt`).
    #[cfg(not(CONFIG_MMC_MTK_RUST_C_ENGINES))]
    pub(crate) fn handle_interrupt(self: &Arc<Self>) -> slot::InterruptKind {
        slot::interrupt(self, |_| None::<Infallible>, |never| match never {})
    }

    /// The register reads the controller's polls made so far, wrapping: the interrupt
    /// handler's figures tell a wait for the hardware from a slow guest with it.
    pub(crate) fn poll_reads(&self) -> u32 {
        self.regs.poll_reads()
    }

    /// Logs and counts a bounded hardware wait that ran out.
    fn log_hardware_fault(&self, fault: HwError) {
        self.counters.hardware_fault();
        if matches!(
            fault,
            HwError::ResetTimeout
                | HwError::FifoClearTimeout
                | HwError::ClockTimeout
                | HwError::DmaStopTimeout
        ) {
            self.host.count_error(ErrorStat::ControllerTimeout);
        }
        dev_err!(self.dev, "controller fault: {:?}\n", fault);
    }

    /// Silences the controller once its host has left the MMC core (driver removal): every
    /// interrupt source off ([`Controller::quiesce`]), the SDIO wake-up and usage hold
    /// released, and no rescan or SDIO signal from an interrupt already running (the
    /// handler checks `removed` under the lock). The watchdog stops with
    /// [`Msdc::shutdown`], after the interrupt is freed.
    pub(crate) fn quiesce(&self) {
        let source = {
            let mut state = self.state.lock();
            state.removed = true;
            state.controller.quiesce(&self.regs);
            state.sdio_source.remove()
        };
        // Outside the lock: freeing the wake-up interrupt sleeps.
        drop(source);
    }

    // ---- The request watchdog ------------------------------------------------------------

    /// Makes sure the watchdog looks at the request in flight within `delay`. The timer is
    /// armed once and re-armed by its own work item while requests keep running, so the
    /// request path never cancels it.
    fn arm_watchdog(self: &Arc<Self>, delay: Delta) {
        let expired = {
            let mut state = self.state.lock();
            if !state.watchdog_arming.arm() {
                return;
            }
            state.watchdog.take()
        };
        // The previous timer has fired (its work ran `Arming::fired`), so dropping its
        // handle waits at most for the callback's return, which takes no lock.
        drop(expired);
        let handle = self.clone().start(delay);
        let replaced = self.state.lock().watchdog.replace(handle);
        drop(replaced);
    }

    /// The watchdog's work, in process context: abort the request in flight if it ran too
    /// long, otherwise look again when it would (`slot::watchdog`).
    fn watchdog_check(self: &Arc<Self>) {
        // The timer has fired: from here on a new request arms it again.
        self.state.lock().watchdog_arming.fired();
        if let Some(ns) = slot::watchdog::check(self) {
            self.arm_watchdog(Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX)));
        }
    }

    /// Stops the watchdog and the busy retry for good (the slot is going away): neither
    /// the timer nor a work item runs after this returns, so none can outlive the module.
    pub(crate) fn shutdown(&self) {
        let watchdog = {
            let mut state = self.state.lock();
            state.watchdog_arming.stop();
            state.busy_retry_stopped = true;
            state.watchdog.take()
        };
        // Cancels the timer, waiting for a callback that is running.
        drop(watchdog);
        // A timer that had already fired queued the work: let it finish. It cannot arm the
        // timer again.
        kernel_mmc::flush_work::<Msdc, WATCHDOG_WORK>(self);
        // The busy retry was queued, if at all, before the flag was set (it is queued under
        // the lock): the flush waits for it, and it stops at its next look.
        kernel_mmc::flush_work::<Msdc, BUSY_RETRY_WORK>(self);
    }

    // ---- The busy retry of a software queue ------------------------------------------------

    /// Queues the busy retry work, unless the slot is going away. Under the lock, so that
    /// [`Msdc::shutdown`]'s flush comes after any queueing.
    fn schedule_busy_retry(self: &Arc<Self>) {
        let state = self.state.lock();
        if state.busy_retry_stopped {
            return;
        }
        // Already queued: that run looks at the bus for this dispatch too. The pointer
        // handed back then is a clone, never the last reference.
        let _ = kernel_mmc::default_workqueue().enqueue::<Arc<Msdc>, BUSY_RETRY_WORK>(self.clone());
        drop(state);
    }

    /// The busy retry work, in process context: looks at the bus for the dispatch or the
    /// stop command that found it busy, or at the DMA stop the interrupt left running, and
    /// sleeps between looks with the lock released, until it is issued (or the stop has
    /// taken effect), or fails past its limit (`slot::software_queue::retry_busy`).
    fn busy_retry(self: &Arc<Self>) {
        let started = Instant::<Monotonic>::now();
        let mut progress = slot::software_queue::BusyRetry::new();
        loop {
            if self.state.lock().busy_retry_stopped {
                return;
            }
            let waited_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            match slot::software_queue::retry_busy(self, &mut progress, waited_ns) {
                slot::software_queue::BusWait::Sleep { us } => {
                    fsleep(Delta::from_micros(i64::from(us)))
                }
                slot::software_queue::BusWait::Done => return,
            }
        }
    }
}

impl WorkItem<WATCHDOG_WORK> for Msdc {
    type Pointer = Arc<Msdc>;

    fn run(this: Arc<Self>) {
        this.watchdog_check();
    }
}

impl WorkItem<BUSY_RETRY_WORK> for Msdc {
    type Pointer = Arc<Msdc>;

    fn run(this: Arc<Self>) {
        this.busy_retry();
    }
}

impl HrTimerCallback for Msdc {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        // The abort polls the controller: process context.
        let _ = kernel_mmc::default_workqueue().enqueue::<Arc<Msdc>, WATCHDOG_WORK>(this.into());
        HrTimerRestart::NoRestart
    }
}

/// The MMC core's view of the slot.
pub(crate) struct MsdcSlot {
    pub(crate) msdc: Arc<Msdc>,
}

#[vtable]
impl HostOps for MsdcSlot {
    fn request(&self, _host: &Host, request: Request) {
        #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
        kernel_mmc::simboard::cost_loop(self.msdc.cost_loop);
        slot::start_request(&self.msdc, request);
    }

    fn removed(&self, _host: &Host) {
        self.msdc.quiesce();
    }

    fn pre_req(&self, _host: &Host, data: &mut PreparedData<'_>) {
        // A failed mapping is retried when the request is issued.
        let _ = data.map_ahead();
    }

    fn set_ios(&self, host: &Host, ios: &Ios) {
        let msdc = &self.msdc;
        match ios.power_mode {
            PowerMode::Off => {
                if let Err(e) = host.set_vmmc(None) {
                    dev_err!(msdc.dev, "cannot turn the card supply off: {:?}\n", e);
                }
                host.disable_vqmmc();
            }
            PowerMode::Up => {
                // The card's supply comes up: the controller may have lost power with it
                // (`msdc_init_hw` on power-up, as upstream, where a vmmc exists).
                if host.has_vmmc() {
                    let initialised = msdc.state.lock().controller.init_hardware(&msdc.regs);
                    match initialised {
                        Ok(None) => {}
                        // The core powers the card up between requests: one still on the
                        // bus is a broken invariant. It completes through its engine,
                        // outside the lock.
                        Ok(Some((in_flight, result))) => {
                            dev_warn!(msdc.dev, "power-up under a request: request failed\n");
                            slot::finish(msdc, in_flight, &result);
                        }
                        Err(e) => {
                            dev_err!(msdc.dev, "controller initialisation failed: {:?}\n", e)
                        }
                    }
                }
                if let Err(e) = host.set_vmmc(Some(ios.vdd)) {
                    dev_err!(msdc.dev, "cannot turn the card supply on: {:?}\n", e);
                }
            }
            PowerMode::On => {
                if let Err(e) = host.enable_vqmmc() {
                    dev_err!(msdc.dev, "cannot turn the I/O supply on: {:?}\n", e);
                }
            }
            PowerMode::Undefined => {}
        }
        // SDR timings clock like legacy; an unknown one is clocked as legacy too.
        let timing = Timing::from_mmc(u32::from(ios.timing)).unwrap_or(Timing::Legacy);
        let mut state = msdc.state.lock();
        let state = &mut *state;
        state.controller.set_bus_width(&msdc.regs, ios.bus_width);
        let before = state.controller.bus_clock_hz();
        match state.controller.set_clock(&msdc.regs, ios.clock_hz, timing) {
            Ok(actual) if actual != before => dev_dbg!(
                msdc.dev,
                "bus clock {} Hz (asked {})\n",
                actual,
                ios.clock_hz
            ),
            Ok(_) => {}
            Err(e) => dev_err!(msdc.dev, "bus clock {} Hz not set: {:?}\n", ios.clock_hz, e),
        }
    }

    fn get_cd(&self, host: &Host) -> bool {
        let (mode, pin) = {
            let state = self.msdc.state.lock();
            let mode = state.controller.card_detect();
            (
                mode,
                matches!(mode, CardDetect::Internal { .. })
                    && state.controller.card_present(&self.msdc.regs),
            )
        };
        match mode {
            CardDetect::Fixed | CardDetect::Polled => true,
            // Reading the GPIO may sleep: outside the lock.
            CardDetect::Gpio => host.gpio_card_detect().unwrap_or(true),
            CardDetect::Internal { .. } => pin,
        }
    }

    fn get_ro(&self, host: &Host) -> bool {
        host.gpio_write_protect().unwrap_or(false)
    }

    fn card_busy(&self, _host: &Host) -> bool {
        let state = self.msdc.state.lock();
        state.controller.card_busy(&self.msdc.regs)
    }

    fn card_hw_reset(&self, _host: &Host) {
        self.msdc
            .state
            .lock()
            .controller
            .pulse_card_reset(&self.msdc.regs, |us| {
                udelay(Delta::from_micros(i64::from(us)))
            });
        // JESD84-B51 tRSCA: 200 µs from RST_n high to the first command.
        fsleep(Delta::from_micros(CARD_RESET_RECOVERY_US));
    }

    fn start_signal_voltage_switch(&self, host: &Host, ios: &Ios) -> Result {
        let msdc = &self.msdc;
        let voltage = SignalVoltage::from_mmc(u32::from(ios.signal_voltage)).ok_or(EINVAL)?;
        let pads = {
            let mut state = msdc.state.lock();
            state
                .controller
                .start_voltage_switch(voltage)
                .map_err(|_| EINVAL)?
        };
        if !host.switch_vqmmc_to_ios()? {
            // Without a vqmmc supply the lines run at whatever fixed voltage the board
            // gives them, which the device tree's speed modes describe: accepted, as
            // upstream does.
            dev_dbg!(
                msdc.dev,
                "no vqmmc supply: signal voltage {} taken as the board's\n",
                ios.signal_voltage
            );
        }
        let pins = match pads {
            PadState::Default => PinState::Default,
            PadState::Uhs => PinState::Uhs,
        };
        msdc.pins.select(pins).inspect_err(|e| {
            dev_err!(
                msdc.dev,
                "cannot select the {:?} pin state: {:?}\n",
                pins,
                e
            )
        })
    }

    fn enable_sdio_irq(&self, host: &Host, enable: bool) {
        let msdc = &self.msdc;
        // One decision under the lock (`slot::sdio_irq`); making or releasing a source
        // sleeps, so it runs outside.
        let step = {
            let mut state = msdc.state.lock();
            state.controller.enable_sdio_irq(&msdc.regs, enable);
            state.sdio_source.set_enabled(enable)
        };
        if enable {
            msdc.recheck_sdio_irq();
        }
        let ticket = match step {
            slot::sdio_irq::Step::Arm(ticket) => ticket,
            slot::sdio_irq::Step::Release(source) => {
                // The autosuspend delay of a released hold starts from here.
                drop(source);
                return;
            }
            slot::sdio_irq::Step::Nothing => return,
        };
        // A card that signals asynchronously can wake the controller through the DAT1
        // pad; otherwise the controller stays running while the interrupt is enabled.
        let source = match msdc.sdio_wake_irq {
            Some(irq) if host.card_async_irq() => msdc
                .arm_sdio_wake(irq)
                .map(|irq| SdioSource::Wake { _irq: irq }),
            _ => None,
        };
        let source = source.unwrap_or_else(|| SdioSource::Hold {
            _hold: kernel_mmc::pm::UsageHold::take(&msdc.dev),
        });
        match source {
            SdioSource::Wake { .. } => dev_dbg!(
                msdc.dev,
                "SDIO interrupt enabled: the wake-up interrupt armed\n"
            ),
            SdioSource::Hold { .. } => dev_dbg!(
                msdc.dev,
                "SDIO interrupt enabled: the controller stays on\n"
            ),
        }
        // A disable or a removal since the decision supersedes it: the source comes back
        // and is released outside the lock.
        let surplus = msdc.state.lock().sdio_source.armed(ticket, source);
        drop(surplus);
    }

    fn ack_sdio_irq(&self, _host: &Host) {
        // The interrupt handler masked the SDIO interrupt when it signalled it.
        self.msdc
            .state
            .lock()
            .controller
            .ack_sdio_irq(&self.msdc.regs);
    }

    fn execute_tuning(&self, host: &Host, bus: &TuningBus<'_>, opcode: u32) -> Result {
        self.msdc.execute_tuning(host, bus, opcode)
    }

    fn prepare_hs400_tuning(&self, _host: &Host, _ios: &Ios) -> Result {
        self.msdc.prepare_hs400_tuning()
    }

    fn execute_hs400_tuning(&self, _host: &Host, card: &TuningCard<'_>) -> Result {
        self.msdc.execute_hs400_tuning(card)
    }

    fn hs400_enhanced_strobe(&self, _host: &Host, ios: &Ios) {
        self.msdc.set_enhanced_strobe(ios.enhanced_strobe);
    }
}

/// The descriptor area every slot allocates: one GPD and a BD per possible segment.
pub(crate) const DESCRIPTOR_AREA_LEN: usize = dma::area_len(dma::MAX_SEGMENTS);
