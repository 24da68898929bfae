// SPDX-License-Identifier: GPL-2.0
//! The MSDC controller model: a register file (`read`/`write` by offset, decoded with the
//! model's own register types of `regs`) and a `step` that runs the pending command, and the
//! GPD/BD descriptor DMA, against an attached card. As a [`RegisterFile`] serving the base
//! window it goes on a [`Bus`](super::super::bus::Bus), which is then an `Io<MsdcBase>`.
//!
//! Modelled behaviour (MSDC register map; mtk-sd.c shows how software sees it):
//!
//! * `MSDC_CFG.RST` and `MSDC_FIFOCS.CLR` read back set for [`RESET_POLLS`] reads, then
//!   clear. A reset abandons the command and data phase and stops the DMA; `MSDC_INT` is
//!   left alone (software clears it).
//! * `MSDC_CFG.CKSTB` drops when the clock mode/divider fields change and comes back
//!   [`CLOCK_SETTLE_NS`] later on the model clock, however often software reads it
//!   meanwhile.
//! * `MSDC_INT` is write-1-to-clear and latches events whatever `MSDC_INTEN` says;
//!   [`MsdcModel::interrupt_pending`] is `INT & INTEN != 0`.
//! * Writing `SDC_CMD` starts a command (`SDC_STS.CMDBUSY`, and `SDCBUSY` for data or
//!   R1b commands, until [`MsdcModel::step`] completes it). The response type in the word
//!   decides what the controller expects: a card that answers nothing is a CMDTMO, an R3
//!   (no CRC) received as R1 is a RSPCRCERR, a short response expected as R2 is a CMDTMO.
//! * The data phase runs when `MSDC_DMA_CTRL.START` has been written: one GPD at
//!   `DMA_SA` (bits 35:32 from `DMA_SA_H4BIT` with 36-bit support), HWO and BDP required,
//!   then the BD chain to EOL; checksums (16 bytes sum to 0xFF) are checked with
//!   `DMA_CFG.DECSEN`. A bad GPD raises DMA_GPDCSERR, a bad BD DMA_BDCSERR. When the
//!   chain has been walked the engine writes the GPD's info word back with HWO clear
//!   (upstream re-sets HWO and the checksum for every request); a GPD reused without
//!   re-arming is a violation ([`Violation::GpdNotOwned`]).
//! * Auto-CMD23 (argument = `SDC_BLK_NUM`) before the command, auto-CMD12 after the data;
//!   either response lands in `SDC_ACMD_RESP` with ACMDRDY (ACMDTMO if unanswered).
//! * A data bus width in `SDC_CFG` that differs from the card's gives DATCRCERR, and so
//!   does a bus clock ([`MsdcModel::bus_clock_hz`]) above the card's limit for its mode
//!   (also a [`Violation`]; for commands only the violation is recorded).
//! * A command programmed without a response (RSPTYP 0) completes with CMDRDY once sent,
//!   whether or not the card would have answered. A card's R1b received as R1 is accepted:
//!   the MMC core asks for R1 on CMD7 (where the SD card signals R1b) and when a busy time
//!   exceeds the host's `max_busy_timeout`, and then polls CMD13. The card's busy time is
//!   charged to the command either way, so the card is never seen busy afterwards.
//! * A write's programming busy on DAT0 after the transfer ([`Fault::ProgramBusy`],
//!   [`Latency::busy_on_dat0`], and [`Fault::BusyStuck`]): XFER_COMPL comes at the end of
//!   the data phase, then `SDC_STS.SDCBUSY` reads set and `MSDC_PS` DAT0 low until the
//!   model clock reaches the busy's end (read at the present time, no step needed; a
//!   driver's busy-wait between polls is model time); meanwhile the card answers CMD13 in
//!   the programming state, takes CMD0 and CMD12 and leaves every other command
//!   unanswered. From mtk-sd.c's busy checks, with what is assumed (`models/README.md`,
//!   "Write busy after the transfer").
//! * Time: every command and data phase adds what it would take on hardware to a counter
//!   that [`MsdcModel::take_elapsed_ns`] reads and clears: the frames at the bus clock and
//!   width programmed in `MSDC_CFG`/`SDC_CFG` and the card's internal times, with the
//!   parameters of [`ModelConfig::latency`] (see the `latency` module). The same charges
//!   advance the model clock ([`MsdcModel::now_ns`]), which also takes the time the caller
//!   reports passing outside the model ([`MsdcModel::elapse`]). With a timed queue
//!   ([`Latency::queue_units`] ≥ 1) the card's queued tasks become ready on that clock
//!   (`latency::TaskTimer`): a queue status poll shows only the tasks whose access is done,
//!   a poll that would find none ready is preceded by the polls and idle-timer waits that
//!   pass until the earliest is, and CMD46/47 charge the bus (and any access left).
//! * Power and clocks, which the board controls (no register does): when the SoC power
//!   domain goes off ([`MsdcModel::power_off`]) every register of the controller and of
//!   its CQHCI block returns to its reset value, work in progress is dropped
//!   ([`Violation::PowerOffWhileBusy`] if there was any) and pending interrupts vanish;
//!   that is why upstream's `msdc_runtime_suspend` saves, and `msdc_runtime_resume`
//!   restores, the configuration and tuning registers (`MSDC_CFG`, `IOCON`, `SDC_CFG`,
//!   `PATCH_BIT0/1/2`, `PAD_DS_TUNE`, `PAD_CMD_TUNE`, `EMMC50_CFG0/3`, `SDC_FIFO_CFG`, the
//!   pad tune or top registers). While the power is off any register access, base window
//!   or CQHCI block, is [`Violation::UnpoweredAccess`]; with the register clock gated
//!   ([`ModelClock::Register`], `hclk`), where a MediaTek SoC's bus access hangs or returns
//!   garbage, it is [`Violation::GatedAccess`]. Either way a read returns 0 and a write is
//!   lost. With the source clock gated ([`ModelClock::Source`]) the card clock stops:
//!   [`MsdcModel::step`] makes no progress and takes no time, [`MsdcModel::bus_clock_hz`]
//!   is 0 and `MSDC_CFG.CKSTB` reads 0; once it runs again `CKSTB` comes back
//!   [`CLOCK_SETTLE_NS`] later, as after a divider change (upstream's
//!   `msdc_ungate_clock` polls it for up to 20 ms). Gating the source clock with work in
//!   progress is [`Violation::ClockGatedWhileBusy`]. A new model is powered with both
//!   clocks running; the card's supply (vmmc) is separate, so the card model is not
//!   affected.
//!
//! * Sampling (tuning): above [`RELAXED_CLOCK_HZ`] (52 MHz) the host reads a line right
//!   only at the delays and edges the board's [`SampleWindows`] ([`ModelConfig::sampling`])
//!   allow; at or below it (legacy, high speed, DDR52) every delay and edge works. The
//!   delay is the sum of the enabled cascaded cells, 0..62: with the top window
//!   ([`ModelConfig::top_region`]) `EMMC_TOP_CMD` `PAD_CMD_RXDLY` (with `_SEL`) +
//!   `PAD_CMD_RXDLY2` (with `RXDLY2_SEL`) for the response and `EMMC_TOP_CONTROL`
//!   `PAD_DAT_RD_RXDLY` + `PAD_DAT_RD_RXDLY2` likewise for the data; without it the pad tune
//!   register ([`ModelConfig::pad_tune`], 0xEC or 0xF0) `CMDRDLY`/`CMD_SEL` and
//!   `DATRRDLY`/`RD_SEL` plus the register after it `CMDRDLY2`/`CMD2_SEL` and
//!   `DATRRDLY2`/`RD2_SEL`. The clock-tuning select of SoCs without `data_tune`
//!   (`RXDLYSEL`, top `PAD_RXDLY_SEL`) enables both first cells. Edges: the response by
//!   `MSDC_IOCON.RSPL`; read data by `DSPL` and the write CRC status by `W_DSPL`, or with
//!   [`ModelConfig::new_rx`] by `PATCH_BIT.RD_DAT_SEL` and `PATCH_BIT2.CFGCRCSTSEDGE`.
//!   In HS400 (`CKMOD` 3) the response goes by the cmd window (by the strobe once
//!   `EMMC50_CFG0.CMD_RESP_SEL` makes the data strobe latch it, enhanced strobe), while
//!   read data and the write CRC status, which the card sends with the data strobe
//!   (JESD84-B51), go by [`SampleWindows::strobe`] at `DLY1` of `PAD_DS_TUNE` (or the top
//!   window's `EMMC50_PAD_DS_TUNE`) while `DLY_SEL` is set, setting 0 while it is clear.
//!   A response misread is RSPCRCERR (ACMDCRCERR for an automatic command): the card did
//!   run the command, and the block of a single-block read (CMD17, CMD19, CMD21) still
//!   goes out on the bus, so the card ends in the state it would have ended in anyway;
//!   misread read data is DATCRCERR (the DMA has written the block); a misread CRC status
//!   is DATCRCERR after the card took and stored the data. Each is counted by
//!   [`MsdcModel::sampling_errors`], not as a violation: tuning provokes them on purpose.
//!   R3 carries no CRC and is not sampled; the CQHCI block's traffic is not sampled.
//! * The card side ([`MsdcModel::sync_card`], at the start and end of every
//!   [`MsdcModel::step`]): a rising `EMMC_IOCON.HW_RST` (bit 0, which `msdc_hw_reset`
//!   pulses) resets the card at the next step; the card clock runs while the controller is
//!   powered, its source clock runs and `MSDC_CFG.CKPDN` is set (`msdc_set_mclk` clears
//!   it for a 0 Hz request, as in the SD voltage switch's ≥ 5 ms gap) and the card hears
//!   of each change at the next step; `MSDC_PS` reports DAT3..DAT0 and CMD as the card
//!   drove them at the last step (DAT7..DAT4 high). With `SDC_CFG.SDIO`, `SDC_CFG.SDIOIDE`
//!   and `SDC_ADV_CFG0.DAT1_IRQ_TRIGGER` set, `MSDC_INT.SDIOIRQ` latches (W1C) when the
//!   detector starts seeing the card's SDIO interrupt: on a 1-bit bus at any time, on a
//!   wider one outside a data phase (the interrupt period); an interrupt still asserted
//!   when detection is turned back on is seen again. mtk-sd.c sets `DAT1_IRQ_TRIGGER`
//!   exactly when SDIO is on, and the model takes it as part of the detector's enable.
//!
//! Not modelled, and reported as a [`Violation`] when used: PIO mode, basic (non
//! descriptor) DMA, DMA resume, stream transfers, GPD chains longer than one GPD (the
//! first GPD's `next` must point at mapped memory holding a GPD with HWO clear), a GPD
//! without BDs, registers outside the known set. Timeout counters (DTOC/WRDTOC) are stored
//! but not counted down: a data timeout happens when the card stops supplying or taking
//! data, and a failed data phase is charged only the bus time it used. Not modelled
//! either, silently: the per-line data edges (`IOCON.DDLSEL`, `D0SPL`..`D7SPL`), the
//! internal response delay `CMDRRDLY`, the HS400 command delay of `hs400_tune` SoCs
//! (`PAD_CMD_TUNE`), the strobe's `DLY2`/`DLY3`, the write data and transmit delays, the
//! latch clock selection and `LOOP_TEST_CONTROL` (all stored); commands while the reset
//! line is held; the clock bursts of commands sent with `CKPDN` clear (the card hears only
//! of the free-running clock).

