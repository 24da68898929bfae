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
//! against the `sim` controller model in tests. The sample-point tuning the glue drives
//! between requests is the `tuning` module's state machine, reached through
//! [`Controller::begin_tuning`] and its siblings.
//!
//! # How the glue drives it
//!
//! All methods run under the glue's spinlock: [`Controller::start`], the clock, bus and
//! card-detect setters in process context, [`Controller::handle_interrupt`] in hard-IRQ
//! context. Nothing here sleeps, allocates or panics, and every wait on a self-clearing bit
//! is a bounded [`Io::poll`] of [`POLL_LIMIT`] reads, [`POLL_INTERVAL_US`] apart (about
//! 20 ms, the bound upstream uses for its atomic polls).
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
//!    event the DMA is stopped and its status polled idle;
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

use super::clock::{self, ClockError, ClockPlan, Timing};
use super::command::{
    plan_set_block_count, response_words, AutoCommand, Command, CommandError, DataTransfer,
    ResponseType, SetBlockCountPlan,
};
use super::cqe::{self, CqeAftermath, CqeEvent, CqeHooks, HookReset};
use super::dma::{self, ChainStart, DescriptorArea, DmaAddressing, DmaError};
use super::errors::{
    auto_command_outcome, command_outcome, command_queue_errors, data_outcome,
    is_command_queue_event, Outcome, COMMAND_INTERRUPTS, DATA_INTERRUPTS,
};
use super::power::{Configuration, SavedRegisters};
use super::regs::{
    BusWidth, InterruptSet, MsdcBase, MsdcRegs, EMMC50_CFG0, EMMC50_CFG2, EMMC_IOCON, MSDC_CFG,
    MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_IOCON, MSDC_PATCH_BIT0,
    MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS, SDC_ACMD_RESP, SDC_ADV_CFG0, SDC_ARG, SDC_BLK_NUM,
    SDC_CFG, SDC_CMD, SDC_FIFO_CFG, SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS,
};
use super::soc::SocData;
use super::timeout::{Counter, TimeoutRequest, INITIAL_DATA_TIMEOUT_COUNT, INITIAL_TIMEOUT_CLOCKS};
use super::tuning::{BoardTuning, Tuner, TuningError, TuningKind, TuningProbe, TuningReport};
use crate::cqhci::regs::CQSSC1;
use crate::cqhci::HostError;
use crate::mmc_request::{
    self, CommandResult, DataResult, ErrorKind, Request, RequestResult, Segment,
};
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

/// Event batches one [`Controller::handle_interrupt`] call handles at most: one per phase
/// (set-block-count or auto-CMD23, command, data, stop).
pub const MAX_EVENT_BATCHES: usize = 4;

/// Card identification clock the controller is prepared for at initialisation.
pub const IDENTIFICATION_CLOCK_HZ: u32 = 400_000;

/// `MSDC_PS.CDDEBOUNCE` upstream programs for the internal card detect (8 cycles).
pub const CARD_DETECT_DEBOUNCE: u32 = 8;

/// How long the eMMC `RST_n` line is held low for a hardware reset, in µs.
pub const CARD_RESET_PULSE_US: u32 = 10;

/// `MSDC_PATCH_BIT0.BUSYDLY`: R1b busy detection delay in bus clocks (upstream's 15).
const R1B_BUSY_DELAY: u32 = 15;

/// `MSDC_PATCH_BIT2.RESPWAIT` with the async FIFO: 65 + 16 * 3 bus clocks.
const ASYNC_FIFO_RESPONSE_WAIT: u32 = 3;

/// `MSDC_PATCH_BIT2.RESPSTSENSEL`/`CRCSTSENSEL` with the async FIFO and no enhanced receive
/// path: 2T delay for the response and CRC status enables.
const ASYNC_FIFO_STATUS_DELAY: u32 = 2;

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
    /// A reset left over from an earlier error still does not complete.
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

/// The descriptor memory and the mapped scatterlist of a request with data, for
/// [`Controller::write_chain`].
pub struct DmaChain<'a, I: IntoIterator<Item = Segment>> {
    /// Coherent memory of [`dma::area_len`]`(`[`dma::MAX_SEGMENTS`]`)` bytes (fewer limit
    /// the segment count).
    pub area: &'a mut [u8],
    /// Bus address of `area`.
    pub area_bus: u64,
    /// The mapped scatterlist, in order.
    pub segments: I,
}

/// A descriptor chain [`Controller::write_chain`] wrote for a request's data, which
/// [`Controller::start`] points the DMA at.
///
/// Writing the chain is a step of its own so that the glue's borrow of the mapped
/// scatterlist ends before the request moves into [`Controller::start`] as its token.
#[derive(Debug)]
pub struct WrittenChain(ChainStart);

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

/// The phase a request is in; each enables its own interrupts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SetBlockCount,
    Command,
    Data,
    Stop,
}

impl Phase {
    const fn interrupts(self) -> InterruptSet {
        match self {
            Self::Data => DATA_INTERRUPTS,
            Self::SetBlockCount | Self::Command | Self::Stop => COMMAND_INTERRUPTS,
        }
    }
}

/// A command ready to issue.
#[derive(Clone, Copy, Debug)]
struct PlannedCommand {
    word: SDC_CMD,
    response: ResponseType,
    argument: u32,
    /// `SDC_BLK_NUM` for a command with data.
    blocks: Option<u32>,
}

impl PlannedCommand {
    fn new(
        spec: &mmc_request::Command,
        data: Option<DataTransfer>,
        auto_command: AutoCommand,
    ) -> Result<Self, CommandError> {
        let response = ResponseType::from_mmc_flags(spec.flags)?;
        let mut command = Command::new(spec.opcode, response).with_auto_command(auto_command);
        if let Some(data) = data {
            command = command.with_data(data);
        }
        Ok(Self {
            word: command.sdc_cmd()?,
            response,
            argument: spec.arg,
            blocks: data.map(|data| data.blocks),
        })
    }

    /// Whether the command waits for the whole controller, not only the command line.
    fn needs_idle_controller(&self) -> bool {
        self.response.has_busy() || self.blocks.is_some()
    }
}

/// The request in flight.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    software_sbc: Option<PlannedCommand>,
    auto_sbc: bool,
    has_sbc: bool,
    command: PlannedCommand,
    data: Option<mmc_request::Data>,
    chain: Option<ChainStart>,
    stop: Option<PlannedCommand>,
    phase: Phase,
    result: RequestResult,
}

