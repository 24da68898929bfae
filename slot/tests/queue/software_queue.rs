// SPDX-License-Identifier: GPL-2.0

//! The host software queue on an eMMC (MT2712, 36-bit DMA, auto-CMD23) and on an SD card
//! (MT8173, 32-bit DMA, open-ended transfers): many requests queued faster than they
//! complete, in order, with the depth policy published; one request among many hit by an
//! injected data CRC error, response CRC error, command timeout or data timeout, and the
//! core's recovery with the queue halted; the request dispatched behind a write that the
//! card still programs, which waits for the busy retry (and fails past its limit).

use hsq::{NORMAL_DEPTH, PERFORMANCE_DEPTH};
use mmc_request::{Direction, ErrorKind};
use models::emmc::{Card, ReadyOrder};
use models::msdc::{CardSlot, Fault};
use models::sd::{SdCard, SdConfig};
use msdc::controller::HostSetup;
use msdc::dma::DmaAddressing;
use msdc::soc;
use slot::Refusal;

use crate::block::{initial_storage, Attempt, Work, REGION_SECTORS};
use crate::board::{setup, Board};
use crate::common::flags::{AC, R1};
use crate::common::{command, request};
use crate::hsq_harness::{block_layer, Event, HsqHarness, Mistake};
use crate::slot::{ready_for_data, CardKind, CoreHost, EMMC_RCA};

/// Jobs of a full run, and of a run around one failure.
const JOBS: usize = 64;
pub(crate) const FAULT_JOBS: usize = 24;
/// Card size: a region per job, and one per read-back job.
const SECTORS: u32 = 2 * JOBS as u32 * REGION_SECTORS;

/// The request mix, by position: 4 KiB writes (which deepen the queue) among single-block
/// and larger reads and writes.
const MIX: [(Direction, u32); 12] = [
    (Direction::Write, 8),
    (Direction::Write, 8),
    (Direction::Read, 8),
    (Direction::Write, 32),
    (Direction::Read, 1),
    (Direction::Write, 8),
    (Direction::Read, 64),
    (Direction::Write, 1),
    (Direction::Write, 8),
    (Direction::Read, 128),
    (Direction::Write, 16),
    (Direction::Read, 8),
];

/// The eMMC's controller, and the SD card's.
fn emmc_setup() -> HostSetup {
    setup(&soc::MT2712, DmaAddressing::Bits36, true)
}

fn sd_setup() -> HostSetup {
    setup(&soc::MT8173, DmaAddressing::Bits32, false)
}

/// Runs `f` on a harness with an eMMC, then checks the card holds what was written.
pub(crate) fn with_emmc(f: impl FnOnce(&mut HsqHarness<'_, Card<'_>>)) {
    let mut storage = initial_storage(SECTORS);
    let block = block_layer(&storage);
    let board = Board::new(
        emmc_setup(),
        Card::new(&mut storage, 8, ReadyOrder::Immediate),
    );
    let mut harness = HsqHarness::new(&board, CardKind::Emmc, block);
    f(&mut harness);
    harness.block().assert_all_ended(board.card().storage());
}

/// Runs `f` on a harness with an SD card, then checks the card holds what was written.
fn with_sd(f: impl FnOnce(&mut HsqHarness<'_, SdCard<'_>>)) {
    let mut storage = initial_storage(SECTORS);
    let block = block_layer(&storage);
    let board = Board::new(sd_setup(), SdCard::new(&mut storage, SdConfig::default()));
    let mut harness = HsqHarness::new(&board, CardKind::Sd, block);
    f(&mut harness);
    harness.block().assert_all_ended(board.card().storage());
}

/// `n` jobs of the mix, each in its own region; the first is job `first`.
pub(crate) fn mixed(first: usize, n: usize) -> Vec<Work> {
    (first..first + n)
        .map(|job| {
            let (direction, blocks) = MIX[job % MIX.len()];
            Work::in_region(direction, job, blocks)
        })
        .collect()
}

/// Runs `jobs` jobs of the mix on a harness, then reads back what they wrote, and checks
/// what every run must show: completion in submission order, every request completed once,
/// the card holding what was written, the queue idle, no model violation.
fn run_and_check<C: CardSlot>(harness: &mut HsqHarness<'_, C>, jobs: usize) {
    let so_far = harness.block().jobs();
    let first = harness.block().add(mixed(so_far, jobs));
    harness.run();
    let back = harness.block().read_back(first);
    harness.block().add(back);
    harness.run();
    assert_completed_in_order(&harness.log());
    harness.assert_idle();
}

