// SPDX-License-Identifier: GPL-2.0

//! One MSDC slot serving the MMC core: requests in, interrupts, the request watchdog.
//!
//! The request engine (`msdc::controller`) decides every register access; this module
//! owns the locking, the DMA mapping, the interrupt line and the clock of time.

use kernel::{
    device::Device,
    impl_has_hr_timer,
    prelude::*,
    sync::{aref::ARef, new_spinlock_irq, Arc, ArcBorrow, SpinLockIrq},
    time::{
        delay::{fsleep, udelay},
        hrtimer::{
            ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
            HrTimerRestart, RelativeMode,
        },
        Delta, Instant, Monotonic,
    },
};

use crate::{
    backend::RegisterWindow,
    kernel_mmc::{
        signal_voltage, DescriptorMemory, Host, HostOps, Ios, PinState, Pins, PowerMode, Request,
    },
    mmc_request::RequestResult,
    msdc::{
        clock::Timing,
        controller::{
            CardDetect, Controller, DmaChain, HostSetup, PadState, Progress, SignalVoltage,
            StartError, WrittenChain,
        },
        dma,
    },
};

/// How long a request may take before the driver gives up on the hardware.
pub(crate) const REQUEST_TIMEOUT_MS: i64 = 5_000;
/// Debounce between a card-detect interrupt and the core's rescan.
const CARD_DETECT_DELAY_MS: u32 = 20;
/// Wait after an eMMC hardware reset before the card takes commands (tRSCA is 200 µs).
const CARD_RESET_RECOVERY_US: i64 = 500;

/// The engine's token for the request it is working on: the request itself and what the
/// watchdog and the error messages need.
struct InFlight {
    request: Request,
    opcode: u32,
    started: Instant<Monotonic>,
}

/// Everything the request lock protects. The engine owns the slot's state, the request in
/// flight included; the glue adds the memory and the timer it does not know of.
struct State {
    controller: Controller<InFlight>,
    descriptors: DescriptorMemory,
    watchdog: Option<ArcHrTimerHandle<Msdc>>,
}

/// One MSDC controller and its slot.
#[pin_data]
pub(crate) struct Msdc {
    dev: ARef<Device>,
    host: ARef<Host>,
    regs: RegisterWindow,
    pins: Pins,
    #[pin]
    state: SpinLockIrq<State>,
    #[pin]
    timer: HrTimer<Msdc>,
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for Msdc {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
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
}

impl Msdc {
    /// Sets the controller up (reset, interrupts off, clock gated) and returns the slot.
    pub(crate) fn new(parts: SlotParts, setup: HostSetup) -> Result<Arc<Self>> {
        let SlotParts {
            dev,
            host,
            regs,
            pins,
            descriptors,
            card_detect,
        } = parts;
        let mut controller = Controller::new(setup);
        controller.init_hardware(&regs).map_err(|e| {
            dev_err!(dev, "controller initialisation failed: {:?}\n", e);
            EIO
        })?;
        controller.set_card_detect(&regs, card_detect);
        Arc::pin_init(
            try_pin_init!(Self {
                dev,
                host,
                regs,
                pins,
                state <- new_spinlock_irq!(State {
                    controller,
                    descriptors,
                    watchdog: None,
                }),
                timer <- HrTimer::new(),
            }? Error),
            GFP_KERNEL,
        )
    }

    /// Completes the request the engine handed back with `result`, logging failures the
    /// core will not explain.
    fn finish(&self, in_flight: InFlight, result: &RequestResult) {
        if let Some(data) = &result.data {
            if let Some(kind) = data.error {
                dev_dbg!(
                    self.dev,
                    "CMD{} data phase failed: {:?}\n",
                    in_flight.opcode,
                    kind
                );
            }
        }
        in_flight.request.complete(result);
    }

    /// The interrupt handler's work: consume events, finish the request if it is done.
    pub(crate) fn handle_interrupt(&self) -> bool {
        let (sdio, card_changed, done, watchdog) = {
            let mut state = self.state.lock();
            let state = &mut *state;
            // The engine's order: each call acknowledges only what it consumes, and
            // consumes only what it has enabled.
            let sdio = state.controller.sdio_irq_event(&self.regs);
            let card_changed = state.controller.card_detect_event(&self.regs);
            match state.controller.handle_interrupt(&self.regs) {
                Progress::Pending => (sdio, card_changed, None, None),
                Progress::Done(in_flight, result) => (
                    sdio,
                    card_changed,
                    Some((in_flight, result)),
                    state.watchdog.take(),
                ),
            }
        };
        // Cancelling the watchdog waits for a running callback, which takes the lock:
        // only ever with the lock released.
        drop(watchdog);
        let handled = done.is_some() || card_changed || sdio;
        if let Some((in_flight, result)) = done {
            self.finish(in_flight, &result);
        }
        if card_changed {
            self.host.detect_change(CARD_DETECT_DELAY_MS);
        }
        if sdio {
            self.host.signal_sdio_irq();
        }
        handled
    }

