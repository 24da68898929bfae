// SPDX-License-Identifier: GPL-2.0

//! The CQHCI engine on an MT8183 MSDC with MediaTek's CQHCI block and an eMMC that runs
//! its queue out of order: 31 data tasks and a cache flush in flight at once; a task error
//! (response error, data CRC error, command timeout) and the core's recovery completing
//! every task once; the core's own commands between tasks, after `cqe_off`.

use cqhci::{CompletionStatus, TaskError};
use mmc_request::{Direction, ErrorStat};
use models::cqhci::Fault;
use models::emmc::{Card, ReadyOrder};
use models::msdc::FaultScope;
use msdc::controller::HostSetup;
use msdc::dma::DmaAddressing;
use msdc::soc;
use slot::command_queue::QueueEvent;

use crate::block::{initial_storage, Work, REGION_SECTORS};
use crate::board::{setup, Board};
use crate::common::flags::{AC, R1};
use crate::cqe_glue::{block_layer, CqeHarness, Mistake};
use crate::slot::{ready_for_data, CoreHost, EMMC_RCA};

/// Data tasks in flight at once: every data slot.
const DATA_JOBS: usize = 31;
/// Where the flush goes among them.
const FLUSH_AT: usize = 16;
/// Card size: a region per job, and one per read-back job.
const SECTORS: u32 = 2 * (DATA_JOBS as u32 + 1) * REGION_SECTORS;
/// EXT_CSD CMDQ_MODE_EN.
const EXT_CSD_CMDQ_MODE_EN: usize = 15;

/// The task mix, by position.
const MIX: [(Direction, u32); 8] = [
    (Direction::Read, 8),
    (Direction::Write, 8),
    (Direction::Read, 32),
    (Direction::Write, 128),
    (Direction::Read, 128),
    (Direction::Write, 16),
    (Direction::Write, 1),
    (Direction::Read, 1),
];

/// The SoC generation with a CQHCI block (MT8183, and MT8192/MT8195 through the DT
/// fallback).
fn cqe_setup() -> HostSetup {
    setup(&soc::MT8183, DmaAddressing::Bits36, true)
}

/// Runs `f` on a harness whose eMMC runs its queue out of order, then checks the card holds
/// what was written.
fn with_queue(f: impl FnOnce(&mut CqeHarness<'_, Card<'_>>)) {
    let mut storage = initial_storage(SECTORS);
    let block = block_layer(&storage);
    let card = Card::new(&mut storage, 32, ReadyOrder::Shuffled(0x5EED));
    let board = Board::with_cqhci(cqe_setup(), card);
    let mut harness = CqeHarness::new(&board, block);
    f(&mut harness);
    harness.block().assert_all_ended(board.card().storage());
}

/// `DATA_JOBS` data jobs of the mix with the flush at `FLUSH_AT`, each in its own region;
/// the first is job `first`.
fn tasks(first: usize, data_jobs: usize) -> Vec<Work> {
    (0..=data_jobs)
        .map(|n| {
            let job = first + n;
            if n == FLUSH_AT.min(data_jobs) {
                return Work::Flush;
            }
            let (direction, blocks) = MIX[job % MIX.len()];
            Work::in_region(direction, job, blocks)
        })
        .collect()
}

/// Runs 31 data tasks and a flush, all issued before the hardware runs, then reads back
/// what they wrote; checks that the engine held all 32 at once.
fn run_full_queue<C: models::msdc::CardSlot>(
    harness: &mut CqeHarness<'_, C>,
) -> std::ops::Range<usize> {
    let jobs = harness.block().add(tasks(0, DATA_JOBS));
    harness.submit();
    assert_eq!(
        harness.max_tasks, 32,
        "31 data tasks and the flush in flight"
    );
    harness.run();
    let back = harness.block().read_back(jobs.clone());
    harness.block().add(back);
    harness.run();
    harness.assert_idle();
    jobs
}

