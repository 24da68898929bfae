// SPDX-License-Identifier: GPL-2.0
//! Engine-against-model scenarios for the CQHCI engine: the list that both `cargo test`
//! (`tests/scenarios.rs`) and the KUnit suite `mtk_sd_rust_cqhci` run, each scenario a
//! function that drives the engine against the `models` crate's CQHCI model and card on the rig of
//! `scenarios/rig.rs` and returns `Err` naming the first expectation that failed instead of
//! panicking.
//!
//! Test code only: the kernel compiles this module into KUnit builds alone (which always
//! include `models`, as `crate::models`). On the host the library cannot hold it, because `models`
//! depends on this crate; `tests/scenarios.rs` compiles it with the same paths the kernel
//! gives it (`super::engine`, `crate::models`, `crate::registers`).

use super::completion::{CompletionStatus, IdleState, TaskError, TimeoutVerdict};
use super::desc::{Direction, DmaWidth, TaskDescriptorSize, TaskFlags};
use super::engine::{Coalescing, Config, Finished, Step, Ticket, Warnings};
use super::regs::{CQCFG, CQSSC2, CQTDLBAU};
use crate::models::cqhci::controller::{CqhciModel, Fault, ModelConfig};
use crate::models::emmc::card::ReadyOrder;
use crate::models::emmc::command::Command;
use crate::registers::Io;

// Explicit, so the file is found whichever file includes this one (`lib.rs`, or the host's
// test through `#[path]`).
#[path = "scenarios/rig.rs"]
mod rig;

use rig::{config, engine, mediatek, tag, Buffers, Rig, RCA, SECTORS};

use CompletionStatus::{Done, Failed};

/// A failed expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub &'static str);

/// A scenario's result.
pub type Outcome = Result<(), ScenarioError>;

/// `Ok` if `condition` holds, else the failure `what`.
fn ensure(condition: bool, what: &'static str) -> Outcome {
    if condition {
        Ok(())
    } else {
        Err(ScenarioError(what))
    }
}

/// Runs `scenario` on a started rig for `config` whose card makes tasks ready in `order`,
/// then checks that the model saw no protocol violation and the read data was right.
fn run(
    config: Config,
    order: ReadyOrder,
    scenario: impl FnOnce(&mut Rig<'_>) -> Outcome,
) -> Outcome {
    let mut buffers = Buffers::new();
    let mut rig = Rig::new(&mut buffers, engine(config)?, order);
    rig.start()?;
    scenario(&mut rig)?;
    rig.no_violations()
}

/// One read task, issued and completed.
pub fn one_task() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        ensure(
            rig.engine.queue_depth() == 31,
            "DCMD host must have depth 31",
        )?;
        rig.read(0, 1, 1)?;
        rig.pump_idle()?;
        ensure(rig.completed == 1, "one completion expected")?;
        rig.ensure_status(0, Done, "task not done")?;
        ensure(rig.window.bytes_written == 512, "wrong amount of data")?;
        ensure(
            rig.engine.idle_state() == IdleState::Idle,
            "engine not idle",
        )
    })
}

/// All 32 slots busy at once (no DCMD), completing out of order, each exactly once.
pub fn all_slots() -> Outcome {
    let cfg = config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    run(cfg, ReadyOrder::Shuffled(0x1234_5678), |rig| {
        ensure(rig.engine.queue_depth() == 32, "depth 32 without DCMD")?;
        for slot in 0..32 {
            rig.read(slot, slot % SECTORS as u32, 1)?;
        }
        ensure(rig.engine.in_flight().count() == 32, "32 tasks in flight")?;
        rig.pump_idle()?;
        ensure(rig.completed == 32, "32 completions expected")?;
        let in_order = rig.order.windows(2).all(|w| w.first() < w.get(1));
        ensure(!in_order, "completions should be out of order")?;
        for slot in 0..32 {
            rig.ensure_status(slot, Done, "a slot not done")?;
        }
        Ok(())
    })
}

