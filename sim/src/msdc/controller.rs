// SPDX-License-Identifier: GPL-2.0
//! The MSDC controller model: a register file (`read`/`write` by offset) and a `step` that
//! runs the pending command, and the GPD/BD descriptor DMA, against an attached card.
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
//!   parameters of [`ModelConfig::latency`] (see the `latency` module).
//!
//! Not modelled, and reported as a [`Violation`] when used: PIO mode, basic (non
//! descriptor) DMA, DMA resume, stream transfers, GPD chains longer than one GPD (the
//! first GPD's `next` must point at mapped memory holding a GPD with HWO clear), a GPD
//! without BDs, registers outside the known set. Timeout counters (DTOC/WRDTOC) are stored
//! but not counted down: a data timeout happens when the card stops supplying or taking
//! data, and a failed data phase is charged only the bus time it used.

use super::super::emmc::{CardWork, Command, Response};
use super::super::latency::{Latency, ResponseLength};
use super::super::memory::BusMemory;
use super::regs::{self, bd, cfg, cmd, dma_cfg, dma_ctrl, fifocs, gpd, int, patch2, sts};
use super::slot::CardSlot;

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
const PLAIN_REGISTERS: [usize; 17] = [
    regs::MSDC_IOCON,
    0x64,
    0x68,
    0x7C,
    regs::MSDC_PATCH_BIT,
    regs::MSDC_PATCH_BIT1,
    regs::MSDC_PATCH_BIT2,
    0xEC,
    0xF0,
    0xF4,
    0x188,
    0x18C,
    0x204,
    0x208,
    0x20C,
    0x21C,
    0x220,
];

/// `MSDC_PS` bits software can write: CDEN (0) and CDDEBOUNCE (15:12).
const PS_WRITABLE: u32 = 0xF001;
/// `MSDC_PS.DAT` (23:16) with every data line high.
const PS_DAT_IDLE: u32 = 0xFF << 16;
/// `MSDC_PS.CMD` (24): the command line high.
const PS_CMD_IDLE: u32 = 1 << 24;

/// `SDC_CMD` bits the model does not implement: BRK (6), GOIRQ (15), ACMD53 (31).
const UNMODELLED_CMD_BITS: u32 = (1 << 6) | (1 << 15) | (1 << 31);

/// A fault to inject into the next command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The command is lost: the card never sees it; CMDTMO.
    CommandTimeout,
    /// The card runs the command but the response fails its CRC: RSPCRCERR.
    ResponseCrc,
    /// The data phase runs but fails its CRC: DATCRCERR instead of XFER_COMPL.
    DataCrc,
    /// The data never arrives (the card's data phase stays open): DATTMO.
    DataTimeout,
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
    /// The bus clock is faster than the card allows in its current mode.
    ClockTooFast {
        /// Bus clock from `MSDC_CFG` and [`ModelConfig::source_hz`].
        hz: u32,
        /// The card's limit.
        max: u32,
    },
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
}

impl Default for ModelConfig {
    /// 36-bit DMA, 8-bit divider, 200 MHz source, eMMC timing ([`Latency::EMMC`]).
    fn default() -> Self {
        Self {
            support_64g: true,
            divider_12bit: false,
            source_hz: 200_000_000,
            latency: Latency::EMMC,
        }
    }
}

/// Decoded `SDC_CMD` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RawCommand {
    opcode: u8,
    rsptyp: u32,
    dtype: u32,
    write: bool,
    stop: bool,
    block_len: u32,
    auto_cmd: u32,
    volswth: bool,
}

impl RawCommand {
    fn decode(word: u32) -> Self {
        Self {
            opcode: (word & cmd::OPCODE) as u8,
            rsptyp: (word >> cmd::RSPTYP_SHIFT) & 7,
            dtype: (word >> cmd::DTYPE_SHIFT) & 3,
            write: word & cmd::RW != 0,
            stop: word & cmd::STOP != 0,
            block_len: (word >> cmd::BLKLEN_SHIFT) & 0xFFF,
            auto_cmd: (word >> cmd::AUTOCMD_SHIFT) & 3,
            volswth: word & cmd::VOLSWTH != 0,
        }
    }
}

