// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the CQHCI engine over a register file that lies, under hostile event orders.
//!
//! The engine reaches the registers only through `registers::Io`; here that is a register
//! file whose interrupt status (CQIS), task completion (CQTCN), task error (CQTERRI) and
//! descriptor error (CQTDPE) registers hold whatever the case says when the interrupt comes,
//! including bits for slots that were never issued or already completed, and whose halt and
//! CLEAR ALL TASKS take effect at once, never, or at random, with CQCTL reads that may be
//! garbage. The glue played here issues data tasks and direct commands (valid or not), takes
//! interrupts, times tasks out with current and stale tickets, starts and finishes recovery,
//! switches the queue off, disables, suspends and enables it, and answers the engine's waits
//! late, out of order or not at all.
//!
//! After every event: no panic, every register access in the block, every completed slot one
//! that holds a task, no completion while recovery is pending, and the engine's busy slots
//! exactly the tasks the glue has issued and not had back. At the end the glue recovers as a
//! well-behaved one would; then every issued task must have come back exactly once. Budget
//! and summary line: `msdc/tests/fuzz/budget.rs`.

#[path = "../../msdc/tests/fuzz/budget.rs"]
#[macro_use]
mod budget;
#[path = "../../msdc/tests/fuzz/hostile.rs"]
mod hostile;

use std::cell::{Cell, RefCell};

use budget::{fail, Check, Events};
use cqhci::regs::{CQCTL, CQIS, CQTCN, CQTDPE, CQTERRI};
use cqhci::{
    CardInfo, Coalescing, Config, Cqhci, CqhciBlock, DataTask, DcmdResponse, DescriptorMemory,
    DirectCommand, Direction, DmaWidth, Finished, HostError, IdleState, IrqOutcome, Segment, Step,
    Tag, TaskDescriptorSize, TaskFlags, Ticket, TimeoutVerdict,
};
use hostile::{obeys, verdict, Noise, Obeys};
use proptest::prelude::*;
use registers::{Io, PollLimit};

/// Bytes of the CQHCI block the engine may touch (CQVER at 0x00 to CQCRA at 0x5C).
const BLOCK_LEN: usize = 0x60;

/// The lying register file.
struct Regs {
    file: RefCell<[u32; BLOCK_LEN / 4]>,
    halts: Cell<Obeys>,
    clears: Cell<Obeys>,
    /// CQCTL reads have random bits flipped.
    garbled_ctl: Cell<bool>,
    /// A register access outside the block (the file would otherwise panic on the index).
    stray: Cell<Option<usize>>,
    noise: Noise,
}

impl Regs {
    fn new(noise: u64) -> Self {
        Self {
            file: RefCell::new([0; BLOCK_LEN / 4]),
            halts: Cell::new(Obeys::AtOnce),
            clears: Cell::new(Obeys::AtOnce),
            garbled_ctl: Cell::new(false),
            stray: Cell::new(None),
            noise: Noise::new(noise),
        }
    }

    fn index(&self, offset: usize) -> Option<usize> {
        if offset % 4 == 0 && offset < BLOCK_LEN {
            Some(offset / 4)
        } else {
            self.stray.set(Some(offset));
            None
        }
    }

    fn set(&self, offset: usize, value: u32) {
        self.file.borrow_mut()[offset / 4] = value;
    }
}

impl Io<CqhciBlock> for Regs {
    fn read32(&self, offset: usize) -> u32 {
        let Some(index) = self.index(offset) else {
            return 0;
        };
        let value = self.file.borrow()[index];
        if offset == CQCTL::OFFSET && self.garbled_ctl.get() {
            value ^ self.noise.bits()
        } else {
            value
        }
    }

    fn write32(&self, offset: usize, value: u32) {
        let Some(index) = self.index(offset) else {
            return;
        };
        let mut file = self.file.borrow_mut();
        let old = file[index];
        file[index] = match offset {
            // Write one to clear.
            CQIS::OFFSET | CQTCN::OFFSET => old & !value,
            CQCTL::OFFSET => {
                let ctl = CQCTL::from_raw(value);
                let halt = ctl.halt() && self.noise.carries_out(self.halts.get());
                let clear = ctl.clr_all_tasks() && !self.noise.carries_out(self.clears.get());
                ctl.with_halt(halt).with_clr_all_tasks(clear).raw()
            }
            _ => value,
        };
    }