/// Writes, then a flush as a direct command, then reads: the flush waits for the writes.
pub fn dcmd_among_data() -> Outcome {
    run(mediatek(), ReadyOrder::Shuffled(99), |rig| {
        for lba in 0..SECTORS as u32 {
            if let Some(s) = rig
                .card
                .storage_mut()
                .get_mut(lba as usize * 512..lba as usize * 512 + 512)
            {
                s.fill(0);
            }
        }
        let reliable = TaskFlags {
            reliable_write: true,
            ..TaskFlags::default()
        };
        rig.issue(0, Direction::Write, 0, 1, 2, reliable)?;
        rig.issue(1, Direction::Write, 1, 1, 3, TaskFlags::default())?;
        rig.flush()?;
        rig.read(2, 0, 2)?;
        ensure(
            rig.issue(31, Direction::Read, 0, 1, 1, TaskFlags::default())
                .is_err(),
            "slot 31 is for DCMD",
        )?;
        rig.pump_idle()?;
        ensure(rig.completed == 4, "four completions expected")?;
        let position = |t: u8| rig.order.iter().take(rig.order_len).position(|&x| x == t);
        let flush_at = position(31).ok_or(ScenarioError("flush never completed"))?;
        ensure(
            position(0).is_some_and(|p| p < flush_at),
            "flush overtook write 0",
        )?;
        ensure(
            position(1).is_some_and(|p| p < flush_at),
            "flush overtook write 1",
        )?;
        ensure(rig.card.stats().flushes == 1, "card did not flush")?;
        ensure(rig.card.stats().reliable_writes == 1, "reliable write lost")
    })
}

/// 32-bit DMA with 64-bit task descriptors, multi-segment transfers both ways.
pub fn dma32_segments() -> Outcome {
    let cfg = config(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false);
    run(cfg, ReadyOrder::Immediate, |rig| {
        if let Some(s) = rig.card.storage_mut().get_mut(512..1024) {
            s.fill(0);
        }
        rig.issue(3, Direction::Write, 1, 1, 3, TaskFlags::default())?;
        rig.issue(4, Direction::Read, 0, 2, 3, TaskFlags::default())?;
        rig.pump_idle()?;
        ensure(rig.completed == 2, "two completions expected")?;
        ensure(rig.window.bytes_written == 1024, "read data incomplete")
    })
}

/// Issues five tasks, injects `fault`, runs recovery and retries until everything is done.
fn fault_and_recover(fault: Fault, faulty: u32, expect: CompletionStatus) -> Outcome {
    run(mediatek(), ReadyOrder::Shuffled(7), |rig| {
        rig.inject(fault)?;
        for slot in 0..5 {
            rig.read(slot, slot % SECTORS as u32, 1)?;
        }
        rig.pump_until(|r| r.notified.is_some() || r.engine.in_flight().is_empty())?;
        ensure(rig.notified.is_some(), "recovery was not requested")?;
        ensure(
            rig.engine.idle_state() == IdleState::RecoveryNeeded,
            "idle must report recovery",
        )?;
        ensure(
            rig.engine.off(&rig.bus, &rig.hooks) == Step::Done(Finished::default()),
            "cqe_off must do nothing during recovery",
        )?;
        let mut again = [false; 5];
        let finished = rig.recover()?;
        ensure(finished.warnings.is_empty(), "recovery warned")?;
        rig.ensure_status(faulty, expect, "faulty task has the wrong status")?;
        for (slot, retry) in again.iter_mut().enumerate() {
            match rig.status(slot as u32) {
                Some(Done) => {}
                Some(_) => *retry = true,
                None => return Err(ScenarioError("a request was lost")),
            }
        }
        ensure(rig.completed == 5, "every request completes exactly once")?;
        // The block layer retries what failed or was requeued.
        for (slot, retry) in again.iter().enumerate() {
            if *retry {
                rig.read(slot as u32, slot as u32 % SECTORS as u32, 1)?;
            }
        }
        rig.pump_idle()?;
        for slot in 0..5 {
            rig.ensure_status(slot, Done, "retry failed")?;
        }
        ensure(
            rig.hooks.calls().disable_recovery == 1,
            "disable(recovery) not called once",
        )?;
        ensure(rig.card.queued_tasks() == 0, "card queue not empty")
    })
}

/// Declares the fault scenarios from a table: the fault, the slot it hits and the error that
/// slot's task must end with.
macro_rules! fault_scenarios {
    ($($(#[$doc:meta])* $name:ident: $fault:expr => $faulty:literal, $error:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name() -> Outcome {
            fault_and_recover($fault, $faulty, Failed(TaskError::$error))
        }
    )*};
}