/// The queue is FIFO: completions come in the order the queue accepted the requests.
fn assert_completed_in_order(log: &[Event]) {
    let accepted = events(log, |e| match *e {
        Event::Accepted(a) => Some(a),
        _ => None,
    });
    let completed = events(log, |e| match *e {
        Event::Completed(a, _) => Some(a),
        _ => None,
    });
    assert_eq!(completed, accepted);
}

/// What `pick` takes from the events of `log`, in order.
fn events<T>(log: &[Event], pick: impl Fn(&Event) -> Option<T>) -> Vec<T> {
    log.iter().filter_map(pick).collect()
}

/// The depth policy was seen both ways, and requests were queued before the first one
/// completed.
fn assert_queued_ahead(log: &[Event], max_in_flight: usize) {
    let depths = events(log, |e| match *e {
        Event::Dispatched(_, depth) => Some(depth),
        _ => None,
    });
    assert!(depths.contains(&NORMAL_DEPTH), "{depths:?}");
    assert!(depths.contains(&PERFORMANCE_DEPTH), "{depths:?}");
    let before_first = log
        .iter()
        .take_while(|e| !matches!(e, Event::Completed(..)))
        .filter(|e| matches!(e, Event::Accepted(_)))
        .count();
    assert!(
        before_first >= 3,
        "{before_first} queued before the first completion"
    );
    // `hsq_depth + 1` in flight at the deeper depth.
    assert_eq!(max_in_flight, usize::from(PERFORMANCE_DEPTH) + 1);
}

/// A dispatch deferred while the core's own request holds the controller (`host_busy`)
/// goes out when it completes (`retry`).
fn defer_behind_a_core_request<C: CardSlot>(harness: &mut HsqHarness<'_, C>, rca: u32) {
    let status = harness.start_core(&request(command(13, rca << 16, R1 | AC)), &[]);
    let so_far = harness.block().jobs();
    let first = harness.block().add(mixed(so_far, 4));
    harness.submit();
    // Only the first request was dispatched, and deferred (the engine offers it again with
    // each request accepted meanwhile, and the controller defers it again).
    let log = harness.log();
    let deferred: Vec<&Event> = log
        .iter()
        .filter(|e| matches!(e, Event::HostBusy(_)))
        .collect();
    assert!(!deferred.is_empty());
    assert!(deferred
        .iter()
        .all(|e| matches!(e, Event::HostBusy(a) if a.job == first.start)));
    assert!(!log.iter().any(|e| matches!(e, Event::Dispatched(..))));
    drop(log);
    harness.run();
    let result = harness.take_core_result(status).expect("the core's CMD13");
    assert_eq!(result.cmd.error, None);
    assert!(ready_for_data(result.cmd.response[0]));
    let dispatched = harness
        .log()
        .iter()
        .position(|e| matches!(e, Event::Dispatched(a, _) if a.job == first.start));
    let deferred = harness
        .log()
        .iter()
        .position(|e| matches!(e, Event::HostBusy(_)));
    assert!(dispatched > deferred);
}

/// 64 requests after a deferred dispatch; no recovery.
fn full_run<C: CardSlot>(harness: &mut HsqHarness<'_, C>, rca: u32) {
    defer_behind_a_core_request(harness, rca);
    let start = harness.log().len();
    run_and_check(harness, JOBS);
    assert_queued_ahead(&harness.log()[start..], harness.block().max_in_flight);
    assert!(!harness
        .log()
        .iter()
        .any(|e| matches!(e, Event::RecoveryStart)));
}

#[test]
fn an_emmc_runs_64_queued_requests_in_order() {
    with_emmc(|harness| full_run(harness, EMMC_RCA));
}

#[test]
fn an_sd_card_runs_64_queued_requests_in_order() {
    with_sd(|harness| full_run(harness, u32::from(SdConfig::default().rca)));
}

