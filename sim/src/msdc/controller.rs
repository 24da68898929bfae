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
//! * `MSDC_CFG.CKSTB` drops when the clock mode/divider fields change and comes back after
//!   [`CLOCK_STABLE_POLLS`] reads of `MSDC_CFG`.
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
//!   is 0 and `MSDC_CFG.CKSTB` reads 0; once it runs again `CKSTB` comes back after
//!   [`CLOCK_STABLE_POLLS`] reads, as after a divider change (upstream's
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

use super::super::bus::{RegisterFile, Serves};
use super::super::cqhci::{self, CqhciModel, HostErrorKind};
use super::super::emmc::command::DEVICE_STATUS;
use super::super::emmc::{CardState, CardWork, Command, NoResponse, Response};
use super::super::latency::{Latency, ResponseLength, TaskTimer};
use super::super::memory::BusMemory;
use super::super::windows::{CqhciBlock, MsdcBase, MsdcTop};
use super::desc::{checksum_sealed, Bd, Gpd};
use super::regs::{
    AutoCommand, BusWidth, ClockMode, DataType, ResponseType, CQHCI_BASE, CQHCI_LEN, CQHCI_SETTING,
    DMA_SA_H4BIT, EMMC50_CFG0, EMMC50_CFG1, EMMC50_CFG2, EMMC50_CFG3, EMMC50_PAD_DS_TUNE,
    EMMC51_CFG0, EMMC_IOCON, EMMC_TOP_CMD, EMMC_TOP_CONTROL, LOOP_TEST_CONTROL, MSDC_CFG,
    MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_DMA_SA, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_IOCON,
    MSDC_NEW_RX_CFG, MSDC_PAD_TUNE, MSDC_PAD_TUNE0, MSDC_PAD_TUNE1, MSDC_PATCH_BIT,
    MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, MSDC_PS, PAD_CMD_TUNE, PAD_DS_TUNE, PAD_TUNE2_CELLS,
    PAD_TUNE_CELLS, SDC_ACMD_RESP, SDC_ADV_CFG0, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD,
    SDC_FIFO_CFG, SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS, TOP_BASE, TOP_LEN,
};
use super::slot::{BusSetting, BusWork, CardSlot, Metered, QueueClock};
use crate::registers::PartialFieldValue;

/// Timing model: reads of `MSDC_CFG` (or `MSDC_FIFOCS`) for which a reset (or FIFO clear)
/// bit stays set after software sets it.
pub const RESET_POLLS: u32 = 1;

/// Timing model: reads of `MSDC_CFG` after a clock change before `CKSTB` is set again.
pub const CLOCK_STABLE_POLLS: u32 = 2;

/// How many violations are kept (the count goes on).
pub const MAX_VIOLATIONS: usize = 8;

/// Longest BD chain the model follows before calling it a loop.
pub const MAX_BD_CHAIN: usize = 4096;

/// Bytes moved between memory and card per transfer chunk.
const CHUNK: usize = 64;

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

/// The fastest bus clock at which every sample delay and edge works: the legacy and
/// high-speed timings (up to 52 MHz, DDR52 included) have the margin; above it (HS200,
/// SDR104, SDR50, HS400) the board's [`SampleWindows`] decide.
pub const RELAXED_CLOCK_HZ: u32 = 52_000_000;

/// Cells of a response or read data delay line: two cascaded cells of 0..31, 0..62 in all.
pub const DELAY_CELLS: u32 = 64;

/// Cells of the data strobe's `DLY1` delay.
pub const STROBE_CELLS: u32 = 32;

/// An `MSDC_INT` event, named by the setter of its bit (`MSDC_INT::with_cmdrdy`).
type Event = fn(MSDC_INT, bool) -> MSDC_INT;

/// The board's sampling windows: which sample delays, on which clock edge, read a line
/// correctly once the bus runs faster than [`RELAXED_CLOCK_HZ`]. Bit `d` of a window is set
/// when an effective delay of `d` cells samples correctly; the effective delay is the sum
/// of the delay cells the pad tune (or top) registers enable (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleWindows {
    /// The response on CMD, by edge ([`SampleWindows::RISING`], [`SampleWindows::FALLING`],
    /// selected by `MSDC_IOCON.RSPL`).
    pub cmd: [u64; 2],
    /// Read data and the write CRC status on DAT, by edge (`MSDC_IOCON.DSPL` and `W_DSPL`,
    /// or `PATCH_BIT.RD_DAT_SEL` and `PATCH_BIT2.CFGCRCSTSEDGE` on new-RX SoCs).
    pub data: [u64; 2],
    /// HS400: the data strobe's `DLY1` settings (0..31) at which the strobe latches the
    /// read data and CRC status (and, with enhanced strobe, the response).
    pub strobe: u32,
}

impl SampleWindows {
    /// The index of the rising edge's window.
    pub const RISING: usize = 0;
    /// The index of the falling edge's window.
    pub const FALLING: usize = 1;

    /// Every delay on either edge works: a board without timing trouble.
    pub const ALL: Self = Self {
        cmd: [u64::MAX; 2],
        data: [u64::MAX; 2],
        strobe: u32::MAX,
    };

    /// A window of `len` delay cells from `start`, wrapping past the last of the
    /// [`DELAY_CELLS`] back to 0 (a `len` of 64 or more is every cell).
    pub const fn span(start: u32, len: u32) -> u64 {
        wrapping_span(start, len, DELAY_CELLS)
    }

    /// A strobe window of `len` `DLY1` settings from `start`, wrapping past 31.
    pub const fn strobe_span(start: u32, len: u32) -> u32 {
        // At most STROBE_CELLS bits: nothing is cut.
        wrapping_span(start, len, STROBE_CELLS) as u32
    }
}

/// `len` consecutive bits from `start` in a ring of `cells` bits (at most 64).
const fn wrapping_span(start: u32, len: u32, cells: u32) -> u64 {
    let mut window = 0u64;
    let mut i = 0;
    while i < len && i < cells {
        window |= 1 << ((start % cells + i) % cells);
        i += 1;
    }
    window
}

impl Default for SampleWindows {
    /// [`SampleWindows::ALL`].
    fn default() -> Self {
        Self::ALL
    }
}

/// Where the SoC's pad tune register is (`pad_tune_reg` of mtk-sd.c's per-SoC data), used
/// for the delays when the controller has no top window; the second cells are at `+4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PadTuneLayout {
    /// `MSDC_PAD_TUNE` at 0xEC (MT8173, MT8135, MT6795, MT7620), second cells at 0xF0.
    PadTune,
    /// `MSDC_PAD_TUNE0` at 0xF0 (MT8183 family, MT2701, MT2712, MT7622 and the rest),
    /// second cells at 0xF4.
    #[default]
    PadTune0,
}

impl PadTuneLayout {
    /// The offset of the register with the first delay cells.
    pub const fn offset(self) -> usize {
        match self {
            Self::PadTune => MSDC_PAD_TUNE::OFFSET,
            Self::PadTune0 => MSDC_PAD_TUNE0::OFFSET,
        }
    }

    /// The offset of the register with the second delay cells.
    pub const fn second_offset(self) -> usize {
        self.offset() + SECOND_CELLS
    }
}

/// How far the second delay cells' register is from the first's (mtk-sd.c's fixed offset).
const SECOND_CELLS: usize = 4;

/// What the samplers need to get right at the current bus timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timing {
    /// At or below [`RELAXED_CLOCK_HZ`]: every delay and edge works.
    Relaxed,
    /// Above it without HS400: the cmd and data windows.
    Fast,
    /// HS400 (`CKMOD` 3) above it: the cmd window and the strobe.
    Hs400,
}

