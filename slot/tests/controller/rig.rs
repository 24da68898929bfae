// SPDX-License-Identifier: GPL-2.0

//! The test bench: the `models` MSDC model with a card behind an [`Io`]`<`[`MsdcBase`]`>`
//! implementation, and a [`Host`] that runs the slot logic the kernel runs on it (the
//! `slot` crate's [`start_request`](slot::start_request), [`interrupt`](slot::interrupt) and
//! [`watchdog`](slot::watchdog), over the queue benches' [`Slot`]), interrupt by interrupt,
//! and hands the tests the [`Controller`] for the engine's own calls.
//!
//! The model runs after every register write, so a command completes (and its interrupt is
//! latched) as soon as `SDC_CMD` is written, and a data phase as soon as the DMA starts.
//! The bench can also misbehave on purpose, like an [`Io`] wrapper would: pin a
//! self-clearing bit, inject `MSDC_INT` events, override pin levels, drop the DMA start or
//! hide interrupts.
//!
//! A bench built with [`Rig::with_cqhci`] has the CQHCI block at its place in the window
//! and is also an [`Io`]`<`[`CqhciBlock`]`>`. There the model does not run while the CQHCI
//! engine holds RAM (its descriptor memory) but right after, as hardware would run the
//! doorbell it was just given.
//!
//! A bench built with [`Rig::board`] runs the model as the simulated board in the test
//! kernel does (`simboard/board.rs`): a run of at most [`BoardRuns::steps`] steps after each
//! register write, a halt or CLEAR ALL TASKS carried out when the CQHCI block is read, and
//! nothing else until the board's timer expires ([`Rig::expire`]), which resumes a run that
//! stopped at its step limit (a model that waits charges the wait to its steps, so it is
//! such a run). The bench adds up what the runs did ([`BoardStats`]).

use std::cell::{Cell, RefCell, RefMut};
use std::convert::Infallible;

use cqhci::regs::CqhciBlock;
use mmc_request::{Command, CommandResult, Data, Direction, Request, RequestResult, Segment};
use models::bus::{Bus, RegisterFile, Serves};
use models::msdc::regs::{self, DataType};
use models::msdc::{CardSlot, Fault, ModelConfig, MsdcModel, Violation};
use models::Ram;
use msdc::clock::{DividerWidth, Timing};
use msdc::controller::{
    Controller, DmaChain, HostSetup, HwError, PadState, Progress, SignalVoltage, StartError,
};
use msdc::dma::{self, DmaAddressing, MAX_SEGMENTS};
use msdc::regs::{MsdcBase, MsdcTop};
use msdc::soc;
use msdc::tuning::BoardTuning;
use registers::{Io, PollLimit, Window};
use slot::watchdog::REQUEST_TIMEOUT_MS;
use slot::{InFlight, Owner, Refusal};

use crate::board::Bench;
use crate::common::{self, data};
pub(crate) use crate::common::{command, flags, request};
use crate::slot::{CardEvents, CardKind, CoreRequest, Issue, QueueSide, Slot};

/// Source clock of every bench, as the model's default.
pub(crate) const SOURCE_HZ: u32 = 200_000_000;
/// Descriptor area: as much as the glue allocates.
pub(crate) const AREA_LEN: usize = dma::area_len(MAX_SEGMENTS);
/// Data buffers start here in RAM, after the descriptor area.
pub(crate) const DATA_OFFSET: u64 = 0x8000;
const RAM_LEN: usize = DATA_OFFSET as usize + 0x4_0000;
/// RAM above 4 GiB for 36-bit DMA, below it otherwise.
const RAM_BASE_36: u64 = 0x1_2000_0000;
const RAM_BASE_32: u64 = 0x8000_0000;
/// Steps the model may take after one register write.
const MODEL_STEPS: u32 = 64;
/// RAM of a bench with a CQHCI block: room for two 512 KiB transfers after the engine's
/// descriptor memory (see `cqe.rs`).
const CQHCI_RAM_LEN: usize = RAM_LEN + 0x10_0000;
/// Interrupts one request may need before the bench calls it stuck.
const MAX_INTERRUPTS: usize = 16;
/// The CQHCI engine's descriptor memory on a bench with a CQHCI block: its task descriptor
/// list, then its transfer descriptors, in the data window after 32 task buffers of 4 KiB
/// (see `cqe.rs`).
pub(crate) const TASK_MEMORY_AT: usize = 0x2_0000;
pub(crate) const TASK_MEMORY_LEN: usize = 0x2_0000;

// Offsets and bits the bench acts on, from the model's own register definitions (the hardware
// facts, not the driver's reading of them). `SDC_FIFO_CFG` is not in the model's register
// file (a sim gap): the bench keeps it, at the driver's offset.
const SDC_FIFO_CFG: usize = msdc::regs::SDC_FIFO_CFG::OFFSET;
/// mtk-sd.c's `CQHCI_SETTING` (enhanced strobe's command windows).
const CQHCI_SETTING: usize = 0x7FC;
pub(crate) const MSDC_CFG: usize = regs::MSDC_CFG::OFFSET;
pub(crate) const MSDC_PS: usize = regs::MSDC_PS::OFFSET;
const MSDC_INT: usize = regs::MSDC_INT::OFFSET;
pub(crate) const MSDC_INTEN: usize = regs::MSDC_INTEN::OFFSET;
const SDC_CMD: usize = regs::SDC_CMD::OFFSET;
const SDC_STS: usize = regs::SDC_STS::OFFSET;
pub(crate) const MSDC_DMA_CTRL: usize = regs::MSDC_DMA_CTRL::OFFSET;
pub(crate) const MSDC_DMA_CFG: usize = regs::MSDC_DMA_CFG::OFFSET;
const CFG_RST: u32 = regs::MSDC_CFG::zeroed().with_rst(true).raw();
pub(crate) const CFG_CKSTB: u32 = regs::MSDC_CFG::zeroed().with_ckstb(true).raw();
const DMA_CTRL_START: u32 = regs::MSDC_DMA_CTRL::zeroed().with_start(true).raw();
const DMA_CTRL_STOP: u32 = regs::MSDC_DMA_CTRL::zeroed().with_stop(true).raw();
const DMA_CFG_STS: u32 = regs::MSDC_DMA_CFG::zeroed().with_sts(true).raw();
const STS_CMDBUSY: u32 = regs::SDC_STS::zeroed().with_cmdbusy(true).raw();

