// SPDX-License-Identifier: GPL-2.0

//! The legacy request engine: one `mmc_request` at a time through the MSDC command
//! registers and the GPD/BD descriptor DMA, as a sans-I/O state machine.
//!
//! The kernel glue owns the locking, the interrupt line, the DMA mapping and the request
//! timer; this module owns every register access of the legacy path and the order they come
//! in. It touches the hardware only through [`Io`]`<`[`MsdcBase`]`>`, so the same code runs
//! against MMIO in the kernel and against the `sim` controller model in tests.
//!
//! # How the glue drives it
//!
//! All methods run under the glue's spinlock: [`Controller::start`], the clock, bus and
//! card-detect setters in process context, [`Controller::handle_interrupt`] in hard-IRQ
//! context. Nothing here sleeps, allocates or panics, and every wait on a self-clearing bit
//! is a bounded [`Io::poll`] of [`POLL_LIMIT`] reads, [`POLL_INTERVAL_US`] apart (about
//! 20 ms, the bound upstream uses for its atomic polls).
//!
//! The interrupt handler calls, in this order:
//!
//! 1. [`Controller::sdio_irq_event`], and signals the SDIO interrupt if it returns true;
//! 2. [`Controller::card_detect_event`], and schedules card detection if it returns true;
//! 3. [`Controller::handle_interrupt`], and completes the request on [`Progress::Done`].
//!
//! Each of them acknowledges only the `MSDC_INT` events it consumes, so none of them can
//! swallow another's event, and an event the legacy engine does not own (the command queue
//! engine's `CMDQ`) is left for its owner.
//!
//! # Request flow
//!
//! [`Controller::start`] validates the whole request, builds every `SDC_CMD` word, writes
//! the descriptor chain and programs the data timeout, so that nothing can fail half way for
//! a reason known in advance; it then issues the first command. Each phase enables exactly
//! its own interrupts in `MSDC_INTEN` (plus card detect and SDIO when enabled):
//!
//! 1. set-block-count: folded into the data command as auto-CMD23 when
//!    [`HostConfig::auto_cmd23`] allows and the argument is a plain block count, otherwise
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

use super::clock::{self, ClockError, ClockPlan, DividerWidth, Timing};
use super::command::{
    plan_set_block_count, response_words, AutoCommand, Command, CommandError, DataDirection,
    DataTransfer, ResponseType, SetBlockCountPlan,
};
use super::dma::{self, ChainStart, DescriptorArea, DmaAddressing, DmaError, Segment};
use super::errors::{
    auto_command_outcome, command_outcome, data_outcome, ErrorKind, Outcome, COMMAND_INTERRUPTS,
    DATA_INTERRUPTS,
};
use super::regs::{
    BusWidth, InterruptSet, MsdcBase, EMMC50_CFG0, EMMC50_CFG2, EMMC_IOCON, MSDC_CFG, MSDC_DMA_CFG,
    MSDC_DMA_CTRL, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_IOCON, MSDC_PATCH_BIT0, MSDC_PATCH_BIT1,
    MSDC_PATCH_BIT2, MSDC_PS, SDC_ACMD_RESP, SDC_ADV_CFG0, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD,
    SDC_FIFO_CFG, SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS,
};
use super::timeout::{self, TimeoutRequest, INITIAL_DATA_TIMEOUT_COUNT, INITIAL_TIMEOUT_CLOCKS};
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
const REQUEST_EVENTS: InterruptSet = COMMAND_INTERRUPTS
    .union(DATA_INTERRUPTS)
    .union(InterruptSet::MMCIRQ)
    .union(InterruptSet::DMAQ_EMPTY)
    .union(InterruptSet::DXFER_DONE)
    .union(InterruptSet::ACMD19_DONE);

/// Events a controller reset clears: all but the card-detect and SDIO events, which wait
/// for [`Controller::card_detect_event`] and [`Controller::sdio_irq_event`].
const RESET_CLEARS: InterruptSet = InterruptSet::ALL
    .difference(InterruptSet::CDSC)
    .difference(InterruptSet::SDIOIRQ)
    .difference(InterruptSet::CSTA);