fault_scenarios! {
    /// A response error (RED, CQTERRI) on CMD46.
    fault_response_error: Fault::ResponseError { tag: 2, command: 46 } => 2, Io;
    /// A response error while queueing (CMD44).
    fault_queueing_error: Fault::ResponseError { tag: 3, command: 44 } => 3, Io;
    /// A data CRC error the host detects.
    fault_data_crc: Fault::DataCrc { tag: 1 } => 1, Crc;
    /// A command response timeout.
    fault_timeout: Fault::CommandTimeout { tag: 4 } => 4, Timeout;
    /// A task descriptor error (ICCE with CQTDPE).
    fault_descriptor_error: Fault::DescriptorError { tag: 0 } => 0, Io;
}

/// CQTCN bits for empty slots are reported and ignored.
pub fn spurious_completion() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        rig.inject(Fault::SpuriousCompletion { mask: 0x0000_F000 })?;
        rig.read(1, 0, 1)?;
        rig.pump_idle()?;
        ensure(rig.completed == 1, "only the real task completes")?;
        ensure(rig.spurious == 0x0000_F000, "spurious bits not reported")?;
        rig.read(12, 1, 1)?;
        rig.pump_idle()?;
        ensure(rig.completed == 2, "slot 12 works after a spurious bit")
    })
}

/// A spurious CQTCN bit for a free slot, still latched when the slot is reused before the
/// interrupt is serviced, must not complete the new task: only the card's completion does.
pub fn spurious_completion_of_a_reused_slot() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        rig.inject(Fault::SpuriousCompletion { mask: 1 << 12 })?;
        // The card never readies the task that reuses slot 12, so only a stale bit could
        // complete it.
        rig.inject(Fault::Stall { tag: 12 })?;
        rig.read(1, 0, 1)?;
        // Task 1 completes with the stray bit for free slot 12; nobody services it yet.
        rig.run_model(50);
        rig.read(12, 1, 1)?;
        rig.pump_until(|r| r.completed == 1)?;
        rig.run_model(50);
        rig.pump_until(|r| r.interrupts >= 1)?;
        ensure(rig.ticket(1).is_err(), "task 1 must be done")?;
        ensure(
            rig.engine.in_flight().count() == 1 && rig.ticket(12).is_ok(),
            "the reused slot must still be running",
        )?;
        time_out_and_recover(rig, 12).map(|_| ())
    })
}

/// The core's timeout for the stalled task in `slot`: it needs recovery, after which the
/// task has failed with a timeout. Returns the task's (now stale) ticket.
fn time_out_and_recover(rig: &mut Rig<'_>, slot: u32) -> Result<Ticket, ScenarioError> {
    let ticket = rig.ticket(slot)?;
    ensure(
        rig.engine.timeout(ticket)
            == TimeoutVerdict::TimedOut {
                recovery_needed: true,
            },
        "timeout must need recovery",
    )?;
    rig.recover()?;
    rig.ensure_status(slot, Failed(TaskError::Timeout), "timeout status")?;
    Ok(ticket)
}

/// A task the card never finishes: the core's timeout starts recovery.
pub fn software_timeout() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        rig.inject(Fault::Stall { tag: 5 })?;
        rig.read(4, 0, 1)?;
        rig.read(5, 1, 1)?;
        rig.pump_until(|r| r.completed == 1)?;
        rig.run_model(50);
        ensure(
            rig.engine.in_flight().count() == 1,
            "stalled task must stay queued",
        )?;
        ensure(rig.ticket(4).is_err(), "task 4 must be done")?;
        let ticket = time_out_and_recover(rig, 5)?;
        ensure(
            rig.engine.timeout(ticket) == TimeoutVerdict::AlreadyCompleted,
            "stale ticket",
        )?;
        rig.read(5, 1, 1)?;
        rig.pump_idle()?;
        rig.ensure_status(5, Done, "retry after timeout")
    })
}