/// Runs `FAULT_JOBS` jobs with `fault` hitting job `job`'s first attempt, and checks the
/// failure and the recovery: the job completes once with `error`, the queue dispatches
/// nothing until `recovery_finish`, the requests queued behind it complete after it, and
/// the job's retry succeeds.
fn one_failure<C: CardSlot>(
    harness: &mut HsqHarness<'_, C>,
    job: usize,
    fault: Fault,
    error: ErrorKind,
) {
    harness.fault(job, fault);
    run_and_check(harness, FAULT_JOBS);
    assert_eq!(
        harness.block().errors(job),
        [Some(error), None],
        "job {job}"
    );
    for other in (0..FAULT_JOBS).filter(|&n| n != job) {
        assert_eq!(harness.block().errors(other), [None], "job {other}");
    }
    let log = &harness.log();
    let starts: Vec<usize> = positions(log, |e| matches!(e, Event::RecoveryStart));
    let finishes: Vec<usize> = positions(log, |e| matches!(e, Event::RecoveryFinish));
    assert_eq!((starts.len(), finishes.len()), (1, 1), "one recovery");
    let (start, finish) = (starts[0], finishes[0]);
    assert!(matches!(log[start - 1], Event::Completed(a, Some(e)) if a.job == job && e == error));
    assert!(
        !log[start..finish]
            .iter()
            .any(|e| matches!(e, Event::Dispatched(..))),
        "dispatched during recovery"
    );
    // Everything queued behind the failed request was held, and completes after recovery.
    let held: Vec<Attempt> = log[..start]
        .iter()
        .filter_map(|e| match *e {
            Event::Accepted(a) if !log[..start].contains(&Event::Completed(a, None)) => Some(a),
            _ => None,
        })
        .filter(|a| a.job != job)
        .collect();
    assert!(
        held.len() >= 2,
        "requests queued behind the failure: {held:?}"
    );
    for attempt in held {
        let done = log
            .iter()
            .position(|e| matches!(e, Event::Completed(a, None) if *a == attempt))
            .expect("held request completed");
        assert!(
            done > finish,
            "job {} completed during recovery",
            attempt.job
        );
    }
}

/// Where in `log` the events `what` picks are.
/// How long the first busy retry in `events` waited for the bus, in ns.
fn busy_retry_wait(events: &[Event]) -> u64 {
    events
        .iter()
        .find_map(|e| match *e {
            Event::BusyRetry(ns) => Some(ns),
            _ => None,
        })
        .expect("the busy retry ran")
}

fn positions(log: &[Event], what: impl Fn(&Event) -> bool) -> Vec<usize> {
    log.iter()
        .enumerate()
        .filter(|(_, e)| what(e))
        .map(|(n, _)| n)
        .collect()
}

/// Jobs of the mix a fault hits: 6 (a 64-block read), 7 (a single-block write), 9 (a
/// 128-block read), 4 (a single-block read) and 3 (a 32-block write).
const MULTI_BLOCK_READ: usize = 6;
const SINGLE_BLOCK_WRITE: usize = 7;
const LONG_READ: usize = 9;
const SINGLE_BLOCK_READ: usize = 4;
const MULTI_BLOCK_WRITE: usize = 3;

/// `one_failure` on the eMMC and on the SD card.
fn on_both(job: usize, fault: Fault, error: ErrorKind) {
    with_emmc(|harness| one_failure(harness, job, fault, error));
    with_sd(|harness| one_failure(harness, job, fault, error));
}

#[test]
fn a_tag_outside_the_table_is_refused_as_invalid_not_busy() {
    with_emmc(|harness| {
        // `-EINVAL`, not `-EBUSY`: the core would requeue a busy refusal for ever, and
        // the tag can never fit.
        assert_eq!(
            harness.offer_under_tag(hsq::SLOT_COUNT as u8),
            Err(Refusal::TagOutOfRange)
        );
        assert_eq!(
            harness.offer_under_tag(u8::MAX),
            Err(Refusal::TagOutOfRange)
        );
        // Nothing was queued: the jobs after it run as if it never came.
        run_and_check(harness, FAULT_JOBS);
    });
}

#[test]
fn a_data_crc_error_is_recovered() {
    on_both(MULTI_BLOCK_READ, Fault::DataCrc, ErrorKind::BadCrc);
    on_both(MULTI_BLOCK_WRITE, Fault::DataCrc, ErrorKind::BadCrc);
}

#[test]
fn a_response_crc_error_is_recovered() {
    on_both(SINGLE_BLOCK_WRITE, Fault::ResponseCrc, ErrorKind::BadCrc);
    on_both(LONG_READ, Fault::ResponseCrc, ErrorKind::BadCrc);
}

