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
        signal_voltage, timing, CommandInfo, CommandOutcome, DataOutcome, DescriptorMemory, Host,
        HostOps, Ios, PinState, Pins, PowerMode, Request, RequestOutcome,
    },
    msdc::{
        clock::Timing,
        controller::{
            CommandResult, CommandSpec, Controller, DataResult, DataSpec, DmaChain, HostConfig,
            NoDmaChain, PadState, PatchDetails, Progress, RequestResult, RequestSpec,
            SignalVoltage, StartError,
        },
        dma::{self, Segment},
        errors::ErrorKind,
    },
};

/// How long a request may take before the driver gives up on the hardware.
pub(crate) const REQUEST_TIMEOUT_MS: i64 = 5_000;
/// Debounce between a card-detect interrupt and the core's rescan.
const CARD_DETECT_DELAY_MS: u32 = 20;
/// Wait after an eMMC hardware reset before the card takes commands (tRSCA is 200 µs).
const CARD_RESET_RECOVERY_US: i64 = 500;

/// How the slot detects cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CardDetect {
    /// The card cannot be removed (`non-removable`).
    Fixed,
    /// A `cd-gpios` line, handled by the MMC core.
    Gpio,
    /// The controller's own card-detect pin (`MSDC_PS`).
    Internal,
    /// Nothing tells: the core polls.
    Polled,
}

/// The request the hardware is working on.
struct InFlight {
    request: Request,
    opcode: u32,
    started: Instant<Monotonic>,
}

/// Everything the request lock protects.
struct State {
    controller: Controller,
    descriptors: DescriptorMemory,
    in_flight: Option<InFlight>,
    watchdog: Option<ArcHrTimerHandle<Msdc>>,
    /// The bus clock the core asked for last, 0 when gated.
    requested_clock_hz: u32,
    /// The timing the clock was last set for.
    timing: Timing,
    /// SDIO card interrupt enabled by the core.
    sdio_irq_enabled: bool,
}