/// The levels the card drove on the bus when the model last looked ([`MsdcModel::step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lines {
    /// DAT3..DAT0.
    data: u8,
    cmd: bool,
    /// The card asserts an SDIO interrupt.
    sdio_interrupt: bool,
}

impl Lines {
    const IDLE: Self = Self {
        data: 0xF,
        cmd: true,
        sdio_interrupt: false,
    };
}

/// Where the time a model charged went ([`MsdcModel::time_split`]), in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeSplit {
    /// Command, response and data frames on the bus at the programmed clock and width.
    pub bus_ns: u64,
    /// The card's own work: read access, programming and busy, and a read's data beyond
    /// the bus time when the card is slower than the bus.
    pub card_ns: u64,
    /// The CQHCI block waiting for a queued task to become ready (its status polls and
    /// idle timer).
    pub wait_ns: u64,
}

impl TimeSplit {
    /// Nothing charged.
    pub const ZERO: Self = Self {
        bus_ns: 0,
        card_ns: 0,
        wait_ns: 0,
    };
}

/// A fault to inject into the next command it applies to: any command for the command
/// faults, the next command with a data phase (of the named direction) for the data faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The command is lost: the card never sees it; CMDTMO.
    CommandTimeout,
    /// The card runs the command but the response fails its CRC: RSPCRCERR.
    ResponseCrc,
    /// The data phase runs but fails its CRC: DATCRCERR instead of XFER_COMPL.
    DataCrc,
    /// As [`Fault::DataCrc`], for the next read only.
    ReadDataCrc,
    /// As [`Fault::DataCrc`], for the next write only: the card's CRC status token says
    /// the block arrived corrupted.
    WriteDataCrc,
    /// The data never arrives (the card's data phase stays open): DATTMO.
    DataTimeout,
    /// The GPD of the data phase is found corrupted in memory (its checksum byte has a
    /// bit flipped, as a stray write would leave it): with `DMA_CFG.DECSEN` the engine's
    /// checksum check fails and it raises DMA_GPDCSERR without moving data; without it the
    /// engine does not look at the checksum byte and the transfer runs.
    GpdChecksum,
    /// As [`Fault::GpdChecksum`], for the first BD of the chain: DMA_BDCSERR.
    BdChecksum,
    /// After a write's data phase (or an R1b command) the card holds DAT0 low, busy, for
    /// [`BUSY_STUCK_NS`] on the model clock instead of its programming time: `SDC_STS.SDCBUSY`
    /// stays set and `MSDC_PS` reads DAT0 low, CMD13 answers in the programming state, not
    /// ready for data, and every other command but CMD0 goes unanswered (illegal in that
    /// state). CMD0, which resets the card, and a hardware reset pulse release it.
    BusyStuck,
}

/// How long a card stuck busy ([`Fault::BusyStuck`]) holds DAT0 low if nothing resets it:
/// a minute, far past the driver's 20 ms wait for a busy controller and the MMC core's 10 s
/// wait for a write to finish programming.
pub const BUSY_STUCK_NS: u64 = 60_000_000_000;

/// Which commands an injected [`Fault`] waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultScope {
    /// Any command it applies to, the host's own (status, switch, tuning) included.
    AnyCommand,
    /// Only a block transfer: a read or write of the card's storage (CMD17, CMD18, CMD24,
    /// CMD25) or an SDIO CMD53, the commands of the I/O a block layer queues.
    BlockTransfer,
}

/// Whether `c` moves blocks of the card's storage (see [`FaultScope::BlockTransfer`]).
const fn is_block_transfer(c: &CheckedCommand) -> bool {
    !matches!(c.data, DataType::None) && matches!(c.opcode, 17 | 18 | 24 | 25 | 53)
}

impl Fault {
    /// Whether the fault happens to command `c`, or waits for a later one.
    const fn applies_to(self, scope: FaultScope, c: &CheckedCommand) -> bool {
        if matches!(scope, FaultScope::BlockTransfer) && !is_block_transfer(c) {
            return false;
        }
        let data = !matches!(c.data, DataType::None);
        match self {
            Self::CommandTimeout | Self::ResponseCrc => true,
            Self::DataCrc | Self::DataTimeout | Self::GpdChecksum | Self::BdChecksum => data,
            Self::ReadDataCrc => data && !c.write,
            Self::WriteDataCrc => data && c.write,
            Self::BusyStuck => {
                if data {
                    c.write
                } else {
                    matches!(c.response, ResponseType::R1b)
                }
            }
        }
    }

    /// Whether the fault is one of the data phase's.
    const fn in_data_phase(self) -> bool {
        !matches!(self, Self::CommandTimeout | Self::ResponseCrc)
    }

    /// Whether the fault fails the data phase's CRC.
    const fn data_crc(self) -> bool {
        matches!(self, Self::DataCrc | Self::ReadDataCrc | Self::WriteDataCrc)
    }
}

/// A clock of the controller, as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelClock {
    /// `hclk`: the register interface.
    Register,
    /// `source` (with its gate): feeds the card clock divider.
    Source,
}

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
    /// A command issued before `MSDC_CFG.CKSTB` was seen set.
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

/// A command written to `SDC_CMD`, with its coded fields decoded (`None`: an undefined
/// code, which [`MsdcModel::check_command`] refuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RawCommand {
    word: SDC_CMD,
    response: Option<ResponseType>,
    auto: Option<AutoCommand>,
    /// Written while the CQHCI block owned the bus: never sent.
    refused: bool,
}

impl RawCommand {
    fn decode(word: SDC_CMD) -> Self {
        Self {
            word,
            response: ResponseType::try_from_bits(u64::from(word.rsptyp())),
            auto: AutoCommand::try_from_bits(u64::from(word.autocmd())),
            refused: false,
        }
    }

    fn opcode(&self) -> u8 {
        // A 6-bit field.
        self.word.opcode() as u8
    }
}

/// A command [`MsdcModel::check_command`] accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CheckedCommand {
    opcode: u8,
    response: ResponseType,
    data: DataType,
    write: bool,
    block_len: u32,
    auto: AutoCommand,
}

/// The clock fields of `MSDC_CFG` in the layout the SoC uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ClockSetting {
    div: u32,
    mode: ClockMode,
    hs400: bool,
}