/// The data phase waiting for (or running) the DMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DataPhase {
    write: bool,
    block_len: u32,
    blocks: u32,
    auto_cmd12: bool,
    fault: Option<Fault>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Command(RawCommand),
    Data(DataPhase),
}

/// The MSDC controller (base register window, below the CQHCI block at 0x800).
#[derive(Debug)]
pub struct MsdcModel {
    config: ModelConfig,
    cfg: u32,
    ps: u32,
    int: u32,
    inten: u32,
    sdc_cfg: u32,
    sdc_arg: u32,
    sdc_sts: u32,
    resp: [u32; 4],
    blk_num: u32,
    acmd_resp: u32,
    dma_sa_h4: u32,
    dma_sa: u32,
    dma_ctrl: u32,
    dma_cfg: u32,
    plain: [u32; PLAIN_REGISTERS.len()],
    reset_reads: u32,
    fifo_clear_reads: u32,
    clock_reads: u32,
    stop_reads: u32,
    dma_armed: bool,
    phase: Phase,
    fault: Option<Fault>,
    commands: u32,
    elapsed_ns: u64,
    violation_count: u32,
    violations: [Option<Violation>; MAX_VIOLATIONS],
}

impl MsdcModel {
    /// A controller after power-on: everything zero, clock stable.
    pub fn new(config: ModelConfig) -> Self {
        Self {
            config,
            cfg: 0,
            ps: 0,
            int: 0,
            inten: 0,
            sdc_cfg: 0,
            sdc_arg: 0,
            sdc_sts: 0,
            resp: [0; 4],
            blk_num: 0,
            acmd_resp: 0,
            dma_sa_h4: 0,
            dma_sa: 0,
            dma_ctrl: 0,
            dma_cfg: 0,
            plain: [0; PLAIN_REGISTERS.len()],
            reset_reads: 0,
            fifo_clear_reads: 0,
            clock_reads: 0,
            stop_reads: 0,
            dma_armed: false,
            phase: Phase::Idle,
            fault: None,
            commands: 0,
            elapsed_ns: 0,
            violation_count: 0,
            violations: [None; MAX_VIOLATIONS],
        }
    }

    /// Makes `fault` happen to the next command written to `SDC_CMD`.
    pub fn inject(&mut self, fault: Fault) {
        self.fault = Some(fault);
    }

    /// Total number of violations, and the first [`MAX_VIOLATIONS`] of them.
    pub fn violations(&self) -> (u32, &[Option<Violation>; MAX_VIOLATIONS]) {
        (self.violation_count, &self.violations)
    }

    /// Number of commands sent to the card (including automatic ones).
    pub fn commands(&self) -> u32 {
        self.commands
    }

    /// The simulated time, in ns, that the work [`MsdcModel::step`] did since the last call
    /// would have taken on hardware (bus frames at the programmed clock and width, card
    /// access, programming, erase, switch and power-up times); the counter restarts at 0.
    pub fn take_elapsed_ns(&mut self) -> u64 {
        core::mem::take(&mut self.elapsed_ns)
    }

    fn charge(&mut self, ns: u64) {
        self.elapsed_ns = self.elapsed_ns.saturating_add(ns);
    }