/// Per-SoC configuration the engine needs (a subset of the glue's SoC data).
#[derive(Clone, Copy, Debug)]
pub struct HostConfig {
    /// Width of the `MSDC_CFG` clock divider.
    pub divider: DividerWidth,
    /// DMA address width: 36-bit when the SoC supports_64g.
    pub addressing: DmaAddressing,
    /// Rate of the "source" clock feeding the divider, in hertz.
    pub source_hz: u32,
    /// The engine may fold a request's SET_BLOCK_COUNT into auto-CMD23 (eMMC cards; see
    /// [`Controller::set_auto_cmd23`] to change it once the card type is known).
    pub auto_cmd23: bool,
    /// The SoC has the async FIFO: response wait and async CRC status path in `PATCH_BIT2`.
    pub async_fifo: bool,
    /// The SoC has the enhanced receive path (programmed with the async FIFO only).
    pub enhance_rx: bool,
    /// The SoC tunes data lines separately. It selects pad-tune delay lines, which live in
    /// the "top" region or depend on the device tree's tuning step: the tuning code owns
    /// them, and the engine only keeps the flag.
    pub data_tune: bool,
    /// The controller checks R1b busy by itself; without it `BUSY_CHECK_SEL` is set.
    pub busy_check: bool,
    /// The stop-clock fix: `PATCH_BIT1.STOP_DLY` and the `SDC_FIFO_CFG` valid selects.
    pub stop_clk_fix: bool,
}

/// Per-SoC patch values beyond [`HostConfig`]'s flags, with defaults that fit every SoC
/// without a "top" register region up to Linux 7.3 (set them with
/// [`Controller::with_patch_details`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchDetails {
    /// `PATCH_BIT1.STOP_DLY` with the stop-clock fix (`stop_dly_sel`: 3, MT8196: 1).
    pub stop_delay_select: u8,
    /// `PATCH_BIT2.POP_EN_CNT` with the stop-clock fix; 0 keeps the hardware default
    /// (`pop_en_cnt`: MT8189 8, MT8196 2).
    pub pop_enable_count: u8,
    /// The SoC has the "top" register region (`needs_top_base`). The enhanced receive path
    /// is then enabled in `EMMC_TOP_CONTROL`, outside [`MsdcBase`]: the glue sets
    /// `SDC_RX_ENH_EN` there, and the engine leaves `SDC_ADV_CFG0` alone.
    pub has_top_region: bool,
}

impl PatchDetails {
    /// The values of the SoCs without a top region: stop delay 3, default pop count.
    pub const DEFAULT: Self = Self {
        stop_delay_select: 3,
        pop_enable_count: 0,
        has_top_region: false,
    };
}

impl Default for PatchDetails {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One command of a request, as `struct mmc_command` describes it.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    /// Command index.
    pub opcode: u32,
    /// Argument.
    pub arg: u32,
    /// `mmc_command.flags`: `MMC_RSP_*` and `MMC_CMD_*` bits; only the response bits matter.
    pub flags: u32,
}

/// The data phase of a request, as `struct mmc_data` describes it.
#[derive(Clone, Copy, Debug)]
pub struct DataSpec {
    /// Bytes per block.
    pub block_size: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// `MMC_DATA_WRITE`: data goes to the card.
    pub write: bool,
    /// Data timeout in nanoseconds.
    pub timeout_ns: u32,
    /// Data timeout in card clock cycles, added to `timeout_ns`.
    pub timeout_clks: u32,
}

/// A request, as `struct mmc_request` describes it.
#[derive(Clone, Copy, Debug)]
pub struct RequestSpec {
    /// SET_BLOCK_COUNT (CMD23) to precede the command.
    pub sbc: Option<CommandSpec>,
    /// The command.
    pub cmd: CommandSpec,
    /// The data phase of the command.
    pub data: Option<DataSpec>,
    /// The stop command (CMD12) the core wants after a multiple block transfer.
    pub stop: Option<CommandSpec>,
}

/// The outcome of one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandResult {
    /// The response in `mmc_command.resp` order; zero for a command without response.
    pub response: [u32; 4],
    /// What went wrong, if anything.
    pub error: Option<ErrorKind>,
}

impl CommandResult {
    /// No response read, no error: a command that has not run (the core's initial state).
    pub const NOT_RUN: Self = Self {
        response: [0; 4],
        error: None,
    };
}

/// The outcome of the data phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataResult {
    /// Bytes transferred: `blocks * block_size` on success, 0 on error.
    pub bytes_xfered: u32,
    /// What went wrong, if anything.
    pub error: Option<ErrorKind>,
}