    fn poll32(
        &self,
        offset: usize,
        mut done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        // A few reads stand for the whole wait: a register that never changes would
        // otherwise cost hundreds of thousands of them.
        let mut last = self.read32(offset);
        for _ in 1..limit.attempts.clamp(1, 3) {
            if done(last) {
                return Ok(last);
            }
            last = self.read32(offset);
        }
        verdict(last, done)
    }
}

#[derive(Clone, Copy, Debug)]
enum Completions {
    /// A random subset of the busy slots.
    OfBusy(u32),
    /// Any bits at all.
    Any(u32),
    All,
}

#[derive(Clone, Debug)]
enum Event {
    IssueData {
        tag: u8,
        blocks: u16,
        context: u8,
        read: bool,
        segments: Vec<u32>,
    },
    IssueDcmd {
        opcode: u8,
        response: u8,
    },
    Irq {
        cqis: u32,
        tcn: Completions,
        terri: u32,
        tdpe: u32,
        cmd_error: Option<HostError>,
        data_error: Option<HostError>,
    },
    Timeout(u16),
    /// The operations that may wait: with `true` the glue waits at once (`Cqhci::drive`),
    /// as it normally does; with `false` it leaves the wait pending.
    RecoveryStart(bool),
    RecoveryFinish(bool),
    Off(bool),
    Disable(bool),
    Deactivate,
    Enable {
        card_cq: bool,
        short_memory: bool,
    },
    /// Answer the engine's pending wait (met or not, as the registers are).
    Resume,
    /// Run the operation pending to its end with `Wait::poll`.
    Drive,
    Halts(Obeys),
    Clears(Obeys),
    GarbledCtl(bool),
    Dump,
}

fn now() -> impl Strategy<Value = bool> {
    prop_oneof![3 => Just(true), 1 => Just(false)]
}

fn host_error() -> impl Strategy<Value = Option<HostError>> {
    prop_oneof![
        60 => Just(None),
        1 => Just(Some(HostError::Crc)),
        1 => Just(Some(HostError::Timeout)),
        1 => Just(Some(HostError::Other)),
    ]
}

fn segment_len() -> impl Strategy<Value = u32> {
    prop_oneof![
        12 => Just(4096_u32),
        4 => Just(65536),
        1 => Just(0),
        1 => Just(65537),
        1 => Just(300_000),
        1 => any::<u32>(),
    ]
}

fn cqis() -> impl Strategy<Value = u32> {
    // HAC, TCC, RED, TCL, GCE, ICCE: mostly one or two of them, sometimes anything.
    prop_oneof![
        24 => Just(CQIS::zeroed().with_tcc(true).raw()),
        2 => 0..64_u32,
        1 => any::<u32>(),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        12 => (0..33_u8, prop_oneof![8 => 1..64_u16, 1 => Just(0_u16), 1 => any::<u16>()],
               prop_oneof![9 => Just(0_u8), 1 => any::<u8>()], any::<bool>(),
               prop_oneof![
                   9 => proptest::collection::vec(segment_len(), 1..4),
                   1 => proptest::collection::vec(segment_len(), 0..12),
               ])
            .prop_map(|(tag, blocks, context, read, segments)| Event::IssueData {
                tag, blocks, context, read, segments,
            }),
        2 => (prop_oneof![4 => 0..64_u8, 1 => any::<u8>()], 0..4_u8)
            .prop_map(|(opcode, response)| Event::IssueDcmd { opcode, response }),
        12 => (cqis(),
               prop_oneof![
                   6 => any::<u32>().prop_map(Completions::OfBusy),
                   2 => any::<u32>().prop_map(Completions::Any),
                   1 => Just(Completions::All),
               ],
               any::<u32>(), any::<u32>(), host_error(), host_error())
            .prop_map(|(cqis, tcn, terri, tdpe, cmd_error, data_error)| Event::Irq {
                cqis, tcn, terri, tdpe, cmd_error, data_error,
            }),
        1 => any::<u16>().prop_map(Event::Timeout),
        3 => now().prop_map(Event::RecoveryStart),
        3 => now().prop_map(Event::RecoveryFinish),
        1 => now().prop_map(Event::Off),
        1 => now().prop_map(Event::Disable),
        1 => Just(Event::Deactivate),
        3 => (prop_oneof![9 => Just(true), 1 => Just(false)],
              prop_oneof![9 => Just(false), 1 => Just(true)])
            .prop_map(|(card_cq, short_memory)| Event::Enable { card_cq, short_memory }),
        6 => Just(Event::Resume),
        2 => Just(Event::Drive),
        1 => obeys().prop_map(Event::Halts),
        1 => obeys().prop_map(Event::Clears),
        1 => any::<bool>().prop_map(Event::GarbledCtl),
        1 => Just(Event::Dump),
    ]
}