/// The legacy 8-bit-divider generation with 32-bit DMA and no patch-bit quirks (MT8173).
pub(crate) fn legacy_config() -> HostSetup {
    HostSetup {
        soc: &soc::MT8173,
        source_hz: SOURCE_HZ,
        addressing: DmaAddressing::Bits32,
        auto_cmd23: false,
        board: BoardTuning::defaults(false),
    }
}

/// The 12-bit-divider generation with 36-bit DMA and every quirk but the top region
/// (MT2712, MT6779).
pub(crate) fn modern_config() -> HostSetup {
    HostSetup {
        soc: &soc::MT2712,
        source_hz: SOURCE_HZ,
        addressing: DmaAddressing::Bits36,
        auto_cmd23: false,
        board: BoardTuning::defaults(false),
    }
}

/// The same generation with auto-CMD23 allowed, as the glue sets it up for eMMC.
pub(crate) fn with_auto_cmd23(config: HostSetup) -> HostSetup {
    HostSetup {
        auto_cmd23: true,
        ..config
    }
}

/// The model of the controller `config` sets up, with the model's default timing.
pub(crate) fn model_config(config: &HostSetup) -> ModelConfig {
    ModelConfig {
        support_64g: config.addressing == DmaAddressing::Bits36,
        divider_12bit: config.soc.clock_divider == DividerWidth::Bits12,
        source_hz: config.source_hz,
        top_region: config.soc.needs_top_base,
        ..ModelConfig::default()
    }
}

/// Misbehaviour the bench adds on top of the model.
#[derive(Default)]
pub(crate) struct Misbehaviour {
    /// `MSDC_CFG.RST` reads back set forever.
    pub(crate) pin_reset: Cell<bool>,
    /// `MSDC_CFG.RST` reads back set for this many more reads of `MSDC_CFG`: a reset
    /// that clears late.
    pub(crate) reset_set_reads: Cell<u32>,
    /// `MSDC_CFG.CKSTB` never comes back.
    pub(crate) pin_clock_unstable: Cell<bool>,
    /// `MSDC_CFG.CKSTB` reads clear for this many more reads of `MSDC_CFG`: a clock that
    /// comes back late.
    pub(crate) clock_unstable_reads: Cell<u32>,
    /// `MSDC_DMA_CFG.STS` reads back set forever.
    pub(crate) pin_dma_active: Cell<bool>,
    /// `SDC_STS.CMDBUSY` reads back set forever.
    pub(crate) pin_command_busy: Cell<bool>,
    /// Writes of `MSDC_DMA_CTRL.START` are lost: the data phase never runs.
    pub(crate) drop_dma_start: Cell<bool>,
    /// `MSDC_INT` reads as zero: interrupts are lost.
    pub(crate) hide_interrupts: Cell<bool>,
    /// Events added to `MSDC_INT` reads (write 1 to clear, like the real bits).
    pub(crate) injected_events: Cell<u32>,
    /// `MSDC_PS` bits forced: (mask, value).
    pub(crate) pin_levels: Cell<Option<(u32, u32)>>,
    /// A fault for the next command that has a data phase (the model's own injection hits
    /// the next command of any kind, which would be a software CMD23).
    pub(crate) fault_on_data_command: Cell<Option<Fault>>,
}

/// How a [`Rig::board`] bench runs its model: as `simboard/board.rs` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BoardRuns {
    /// Steps a run may take (the board's `STEPS_PER_RUN`).
    pub(crate) steps: u32,
}

/// What the runs of a [`Rig::board`] bench did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BoardStats {
    /// Runs that took at least one step.
    pub(crate) runs: u64,
    /// Steps taken (steps that did something; a run ends at the first that did nothing).
    pub(crate) steps: u64,
    /// Runs that used every step they were allowed.
    pub(crate) full_runs: u64,
    /// Timer expiries that ran the model again.
    pub(crate) resumes: u64,
    /// Simulated time the runs charged, in ns.
    pub(crate) elapsed_ns: u64,
}