/// The outcome of a request, phase by phase. A phase that did not run is `None` (for the
/// command: [`CommandResult::NOT_RUN`]), so the core's initial values stand for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestResult {
    /// The set-block-count command, sent by software or as auto-CMD23.
    pub sbc: Option<CommandResult>,
    /// The command.
    pub cmd: CommandResult,
    /// The data phase.
    pub data: Option<DataResult>,
    /// The stop command.
    pub stop: Option<CommandResult>,
}

impl RequestResult {
    const NOT_RUN: Self = Self {
        sbc: None,
        cmd: CommandResult::NOT_RUN,
        data: None,
        stop: None,
    };

    /// The first error of the request, in phase order.
    pub fn first_error(&self) -> Option<ErrorKind> {
        self.sbc
            .and_then(|sbc| sbc.error)
            .or(self.cmd.error)
            .or(self.data.and_then(|data| data.error))
            .or(self.stop.and_then(|stop| stop.error))
    }
}

/// What [`Controller::handle_interrupt`] did with the request in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The request goes on (or there is none): wait for the next interrupt.
    Pending,
    /// The request finished: complete it with this result.
    Done(RequestResult),
}

/// A bounded poll that did not finish, a clock that cannot be produced, or per-SoC data that
/// does not fit the registers.
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
    /// A [`PatchDetails`] value does not fit its register field; the initialisation stopped
    /// after `MSDC_PATCH_BIT0`.
    PatchOutOfRange(FieldOverflow),
}

/// Why [`Controller::start`] did not start a request; nothing was sent to the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// A request is already in flight.
    Busy,
    /// A command of the request cannot be encoded (`-EINVAL`).
    Command(CommandError),
    /// The descriptor chain cannot be written (`-EINVAL`, or `-ENOMEM` for too many segments).
    Dma(DmaError),
    /// The request has data but no descriptor chain was passed (`-EINVAL`).
    MissingDmaChain,
    /// A descriptor chain was passed for a request without data (`-EINVAL`).
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

/// The descriptor memory and the mapped scatterlist of a request with data.
pub struct DmaChain<'a, I: IntoIterator<Item = Segment>> {
    /// Coherent memory of [`dma::area_len`]`(`[`dma::MAX_SEGMENTS`]`)` bytes (fewer limit
    /// the segment count).
    pub area: &'a mut [u8],
    /// Bus address of `area`.
    pub area_bus: u64,
    /// The mapped scatterlist, in order.
    pub segments: I,
}

/// The type of a request without data's `dma` argument: `None::<NoDmaChain<'_>>`.
pub type NoDmaChain<'a> = DmaChain<'a, core::iter::Empty<Segment>>;

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
        spec: &CommandSpec,
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
    data: Option<DataSpec>,
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

    /// Records `error` as the outcome of `phase`, which did not get a response.
    fn fail(&mut self, phase: Phase, error: ErrorKind) {
        let failed = Some(CommandResult {
            response: [0; 4],
            error: Some(error),
        });
        match phase {
            Phase::SetBlockCount => self.result.sbc = failed,
            Phase::Command => {
                self.result.cmd = CommandResult {
                    response: [0; 4],
                    error: Some(error),
                }
            }
            Phase::Data => {
                self.result.data = Some(DataResult {
                    bytes_xfered: 0,
                    error: Some(error),
                })
            }
            Phase::Stop => self.result.stop = failed,
        }
    }
}

/// What handling an event did to the request.
enum Step {
    Continue(InFlight),
    Finished(RequestResult),
}

/// The legacy request engine of one MSDC controller.
#[derive(Debug)]
pub struct Controller {
    config: HostConfig,
    details: PatchDetails,
    clock: ClockPlan,
    data_timeout: TimeoutRequest,
    /// Interrupts enabled outside any request: card detect and SDIO.
    standing_interrupts: InterruptSet,
    internal_card_detect: bool,
    sdio_mode: bool,
    signal_voltage: SignalVoltage,
    reset_pending: bool,
    hardware_fault: Option<HwError>,
    request: Option<InFlight>,
}