mod bus_clock;
mod card_side;
mod command;
mod cqhci_block;
mod dma;
mod fault;
mod interrupts;
mod power;
mod sampling;
mod stale;
mod time;

pub use self::{
    dma::MAX_BD_CHAIN,
    fault::{Fault, FaultScope, BUSY_STUCK_NS},
    power::ModelClock,
    sampling::{
        Hole, PadTuneLayout, SamplePoint, SamplePoints, SampleWindows, DELAY_CELLS,
        RELAXED_CLOCK_HZ, STROBE_CELLS,
    },
    time::TimeSplit,
};

use self::{card_side::Lines, command::RawCommand, dma::DataPhase, stale::StaleTransfer};
use super::super::{
    bus::{RegisterFile, Serves},
    cqhci::{self, CqhciModel},
    latency::{Latency, TaskTimer},
    memory::BusMemory,
    windows::{CqhciBlock, MsdcBase, MsdcTop},
};
use super::{
    regs::{
        DataType, ResponseType, CQHCI_BASE, CQHCI_LEN, CQHCI_SETTING, DMA_SA_H4BIT, EMMC50_CFG0,
        EMMC50_CFG1, EMMC50_CFG2, EMMC50_CFG3, EMMC50_PAD_DS_TUNE, EMMC51_CFG0, EMMC_IOCON,
        EMMC_TOP_CMD, EMMC_TOP_CONTROL, LOOP_TEST_CONTROL, MSDC_CFG, MSDC_DMA_CFG, MSDC_DMA_CTRL,
        MSDC_DMA_SA, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_IOCON, MSDC_NEW_RX_CFG, MSDC_PAD_TUNE,
        MSDC_PAD_TUNE0, MSDC_PAD_TUNE1, MSDC_PATCH_BIT, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS,
        PAD_CMD_TUNE, PAD_DS_TUNE, SDC_ACMD_RESP, SDC_ADV_CFG0, SDC_ARG, SDC_BLK_NUM, SDC_CFG,
        SDC_CMD, SDC_FIFO_CFG, SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS, TOP_BASE,
        TOP_LEN,
    },
    slot::CardSlot,
};