#[test]
fn a_command_timeout_is_recovered() {
    on_both(LONG_READ, Fault::CommandTimeout, ErrorKind::TimedOut);
    on_both(
        SINGLE_BLOCK_WRITE,
        Fault::CommandTimeout,
        ErrorKind::TimedOut,
    );
}

#[test]
fn a_data_timeout_is_recovered() {
    on_both(SINGLE_BLOCK_READ, Fault::DataTimeout, ErrorKind::TimedOut);
    on_both(MULTI_BLOCK_WRITE, Fault::DataTimeout, ErrorKind::TimedOut);
}

/// The request dispatched right after the write of job `write` completed, from that
/// completion, and the log from that dispatch on.
fn dispatched_after_write(log: &[Event], write: usize) -> (usize, Vec<Event>) {
    let write_done = log
        .iter()
        .position(|e| matches!(e, Event::Completed(a, None) if a.job == write))
        .expect("the write completed");
    let after = log[write_done..].to_vec();
    let next = after
        .iter()
        .find_map(|e| match *e {
            Event::Dispatched(a, _) | Event::BusBusy(a) => Some(a.job),
            _ => None,
        })
        .expect("a request dispatched after the write");
    (next, after)
}

/// A card that programs a write with DAT0 low after its XFER_COMPL
/// ([`Fault::ProgramBusy`]), on the eMMC, for 10 ms and for 30 ms (past the 20 ms the
/// controller's own bus wait spins, upstream's `msdc_cmd_is_ready`). The glue dispatches
/// the next request from the write's completion: it finds the bus busy, goes back to the
/// queue without waiting, and the busy retry (process context, sleeping between its looks
/// at the bus; the sleeps pass on the model clock) issues it once the card is done. Every
/// request succeeds, none recovers. docs/todo.md [HSQ-BUSY-WAIT].
#[test]
fn a_write_programming_delays_the_request_behind_it_without_failing_it() {
    const MS: u64 = 1_000_000;
    for busy in [10 * MS, 30 * MS] {
        with_emmc(|harness| {
            harness.fault(SINGLE_BLOCK_WRITE, Fault::ProgramBusy(busy));
            run_and_check(harness, FAULT_JOBS);
            for job in 0..FAULT_JOBS {
                assert_eq!(
                    harness.block().errors(job),
                    [None],
                    "job {job}, busy {busy}"
                );
            }
            assert!(!harness.log().contains(&Event::RecoveryStart));
            assert_eq!(
                harness.board().model().pending_fault(),
                None,
                "the write took it"
            );
            // The request behind the write waited for the busy retry, which issued it
            // once the card released DAT0, not before.
            let log = harness.log();
            let (victim, after) = dispatched_after_write(&log, SINGLE_BLOCK_WRITE);
            assert!(
                matches!(after[1..].iter().find(|e| !matches!(e, Event::Accepted(_))),
                Some(Event::BusBusy(a)) if a.job == victim),
                "{after:?}"
            );
            let waited = busy_retry_wait(&after);
            // It slept until the busy ended, overshooting by less than its longest sleep.
            let longest = u64::from(slot::software_queue::BUSY_RETRY_MAX_SLEEP_US) * 1_000;
            assert!(
                waited >= busy / 2 && waited < busy + longest,
                "waited {waited} ns of {busy}"
            );
            // Dispatched by the busy retry (whose event is logged when it returns).
            let dispatched = after
                .iter()
                .position(|e| matches!(e, Event::Dispatched(a, _) if a.job == victim))
                .expect("the request went out");
            assert!(
                matches!(after.get(dispatched + 1), Some(Event::BusyRetry(_))),
                "{after:?}"
            );
        });
    }
}

