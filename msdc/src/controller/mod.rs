// SPDX-License-Identifier: GPL-2.0

//! The legacy request engine: one `mmc_request` at a time through the MSDC command
//! registers and the GPD/BD descriptor DMA, as a sans-I/O state machine.
//!
//! The kernel glue owns the locking, the interrupt line, the DMA mapping and the request
//! timer; this module owns every register access of the legacy path and the order they come
//! in. It touches the hardware only through [`Io`]`<`[`MsdcBase`]`>` and, where the top
//! window (`reg[1]`) may be involved (initialisation, clock changes, suspend and resume,
//! tuning), [`MsdcRegs`], which adds `Io<MsdcTop>`; the top window is touched only on SoCs
//! with [`SocData::needs_top_base`]. So the same code runs against MMIO in the kernel and
//! against a register-level model of the controller in host tests. The sample-point
//! tuning the glue drives
//! between requests is the `tuning` module's state machine, reached through
//! [`Controller::begin_tuning`] and its siblings.
//!
//! # How the glue drives it
//!
//! All methods run under the glue's spinlock: [`Controller::start`], the clock, bus and
//! card-detect setters in process context, [`Controller::handle_interrupt`] in hard-IRQ
//! context. Nothing here sleeps, allocates or panics, and every wait on a self-clearing bit
//! is a bounded [`Io::poll`] of [`POLL_LIMIT`] reads, [`POLL_INTERVAL_US`] apart (about
//! 20 ms, the bound upstream uses for its atomic polls), except in the interrupt path,
//! whose polls stop after microseconds ([`RESET_POLL_LIMIT_IRQ`],
//! [`DMA_STOP_POLL_LIMIT_IRQ`]) and leave the rest to process context.
//!
//! The engine is the one owner of the slot's state: the clock and timing last set, the
//! card-detect mode, the SDIO interrupt, and the request in flight, which it holds as the
//! glue's token `R` (the kernel request and what the watchdog needs) from
//! [`Controller::start`] until it hands it back with the result ([`Progress::Done`],
//! [`Controller::abort`]).
//!
//! The interrupt handler calls, in this order:
//!
//! 1. [`Controller::sdio_irq_event`], and signals the SDIO interrupt if it returns true;
//! 2. [`Controller::card_detect_event`], and schedules card detection if it returns true;
//! 3. on a slot with a CQHCI block, [`Controller::command_queue_event`], and passes the
//!    errors it returns to the CQHCI engine's interrupt handler (`Cqhci::irq`);
//! 4. [`Controller::handle_interrupt`], and completes the request it gets back on
//!    [`Progress::Done`].
//!
//! Each of them acknowledges only the `MSDC_INT` events it consumes, so none of them can
//! swallow another's event: [`Controller::handle_interrupt`] leaves the command queue's
//! `CMDQ` alone, and [`Controller::command_queue_event`] runs only while no legacy request
//! is in flight (`CMDQ` is enabled only while the CQHCI block owns the bus).
//!
//! While the CQHCI block owns the bus the engine's hooks ([`CqeHooks`], from
//! [`Controller::cqe_hooks`]) program the MSDC registers the block depends on, and
//! [`Controller::absorb_cqe`] takes over what they did (see the `cqe` module). The
//! controller stays the one owner of the standing interrupts in `MSDC_INTEN`: the hooks
//! keep them as the controller has them.
//!
//! # Runtime power management
//!
//! [`Controller::suspend`] runs before the glue gates the clocks: it refuses while a request
//! is in flight, reads the registers a power-off would reset (the `power` module lists them)
//! into the controller, masks the interrupts and marks the controller suspended.
//! [`Controller::resume`] runs after the glue ungated them: it writes the saved registers back,
//! `MSDC_CFG` first with a bounded wait for the clock, `MSDC_INTEN` last. The same resume
//! serves a controller whose power domain went off (registers at their reset values) and one
//! whose clocks were only gated (registers kept).
//!
//! While suspended no method touches the registers: the interrupt side reports that nothing
//! happened (a shared interrupt line may fire), requests and everything that must reach the
//! hardware at once are refused, and the setters of configuration the save set holds change
//! the saved copy, which resume then writes (each method says what it does). The MMC core
//! resumes the host before it calls any of them, so this is a safety net, not a feature.
//! The CQHCI engine is the glue's to suspend first and resume last.
//!
//! # Request flow
//!
//! [`Controller::write_chain`] writes the descriptor chain of a request with data, and
//! [`Controller::start`] validates the whole request, builds every `SDC_CMD` word and
//! programs the data timeout, so that nothing can fail half way for a reason known in
//! advance; it then issues the first command. Each phase enables exactly its own
//! interrupts in `MSDC_INTEN` (plus card detect and SDIO when enabled):
//!
//! 1. set-block-count: folded into the data command as auto-CMD23 when
//!    [`HostSetup::auto_cmd23`] allows and the argument is a plain block count, otherwise
//!    sent as its own command first;
//! 2. the command; its response (and the auto-CMD23 response) is read on `CMDRDY`;
//! 3. data: the DMA starts only after the command response, as upstream does; on the data
//!    event the DMA is stopped and its status polled idle, for a few microseconds: a stop
//!    still running then is waited for from process context
//!    ([`Controller::awaits_dma_stop`], [`Controller::retry_stop`]);
//! 4. stop: `mrq.stop` is sent after the data phase when there is no set-block-count
//!    (open-ended transfer) or when the data phase failed.
//!
//! A command error ends the request: the data and stop phases are not run (the block layer's
//! recovery checks the card state and stops it if needed, as it does for upstream). Any
//! command or data error resets the controller before the next command; a reset whose polls
//! time out is retried by the next [`Controller::start`], which fails with
//! [`StartError::Hardware`] if it still does not complete.
//!
//! Differences from the upstream C driver, all deliberate:
//! - Error bits beat a success bit raised with them, and DMA descriptor faults are data
//!   errors (see the errors module).
//! - Every poll is bounded, including the controller reset and the clock-stable wait.
//! - The set-block-count argument must equal the block count for auto-CMD23, since the
//!   controller sends `SDC_BLK_NUM` as the argument.
//! - After a failed data phase the stop command is also sent when the request has a
//!   set-block-count command (upstream only sends it for open-ended transfers), as the SDHCI
//!   driver does: the card may still be sending or receiving.
//! - The request-timeout path ([`Controller::abort`]) completes the request at once
//!   instead of running the stop command; the block layer's recovery stops the card.
//! - A controller reset keeps pending card-detect and SDIO events for their consumers.
//! - A response CRC error on a tuning command (CMD19, CMD21) ends the request like any
//!   other command error. Upstream runs the data phase anyway so the tuning block does not
//!   linger in the FIFO; here the reset after the error clears it, and the FIFO check before
//!   every command resets again should the block arrive later.