#[test]
fn thirty_one_tasks_and_a_flush_complete_once_each() {
    with_queue(|harness| {
        let flushes = harness.board().card().stats().flushes;
        let jobs = run_full_queue(harness);
        assert_eq!(harness.recoveries, 0);
        for job in jobs {
            let statuses = harness.statuses_of(job);
            assert_eq!(statuses, [CompletionStatus::Done], "job {job}");
        }
        assert_eq!(harness.board().card().stats().flushes, flushes + 1);
        // Out of order: the card's shuffled readiness reorders the completions.
        let order: Vec<usize> = harness.statuses().iter().map(|(a, _)| a.job).collect();
        assert!(order.windows(2).any(|w| w[0] > w[1]), "{order:?}");
    });
}

/// The job whose task the fault hits: a task in slot 20, which runs after others have
/// completed and while others are still queued.
const FAULTED_JOB: usize = 21;
const FAULTED_TAG: u8 = 20;

/// Runs the full queue with `fault` on `FAULTED_TAG`, and checks the recovery: the
/// faulted task failed with `error` once and then succeeded; some tasks completed before
/// the error, some were cleared by recovery and requeued; every task completed exactly
/// once per issue (the block layer's ledger) and the data is right.
fn one_task_error(fault: Fault, error: TaskError, counted: &[ErrorStat]) {
    with_queue(|harness| {
        let board = harness.board();
        assert!(board.model().cqhci_mut().expect("CQHCI").inject(fault));
        let discards = board.card().stats().discards;
        let jobs = run_full_queue(harness);
        assert_eq!(harness.recoveries, 1);
        // The core's CMD48 emptied the card's queue of the tasks recovery cleared.
        assert_eq!(board.card().stats().discards, discards + 1);
        assert_eq!(board.card().queued_tasks(), 0);
        let faulted = harness.statuses_of(FAULTED_JOB);
        assert_eq!(
            faulted,
            [CompletionStatus::Failed(error), CompletionStatus::Done]
        );
        let first: Vec<CompletionStatus> = jobs
            .clone()
            .filter(|&job| job != FAULTED_JOB)
            .map(|job| harness.statuses_of(job)[0])
            .collect();
        assert!(
            first.contains(&CompletionStatus::Done),
            "none before the error"
        );
        assert!(first.contains(&CompletionStatus::Requeue), "none cleared");
        for job in jobs {
            let statuses = harness.statuses_of(job);
            assert_eq!(statuses.last(), Some(&CompletionStatus::Done), "job {job}");
            assert!(statuses.len() <= 3, "job {job}: {statuses:?}");
        }
        assert_eq!(harness.slot().error_stats(), counted);
    });
}

fn faulted_command() -> u8 {
    match tasks(0, DATA_JOBS)[FAULTED_JOB] {
        Work::Data {
            direction: Direction::Read,
            ..
        } => 46,
        _ => 47,
    }
}

#[test]
fn a_response_error_is_recovered() {
    let fault = Fault::ResponseError {
        tag: FAULTED_TAG,
        command: faulted_command(),
    };
    one_task_error(fault, TaskError::Io, &[ErrorStat::QueueResponseError]);
}

#[test]
fn a_data_crc_error_is_recovered() {
    // Upstream counts the CQIS error interrupts only: a data CRC error or a command
    // time-out reaches the engine as the MSDC's error, not as RED.
    one_task_error(Fault::DataCrc { tag: FAULTED_TAG }, TaskError::Crc, &[]);
}

#[test]
fn a_command_timeout_is_recovered() {
    one_task_error(
        Fault::CommandTimeout { tag: FAULTED_TAG },
        TaskError::Timeout,
        &[],
    );
}