/// The model, a card and RAM behind [`Io`]`<`[`MsdcBase`]`>`.
pub(crate) struct Rig<C: CardSlot> {
    /// The setup the bench models, for the hosts built on it.
    pub(crate) config: HostSetup,
    model: RefCell<MsdcModel>,
    card: RefCell<C>,
    ram: RefCell<Vec<u8>>,
    pub(crate) base: u64,
    /// `SDC_FIFO_CFG`, which the model lacks.
    pub(crate) fifo_cfg: Cell<u32>,
    pub(crate) misbehave: Misbehaviour,
    /// Register reads so far.
    pub(crate) reads: Cell<u64>,
    /// Register writes so far.
    pub(crate) writes: Cell<u64>,
    /// Every `MSDC_INT` bit read so far.
    pub(crate) seen_events: Cell<u32>,
    /// Microseconds of busy-waiting asked for so far.
    pub(crate) delayed_us: Cell<u64>,
    /// Controller resets started so far (`MSDC_CFG` written with `RST`).
    pub(crate) resets: Cell<u32>,
    /// DMA stops asked for so far (`MSDC_DMA_CTRL` written with `STOP`).
    pub(crate) dma_stops: Cell<u32>,
    /// Every `SDC_CMD` word written so far.
    pub(crate) command_words: RefCell<Vec<u32>>,
    /// Every `MSDC_INT` acknowledgement (write 1 to clear) so far.
    pub(crate) acknowledgements: RefCell<Vec<u32>>,
    /// `CQHCI_SETTING` (0x7FC), which the model lacks (it sits just below the CQHCI block).
    pub(crate) cqhci_setting: Cell<u32>,
    /// The model waits while RAM is borrowed instead of running without memory.
    defer_while_borrowed: bool,
    /// The model has work it was not allowed to run yet.
    deferred: Cell<bool>,
    /// The core's `request` callback runs for a request with data: the model gets no memory
    /// meanwhile.
    launching: Cell<bool>,
    /// The test holds the model back ([`Rig::holding`]).
    held: Cell<bool>,
    /// `Some` for a bench that runs its model as the board does.
    board: Option<BoardRuns>,
    /// The last run stopped at its step limit: the board's timer runs the model again.
    armed: Cell<bool>,
    /// What the board's runs did.
    board_stats: Cell<BoardStats>,
}

impl<C: CardSlot> Rig<C> {
    /// A bench for `config` with `card` in the slot.
    pub(crate) fn new(config: &HostSetup, card: C) -> Self {
        Self::build(config, MsdcModel::new(model_config(config)), card, false)
    }

    /// A bench for `config` whose controller has a MediaTek CQHCI block, with `card` in the
    /// slot.
    pub(crate) fn with_cqhci(config: &HostSetup, card: C) -> Self {
        let model =
            MsdcModel::with_cqhci(model_config(config), models::cqhci::ModelConfig::MEDIATEK);
        let mut rig = Self::build(config, model, card, true);
        rig.ram = RefCell::new(vec![0; CQHCI_RAM_LEN]);
        rig
    }

    /// A bench like [`Rig::with_cqhci`] whose model runs as the simulated board runs it
    /// (see the module documentation).
    pub(crate) fn board(config: &HostSetup, card: C, runs: BoardRuns) -> Self {
        Self {
            board: Some(runs),
            ..Self::with_cqhci(config, card)
        }
    }

    fn build(config: &HostSetup, model: MsdcModel, card: C, defer_while_borrowed: bool) -> Self {
        let support_64g = config.addressing == DmaAddressing::Bits36;
        Self {
            config: *config,
            model: RefCell::new(model),
            card: RefCell::new(card),
            ram: RefCell::new(vec![0; RAM_LEN]),
            base: if support_64g {
                RAM_BASE_36
            } else {
                RAM_BASE_32
            },
            fifo_cfg: Cell::new(0),
            misbehave: Misbehaviour::default(),
            reads: Cell::new(0),
            writes: Cell::new(0),
            seen_events: Cell::new(0),
            delayed_us: Cell::new(0),
            resets: Cell::new(0),
            dma_stops: Cell::new(0),
            command_words: RefCell::new(Vec::new()),
            acknowledgements: RefCell::new(Vec::new()),
            cqhci_setting: Cell::new(0),
            defer_while_borrowed,
            deferred: Cell::new(false),
            launching: Cell::new(false),
            held: Cell::new(false),
            board: None,
            armed: Cell::new(false),
            board_stats: Cell::new(BoardStats::default()),
        }
    }

    /// What the board's runs did so far (all zero for a bench that is no board).
    pub(crate) fn board_stats(&self) -> BoardStats {
        self.board_stats.get()
    }

    /// Whether the board's timer will run the model again (the last run stopped at its step
    /// limit).
    pub(crate) fn timer_armed(&self) -> bool {
        self.armed.get()
    }

    /// The board's timer expires: the model runs again if its last run asked for that.
    /// Returns whether it did.
    pub(crate) fn expire(&self) -> bool {
        if !self.armed.take() {
            return false;
        }
        let mut stats = self.board_stats.get();
        stats.resumes += 1;
        self.board_stats.set(stats);
        self.run_model();
        true
    }