// Each submodule adds the `impl` block of one concern of `Controller`; they reach the
// crate's other modules through `super::super` (the crate root on the host, the `msdc`
// module in the kernel).
mod bus;
mod command_queue;
mod data;
mod init;
mod interrupt;
mod issue;
mod recovery;
mod request;
mod slot;
mod suspend;
mod tune;

pub use bus::IDENTIFICATION_CLOCK_HZ;
pub(super) use data::halt_dma;
pub use data::DMA_STOP_POLL_LIMIT_IRQ;
pub use interrupt::MAX_EVENT_BATCHES;
pub(super) use recovery::reset_hardware;
pub use recovery::RESET_POLL_LIMIT_IRQ;
pub use request::{DmaChain, WrittenChain};
pub use slot::{
    CardDetect, PadState, SignalVoltage, UnsupportedVoltage, CARD_DETECT_DEBOUNCE,
    CARD_RESET_PULSE_US,
};
pub use suspend::{BusClock, Resumed};

use self::bus::ClockRequest;
use self::request::InFlight;
use super::clock::{ClockError, ClockPlan};
use super::command::CommandError;
#[cfg(doc)]
use super::cqe::CqeHooks;
use super::dma::{DmaAddressing, DmaError};
use super::errors::{COMMAND_INTERRUPTS, DATA_INTERRUPTS};
use super::power::SavedRegisters;
#[cfg(doc)]
use super::regs::MsdcRegs;
use super::regs::{InterruptSet, MsdcBase, MSDC_CFG};
use super::soc::SocData;
use super::timeout::{TimeoutRequest, INITIAL_TIMEOUT_CLOCKS};
use super::tuning::{BoardTuning, Tuner};
use crate::mmc_request::RequestResult;
use crate::registers::{FieldOverflow, Io, PollLimit};

/// Reads of a self-clearing bit before a poll gives up.
pub const POLL_LIMIT: u32 = 20_000;

/// Microseconds between two reads of a poll: with [`POLL_LIMIT`], about 20 ms.
pub const POLL_INTERVAL_US: u32 = 1;

/// The bound of every poll: [`POLL_LIMIT`] reads, [`POLL_INTERVAL_US`] apart.
const POLL: PollLimit = PollLimit {
    attempts: POLL_LIMIT,
    interval_us: POLL_INTERVAL_US,
};