impl Controller {
    /// An engine for a controller with `config`, before [`Controller::init_hardware`].
    pub const fn new(config: HostConfig) -> Self {
        Self {
            config,
            details: PatchDetails::DEFAULT,
            clock: ClockPlan::Gated,
            data_timeout: TimeoutRequest {
                ns: 0,
                clocks: INITIAL_TIMEOUT_CLOCKS,
            },
            standing_interrupts: InterruptSet::empty(),
            internal_card_detect: false,
            sdio_mode: false,
            signal_voltage: SignalVoltage::V330,
            reset_pending: false,
            hardware_fault: None,
            request: None,
        }
    }

    /// The same engine with per-SoC patch values other than [`PatchDetails::DEFAULT`].
    pub const fn with_patch_details(mut self, details: PatchDetails) -> Self {
        self.details = details;
        self
    }

    /// The configuration the engine was built with.
    pub const fn config(&self) -> &HostConfig {
        &self.config
    }

    /// Allows or forbids auto-CMD23, e.g. once the card turns out to be an eMMC (upstream
    /// uses it for eMMC only).
    pub fn set_auto_cmd23(&mut self, allowed: bool) {
        self.config.auto_cmd23 = allowed;
    }

    /// Whether no request is in flight.
    pub const fn is_idle(&self) -> bool {
        self.request.is_none()
    }

    /// The card clock now running (`mmc->actual_clock`); 0 while gated.
    pub const fn bus_clock_hz(&self) -> u32 {
        self.clock.bus_hz()
    }