    pub(crate) fn card(&self) -> RefMut<'_, C> {
        self.card.borrow_mut()
    }

    pub(crate) fn model(&self) -> RefMut<'_, MsdcModel> {
        self.model.borrow_mut()
    }

    /// Reads a register of the model directly, bypassing the misbehaviour.
    pub(crate) fn peek(&self, offset: usize) -> u32 {
        self.model.borrow_mut().read(offset)
    }

    /// Asserts that the model saw nothing it does not model or the hardware forbids.
    pub(crate) fn assert_no_violations(&self) {
        let model = self.model.borrow();
        let (count, first): (u32, &[Option<Violation>; 8]) = model.violations();
        assert_eq!(count, 0, "model violations: {first:?}");
    }

    /// The interrupt line: an enabled event is pending.
    pub(crate) fn interrupt_line(&self) -> bool {
        self.settle();
        let misbehave = &self.misbehave;
        if misbehave.hide_interrupts.get() {
            return false;
        }
        let mut model = self.model.borrow_mut();
        let pending = model.read(MSDC_INT) | misbehave.injected_events.get();
        pending & model.read(MSDC_INTEN) != 0
    }

    /// RAM bytes of the data window at `offset`.
    pub(crate) fn data(&self, offset: u64, len: usize) -> Vec<u8> {
        let at = (DATA_OFFSET + offset) as usize;
        self.ram.borrow()[at..at + len].to_vec()
    }

    /// Fills RAM of the data window at `offset`.
    pub(crate) fn fill(&self, offset: u64, bytes: &[u8]) {
        let at = (DATA_OFFSET + offset) as usize;
        self.ram.borrow_mut()[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// XORs a byte of the descriptor area (to break a checksum).
    pub(crate) fn corrupt_descriptor(&self, offset: usize) {
        self.ram.borrow_mut()[offset] ^= 0x5A;
    }

    /// Lends the data window (RAM from [`DATA_OFFSET`]) to `f`, e.g. as the CQHCI engine's
    /// descriptor memory; the model runs what it was given meanwhile once `f` returns.
    pub(crate) fn with_data_window<T>(&self, f: impl FnOnce(&mut [u8]) -> T) -> T {
        let result = {
            let mut ram = self.ram.borrow_mut();
            f(&mut ram[DATA_OFFSET as usize..])
        };
        self.settle();
        result
    }

    /// Runs `f` with the model held back as while RAM is lent, then lets it run what it was
    /// given: on a CQHCI bench, the hardware fetches nothing before `f` has rung every
    /// doorbell it rings.
    pub(crate) fn holding<T>(&self, f: impl FnOnce() -> T) -> T {
        assert!(self.defer_while_borrowed, "a bench that waits");
        let held = self.held.replace(true);
        let result = f();
        self.held.set(held);
        self.settle();
        result
    }

    /// Lets the model pass what the registers did to the card's lines on to the card, and
    /// take the card's line levels, as the hardware does continuously (a clock stop, say).
    pub(crate) fn sync_card(&self) {
        self.model
            .borrow_mut()
            .sync_card(&mut *self.card.borrow_mut());
    }

    /// Runs the model if it has work it was not allowed to run while RAM was borrowed.
    pub(crate) fn settle(&self) {
        if self.deferred.take() {
            self.run_model();
        }
    }

    fn run_model(&self) {
        let mut model = self.model.borrow_mut();
        let mut card = self.card.borrow_mut();
        let limit = self.board.map_or(MODEL_STEPS, |b| b.steps);
        // While the glue launches a request, and while the CQHCI engine holds RAM, the
        // model gets no memory at all, and any DMA it tried would show up as a violation.
        // A CQHCI bench waits instead (see the module documentation).
        let ram = if self.launching.get() || self.held.get() {
            None
        } else {
            self.ram.try_borrow_mut().ok()
        };
        // The board's runs end at the step that raises the line.
        let board = self.board.is_some();
        let mut run = |mem: &mut Ram<'_>| {
            if board {
                model.run_to_interrupt(&mut *card, mem, limit)
            } else {
                (model.run(&mut *card, mem, limit), false)
            }
        };
        let (ran, signalled) = match ram {
            Some(mut ram) => run(&mut Ram::new(self.base, &mut ram)),
            None if self.defer_while_borrowed => {
                self.deferred.set(true);
                return;
            }
            None => {
                let mut nothing = [0u8; 0];
                run(&mut Ram::new(self.base, &mut nothing))
            }
        };
        if board {
            self.account(&mut model, ran, limit, signalled);
        }
    }

    /// The board's bookkeeping after a run that took `ran` of `limit` steps and stopped at
    /// the line if `signalled`: the timer is armed for a run that used them all, or that
    /// stopped at the line with CQHCI tasks in the block (`simboard/board.rs` resumes it
    /// when the run's simulated time is up).
    fn account(&self, model: &mut MsdcModel, ran: u32, limit: u32, signalled: bool) {
        let mut stats = self.board_stats.get();
        stats.elapsed_ns += model.take_elapsed_ns();
        if ran > 0 {
            stats.runs += 1;
            stats.steps += u64::from(ran);
        }
        if ran == limit {
            stats.full_runs += 1;
        }
        // As the board's `resume`: every run decides anew whether the expiry runs it again.
        let tasks = model.cqhci().is_some_and(|c| c.tasks_in_progress());
        self.armed.set(ran == limit || (signalled && tasks));
        self.board_stats.set(stats);
    }

    /// The board's read of the CQHCI block: a pending halt or CLEAR ALL TASKS is carried
    /// out first (`SimState::settle_cqhci_control` in `simboard/board.rs`).
    fn settle_cqhci_control(&self) {
        let mut model = self.model.borrow_mut();
        let pending = model.cqhci().is_some_and(|c| c.control_pending());
        if !pending || model.busy() {
            return;
        }
        let mut card = self.card.borrow_mut();
        let mut nothing = [0u8; 0];
        // A control step touches no memory.
        model.step(&mut *card, &mut Ram::new(self.base, &mut nothing));
    }
}