/// Timing model: reads of `MSDC_CFG` (or `MSDC_FIFOCS`) for which a reset (or FIFO clear)
/// bit stays set after software sets it.
pub const RESET_POLLS: u32 = 1;

/// Timing model: how long after a clock change (mode, divider, HS400 mode, or the source
/// clock ungated) `MSDC_CFG.CKSTB` reads set again, on the model clock. Hardware settles in
/// time, not in reads: a poll that is held up (a preempted or slow CPU) finds the clock
/// stable once the time is up, at its first read after it. MediaTek publishes no figure;
/// upstream's use bounds it. mtk-sd.c (7.3) polls `CKSTB` without delay or time limit in
/// `msdc_set_mclk()` (line 1095), under which the MMC core issues the next command, and
/// for at most 20 ms, 1 µs apart, in `msdc_ungate_clock()` (lines 971-972), where the
/// kernel fails the runtime resume if it is not set: the settling takes microseconds. The
/// model takes 10 µs, a few card clock cycles at the identification clock (400 kHz,
/// 2.5 µs a cycle), far inside both polls.
pub const CLOCK_SETTLE_NS: u64 = 10_000;

/// How many violations are kept (the count goes on).
pub const MAX_VIOLATIONS: usize = 8;

/// Registers that are plain storage (tuning, eMMC 5.x and pad configuration).
const PLAIN_REGISTERS: [usize; 19] = [
    MSDC_IOCON::OFFSET,
    SDC_ADV_CFG0::OFFSET,
    MSDC_NEW_RX_CFG::OFFSET,
    EMMC_IOCON::OFFSET,
    MSDC_PATCH_BIT::OFFSET,
    MSDC_PATCH_BIT1::OFFSET,
    MSDC_PATCH_BIT2::OFFSET,
    MSDC_PAD_TUNE::OFFSET,
    MSDC_PAD_TUNE0::OFFSET,
    MSDC_PAD_TUNE1::OFFSET,
    PAD_DS_TUNE::OFFSET,
    PAD_CMD_TUNE::OFFSET,
    EMMC51_CFG0::OFFSET,
    EMMC50_CFG0::OFFSET,
    EMMC50_CFG1::OFFSET,
    EMMC50_CFG2::OFFSET,
    EMMC50_CFG3::OFFSET,
    SDC_FIFO_CFG::OFFSET,
    CQHCI_SETTING::OFFSET,
];