    /// The last signalling voltage accepted by [`Controller::start_voltage_switch`].
    pub const fn signal_voltage(&self) -> SignalVoltage {
        self.signal_voltage
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
    /// The internal card detect and SDIO mode are programmed as last set (both off until
    /// [`Controller::set_internal_card_detect`] and [`Controller::set_sdio_mode`]); the
    /// SDIO interrupt is off, as upstream leaves it. A request in flight is abandoned without
    /// a result: [`Controller::abort`] it first. The pad-tune delay lines (`MSDC_PAD_TUNE*`,
    /// top region) belong to the tuning code; only `MSDC_IOCON` is cleared here.
    pub fn init_hardware(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        self.request = None;
        self.standing_interrupts = InterruptSet::empty();
        self.clock = ClockPlan::Gated;
        self.data_timeout = TimeoutRequest {
            ns: 0,
            clocks: INITIAL_TIMEOUT_CLOCKS,
        };

        modify_cfg(r, |cfg| {
            cfg.with_mode(true).with_pio(false).with_ckpdn(false)
        });
        self.reset_controller(r)?;
        r.write(MSDC_INTEN::zeroed());
        acknowledge_all(r);

        self.program_card_detect(r, self.internal_card_detect);
        r.write(MSDC_IOCON::zeroed());
        self.program_patch_bits(r)?;
        self.program_sdio_mode(r, self.sdio_mode);
        r.update::<SDC_CFG>(|cfg| cfg.with_const_dtoc::<INITIAL_DATA_TIMEOUT_COUNT>());
        r.update::<MSDC_DMA_CFG>(dma::checksum_checking);
        self.program_identification_clock(r)
    }

    /// Resets the controller and clears its FIFO (`msdc_reset_hw`) and every pending
    /// request event. Card-detect and SDIO events stay pending for their consumers, and
    /// `MSDC_INTEN` is left alone. A request in flight is not completed: see
    /// [`Controller::abort`].
    pub fn reset(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        self.reset_controller(r)
    }

    /// Sets the card clock to at most `hz` for `timing` (`msdc_set_mclk`), or gates it for
    /// 0, and returns the rate now running (`mmc->actual_clock`). Waits, bounded, for
    /// `CKSTB`, and reprograms the data timeout for the new clock.
    pub fn set_clock(
        &mut self,
        r: &impl Io<MsdcBase>,
        hz: u32,
        timing: Timing,
    ) -> Result<u32, HwError> {
        let plan = clock::plan(self.config.source_hz, hz, timing, self.config.divider)
            .map_err(HwError::UnreachableClock)?;
        let ClockPlan::Running(setting) = plan else {
            modify_cfg(r, |cfg| cfg.with_ckpdn(false));
            self.clock = ClockPlan::Gated;
            return Ok(0);
        };
        let enabled = r.read::<MSDC_INTEN>();
        r.write(MSDC_INTEN::zeroed());
        let stable = self.program_divider(r, setting);
        if stable.is_ok() {
            modify_cfg(r, |cfg| cfg.with_ckpdn(true));
            self.clock = plan;
            self.program_data_timeout(r, self.data_timeout);
        } else {
            // The divider changed but the clock never settled: nothing is known to run.
            self.clock = ClockPlan::Gated;
        }
        r.write(enabled);
        stable.map(|()| plan.bus_hz())
    }

    /// Sets the data bus width to 1, 4 or 8 lines; any other value selects one line.
    pub fn set_bus_width(&mut self, r: &impl Io<MsdcBase>, lines: u8) {
        let width = match lines {
            4 => BusWidth::Four,
            8 => BusWidth::Eight,
            _ => BusWidth::One,
        };
        r.update::<SDC_CFG>(|cfg| cfg.with_buswidth(width));
    }

    /// Starts `req`. A request with data needs `dma`: the chain is written into its area
    /// with checksums, and the DMA is started once the command has its response.
    ///
    /// Everything that can be checked in advance is checked before anything is sent, so an
    /// error means the card saw nothing of the request. On success the request completes
    /// through [`Controller::handle_interrupt`] or [`Controller::abort`].
    pub fn start<I: IntoIterator<Item = Segment>>(
        &mut self,
        r: &impl Io<MsdcBase>,
        req: &RequestSpec,
        dma: Option<DmaChain<'_, I>>,
    ) -> Result<(), StartError> {
        if self.request.is_some() {
            return Err(StartError::Busy);
        }
        if self.reset_pending {
            self.reset_controller(r).map_err(StartError::Hardware)?;
        }
        let mut flight = self.plan(req)?;
        flight.chain = match (req.data, dma) {
            (Some(data), Some(dma)) => Some(self.write_chain(data, dma)?),
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
            Step::Continue(flight) => {
                self.request = Some(flight);
                Ok(())
            }
            Step::Finished(_) => Err(StartError::BusBusy),
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
    pub fn handle_interrupt(&mut self, r: &impl Io<MsdcBase>) -> Progress {
        for _ in 0..MAX_EVENT_BATCHES {
            let Some(flight) = self.request.take() else {
                return Progress::Pending;
            };
            let enabled = InterruptSet::pending_enabled(r.read(), r.read());
            let events = enabled & flight.phase.interrupts();
            if events.is_empty() {
                self.request = Some(flight);
                return Progress::Pending;
            }
            r.write(events.as_acknowledge());
            match self.advance(r, flight, events) {
                Step::Continue(flight) => self.request = Some(flight),
                Step::Finished(result) => return Progress::Done(result),
            }
        }
        Progress::Pending
    }

    /// Ends the request in flight after the glue's request timer expired: stops the DMA,
    /// masks the request interrupts, resets the controller (bounded) and returns the request
    /// with [`ErrorKind::TimedOut`] on the phase that was running. `None` when idle.
    ///
    /// No stop command is sent; the block layer's recovery stops the card if needed.
    pub fn abort(&mut self, r: &impl Io<MsdcBase>) -> Option<RequestResult> {
        let mut flight = self.request.take()?;
        self.enable_phase_interrupts(r, None);
        if flight.phase == Phase::Data {
            self.stop_dma(r);
        }
        flight.fail(flight.phase, ErrorKind::TimedOut);
        self.recover(r);
        Some(flight.result)
    }

    /// Whether a card is in the slot, from the internal card-detect pin (`MSDC_PS.CDSTS`).
    ///
    /// The pin is active low, as upstream reads it; for `MMC_CAP2_CD_ACTIVE_HIGH` the glue
    /// inverts the result. Meaningful only with the internal card detect enabled.
    pub fn card_present(&self, r: &impl Io<MsdcBase>) -> bool {
        !r.read::<MSDC_PS>().cdsts()
    }

    /// Enables or disables the internal card detect: `MSDC_PS.CDEN` with upstream's
    /// debounce, the `CDSC` interrupt and wake-up on insertion (`SDC_CFG.INSWKUP`).
    pub fn set_internal_card_detect(&mut self, r: &impl Io<MsdcBase>, enable: bool) {
        self.internal_card_detect = enable;
        self.program_card_detect(r, enable);
    }

    /// Whether the card holds DAT0 low (busy), `msdc_card_busy`.
    pub fn card_busy(&self, r: &impl Io<MsdcBase>) -> bool {
        !r.read::<MSDC_PS>().dat0()
    }

    /// Pulses the eMMC `RST_n` line (`EMMC_IOCON.BOOTRST`) for a card hardware reset: low
    /// for 10 µs, well above JESD84-B51's 1 µs minimum (tRSTW). The card then needs 200 µs
    /// (tRSCA) before its first command; the glue sleeps that out of its lock.
    ///
    /// `delay_us` busy-waits the pulse time (`udelay` in the kernel): [`Io`] has no wait of
    /// its own outside a poll.
    pub fn pulse_card_reset(&mut self, r: &impl Io<MsdcBase>, delay_us: impl FnOnce(u32)) {
        r.update::<EMMC_IOCON>(|v| v.with_bootrst(true));
        delay_us(CARD_RESET_PULSE_US);
        r.update::<EMMC_IOCON>(|v| v.with_bootrst(false));
    }

    /// Consumes a pending, enabled card-detect change (`CDSC`); true if there was one, and
    /// the glue then schedules card detection (`mmc_detect_change`, 20 ms).
    pub fn card_detect_event(&mut self, r: &impl Io<MsdcBase>) -> bool {
        self.consume_standing_event(r, InterruptSet::CDSC)
    }

    /// Selects SDIO mode (`SDC_CFG.SDIO` and DAT1 interrupt detection, for slots without
    /// `MMC_CAP2_NO_SDIO`) or plain memory-card mode, which also disables the SDIO interrupt.
    pub fn set_sdio_mode(&mut self, r: &impl Io<MsdcBase>, sdio: bool) {
        self.sdio_mode = sdio;
        self.program_sdio_mode(r, sdio);
    }

    /// Enables or disables the SDIO card interrupt (`MSDC_INTEN.SDIOIRQ` and
    /// `SDC_CFG.SDIOIDE`), for `enable_sdio_irq` and `ack_sdio_irq`.
    pub fn enable_sdio_irq(&mut self, r: &impl Io<MsdcBase>, enable: bool) {
        if enable {
            self.standing_interrupts |= InterruptSet::SDIOIRQ;
        } else {
            self.standing_interrupts = self.standing_interrupts - InterruptSet::SDIOIRQ;
        }
        r.update::<MSDC_INTEN>(|inten| inten.with_sdioirq(enable));
        r.update::<SDC_CFG>(|cfg| cfg.with_sdioide(enable));
    }

    /// Consumes a pending, enabled SDIO card interrupt; true if there was one. The SDIO
    /// interrupt is then disabled, as upstream does, until the core acknowledges it with
    /// [`Controller::enable_sdio_irq`]`(true)`; the glue calls `sdio_signal_irq`.
    pub fn sdio_irq_event(&mut self, r: &impl Io<MsdcBase>) -> bool {
        if !self.consume_standing_event(r, InterruptSet::SDIOIRQ) {
            return false;
        }
        self.enable_sdio_irq(r, false);
        true
    }

    /// Looks for an SDIO interrupt the controller lost (`msdc_recheck_sdio_irq`, for SoCs
    /// with `recheck_sdio_irq`): the SDIO interrupt is enabled, DAT1 is low, but no event
    /// was latched. Then it disables the SDIO interrupt, as [`Controller::sdio_irq_event`]
    /// does, and returns true for the glue to signal it.
    pub fn recheck_sdio_irq(&mut self, r: &impl Io<MsdcBase>) -> bool {
        if !self.standing_interrupts.contains(InterruptSet::SDIOIRQ) {
            return false;
        }
        let latched = r.read::<MSDC_INT>().sdioirq();
        let dat1_high = r.read::<MSDC_PS>().data1();
        if latched || dat1_high {
            return false;
        }
        self.enable_sdio_irq(r, false);
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

    /// Validates `req` and builds its command words.
    fn plan(&self, req: &RequestSpec) -> Result<InFlight, StartError> {
        let transfer = req.data.map(|data| {
            let direction = if data.write {
                DataDirection::Write
            } else {
                DataDirection::Read
            };
            DataTransfer::blocks(direction, data.block_size, data.blocks)
        });
        let auto_sbc = match plan_set_block_count(
            req.cmd.opcode,
            self.config.auto_cmd23,
            req.sbc.map(|sbc| sbc.arg),
        ) {
            SetBlockCountPlan::Hardware => match (req.sbc, req.data) {
                // Auto-CMD23 sends `SDC_BLK_NUM`, so the argument must be that count.
                (Some(sbc), Some(data)) => data.blocks > 1 && sbc.arg == data.blocks,
                _ => false,
            },
            SetBlockCountPlan::None | SetBlockCountPlan::Software => false,
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

    fn write_chain<I: IntoIterator<Item = Segment>>(
        &self,
        data: DataSpec,
        dma: DmaChain<'_, I>,
    ) -> Result<ChainStart, StartError> {
        let mut area = DescriptorArea::new(dma.area, dma.area_bus, self.config.addressing)?;
        let start = area.write_chain(dma.segments)?;
        let expected = u64::from(data.blocks) * u64::from(data.block_size);
        if start.total_len != expected {
            return Err(StartError::LengthMismatch {
                expected,
                described: start.total_len,
            });
        }
        Ok(start)
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
    fn advance(&mut self, r: &impl Io<MsdcBase>, flight: InFlight, events: InterruptSet) -> Step {
        match flight.phase {
            Phase::SetBlockCount => self.on_set_block_count(r, flight, events),
            Phase::Command => self.on_command(r, flight, events),
            Phase::Data => self.on_data(r, flight, events),
            Phase::Stop => self.on_stop(r, flight, events),
        }
    }

    fn on_set_block_count(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let Some(sbc) = flight.software_sbc else {
            return Step::Finished(flight.result);
        };
        let Some(outcome) = command_outcome(events, sbc.response) else {
            return Step::Continue(flight);
        };
        flight.result.sbc = Some(read_response(r, sbc.response, outcome));
        if outcome.is_err() {
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        self.issue(r, flight, Phase::Command)
    }

    fn on_command(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        if flight.auto_sbc && flight.result.sbc.is_none() {
            if let Some(outcome) = auto_command_outcome(events) {
                flight.result.sbc = Some(auto_command_result(r, outcome));
                if outcome.is_err() {
                    // The controller does not send the command after a failed CMD23.
                    self.end_with_error(r);
                    return Step::Finished(flight.result);
                }
            }
        }
        let command = flight.command;
        let Some(outcome) = command_outcome(events, command.response) else {
            return Step::Continue(flight);
        };
        if flight.auto_sbc && flight.result.sbc.is_none() {
            // The card took the command, so it took the CMD23 before it.
            flight.result.sbc = Some(auto_command_result(r, Ok(())));
        }
        flight.result.cmd = read_response(r, command.response, outcome);
        if outcome.is_err() {
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        match flight.chain {
            Some(chain) => {
                self.start_dma(r, chain);
                flight.phase = Phase::Data;
                Step::Continue(flight)
            }
            None => {
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

    fn on_stop(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let Some(stop) = flight.stop else {
            return Step::Finished(flight.result);
        };
        let Some(outcome) = command_outcome(events, stop.response) else {
            return Step::Continue(flight);
        };
        flight.result.stop = Some(read_response(r, stop.response, outcome));
        if outcome.is_err() {
            self.end_with_error(r);
        } else {
            self.enable_phase_interrupts(r, None);
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
        r.write(writable_cfg(r.read()).with_rst(true));
        r.poll::<MSDC_CFG>(|cfg| !cfg.rst(), POLL)
            .map_err(|_| HwError::ResetTimeout)?;
        r.update::<MSDC_FIFOCS>(|fifo| fifo.with_clr(true));
        r.poll::<MSDC_FIFOCS>(|fifo| !fifo.clr(), POLL)
            .map_err(|_| HwError::FifoClearTimeout)?;
        r.write(RESET_CLEARS.as_acknowledge());
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
        let ctrl = dma_ctrl_settings(r.read());
        r.write(ctrl.with_stop(true));
        let stopped = r.poll::<MSDC_DMA_CTRL>(|ctrl| !ctrl.stop(), POLL).is_ok()
            && r.poll::<MSDC_DMA_CFG>(|cfg| !cfg.sts(), POLL).is_ok();
        if !stopped {
            self.hardware_fault = Some(HwError::DmaStopTimeout);
            self.recover(r);
        }
    }

    /// Writes `MSDC_INTEN`: the interrupts of `phase` plus card detect and SDIO if enabled.
    fn enable_phase_interrupts(&self, r: &impl Io<MsdcBase>, phase: Option<Phase>) {
        let phase_interrupts = phase.map_or(InterruptSet::empty(), Phase::interrupts);
        r.write((phase_interrupts | self.standing_interrupts).as_enable());
    }

    fn consume_standing_event(&mut self, r: &impl Io<MsdcBase>, event: InterruptSet) -> bool {
        let pending = InterruptSet::pending_enabled(r.read(), r.read());
        if !pending.contains(event) {
            return false;
        }
        r.write(event.as_acknowledge());
        true
    }

    fn program_data_timeout(&self, r: &impl Io<MsdcBase>, request: TimeoutRequest) {
        let clock = self.clock.timeout_clock();
        r.update::<SDC_CFG>(|cfg| timeout::with_data_timeout(cfg, clock, request));
    }

    /// Writes a clock setting with the clock gated and waits for `CKSTB`.
    fn program_divider(
        &self,
        r: &impl Io<MsdcBase>,
        setting: clock::ClockSetting,
    ) -> Result<(), HwError> {
        let width = self.config.divider;
        let gated = writable_cfg(r.read()).with_ckpdn(false);
        // A divider the field cannot hold asks for less than the slowest clock; `plan`
        // never returns one for this width.
        let cfg = setting.apply(gated, width).map_err(|_| {
            HwError::UnreachableClock(ClockError::BelowMinimum {
                minimum_hz: width.minimum_clock_hz(self.config.source_hz),
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
        let source = self.config.source_hz;
        let width = self.config.divider;
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

    fn program_card_detect(&mut self, r: &impl Io<MsdcBase>, enable: bool) {
        r.update::<MSDC_PS>(|ps| {
            let ps = if enable {
                ps.with_const_cddebounce::<CARD_DETECT_DEBOUNCE>()
            } else {
                ps
            };
            ps.with_cden(enable)
        });
        r.update::<SDC_CFG>(|cfg| cfg.with_inswkup(enable));
        if enable {
            self.standing_interrupts |= InterruptSet::CDSC;
        } else {
            self.standing_interrupts = self.standing_interrupts - InterruptSet::CDSC;
        }
        r.update::<MSDC_INTEN>(|inten| inten.with_cdsc(enable));
    }

    fn program_sdio_mode(&mut self, r: &impl Io<MsdcBase>, sdio: bool) {
        if !sdio {
            self.enable_sdio_irq(r, false);
        }
        r.update::<SDC_CFG>(|cfg| cfg.with_sdio(sdio).with_sdioide(false));
        r.update::<SDC_ADV_CFG0>(|adv| adv.with_dat1_irq_trigger(sdio));
    }

    /// The patch bits of `msdc_init_hw` (Linux 7.x), by SoC quirk. A [`PatchDetails`] value
    /// wider than its field stops the initialisation after `MSDC_PATCH_BIT0`.
    fn program_patch_bits(&self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        let config = &self.config;
        let details = &self.details;

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
            .with_busy_check_sel(!config.busy_check)
            .with_const_wrdat_crc_tacntr::<1>()
            .with_const_cmdta::<1>();

        let mut patch2 = r.read::<MSDC_PATCH_BIT2>();
        if config.stop_clk_fix {
            if details.stop_delay_select != 0 {
                patch1 = patch1
                    .try_with_stop_dly(u32::from(details.stop_delay_select))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            if details.pop_enable_count != 0 {
                patch2 = patch2
                    .try_with_pop_en_cnt(u32::from(details.pop_enable_count))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            r.update::<SDC_FIFO_CFG>(|fifo| fifo.with_wrvalidsel(false).with_rdvalidsel(false));
        }
        if config.async_fifo {
            patch2 = patch2
                .with_const_respwait::<ASYNC_FIFO_RESPONSE_WAIT>()
                .with_cfgresp(false)
                .with_cfgcrcsts(true);
            if !config.enhance_rx {
                patch2 = patch2
                    .with_const_respstsensel::<ASYNC_FIFO_STATUS_DELAY>()
                    .with_const_crcstsensel::<ASYNC_FIFO_STATUS_DELAY>();
            } else if !details.has_top_region {
                r.update::<SDC_ADV_CFG0>(|adv| adv.with_rx_enhance_en(true));
            }
        }
        patch2 = patch2.with_support_64g(config.addressing == DmaAddressing::Bits36);
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

/// W1C of every pending event.
fn acknowledge_all(r: &impl Io<MsdcBase>) {
    let pending = r.read::<MSDC_INT>();
    r.write(pending);
}
