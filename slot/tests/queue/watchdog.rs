// SPDX-License-Identifier: GPL-2.0

//! The request watchdog (`slot::watchdog`) on a slot with a host software queue: a request
//! whose interrupt never comes is aborted once it ran for five seconds on the kernel's
//! clock, completed once with a time-out, and the slot goes on; a queued one goes through
//! the core's recovery and its retry succeeds.

use mmc_request::{Direction, ErrorKind};
use slot::watchdog;

use crate::board::buffer_at;
use crate::common::flags::{AC, R1};
use crate::common::{block_request, command, request};
use crate::hsq_harness::Event;
use crate::slot::{CoreHost, EMMC_RCA};
use crate::software_queue::{mixed, with_emmc, FAULT_JOBS};

/// The watchdog's limit, in ns.
const LIMIT_NS: u64 = watchdog::REQUEST_TIMEOUT_MS as u64 * 1_000_000;

#[test]
fn the_watchdog_aborts_a_request_of_the_core_that_never_ends() {
    with_emmc(|harness| {
        let serial = harness.start_core(&request(command(13, EMMC_RCA << 16, R1 | AC)), &[]);
        // The hardware does not run: no interrupt ends the request.
        assert_eq!(watchdog::check(harness.slot()), Some(LIMIT_NS));
        harness.slot().advance_clock(LIMIT_NS - 1);
        assert_eq!(watchdog::check(harness.slot()), Some(1));
        assert_eq!(harness.take_core_result(serial), None);
        harness.slot().advance_clock(1);
        assert_eq!(
            watchdog::check(harness.slot()),
            None,
            "nothing left in flight"
        );
        let result = harness.take_core_result(serial).expect("the aborted CMD13");
        assert_eq!(result.cmd.error, Some(ErrorKind::TimedOut));
        assert_eq!(harness.slot().timed_out(), [13]);
        // The slot goes on: the core's next command runs.
        assert_eq!(harness.send_status(EMMC_RCA, 0).error, None);
        harness.assert_idle();
    });
}

#[test]
fn the_watchdog_aborts_a_queued_request_and_the_core_recovers() {
    with_emmc(|harness| {
        harness.block().add(mixed(0, FAULT_JOBS));
        harness.submit();
        let first = match harness
            .log()
            .iter()
            .find(|e| matches!(e, Event::Dispatched(..)))
        {
            Some(&Event::Dispatched(attempt, _)) => attempt,
            _ => panic!("nothing dispatched"),
        };
        // The hardware does not run; five seconds pass.
        harness.slot().advance_clock(LIMIT_NS);
        assert_eq!(watchdog::check(harness.slot()), None, "the queue halted");
        assert_eq!(harness.slot().timed_out().len(), 1);
        assert!(harness.log().contains(&Event::RecoveryStart));
        harness.run();
        assert_eq!(
            harness.block().errors(first.job),
            [Some(ErrorKind::TimedOut), None]
        );
        for other in (0..FAULT_JOBS).filter(|&n| n != first.job) {
            assert_eq!(harness.block().errors(other), [None], "job {other}");
        }
        harness.assert_idle();
    });
}

/// The request time-out racing the completion interrupt: the hardware has finished the
/// request and its interrupt is pending, but the handler has not run when the watchdog's
/// limit passes. Whichever of the two takes the request completes it, once: the watchdog
/// takes it out of the controller under the slot's lock, and the handler that runs
/// afterwards finds nothing to complete. For a command and for a block read.
#[test]
fn a_time_out_racing_the_completion_interrupt_completes_the_request_once() {
    with_emmc(|harness| {
        let board = harness.board();
        let read = block_request(Direction::Read, 0, 1, false);
        let segments = board.segments(0, 512);
        for (request, segments) in [
            (request(command(13, EMMC_RCA << 16, R1 | AC)), Vec::new()),
            (read, segments),
        ] {
            let opcode = request.cmd.opcode;
            let serial = harness.slot().start_core(&request, &segments);
            // The hardware runs the request to its end: the interrupt is pending.
            while board.advance(1) > 0 {}
            assert!(
                board.interrupt_line(),
                "CMD{opcode}: the completion is pending"
            );
            harness.slot().advance_clock(LIMIT_NS);
            assert_eq!(watchdog::check(harness.slot()), None, "CMD{opcode}");
            let result = harness
                .slot()
                .take_core_result(serial)
                .expect("the watchdog completed it");
            // Timed out (the core retries it) or done: completed either way.
            assert!(
                matches!(result.cmd.error, None | Some(ErrorKind::TimedOut)),
                "CMD{opcode}: {result:?}"
            );
            // The handler of the pending interrupt completes nothing more.
            harness.slot().handle_interrupt();
            assert_eq!(harness.slot().take_core_result(serial), None, "CMD{opcode}");
            assert!(
                !board.interrupt_line(),
                "CMD{opcode}: the event was cleared"
            );
            // The slot goes on.
            assert_eq!(harness.send_status(EMMC_RCA, 0).error, None);
            harness.assert_idle();
        }
        // The other order: the handler completes it, the watchdog finds nothing.
        let serial = harness
            .slot()
            .start_core(&request(command(13, EMMC_RCA << 16, R1 | AC)), &[]);
        while board.advance(1) > 0 {}
        assert!(harness.slot().handle_interrupt());
        harness.slot().advance_clock(LIMIT_NS);
        assert_eq!(watchdog::check(harness.slot()), None);
        let result = harness.slot().take_core_result(serial).expect("completed");
        assert_eq!(result.cmd.error, None);
        assert_eq!(harness.slot().take_core_result(serial), None);
        harness.assert_idle();
    });
}