/// One MSDC controller and its slot.
#[pin_data]
pub(crate) struct Msdc {
    dev: ARef<Device>,
    host: ARef<Host>,
    regs: RegisterWindow,
    pins: Pins,
    card_detect: CardDetect,
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

fn timing_from_ios(value: u8) -> Timing {
    match value {
        timing::MMC_HS => Timing::MmcHighSpeed,
        timing::SD_HS => Timing::SdHighSpeed,
        timing::UHS_DDR50 => Timing::UhsDdr50,
        timing::MMC_DDR52 => Timing::MmcDdr52,
        timing::MMC_HS200 => Timing::MmcHs200,
        timing::MMC_HS400 => Timing::MmcHs400,
        _ => Timing::Legacy,
    }
}

fn command_spec(info: CommandInfo) -> CommandSpec {
    CommandSpec {
        opcode: info.opcode,
        arg: info.arg,
        flags: info.flags,
    }
}

fn errno(kind: ErrorKind) -> Error {
    match kind {
        ErrorKind::TimedOut => ETIMEDOUT,
        ErrorKind::BadCrc => EILSEQ,
        ErrorKind::DmaFault => EIO,
    }
}

fn command_outcome(result: &CommandResult) -> CommandOutcome {
    CommandOutcome {
        response: result.response,
        error: result.error.map(errno),
    }
}

fn data_outcome(result: &DataResult) -> DataOutcome {
    DataOutcome {
        bytes_xfered: result.bytes_xfered,
        error: result.error.map(errno),
    }
}

fn request_outcome(result: &RequestResult) -> RequestOutcome {
    RequestOutcome {
        sbc: result.sbc.as_ref().map(command_outcome),
        cmd: command_outcome(&result.cmd),
        data: result.data.as_ref().map(data_outcome),
        stop: result.stop.as_ref().map(command_outcome),
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
    /// How cards are detected.
    pub(crate) card_detect: CardDetect,
}

impl Msdc {
    /// Sets the controller up (reset, interrupts off, clock gated) and returns the slot.
    pub(crate) fn new(
        parts: SlotParts,
        config: HostConfig,
        patch: PatchDetails,
    ) -> Result<Arc<Self>> {
        let SlotParts {
            dev,
            host,
            regs,
            pins,
            descriptors,
            card_detect,
        } = parts;
        let mut controller = Controller::new(config).with_patch_details(patch);
        controller.init_hardware(&regs).map_err(|e| {
            dev_err!(dev, "controller initialisation failed: {:?}\n", e);
            EIO
        })?;
        if card_detect == CardDetect::Internal {
            controller.set_internal_card_detect(&regs, true);
        }
        Arc::pin_init(
            try_pin_init!(Self {
                dev,
                host,
                regs,
                pins,
                card_detect,
                state <- new_spinlock_irq!(State {
                    controller,
                    descriptors,
                    in_flight: None,
                    watchdog: None,
                    requested_clock_hz: 0,
                    timing: Timing::Legacy,
                    sdio_irq_enabled: false,
                }),
                timer <- HrTimer::new(),
            }? Error),
            GFP_KERNEL,
        )
    }

    /// Completes `request` with `result`, logging failures the core will not explain.
    fn finish(&self, in_flight: InFlight, result: &RequestResult) {
        let outcome = request_outcome(result);
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
        in_flight.request.complete(&outcome);
    }

    /// The interrupt handler's work: consume events, finish the request if it is done.
    pub(crate) fn handle_interrupt(&self) -> bool {
        let mut card_changed = false;
        let mut sdio = false;
        let (done, watchdog) = {
            let mut state = self.state.lock();
            let state = &mut *state;
            // The engine's order: each call acknowledges only what it consumes.
            if state.sdio_irq_enabled {
                sdio = state.controller.sdio_irq_event(&self.regs);
            }
            if self.card_detect == CardDetect::Internal {
                card_changed = state.controller.card_detect_event(&self.regs);
            }
            match state.controller.handle_interrupt(&self.regs) {
                Progress::Pending => (None, None),
                Progress::Done(result) => (
                    state.in_flight.take().map(|f| (f, result)),
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
            let state = &mut *state;
            match &state.in_flight {
                Some(f) if f.started.elapsed() >= Delta::from_millis(REQUEST_TIMEOUT_MS) => {
                    let result = state.controller.abort(&self.regs);
                    state.in_flight.take().map(|f| (f, result))
                }
                _ => None,
            }
        };
        if let Some((in_flight, result)) = timed_out {
            dev_err!(
                self.dev,
                "CMD{} did not complete in {} ms; controller reset\n",
                in_flight.opcode,
                REQUEST_TIMEOUT_MS
            );
            match result {
                Some(result) => self.finish(in_flight, &result),
                None => in_flight.request.fail(ETIMEDOUT),
            }
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

    fn start_request(self: &Arc<Self>, mut request: Request) {
        let Some(cmd) = request.cmd() else {
            request.fail(EINVAL);
            return;
        };
        let spec = RequestSpec {
            sbc: request.sbc().map(command_spec),
            cmd: command_spec(cmd),
            data: request.data().map(|d| DataSpec {
                block_size: d.block_size,
                blocks: d.blocks,
                write: d.write,
                timeout_ns: d.timeout_ns,
                timeout_clks: d.timeout_clks,
            }),
            stop: request.stop().map(command_spec),
        };
        // Start and record the request in one critical section: its completion interrupt
        // may arrive as soon as the command is written.
        let started = {
            let mut state = self.state.lock();
            let state = &mut *state;
            let result = if state.in_flight.is_some() || !state.controller.is_idle() {
                Err(EBUSY)
            } else if spec.data.is_some() {
                match request.map_data() {
                    Ok(segments) => {
                        let area_bus = state.descriptors.bus_address();
                        let chain = DmaChain {
                            area: state.descriptors.cpu_view(),
                            area_bus,
                            segments: segments.map(|s| Segment {
                                bus_address: s.address,
                                len: s.len,
                            }),
                        };
                        state
                            .controller
                            .start(&self.regs, &spec, Some(chain))
                            .map_err(|e| self.start_failed(cmd.opcode, e))
                    }
                    Err(e) => Err(e),
                }
            } else {
                state
                    .controller
                    .start(&self.regs, &spec, None::<NoDmaChain<'_>>)
                    .map_err(|e| self.start_failed(cmd.opcode, e))
            };
            match result {
                Ok(()) => {
                    state.in_flight = Some(InFlight {
                        request,
                        opcode: cmd.opcode,
                        started: Instant::now(),
                    });
                    // The previous request's handle, if the watchdog itself finished it.
                    Ok(state.watchdog.take())
                }
                Err(e) => Err((request, e)),
            }
        };
        match started {
            Ok(previous) => {
                drop(previous);
                let handle = self.clone().start(Delta::from_millis(REQUEST_TIMEOUT_MS));
                let unneeded = {
                    let mut state = self.state.lock();
                    if state.in_flight.is_some() && state.watchdog.is_none() {
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
        let timing = timing_from_ios(ios.timing);
        let mut state = msdc.state.lock();
        let state = &mut *state;
        state.controller.set_bus_width(&msdc.regs, ios.bus_width);
        if state.requested_clock_hz != ios.clock_hz || state.timing != timing {
            match state.controller.set_clock(&msdc.regs, ios.clock_hz, timing) {
                Ok(actual) => {
                    dev_dbg!(
                        msdc.dev,
                        "bus clock {} Hz (asked {})\n",
                        actual,
                        ios.clock_hz
                    );
                    state.requested_clock_hz = ios.clock_hz;
                    state.timing = timing;
                }
                Err(e) => dev_err!(msdc.dev, "bus clock {} Hz not set: {:?}\n", ios.clock_hz, e),
            }
        }
    }

    fn get_cd(&self, host: &Host) -> bool {
        match self.msdc.card_detect {
            CardDetect::Fixed | CardDetect::Polled => true,
            CardDetect::Gpio => host.gpio_card_detect().unwrap_or(true),
            CardDetect::Internal => {
                let state = self.msdc.state.lock();
                state.controller.card_present(&self.msdc.regs)
            }
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
        let mut state = self.msdc.state.lock();
        let state = &mut *state;
        state.sdio_irq_enabled = enable;
        state.controller.enable_sdio_irq(&self.msdc.regs, enable);
    }

    fn ack_sdio_irq(&self, _host: &Host) {
        let mut state = self.msdc.state.lock();
        let state = &mut *state;
        // The interrupt handler masked the SDIO interrupt when it signalled it.
        if state.sdio_irq_enabled {
            state.controller.enable_sdio_irq(&self.msdc.regs, true);
        }
    }
}

/// The descriptor area every slot allocates: one GPD and a BD per possible segment.
pub(crate) const DESCRIPTOR_AREA_LEN: usize = dma::area_len(dma::MAX_SEGMENTS);