/// The data phase waiting for (or running) the DMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DataPhase {
    write: bool,
    block_len: u32,
    blocks: u32,
    auto_cmd12: bool,
    /// The command moves blocks of the card's storage ([`FaultScope::BlockTransfer`]).
    block_transfer: bool,
    fault: Option<Fault>,
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
    clock_reads: u32,
    stop_reads: u32,
    dma_armed: bool,
    phase: Phase,
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
    /// CRC errors the sample windows caused.
    sampling_errors: u32,
    /// The card clock state last reported to the card.
    card_clock: bool,
    /// `EMMC_IOCON.HW_RST` was set since the last step: the card is to be reset.
    hardware_reset: bool,
    /// The card's line levels at the last step.
    lines: Lines,
    /// The SDIO interrupt detector's input at the last step (it latches on a change to
    /// asserted).
    sdio_detected: bool,
    /// The card is stuck busy ([`Fault::BusyStuck`]) until this time on the model clock.
    stuck_busy_until: Option<u64>,
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
            clock_reads: 0,
            stop_reads: 0,
            dma_armed: false,
            phase: Phase::Idle,
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
            sampling_errors: 0,
            card_clock: false,
            hardware_reset: false,
            lines: Lines::IDLE,
            sdio_detected: false,
            stuck_busy_until: None,
        }
    }

    /// The power domain goes off: every register of the controller and of its CQHCI block
    /// returns to its reset value, work in progress is dropped (a command, data phase, DMA
    /// or CQHCI task in progress then is a violation: [`Violation::PowerOffWhileBusy`]),
    /// pending interrupts vanish.
    pub fn power_off(&mut self) {
        if !self.powered {
            return;
        }
        if self.work_in_progress() {
            self.violation(Violation::PowerOffWhileBusy);
        }
        self.reset_registers();
        self.powered = false;
        self.power_offs = self.power_offs.saturating_add(1);
    }

    /// The power domain comes back (registers at reset values; clocks as they were set).
    pub fn power_on(&mut self) {
        // The registers were reset when the power went and nothing could reach them since.
        self.powered = true;
    }

    /// Whether the power domain is on.
    pub fn is_powered(&self) -> bool {
        self.powered
    }

    /// Gates (`running == false`) or ungates a clock. Gating the source clock while a
    /// command/data phase/DMA/CQHCI task is in progress is a violation
    /// ([`Violation::ClockGatedWhileBusy`]). Once the source clock runs again, `CKSTB`
    /// needs [`CLOCK_STABLE_POLLS`] reads of `MSDC_CFG` to come back, as after a divider
    /// change (upstream's `msdc_ungate_clock` polls it).
    pub fn set_clock(&mut self, clock: ModelClock, running: bool) {
        match clock {
            ModelClock::Register => self.register_clock = running,
            ModelClock::Source => {
                if self.source_clock == running {
                    return;
                }
                if !running && self.work_in_progress() {
                    self.violation(Violation::ClockGatedWhileBusy(clock));
                }
                if running {
                    self.clock_reads = CLOCK_STABLE_POLLS;
                }
                self.source_clock = running;
            }
        }
    }

    /// Whether `clock` runs.
    pub fn clock_running(&self, clock: ModelClock) -> bool {
        match clock {
            ModelClock::Register => self.register_clock,
            ModelClock::Source => self.source_clock,
        }
    }

    /// How many times the power went off (for the board's debugfs).
    pub fn power_offs(&self) -> u32 {
        self.power_offs
    }

    /// Whether anything would be lost if the controller stopped now: a command or data
    /// phase, a started DMA, or a task in the CQHCI block's slots.
    fn work_in_progress(&self) -> bool {
        self.phase != Phase::Idle
            || self.dma_armed
            || self
                .cqhci
                .as_ref()
                .is_some_and(CqhciModel::tasks_in_progress)
    }

    /// Every register (and the CQHCI block) back to its power-on value. What is no
    /// register stays: the record of the run (violations, commands, simulated time), the
    /// fault a test injected for the next command, and the power and clock state.
    fn reset_registers(&mut self) {
        let cqhci = self.cqhci.take().map(|mut c| {
            c.reset();
            c
        });
        let fresh = Self::build(self.config, cqhci);
        let before = core::mem::replace(self, fresh);
        self.fault = before.fault;
        self.commands = before.commands;
        self.block_transfers = before.block_transfers;
        self.elapsed_ns = before.elapsed_ns;
        self.split = before.split;
        // Time goes on, and the card (whose supply is separate) keeps its queue and units.
        self.clock_ns = before.clock_ns;
        self.task_timer = before.task_timer;
        self.violation_count = before.violation_count;
        self.violations = before.violations;
        self.last_violation = before.last_violation;
        self.powered = before.powered;
        self.register_clock = before.register_clock;
        self.source_clock = before.source_clock;
        self.power_offs = before.power_offs;
        // What the card was told and drives is no register either.
        self.sampling_errors = before.sampling_errors;
        self.card_clock = before.card_clock;
        self.hardware_reset = before.hardware_reset;
        self.lines = before.lines;
        // The card's supply is separate: a card stuck busy stays so.
        self.stuck_busy_until = before.stuck_busy_until;
    }

    /// Whether a register access at `offset` reaches the registers; records the violation
    /// if not (power off, or `hclk` gated).
    fn accessible(&mut self, offset: usize, write: bool) -> bool {
        if !self.powered {
            self.violation(Violation::UnpoweredAccess { offset, write });
            false
        } else if !self.register_clock {
            self.violation(Violation::GatedAccess { offset, write });
            false
        } else {
            true
        }
    }

    /// Whether the controller's engine can run: powered, with its source clock running
    /// (the card clock is derived from it).
    fn clocked(&self) -> bool {
        self.powered && self.source_clock
    }

    /// The CQHCI block, if the controller has one (for a test to inspect it, or to inject
    /// its faults through [`CqhciModel::inject`]).
    pub fn cqhci(&self) -> Option<&CqhciModel> {
        self.cqhci.as_ref()
    }

    /// The CQHCI block, mutably (see [`MsdcModel::cqhci`]).
    pub fn cqhci_mut(&mut self) -> Option<&mut CqhciModel> {
        self.cqhci.as_mut()
    }

    /// Whether the CQHCI block owns the bus: enabled and not halted (a halt still pending
    /// does not count: the block may be running a task).
    fn cqhci_owns_bus(&self) -> bool {
        self.cqhci
            .as_ref()
            .is_some_and(|c| c.is_enabled() && !c.is_halted())
    }

    /// `MSDC_INT` as read: the latched events, and `CMDQ` while the CQHCI block signals an
    /// interrupt (CQIS & CQISGE) or a host-detected error of the block is latched.
    fn int_status(&self) -> MSDC_INT {
        let signalled = self.cqhci.as_ref().is_some_and(|c| c.status_signalled());
        self.int
            .with_cmdq(self.int.cmdq() || self.cmdq_error || signalled)
    }

    /// Makes `fault` happen to the next command written to `SDC_CMD` that it applies to
    /// (see [`Fault`]); replaces a fault still waiting.
    pub fn inject(&mut self, fault: Fault) {
        self.inject_into(fault, FaultScope::AnyCommand);
    }

    /// As [`MsdcModel::inject`], for the next command in `scope` that `fault` applies to.
    pub fn inject_into(&mut self, fault: Fault, scope: FaultScope) {
        self.fault = Some((fault, scope));
    }

    /// The injected fault still waiting for its command, if any.
    pub fn pending_fault(&self) -> Option<Fault> {
        self.fault.map(|(f, _)| f)
    }

    /// Forgets the injected fault still waiting for its command.
    pub fn cancel_fault(&mut self) {
        self.fault = None;
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

    /// The simulated time, in ns, that the work [`MsdcModel::step`] did since the last call
    /// would have taken on hardware (bus frames at the programmed clock and width, card
    /// access, programming, erase, switch and power-up times); the counter restarts at 0.
    pub fn take_elapsed_ns(&mut self) -> u64 {
        core::mem::take(&mut self.elapsed_ns)
    }

    fn charge(&mut self, ns: u64) {
        self.elapsed_ns = self.elapsed_ns.saturating_add(ns);
        self.clock_ns = self.clock_ns.saturating_add(ns);
    }

    /// Charges `bus` ns of frames on the bus, `card` ns of the card's own work (access,
    /// programming, busy) and `wait` ns of the CQHCI block waiting for a queued task.
    fn charge_split(&mut self, bus: u64, card: u64, wait: u64) {
        self.split.bus_ns = self.split.bus_ns.saturating_add(bus);
        self.split.card_ns = self.split.card_ns.saturating_add(card);
        self.split.wait_ns = self.split.wait_ns.saturating_add(wait);
        self.charge(bus.saturating_add(card).saturating_add(wait));
    }

    /// Where the time charged since the model was built went: bus frames, the card's own
    /// work, the CQHCI block's waits for queued tasks (their sum is every charge).
    pub fn time_split(&self) -> TimeSplit {
        self.split
    }

    /// Time passed outside the model (the guest's time between two runs of the simulated
    /// board, or a host test's wait): the model clock advances by `ns`, so the card's
    /// queued tasks get on with their access meanwhile, but nothing is charged to
    /// [`MsdcModel::take_elapsed_ns`].
    pub fn elapse(&mut self, ns: u64) {
        self.clock_ns = self.clock_ns.saturating_add(ns);
    }

    /// Time outside the model as an absolute reading: the model clock moves on to `ns` if
    /// that is later (it never goes back). A board that keeps the guest waiting for the
    /// charged time can pass the guest's time since the model was built, so that the time
    /// it already waited for a charge is not counted twice.
    pub fn advance_to(&mut self, ns: u64) {
        self.clock_ns = self.clock_ns.max(ns);
    }

    /// The model clock, ns: everything charged plus everything [`MsdcModel::elapse`]d
    /// since the model was built (power cycles do not stop it).
    pub fn now_ns(&self) -> u64 {
        self.clock_ns
    }

    /// Changes the board's sampling windows from now on (a board whose timing drifts, so
    /// that the delays software tuned stop working and the host must re-tune).
    pub fn set_sampling(&mut self, windows: SampleWindows) {
        self.config.sampling = windows;
    }

    /// The bus as `MSDC_CFG` and `SDC_CFG` program it now.
    fn bus_setting(&self) -> BusSetting {
        BusSetting {
            hz: self.bus_clock_hz(),
            width: self.host_bus_width(),
            ddr: self.double_data_rate(),
        }
    }

    /// Latches `event` in `MSDC_INT`.
    fn raise(&mut self, event: Event) {
        self.int = event(self.int, true);
    }

    /// Charges one command exchange at the current bus clock.
    /// Sends an automatic command (auto-CMD23 or auto-CMD12); its response lands in
    /// `SDC_ACMD_RESP` with ACMDRDY, or ACMDTMO without one. Returns whether it answered.
    fn auto_command<C: CardSlot + ?Sized>(&mut self, card: &mut C, cmd: Command) -> bool {
        self.commands = self.commands.saturating_add(1);
        match self.card_command(card, cmd) {
            Ok(r) => {
                self.charge_command(ResponseLength::Short);
                self.acmd_resp = r.value();
                if !self.response_sampled() {
                    self.sampling_error();
                    self.raise(MSDC_INT::with_acmdcrcerr);
                    return false;
                }
                self.raise(MSDC_INT::with_acmdrdy);
                true
            }
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.raise(MSDC_INT::with_acmdtmo);
                false
            }
        }
    }

    /// Sends `cmd` to the card, or for a card stuck busy ([`Fault::BusyStuck`]) answers as
    /// a card in the programming state does: CMD0 resets it (and goes through), CMD13
    /// reports the programming state, not ready for data, and any other command is illegal
    /// there and unanswered.
    fn card_command<C: CardSlot + ?Sized>(
        &mut self,
        card: &mut C,
        cmd: Command,
    ) -> Result<Response, NoResponse> {
        if self.stuck_busy_until.is_none() {
            return card.command(cmd);
        }
        match cmd.index {
            0 => {
                self.stuck_busy_until = None;
                card.command(cmd)
            }
            13 => card.command(cmd).map(|r| match r {
                Response::R1(v) => Response::R1(
                    DEVICE_STATUS::from_raw(v)
                        .with_current_state(CardState::Prg)
                        .with_ready_for_data(false)
                        .raw(),
                ),
                other => other,
            }),
            _ => Err(NoResponse),
        }
    }

    /// The card holds DAT0 low from now for [`BUSY_STUCK_NS`] ([`Fault::BusyStuck`]).
    fn hold_busy(&mut self) {
        self.stuck_busy_until = Some(self.clock_ns.saturating_add(BUSY_STUCK_NS));
    }

    /// Whether the card holds DAT0 low, stuck busy ([`Fault::BusyStuck`]).
    pub fn card_stuck_busy(&self) -> bool {
        self.stuck_busy_until.is_some()
    }

    fn charge_command(&mut self, response: ResponseLength) {
        let ns = self
            .config
            .latency
            .command_ns(response, self.bus_clock_hz());
        self.charge_split(ns, 0, 0);
    }

    /// Charges the busy work the card reported for its last command.
    fn charge_work(&mut self, work: CardWork) {
        let l = &self.config.latency;
        let ns = match work {
            CardWork::None => 0,
            CardWork::PowerUp => l.power_up_ns,
            CardWork::Switch => l.switch_ns,
            CardWork::Flush => l.flush_ns,
            CardWork::Erase { blocks } => l.erase_time_ns(blocks),
        };
        self.charge_split(0, ns, 0);
    }

    /// Charges what the CQHCI block did on the bus, at the clock and width `MSDC_CFG` and
    /// `SDC_CFG` select: its commands (48-bit responses) and its data in 512-byte blocks
    /// ([`BusWork`] says how a task's access counts), then the card's busy work.
    fn charge_bus_work(&mut self, seen: &BusWork) {
        let ns = seen.bus_ns(&self.config.latency, self.bus_setting());
        let bus = seen
            .bus_ns(&self.config.latency.bus_only(), self.bus_setting())
            .saturating_sub(seen.access_wait_ns)
            .min(ns);
        self.charge_split(bus, ns - bus, 0);
        for &work in &seen.work {
            self.charge_work(work);
        }
    }

    /// Before a queue status poll of a timed queue that would find nothing ready: lets the
    /// polls that find nothing ready pass (each a CMD13 and the idle timer's wait), so that
    /// the poll the step makes is the first at or after the earliest ready time. A block
    /// with a task whose access is under way then waits for it in one step, not in as many
    /// polls as fit in the access time.
    fn wait_for_ready_task(&mut self) {
        let latency = self.config.latency;
        let Some(cq) = self.cqhci.as_ref() else {
            return;
        };
        if latency.queue_units == 0 {
            return;
        }
        let Some(waits_idle) = cq.next_step_polls() else {
            return;
        };
        let (pending, now) = (cq.tasks_in_device(), self.clock_ns);
        if self.task_timer.ready_mask(pending, now) & pending != 0 {
            return;
        }
        let Some(ready_at) = self.task_timer.next_ready(pending, now) else {
            return;
        };
        let idle = cq.idle_wait_ns();
        let poll = latency.command_ns(ResponseLength::Short, self.bus_clock_hz());
        let first = now.saturating_add(if waits_idle { idle } else { 0 });
        if first >= ready_at {
            return;
        }
        let period = poll.saturating_add(idle);
        let wait = if period == 0 {
            ready_at - first
        } else {
            (ready_at - first).div_ceil(period).saturating_mul(period)
        };
        self.charge_split(0, 0, wait);
    }

    /// The clock fields of `cfg` in the SoC's divider layout.
    fn clock_setting(&self, cfg: MSDC_CFG) -> ClockSetting {
        if self.config.divider_12bit {
            ClockSetting {
                div: cfg.ckdiv_extra(),
                mode: cfg.ckmod_extra(),
                hs400: cfg.hs400_ck_mode_extra(),
            }
        } else {
            ClockSetting {
                div: cfg.ckdiv(),
                mode: cfg.ckmod(),
                hs400: cfg.hs400_ck_mode(),
            }
        }
    }

    /// Whether `MSDC_CFG` selects a double data rate clock mode (DDR or HS400).
    fn double_data_rate(&self) -> bool {
        matches!(
            self.clock_setting(self.cfg).mode,
            ClockMode::Ddr | ClockMode::Hs400
        )
    }

    /// `MSDC_INT & MSDC_INTEN != 0`: the interrupt line (`MSDC_INT` as read, so with the
    /// CQHCI block's `CMDQ`).
    pub fn interrupt_pending(&self) -> bool {
        self.powered && self.int_status().raw() & self.inten.raw() != 0
    }

    /// Whether a command or data phase is in progress.
    pub fn busy(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// The bus clock `MSDC_CFG` selects, in Hz (what the card sees while a command runs);
    /// 0 while the source clock is gated or the power is off.
    ///
    /// CKMOD 0 divides: CKDIV 0 gives source/2, otherwise source/(4 × CKDIV). CKMOD 1 passes
    /// the source through. CKMOD 2 (DDR) and 3 (HS400) give source/4 for CKDIV 0, otherwise
    /// source/(8 × CKDIV); HS400 with HS400_CK_MODE gives source/2.
    pub fn bus_clock_hz(&self) -> u32 {
        if !self.clocked() {
            return 0;
        }
        let src = self.config.source_hz;
        let ClockSetting { div, mode, hs400 } = self.clock_setting(self.cfg);
        match (mode, div) {
            (ClockMode::Undivided, _) => src,
            (ClockMode::Divided, 0) => src / 2,
            (ClockMode::Divided, d) => src / d.saturating_mul(4),
            (ClockMode::Hs400, _) if hs400 => src / 2,
            (_, 0) => src / 4,
            (_, d) => src / d.saturating_mul(8),
        }
    }

    /// Whether the bus clock is within what `card` allows; records a violation if not.
    fn clock_ok<C: CardSlot + ?Sized>(&mut self, card: &C) -> bool {
        let hz = self.bus_clock_hz();
        match card.max_clock_hz() {
            Some(max) if hz > max => {
                self.violation(Violation::ClockTooFast { hz, max });
                false
            }
            _ => true,
        }
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
        // The controller's busy detection follows DAT0 after a write or an R1b command.
        let sdcbusy = sdcbusy || self.stuck_busy_until.is_some();
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
                if self.source_clock {
                    if self.clock_reads > 0 {
                        self.clock_reads -= 1;
                    } else {
                        v = v.with_ckstb(true);
                    }
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
                    self.clock_reads = CLOCK_STABLE_POLLS;
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
            }
            MSDC_INTEN::OFFSET => {
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

    fn write_dma_ctrl(&mut self, value: MSDC_DMA_CTRL) {
        self.dma_ctrl = value.with_start(false).with_stop(false).with_resume(false);
        if value.resume() {
            self.violation(Violation::DmaResume);
        }
        if value.stop() {
            self.dma_armed = false;
            self.stop_reads = RESET_POLLS;
            if matches!(self.phase, Phase::Data(_)) {
                self.phase = Phase::Idle;
            }
        } else if value.start() {
            self.dma_armed = true;
        }
    }

    fn reset(&mut self) {
        self.reset_reads = RESET_POLLS;
        self.phase = Phase::Idle;
        self.dma_armed = false;
        self.fifo_clear_reads = 0;
    }

    fn start_command(&mut self, word: SDC_CMD) {
        let c = RawCommand::decode(word);
        let unmodelled = word.raw() & SDC_CMD::UNMODELLED.raw();
        if unmodelled != 0 {
            self.violation(Violation::UnmodelledCommandBits(unmodelled));
        }
        match self.phase {
            Phase::Idle => {}
            Phase::Data(_) if word.stop() => {
                // A stop command aborts the pending data phase.
                self.dma_armed = false;
            }
            _ => {
                self.violation(Violation::CommandWhileBusy);
                return;
            }
        }
        if !self.cfg.mode() {
            self.violation(Violation::NotSdMode);
        }
        if self.clock_reads > 0 || !self.source_clock {
            self.violation(Violation::ClockNotStable);
        }
        let refused = self.cqhci_owns_bus();
        if refused {
            self.violation(Violation::CommandWhileCqhciActive);
        }
        self.phase = Phase::Command(RawCommand { refused, ..c });
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

    /// One step of the CQHCI block on the bus: its exchanges with the card are charged at
    /// the MSDC's bus clock and width (and its send-status idle timer as waited time), and
    /// the host-detected errors it reports (the host's
    /// own status on MediaTek) latch in `MSDC_INT` with `CMDQ`, as `msdc_cmdq_irq` reads
    /// them (command: CMDTMO or RSPCRCERR; data: DATTMO or DATCRCERR).
    fn step_cqhci<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        card: &mut C,
        mem: &mut M,
    ) -> bool {
        if self.cqhci.is_none() {
            return false;
        }
        self.wait_for_ready_task();
        let (latency, bus, start) = (self.config.latency, self.bus_setting(), self.clock_ns);
        let Some(cq) = self.cqhci.as_mut() else {
            return false;
        };
        let clock = (latency.queue_units != 0).then_some(QueueClock {
            timer: &mut self.task_timer,
            latency,
            bus,
            start,
        });
        let mut metered = Metered::new(card, clock);
        let progressed = cq.step(&mut metered, mem);
        let errors = cq.take_host_errors();
        let waited = cq.take_waited_ns();
        let seen = metered.seen();
        self.charge_bus_work(&seen);
        self.charge_split(0, 0, waited);
        let command: Option<Event> = errors.command.map(|kind| match kind {
            HostErrorKind::Crc => MSDC_INT::with_rspcrcerr as Event,
            HostErrorKind::Timeout | HostErrorKind::Other => MSDC_INT::with_cmdtmo,
        });
        let data: Option<Event> = errors.data.map(|kind| match kind {
            HostErrorKind::Crc => MSDC_INT::with_datcrcerr as Event,
            HostErrorKind::Timeout | HostErrorKind::Other => MSDC_INT::with_dattmo,
        });
        for event in [command, data].into_iter().flatten() {
            self.raise(event);
            self.cmdq_error = true;
        }
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

    /// Checks what the model can run of `c`, recording a violation for each problem; the
    /// command, if it runs at all.
    fn check_command(&mut self, c: &RawCommand) -> Option<CheckedCommand> {
        let word = c.word;
        let opcode = c.opcode();
        let data = word.dtype();
        let mut ok = true;
        if c.response.is_none() {
            self.violation(Violation::BadResponseType(word.rsptyp()));
            ok = false;
        }
        let auto = c
            .auto
            .filter(|&a| a == AutoCommand::None || data == DataType::Multiple);
        if auto.is_none() {
            self.violation(Violation::BadAutoCommand(word.autocmd()));
            ok = false;
        }
        if (opcode == 12) != word.stop() && opcode != 52 {
            self.violation(Violation::StopFlagMismatch(opcode));
        }
        if word.volswth() && opcode != 11 {
            self.violation(Violation::VoltageSwitchMismatch(opcode));
        }
        if data == DataType::Stream {
            self.violation(Violation::StreamTransfer);
            ok = false;
        }
        if data != DataType::None {
            if word.blklen() == 0 || (data == DataType::Multiple && self.blk_num == 0) {
                self.violation(Violation::EmptyTransfer);
                ok = false;
            }
            if self.cfg.pio() {
                self.violation(Violation::PioMode);
                ok = false;
            }
        }
        match (ok, c.response, auto) {
            (true, Some(response), Some(auto)) => Some(CheckedCommand {
                opcode,
                response,
                data,
                write: word.rw(),
                block_len: word.blklen(),
                auto,
            }),
            _ => None,
        }
    }

    fn run_command<C: CardSlot + ?Sized>(&mut self, raw: RawCommand, card: &mut C) {
        self.phase = Phase::Idle;
        if raw.refused {
            // Never on the bus: an injected fault waits for the next command.
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        }
        let Some(c) = self.check_command(&raw) else {
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        };
        let fault = match self.fault {
            Some((f, scope)) if f.applies_to(scope, &c) => self.fault.take().map(|(f, _)| f),
            _ => None,
        };
        if c.auto == AutoCommand::Cmd23 && !self.auto_command(card, Command::new(23, self.blk_num))
        {
            return;
        }
        if fault == Some(Fault::CommandTimeout) {
            self.charge_command(ResponseLength::Missing);
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        }
        // Recorded only: cards usually answer commands above their limit.
        self.clock_ok(card);
        self.commands = self.commands.saturating_add(1);
        let answer = self.card_command(card, Command::new(c.opcode, self.sdc_arg));
        let work = card.take_work();
        self.charge_work(work);
        let response = match answer {
            Ok(r) => r,
            // Nothing expected, nothing heard: the command was sent.
            Err(_) if c.response == ResponseType::None => Response::None,
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.raise(MSDC_INT::with_cmdtmo);
                return;
            }
        };
        self.charge_command(match (response, c.response) {
            (_, ResponseType::None) | (Response::None, _) => ResponseLength::None,
            (Response::R2(_), _) => ResponseLength::Long,
            _ => ResponseLength::Short,
        });
        if !self.take_response(&raw, &c, response) {
            return;
        }
        // R3 has no CRC: a misread one goes unnoticed, and only comes before tuning anyway.
        let checked = matches!(
            c.response,
            ResponseType::R1 | ResponseType::R1b | ResponseType::R2
        );
        if checked && !self.response_sampled() {
            // The card ran the command; a single block it reads out goes on the bus anyway
            // (the tuning commands CMD19 and CMD21 are such reads).
            self.sampling_error();
            self.raise(MSDC_INT::with_rspcrcerr);
            if c.data == DataType::Single && !c.write {
                self.drain_block(card, c.block_len);
            }
            return;
        }
        if fault == Some(Fault::ResponseCrc) {
            self.raise(MSDC_INT::with_rspcrcerr);
            return;
        }
        self.raise(MSDC_INT::with_cmdrdy);
        let blocks = match c.data {
            DataType::None => {
                if fault == Some(Fault::BusyStuck) {
                    self.hold_busy();
                }
                return;
            }
            DataType::Single => 1,
            DataType::Multiple | DataType::Stream => self.blk_num,
        };
        self.phase = Phase::Data(DataPhase {
            write: c.write,
            block_len: c.block_len,
            blocks,
            auto_cmd12: c.auto == AutoCommand::Cmd12,
            block_transfer: is_block_transfer(&c),
            fault: fault.filter(|f| f.in_data_phase()),
        });
    }

    /// Latches `response` as the hardware would receive it when expecting `c.response`;
    /// false (with the error interrupt raised) if the exchange failed.
    fn take_response(&mut self, raw: &RawCommand, c: &CheckedCommand, response: Response) -> bool {
        let mismatch = Violation::ResponseTypeMismatch {
            opcode: c.opcode,
            programmed: raw.word.rsptyp(),
        };
        match (response, c.response) {
            (Response::None, ResponseType::None) => true,
            (_, ResponseType::None) => {
                // The controller does not listen; the card's answer is lost.
                self.violation(mismatch);
                true
            }
            (Response::None, _) => {
                self.raise(MSDC_INT::with_cmdtmo);
                false
            }
            (Response::R2(w), ResponseType::R2) => {
                self.resp = [w[3], w[2], w[1], w[0]];
                true
            }
            (Response::R2(_), _) | (_, ResponseType::R2) => {
                // Lengths differ: the frame cannot be received.
                self.violation(mismatch);
                self.raise(MSDC_INT::with_cmdtmo);
                false
            }
            (Response::R3(v), ResponseType::R1 | ResponseType::R1b) => {
                // R3 carries no CRC (all ones): the CRC check fails.
                self.resp[0] = v;
                self.raise(MSDC_INT::with_rspcrcerr);
                false
            }
            (r, t) => {
                // R1b received as R1 is fine (see the module documentation); a response
                // with CRC received as R3 skips the CRC check, which no host intends.
                if t == ResponseType::R3 && !matches!(r, Response::R3(_)) {
                    self.violation(mismatch);
                }
                self.resp[0] = r.value();
                true
            }
        }
    }

    fn extended(&self) -> bool {
        self.config.support_64g && self.patch_bit2().support_64g()
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

    /// `MSDC_PS`'s line levels: DAT3..DAT0 and CMD as the card drove them at the last step
    /// (DAT0 low: busy), DAT7..DAT4 pulled up.
    fn line_levels(&self) -> MSDC_PS {
        let dat = 0xF0 | u32::from(self.lines.data & 0xF);
        MSDC_PS::LINES_IDLE
            .try_with_dat(dat)
            .unwrap_or(MSDC_PS::LINES_IDLE)
            .with_cmd(self.lines.cmd)
    }

    /// The bus timing the samplers face.
    fn timing(&self) -> Timing {
        if self.bus_clock_hz() <= RELAXED_CLOCK_HZ {
            Timing::Relaxed
        } else if self.clock_setting(self.cfg).mode == ClockMode::Hs400 {
            Timing::Hs400
        } else {
            Timing::Fast
        }
    }

    /// The effective response delay: the enabled cells of the top window's `EMMC_TOP_CMD`,
    /// or of the pad tune register and the one after it.
    fn cmd_delay(&self) -> u32 {
        if self.config.top_region {
            let clock_tune = EMMC_TOP_CONTROL::from_raw(self.top_value(EMMC_TOP_CONTROL::OFFSET))
                .pad_rxdly_sel();
            let r = EMMC_TOP_CMD::from_raw(self.top_value(EMMC_TOP_CMD::OFFSET));
            cascade(
                (r.pad_cmd_rd_rxdly_sel() || clock_tune, r.pad_cmd_rxdly()),
                (r.pad_cmd_rd_rxdly2_sel(), r.pad_cmd_rxdly2()),
            )
        } else {
            let (first, second) = self.pad_tune_cells();
            cascade(
                (first.cmd_sel() || first.rxdlysel(), first.cmdrdly()),
                (second.cmd2_sel(), second.cmdrdly2()),
            )
        }
    }

    /// The effective read data (and CRC status) delay, as [`MsdcModel::cmd_delay`] for the
    /// data lines (`EMMC_TOP_CONTROL`, or `DATRRDLY`/`DATRRDLY2`).
    fn data_delay(&self) -> u32 {
        if self.config.top_region {
            let r = EMMC_TOP_CONTROL::from_raw(self.top_value(EMMC_TOP_CONTROL::OFFSET));
            cascade(
                (
                    r.pad_dat_rd_rxdly_sel() || r.pad_rxdly_sel(),
                    r.pad_dat_rd_rxdly(),
                ),
                (r.pad_dat_rd_rxdly2_sel(), r.pad_dat_rd_rxdly2()),
            )
        } else {
            let (first, second) = self.pad_tune_cells();
            cascade(
                (first.rd_sel() || first.rxdlysel(), first.datrrdly()),
                (second.rd2_sel(), second.datrrdly2()),
            )
        }
    }

    /// The pad tune register and the one after it, decoded.
    fn pad_tune_cells(&self) -> (PAD_TUNE_CELLS, PAD_TUNE2_CELLS) {
        let layout = self.config.pad_tune;
        (
            PAD_TUNE_CELLS::from_raw(self.plain_value(layout.offset())),
            PAD_TUNE2_CELLS::from_raw(self.plain_value(layout.second_offset())),
        )
    }

    /// The data strobe's `DLY1` setting, 0 while `DLY_SEL` bypasses the cells.
    fn strobe_delay(&self) -> u32 {
        if self.config.top_region {
            let r = EMMC50_PAD_DS_TUNE::from_raw(self.top_value(EMMC50_PAD_DS_TUNE::OFFSET));
            if r.pad_ds_dly_sel() {
                r.pad_ds_dly1()
            } else {
                0
            }
        } else {
            let r = PAD_DS_TUNE::from_raw(self.plain_value(PAD_DS_TUNE::OFFSET));
            if r.dly_sel() {
                r.dly1()
            } else {
                0
            }
        }
    }

    fn strobe_latches(&self) -> bool {
        bit_set(u64::from(self.config.sampling.strobe), self.strobe_delay())
    }

    /// Whether the host reads the response right at the current timing, delay and edge.
    fn response_sampled(&self) -> bool {
        let w = &self.config.sampling;
        match self.timing() {
            Timing::Relaxed => true,
            Timing::Hs400
                if EMMC50_CFG0::from_raw(self.plain_value(EMMC50_CFG0::OFFSET)).cmd_resp_sel() =>
            {
                self.strobe_latches()
            }
            Timing::Fast | Timing::Hs400 => {
                let edge = MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET)).rspl();
                bit_set(w.cmd[usize::from(edge)], self.cmd_delay())
            }
        }
    }

    /// Whether the host reads the data (`write == false`) or the write CRC status right.
    fn data_sampled(&self, write: bool) -> bool {
        let w = &self.config.sampling;
        match self.timing() {
            Timing::Relaxed => true,
            // The card drives the strobe with its read data and its CRC status.
            Timing::Hs400 => self.strobe_latches(),
            Timing::Fast => {
                let falling = if self.config.new_rx {
                    if write {
                        self.patch_bit2().cfgcrcstsedge()
                    } else {
                        MSDC_PATCH_BIT::from_raw(self.plain_value(MSDC_PATCH_BIT::OFFSET))
                            .rd_dat_sel()
                    }
                } else {
                    let iocon = MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET));
                    if write {
                        iocon.w_dspl()
                    } else {
                        iocon.dspl()
                    }
                };
                bit_set(w.data[usize::from(falling)], self.data_delay())
            }
        }
    }

    fn sampling_error(&mut self) {
        self.sampling_errors = self.sampling_errors.saturating_add(1);
    }

    /// How many CRC errors (RSPCRCERR, ACMDCRCERR, DATCRCERR) came from a sample outside
    /// the board's windows ([`ModelConfig::sampling`]): expected while software tunes, so
    /// counted here rather than as violations.
    pub fn sampling_errors(&self) -> u32 {
        self.sampling_errors
    }

    /// Reads and drops the block a card sends after a command whose response the host
    /// could not read: the card ran the command and sends its data all the same.
    fn drain_block<C: CardSlot + ?Sized>(&mut self, card: &mut C, block_len: u32) {
        let mut buf = [0u8; CHUNK];
        let mut left = block_len as usize;
        while left > 0 {
            let n = left.min(CHUNK);
            let Some(chunk) = buf.get_mut(..n) else {
                return;
            };
            if card.read_data(chunk).is_err() {
                return;
            }
            left -= n;
        }
        let block = DataPhase {
            write: false,
            block_len,
            blocks: 1,
            auto_cmd12: false,
            block_transfer: false,
            fault: None,
        };
        self.charge_data(&block, u64::from(block_len));
    }

    /// Brings the card up to date with what the controller did since the last look, and
    /// takes the card's line levels: a hardware reset pulse on `EMMC_IOCON`, the card clock
    /// starting or stopping (`MSDC_CFG.CKPDN` with the source clock and power), DAT3..DAT0
    /// and CMD for `MSDC_PS`, and the SDIO interrupt into `MSDC_INT.SDIOIRQ`.
    /// [`MsdcModel::step`] does this before and after its work; a board can call it when it
    /// has no work to run.
    pub fn sync_card<C: CardSlot + ?Sized>(&mut self, card: &mut C) {
        if core::mem::take(&mut self.hardware_reset) {
            card.hardware_reset();
            // RST_n aborts what the card was doing.
            self.stuck_busy_until = None;
        }
        if self
            .stuck_busy_until
            .is_some_and(|until| self.clock_ns >= until)
        {
            self.stuck_busy_until = None;
        }
        let running = self.clocked() && self.cfg.ckpdn();
        if running != self.card_clock {
            self.card_clock = running;
            card.clock_running(running);
        }
        let stuck = self.stuck_busy_until.is_some();
        self.lines = Lines {
            // A card stuck busy holds DAT0 low.
            data: card.data_lines() & if stuck { !1 } else { 0xFF },
            cmd: card.cmd_line(),
            sdio_interrupt: card.sdio_interrupt(),
        };
        let detected = self.sdio_interrupt_seen();
        if detected && !self.sdio_detected {
            self.raise(MSDC_INT::with_sdioirq);
        }
        self.sdio_detected = detected;
    }

    /// Whether the SDIO interrupt detector sees an interrupt: SDIO mode with detection on
    /// (`SDC_CFG.SDIO`, `SDIOIDE`, `SDC_ADV_CFG0.DAT1_IRQ_TRIGGER`) and the card asserting
    /// it where DAT1 carries interrupts: always on a 1-bit bus, outside data phases on a
    /// wider one (the SDIO interrupt period).
    fn sdio_interrupt_seen(&self) -> bool {
        let adv = SDC_ADV_CFG0::from_raw(self.plain_value(SDC_ADV_CFG0::OFFSET));
        let period = self.host_bus_width() <= 1 || !matches!(self.phase, Phase::Data(_));
        self.powered
            && self.sdc_cfg.sdio()
            && self.sdc_cfg.sdioide()
            && adv.dat1_irq_trigger()
            && self.lines.sdio_interrupt
            && period
    }

    /// The DMA address of a 32-bit pointer word and its high bits 35:32, which count only
    /// with 36-bit DMA.
    fn dma_address(&self, low: u32, high: u32) -> u64 {
        let high = if self.extended() {
            u64::from(high) << u32::BITS
        } else {
            0
        };
        u64::from(low) | high
    }

    fn read_descriptor<M: BusMemory, const N: usize>(
        &mut self,
        mem: &mut M,
        address: u64,
    ) -> Option<[u8; N]> {
        let mut d = [0u8; N];
        match mem.read(address, &mut d) {
            Ok(()) => Some(d),
            Err(e) => {
                self.violation(Violation::Bus(e.address));
                None
            }
        }
    }

    /// Flips a bit of the checksum byte (bits 15:8 of the info word that leads both GPD
    /// and BD) of the descriptor at `address` in memory ([`Fault::GpdChecksum`],
    /// [`Fault::BdChecksum`]): a corruption only the checksum check notices.
    fn corrupt_checksum<M: BusMemory>(&mut self, mem: &mut M, address: u64) {
        let at = address.saturating_add(1);
        let mut byte = [0u8; 1];
        let corrupted = mem
            .read(at, &mut byte)
            .and_then(|()| mem.write(at, &[byte[0] ^ 1]));
        if let Err(e) = corrupted {
            self.violation(Violation::Bus(e.address));
        }
    }

    fn checksum_ok(&self, d: &[u8]) -> bool {
        !self.dma_cfg.decsen() || checksum_sealed(d)
    }

    fn finish_data(&mut self, event: Event) {
        self.raise(event);
        self.phase = Phase::Idle;
        self.dma_armed = false;
    }

    fn run_data<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        d: DataPhase,
        card: &mut C,
        mem: &mut M,
    ) {
        if !self.dma_ctrl.mode() {
            self.violation(Violation::BasicDma);
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if d.fault == Some(Fault::DataTimeout) {
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        let gpd_address = self.dma_address(self.dma_sa, self.dma_sa_h4.dma_addr_high_4bit());
        if d.fault == Some(Fault::GpdChecksum) {
            self.corrupt_checksum(mem, gpd_address);
        }
        let Some(gpd_bytes) = self.read_descriptor::<M, { Gpd::SIZE }>(mem, gpd_address) else {
            return self.finish_data(MSDC_INT::with_dattmo);
        };
        let g = Gpd::decode(&gpd_bytes);
        if !g.info.hwo() {
            self.violation(Violation::GpdNotOwned(gpd_address));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if !self.checksum_ok(&gpd_bytes) {
            return self.finish_data(MSDC_INT::with_dma_gpdcserr);
        }
        if !g.info.bdp() {
            self.violation(Violation::GpdWithoutBd(gpd_address));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        // The engine fetches the next GPD when this one completes; it must not be live.
        let next_gpd = self.dma_address(g.next, g.info.next_h4());
        let Some(next) = self.read_descriptor::<M, { Gpd::SIZE }>(mem, next_gpd) else {
            return self.finish_data(MSDC_INT::with_dattmo);
        };
        if Gpd::decode(&next).info.hwo() {
            self.violation(Violation::GpdChain(next_gpd));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        let mut bd_address = self.dma_address(g.ptr, g.info.ptr_h4());
        if d.fault == Some(Fault::BdChecksum) {
            self.corrupt_checksum(mem, bd_address);
        }
        let expected = u64::from(d.block_len) * u64::from(d.blocks);
        let mut done = 0u64;
        let mut described = 0u64;
        let mut card_failed = false;
        let mut chain_ended = false;
        for _ in 0..MAX_BD_CHAIN {
            let Some(bd_bytes) = self.read_descriptor::<M, { Bd::SIZE }>(mem, bd_address) else {
                return self.finish_data(MSDC_INT::with_dattmo);
            };
            if !self.checksum_ok(&bd_bytes) {
                return self.finish_data(MSDC_INT::with_dma_bdcserr);
            }
            let b = Bd::decode(&bd_bytes);
            let buffer = self.dma_address(b.ptr, b.info.ptr_h4());
            let len = u64::from(if self.extended() {
                b.data_len.buflen_ext()
            } else {
                b.data_len.buflen()
            });
            described = described.saturating_add(len);
            let take = len.min(expected.saturating_sub(done));
            if !card_failed && take > 0 {
                match self.transfer(d.write, card, mem, buffer, take) {
                    Ok(()) => done = done.saturating_add(take),
                    Err(()) => card_failed = true,
                }
            }
            if b.info.eol() {
                chain_ended = true;
                break;
            }
            bd_address = self.dma_address(b.next, b.info.next_h4());
        }
        if !chain_ended {
            self.violation(Violation::BdChainTooLong);
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if described != expected {
            self.violation(Violation::LengthMismatch {
                expected,
                described,
            });
        }
        // The engine hands the GPD back (HWO clear) once it has consumed it, as MediaTek's
        // GPD engines do; software sets HWO again (and re-seals the checksum) per request.
        // The info word leads the GPD.
        let released = g.info.with_hwo(false).raw().to_le_bytes();
        if let Err(e) = mem.write(gpd_address, &released) {
            self.violation(Violation::Bus(e.address));
        }
        self.charge_data(&d, done);
        if card_failed || done < expected {
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if d.auto_cmd12 {
            self.auto_command(card, Command::new(12, 0));
            let work = card.take_work();
            self.charge_work(work);
        }
        let width_ok = match card.bus_width() {
            Some(w) => w == self.host_bus_width(),
            None => true,
        };
        let clock_ok = self.clock_ok(card);
        if d.fault.is_some_and(Fault::data_crc) || !width_ok || !clock_ok {
            self.finish_data(MSDC_INT::with_datcrcerr)
        } else if !self.data_sampled(d.write) {
            // Read data landed in memory misread; written data reached the card intact and
            // only its CRC status was misread.
            self.sampling_error();
            self.finish_data(MSDC_INT::with_datcrcerr)
        } else {
            if d.block_transfer {
                self.block_transfers = self.block_transfers.saturating_add(1);
            }
            if d.fault == Some(Fault::BusyStuck) {
                self.hold_busy();
            }
            self.finish_data(MSDC_INT::with_xfer_compl)
        }
    }

    /// Charges the data phase `d` for the `done` bytes that moved (whole blocks, and a
    /// started block counts).
    fn charge_data(&mut self, d: &DataPhase, done: u64) {
        if d.block_len == 0 {
            return;
        }
        let blocks = done.div_ceil(u64::from(d.block_len));
        let (hz, width, ddr) = (
            self.bus_clock_hz(),
            self.host_bus_width(),
            self.double_data_rate(),
        );
        let time = |l: &Latency| {
            if d.write {
                l.write_ns(d.block_len, blocks, width, ddr, hz)
            } else {
                l.read_ns(d.block_len, blocks, width, ddr, hz)
            }
        };
        let ns = time(&self.config.latency);
        let bus = time(&self.config.latency.bus_only()).min(ns);
        self.charge_split(bus, ns - bus, 0);
    }

    /// The data lines `SDC_CFG` selects (0 for the reserved encoding).
    fn host_bus_width(&self) -> u8 {
        self.sdc_cfg.buswidth().map_or(0, BusWidth::lines)
    }

    /// Moves `len` bytes between the card and memory at `address`. `Err` if the card
    /// stopped (the host sees a data timeout) or the memory is not mapped.
    fn transfer<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        write: bool,
        card: &mut C,
        mem: &mut M,
        address: u64,
        len: u64,
    ) -> Result<(), ()> {
        let mut buf = [0u8; CHUNK];
        let mut offset = 0u64;
        while offset < len {
            let n = usize::try_from((len - offset).min(CHUNK as u64)).unwrap_or(CHUNK);
            let chunk = buf.get_mut(..n).ok_or(())?;
            let at = address.checked_add(offset).ok_or(())?;
            if write {
                if let Err(e) = mem.read(at, chunk) {
                    self.violation(Violation::Bus(e.address));
                    return Err(());
                }
                card.write_data(chunk).map_err(|_| ())?;
            } else {
                card.read_data(chunk).map_err(|_| ())?;
                if let Err(e) = mem.write(at, chunk) {
                    self.violation(Violation::Bus(e.address));
                    return Err(());
                }
            }
            offset += n as u64;
        }
        Ok(())
    }
}

/// The delay of two cascaded cells, each counted when its select bit is set.
fn cascade(first: (bool, u32), second: (bool, u32)) -> u32 {
    let cell = |(on, cells): (bool, u32)| if on { cells } else { 0 };
    cell(first) + cell(second)
}

/// Whether bit `delay` of `window` is set (none past the window's width).
fn bit_set(window: u64, delay: u32) -> bool {
    window.checked_shr(delay).is_some_and(|w| w & 1 == 1)
}

impl RegisterFile for MsdcModel {
    fn read(&mut self, offset: usize) -> u32 {
        MsdcModel::read(self, offset)
    }

    fn write(&mut self, offset: usize, value: u32) {
        MsdcModel::write(self, offset, value);
    }

    // Self-clearing bits settle after a number of reads ([`RESET_POLLS`],
    // [`CLOCK_STABLE_POLLS`]), not with time: the default `wait_us` does nothing.
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