    /// The watchdog fired: abort the request if it is still the one that ran too long.
    fn watchdog_expired(&self) {
        let timed_out = {
            let mut state = self.state.lock();
            let expired = state.controller.in_flight().is_some_and(|in_flight| {
                in_flight.started.elapsed() >= Delta::from_millis(REQUEST_TIMEOUT_MS)
            });
            if expired {
                state.controller.abort(&self.regs)
            } else {
                None
            }
        };
        if let Some((in_flight, result)) = timed_out {
            dev_err!(
                self.dev,
                "CMD{} did not complete in {} ms; controller reset\n",
                in_flight.opcode,
                REQUEST_TIMEOUT_MS
            );
            self.finish(in_flight, &result);
        }
    }

    /// Stops the watchdog for good (the slot is going away).
    pub(crate) fn shutdown(&self) {
        let watchdog = self.state.lock().watchdog.take();
        drop(watchdog);
    }

    /// The error a request that could not start completes with.
    fn start_failed(&self, opcode: u32, error: StartError) -> Error {
        match error {
            // The card held DAT0 low past the wait: upstream's answer too.
            StartError::BusBusy => ETIMEDOUT,
            StartError::Busy => EBUSY,
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

    /// Maps `request`'s data and writes its descriptor chain; `None` for a request without
    /// data. The mapping's borrow of the request ends here, before the request moves into
    /// the engine.
    fn write_chain(
        &self,
        state: &mut State,
        spec: &crate::mmc_request::Request,
        request: &mut Request,
    ) -> Result<Option<WrittenChain>> {
        if spec.data.is_none() {
            return Ok(None);
        }
        let segments = request.map_data()?;
        let area_bus = state.descriptors.bus_address();
        let chain = DmaChain {
            area: state.descriptors.cpu_view(),
            area_bus,
            segments,
        };
        state
            .controller
            .write_chain(spec, chain)
            .map(Some)
            .map_err(|e| self.start_failed(spec.cmd.opcode, e))
    }

    fn start_request(self: &Arc<Self>, mut request: Request) {
        let Some(spec) = request.spec() else {
            request.fail(EINVAL);
            return;
        };
        let opcode = spec.cmd.opcode;
        // Start the request and hand it to the engine in one critical section: its
        // completion interrupt may arrive as soon as the command is written.
        let started = {
            let mut state = self.state.lock();
            let state = &mut *state;
            if !state.controller.is_idle() {
                Err((request, EBUSY))
            } else {
                match self.write_chain(state, &spec, &mut request) {
                    Ok(chain) => {
                        let in_flight = InFlight {
                            request,
                            opcode,
                            started: Instant::now(),
                        };
                        match state.controller.start(&self.regs, &spec, chain, in_flight) {
                            // The previous request's handle, if the watchdog itself
                            // finished it.
                            Ok(()) => Ok(state.watchdog.take()),
                            Err((in_flight, e)) => {
                                Err((in_flight.request, self.start_failed(opcode, e)))
                            }
                        }
                    }
                    Err(e) => Err((request, e)),
                }
            }
        };
        match started {
            Ok(previous) => {
                drop(previous);
                let handle = self.clone().start(Delta::from_millis(REQUEST_TIMEOUT_MS));
                let unneeded = {
                    let mut state = self.state.lock();
                    if !state.controller.is_idle() && state.watchdog.is_none() {
                        state.watchdog.replace(handle)
                    } else {
                        // Completed already: the timer is not needed.
                        Some(handle)
                    }
                };
                drop(unneeded);
            }
            Err((request, e)) => request.fail(e),
        }
    }
}

impl HrTimerCallback for Msdc {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        this.watchdog_expired();
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
        self.msdc.start_request(request);
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
                mode == CardDetect::Internal && state.controller.card_present(&self.msdc.regs),
            )
        };
        match mode {
            CardDetect::Fixed | CardDetect::Polled => true,
            // Reading the GPIO may sleep: outside the lock.
            CardDetect::Gpio => host.gpio_card_detect().unwrap_or(true),
            CardDetect::Internal => pin,
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
        if !host.switch_vqmmc_to_ios()? && ios.signal_voltage != signal_voltage::V330 {
            // Without a vqmmc supply the lines stay at the board's 3.3 V.
            return Err(EINVAL);
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

    fn enable_sdio_irq(&self, _host: &Host, enable: bool) {
        self.msdc
            .state
            .lock()
            .controller
            .enable_sdio_irq(&self.msdc.regs, enable);
    }

    fn ack_sdio_irq(&self, _host: &Host) {
        // The interrupt handler masked the SDIO interrupt when it signalled it.
        self.msdc
            .state
            .lock()
            .controller
            .ack_sdio_irq(&self.msdc.regs);
    }
}

/// The descriptor area every slot allocates: one GPD and a BD per possible segment.
pub(crate) const DESCRIPTOR_AREA_LEN: usize = dma::area_len(dma::MAX_SEGMENTS);