impl<C: CardSlot> Rig<C> {
    /// A register read as the controller sees it: the model's, with the misbehaviour.
    fn read_register(&self, offset: usize) -> u32 {
        self.reads.set(self.reads.get() + 1);
        if offset == SDC_FIFO_CFG {
            return self.fifo_cfg.get();
        }
        if offset == CQHCI_SETTING {
            return self.cqhci_setting.get();
        }
        let m = &self.misbehave;
        if self.board.is_some()
            && (regs::CQHCI_BASE..regs::CQHCI_BASE + regs::CQHCI_LEN).contains(&offset)
        {
            self.settle_cqhci_control();
        }
        let mut value = self.model.borrow_mut().read(offset);
        match offset {
            MSDC_CFG => {
                if m.pin_reset.get() {
                    value |= CFG_RST;
                }
                if let Some(left) = m.reset_set_reads.get().checked_sub(1) {
                    m.reset_set_reads.set(left);
                    value |= CFG_RST;
                }
                if m.pin_clock_unstable.get() {
                    value &= !CFG_CKSTB;
                }
                if let Some(left) = m.clock_unstable_reads.get().checked_sub(1) {
                    m.clock_unstable_reads.set(left);
                    value &= !CFG_CKSTB;
                }
            }
            MSDC_INT => {
                value |= m.injected_events.get();
                if m.hide_interrupts.get() {
                    value = 0;
                }
                self.seen_events.set(self.seen_events.get() | value);
            }
            MSDC_PS => {
                if let Some((mask, level)) = m.pin_levels.get() {
                    value = (value & !mask) | (level & mask);
                }
            }
            MSDC_DMA_CFG if m.pin_dma_active.get() => value |= DMA_CFG_STS,
            SDC_STS if m.pin_command_busy.get() => value |= STS_CMDBUSY,
            _ => {}
        }
        value
    }

    /// A register write as the controller makes it; the model runs after it.
    fn write_register(&self, offset: usize, value: u32) {
        self.writes.set(self.writes.get() + 1);
        if offset == SDC_FIFO_CFG {
            self.fifo_cfg.set(value);
            return;
        }
        if offset == CQHCI_SETTING {
            self.cqhci_setting.set(value);
            return;
        }
        let m = &self.misbehave;
        let mut value = value;
        match offset {
            MSDC_INT => {
                m.injected_events.set(m.injected_events.get() & !value);
                self.acknowledgements.borrow_mut().push(value);
            }
            MSDC_CFG if value & CFG_RST != 0 => self.resets.set(self.resets.get() + 1),
            MSDC_DMA_CTRL => {
                if value & DMA_CTRL_STOP != 0 {
                    self.dma_stops.set(self.dma_stops.get() + 1);
                }
                if m.drop_dma_start.get() {
                    value &= !DMA_CTRL_START;
                }
            }
            SDC_CMD => {
                self.command_words.borrow_mut().push(value);
                if regs::SDC_CMD::from_raw(value).dtype() != DataType::None {
                    if let Some(fault) = m.fault_on_data_command.take() {
                        self.model.borrow_mut().inject(fault);
                    }
                }
            }
            _ => {}
        }
        self.model.borrow_mut().write(offset, value);
        self.run_model();
    }

    /// The bench on a register bus, for one access.
    fn bus(&self) -> Bus<Port<'_, C>> {
        Bus::new(Port(self))
    }
}

/// The bench's register file for [`Bus`], which then gives the controller its
/// [`Io`]`<`[`MsdcBase`]`>`, polls included.
///
/// The port stands in for the model until the model serves the `MsdcBase` window itself
/// (`RegisterFile` + `Serves<MsdcBase>`); the misbehaviour then wraps the model's accesses.
pub(crate) struct Port<'r, C: CardSlot>(&'r Rig<C>);

impl<C: CardSlot> RegisterFile for Port<'_, C> {
    fn read(&mut self, offset: usize) -> u32 {
        self.0.read_register(offset)
    }

    fn write(&mut self, offset: usize, value: u32) {
        self.0.write_register(offset, value);
    }

    /// The driver's busy-wait is hardware time: the model clock advances with it (a card
    /// programming with DAT0 low finishes meanwhile).
    fn wait_us(&mut self, us: u32) {
        let rig = self.0;
        rig.delayed_us.set(rig.delayed_us.get() + u64::from(us));
        rig.model().elapse(u64::from(us) * 1_000);
    }
}

impl<C: CardSlot> Serves<MsdcBase> for Port<'_, C> {
    const BASE: usize = 0;
}

/// The top window where the model puts it (a bench for a SoC without one has no registers
/// there: every access is a violation).
impl<C: CardSlot> Serves<MsdcTop> for Port<'_, C> {
    const BASE: usize = regs::TOP_BASE;
}

/// The CQHCI block where the model puts it (a bench without one has no registers there).
impl<C: CardSlot> Serves<CqhciBlock> for Port<'_, C> {
    const BASE: usize = regs::CQHCI_BASE;
}

/// The bench is an [`Io`] of every window its port serves: the base window, and the CQHCI
/// block where the model has one.
impl<C: CardSlot, W: Window> Io<W> for Rig<C>
where
    for<'r> Port<'r, C>: Serves<W>,
{
    fn read32(&self, offset: usize) -> u32 {
        Io::<W>::read32(&self.bus(), offset)
    }

    fn write32(&self, offset: usize, value: u32) {
        Io::<W>::write32(&self.bus(), offset, value);
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        Io::<W>::poll32(&self.bus(), offset, done, limit)
    }
}

/// The bench under the slot logic, as the queue benches' [`Board`](crate::board::Board).
impl<C: CardSlot> Bench for Rig<C> {
    fn setup(&self) -> HostSetup {
        self.config
    }