/// Registers of the top window that are plain storage (offsets inside the window).
const TOP_REGISTERS: [usize; 4] = [
    EMMC_TOP_CONTROL::OFFSET,
    EMMC_TOP_CMD::OFFSET,
    EMMC50_PAD_DS_TUNE::OFFSET,
    LOOP_TEST_CONTROL::OFFSET,
];

/// Something software did that the model does not model or that the hardware forbids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// Access to an offset that is not a known register (or not 4-byte aligned).
    UnknownRegister(usize),
    /// Write to a read-only register.
    ReadOnlyWrite(usize),
    /// `SDC_CMD` written while a command or data phase is in progress.
    CommandWhileBusy,
    /// A command issued with `MSDC_CFG.MODE` clear (MS mode).
    NotSdMode,
    /// A command issued before the card clock settled (`MSDC_CFG.CKSTB` clear).
    ClockNotStable,
    /// `SDC_CMD` bits the model does not implement (BRK, GOIRQ, ACMD53), as written.
    UnmodelledCommandBits(u32),
    /// Undefined `SDC_CMD.RSPTYP` code.
    BadResponseType(u32),
    /// The response type does not fit the card's response.
    ResponseTypeMismatch {
        /// Command index.
        opcode: u8,
        /// `RSPTYP` in the command word.
        programmed: u32,
    },
    /// Undefined `SDC_CMD.AUTOCMD` code, or an auto command without a multi-block transfer.
    BadAutoCommand(u32),
    /// CMD12 without `SDC_CMD.STOP`, or STOP on another command.
    StopFlagMismatch(u8),
    /// `SDC_CMD.VOLSWTH` on a command other than CMD11.
    VoltageSwitchMismatch(u8),
    /// A data command with block length zero or no blocks.
    EmptyTransfer,
    /// Stream transfers (DTYPE 3) are not modelled.
    StreamTransfer,
    /// PIO mode is not modelled.
    PioMode,
    /// Basic (non descriptor) DMA is not modelled.
    BasicDma,
    /// DMA resume is not modelled.
    DmaResume,
    /// `MSDC_DMA_CTRL.START` written while the last stop is still in progress (`STOP`
    /// reads set): the engine ignores the start (upstream's "mmc: mediatek: wait dma stop
    /// bit reset to 0": the DMA does not start, and the request waits for data that never
    /// comes).
    DmaStartWhileStopping,
    /// The GPD is not owned by the hardware (HWO clear).
    GpdNotOwned(u64),
    /// A GPD without a BD chain (BDP clear) is not modelled.
    GpdWithoutBd(u64),
    /// The GPD that `next` of the first one points at is owned by the hardware: chains of
    /// more than one GPD are not modelled (the engine needs `next` to point at a GPD with
    /// HWO clear, where it stops).
    GpdChain(u64),
    /// The descriptors describe a different length from block length × blocks.
    LengthMismatch {
        /// Bytes the command transfers.
        expected: u64,
        /// Bytes the descriptors describe.
        described: u64,
    },
    /// The BD chain did not end within [`MAX_BD_CHAIN`] descriptors.
    BdChainTooLong,
    /// DMA to an address nothing is mapped at.
    Bus(u64),
    /// `SDC_CMD` written while the CQHCI block owns the bus: command queueing enabled
    /// (`CQCFG.CQ_EN`) and the block not halted. Upstream halts the block (`cqhci_off`)
    /// before any command of its own; the model does not send the command (CMDTMO).
    CommandWhileCqhciActive,
    /// The bus clock is faster than the card allows in its current mode.
    ClockTooFast {
        /// Bus clock from `MSDC_CFG` and [`ModelConfig::source_hz`].
        hz: u32,
        /// The card's limit.
        max: u32,
    },
    /// A register access (base window or CQHCI block) while the power domain is off: a
    /// read returns 0, a write is lost.
    UnpoweredAccess {
        /// The offset in the model's register space.
        offset: usize,
        /// A write (else a read).
        write: bool,
    },
    /// A register access while the register clock (`hclk`) is gated: on MediaTek SoCs the
    /// bus access hangs or returns garbage; the model reads 0 and drops writes.
    GatedAccess {
        /// The offset in the model's register space.
        offset: usize,
        /// A write (else a read).
        write: bool,
    },
    /// The power went off with a command, data phase, DMA or CQHCI task in progress: the
    /// work is lost.
    PowerOffWhileBusy,
    /// A clock was gated with a command, data phase, DMA or CQHCI task in progress.
    ClockGatedWhileBusy(ModelClock),
}

/// Integration choices software cannot change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// The SoC has 36-bit DMA (`support_64g`); honoured when `PATCH_BIT2.SUPPORT_64G` is set.
    pub support_64g: bool,
    /// `MSDC_CFG` uses the 12-bit divider layout (CKDIV 19:8, CKMOD 21:20).
    pub divider_12bit: bool,
    /// Frequency of the source clock feeding the divider, in Hz.
    pub source_hz: u32,
    /// Timing of the attached card, for [`MsdcModel::take_elapsed_ns`].
    pub latency: Latency,
    /// The controller has the "top" pad-control window (`reg[1]`, served at [`TOP_BASE`]);
    /// without it every access there is an unknown-register violation. With it the sample
    /// delays are the top registers' (as mtk-sd.c uses them whenever it has `top_base`).
    pub top_region: bool,
    /// The board's sampling windows (see [`SampleWindows`]).
    pub sampling: SampleWindows,
    /// Where the sample delays are without the top window.
    pub pad_tune: PadTuneLayout,
    /// The SoC has the new receive path (`support_new_rx`, MT8196): the data edges are
    /// `PATCH_BIT.RD_DAT_SEL` and `PATCH_BIT2.CFGCRCSTSEDGE` instead of `MSDC_IOCON`'s.
    pub new_rx: bool,
}