/// `cqe_off`, suspend and resume: the next request switches the controller back on.
pub fn suspend_resume() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        rig.read(0, 0, 1)?;
        rig.pump_idle()?;
        let step = rig.engine.off(&rig.bus, &rig.hooks);
        let finished = rig.drive(step)?;
        ensure(finished.warnings.is_empty(), "off warned")?;
        ensure(!rig.engine.is_on(), "off must clear cqe_on")?;
        let calls = rig.hooks.calls();
        ensure(calls.disable == 1 && calls.post_disable == 1, "off hooks")?;
        rig.read(1, 1, 1)?;
        ensure(
            rig.hooks.calls().pre_enable == 1,
            "request must call pre_enable",
        )?;
        ensure(rig.engine.is_on(), "request must switch on")?;
        rig.pump_idle()?;
        // Suspend: the controller loses its configuration.
        rig.engine.deactivate(&rig.bus);
        ensure(!rig.bus.read::<CQCFG>().cq_en(), "suspend must disable")?;
        *rig.bus.model() = CqhciModel::new(ModelConfig::MEDIATEK);
        rig.read(2, 0, 1)?;
        ensure(
            u64::from(rig.bus.read::<CQTDLBAU>().tdlbau()) == rig.map.tdl >> u32::BITS,
            "TDL base not restored",
        )?;
        ensure(
            rig.bus.read::<CQSSC2>().rca() == u32::from(RCA),
            "RCA not restored",
        )?;
        rig.pump_idle()?;
        rig.ensure_status(2, Done, "request after resume")?;
        let step = rig.engine.disable(&rig.bus, &rig.hooks);
        rig.drive(step)?;
        ensure(!rig.engine.is_enabled(), "disable")
    })
}

/// Coalescing: fewer interrupts than tasks, and the timer flushes the remainder.
pub fn coalescing() -> Outcome {
    let mut cfg = mediatek();
    cfg.coalescing = Some(Coalescing {
        threshold: 4,
        timeout: 3,
    });
    run(cfg, ReadyOrder::Immediate, |rig| {
        for slot in 0..6 {
            rig.read(slot, slot % SECTORS as u32, 1)?;
        }
        rig.pump_idle()?;
        ensure(rig.completed == 6, "six completions")?;
        ensure(rig.interrupts < 6, "coalescing should save interrupts")?;
        ensure(
            rig.interrupts >= 2,
            "threshold and timer interrupts expected",
        )?;
        rig.flush()?;
        rig.pump_idle()?;
        rig.ensure_status(31, Done, "DCMD interrupts at once")
    })
}

/// Halt and clear that never complete: off and recovery warn but lose no request.
pub fn stuck_controller() -> Outcome {
    run(mediatek(), ReadyOrder::Immediate, |rig| {
        rig.inject(Fault::IgnoreHalt)?;
        let step = rig.engine.off(&rig.bus, &rig.hooks);
        let finished = rig.drive(step)?;
        ensure(
            finished.warnings.contains(Warnings::STUCK_ON),
            "stuck halt not reported",
        )?;
        rig.inject(Fault::Stall { tag: 0 })?;
        rig.read(0, 0, 1)?;
        rig.run_model(20);
        let ticket = rig.ticket(0)?;
        rig.engine.timeout(ticket);
        rig.inject(Fault::IgnoreClear)?;
        let step = rig.engine.recovery_start(&rig.bus, &rig.hooks);
        rig.drive(step)?;
        let _ = rig.card.command(Command::new(48, 1));
        let step = rig.engine.recovery_finish(&rig.bus);
        let finished = rig.drive(step)?;
        ensure(
            finished.warnings.contains(Warnings::CLEAR_FAILED),
            "failed clear not reported",
        )?;
        ensure(
            finished.completions.status(tag(0)?) == Some(Failed(TaskError::Timeout)),
            "stalled task must time out",
        )
    })
}

/// Stack taken by one scenario's rig and the buffers it borrows.
pub fn rig_size() -> usize {
    rig::RIG_SIZE
}

/// A named scenario.
pub type Scenario = (&'static str, fn() -> Outcome);

/// Expands `$then!(ARGS... name, name, ...)` with the name of every scenario: the one list
/// that [`ALL`], the host tests and the KUnit suite are made from.
#[macro_export]
macro_rules! cqhci_scenarios {
    ($then:ident!($($args:tt)*)) => {
        $then!($($args)*
            one_task,
            all_slots,
            dcmd_among_data,
            dma32_segments,
            fault_response_error,
            fault_queueing_error,
            fault_data_crc,
            fault_timeout,
            fault_descriptor_error,
            spurious_completion,
            spurious_completion_of_a_reused_slot,
            software_timeout,
            suspend_resume,
            coalescing,
            stuck_controller,
        );
    };
}

macro_rules! scenario_table {
    ($($name:ident,)*) => {
        /// Every scenario, by name.
        pub const ALL: &[Scenario] = &[$((stringify!($name), $name as fn() -> Outcome)),*];
    };
}

cqhci_scenarios!(scenario_table!());