    fn interrupt_line(&self) -> bool {
        Rig::interrupt_line(self)
    }

    /// The model runs after every register write already; time lets it go on.
    fn advance(&self, steps: u32) -> u32 {
        let mut model = self.model.borrow_mut();
        let mut card = self.card.borrow_mut();
        let mut ram = self.ram.borrow_mut();
        model.run(&mut *card, &mut Ram::new(self.base, &mut ram), steps)
    }

    fn elapse(&self, ns: u64) {
        self.model().elapse(ns);
    }

    fn delayed_us(&self) -> u64 {
        self.delayed_us.get()
    }

    fn ram(&self) -> RefMut<'_, Vec<u8>> {
        self.ram.borrow_mut()
    }

    fn bus(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    /// In the data window, where the tests find it ([`TASK_MEMORY_AT`]); the model runs
    /// what it was given meanwhile once the memory is back.
    fn with_task_memory<T>(&self, f: impl FnOnce(u64, &mut [u8]) -> T) -> T {
        let bus = self.base + DATA_OFFSET + TASK_MEMORY_AT as u64;
        self.with_data_window(|window| {
            f(
                bus,
                &mut window[TASK_MEMORY_AT..TASK_MEMORY_AT + TASK_MEMORY_LEN],
            )
        })
    }

    fn assert_clean(&self) {
        self.assert_no_violations();
    }

    /// RAM is held back from the model through the launch of a request with data: it gets
    /// no memory until the command is answered, so a DMA started early shows up as a
    /// violation.
    fn launching(&self, with_data: bool) {
        self.launching.set(with_data);
    }
}

/// The side of a slot without a queue: the core's requests only.
pub(crate) struct NoQueue;

impl<'r, C: CardSlot> QueueSide<'r, Rig<C>> for NoQueue {
    type Queued = Issue;

    fn dispatching(&self, _slot: &HostSlot<'r, C>, tag: u8, _depth: u8) {
        panic!("tag {tag}: a dispatch on a slot without a queue");
    }

    fn complete_queued(&self, _slot: &HostSlot<'r, C>, request: Issue, _: &RequestResult) {
        panic!(
            "tag {}: a completion on a slot without a queue",
            request.id.tag
        );
    }
}

/// The slot logic on a bench, with the queue side `S`.
pub(crate) type HostSlot<'r, C, S = NoQueue> = Slot<'r, Rig<C>, S>;

/// The request token on the controller.
pub(crate) type Token<'r, C, S = NoQueue> = InFlight<HostSlot<'r, C, S>>;

/// The number of the core's request `token` stands for.
pub(crate) fn serial<'r, C: CardSlot, S: QueueSide<'r, Rig<C>>>(token: &Token<'r, C, S>) -> u32 {
    match &token.owner {
        Owner::Core(request) => request.id,
        Owner::Queue { tag, .. } => panic!("tag {tag}: a software queue's request"),
    }
}

/// The glue on one bench: the slot logic the kernel runs, with the MMC core's calls played
/// by the tests. Its requests are numbered, so that every completion can be checked to hand
/// back the request that was started. A slot with a CQHCI engine has the MMC core's side
/// of its tasks as `S`.
pub(crate) struct Host<'r, C: CardSlot, S: QueueSide<'r, Rig<C>> = NoQueue> {
    pub(crate) rig: &'r Rig<C>,
    pub(crate) slot: HostSlot<'r, C, S>,
    /// The number of the request started last.
    pub(crate) started: u32,
    /// How long the kernel's busy retry work slept so far ([`Host::busy_retry`]), ns: apart
    /// from [`Rig::delayed_us`], the busy-waits.
    pub(crate) slept_ns: u64,
}

impl<'r, C: CardSlot> Host<'r, C> {
    /// [`Host::with_side`] for a slot without a queue.
    pub(crate) fn new(rig: &'r Rig<C>) -> Self {
        Self::with_side(rig, NoQueue)
    }
}