/// One case: the engine's configuration, the register noise seed and the events.
fn case() -> impl Strategy<Value = (Config, u64, Vec<Event>)> {
    let config = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![3 => Just(1_u16), 3 => Just(3), 3 => Just(8), 3 => Just(128), 1 => Just(0)],
        prop_oneof![
            6 => Just(None),
            2 => (1..32_u8, 1..128_u8).prop_map(|(threshold, timeout)| Some(Coalescing { threshold, timeout })),
            1 => (0..34_u8, 0..130_u8).prop_map(|(threshold, timeout)| Some(Coalescing { threshold, timeout })),
        ],
    )
        .prop_map(|(td128, dma64, short, dcmd, max_segments, coalescing)| Config {
            task_descriptor: if td128 {
                TaskDescriptorSize::Bits128
            } else {
                TaskDescriptorSize::Bits64
            },
            dma: if dma64 { DmaWidth::Bits64 } else { DmaWidth::Bits32 },
            short_transfer_descriptor: short,
            direct_commands: dcmd,
            max_segments,
            coalescing,
        });
    (
        config,
        any::<u64>(),
        proptest::collection::vec(event(), 0..300),
    )
}

const TDL_BUS: u64 = 0x8000_0000;
const TRANSFERS_BUS: u64 = 0x8010_0000;
const DATA_BUS: u64 = 0x9000_0000;

/// The glue: the engine, its registers and memory, and the shadow of what it issued.
struct Glue {
    engine: Cqhci,
    regs: Regs,
    tdl: Vec<u8>,
    transfers: Vec<u8>,
    /// By slot: the task it holds (its number among the tasks issued) and its ticket.
    slots: [Option<(usize, Ticket)>; Tag::COUNT],
    /// Times each issued task came back.
    returned: Vec<u8>,
    tickets: Vec<Ticket>,
    /// The engine asked for a wait and has not been resumed.
    waiting: bool,
}

impl Glue {
    fn new(engine: Cqhci, noise: u64) -> Self {
        let layout = engine.layout();
        Self {
            tdl: vec![0; layout.tdl_len()],
            transfers: vec![0; layout.transfer_area_len()],
            engine,
            regs: Regs::new(noise),
            slots: [None; Tag::COUNT],
            returned: Vec::new(),
            tickets: Vec::new(),
            waiting: false,
        }
    }

    fn busy_mask(&self) -> u32 {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .fold(0, |mask, (n, _)| mask | 1 << n)
    }

    fn issued(&mut self, tag: Tag, result: Result<Ticket, cqhci::Error>, held: bool) -> Check {
        // Refused (`Err`): the request goes back to the core untouched.
        if let Ok(ticket) = result {
            ensure!(!held, "slot {} issued twice", tag.number());
            ensure!(ticket.tag == tag, "ticket for slot {}", ticket.tag.number());
            self.slots[tag.index()] = Some((self.returned.len(), ticket));
            self.returned.push(0);
            self.tickets.push(ticket);
        }
        Ok(())
    }

    /// Takes back the task of `tag`, which the engine says completed.
    fn complete(&mut self, tag: Tag) -> Check {
        let Some((task, _)) = self.slots[tag.index()].take() else {
            return fail(format!(
                "completion for slot {}, which holds no task",
                tag.number()
            ));
        };
        self.returned[task] += 1;
        Ok(())
    }

    fn step(&mut self, step: Step) -> Check {
        match step {
            Step::Wait(_) => self.waiting = true,
            Step::Done(Finished { completions, .. }) => {
                self.waiting = false;
                for completion in completions.iter() {
                    self.complete(completion.tag)?;
                }
            }
        }
        Ok(())
    }

    fn irq_outcome(&mut self, out: IrqOutcome) -> Check {
        if self.engine.recovery_pending() {
            ensure!(
                out.completed.is_empty(),
                "completions while recovery is pending"
            );
        }
        for tag in out.spurious.iter() {
            ensure!(
                self.slots[tag.index()].is_none(),
                "slot {} with a task reported spurious",
                tag.number()
            );
        }
        for completion in out.completed.iter() {
            self.complete(completion.tag)?;
        }
        Ok(())
    }