impl Default for ModelConfig {
    /// 36-bit DMA, 8-bit divider, 200 MHz source, eMMC timing ([`Latency::EMMC`]), no top
    /// window, every sample delay works ([`SampleWindows::ALL`]), the pad tune register at
    /// 0xF0, the old receive path.
    fn default() -> Self {
        Self {
            support_64g: true,
            divider_12bit: false,
            source_hz: 200_000_000,
            latency: Latency::EMMC,
            top_region: false,
            sampling: SampleWindows::ALL,
            pad_tune: PadTuneLayout::PadTune0,
            new_rx: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Command(RawCommand),
    Data(DataPhase),
}

/// The MSDC controller: the base register window and, on a controller built with
/// [`MsdcModel::with_cqhci`], the CQHCI block at [`CQHCI_BASE`].
#[derive(Debug)]
pub struct MsdcModel {
    config: ModelConfig,
    cqhci: Option<CqhciModel>,
    /// `MSDC_INT.CMDQ` latched for a host-detected error of the CQHCI block (W1C); the bit
    /// also reads set while the block signals a CQIS interrupt.
    cmdq_error: bool,
    /// The stale transfer-complete fault ([`MsdcModel::inject_stale_transfer_complete`]).
    stale: StaleTransfer,
    cfg: MSDC_CFG,
    ps: MSDC_PS,
    int: MSDC_INT,
    inten: MSDC_INTEN,
    sdc_cfg: SDC_CFG,
    sdc_arg: u32,
    sdc_sts: SDC_STS,
    resp: [u32; 4],
    blk_num: u32,
    acmd_resp: u32,
    dma_sa_h4: DMA_SA_H4BIT,
    dma_sa: u32,
    dma_ctrl: MSDC_DMA_CTRL,
    dma_cfg: MSDC_DMA_CFG,
    plain: [u32; PLAIN_REGISTERS.len()],
    top: [u32; TOP_REGISTERS.len()],
    reset_reads: u32,
    fifo_clear_reads: u32,
    /// When (model clock, ns) the last clock change has settled: `CKSTB` reads set from then
    /// on.
    clock_stable_at_ns: u64,
    stop_reads: u32,
    /// When (model clock, ns) a DMA stop slowed by bus load completes: `MSDC_DMA_CTRL.STOP`
    /// reads set until then ([`MsdcModel::inject_slow_dma_stop`]).
    stop_until_ns: u64,
    /// A slow DMA stop injected for the next stop, ns, not yet taken.
    slow_stop: Option<u64>,
    /// The slow DMA stops taken so far.
    slow_stops: u32,
    dma_armed: bool,
    phase: Phase,
    /// The length of a block the card still sends from an abandoned data phase
    /// ([`MsdcModel::abandon_data`]), clocked out at the next step.
    drain_pending: Option<u32>,
    fault: Option<(Fault, FaultScope)>,
    commands: u32,
    /// Block transfers whose data phase completed without an error.
    block_transfers: u32,
    elapsed_ns: u64,
    /// Where the charged time went, since the model was built ([`MsdcModel::time_split`]).
    split: TimeSplit,
    /// The model clock: every charge and the time the caller reports passing outside the
    /// model ([`MsdcModel::elapse`]), ns.
    clock_ns: u64,
    /// When the card's queued tasks become ready (timed queue, [`Latency::queue_units`]).
    task_timer: TaskTimer,
    violation_count: u32,
    violations: [Option<Violation>; MAX_VIOLATIONS],
    last_violation: Option<Violation>,
    /// The power domain is on.
    powered: bool,
    /// `hclk` runs.
    register_clock: bool,
    /// The source clock (and its gate) runs.
    source_clock: bool,
    power_offs: u32,
    /// Times `hclk` stopped: each runtime suspend gates it.
    register_clock_gatings: u32,
    /// CRC errors the sample windows caused.
    sampling_errors: u32,
    /// Tuning block commands sent (CMD19, CMD21).
    tuning_commands: u32,
    /// The card clock state last reported to the card.
    card_clock: bool,
    /// `EMMC_IOCON.HW_RST` was set since the last step: the card is to be reset.
    hardware_reset: bool,
    /// The card's line levels at the last step.
    lines: Lines,
    /// The SDIO interrupt detector's input at the last step (it latches on a change to
    /// asserted).
    sdio_detected: bool,
    /// The card holds DAT0 low, busy, until this time on the model clock
    /// ([`Fault::BusyStuck`], [`Fault::ProgramBusy`], [`Latency::busy_on_dat0`]).
    busy_until: Option<u64>,
}

impl MsdcModel {
    /// A controller after power-on without a CQHCI block: everything zero, clock stable,
    /// powered with both clocks running.
    pub fn new(config: ModelConfig) -> Self {
        Self::build(config, None)
    }

    /// A controller after power-on with a CQHCI block (MT8192, MT8195 and the other SoCs
    /// whose device tree says `supports-cqe`), integrated as `cqhci` says; the block is
    /// reset and disabled.
    pub fn with_cqhci(config: ModelConfig, cqhci: cqhci::ModelConfig) -> Self {
        Self::build(config, Some(CqhciModel::new(cqhci)))
    }

    fn build(config: ModelConfig, cqhci: Option<CqhciModel>) -> Self {
        Self {
            config,
            cqhci,
            cmdq_error: false,
            stale: StaleTransfer::Off,
            cfg: MSDC_CFG::zeroed(),
            ps: MSDC_PS::zeroed(),
            int: MSDC_INT::zeroed(),
            inten: MSDC_INTEN::zeroed(),
            sdc_cfg: SDC_CFG::zeroed(),
            sdc_arg: 0,
            sdc_sts: SDC_STS::zeroed(),
            resp: [0; 4],
            blk_num: 0,
            acmd_resp: 0,
            dma_sa_h4: DMA_SA_H4BIT::zeroed(),
            dma_sa: 0,
            dma_ctrl: MSDC_DMA_CTRL::zeroed(),
            dma_cfg: MSDC_DMA_CFG::zeroed(),
            plain: [0; PLAIN_REGISTERS.len()],
            top: [0; TOP_REGISTERS.len()],
            reset_reads: 0,
            fifo_clear_reads: 0,
            clock_stable_at_ns: 0,
            stop_reads: 0,
            stop_until_ns: 0,
            slow_stop: None,
            slow_stops: 0,
            dma_armed: false,
            phase: Phase::Idle,
            drain_pending: None,
            fault: None,
            commands: 0,
            block_transfers: 0,
            elapsed_ns: 0,
            split: TimeSplit::ZERO,
            clock_ns: 0,
            task_timer: TaskTimer::new(),
            violation_count: 0,
            violations: [None; MAX_VIOLATIONS],
            last_violation: None,
            powered: true,
            register_clock: true,
            source_clock: true,
            power_offs: 0,
            register_clock_gatings: 0,
            sampling_errors: 0,
            tuning_commands: 0,
            card_clock: false,
            hardware_reset: false,
            lines: Lines::IDLE,
            sdio_detected: false,
            busy_until: None,
        }
    }

    /// Total number of violations, and the first [`MAX_VIOLATIONS`] of them.
    pub fn violations(&self) -> (u32, &[Option<Violation>; MAX_VIOLATIONS]) {
        (self.violation_count, &self.violations)
    }

    /// The violation recorded last, also once the first [`MAX_VIOLATIONS`] are kept.
    pub fn last_violation(&self) -> Option<Violation> {
        self.last_violation
    }

    /// Number of commands sent to the card (including automatic ones).
    pub fn commands(&self) -> u32 {
        self.commands
    }

    /// Number of block transfers ([`FaultScope::BlockTransfer`]) whose data phase
    /// completed without an error.
    pub fn block_transfers(&self) -> u32 {
        self.block_transfers
    }

    /// Whether a command or data phase is in progress.
    pub fn busy(&self) -> bool {
        self.phase != Phase::Idle
    }

    fn violation(&mut self, v: Violation) {
        if let Some(slot) = self.violations.iter_mut().find(|s| s.is_none()) {
            *slot = Some(v);
        }
        self.last_violation = Some(v);
        self.violation_count = self.violation_count.saturating_add(1);
    }

    fn plain_index(offset: usize) -> Option<usize> {
        PLAIN_REGISTERS.iter().position(|&o| o == offset)
    }

    fn sts(&self) -> SDC_STS {
        let (cmdbusy, sdcbusy) = match self.phase {
            Phase::Idle => (false, false),
            Phase::Command(c) => (
                true,
                c.word.dtype() != DataType::None || c.response == Some(ResponseType::R1b),
            ),
            Phase::Data(_) => (false, true),
        };
        // The controller's busy detection follows DAT0 after a write or an R1b command
        // (`models/README.md`, "Write busy after the transfer"), up to the present time.
        let sdcbusy = sdcbusy || self.card_busy_now();
        self.sdc_sts.with_cmdbusy(cmdbusy).with_sdcbusy(sdcbusy)
    }

    /// Reads the register at `offset`. Reads have the polling side effects of the hardware
    /// (self-clearing bits settle after a number of reads).
    pub fn read(&mut self, offset: usize) -> u32 {
        if !self.accessible(offset, false) {
            return 0;
        }
        if let Some((c, at)) = self.cqhci_register(offset) {
            return RegisterFile::read(c, at);
        }
        if let Some(at) = self.top_register(offset) {
            return self.top[at];
        }
        match offset {
            MSDC_CFG::OFFSET => {
                let mut v = self.cfg;
                if self.reset_reads > 0 {
                    self.reset_reads -= 1;
                    v = v.with_rst(true);
                }
                // Without the source clock nothing is stable: CKSTB stays low.
                if self.clock_stable() {
                    v = v.with_ckstb(true);
                }
                v.raw()
            }
            MSDC_PS::OFFSET => self.ps.raw() | self.line_levels().raw(),
            MSDC_INT::OFFSET => self.int_status().raw(),
            MSDC_INTEN::OFFSET => self.inten.raw(),
            MSDC_FIFOCS::OFFSET => {
                // The DMA empties the FIFO within a step, so both counts read zero.
                let clearing = self.fifo_clear_reads > 0;
                if clearing {
                    self.fifo_clear_reads -= 1;
                }
                MSDC_FIFOCS::zeroed().with_clr(clearing).raw()
            }
            SDC_CFG::OFFSET => self.sdc_cfg.raw(),
            SDC_CMD::OFFSET => 0,
            SDC_ARG::OFFSET => self.sdc_arg,
            SDC_STS::OFFSET => self.sts().raw(),
            SDC_RESP0::OFFSET => self.resp[0],
            SDC_RESP1::OFFSET => self.resp[1],
            SDC_RESP2::OFFSET => self.resp[2],
            SDC_RESP3::OFFSET => self.resp[3],
            SDC_BLK_NUM::OFFSET => self.blk_num,
            SDC_ACMD_RESP::OFFSET => self.acmd_resp,
            DMA_SA_H4BIT::OFFSET => self.dma_sa_h4.raw(),
            MSDC_DMA_SA::OFFSET => self.dma_sa,
            MSDC_DMA_CTRL::OFFSET => {
                let mut v = self.dma_ctrl;
                if self.stop_reads > 0 {
                    self.stop_reads -= 1;
                    v = v.with_stop(true);
                } else if self.dma_stopping() {
                    v = v.with_stop(true);
                }
                v.raw()
            }
            MSDC_DMA_CFG::OFFSET => self.dma_cfg.with_sts(self.dma_armed).raw(),
            _ => match Self::plain_index(offset) {
                Some(i) => self.plain.get(i).copied().unwrap_or(0),
                None => {
                    self.violation(Violation::UnknownRegister(offset));
                    0
                }
            },
        }
    }

    /// Writes `value` to the register at `offset`.
    pub fn write(&mut self, offset: usize, value: u32) {
        if !self.accessible(offset, true) {
            return;
        }
        if let Some((c, at)) = self.cqhci_register(offset) {
            return RegisterFile::write(c, at, value);
        }
        if let Some(at) = self.top_register(offset) {
            self.top[at] = value;
            return;
        }
        match offset {
            MSDC_CFG::OFFSET => {
                let written = MSDC_CFG::from_raw(value);
                let stored = written
                    .with_rst(false)
                    .with_ckstb(false)
                    .with_bv18pss(false);
                if self.clock_setting(stored) != self.clock_setting(self.cfg) {
                    self.clock_changed();
                }
                self.cfg = stored;
                if written.rst() {
                    self.reset();
                }
            }
            MSDC_PS::OFFSET => self.ps = MSDC_PS::from_raw(value & MSDC_PS::WRITABLE.raw()),
            MSDC_INT::OFFSET => {
                self.int = MSDC_INT::from_raw(self.int.raw() & !value);
                if MSDC_INT::from_raw(value).cmdq() {
                    self.cmdq_error = false;
                }
                self.after_int_write();
            }
            MSDC_INTEN::OFFSET => {
                self.before_inten_write(value);
                let implemented = if self.cqhci.is_some() {
                    MSDC_INTEN::WITH_CQHCI
                } else {
                    MSDC_INTEN::IMPLEMENTED
                };
                self.inten = MSDC_INTEN::from_raw(value & implemented.raw());
            }
            MSDC_FIFOCS::OFFSET => {
                if MSDC_FIFOCS::from_raw(value).clr() {
                    self.fifo_clear_reads = RESET_POLLS;
                }
            }
            SDC_CFG::OFFSET => self.sdc_cfg = SDC_CFG::from_raw(value),
            SDC_CMD::OFFSET => self.start_command(SDC_CMD::from_raw(value)),
            SDC_ARG::OFFSET => self.sdc_arg = value,
            SDC_STS::OFFSET => {
                self.sdc_sts = SDC_STS::from_raw(value)
                    .with_cmdbusy(false)
                    .with_sdcbusy(false);
            }
            SDC_RESP0::OFFSET
            | SDC_RESP1::OFFSET
            | SDC_RESP2::OFFSET
            | SDC_RESP3::OFFSET
            | SDC_ACMD_RESP::OFFSET => self.violation(Violation::ReadOnlyWrite(offset)),
            SDC_BLK_NUM::OFFSET => self.blk_num = value,
            DMA_SA_H4BIT::OFFSET => {
                self.dma_sa_h4 = DMA_SA_H4BIT::from_raw(value & DMA_SA_H4BIT::IMPLEMENTED.raw());
            }
            MSDC_DMA_SA::OFFSET => self.dma_sa = value,
            MSDC_DMA_CTRL::OFFSET => self.write_dma_ctrl(MSDC_DMA_CTRL::from_raw(value)),
            MSDC_DMA_CFG::OFFSET => self.dma_cfg = MSDC_DMA_CFG::from_raw(value).with_sts(false),
            EMMC_IOCON::OFFSET => {
                let before = EMMC_IOCON::from_raw(self.plain_value(offset));
                // RST_n asserted: the card resets (at the next step, where the model
                // reaches it).
                if EMMC_IOCON::from_raw(value).hw_rst() && !before.hw_rst() {
                    self.hardware_reset = true;
                }
                self.set_plain(offset, value);
            }
            _ => match Self::plain_index(offset) {
                Some(i) => {
                    if let Some(r) = self.plain.get_mut(i) {
                        *r = value;
                    }
                }
                None => self.violation(Violation::UnknownRegister(offset)),
            },
        }
    }

    /// The CQHCI block and the offset in its register file that `offset` of the base
    /// window reaches, if the controller has the block and `offset` lies in it.
    fn cqhci_register(&mut self, offset: usize) -> Option<(&mut CqhciModel, usize)> {
        let at = offset
            .checked_sub(CQHCI_BASE)
            .filter(|&at| at < CQHCI_LEN)?;
        self.cqhci.as_mut().map(|c| (c, at))
    }

    /// The index in `top` of a top-window register at model offset `offset`, on a model
    /// with the window (`None` elsewhere: an unknown register).
    fn top_register(&self, offset: usize) -> Option<usize> {
        let at = offset
            .checked_sub(TOP_BASE)
            .filter(|&at| at < TOP_LEN && self.config.top_region)?;
        TOP_REGISTERS.iter().position(|&o| o == at)
    }

    fn reset(&mut self) {
        self.abandon_data();
        self.reset_reads = RESET_POLLS;
        self.phase = Phase::Idle;
        self.dma_armed = false;
        self.fifo_clear_reads = 0;
    }

    /// Advances the model by one unit of work: runs the pending command, or the pending
    /// data phase once the DMA was started, or else one step of the CQHCI block (if the
    /// controller has one) against the same card. Returns whether anything happened:
    /// nothing happens, and no time passes, while the power is off or the source clock is
    /// gated.
    pub fn step<C: CardSlot + ?Sized, M: BusMemory>(&mut self, card: &mut C, mem: &mut M) -> bool {
        self.sync_card(card);
        if !self.clocked() {
            return false;
        }
        if let Some(block_len) = self.drain_pending.take() {
            self.drain_block(card, block_len);
        }
        let progressed = match self.phase {
            Phase::Idle => self.step_cqhci(card, mem),
            Phase::Command(c) => {
                self.run_command(c, card);
                true
            }
            Phase::Data(d) if self.dma_armed => {
                self.run_data(d, card, mem);
                true
            }
            Phase::Data(_) => false,
        };
        self.sync_card(card);
        progressed
    }

    /// Runs `step` until it has nothing to do (at most `limit` times).
    pub fn run<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        card: &mut C,
        mem: &mut M,
        limit: u32,
    ) -> u32 {
        let mut n = 0;
        while n < limit && self.step(card, mem) {
            n += 1;
        }
        n
    }

    /// Runs `step` as [`MsdcModel::run`] does, but stops after the step that raises the
    /// interrupt line (an enabled event that was not pending before it becomes pending):
    /// hardware signals an event when it happens, so a host that raises the line once a
    /// run's work has taken its time (the simulated board) must not hold it back by the
    /// steps after it. Returns the steps that did something and whether the run stopped
    /// for the line.
    pub fn run_to_interrupt<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        card: &mut C,
        mem: &mut M,
        limit: u32,
    ) -> (u32, bool) {
        let mut n = 0;
        while n < limit {
            let before = self.interrupt_pending();
            if !self.step(card, mem) {
                break;
            }
            n += 1;
            if !before && self.interrupt_pending() {
                return (n, true);
            }
        }
        (n, false)
    }