/// An SD card (no auto-CMD23: the software queue's writes are open-ended, CMD25 then
/// CMD12) that programs a 32-block write for 30 ms with DAT0 low after its XFER_COMPL
/// ([`Fault::ProgramBusy`]). The stop is due in the data interrupt: it is not waited for
/// there (upstream's `msdc_cmd_is_ready` spins up to 20 ms, then fails it) but goes to
/// the busy retry (process context; the sleeps pass on the model clock), which issues it
/// once the card released DAT0. Every request succeeds, none recovers. docs/todo.md
/// [HSQ-BUSY-WAIT].
#[test]
fn a_card_programming_an_open_ended_write_delays_its_stop_without_failing_it() {
    const MS: u64 = 1_000_000;
    let busy = 30 * MS;
    with_sd(|harness| {
        harness.fault(MULTI_BLOCK_WRITE, Fault::ProgramBusy(busy));
        let spins = harness.board().delayed_us();
        run_and_check(harness, FAULT_JOBS);
        for job in 0..FAULT_JOBS {
            assert_eq!(harness.block().errors(job), [None], "job {job}");
        }
        assert!(!harness.log().contains(&Event::RecoveryStart));
        assert_eq!(
            harness.board().model().pending_fault(),
            None,
            "the write took it"
        );
        let log = harness.log().to_vec();
        let write_done = log
            .iter()
            .position(|e| matches!(e, Event::Completed(a, None) if a.job == MULTI_BLOCK_WRITE))
            .expect("the write completed");
        let waited = busy_retry_wait(&log[..write_done]);
        let longest = u64::from(slot::software_queue::BUSY_RETRY_MAX_SLEEP_US) * 1_000;
        assert!(
            waited >= busy / 2 && waited < busy + longest,
            "the stop waited {waited} ns of {busy}"
        );
        let spun = harness.board().delayed_us() - spins;
        assert!(spun < 1_000, "the interrupts spun {spun} µs");
    });
}

/// A controller whose resets clear late (`MSDC_CFG.RST` set for 500 reads, past the 100 the
/// interrupt handler polls it for): the read CRC error's reset in the interrupt stays
/// pending instead of spinning there, and is finished in process context before the next
/// request goes out (by the core's CMD13 of its recovery, or the busy retry of a dispatch
/// that found it running). The failed request is retried, every other one succeeds, no
/// hardware fault is logged, and no interrupt spun more than the short bound's 100 µs.
#[test]
fn a_late_reset_after_an_error_never_spins_in_the_interrupt() {
    with_emmc(|harness| {
        harness.board().slow_resets(500);
        one_failure(harness, MULTI_BLOCK_READ, Fault::DataCrc, ErrorKind::BadCrc);
        assert!(!harness.slot().controller().reset_pending());
        let spun = harness.slot().interrupt_spun_max_us();
        assert!(
            spun <= u64::from(msdc::controller::RESET_POLL_LIMIT_IRQ),
            "an interrupt spun {spun} µs"
        );
    });
}

/// A card still busy after the busy retry's limit (10 s, as the core's own wait for a
/// write's busy outside the queue): the request behind the write fails with a time-out,
/// nothing having reached the card, and the core's recovery, whose CMD13 polls sleep,
/// finds the card back and retries it.
#[test]
fn a_write_programming_past_the_busy_retry_limit_fails_the_request_behind_it() {
    const MS: u64 = 1_000_000;
    let limit = slot::software_queue::BUSY_WAIT_LIMIT_MS * MS;
    with_emmc(|harness| {
        harness.fault(SINGLE_BLOCK_WRITE, Fault::ProgramBusy(limit + 30 * MS));
        run_and_check(harness, FAULT_JOBS);
        assert_eq!(
            harness.block().errors(SINGLE_BLOCK_WRITE),
            [None],
            "the write"
        );
        let failed: Vec<usize> = (0..FAULT_JOBS)
            .filter(|&job| harness.block().errors(job) != [None])
            .collect();
        assert_eq!(failed.len(), 1, "one victim: {failed:?}");
        let victim = failed[0];
        assert_eq!(
            harness.block().errors(victim),
            [Some(ErrorKind::TimedOut), None],
            "failed once with a time-out, then retried"
        );
        let log = harness.log();
        let (next, after) = dispatched_after_write(&log, SINGLE_BLOCK_WRITE);
        assert_eq!(next, victim);
        let waited = busy_retry_wait(&after);
        assert!(waited >= limit, "waited {waited} ns");
        let starts = positions(&log, |e| matches!(e, Event::RecoveryStart));
        assert_eq!(starts.len(), 1, "one recovery");
    });
}

/// The harness notices a glue that releases the host before the core has seen a failed
/// request: the next request goes out before recovery starts.
#[test]
#[should_panic(expected = "was dispatched during recovery")]
fn releasing_the_host_before_the_completion_is_caught() {
    with_emmc(|harness| {
        harness.set_mistake(Mistake::ReleaseBeforeCompletion);
        harness.fault(MULTI_BLOCK_READ, Fault::DataCrc);
        harness.block().add(mixed(0, FAULT_JOBS));
        harness.run();
    });
}