#[test]
fn the_core_gets_the_bus_between_tasks() {
    with_queue(|harness| {
        for round in 0..3 {
            let jobs = harness.block().add(tasks(round * 8, 7));
            harness.run();
            assert!(
                harness.is_on(),
                "round {round}: the tasks turned the queue on"
            );
            // The core's commands outside the queue: wait for idle, `cqe_off`, then the
            // legacy path, with and without data.
            harness.wait_for_idle();
            let status = harness.ok(13, EMMC_RCA << 16, R1 | AC);
            assert!(!harness.is_on(), "round {round}: cqe_off halted the queue");
            assert!(ready_for_data(status), "{status:#x}");
            let ext_csd = harness.read_scratch(8, 0, 512);
            assert_eq!(ext_csd[EXT_CSD_CMDQ_MODE_EN], 1);
            harness.board().assert_clean();
            for job in jobs {
                assert_eq!(harness.statuses_of(job), [CompletionStatus::Done]);
            }
        }
        let back = harness.block().read_back(0..24);
        harness.block().add(back);
        harness.run();
        harness.assert_idle();
    });
}

/// The harness notices a core command sent while the queue owns the bus.
#[test]
#[should_panic(expected = "CommandWhileCqhciActive")]
fn a_command_without_cqe_off_is_caught() {
    with_queue(|harness| {
        harness.block().add(tasks(0, 4));
        harness.run();
        harness.mistake = Some(Mistake::SkipOff);
        harness.wait_for_cmd(13, EMMC_RCA << 16, R1 | AC, 0);
        harness.board().assert_clean();
    });
}

/// The block layer's time-out of a task whose completion runs (taken out of the task table,
/// completed with the lock released) finds it completing, never gone: the core then waits
/// for that completion (`BLK_EH_RESET_TIMER`) instead of completing the request itself a
/// second time. Once the completion returned, the request is gone.
#[test]
fn a_time_out_during_a_completion_finds_the_task_completing() {
    with_queue(|harness| {
        harness.time_out_in_completion(3);
        let jobs = harness.block().add(tasks(0, 7));
        harness.run();
        let answers = harness.timeout_answers();
        assert_eq!(answers.len(), 1, "{answers:?}");
        let (attempt, during) = answers[0];
        assert_eq!(attempt.job, 3);
        assert_eq!(during, Some(false), "cqe_timeout during the completion");
        assert_eq!(harness.cqe_timeout(&attempt), None, "after the completion");
        assert_eq!(harness.recoveries, 0);
        for job in jobs {
            assert_eq!(harness.statuses_of(job), [CompletionStatus::Done]);
        }
        harness.assert_idle();
        assert!(harness.slot().cqe_events().is_empty());
        assert!(harness.slot().error_stats().is_empty());
    });
}

/// A task the block layer times out while it is queued is marked timed out; the core's
/// recovery (the notifier runs from `mmc_cqe_timed_out`) clears and requeues it, and every
/// task ends once.
#[test]
fn a_task_timed_out_while_queued_is_recovered() {
    with_queue(|harness| {
        let jobs = harness.block().add(tasks(0, 7));
        harness.submit();
        let attempt = harness.queued_attempt(2).expect("job 2 is queued");
        assert_eq!(harness.cqe_timeout(&attempt), Some(true));
        assert_eq!(harness.slot().cqe_events(), [QueueEvent::TaskTimedOut]);
        assert_eq!(
            harness.slot().error_stats(),
            [ErrorStat::QueueRequestTimeout]
        );
        harness.notify_recovery();
        harness.run();
        assert_eq!(harness.recoveries, 1);
        let statuses = harness.statuses_of(2);
        assert_eq!(
            statuses.last(),
            Some(&CompletionStatus::Done),
            "{statuses:?}"
        );
        let back = harness.block().read_back(jobs);
        harness.block().add(back);
        harness.run();
        harness.assert_idle();
    });
}