    fn enable(&mut self, card_cq: bool, short_memory: bool) -> Result<(), cqhci::Error> {
        let cut = usize::from(short_memory);
        let tdl_len = self.tdl.len() - cut.min(self.tdl.len());
        let mut mem = DescriptorMemory {
            tdl: &mut self.tdl[..tdl_len],
            tdl_bus: TDL_BUS,
            transfers: &mut self.transfers,
            transfers_bus: TRANSFERS_BUS,
        };
        let card = CardInfo {
            command_queue_enabled: card_cq,
            rca: 1,
        };
        self.engine.enable(&self.regs, &(), card, &mut mem)
    }

    fn apply(&mut self, event: Event) -> Check {
        match event {
            Event::IssueData {
                tag,
                blocks,
                context,
                read,
                segments,
            } => {
                let Some(tag) = Tag::new(u32::from(tag)) else {
                    return Ok(());
                };
                let task = DataTask {
                    direction: if read {
                        Direction::Read
                    } else {
                        Direction::Write
                    },
                    block_count: blocks,
                    block_address: 0x1000,
                    flags: TaskFlags::default(),
                    context,
                };
                let mut address = DATA_BUS;
                let segments: Vec<Segment> = segments
                    .into_iter()
                    .map(|length| {
                        let segment = Segment { address, length };
                        address += u64::from(length);
                        segment
                    })
                    .collect();
                let held = self.slots[tag.index()].is_some();
                let mut mem = DescriptorMemory {
                    tdl: &mut self.tdl,
                    tdl_bus: TDL_BUS,
                    transfers: &mut self.transfers,
                    transfers_bus: TRANSFERS_BUS,
                };
                let result =
                    self.engine
                        .issue_data(&self.regs, &(), &mut mem, tag, &task, segments);
                if self.engine.config().direct_commands && tag == Tag::DCMD {
                    ensure!(result.is_err(), "data task in the DCMD slot");
                }
                self.issued(tag, result, held)?;
            }
            Event::IssueDcmd { opcode, response } => {
                let response = match response {
                    0 => DcmdResponse::None,
                    1 | 2 => DcmdResponse::Short,
                    _ => DcmdResponse::ShortBusy,
                };
                let command = DirectCommand {
                    opcode,
                    argument: 0x0001_0000,
                    response,
                };
                let held = self.slots[Tag::DCMD.index()].is_some();
                let mut mem = DescriptorMemory {
                    tdl: &mut self.tdl,
                    tdl_bus: TDL_BUS,
                    transfers: &mut self.transfers,
                    transfers_bus: TRANSFERS_BUS,
                };
                let result = self.engine.issue_dcmd(&self.regs, &(), &mut mem, &command);
                self.issued(Tag::DCMD, result, held)?;
            }
            Event::Irq {
                cqis,
                tcn,
                terri,
                tdpe,
                cmd_error,
                data_error,
            } => {
                let tcn = match tcn {
                    Completions::OfBusy(bits) => bits & self.busy_mask(),
                    Completions::Any(bits) => bits,
                    Completions::All => u32::MAX,
                };
                self.regs.set(CQIS::OFFSET, cqis);
                self.regs.set(CQTCN::OFFSET, tcn);
                self.regs.set(CQTERRI::OFFSET, terri);
                self.regs.set(CQTDPE::OFFSET, tdpe);
                let out = self.engine.irq(&self.regs, cmd_error, data_error);
                self.irq_outcome(out)?;
            }
            Event::Timeout(pick) => {
                if self.tickets.is_empty() {
                    return Ok(());
                }
                let ticket = self.tickets[usize::from(pick) % self.tickets.len()];
                let current = self.slots[ticket.tag.index()].is_some_and(|(_, t)| t == ticket);
                let verdict = self.engine.timeout(ticket);
                ensure!(
                    (verdict != TimeoutVerdict::AlreadyCompleted) == current,
                    "timeout of slot {}: {verdict:?} for a {} ticket",
                    ticket.tag.number(),
                    if current { "current" } else { "stale" }
                );
                if current {
                    ensure!(self.engine.recovery_pending(), "a timeout without recovery");
                }
            }
            Event::RecoveryStart(now) => {
                let step = self.engine.recovery_start(&self.regs, &());
                self.step_unless_refused(step, now)?;
            }
            Event::RecoveryFinish(now) => {
                let step = self.engine.recovery_finish(&self.regs);
                self.step_unless_refused(step, now)?;
            }
            Event::Off(now) => {
                let step = self.engine.off(&self.regs, &());
                self.step_unless_refused(step, now)?;
            }
            Event::Disable(now) => {
                let step = self.engine.disable(&self.regs, &());
                self.step_unless_refused(step, now)?;
            }
            Event::Deactivate => self.engine.deactivate(&self.regs),
            Event::Enable {
                card_cq,
                short_memory,
            } => {
                let was = self.engine.is_enabled();
                let result = self.enable(card_cq, short_memory);
                if !card_cq {
                    ensure!(result.is_err(), "enabled for a card without command queue");
                }
                if result.is_ok() {
                    ensure!(
                        self.engine.is_enabled(),
                        "enable succeeded, engine disabled"
                    );
                } else {
                    ensure!(
                        self.engine.is_enabled() == was,
                        "a failed enable changed state"
                    );
                }
            }
            Event::Resume => {
                let step = self.engine.resume(&self.regs, &());
                self.step(step)?;
            }
            Event::Drive => {
                if self.waiting {
                    let step = self.engine.resume(&self.regs, &());
                    self.drive(step)?;
                }
            }
            Event::Halts(how) => self.regs.halts.set(how),
            Event::Clears(how) => self.regs.clears.set(how),
            Event::GarbledCtl(on) => self.regs.garbled_ctl.set(on),
            Event::Dump => {
                let _ = Cqhci::dump(&self.regs, &());
                let _ = Cqhci::version(&self.regs);
            }
        }
        self.invariants()
    }