impl<'r, C: CardSlot, S: QueueSide<'r, Rig<C>>> Host<'r, C, S> {
    /// Probes: initialises the hardware and sets the identification clock. The core's
    /// card is an eMMC (auto-CMD23 allowed for its requests) if the bench's setup allows
    /// auto-CMD23, as the glue sets it up for eMMC.
    pub(crate) fn with_side(rig: &'r Rig<C>, side: S) -> Self {
        let slot = Slot::new(rig, side, false);
        // An SDIO card's interrupt and a card-detect line: their events are counted.
        slot.card_events.set(Some(CardEvents::default()));
        let mut host = Self {
            rig,
            slot,
            started: 0,
            slept_ns: 0,
        };
        host.set_mmc_card(rig.config.auto_cmd23);
        host.clock(400_000, Timing::Legacy);
        host
    }

    /// The request engine, under the slot's lock.
    pub(crate) fn ctrl(&self) -> RefMut<'_, Controller<Token<'r, C, S>>> {
        self.slot.controller()
    }

    /// The core attached an eMMC (`true`) or another card: the glue allows auto-CMD23
    /// for the requests it starts from now on, or not.
    pub(crate) fn set_mmc_card(&mut self, emmc: bool) {
        self.slot
            .attach(if emmc { CardKind::Emmc } else { CardKind::Sd });
    }

    /// SDIO interrupts signalled to the core so far.
    pub(crate) fn sdio_signals(&self) -> u32 {
        self.card_events().sdio_signals
    }

    /// Card-detect changes signalled to the core so far.
    pub(crate) fn card_detect_changes(&self) -> u32 {
        self.card_events().card_detect_changes
    }

    /// The card events signalled to the core so far.
    pub(crate) fn card_events(&self) -> CardEvents {
        self.slot.card_events.get().expect("counted")
    }

    /// The oldest hardware fault the slot logic logged and the test has not taken.
    pub(crate) fn take_hardware_fault(&self) -> Option<HwError> {
        let mut faults = self.slot.hardware_faults.borrow_mut();
        (!faults.is_empty()).then(|| faults.remove(0))
    }

    /// The MMC core's voltage switch after an SD card answered CMD11
    /// (`mmc_set_uhs_voltage`): the card holds DAT low, the clock stops, the glue moves the
    /// pads to 1.8 V, the clock comes back and the card lets DAT go high.
    pub(crate) fn uhs_voltage_switch(&mut self) {
        self.rig.sync_card();
        assert!(
            self.ctrl().card_busy(self.rig),
            "the card holds DAT0 low after CMD11"
        );
        self.clock(0, Timing::Legacy);
        self.rig.sync_card();
        assert_eq!(
            self.ctrl().start_voltage_switch(SignalVoltage::V180),
            Ok(PadState::Uhs)
        );
        self.clock(400_000, Timing::Legacy);
        self.rig.sync_card();
        assert!(
            !self.ctrl().card_busy(self.rig),
            "DAT high again: the switch is done"
        );
    }

    pub(crate) fn clock(&mut self, hz: u32, timing: Timing) -> u32 {
        self.ctrl()
            .set_clock(self.rig, hz, timing)
            .expect("set_clock")
    }

    /// The bus addresses of `segments`, offsets into the data window.
    fn segments(&self, segments: &[(u64, u32)]) -> Vec<Segment> {
        let window = self.rig.base + DATA_OFFSET;
        segments
            .iter()
            .map(|&(offset, len)| Segment {
                bus_address: window + offset,
                len,
            })
            .collect()
    }

    /// The core's `request` callback (`slot::start_request`) for `req`, with its data
    /// through `segments` (offsets into the data window): `Err` with the slot's refusal if
    /// it failed the request, which must be the one it was given.
    pub(crate) fn request(
        &mut self,
        req: &Request,
        segments: &[(u64, u32)],
    ) -> Result<(), Refusal> {
        let segments = self.segments(segments);
        let serial = self.slot.request_core(req, &segments);
        if let Some(refusal) = self.slot.take_core_refusal(serial) {
            return Err(refusal);
        }
        assert_eq!(
            self.in_flight(),
            Some(serial),
            "the request is on the controller"
        );
        self.started = serial;
        Ok(())
    }

    /// Starts `req` as [`Host::request`] does; `Err` with the controller's refusal.
    pub(crate) fn start(
        &mut self,
        req: &Request,
        segments: &[(u64, u32)],
    ) -> Result<(), StartError> {
        match self.request(req, segments) {
            Ok(()) => Ok(()),
            Err(Refusal::Start { opcode, error }) => {
                assert_eq!(opcode, req.cmd.opcode, "the refused request comes back");
                Err(error)
            }
            Err(refusal) => panic!("CMD{} refused by the slot: {refusal:?}", req.cmd.opcode),
        }
    }

    /// The number of the core's request on the controller, if any.
    pub(crate) fn in_flight(&self) -> Option<u32> {
        self.ctrl().in_flight().map(serial)
    }

    /// A token for the engine's own calls: a request of the core numbered `serial`.
    pub(crate) fn token(&self, req: &Request, serial: u32) -> Token<'r, C, S> {
        InFlight {
            owner: Owner::Core(CoreRequest {
                id: serial,
                request: *req,
                segments: Vec::new(),
                for_mmc_card: false,
            }),
            opcode: req.cmd.opcode,
            tuning_probe: false,
            started: 0,
        }
    }

    /// The engine's `start` of `req` without data, its token numbered `number`: a refused
    /// request's token comes back.
    pub(crate) fn engine_start(
        &mut self,
        req: &Request,
        number: u32,
    ) -> Result<(), (u32, StartError)> {
        let token = self.token(req, number);
        self.ctrl()
            .start(self.rig, req, None, token)
            .map_err(|(token, error)| (serial(&token), error))
    }

    /// The engine's `write_chain` of `req`'s descriptors for `segments` alone.
    pub(crate) fn write_chain(
        &mut self,
        req: &Request,
        segments: &[(u64, u32)],
    ) -> Result<(), StartError> {
        let segments = self.segments(segments);
        let mut ram = self.rig.ram.borrow_mut();
        let chain = DmaChain {
            area: &mut ram[..AREA_LEN],
            area_bus: self.rig.base,
            segments,
        };
        self.ctrl().write_chain(req, chain).map(|_| ())
    }

    /// One run of the interrupt handler (`slot::interrupt`): `None` if the line is low, the
    /// request it completed if any.
    pub(crate) fn interrupt(&mut self) -> Option<Progress<u32>> {
        if !self.rig.interrupt_line() {
            return None;
        }
        slot::interrupt(&self.slot, |_| None::<Infallible>, |never| match never {});
        Some(self.completion())
    }

    /// The core's request the glue completed last, if any.
    fn completion(&self) -> Progress<u32> {
        let mut done = self.slot.core_done.take();
        assert!(done.len() <= 1, "completed at once: {done:?}");
        match done.pop() {
            Some((serial, result)) => Progress::Done(serial, result),
            None => Progress::Pending,
        }
    }

    /// Runs interrupts until the request completes, and the busy retry work when the slot
    /// logic scheduled it (a stop waiting for the bus); `None` if the line goes low with
    /// nothing scheduled.
    pub(crate) fn wait(&mut self) -> Option<RequestResult> {
        for _ in 0..MAX_INTERRUPTS {
            let progress = match self.interrupt() {
                Some(progress) => progress,
                None if self.slot.take_busy_retry() => self.busy_retry(),
                None => return None,
            };
            match progress {
                Progress::Done(token, result) => return Some(self.handed_back(token, result)),
                Progress::Pending => {}
            }
        }
        panic!("request still running after {MAX_INTERRUPTS} interrupts");
    }

    /// The kernel's busy retry work, scheduled by the slot logic
    /// ([`Slot::run_busy_retry`]: `slot::software_queue::retry_busy` until it is done, each
    /// sleep passing on the model's clock and the watchdog's): the core's request it
    /// completed, if any.
    pub(crate) fn busy_retry(&mut self) -> Progress<u32> {
        self.slept_ns += self.slot.run_busy_retry();
        self.completion()
    }

    /// The glue's request timer (`slot::watchdog::check`) once the request in flight, if
    /// any, has run for its time: aborts and completes it.
    pub(crate) fn abort(&mut self) -> Option<RequestResult> {
        self.slot
            .advance_clock(u64::from(REQUEST_TIMEOUT_MS) * 1_000_000);
        let timed_out = self.slot.timed_out().len();
        slot::watchdog::check(&self.slot);
        match self.completion() {
            Progress::Done(token, result) => {
                assert_eq!(
                    self.slot.timed_out().len(),
                    timed_out + 1,
                    "logged as timed out"
                );
                Some(self.handed_back(token, result))
            }
            Progress::Pending => None,
        }
    }

    /// Checks that a finished request is the one started last.
    fn handed_back(&self, token: u32, result: RequestResult) -> RequestResult {
        assert_eq!(
            token, self.started,
            "the engine hands back the request it ran"
        );
        assert!(self.ctrl().is_idle());
        assert_eq!(self.in_flight(), None);
        result
    }

    /// Runs `req` to completion.
    pub(crate) fn run(&mut self, req: &Request, segments: &[(u64, u32)]) -> RequestResult {
        self.start(req, segments).expect("start");
        assert_eq!(self.in_flight(), Some(self.started));
        self.wait().expect("request stuck: interrupt line low")
    }

    /// Runs a command without data.
    pub(crate) fn command(&mut self, opcode: u32, arg: u32, flags: u32) -> CommandResult {
        self.run(&request(command(opcode, arg, flags)), &[]).cmd
    }

    /// Runs a command without data that must succeed, and returns its response.
    pub(crate) fn ok(&mut self, opcode: u32, arg: u32, flags: u32) -> [u32; 4] {
        let result = self.command(opcode, arg, flags);
        assert_eq!(result.error, None, "CMD{opcode} failed");
        result.response
    }

    /// Runs a single-buffer data command that must succeed.
    pub(crate) fn read_ok(&mut self, opcode: u32, arg: u32, block_size: u32, blocks: u32) {
        let req = Request {
            data: Some(read_data(block_size, blocks)),
            ..adtc_read(opcode, arg, block_size)
        };
        let result = self.run(&req, &[(0, block_size * blocks)]);
        assert_eq!(result.first_error(), None, "CMD{opcode}: {result:?}");
    }
}