/// The core's CQE recovery with the response of its CMD12 or CMD48 failing its CRC (the
/// commands are `MMC_RSP_R1B_NO_CRC`: the core asks the host to ignore such an error, as
/// upstream's `msdc_cmd_done` does): the card still ran the command, so recovery sends
/// CMD48 once, discards the card's queue once, and every task cleared by it is requeued
/// and completes; the queue then runs a full queue again. A host that reported the CRC
/// error would make the core send CMD48 again.
fn recovery_command_with_bad_crc(opcode: u8) {
    with_queue(|harness| {
        let board = harness.board();
        let fault = Fault::ResponseError {
            tag: FAULTED_TAG,
            command: faulted_command(),
        };
        assert!(board.model().cqhci_mut().expect("CQHCI").inject(fault));
        board
            .model()
            .inject_into(models::msdc::Fault::ResponseCrc, FaultScope::Opcode(opcode));
        let discards = board.card().stats().discards;
        let jobs = run_full_queue(harness);
        assert_eq!(harness.recoveries, 1);
        assert_eq!(board.model().pending_fault(), None, "CMD{opcode} took it");
        assert_eq!(
            board.card().stats().discards,
            discards + 1,
            "CMD48 sent once: its CRC error ignored"
        );
        assert_eq!(board.card().queued_tasks(), 0);
        let first: Vec<CompletionStatus> = jobs
            .clone()
            .filter(|&job| job != FAULTED_JOB)
            .map(|job| harness.statuses_of(job)[0])
            .collect();
        assert!(first.contains(&CompletionStatus::Requeue), "none cleared");
        for job in jobs {
            let statuses = harness.statuses_of(job);
            assert_eq!(statuses.last(), Some(&CompletionStatus::Done), "job {job}");
        }
        // The queue is usable after the recovery: a full queue again, no recovery.
        let more = harness.block().add(tasks(0, DATA_JOBS));
        harness.submit();
        harness.run();
        harness.assert_idle();
        assert_eq!(harness.recoveries, 1);
        for job in more {
            assert_eq!(
                harness.statuses_of(job),
                [CompletionStatus::Done],
                "job {job}"
            );
        }
    });
}

#[test]
fn a_cmd12_of_recovery_with_a_bad_crc_is_recovered() {
    recovery_command_with_bad_crc(12);
}

#[test]
fn a_cmd48_of_recovery_with_a_bad_crc_is_recovered() {
    recovery_command_with_bad_crc(48);
}

/// A transfer-complete of the MSDC's data path left latched by the queue's last data phase
/// (it landed after the handler read `MSDC_INT`, so no handler acknowledged it) when the
/// core turns the queue off for a command of its own: `cqe_off` must acknowledge it before
/// the legacy path runs (upstream's `msdc_cqe_disable`), or the next legacy data request
/// would end at its command's response, before its data. The core's EXT_CSD read after
/// `cqe_off` reads the whole register, and the queue runs on after it.
#[test]
fn a_stale_transfer_complete_does_not_end_the_next_legacy_request() {
    with_queue(|harness| {
        let before = {
            harness.block().add(tasks(0, 7));
            harness.run();
            harness.wait_for_idle();
            harness.read_scratch(8, 0, 512)
        };
        for round in 0..3 {
            harness.board().model().inject_stale_transfer_complete();
            // Data tasks only: a flush after them would be a later interrupt, whose handler
            // acknowledges the event.
            let data: Vec<Work> = (0..8)
                .map(|n| {
                    let (direction, blocks) = MIX[n % MIX.len()];
                    Work::in_region(direction, round * 8 + n, blocks)
                })
                .collect();
            let jobs = harness.block().add(data);
            harness.run();
            assert!(harness.is_on(), "round {round}");
            harness.wait_for_idle();
            let ext_csd = harness.read_scratch(8, 0, 512);
            assert!(!harness.is_on(), "round {round}: cqe_off halted the queue");
            assert!(
                harness.board().model().take_stale_transfer_complete(),
                "round {round}: the queue went off with the event latched"
            );
            assert_eq!(ext_csd, before, "round {round}: EXT_CSD read whole");
            harness.board().assert_clean();
            for job in jobs {
                assert_eq!(harness.statuses_of(job), [CompletionStatus::Done]);
            }
        }
        assert_eq!(harness.recoveries, 0);
        let back = harness.block().read_back(0..24);
        harness.block().add(back);
        harness.run();
        harness.assert_idle();
        assert!(harness.slot().error_stats().is_empty());
    });
}