impl InFlight {
    fn command_of(&self, phase: Phase) -> Option<PlannedCommand> {
        match phase {
            Phase::SetBlockCount => self.software_sbc,
            Phase::Command => Some(self.command),
            Phase::Stop => self.stop,
            Phase::Data => None,
        }
    }

    /// Whether the command phase still waits for its auto-CMD23's outcome.
    fn awaits_auto_sbc(&self) -> bool {
        self.phase == Phase::Command && self.auto_sbc && self.result.sbc.is_none()
    }

    /// Records the outcome of the command of `phase`; the data phase has none.
    fn record(&mut self, phase: Phase, result: CommandResult) {
        match phase {
            Phase::SetBlockCount => self.result.sbc = Some(result),
            Phase::Command => self.result.cmd = result,
            Phase::Stop => self.result.stop = Some(result),
            Phase::Data => {}
        }
    }

    /// Records `error` as the outcome of `phase`, which did not get a response.
    fn fail(&mut self, phase: Phase, error: ErrorKind) {
        match phase {
            Phase::Data => {
                self.result.data = Some(DataResult {
                    bytes_xfered: 0,
                    error: Some(error),
                })
            }
            _ => self.record(phase, CommandResult::failed(error)),
        }
    }
}

/// What handling an event did to the request.
enum Step {
    Continue(InFlight),
    Finished(RequestResult),
}