    /// Charges one command exchange at the current bus clock.
    /// Sends an automatic command (auto-CMD23 or auto-CMD12); its response lands in
    /// `SDC_ACMD_RESP` with ACMDRDY, or ACMDTMO without one. Returns whether it answered.
    fn auto_command<C: CardSlot + ?Sized>(&mut self, card: &mut C, cmd: Command) -> bool {
        self.commands = self.commands.saturating_add(1);
        match card.command(cmd) {
            Ok(r) => {
                self.charge_command(ResponseLength::Short);
                self.acmd_resp = r.value();
                self.int |= int::ACMDRDY;
                true
            }
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.int |= int::ACMDTMO;
                false
            }
        }
    }

    fn charge_command(&mut self, response: ResponseLength) {
        let ns = self
            .config
            .latency
            .command_ns(response, self.bus_clock_hz());
        self.charge(ns);
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
        self.charge(ns);
    }

    /// Whether `MSDC_CFG` selects a double data rate clock mode (CKMOD 2 DDR, 3 HS400).
    fn double_data_rate(&self) -> bool {
        let mode = if self.config.divider_12bit {
            (self.cfg >> 20) & 3
        } else {
            (self.cfg >> 16) & 3
        };
        mode >= 2
    }

    /// `MSDC_INT & MSDC_INTEN != 0`: the interrupt line.
    pub fn interrupt_pending(&self) -> bool {
        self.int & self.inten != 0
    }

    /// Whether a command or data phase is in progress.
    pub fn busy(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// The bus clock `MSDC_CFG` selects, in Hz (what the card sees while a command runs).
    ///
    /// CKMOD 0 divides: CKDIV 0 gives source/2, otherwise source/(4 × CKDIV). CKMOD 1 passes
    /// the source through. CKMOD 2 (DDR) and 3 (HS400) give source/4 for CKDIV 0, otherwise
    /// source/(8 × CKDIV); HS400 with HS400_CK_MODE gives source/2.
    pub fn bus_clock_hz(&self) -> u32 {
        let src = self.config.source_hz;
        let (div, mode, hs400) = if self.config.divider_12bit {
            (
                (self.cfg >> 8) & 0xFFF,
                (self.cfg >> 20) & 3,
                self.cfg & cfg::HS400_CK_MODE_EXTRA != 0,
            )
        } else {
            (
                (self.cfg >> 8) & 0xFF,
                (self.cfg >> 16) & 3,
                self.cfg & cfg::HS400_CK_MODE != 0,
            )
        };
        match (mode, div) {
            (1, _) => src,
            (0, 0) => src / 2,
            (0, d) => src / d.saturating_mul(4),
            (3, _) if hs400 => src / 2,
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
        self.violation_count = self.violation_count.saturating_add(1);
    }

    fn plain_index(offset: usize) -> Option<usize> {
        PLAIN_REGISTERS.iter().position(|&o| o == offset)
    }

    fn clock_fields(&self) -> u32 {
        if self.config.divider_12bit {
            cfg::CLOCK_12BIT | cfg::HS400_CK_MODE_EXTRA
        } else {
            cfg::CLOCK_8BIT | cfg::HS400_CK_MODE
        }
    }

    fn sts(&self) -> u32 {
        let busy = match self.phase {
            Phase::Idle => 0,
            Phase::Command(c) => {
                let long = c.dtype != 0 || c.rsptyp == 7;
                sts::CMDBUSY | if long { sts::SDCBUSY } else { 0 }
            }
            Phase::Data(_) => sts::SDCBUSY,
        };
        (self.sdc_sts & !(sts::CMDBUSY | sts::SDCBUSY)) | busy
    }

    /// Reads the register at `offset`. Reads have the polling side effects of the hardware
    /// (self-clearing bits settle after a number of reads).
    pub fn read(&mut self, offset: usize) -> u32 {
        match offset {
            regs::MSDC_CFG => {
                let mut v = self.cfg;
                if self.reset_reads > 0 {
                    self.reset_reads -= 1;
                    v |= cfg::RST;
                }
                if self.clock_reads > 0 {
                    self.clock_reads -= 1;
                } else {
                    v |= cfg::CKSTB;
                }
                v
            }
            regs::MSDC_PS => {
                // Lines idle high (DAT0 high: not busy), card present (CDSTS 0), not
                // write protected.
                (self.ps & PS_WRITABLE) | PS_DAT_IDLE | PS_CMD_IDLE
            }
            regs::MSDC_INT => self.int,
            regs::MSDC_INTEN => self.inten,
            regs::MSDC_FIFOCS => {
                // The DMA empties the FIFO within a step, so both counts read zero.
                if self.fifo_clear_reads > 0 {
                    self.fifo_clear_reads -= 1;
                    fifocs::CLR
                } else {
                    0
                }
            }
            regs::SDC_CFG => self.sdc_cfg,
            regs::SDC_CMD => 0,
            regs::SDC_ARG => self.sdc_arg,
            regs::SDC_STS => self.sts(),
            regs::SDC_RESP0 => self.resp[0],
            regs::SDC_RESP1 => self.resp[1],
            regs::SDC_RESP2 => self.resp[2],
            regs::SDC_RESP3 => self.resp[3],
            regs::SDC_BLK_NUM => self.blk_num,
            regs::SDC_ACMD_RESP => self.acmd_resp,
            regs::DMA_SA_H4BIT => self.dma_sa_h4,
            regs::MSDC_DMA_SA => self.dma_sa,
            regs::MSDC_DMA_CTRL => {
                let mut v = self.dma_ctrl;
                if self.stop_reads > 0 {
                    self.stop_reads -= 1;
                    v |= dma_ctrl::STOP;
                }
                v
            }
            regs::MSDC_DMA_CFG => self.dma_cfg | if self.dma_armed { dma_cfg::STS } else { 0 },
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
        match offset {
            regs::MSDC_CFG => {
                let stored = value & !(cfg::RST | cfg::CKSTB | cfg::BV18PSS);
                if (stored ^ self.cfg) & self.clock_fields() != 0 {
                    self.clock_reads = CLOCK_STABLE_POLLS;
                }
                self.cfg = stored;
                if value & cfg::RST != 0 {
                    self.reset();
                }
            }
            regs::MSDC_PS => self.ps = value & PS_WRITABLE,
            regs::MSDC_INT => self.int &= !value,
            regs::MSDC_INTEN => self.inten = value & int::ENABLE_ALL,
            regs::MSDC_FIFOCS => {
                if value & fifocs::CLR != 0 {
                    self.fifo_clear_reads = RESET_POLLS;
                }
            }
            regs::SDC_CFG => self.sdc_cfg = value,
            regs::SDC_CMD => self.start_command(value),
            regs::SDC_ARG => self.sdc_arg = value,
            regs::SDC_STS => self.sdc_sts = value & !(sts::CMDBUSY | sts::SDCBUSY),
            regs::SDC_RESP0
            | regs::SDC_RESP1
            | regs::SDC_RESP2
            | regs::SDC_RESP3
            | regs::SDC_ACMD_RESP => self.violation(Violation::ReadOnlyWrite(offset)),
            regs::SDC_BLK_NUM => self.blk_num = value,
            regs::DMA_SA_H4BIT => self.dma_sa_h4 = value & 0xF,
            regs::MSDC_DMA_SA => self.dma_sa = value,
            regs::MSDC_DMA_CTRL => self.write_dma_ctrl(value),
            regs::MSDC_DMA_CFG => self.dma_cfg = value & !dma_cfg::STS,
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

    fn write_dma_ctrl(&mut self, value: u32) {
        self.dma_ctrl = value & !(dma_ctrl::START | dma_ctrl::STOP | dma_ctrl::RESUME);
        if value & dma_ctrl::RESUME != 0 {
            self.violation(Violation::DmaResume);
        }
        if value & dma_ctrl::STOP != 0 {
            self.dma_armed = false;
            self.stop_reads = RESET_POLLS;
            if matches!(self.phase, Phase::Data(_)) {
                self.phase = Phase::Idle;
            }
        } else if value & dma_ctrl::START != 0 {
            self.dma_armed = true;
        }
    }

    fn reset(&mut self) {
        self.reset_reads = RESET_POLLS;
        self.phase = Phase::Idle;
        self.dma_armed = false;
        self.fifo_clear_reads = 0;
    }

    fn start_command(&mut self, word: u32) {
        let c = RawCommand::decode(word);
        if word & UNMODELLED_CMD_BITS != 0 {
            self.violation(Violation::UnmodelledCommandBits(word & UNMODELLED_CMD_BITS));
        }
        match self.phase {
            Phase::Idle => {}
            Phase::Data(_) if c.stop => {
                // A stop command aborts the pending data phase.
                self.dma_armed = false;
            }
            _ => {
                self.violation(Violation::CommandWhileBusy);
                return;
            }
        }
        if self.cfg & cfg::MODE == 0 {
            self.violation(Violation::NotSdMode);
        }
        if self.clock_reads > 0 {
            self.violation(Violation::ClockNotStable);
        }
        self.phase = Phase::Command(c);
    }

    /// Advances the model by one unit of work: runs the pending command, or the pending
    /// data phase once the DMA was started. Returns whether anything happened.
    pub fn step<C: CardSlot + ?Sized, M: BusMemory>(&mut self, card: &mut C, mem: &mut M) -> bool {
        match self.phase {
            Phase::Idle => false,
            Phase::Command(c) => {
                self.run_command(c, card);
                true
            }
            Phase::Data(d) if self.dma_armed => {
                self.run_data(d, card, mem);
                true
            }
            Phase::Data(_) => false,
        }
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

    fn check_command(&mut self, c: &RawCommand) -> bool {
        let mut ok = true;
        if !matches!(c.rsptyp, 0..=3 | 7) {
            self.violation(Violation::BadResponseType(c.rsptyp));
            ok = false;
        }
        if c.auto_cmd == 3 || (c.auto_cmd != 0 && c.dtype != 2) {
            self.violation(Violation::BadAutoCommand(c.auto_cmd));
            ok = false;
        }
        if (c.opcode == 12) != c.stop && c.opcode != 52 {
            self.violation(Violation::StopFlagMismatch(c.opcode));
        }
        if c.volswth && c.opcode != 11 {
            self.violation(Violation::VoltageSwitchMismatch(c.opcode));
        }
        if c.dtype == 3 {
            self.violation(Violation::StreamTransfer);
            ok = false;
        }
        if c.dtype != 0 {
            if c.block_len == 0 || (c.dtype == 2 && self.blk_num == 0) {
                self.violation(Violation::EmptyTransfer);
                ok = false;
            }
            if self.cfg & cfg::PIO != 0 {
                self.violation(Violation::PioMode);
                ok = false;
            }
        }
        ok
    }

    fn run_command<C: CardSlot + ?Sized>(&mut self, c: RawCommand, card: &mut C) {
        self.phase = Phase::Idle;
        let fault = self.fault.take();
        if !self.check_command(&c) {
            self.int |= int::CMDTMO;
            return;
        }
        if c.auto_cmd == 2 && !self.auto_command(card, Command::new(23, self.blk_num)) {
            return;
        }
        if fault == Some(Fault::CommandTimeout) {
            self.charge_command(ResponseLength::Missing);
            self.int |= int::CMDTMO;
            return;
        }
        // Recorded only: cards usually answer commands above their limit.
        self.clock_ok(card);
        self.commands = self.commands.saturating_add(1);
        let answer = card.command(Command::new(c.opcode, self.sdc_arg));
        let work = card.take_work();
        self.charge_work(work);
        let response = match answer {
            Ok(r) => r,
            // Nothing expected, nothing heard: the command was sent.
            Err(_) if c.rsptyp == 0 => Response::None,
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.int |= int::CMDTMO;
                return;
            }
        };
        self.charge_command(match (response, c.rsptyp) {
            (_, 0) | (Response::None, _) => ResponseLength::None,
            (Response::R2(_), _) => ResponseLength::Long,
            _ => ResponseLength::Short,
        });
        if !self.take_response(&c, response) {
            return;
        }
        if fault == Some(Fault::ResponseCrc) {
            self.int |= int::RSPCRCERR;
            return;
        }
        self.int |= int::CMDRDY;
        if c.dtype != 0 {
            let blocks = if c.dtype == 1 { 1 } else { self.blk_num };
            self.phase = Phase::Data(DataPhase {
                write: c.write,
                block_len: c.block_len,
                blocks,
                auto_cmd12: c.auto_cmd == 1,
                fault: fault.filter(|f| matches!(f, Fault::DataCrc | Fault::DataTimeout)),
            });
        }
    }

    /// Latches `response` as the hardware would receive it with `c.rsptyp`; false (with the
    /// error interrupt raised) if the exchange failed.
    fn take_response(&mut self, c: &RawCommand, response: Response) -> bool {
        let mismatch = Violation::ResponseTypeMismatch {
            opcode: c.opcode,
            programmed: c.rsptyp,
        };
        match (response, c.rsptyp) {
            (Response::None, 0) => true,
            (_, 0) => {
                // The controller does not listen; the card's answer is lost.
                self.violation(mismatch);
                true
            }
            (Response::None, _) => {
                self.int |= int::CMDTMO;
                false
            }
            (Response::R2(w), 2) => {
                self.resp = [w[3], w[2], w[1], w[0]];
                true
            }
            (Response::R2(_), _) | (_, 2) => {
                // Lengths differ: the frame cannot be received.
                self.violation(mismatch);
                self.int |= int::CMDTMO;
                false
            }
            (Response::R3(v), 1 | 7) => {
                // R3 carries no CRC (all ones): the CRC check fails.
                self.resp[0] = v;
                self.int |= int::RSPCRCERR;
                false
            }
            (r, t) => {
                // R1b received as R1 is fine (see the module documentation); a response
                // with CRC received as R3 skips the CRC check, which no host intends.
                if t == 3 && !matches!(r, Response::R3(_)) {
                    self.violation(mismatch);
                }
                self.resp[0] = r.value();
                true
            }
        }
    }

    fn extended(&self) -> bool {
        self.config.support_64g && self.plain_patch2() & patch2::SUPPORT_64G != 0
    }

    fn plain_patch2(&self) -> u32 {
        Self::plain_index(regs::MSDC_PATCH_BIT2)
            .and_then(|i| self.plain.get(i).copied())
            .unwrap_or(0)
    }

    fn high(&self, word: u32, shift: u32) -> u64 {
        if self.extended() {
            u64::from((word >> shift) & 0xF) << 32
        } else {
            0
        }
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

    fn checksum_ok(&self, d: &[u8]) -> bool {
        if self.dma_cfg & dma_cfg::DECSEN == 0 {
            return true;
        }
        let sum = d
            .iter()
            .take(regs::CHECKSUM_SPAN)
            .fold(0u8, |s, &b| s.wrapping_add(b));
        sum == 0xFF
    }

    fn finish_data(&mut self, status: u32) {
        self.int |= status;
        self.phase = Phase::Idle;
        self.dma_armed = false;
    }

    fn run_data<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        d: DataPhase,
        card: &mut C,
        mem: &mut M,
    ) {
        if self.dma_ctrl & dma_ctrl::MODE == 0 {
            self.violation(Violation::BasicDma);
            return self.finish_data(int::DATTMO);
        }
        if d.fault == Some(Fault::DataTimeout) {
            return self.finish_data(int::DATTMO);
        }
        let gpd_address = u64::from(self.dma_sa) | (u64::from(self.dma_sa_h4 & 0xF) << 32);
        let gpd_address = if self.extended() {
            gpd_address
        } else {
            u64::from(self.dma_sa)
        };
        let Some(g) = self.read_descriptor::<M, { gpd::SIZE }>(mem, gpd_address) else {
            return self.finish_data(int::DATTMO);
        };
        let info = word(&g, 0);
        if info & gpd::HWO == 0 {
            self.violation(Violation::GpdNotOwned(gpd_address));
            return self.finish_data(int::DATTMO);
        }
        if !self.checksum_ok(&g) {
            return self.finish_data(int::DMA_GPDCSERR);
        }
        if info & gpd::BDP == 0 {
            self.violation(Violation::GpdWithoutBd(gpd_address));
            return self.finish_data(int::DATTMO);
        }
        // The engine fetches the next GPD when this one completes; it must not be live.
        let next_gpd = u64::from(word(&g, 1)) | self.high(info, gpd::NEXT_H4_SHIFT);
        let Some(next) = self.read_descriptor::<M, { gpd::SIZE }>(mem, next_gpd) else {
            return self.finish_data(int::DATTMO);
        };
        if word(&next, 0) & gpd::HWO != 0 {
            self.violation(Violation::GpdChain(next_gpd));
            return self.finish_data(int::DATTMO);
        }
        let mut bd_address = u64::from(word(&g, 2)) | self.high(info, gpd::PTR_H4_SHIFT);
        let expected = u64::from(d.block_len) * u64::from(d.blocks);
        let len_mask = if self.extended() {
            bd::BUFLEN_EXT
        } else {
            bd::BUFLEN
        };
        let mut done = 0u64;
        let mut described = 0u64;
        let mut card_failed = false;
        let mut chain_ended = false;
        for _ in 0..MAX_BD_CHAIN {
            let Some(b) = self.read_descriptor::<M, { bd::SIZE }>(mem, bd_address) else {
                return self.finish_data(int::DATTMO);
            };
            if !self.checksum_ok(&b) {
                return self.finish_data(int::DMA_BDCSERR);
            }
            let bd_info = word(&b, 0);
            let buffer = u64::from(word(&b, 2)) | self.high(bd_info, bd::PTR_H4_SHIFT);
            let len = u64::from(word(&b, 3) & len_mask);
            described = described.saturating_add(len);
            let take = len.min(expected.saturating_sub(done));
            if !card_failed && take > 0 {
                match self.transfer(d.write, card, mem, buffer, take) {
                    Ok(()) => done = done.saturating_add(take),
                    Err(()) => card_failed = true,
                }
            }
            if bd_info & bd::EOL != 0 {
                chain_ended = true;
                break;
            }
            bd_address = u64::from(word(&b, 1)) | self.high(bd_info, bd::NEXT_H4_SHIFT);
        }
        if !chain_ended {
            self.violation(Violation::BdChainTooLong);
            return self.finish_data(int::DATTMO);
        }
        if described != expected {
            self.violation(Violation::LengthMismatch {
                expected,
                described,
            });
        }
        // The engine hands the GPD back (HWO clear) once it has consumed it, as MediaTek's
        // GPD engines do; software sets HWO again (and re-seals the checksum) per request.
        let released = (info & !gpd::HWO).to_le_bytes();
        if let Err(e) = mem.write(gpd_address, &released) {
            self.violation(Violation::Bus(e.address));
        }
        self.charge_data(&d, done);
        if card_failed || done < expected {
            return self.finish_data(int::DATTMO);
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
        if d.fault == Some(Fault::DataCrc) || !width_ok || !clock_ok {
            self.finish_data(int::DATCRCERR)
        } else {
            self.finish_data(int::XFER_COMPL)
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
        let l = &self.config.latency;
        let ns = if d.write {
            l.write_ns(d.block_len, blocks, width, ddr, hz)
        } else {
            l.read_ns(d.block_len, blocks, width, ddr, hz)
        };
        self.charge(ns);
    }

    fn host_bus_width(&self) -> u8 {
        match (self.sdc_cfg >> regs::sdc_cfg::BUSWIDTH_SHIFT) & 3 {
            0 => 1,
            1 => 4,
            2 => 8,
            _ => 0,
        }
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

/// Little-endian word `i` of a descriptor.
fn word(d: &[u8], i: usize) -> u32 {
    let at = i * 4;
    match d.get(at..at + 4) {
        Some(&[a, b, c, e]) => u32::from_le_bytes([a, b, c, e]),
        _ => 0,
    }
}