/// `MSDC_INT` events that belong to the legacy request path: everything but card detect,
/// the SDIO card interrupt, the read-only card status and the command queue engine's bit.
pub(super) const REQUEST_EVENTS: InterruptSet = COMMAND_INTERRUPTS
    .union(DATA_INTERRUPTS)
    .union(InterruptSet::MMCIRQ)
    .union(InterruptSet::DMAQ_EMPTY)
    .union(InterruptSet::DXFER_DONE)
    .union(InterruptSet::ACMD19_DONE);

/// Events a controller reset clears: all but the card-detect and SDIO events, which wait
/// for [`Controller::card_detect_event`] and [`Controller::sdio_irq_event`] (and the
/// read-only card status).
pub(super) const RESET_CLEARS: InterruptSet = InterruptSet::ALL
    .difference(InterruptSet::CDSC)
    .difference(InterruptSet::SDIOIRQ)
    .difference(InterruptSet::CSTA);

/// What the engine is built with: the SoC's MSDC generation, and what the probe determines
/// at run time.
#[derive(Clone, Copy, Debug)]
pub struct HostSetup {
    /// The SoC's per-generation data (divider width, patch-bit quirks, top region).
    pub soc: &'static SocData,
    /// Rate of the "source" clock feeding the divider, in hertz.
    pub source_hz: u32,
    /// DMA address width, from the SoC's `support_64g` and the DMA mask the device accepts.
    pub addressing: DmaAddressing,
    /// The engine may fold a request's SET_BLOCK_COUNT into auto-CMD23 (eMMC cards; see
    /// [`Controller::set_auto_cmd23`] to change it once the card type is known).
    pub auto_cmd23: bool,
    /// The board's tuning values from the device tree.
    pub board: BoardTuning,
}

/// What [`Controller::handle_interrupt`] did with the request in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress<R> {
    /// The request goes on (or there is none): wait for the next interrupt.
    Pending,
    /// The request finished: complete the request `R` the glue started with this result.
    Done(R, RequestResult),
}

/// A bounded poll that did not finish, a clock that cannot be produced, per-SoC data that
/// does not fit the registers, or a controller that is runtime suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwError {
    /// `MSDC_CFG.RST` did not clear.
    ResetTimeout,
    /// `MSDC_FIFOCS.CLR` did not clear.
    FifoClearTimeout,
    /// `MSDC_CFG.CKSTB` did not come back after a clock change.
    ClockTimeout,
    /// `MSDC_DMA_CTRL.STOP` or `MSDC_DMA_CFG.STS` did not clear after stopping the DMA.
    DmaStopTimeout,
    /// No divider setting meets the requested clock.
    UnreachableClock(ClockError),
    /// A [`SocData`] patch value (`stop_dly_sel`, `pop_en_cnt`) does not fit its register
    /// field; the initialisation stopped after `MSDC_PATCH_BIT0`.
    PatchOutOfRange(FieldOverflow),
    /// A [`BoardTuning`] value does not fit its register field: refused by
    /// [`Controller::init_hardware`] before it touched anything.
    BoardValue(FieldOverflow),
    /// The controller is runtime suspended ([`Controller::suspend`]): nothing was done and
    /// no register was touched. Resume it first.
    Suspended,
}

/// Why [`Controller::suspend`] was refused; nothing was saved or changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuspendError {
    /// A request is in flight.
    Busy,
}

/// Why [`Controller::write_chain`] or [`Controller::start`] refused a request; nothing was
/// sent to the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// A request is already in flight.
    Busy,
    /// A command of the request cannot be encoded (`-EINVAL`).
    Command(CommandError),
    /// The descriptor chain cannot be written (`-EINVAL`, or `-ENOMEM` for too many segments).
    Dma(DmaError),
    /// The request has data but no written chain was passed (`-EINVAL`).
    MissingDmaChain,
    /// A descriptor chain was given for a request without data (`-EINVAL`).
    UnexpectedDmaChain,
    /// The segments do not add up to `blocks * block_size` (`-EINVAL`).
    LengthMismatch {
        /// `blocks * block_size`.
        expected: u64,
        /// The sum of the segment lengths.
        described: u64,
    },
    /// The command line or the controller stayed busy for [`POLL_LIMIT`] polls; the
    /// controller was reset. Upstream completes the request with `-ETIMEDOUT`.
    BusBusy,
    /// A reset left over from an earlier error still does not complete, or (for a request
    /// with data) a DMA stop left over from an earlier request still has not taken effect.
    Hardware(HwError),
    /// The controller is runtime suspended ([`Controller::suspend`]); no register was
    /// touched. Resume it first.
    Suspended,
}

impl From<CommandError> for StartError {
    fn from(e: CommandError) -> Self {
        Self::Command(e)
    }
}

impl From<DmaError> for StartError {
    fn from(e: DmaError) -> Self {
        Self::Dma(e)
    }
}