/// A DMA stop slow to clear under bus load (the board's `dma_stop_slow`): after the data
/// event the driver stops the DMA and must see `MSDC_DMA_CTRL.STOP` clear before
/// `MSDC_DMA_CFG.STS` (upstream's "mmc: mediatek: wait dma stop bit reset to 0"), which
/// already reads idle. Without that wait the next request's DMA start comes while the stop
/// is in progress, and the engine ignores it (a model violation, and a read whose data
/// never comes). Upstream waits in the data interrupt, up to 20 ms; here the interrupt
/// polls a few microseconds and the busy retry (process context) waits the stop out and
/// completes the request. Each read of a run gets a 300 µs stop; each read's data arrives,
/// and no interrupt spins for it.
#[test]
fn a_slow_dma_stop_is_waited_for_before_the_next_transfer() {
    use crate::board::buffer_at;
    use crate::common::block_request;
    const STOP_NS: u64 = 300_000;
    with_emmc(|harness| {
        let board = harness.board();
        for (n, block) in [5u32, 9, 2, 7].into_iter().enumerate() {
            let tag = u8::try_from(n % 2).unwrap();
            board.model().inject_slow_dma_stop(STOP_NS);
            let result = harness.core_request(
                &block_request(Direction::Read, block, 1, false),
                &board.segments(tag, 512),
            );
            assert_eq!(result.first_error(), None, "block {block}: {result:?}");
            let at = block as usize * 512;
            let want = board.card().storage()[at..at + 512].to_vec();
            assert_eq!(board.bytes(buffer_at(tag), 512), want, "block {block}");
            assert!(
                !board.model().slow_dma_stop_pending(),
                "the read stopped its DMA"
            );
        }
        assert_eq!(board.model().slow_dma_stops(), 4);
        let spun = harness.slot().interrupt_spun_max_us();
        assert!(spun <= IRQ_SPIN_LIMIT_US, "an interrupt spun {spun} µs");
        board.assert_clean();
        harness.assert_idle();
    });
}

/// The same slow DMA stop in the software queue, 1 ms long, on every data request of a
/// run: a queued request's completion, and with it the next dispatch (which would start
/// the next DMA), wait for the stop in the busy retry (process context), never in the
/// completion interrupt; every request completes once, none fails, no DMA starts while a
/// stop runs (the model records that as a violation) and no interrupt spins for a stop.
#[test]
fn a_slow_dma_stop_defers_the_completion_and_the_next_dispatch_to_process_context() {
    const STOP_NS: u64 = 1_000_000;
    fn check<C: CardSlot>(harness: &mut HsqHarness<'_, C>) {
        harness.slow_dma_stops(Some(STOP_NS));
        run_and_check(harness, FAULT_JOBS);
        harness.slow_dma_stops(None);
        let stops = harness.board().model().slow_dma_stops();
        // Each job, and the read-back of each write.
        assert!(stops > FAULT_JOBS as u32, "{stops} slow stops");
        for job in 0..FAULT_JOBS {
            assert_eq!(harness.block().errors(job), [None], "job {job}");
        }
        assert!(!harness.log().contains(&Event::RecoveryStart));
        let retries = harness
            .log()
            .iter()
            .filter(|e| matches!(e, Event::BusyRetry(_)))
            .count();
        // One for each stop at least (and the dispatches that found a write programming).
        assert!(
            retries >= stops as usize,
            "{retries} busy retries for {stops} stops"
        );
        let spun = harness.slot().interrupt_spun_max_us();
        assert!(spun <= IRQ_SPIN_LIMIT_US, "an interrupt spun {spun} µs");
        harness.board().assert_clean();
    }
    // Closures, not `check` itself: the harness's card borrows for any lifetime.
    #[expect(
        clippy::redundant_closure,
        reason = "the card's lifetime is higher-ranked"
    )]
    {
        with_emmc(|harness| check(harness));
        with_sd(|harness| check(harness));
    }
}

/// The longest an interrupt may busy-wait for the hardware, µs: issue 31's bound on the
/// handler's interrupts-off stretch.
const IRQ_SPIN_LIMIT_US: u64 = 100;