    /// Waits as the glue that spins where it stands does, to the end of the operation.
    fn drive(&mut self, step: Step) -> Check {
        let regs = &self.regs;
        let finished = self.engine.drive(regs, &(), step, |wait| {
            wait.poll(regs, 1);
        });
        self.step(Step::Done(finished))
    }

    /// An operation asked for while another waits is refused with an empty `Done`; that
    /// does not end the one waiting. Otherwise it runs, and the glue waits `now` or later.
    fn step_unless_refused(&mut self, step: Step, now: bool) -> Check {
        if self.waiting {
            ensure!(
                matches!(step, Step::Done(f) if f.completions.is_empty()),
                "an operation ran while another waited: {step:?}"
            );
            return Ok(());
        }
        if now {
            self.drive(step)
        } else {
            self.step(step)
        }
    }

    fn invariants(&self) -> Check {
        if let Some(offset) = self.regs.stray.get() {
            return fail(format!("register access at {offset:#x}, outside the block"));
        }
        let busy = self.engine.in_flight().bits();
        ensure!(
            busy == self.busy_mask(),
            "engine busy {busy:#010x}, glue holds {:#010x}",
            self.busy_mask()
        );
        let idle = self.engine.idle_state();
        let expected = if self.engine.recovery_pending() {
            IdleState::RecoveryNeeded
        } else if busy == 0 {
            IdleState::Idle
        } else {
            IdleState::Busy
        };
        ensure!(
            idle == expected,
            "idle_state {idle:?}, expected {expected:?}"
        );
        Ok(())
    }

    /// Recovers as a well-behaved glue would, with a controller that obeys; then every task
    /// must have come back exactly once.
    fn drain(&mut self, events: &Events) -> Check {
        self.regs.halts.set(Obeys::AtOnce);
        self.regs.clears.set(Obeys::AtOnce);
        self.regs.garbled_ctl.set(false);
        for event in [
            Event::Drive,
            Event::Enable {
                card_cq: true,
                short_memory: false,
            },
            Event::RecoveryStart(true),
            Event::RecoveryFinish(true),
        ] {
            events.tick();
            self.apply(event)?;
        }
        ensure!(!self.waiting, "an operation still waits after draining");
        ensure!(
            self.engine.in_flight().is_empty(),
            "tasks left after recovery: {:#010x}",
            self.engine.in_flight().bits()
        );
        for (task, count) in self.returned.iter().enumerate() {
            ensure!(*count == 1, "task {task} came back {count} times");
        }
        Ok(())
    }
}

#[test]
fn hostile_registers_and_event_orders() {
    budget::fuzz("cqhci", 512, case(), |(config, noise, case), events| {
        events.tick();
        let Ok(engine) = Cqhci::new(config) else {
            return Ok(());
        };
        let mut glue = Glue::new(engine, noise);
        // Most cases start from an enabled queue; the events may disable it again.
        let _ = glue.enable(true, false);
        for event in case {
            events.tick();
            glue.apply(event)?;
        }
        glue.drain(events)
    });
}