    fn patch_bit2(&self) -> MSDC_PATCH_BIT2 {
        MSDC_PATCH_BIT2::from_raw(self.plain_value(MSDC_PATCH_BIT2::OFFSET))
    }

    /// The value of the plain-storage register at `offset` (0 for any other offset).
    fn plain_value(&self, offset: usize) -> u32 {
        Self::plain_index(offset)
            .and_then(|i| self.plain.get(i).copied())
            .unwrap_or(0)
    }

    /// Stores `value` in the plain-storage register at `offset`.
    fn set_plain(&mut self, offset: usize, value: u32) {
        if let Some(r) = Self::plain_index(offset).and_then(|i| self.plain.get_mut(i)) {
            *r = value;
        }
    }

    /// The value of the top-window register at `offset` inside the window.
    fn top_value(&self, offset: usize) -> u32 {
        TOP_REGISTERS
            .iter()
            .position(|&o| o == offset)
            .and_then(|i| self.top.get(i).copied())
            .unwrap_or(0)
    }
}

impl RegisterFile for MsdcModel {
    fn read(&mut self, offset: usize) -> u32 {
        MsdcModel::read(self, offset)
    }

    fn write(&mut self, offset: usize, value: u32) {
        MsdcModel::write(self, offset, value);
    }

    /// The driver's busy-wait between two polls is time on the model clock (a card's
    /// busy on DAT0 ends meanwhile, [`Fault::ProgramBusy`]); self-clearing bits still
    /// settle after a number of reads ([`RESET_POLLS`]), `CKSTB` after time
    /// ([`CLOCK_SETTLE_NS`]).
    fn wait_us(&mut self, us: u32) {
        self.elapse(u64::from(us).saturating_mul(1_000));
    }
}

/// The base window starts the model's register space (the CQHCI block follows at
/// [`CQHCI_BASE`]).
impl Serves<MsdcBase> for MsdcModel {
    const BASE: usize = 0;
}

/// The CQHCI block's registers are at [`CQHCI_BASE`] of the base window, so a
/// [`Bus`](super::super::bus::Bus)`<MsdcModel>` is an `Io<CqhciBlock>` on the same register
/// space; without the block (a model from [`MsdcModel::new`]) every access there is an
/// unknown-register violation.
impl Serves<CqhciBlock> for MsdcModel {
    const BASE: usize = CQHCI_BASE;
}

/// The top window follows the base window at [`TOP_BASE`] of the model's register space;
/// on a model whose [`ModelConfig::top_region`] is false every access there is an
/// unknown-register violation.
impl Serves<MsdcTop> for MsdcModel {
    const BASE: usize = TOP_BASE;
}