/// A single-block read of `block_size` bytes, as `mmc_send_adtc_data` and the SD register
/// reads (`mmc_app_send_scr`, `mmc_read_ssr`, `mmc_sd_switch`) build it.
pub(crate) fn adtc_read(opcode: u32, arg: u32, block_size: u32) -> Request {
    Request {
        data: Some(read_data(block_size, 1)),
        ..request(command(opcode, arg, flags::R1 | flags::ADTC))
    }
}

/// A read data phase with the MMC core's default timeout for SD reads (100 ms).
pub(crate) fn read_data(block_size: u32, blocks: u32) -> Data {
    data(Direction::Read, block_size, blocks)
}

/// CMD12 as the block layer prepares it.
pub(crate) fn stop_command() -> Command {
    command(12, 0, flags::R1B | flags::AC)
}

/// CMD23 for `blocks` blocks.
pub(crate) fn set_block_count(blocks: u32) -> Command {
    command(23, blocks, flags::R1 | flags::AC)
}

/// A block read (`write` false) or write of 512-byte blocks as the block layer builds it
/// ([`common::block_request`]).
pub(crate) fn block_request(write: bool, address: u32, blocks: u32, sbc: bool) -> Request {
    let direction = if write {
        Direction::Write
    } else {
        Direction::Read
    };
    common::block_request(direction, address, blocks, sbc)
}

/// A recognisable pattern for block `n`.
pub(crate) fn pattern(storage: &mut [u8]) {
    for (i, b) in storage.iter_mut().enumerate() {
        *b = (i * 7 + i / 512) as u8;
    }
}

/// Card storage of `len` bytes filled with [`pattern`], and a copy to compare with.
pub(crate) fn patterned(len: usize) -> (Vec<u8>, Vec<u8>) {
    let mut storage = vec![0; len];
    pattern(&mut storage);
    let expect = storage.clone();
    (storage, expect)
}

/// Whether every byte of `bytes` is `value`.
pub(crate) fn filled(bytes: &[u8], value: u8) -> bool {
    bytes.iter().all(|&b| b == value)
}