/// The legacy request engine of one MSDC controller, holding the glue's token `R` of the
/// request in flight.
#[derive(Debug)]
pub struct Controller<R> {
    setup: HostSetup,
    clock: ClockPlan,
    /// The clock request in effect; `None` after a change that did not settle, so the next
    /// request reprograms whatever it asks for.
    clock_request: Option<ClockRequest>,
    data_timeout: TimeoutRequest,
    /// Interrupts enabled outside any request: card detect and SDIO.
    standing_interrupts: InterruptSet,
    card_detect: CardDetect,
    sdio_mode: bool,
    /// The MMC core enabled the SDIO interrupt; it is masked from its event until the ack.
    sdio_irq_enabled: bool,
    signal_voltage: SignalVoltage,
    reset_pending: bool,
    /// A DMA stop was requested and has not been seen to take effect
    /// ([`Controller::dma_stop_pending`]).
    dma_stop_pending: bool,
    hardware_fault: Option<HwError>,
    request: Option<(InFlight, R)>,
    /// The save set while runtime suspended: `Some` from [`Controller::suspend`] until
    /// [`Controller::resume`], and then the registers must not be touched.
    saved: Option<SavedRegisters>,
    /// Default and tuned sample points, and the tuning in progress.
    tuner: Tuner,
    /// What the engine did so far, for the glue's figures.
    activity: Activity,
}

/// Running counts of what the engine did, wrapping: the glue compares two readings
/// ([`Controller::activity`]) to tell what one call did, e.g. one run of its interrupt
/// handler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// Controller resets started (`MSDC_CFG.RST`), after errors or asked for.
    pub resets: u32,
    /// Stop commands (`mrq.stop`) issued.
    pub stops: u32,
    /// Batches of request events [`Controller::handle_interrupt`] consumed.
    pub request_events: u32,
}

impl<R> Controller<R> {
    /// An engine for a controller with `setup`, before [`Controller::init_hardware`]; the
    /// card-detect mode is [`CardDetect::Polled`] until [`Controller::set_card_detect`].
    pub const fn new(setup: HostSetup) -> Self {
        Self {
            setup,
            clock: ClockPlan::Gated,
            clock_request: None,
            data_timeout: TimeoutRequest {
                ns: 0,
                clocks: INITIAL_TIMEOUT_CLOCKS,
            },
            standing_interrupts: InterruptSet::empty(),
            card_detect: CardDetect::Polled,
            sdio_mode: false,
            sdio_irq_enabled: false,
            signal_voltage: SignalVoltage::V330,
            reset_pending: false,
            dma_stop_pending: false,
            hardware_fault: None,
            request: None,
            saved: None,
            tuner: Tuner::new(setup.board),
            activity: Activity {
                resets: 0,
                stops: 0,
                request_events: 0,
            },
        }
    }

    /// What the engine did so far ([`Activity`]).
    pub const fn activity(&self) -> Activity {
        self.activity
    }

    /// Allows or forbids auto-CMD23, e.g. once the card turns out to be an eMMC (upstream
    /// uses it for eMMC only, and the glue sets it per card type). Each request decides
    /// when [`Controller::start`] plans it, so a change never affects the request in
    /// flight, only those started after it.
    pub fn set_auto_cmd23(&mut self, allowed: bool) {
        self.setup.auto_cmd23 = allowed;
    }

    /// Whether no request is in flight.
    pub const fn is_idle(&self) -> bool {
        self.request.is_none()
    }

    /// The token of the request in flight, e.g. for the glue's watchdog to see how long it
    /// has been running.
    pub fn in_flight(&self) -> Option<&R> {
        self.request.as_ref().map(|(_, token)| token)
    }

    /// The card clock now running (`mmc->actual_clock`); 0 while gated.
    pub const fn bus_clock_hz(&self) -> u32 {
        self.clock.bus_hz()
    }

    /// Takes the last bounded poll that timed out inside the engine (in the interrupt path,
    /// where it cannot be returned), for the glue to log.
    pub fn take_hardware_fault(&mut self) -> Option<HwError> {
        self.hardware_fault.take()
    }
}

/// Read-modify-write of `MSDC_CFG` that never writes `RST` back (which would start another
/// reset) nor the read-only status bits.
fn modify_cfg(r: &impl Io<MsdcBase>, change: impl FnOnce(MSDC_CFG) -> MSDC_CFG) {
    r.write(change(writable_cfg(r.read())).with_rst(false));
}

/// `cfg` without the reset trigger and the read-only status bits.
fn writable_cfg(cfg: MSDC_CFG) -> MSDC_CFG {
    cfg.with_rst(false).with_ckstb(false).with_bv18pss(false)
}