/// The driver's removal against a timer that already fired: its work item was queued
/// before the stop and runs after it, with a request still on the controller. It looks
/// (the request is not overdue yet) and asks for another look, but the timer is not
/// started again, so nothing of the slot's outlives the removal. Without the stop the
/// work would start a new timer.
#[test]
fn a_watchdog_work_run_after_the_stop_never_starts_the_timer() {
    with_emmc(|harness| {
        let mut arming = watchdog::Arming::new();
        let serial = harness.start_core(&request(command(13, EMMC_RCA << 16, R1 | AC)), &[]);
        assert!(arming.arm(), "the request starts the timer");
        assert!(!arming.arm(), "it runs: not started twice");
        harness.slot().advance_clock(LIMIT_NS / 2);
        // The timer fires and queues its work; the removal stops the watchdog.
        arming.stop();
        // The work runs.
        arming.fired();
        let again = watchdog::check(harness.slot());
        assert_eq!(again, Some(LIMIT_NS / 2), "the request is still watched");
        assert!(!arming.arm(), "stopped: the timer is not started again");
        assert_eq!(harness.take_core_result(serial), None);
        // The removal ends the request as the core's teardown does.
        harness.slot().advance_clock(LIMIT_NS / 2);
        assert_eq!(watchdog::check(harness.slot()), None);
        assert!(harness.take_core_result(serial).is_some());
        assert!(!arming.arm());
    });
}

/// While the slot runs, the watchdog's work re-arms the timer after it fired, and a
/// request never starts a second one.
#[test]
fn the_watchdog_timer_is_started_again_by_its_work_until_stopped() {
    let mut arming = watchdog::Arming::new();
    assert!(arming.arm());
    assert!(!arming.arm());
    arming.fired();
    assert!(arming.arm(), "the work's next look");
    arming.fired();
    arming.stop();
    assert!(!arming.arm());
}

/// A completion interrupt raised after the watchdog's limit (the board's `late_irq`): the
/// hardware finished a read, its `XFER_COMPL` is latched, and the watchdog aborts the read
/// before the handler runs. The next read, of another block into another buffer, must run
/// to the end of its DMA: the stale `XFER_COMPL` would end it at its response, with the
/// buffer never written. Two acknowledgements clear it, either enough: the controller
/// reset's (upstream's `msdc_reset_hw`), which a reset left pending by the handler's short
/// bound skips, and the one of stale request events before every command (which upstream
/// does not have). The late handler runs while the next read is on the controller, and
/// completes nothing twice.
#[test]
fn a_late_completion_does_not_end_the_next_read_early() {
    with_emmc(|harness| {
        let board = harness.board();
        let serial = harness.slot().start_core(
            &block_request(Direction::Read, 0, 1, false),
            &board.segments(0, 512),
        );
        // The response's interrupt starts the DMA; the transfer's is the late one.
        while !board.interrupt_line() {
            assert!(board.advance(1) > 0, "the response never came");
        }
        assert!(harness.slot().handle_interrupt());
        assert_eq!(harness.slot().take_core_result(serial), None);
        while board.advance(1) > 0 {}
        assert!(board.interrupt_line(), "the completion is latched");
        harness.slot().advance_clock(LIMIT_NS);
        assert_eq!(watchdog::check(harness.slot()), None);
        harness
            .slot()
            .take_core_result(serial)
            .expect("the watchdog completed it");
        // The core's retry comes a millisecond later.
        board.model().elapse(1_000_000);
        // Block 3 into tag 1's buffer, which holds none of it yet.
        let want = board.card().storage()[3 * 512..4 * 512].to_vec();
        assert_ne!(board.bytes(buffer_at(1), 512), want);
        let serial = harness.slot().start_core(
            &block_request(Direction::Read, 3, 1, false),
            &board.segments(1, 512),
        );
        // The late line: the handler runs before the read's own events.
        harness.slot().handle_interrupt();
        assert_eq!(
            harness.slot().take_core_result(serial),
            None,
            "not done yet"
        );
        let result = loop {
            let steps = board.advance(1);
            harness.slot().handle_interrupt();
            if let Some(result) = harness.slot().take_core_result(serial) {
                break result;
            }
            assert!(steps > 0, "the read never ended");
        };
        assert_eq!(result.cmd.error, None, "{result:?}");
        assert_eq!(result.data.map(|d| d.error), Some(None));
        assert_eq!(
            board.bytes(buffer_at(1), 512),
            want,
            "the read's data arrived"
        );
        assert_eq!(harness.slot().take_core_result(serial), None);
        harness.assert_idle();
    });
}