/// The clock the core asked for last, and got: what [`Controller::set_clock`] compares a new
/// request with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ClockRequest {
    hz: u32,
    timing: Timing,
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
    hardware_fault: Option<HwError>,
    request: Option<(InFlight, R)>,
    /// The save set while runtime suspended: `Some` from [`Controller::suspend`] until
    /// [`Controller::resume`], and then the registers must not be touched.
    saved: Option<SavedRegisters>,
    /// Default and tuned sample points, and the tuning in progress.
    tuner: Tuner,
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
            hardware_fault: None,
            request: None,
            saved: None,
            tuner: Tuner::new(setup.board),
        }
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
    /// core's acknowledgement.
    pub const fn sdio_irq_enabled(&self) -> bool {
        self.sdio_irq_enabled
    }

    /// Takes the last bounded poll that timed out inside the engine (in the interrupt path,
    /// where it cannot be returned), for the glue to log.
    pub fn take_hardware_fault(&mut self) -> Option<HwError> {
        self.hardware_fault.take()
    }

    /// Brings the controller to a known state (`msdc_init_hw`): SD/MMC mode, reset, FIFO
    /// clear, every interrupt masked and cleared, the patch bits and quirks of the SoC,
    /// 36-bit DMA when configured, descriptor checksums on, the default data timeout, and
    /// the clock gated with a divider of at most [`IDENTIFICATION_CLOCK_HZ`] already stable.
    ///
    /// The card-detect mode and SDIO mode are programmed as last set (no internal card
    /// detect and no SDIO until [`Controller::set_card_detect`] and
    /// [`Controller::set_sdio_mode`]); the SDIO interrupt is off, as upstream leaves it. A
    /// request in flight is dropped with its token, without a result: [`Controller::abort`]
    /// it first.
    ///
    /// The sample points go back to their defaults as upstream's: on SoCs with the new
    /// transmit and receive paths their enables go from 0 to 1 first (and the new path's
    /// loop clock is set for the legacy timing); the delay lines (the top region's
    /// `EMMC_TOP_CONTROL`/`EMMC_TOP_CMD` where the SoC has it, else the pad tune register
    /// and, with a 64-cell tuning step, its second one) and `MSDC_IOCON` are cleared, the
    /// enhanced receive path is enabled in `EMMC_TOP_CONTROL` on SoCs with a top region,
    /// then the delay lines are selected (data tuning: the command and data delays, and the
    /// second ones with a 64-cell step, with `DATA_K_VALUE_SEL` clear; else the clock delay)
    /// and read back as the default parameters, which are also the tuned ones until a
    /// tuning succeeds. A tuning in progress and the HS400 target are forgotten. A
    /// [`BoardTuning`] value that does not fit its field is refused first
    /// ([`HwError::BoardValue`]).
    ///
    /// It may run again on a controller in use, as the glue does on `MMC_POWER_UP` (as
    /// upstream's `msdc_set_ios` runs `msdc_init_hw`): the bus width and the card-detect and
    /// SDIO modes stay, pending events are dropped, and afterwards the clock is gated and
    /// forgotten, so the next [`Controller::set_clock`] programs any running rate it is asked
    /// for. Refused with [`HwError::Suspended`] while suspended.
    pub fn init_hardware(&mut self, r: &impl MsdcRegs) -> Result<(), HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.tuner.board().check().map_err(HwError::BoardValue)?;
        let soc = self.setup.soc;
        self.request = None;
        self.standing_interrupts = InterruptSet::empty();
        self.sdio_irq_enabled = false;
        self.clock = ClockPlan::Gated;
        self.clock_request = None;
        self.data_timeout = TimeoutRequest {
            ns: 0,
            clocks: INITIAL_TIMEOUT_CLOCKS,
        };

        self.tuner.enable_new_paths(r, soc);
        modify_cfg(r, |cfg| {
            cfg.with_mode(true).with_pio(false).with_ckpdn(false)
        });
        self.reset_controller(r)?;
        r.write(MSDC_INTEN::zeroed());
        acknowledge_all(r);

        self.program_card_detect(r);
        self.tuner.clear_delay_lines(r, soc);
        r.write(MSDC_IOCON::zeroed());
        self.program_patch_bits(r)?;
        self.tuner.select_delay_lines(r, soc);
        self.program_sdio_mode(r, self.sdio_mode);
        r.update::<SDC_CFG>(|cfg| cfg.with_const_dtoc::<INITIAL_DATA_TIMEOUT_COUNT>());
        r.update::<MSDC_DMA_CFG>(dma::checksum_checking);
        self.program_identification_clock(r)?;
        // The clock is gated: what a request for no clock would leave.
        self.clock_request = Some(ClockRequest {
            hz: 0,
            timing: Timing::Legacy,
        });
        Ok(())
    }

    /// Resets the controller and clears its FIFO (`msdc_reset_hw`) and every pending
    /// request event. Card-detect and SDIO events stay pending for their consumers, and
    /// `MSDC_INTEN` is left alone. A request in flight is not completed: see
    /// [`Controller::abort`]. Refused with [`HwError::Suspended`] while suspended.
    pub fn reset(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.reset_controller(r)
    }

    /// Runtime suspend, before the glue gates the clocks (`msdc_runtime_suspend`).
    ///
    /// Refused while a request is in flight. Otherwise reads the save set (see the `power`
    /// module) into the controller, masks every interrupt, which [`Controller::resume`]
    /// enables again (so a latched event cannot hold a shared line up while the handlers
    /// are not allowed to look), tells the SoC's power manager that the controller releases
    /// its resources where it has to be told (`support_spm_res_release`, as upstream), and
    /// marks the controller suspended. Suspending a suspended controller does nothing.
    ///
    /// The glue suspends the CQHCI engine (or the software queue) first.
    pub fn suspend(&mut self, r: &impl MsdcRegs) -> Result<(), SuspendError> {
        if self.is_suspended() {
            return Ok(());
        }
        if self.request.is_some() {
            return Err(SuspendError::Busy);
        }
        self.tuner.abandon(r, self.setup.soc);
        let saved = SavedRegisters::save(r, self.setup.soc, self.tuner.step());
        r.write(MSDC_INTEN::zeroed());
        if self.setup.soc.support_spm_res_release {
            r.update::<SDC_STS>(|sts| sts.with_spm_resource_release(true));
        }
        self.saved = Some(saved);
        Ok(())
    }

    /// Runtime resume, after the glue ungated the clocks (`msdc_runtime_resume`).
    ///
    /// On SoCs with the new transmit and receive paths their enables go from 0 to 1 first,
    /// as upstream's. Then the saved `MSDC_CFG` goes back. When the saved clock was
    /// running, the divider goes back with the clock gated and the clock is ungated once
    /// `CKSTB` is set (a bounded [`Io::poll`], like upstream's 20 ms wait after ungating).
    /// Then the rest of the save set (the top region's last, on SoCs with one) and the
    /// enhanced strobe setting, if one was made; then the stale events of `MSDC_INT` are
    /// cleared except the card-detect and SDIO events, which the standing interrupts
    /// consume, and `MSDC_INTEN` goes back last. A tuning in progress at suspend is
    /// abandoned (the delay lines go back as they were before it began).
    ///
    /// The controller is no longer suspended afterwards, even on an error:
    /// [`HwError::ClockTimeout`] when `CKSTB` did not come back, and then everything else
    /// was still restored but the clock stays gated and forgotten, so the glue can log it and
    /// re-initialise. Resuming a controller that is not suspended does nothing.
    pub fn resume(&mut self, r: &impl MsdcRegs) -> Result<(), HwError> {
        let Some(saved) = self.saved.take() else {
            return Ok(());
        };
        self.tuner.before_restore(r, self.setup.soc);
        let cfg = writable_cfg(saved.clock_configuration());
        let mut result = Ok(());
        if self.clock.bus_hz() != 0 {
            r.write(cfg.with_ckpdn(false));
            if r.poll::<MSDC_CFG>(MSDC_CFG::ckstb, POLL).is_ok() {
                r.write(cfg);
            } else {
                self.clock = ClockPlan::Gated;
                self.clock_request = None;
                result = Err(HwError::ClockTimeout);
            }
        } else {
            r.write(cfg);
        }
        saved.restore_configuration(r);
        self.tuner.after_restore(r);
        let pending = InterruptSet::from_bits_retain(r.read::<MSDC_INT>().raw());
        r.write((pending & RESET_CLEARS).as_acknowledge());
        r.write(saved.interrupt_enables());
        result
    }

    /// Whether the controller is runtime suspended: between [`Controller::suspend`] and
    /// [`Controller::resume`], when no method touches the registers.
    pub const fn is_suspended(&self) -> bool {
        self.saved.is_some()
    }

    /// Sets the card clock to at most `hz` for `timing` (`msdc_set_mclk`), or gates it for
    /// 0, and returns the rate now running (`mmc->actual_clock`). Waits, bounded, for
    /// `CKSTB`, and reprograms the data timeout for the new clock.
    ///
    /// The same `hz` and `timing` as the last request that took effect change nothing (the
    /// core calls `set_ios` for every bus change, most of which leave the clock alone). A
    /// clock that did not settle is forgotten, so the next request programs it again; an
    /// unreachable one changes nothing. Refused with [`HwError::Suspended`] while suspended
    /// (the clock cannot settle then).
    ///
    /// Once a running clock settled, the sample points follow it as upstream's: at or below
    /// [`TUNED_ABOVE_HZ`](super::tuning::TUNED_ABOVE_HZ) the default parameters (a tuning
    /// at 200 MHz does not suit the high-speed step between HS200 and HS400), above it the
    /// tuned ones ([`Controller::finish_tuning`]); in HS400 on `hs400_tune` SoCs the
    /// board's internal command delay; on SoCs with the new transmit path the loop clock
    /// for the timing (`LOOP_TEST_CONTROL`). The legacy timing also forgets the HS400
    /// target ([`Controller::prepare_hs400_tuning`]): the card is being initialised again.
    pub fn set_clock(
        &mut self,
        r: &impl MsdcRegs,
        hz: u32,
        timing: Timing,
    ) -> Result<u32, HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.tuner.timing_requested(timing);
        let request = ClockRequest { hz, timing };
        if self.clock_request == Some(request) {
            return Ok(self.clock.bus_hz());
        }
        let plan = clock::plan(
            self.setup.source_hz,
            hz,
            timing,
            self.setup.soc.clock_divider,
        )
        .map_err(HwError::UnreachableClock)?;
        let ClockPlan::Running(setting) = plan else {
            modify_cfg(r, |cfg| cfg.with_ckpdn(false));
            self.clock = ClockPlan::Gated;
            self.clock_request = Some(request);
            return Ok(0);
        };
        let enabled = r.read::<MSDC_INTEN>();
        r.write(MSDC_INTEN::zeroed());
        let stable = self.program_divider(r, setting);
        if stable.is_ok() {
            modify_cfg(r, |cfg| cfg.with_ckpdn(true));
            self.clock = plan;
            self.clock_request = Some(request);
            self.program_data_timeout(r, self.data_timeout);
        } else {
            // The divider changed but the clock never settled: nothing is known to run.
            self.clock = ClockPlan::Gated;
            self.clock_request = None;
        }
        r.write(enabled);
        stable?;
        self.tuner
            .after_clock_change(r, self.setup.soc, plan.bus_hz(), timing)
            .map_err(HwError::BoardValue)?;
        Ok(plan.bus_hz())
    }

    /// Sets the data bus width to 1, 4 or 8 lines; any other value selects one line. While
    /// suspended, sets it in the saved `SDC_CFG`, for resume to program.
    pub fn set_bus_width(&mut self, r: &impl Io<MsdcBase>, lines: u8) {
        let width = match lines {
            4 => BusWidth::Four,
            8 => BusWidth::Eight,
            _ => BusWidth::One,
        };
        self.configure(r, |_, r| {
            r.update::<SDC_CFG>(|cfg| cfg.with_buswidth(width));
        });
    }

    /// Writes the descriptor chain of `req`'s data into `dma`'s area, with checksums, for
    /// [`Controller::start`] to point the DMA at.
    ///
    /// Refused while a request is in flight (its DMA may be reading the area), for a request
    /// without data, and when the segments do not add up to the data. It touches memory
    /// only, so it works while suspended too (and [`Controller::start`] then refuses).
    pub fn write_chain<I: IntoIterator<Item = Segment>>(
        &self,
        req: &Request,
        dma: DmaChain<'_, I>,
    ) -> Result<WrittenChain, StartError> {
        if self.request.is_some() {
            return Err(StartError::Busy);
        }
        let data = req.data.ok_or(StartError::UnexpectedDmaChain)?;
        let mut area = DescriptorArea::new(dma.area, dma.area_bus, self.setup.addressing)?;
        let start = area.write_chain(dma.segments)?;
        let expected = u64::from(data.blocks) * u64::from(data.block_size);
        if start.total_len != expected {
            return Err(StartError::LengthMismatch {
                expected,
                described: start.total_len,
            });
        }
        Ok(WrittenChain(start))
    }

    /// Starts `req`, whose data (if any) goes through `chain`, and holds `token` until the
    /// request completes: [`Progress::Done`] or [`Controller::abort`] hand it back with the
    /// result. The DMA is started once the command has its response.
    ///
    /// Everything that can be checked in advance is checked before anything is sent, so an
    /// error means the card saw nothing of the request; the token comes back with it.
    /// Refused with [`StartError::Suspended`] while suspended.
    pub fn start(
        &mut self,
        r: &impl Io<MsdcBase>,
        req: &Request,
        chain: Option<WrittenChain>,
        token: R,
    ) -> Result<(), (R, StartError)> {
        match self.launch(r, req, chain) {
            Ok(flight) => {
                self.request = Some((flight, token));
                Ok(())
            }
            Err(error) => Err((token, error)),
        }
    }

    /// Handles the request events of `MSDC_INT` that are enabled in `MSDC_INTEN`: reads the
    /// responses, moves to the next phase, and reports the end of the request.
    ///
    /// Acknowledges only the events of the phase in flight; card-detect, SDIO and command
    /// queue events are left alone, and so is everything while no request is in flight.
    /// Events of a phase already finished are not enabled any more, so they are ignored
    /// (and cleared before the next command). Events of the next phase that are already
    /// latched are handled in the same call, up to [`MAX_EVENT_BATCHES`] batches.
    ///
    /// [`Progress::Pending`], touching nothing, while suspended.
    pub fn handle_interrupt(&mut self, r: &impl Io<MsdcBase>) -> Progress<R> {
        if self.is_suspended() {
            return Progress::Pending;
        }
        for _ in 0..MAX_EVENT_BATCHES {
            let Some((flight, token)) = self.request.take() else {
                return Progress::Pending;
            };
            let enabled = InterruptSet::pending_enabled(r.read(), r.read());
            let events = enabled & flight.phase.interrupts();
            if events.is_empty() {
                self.request = Some((flight, token));
                return Progress::Pending;
            }
            r.write(events.as_acknowledge());
            match self.advance(r, flight, events) {
                Step::Continue(flight) => self.request = Some((flight, token)),
                Step::Finished(result) => return Progress::Done(token, result),
            }
        }
        Progress::Pending
    }

    /// Ends the request in flight after the glue's request timer expired: stops the DMA,
    /// masks the request interrupts, resets the controller (bounded) and hands the request's
    /// token back with [`ErrorKind::TimedOut`] on the phase that was running. `None` when
    /// idle.
    ///
    /// No stop command is sent; the block layer's recovery stops the card if needed. Nothing
    /// is in flight while suspended (suspend refuses a busy controller and start refuses a
    /// suspended one), so then this returns `None` without touching the registers.
    pub fn abort(&mut self, r: &impl Io<MsdcBase>) -> Option<(R, RequestResult)> {
        let (mut flight, token) = self.request.take()?;
        self.enable_phase_interrupts(r, None);
        if flight.phase == Phase::Data {
            self.stop_dma(r);
        }
        flight.fail(flight.phase, ErrorKind::TimedOut);
        self.recover(r);
        Some((token, flight.result))
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
    /// is low, but no event was latched. Then it masks the SDIO interrupt, as [`Controller::sdio_irq_event`]
    /// does, and returns true for the glue to signal it. False, touching nothing, while
    /// suspended.
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

    /// Starts tuning the sample points for `kind` (`execute_tuning`), with the SoC's plan
    /// (see the `tuning` module), and programs the first sample point's setup. Then the
    /// glue loops: [`Controller::next_tuning_probe`], the probe it names sent outside the
    /// lock, [`Controller::record_tuning_probe`], until the next probe is `None`; then
    /// [`Controller::finish_tuning`].
    ///
    /// A tuning still in progress is abandoned first. Refused while suspended, while a
    /// request is in flight, and for a [`BoardTuning`] value that does not fit its field.
    pub fn begin_tuning(&mut self, r: &impl MsdcRegs, kind: TuningKind) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.begin(r, self.setup.soc, kind)
    }

    /// Starts the HS400 data strobe sweep (`execute_hs400_tuning`, after the switch to
    /// HS400): the strobe's first delay over 32 cells, each probed with an EXT_CSD read
    /// ([`TuningProbe::ReadExtCsd`]); driven and finished like [`Controller::begin_tuning`].
    /// The sweep always runs, as upstream's, over the board's `hs400-ds-delay` if any.
    pub fn begin_hs400_tuning(&mut self, r: &impl MsdcRegs) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.begin_strobe(r, self.setup.soc)
    }

    /// Programs the next sample point of the tuning in progress and says what to send
    /// there; `None` once the sweeps are done (or one failed, or none is running, or the
    /// controller is suspended), and then [`Controller::finish_tuning`]. Asked again before
    /// [`Controller::record_tuning_probe`], it names the same probe and reprograms nothing.
    ///
    /// Call it with no request in flight: it reprograms the delay lines.
    pub fn next_tuning_probe(&mut self, r: &impl MsdcRegs) -> Option<TuningProbe> {
        if self.is_suspended() || self.request.is_some() {
            return None;
        }
        self.tuner.next_probe(r, self.setup.soc)
    }

    /// Records whether the probe [`Controller::next_tuning_probe`] named last passed (the
    /// MMC core's helper returned 0). Without a probe outstanding it does nothing.
    pub fn record_tuning_probe(&mut self, passed: bool) {
        self.tuner.record(passed);
    }

    /// Ends the tuning: on success reports what was chosen (programmed when its sweep
    /// ended) and keeps the delay lines and edges as the tuned parameters, which
    /// [`Controller::set_clock`] restores above 52 MHz and runtime suspend keeps (the
    /// strobe sweep's delay is kept by the save set alone). On failure
    /// ([`TuningError::NoWindow`], or [`TuningError::Incomplete`] before the sweeps were
    /// done) the delay lines and edges are as before the tuning began, and the tuned
    /// parameters are unchanged.
    pub fn finish_tuning(&mut self, r: &impl MsdcRegs) -> Result<TuningReport, TuningError> {
        if self.is_suspended() {
            return Err(TuningError::Suspended);
        }
        self.tuner.finish(r, self.setup.soc)
    }

    /// Abandons a tuning in progress (the card went away, the glue gave up): the delay
    /// lines and edges go back as they were before it began. Nothing happens without one,
    /// or while suspended (suspend already abandoned it).
    pub fn abort_tuning(&mut self, r: &impl MsdcRegs) {
        if !self.is_suspended() {
            self.tuner.abandon(r, self.setup.soc);
        }
    }

    /// Whether a tuning is in progress (begun and not yet finished or abandoned).
    pub const fn is_tuning(&self) -> bool {
        self.tuner.is_tuning()
    }

    /// HS400 is the target (`prepare_hs400_tuning`, before the HS200 tuning that precedes
    /// it): the board's strobe delays (`mediatek,hs400-ds-dly3` into `DLY3`, then a whole
    /// `hs400-ds-delay`, into `EMMC50_PAD_DS_TUNE` on SoCs with a top region, else
    /// `PAD_DS_TUNE`), `MSDC_PATCH_BIT2.CFGCRCSTS` clear and two outstanding writes
    /// (`EMMC50_CFG3.OUTS_WR`). The following tuning then leaves the data line to the
    /// strobe or, on `hs400_tune` SoCs, tunes the HS400 command pad delay. The target lasts
    /// until [`Controller::set_clock`] goes back to the legacy timing.
    pub fn prepare_hs400_tuning(&mut self, r: &impl MsdcRegs) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.prepare_hs400(r, self.setup.soc)
    }

    /// Whether HS400 is the target ([`Controller::prepare_hs400_tuning`]).
    pub const fn hs400_target(&self) -> bool {
        self.tuner.hs400_mode()
    }

    /// Switches HS400 enhanced strobe on or off (`hs400_enhanced_strobe`): on prepares HS400
    /// ([`Controller::prepare_hs400_tuning`]) and sets the command pad latch and response
    /// select (`EMMC50_CFG0`), the strobe configuration (`EMMC50_CFG1.DS_CFG`), clears the
    /// command queue's command windows (`CQHCI_SETTING`) and read data count
    /// (`EMMC51_CFG0.CMDQ_RDAT_CNT`); off reverses them, with the read data count at 0xB4.
    /// The setting is kept across runtime suspend.
    pub fn set_hs400_enhanced_strobe(
        &mut self,
        r: &impl MsdcRegs,
        on: bool,
    ) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.set_enhanced_strobe(r, self.setup.soc, on)
    }

    /// Tuning needs a powered controller with no request in flight.
    fn check_tunable(&self) -> Result<(), TuningError> {
        if self.is_suspended() {
            Err(TuningError::Suspended)
        } else if self.request.is_some() {
            Err(TuningError::Busy)
        } else {
            Ok(())
        }
    }

    /// The hooks for one call of the CQHCI engine on this controller, whose MSDC registers
    /// are `base` (see the `cqe` module): they keep the standing card-detect and SDIO
    /// interrupts enabled, program the queue's timeouts for the bus clock now running, and
    /// write `idle_timer` (from [`cqe::send_status_idle_timer`]) to `CQSSC1`.
    ///
    /// The hooks borrow the controller, so nothing changes its state during the engine call;
    /// give what they did back with [`Controller::absorb_cqe`].
    ///
    /// Hooks built while suspended do nothing at all. The glue suspends the CQHCI engine
    /// before the controller and resumes it after, so they are never called then; the
    /// engine's own accesses to the CQHCI block are the glue's to keep out of that window.
    pub fn cqe_hooks<'a, B: Io<MsdcBase>>(
        &'a self,
        base: &'a B,
        idle_timer: CQSSC1,
    ) -> CqeHooks<'a, B> {
        CqeHooks::new(
            base,
            self.is_suspended(),
            self.standing_interrupts,
            !self.setup.soc.busy_check,
            self.clock.timeout_clock(),
            idle_timer,
        )
    }

    /// Takes over what the CQHCI hooks did ([`CqeHooks::finish`]): the data timeout they
    /// programmed becomes the one a clock change rescales (every legacy data command
    /// programs its own), a reset they completed settles a reset left pending, one whose
    /// poll timed out is retried by the next [`Controller::start`], and a poll that timed
    /// out is kept for [`Controller::take_hardware_fault`].
    pub fn absorb_cqe(&mut self, aftermath: CqeAftermath) {
        if aftermath.timeouts_written {
            self.data_timeout = cqe::READ_TIMEOUT;
        }
        match aftermath.reset {
            HookReset::NotRun => {}
            HookReset::Done => self.reset_pending = false,
            HookReset::Failed => self.reset_pending = true,
        }
        if let Some(fault) = aftermath.fault {
            self.hardware_fault = Some(fault);
        }
    }

    /// Consumes a pending, enabled command queue interrupt (`MSDC_INT.CMDQ`), which the
    /// hooks enable while the CQHCI block owns the bus, with the errors the MSDC latched
    /// for the queue's commands and data (`msdc_cmdq_irq`): a response CRC error, else a
    /// command timeout, is the command error; a data CRC error, else a data timeout, the
    /// data error. The glue passes them to [`Cqhci::irq`](crate::cqhci::Cqhci::irq).
    ///
    /// Acknowledges `CMDQ` and the request events read with it, never card detect or SDIO.
    /// The acknowledgement comes before the engine reads `CQIS`, so an interrupt the block
    /// raises meanwhile latches again. `None`, touching nothing, without a `CMDQ` event,
    /// while a legacy request is in flight (whose events these would be) and while
    /// suspended.
    pub fn command_queue_event(&mut self, base: &impl Io<MsdcBase>) -> Option<CqeEvent> {
        if self.is_suspended() || self.request.is_some() {
            return None;
        }
        let int = base.read::<MSDC_INT>();
        if !is_command_queue_event(InterruptSet::pending_enabled(int, base.read())) {
            return None;
        }
        let events = InterruptSet::from_bits_retain(int.raw());
        base.write((InterruptSet::CMDQ | (events & REQUEST_EVENTS)).as_acknowledge());
        let errors = command_queue_errors(events);
        Some(CqeEvent {
            cmd_error: errors.command.map(host_error),
            data_error: errors.data.map(host_error),
        })
    }

    /// Validates `req` with its `chain`, programs the data timeout and issues the first
    /// command.
    fn launch(
        &mut self,
        r: &impl Io<MsdcBase>,
        req: &Request,
        chain: Option<WrittenChain>,
    ) -> Result<InFlight, StartError> {
        if self.is_suspended() {
            return Err(StartError::Suspended);
        }
        if self.request.is_some() {
            return Err(StartError::Busy);
        }
        if self.reset_pending {
            self.reset_controller(r).map_err(StartError::Hardware)?;
        }
        let mut flight = self.plan(req)?;
        flight.chain = match (req.data, chain) {
            (Some(_), Some(WrittenChain(start))) => Some(start),
            (Some(_), None) => return Err(StartError::MissingDmaChain),
            (None, Some(_)) => return Err(StartError::UnexpectedDmaChain),
            (None, None) => None,
        };
        if let Some(data) = req.data {
            self.data_timeout = TimeoutRequest {
                ns: u64::from(data.timeout_ns),
                clocks: u64::from(data.timeout_clks),
            };
            self.program_data_timeout(r, self.data_timeout);
        }
        let first = if flight.software_sbc.is_some() {
            Phase::SetBlockCount
        } else {
            Phase::Command
        };
        match self.issue(r, flight, first) {
            Step::Continue(flight) => Ok(flight),
            Step::Finished(_) => Err(StartError::BusBusy),
        }
    }

    /// Validates `req` and builds its command words.
    fn plan(&self, req: &Request) -> Result<InFlight, StartError> {
        let transfer = req
            .data
            .map(|data| DataTransfer::blocks(data.direction, data.block_size, data.blocks));
        let plan = plan_set_block_count(
            req.cmd.opcode,
            self.setup.auto_cmd23,
            req.sbc.map(|sbc| sbc.arg),
        );
        let auto_sbc = match (plan, req.sbc, req.data) {
            // Auto-CMD23 sends `SDC_BLK_NUM`, so the argument must be that count.
            (SetBlockCountPlan::Hardware, Some(sbc), Some(data)) => {
                data.blocks > 1 && sbc.arg == data.blocks
            }
            _ => false,
        };
        let software_sbc = match req.sbc {
            Some(sbc) => {
                // Validated even when folded into auto-CMD23.
                let planned = PlannedCommand::new(&sbc, None, AutoCommand::None)?;
                (!auto_sbc).then_some(planned)
            }
            None => None,
        };
        let auto_command = if auto_sbc {
            AutoCommand::Cmd23
        } else {
            AutoCommand::None
        };
        let command = PlannedCommand::new(&req.cmd, transfer, auto_command)?;
        let stop = match (req.stop, req.data) {
            (Some(stop), Some(_)) => Some(PlannedCommand::new(&stop, None, AutoCommand::None)?),
            _ => None,
        };
        Ok(InFlight {
            software_sbc,
            auto_sbc,
            has_sbc: req.sbc.is_some(),
            command,
            data: req.data,
            chain: None,
            stop,
            phase: Phase::Command,
            result: RequestResult::NOT_RUN,
        })
    }

    /// Issues the command of `phase`; on a bus that stays busy, fails the phase with a
    /// timeout (upstream's `REQ_CMD_BUSY`) and ends the request.
    fn issue(&mut self, r: &impl Io<MsdcBase>, mut flight: InFlight, phase: Phase) -> Step {
        let Some(command) = flight.command_of(phase) else {
            return Step::Finished(flight.result);
        };
        if !self.wait_bus_idle(r, command.needs_idle_controller()) {
            flight.fail(phase, ErrorKind::TimedOut);
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        let fifo = r.read::<MSDC_FIFOCS>();
        if fifo.rxcnt() != 0 || fifo.txcnt() != 0 {
            // Left over from an aborted transfer: upstream resets before the next command.
            self.recover(r);
        }
        // Events of earlier phases that were latched while masked would look like this
        // command's once its interrupts are enabled.
        r.write(REQUEST_EVENTS.as_acknowledge());
        if let Some(blocks) = command.blocks {
            modify_cfg(r, |cfg| cfg.with_pio(false));
            r.write(SDC_BLK_NUM::from_raw(blocks));
        }
        flight.phase = phase;
        self.enable_phase_interrupts(r, Some(phase));
        r.write(SDC_ARG::from_raw(command.argument));
        r.write(command.word);
        Step::Continue(flight)
    }

    /// Moves the request on with `events`, the acknowledged events of its phase.
    fn advance(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let phase = flight.phase;
        if phase == Phase::Data {
            return self.on_data(r, flight, events);
        }
        if flight.awaits_auto_sbc() {
            if let Some(outcome) = auto_command_outcome(events) {
                flight.result.sbc = Some(auto_command_result(r, outcome));
                if outcome.is_err() {
                    // The controller does not send the command after a failed CMD23.
                    self.end_with_error(r);
                    return Step::Finished(flight.result);
                }
            }
        }
        let Some(command) = flight.command_of(phase) else {
            return Step::Finished(flight.result);
        };
        let Some(outcome) = command_outcome(events, command.response) else {
            return Step::Continue(flight);
        };
        if flight.awaits_auto_sbc() {
            // The card took the command, so it took the CMD23 before it.
            flight.result.sbc = Some(auto_command_result(r, Ok(())));
        }
        flight.record(phase, read_response(r, command.response, outcome));
        if outcome.is_err() {
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        match (phase, flight.chain) {
            (Phase::SetBlockCount, _) => self.issue(r, flight, Phase::Command),
            (Phase::Command, Some(chain)) => {
                self.start_dma(r, chain);
                flight.phase = Phase::Data;
                Step::Continue(flight)
            }
            // A command without data, or the stop command: the request is done.
            _ => {
                self.enable_phase_interrupts(r, None);
                Step::Finished(flight.result)
            }
        }
    }

    fn on_data(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let Some(outcome) = data_outcome(events) else {
            return Step::Continue(flight);
        };
        self.stop_dma(r);
        self.enable_phase_interrupts(r, None);
        let bytes_xfered = match (outcome, flight.data) {
            (Ok(()), Some(data)) => data.blocks.saturating_mul(data.block_size),
            _ => 0,
        };
        flight.result.data = Some(DataResult {
            bytes_xfered,
            error: outcome.err(),
        });
        if outcome.is_err() {
            self.recover(r);
        }
        if flight.stop.is_some() && (!flight.has_sbc || outcome.is_err()) {
            return self.issue(r, flight, Phase::Stop);
        }
        Step::Finished(flight.result)
    }

    /// Masks the request interrupts and resets the controller after a failed phase.
    fn end_with_error(&mut self, r: &impl Io<MsdcBase>) {
        self.enable_phase_interrupts(r, None);
        self.recover(r);
    }

    /// Resets the controller; a reset that does not complete is remembered, reported through
    /// [`Controller::take_hardware_fault`] and retried by the next start.
    fn recover(&mut self, r: &impl Io<MsdcBase>) {
        if let Err(e) = self.reset_controller(r) {
            self.hardware_fault = Some(e);
        }
    }

    fn reset_controller(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        self.reset_pending = true;
        reset_hardware(r)?;
        self.reset_pending = false;
        Ok(())
    }

    /// Waits for `SDC_STS.CMDBUSY`, and `SDCBUSY` too for R1b and data commands, to clear
    /// (`msdc_cmd_is_ready`).
    fn wait_bus_idle(&self, r: &impl Io<MsdcBase>, whole_controller: bool) -> bool {
        let busy = |sts: SDC_STS| sts.cmdbusy() || (whole_controller && sts.sdcbusy());
        r.poll::<SDC_STS>(|sts| !busy(sts), POLL).is_ok()
    }

    /// Points the DMA at the chain, enables the data interrupts and starts it.
    fn start_dma(&mut self, r: &impl Io<MsdcBase>, chain: ChainStart) {
        r.update::<MSDC_DMA_CFG>(dma::checksum_checking);
        let ctrl = dma::descriptor_mode(dma_ctrl_settings(r.read()));
        r.write(ctrl);
        if let Some(high) = chain.start_high {
            r.write(high);
        }
        r.write(chain.start_low);
        self.enable_phase_interrupts(r, Some(Phase::Data));
        r.write(ctrl.with_start(true));
    }

    /// Stops the DMA and waits for it to go idle; a DMA that does not is reset.
    fn stop_dma(&mut self, r: &impl Io<MsdcBase>) {
        if let Err(e) = halt_dma(r) {
            self.hardware_fault = Some(e);
            self.recover(r);
        }
    }

    /// Runs `program` on the registers, or while suspended on the saved copy that resume
    /// writes back (the programs given here touch only registers of the save set).
    fn configure<I: Io<MsdcBase>>(
        &mut self,
        r: &I,
        program: impl FnOnce(&mut Self, &Configuration<'_, I>),
    ) {
        let mut saved = self.saved.take();
        let target = match saved.as_mut() {
            Some(saved) => Configuration::Saved(saved.image()),
            None => Configuration::Hardware(r),
        };
        program(self, &target);
        self.saved = saved;
    }

    /// `MSDC_PS`: the pins now, or while suspended as they were at suspend.
    fn pin_status(&self, r: &impl Io<MsdcBase>) -> MSDC_PS {
        match &self.saved {
            Some(saved) => saved.read(),
            None => r.read(),
        }
    }

    /// Writes `MSDC_INTEN`: the interrupts of `phase` plus card detect and SDIO if enabled.
    fn enable_phase_interrupts(&self, r: &impl Io<MsdcBase>, phase: Option<Phase>) {
        let phase_interrupts = phase.map_or(InterruptSet::empty(), Phase::interrupts);
        r.write((phase_interrupts | self.standing_interrupts).as_enable());
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

    fn program_data_timeout(&self, r: &impl Io<MsdcBase>, request: TimeoutRequest) {
        let clock = self.clock.timeout_clock();
        r.update::<SDC_CFG>(|cfg| Counter::Data.program(cfg, clock, request));
    }

    /// Writes a clock setting with the clock gated and waits for `CKSTB`.
    fn program_divider(
        &self,
        r: &impl Io<MsdcBase>,
        setting: clock::ClockSetting,
    ) -> Result<(), HwError> {
        let width = self.setup.soc.clock_divider;
        let gated = writable_cfg(r.read()).with_ckpdn(false);
        // A divider the field cannot hold asks for less than the slowest clock; `plan`
        // never returns one for this width.
        let cfg = setting.apply(gated, width).map_err(|_| {
            HwError::UnreachableClock(ClockError::BelowMinimum {
                minimum_hz: width.minimum_clock_hz(self.setup.source_hz),
            })
        })?;
        r.write(cfg);
        r.poll::<MSDC_CFG>(MSDC_CFG::ckstb, POLL)
            .map(|_| ())
            .map_err(|_| HwError::ClockTimeout)
    }

    /// Leaves a stable divider of at most [`IDENTIFICATION_CLOCK_HZ`] (or the slowest the
    /// divider reaches) with the clock gated, so the first `set_clock` finds a card-safe rate.
    fn program_identification_clock(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        let source = self.setup.source_hz;
        let width = self.setup.soc.clock_divider;
        let plan = match clock::plan(source, IDENTIFICATION_CLOCK_HZ, Timing::Legacy, width) {
            Err(ClockError::BelowMinimum { minimum_hz }) => {
                clock::plan(source, minimum_hz, Timing::Legacy, width)
            }
            other => other,
        }
        .map_err(HwError::UnreachableClock)?;
        if let ClockPlan::Running(setting) = plan {
            self.program_divider(r, setting)?;
        }
        self.clock = ClockPlan::Gated;
        Ok(())
    }

    /// Programs the internal card detect on for [`CardDetect::Internal`], off otherwise.
    fn program_card_detect(&mut self, r: &impl Io<MsdcBase>) {
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

    fn program_sdio_mode(&mut self, r: &impl Io<MsdcBase>, sdio: bool) {
        if !sdio {
            self.program_sdio_irq(r, false);
        }
        r.update::<SDC_CFG>(|cfg| cfg.with_sdio(sdio).with_sdioide(false));
        r.update::<SDC_ADV_CFG0>(|adv| adv.with_dat1_irq_trigger(sdio));
    }

    /// The patch bits of `msdc_init_hw` (Linux 7.x), by SoC quirk. A [`SocData`] patch
    /// value wider than its field stops the initialisation after `MSDC_PATCH_BIT0`.
    fn program_patch_bits(&self, r: &impl MsdcRegs) -> Result<(), HwError> {
        let soc = self.setup.soc;

        r.write(
            MSDC_PATCH_BIT0::zeroed()
                .with_oddsupp(true)
                .with_dis_wrmon(true)
                .with_descup_sel(true)
                .with_decrctmo(true)
                .with_const_busydly::<R1B_BUSY_DELAY>()
                .with_const_ckgen_msdc_dly_sel::<1>(),
        );

        let single_burst = r.read::<EMMC50_CFG2>().axi_set_len() == 0;
        let mut patch1 = MSDC_PATCH_BIT1::zeroed()
            .with_ddr_cmd_fix_sel(true)
            .with_single_burst(single_burst)
            .with_rsvd20(true)
            .with_auto_syncst_clr(true)
            .with_mark_pop_water(true)
            .with_lp_dcm_en(true)
            .with_rsvd3(true)
            .with_ahb_gdma_hclk(true)
            .with_msdc_clk_enfeat(true)
            .with_busy_check_sel(!soc.busy_check)
            .with_const_wrdat_crc_tacntr::<1>()
            .with_const_cmdta::<1>();

        let mut patch2 = r.read::<MSDC_PATCH_BIT2>();
        if soc.stop_clk_fix {
            if soc.stop_dly_sel != 0 {
                patch1 = patch1
                    .try_with_stop_dly(u32::from(soc.stop_dly_sel))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            if soc.pop_en_cnt != 0 {
                patch2 = patch2
                    .try_with_pop_en_cnt(u32::from(soc.pop_en_cnt))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            r.update::<SDC_FIFO_CFG>(|fifo| fifo.with_wrvalidsel(false).with_rdvalidsel(false));
        }
        if soc.async_fifo {
            patch2 = patch2
                .with_const_respwait::<ASYNC_FIFO_RESPONSE_WAIT>()
                .with_cfgresp(false)
                .with_cfgcrcsts(true);
            if !soc.enhance_rx {
                patch2 = patch2
                    .with_const_respstsensel::<ASYNC_FIFO_STATUS_DELAY>()
                    .with_const_crcstsensel::<ASYNC_FIFO_STATUS_DELAY>();
            } else if soc.needs_top_base {
                self.tuner.enable_top_rx_enhance(r);
            } else {
                r.update::<SDC_ADV_CFG0>(|adv| adv.with_rx_enhance_en(true));
            }
        }
        patch2 = patch2.with_support_64g(self.setup.addressing == DmaAddressing::Bits36);
        r.write(patch1);
        r.write(patch2);
        r.update::<EMMC50_CFG0>(|cfg0| cfg0.with_cfcsts_sel(true));
        Ok(())
    }
}

/// The response of a finished command phase, in `mmc_command.resp` order.
fn read_response(r: &impl Io<MsdcBase>, response: ResponseType, outcome: Outcome) -> CommandResult {
    let mut registers = [0u32; 4];
    for (index, word) in registers
        .iter_mut()
        .enumerate()
        .take(response.response_registers())
    {
        *word = match index {
            0 => r.read::<SDC_RESP0>().raw(),
            1 => r.read::<SDC_RESP1>().raw(),
            2 => r.read::<SDC_RESP2>().raw(),
            _ => r.read::<SDC_RESP3>().raw(),
        };
    }
    CommandResult {
        response: response_words(response, registers),
        error: outcome.err(),
    }
}

/// The auto-CMD23 result: its R1 is in `SDC_ACMD_RESP`.
fn auto_command_result(r: &impl Io<MsdcBase>, outcome: Outcome) -> CommandResult {
    CommandResult {
        response: [r.read::<SDC_ACMD_RESP>().raw(), 0, 0, 0],
        error: outcome.err(),
    }
}

/// `MSDC_DMA_CTRL` as read, without the action bits (start, stop, resume) that would act
/// again if written back.
fn dma_ctrl_settings(ctrl: MSDC_DMA_CTRL) -> MSDC_DMA_CTRL {
    ctrl.with_start(false).with_stop(false).with_resume(false)
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

/// Resets the controller and clears its FIFO (`msdc_reset_hw`), each wait bounded, then
/// acknowledges every event but card detect and SDIO ([`RESET_CLEARS`]).
pub(super) fn reset_hardware(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    r.write(writable_cfg(r.read()).with_rst(true));
    r.poll::<MSDC_CFG>(|cfg| !cfg.rst(), POLL)
        .map_err(|_| HwError::ResetTimeout)?;
    r.update::<MSDC_FIFOCS>(|fifo| fifo.with_clr(true));
    r.poll::<MSDC_FIFOCS>(|fifo| !fifo.clr(), POLL)
        .map_err(|_| HwError::FifoClearTimeout)?;
    r.write(RESET_CLEARS.as_acknowledge());
    Ok(())
}

/// Stops the DMA (`MSDC_DMA_CTRL.STOP`) and waits, bounded, for the stop to take effect and
/// for `MSDC_DMA_CFG.STS` to report the engine idle.
pub(super) fn halt_dma(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    let ctrl = dma_ctrl_settings(r.read());
    r.write(ctrl.with_stop(true));
    let stopped = r.poll::<MSDC_DMA_CTRL>(|ctrl| !ctrl.stop(), POLL).is_ok()
        && r.poll::<MSDC_DMA_CFG>(|cfg| !cfg.sts(), POLL).is_ok();
    if stopped {
        Ok(())
    } else {
        Err(HwError::DmaStopTimeout)
    }
}

/// The CQHCI engine's class of an error the MSDC detected.
const fn host_error(error: ErrorKind) -> HostError {
    match error {
        ErrorKind::BadCrc => HostError::Crc,
        ErrorKind::TimedOut => HostError::Timeout,
        ErrorKind::DmaFault => HostError::Other,
    }
}

/// W1C of every pending event.
fn acknowledge_all(r: &impl Io<MsdcBase>) {
    let pending = r.read::<MSDC_INT>();
    r.write(pending);
}
