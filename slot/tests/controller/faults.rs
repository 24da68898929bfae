// SPDX-License-Identifier: GPL-2.0

//! Error paths: every fault the model injects, descriptor checksum corruption, auto-CMD23
//! failure, the request timeout (`abort`), stray and late interrupts. After each, the
//! controller must carry on with the next request.

use mmc_request::{CommandResult, DataResult, ErrorKind, RequestResult};
use models::emmc::CardState;
use models::msdc::controller::BUSY_STUCK_NS;
use models::msdc::Fault;
use models::sd::BLOCK_SIZE;
use msdc::clock::Timing;
use msdc::controller::{Progress, StartError};
use msdc::regs::InterruptSet;
use slot::software_queue::{retry_busy, BusWait, BusyRetry, BUSY_RETRY_MAX_SLEEP_US};

use crate::emmc::{emmc_host, emmc_init, emmc_rig};
use crate::rig::{
    block_request, command, filled, flags, legacy_config, modern_config, patterned, request,
    stop_command, with_auto_cmd23, Host,
};
use crate::sd::{card_state, rca_arg, sd_host, sd_init, sd_rig};

const MSDC_INTEN: usize = 0x10;
const CMDRDY: u32 = 1 << 8;
const CMDTMO: u32 = 1 << 9;
const ACMDRDY: u32 = 1 << 3;
const XFER_COMPL: u32 = 1 << 12;
const DMA_GPDCSERR: u32 = 1 << 18;
const DMA_BDCSERR: u32 = 1 << 17;

fn assert_ok(result: &RequestResult) {
    assert_eq!(result.first_error(), None, "{result:?}");
}

/// The controller still works: a status command and a block read.
fn still_usable(host: &mut Host<'_, models::sd::SdCard<'_>>) {
    let status = host.ok(13, rca_arg(), flags::R1 | flags::AC)[0];
    assert_eq!(card_state(status), 4, "card back in tran");
    let result = host.run(&block_request(false, 1, 1, false), &[(0x3000, 512)]);
    assert_ok(&result);
}

#[test]
fn command_timeout_and_response_crc() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    rig.model().inject(Fault::CommandTimeout);
    let result = host.command(13, rca_arg(), flags::R1 | flags::AC);
    assert_eq!(result.error, Some(ErrorKind::TimedOut));
    still_usable(&mut host);

    rig.model().inject(Fault::ResponseCrc);
    let result = host.command(13, rca_arg(), flags::R1 | flags::AC);
    assert_eq!(result.error, Some(ErrorKind::BadCrc));
    still_usable(&mut host);

    // MMC_RSP_R1B_NO_CRC: the core asked for the CRC error to be ignored.
    rig.model().inject(Fault::ResponseCrc);
    let result = host.command(13, rca_arg(), flags::R1B_NO_CRC | flags::AC);
    assert_eq!(result.error, None);
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn command_errors_on_data_commands_skip_data_and_stop() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    // The command never reaches the card.
    rig.model().inject(Fault::CommandTimeout);
    let result = host.run(&block_request(false, 0, 2, false), &[(0, 1024)]);
    assert_eq!(result.cmd.error, Some(ErrorKind::TimedOut));
    assert_eq!(result.data, None, "the data phase did not run");
    assert_eq!(result.stop, None, "no stop after a command error");
    still_usable(&mut host);

    // The card took the command but its response was corrupted: it is sending data now,
    // and the core's recovery sends the stop.
    rig.model().inject(Fault::ResponseCrc);
    let result = host.run(&block_request(false, 0, 2, false), &[(0, 1024)]);
    assert_eq!(result.cmd.error, Some(ErrorKind::BadCrc));
    assert_eq!(result.data, None);
    assert_eq!(rig.card().state(), CardState::Data);
    host.ok(12, 0, flags::R1B | flags::AC);
    still_usable(&mut host);

    // A failed software CMD23 ends the request before the command.
    rig.model().inject(Fault::CommandTimeout);
    let before = rig.model().commands();
    let result = host.run(&block_request(false, 0, 2, true), &[(0, 1024)]);
    assert_eq!(result.sbc.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(result.cmd, CommandResult::NOT_RUN);
    assert_eq!(result.data, None);
    assert_eq!(rig.model().commands(), before, "the lost CMD23 only");
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn data_crc_and_data_timeout() {
    let (mut storage, _) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);

    // Single block: no stop.
    rig.model().inject(Fault::DataCrc);
    let result = host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
    assert_eq!(result.cmd.error, None);
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 0,
            error: Some(ErrorKind::BadCrc)
        })
    );
    assert_eq!(result.stop, None);
    still_usable(&mut host);

    // Open-ended: the stop still goes out and ends the transfer.
    rig.model().inject(Fault::DataCrc);
    let result = host.run(&block_request(false, 0, 3, false), &[(0, 1536)]);
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::BadCrc));
    assert_eq!(result.stop.unwrap().error, None);
    still_usable(&mut host);

    // Bounded by CMD23, but the data never came: the card still sends, so the stop goes
    // out after a failed data phase even with a set-block-count.
    rig.misbehave
        .fault_on_data_command
        .set(Some(Fault::DataTimeout));
    let result = host.run(&block_request(false, 0, 2, true), &[(0, 1024)]);
    assert_eq!(result.sbc.unwrap().error, None);
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 0,
            error: Some(ErrorKind::TimedOut)
        })
    );
    let stop = result.stop.expect("stop after a failed bounded transfer");
    assert_eq!(stop.error, None);
    assert_eq!(
        card_state(stop.response[0]),
        5,
        "the card was still sending"
    );
    still_usable(&mut host);

    // A write that times out.
    rig.model().inject(Fault::DataTimeout);
    let result = host.run(&block_request(true, 8, 2, false), &[(0, 1024)]);
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(result.stop.unwrap().error, None);
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn emmc_data_crc_with_auto_cmd23_sends_the_stop() {
    let mut storage = vec![0u8; 64 * 512];
    let config = with_auto_cmd23(legacy_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);
    rig.model().inject(Fault::DataCrc);
    let result = host.run(&block_request(false, 2, 4, true), &[(0, 2048)]);
    assert_eq!(result.sbc.unwrap().error, None);
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::BadCrc));
    // The card had finished the bounded transfer: CMD12 is illegal in tran and unanswered.
    assert_eq!(result.stop.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(rig.card().state(), CardState::Tran);
    let result = host.run(&block_request(false, 2, 4, true), &[(0, 2048)]);
    assert_ok(&result);
    rig.assert_no_violations();
}

#[test]
fn auto_cmd23_timeout_ends_the_request() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let config = with_auto_cmd23(legacy_config());
    let rig = sd_rig(&config, &mut storage);
    let mut host = sd_host(&rig);
    // Deselected, the card ignores CMD23: the controller reports ACMDTMO and never sends
    // the read.
    let deselect = host.command(7, 0, flags::NONE | flags::AC);
    assert_eq!(deselect.error, None);
    let before = rig.model().commands();
    let result = host.run(&block_request(false, 0, 2, true), &[(0, 1024)]);
    assert_eq!(rig.model().commands() - before, 1, "only the auto-CMD23");
    assert_eq!(result.sbc.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(result.cmd, CommandResult::NOT_RUN);
    assert_eq!(result.data, None);
    assert_eq!(result.stop, None);
    host.ok(7, rca_arg(), flags::R1B | flags::AC);
    still_usable(&mut host);
}

#[test]
fn descriptor_checksum_corruption_is_a_dma_fault() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    for (byte, event) in [(4, DMA_GPDCSERR), (64 + 8, DMA_BDCSERR)] {
        // Corrupt the chain after the engine wrote it, before the DMA reads it.
        host.start(&block_request(false, 0, 1, false), &[(0, 512)])
            .unwrap();
        rig.corrupt_descriptor(byte);
        rig.seen_events.set(0);
        let result = host.wait().unwrap();
        assert_eq!(rig.seen_events.get() & (DMA_GPDCSERR | DMA_BDCSERR), event);
        assert_eq!(
            result.data,
            Some(DataResult {
                bytes_xfered: 0,
                error: Some(ErrorKind::DmaFault)
            })
        );
        // The card still has its block to send: CMD12, as the core's recovery does.
        assert_eq!(rig.card().state(), CardState::Data);
        host.ok(12, 0, flags::R1B | flags::AC);
        still_usable(&mut host);
    }
    rig.assert_no_violations();
}

#[test]
fn injected_descriptor_checksum_errors_are_dma_faults_and_move_no_data() {
    let (mut storage, expect) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    let cases = [
        (Fault::GpdChecksum, DMA_GPDCSERR, false),
        (Fault::BdChecksum, DMA_BDCSERR, false),
        (Fault::GpdChecksum, DMA_GPDCSERR, true),
        (Fault::BdChecksum, DMA_BDCSERR, true),
    ];
    for (fault, event, write) in cases {
        // The engine seals every descriptor it writes and enables DECSEN: the corrupted
        // one is caught before any data moves.
        rig.fill(0, &[0xEE; 1024]);
        rig.model().inject(fault);
        rig.seen_events.set(0);
        let result = host.run(&block_request(write, 8, 2, false), &[(0, 1024)]);
        assert_eq!(
            rig.seen_events.get() & (DMA_GPDCSERR | DMA_BDCSERR | XFER_COMPL),
            event,
            "{fault:?}"
        );
        assert_eq!(result.cmd.error, None);
        assert_eq!(
            result.data,
            Some(DataResult {
                bytes_xfered: 0,
                error: Some(ErrorKind::DmaFault)
            }),
            "{fault:?}, write {write}"
        );
        // The card still waits to send or take its blocks: the engine's stop ends that.
        assert_eq!(result.stop.unwrap().error, None, "{fault:?}");
        if !write {
            assert!(filled(&rig.data(0, 1024), 0xEE), "no block reached memory");
        }
        still_usable(&mut host);
    }
    // No write reached the card.
    let result = host.run(&block_request(false, 8, 2, false), &[(0, 1024)]);
    assert_ok(&result);
    assert_eq!(rig.data(0, 1024), expect[8 * 512..10 * 512]);
    rig.assert_no_violations();
}

#[test]
fn a_card_stuck_busy_after_a_write_fails_what_follows_until_cmd0() {
    let (mut storage, _) = patterned(64 * BLOCK_SIZE);
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    let (written, _) = patterned(1024);
    rig.fill(0, &written);

    rig.model().inject(Fault::BusyStuck);
    let result = host.run(&block_request(true, 4, 2, false), &[(0, 1024)]);
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 1024,
            error: None
        })
    );
    // The stop is an R1b command: the controller stays busy past the engine's wait, the
    // stop fails with a time-out instead of hanging.
    assert_eq!(result.stop.unwrap().error, Some(ErrorKind::TimedOut));
    assert!(host.ctrl().card_busy(&rig), "DAT0 held low");
    // Every data command is refused the same way, and nothing reaches the card.
    let before = rig.model().commands();
    assert_eq!(
        host.start(&block_request(false, 4, 2, false), &[(0, 1024)]),
        Err(StartError::BusBusy)
    );
    assert_eq!(rig.model().commands(), before);
    assert!(host.ctrl().is_idle());
    // The core's status poll gets through: programming, not ready for data.
    let status = host.ok(13, rca_arg(), flags::R1 | flags::AC)[0];
    assert_eq!(card_state(status), 7);
    assert_eq!(status & (1 << 8), 0);

    // The core's recovery re-initialises the card (one line again, CMD0 first, which
    // releases it).
    host.ctrl().set_bus_width(&rig, 1);
    host.clock(400_000, Timing::Legacy);
    sd_init(&mut host, false);
    assert!(!host.ctrl().card_busy(&rig));
    still_usable(&mut host);
    let result = host.run(&block_request(false, 4, 2, false), &[(0x2000, 1024)]);
    assert_ok(&result);
    assert_eq!(rig.data(0x2000, 1024), written, "the blocks were written");
    rig.assert_no_violations();
}

#[test]
fn a_card_stuck_busy_releases_after_its_time_without_a_reset() {
    let mut storage = vec![0u8; 64 * 512];
    let config = with_auto_cmd23(legacy_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);

    rig.model().inject(Fault::BusyStuck);
    let result = host.run(&block_request(true, 2, 4, true), &[(0, 2048)]);
    assert_ok(&result);
    assert_eq!(
        host.start(&block_request(false, 2, 4, true), &[(0, 2048)]),
        Err(StartError::BusBusy)
    );
    // An R1b command waits for the controller too.
    let flush = request(command(6, 0x03_20_01_00, flags::R1B | flags::AC));
    assert_eq!(host.start(&flush, &[]), Err(StartError::BusBusy));
    rig.model().elapse(BUSY_STUCK_NS);
    rig.sync_card();
    assert!(!host.ctrl().card_busy(&rig));
    let result = host.run(&block_request(false, 2, 4, true), &[(0, 2048)]);
    assert_ok(&result);
    rig.assert_no_violations();
}

/// A card that programs a write with DAT0 low after XFER_COMPL ([`Fault::ProgramBusy`]):
/// the next request's wait for the bus (upstream's `msdc_cmd_is_ready`, 20 000 polls of
/// 1 µs, which the bench's busy-waits pass to the model clock) outlasts a 10 ms busy and
/// goes on, but gives up on a 30 ms one and fails a request that nothing was wrong with.
/// In HSQ mode the MMC core issues the next request from the completion without a CMD13
/// busy wait, so this is what a long eMMC programming time (a cache flush, garbage
/// collection) would do to it; retried once the card is done, the request goes through.
/// The slot's HSQ dispatch therefore looks first (`Controller::bus_busy_for`) and retries
/// from process context; the one-at-a-time path keeps this wait, as upstream.
#[test]
fn a_write_programming_longer_than_the_bus_idle_wait_fails_the_next_request() {
    const MS: u64 = 1_000_000;
    let mut storage = vec![0u8; 64 * 512];
    let config = with_auto_cmd23(legacy_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);

    rig.model().inject(Fault::ProgramBusy(10 * MS));
    assert_ok(&host.run(&block_request(true, 2, 4, true), &[(0, 2048)]));
    assert!(
        host.ctrl().card_busy(&rig),
        "XFER_COMPL came with DAT0 still low"
    );
    let before = rig.delayed_us.get();
    assert_ok(&host.run(&block_request(false, 2, 4, true), &[(0, 2048)]));
    let waited = rig.delayed_us.get() - before;
    assert!((10_000..20_000).contains(&waited), "waited {waited} µs");

    rig.model().inject(Fault::ProgramBusy(30 * MS));
    assert_ok(&host.run(&block_request(true, 2, 4, true), &[(0, 2048)]));
    let before = rig.model().commands();
    assert_eq!(
        host.start(&block_request(false, 2, 4, true), &[(0, 2048)]),
        Err(StartError::BusBusy),
        "the wait gave up on a card still programming"
    );
    assert_eq!(rig.model().commands(), before, "nothing was sent");
    assert!(
        host.ctrl().card_busy(&rig),
        "the card programs on, as it should"
    );
    assert!(rig.model().card_busy_left_ns() <= 10 * MS);
    // Retried after the programming (what a retry from process context would do).
    rig.model().elapse(10 * MS);
    assert!(!host.ctrl().card_busy(&rig));
    assert_ok(&host.run(&block_request(false, 2, 4, true), &[(0, 2048)]));
    rig.assert_no_violations();
}

/// The one-read look at the bus a caller that must not spin makes before it starts a
/// request ([`Controller::bus_busy_for`](msdc::controller::Controller::bus_busy_for)):
/// while a card programs a write with DAT0 low, a request with data or an R1b command finds
/// the bus busy and a command without either does not (only the command line counts);
/// nothing is sent and nothing waits, and once the programming is over the request starts.
#[test]
fn the_bus_busy_look_sees_a_card_programming_without_waiting() {
    const MS: u64 = 1_000_000;
    let mut storage = vec![0u8; 64 * 512];
    let config = with_auto_cmd23(legacy_config());
    let rig = emmc_rig(&config, &mut storage);
    let mut host = emmc_host(&rig);
    let read = block_request(false, 2, 4, true);
    let status = request(command(13, 1 << 16, flags::R1 | flags::AC));
    let switch = request(command(6, 0x03B9_0100, flags::R1B | flags::AC));
    assert!(!host.ctrl().bus_busy_for(&rig, &read), "an idle bus");

    rig.model().inject(Fault::ProgramBusy(30 * MS));
    assert_ok(&host.run(&block_request(true, 2, 4, true), &[(0, 2048)]));
    let (commands, waited) = (rig.model().commands(), rig.delayed_us.get());
    assert!(host.ctrl().bus_busy_for(&rig, &read), "data waits for DAT0");
    assert!(
        host.ctrl().bus_busy_for(&rig, &switch),
        "R1b waits for DAT0"
    );
    assert!(!host.ctrl().bus_busy_for(&rig, &status), "CMD13 goes out");
    assert_eq!(rig.model().commands(), commands, "nothing was sent");
    assert_eq!(rig.delayed_us.get(), waited, "nothing waited");
    assert!(host.ctrl().card_busy(&rig));

    rig.model().elapse(30 * MS);
    assert!(!host.ctrl().bus_busy_for(&rig, &read));
    assert_ok(&host.run(&read, &[(0, 2048)]));
    rig.assert_no_violations();
}

/// Runs the interrupts of the request `host` started until its data phase is over and its
/// stop waits for the bus; how long those interrupts busy-waited, µs. The slot logic has
/// scheduled the busy retry for it then ([`Host::wait`] runs it).
fn interrupts_until_the_stop_waits<C: models::msdc::CardSlot>(host: &mut Host<'_, C>) -> u64 {
    let before = host.rig.delayed_us.get();
    while !host.ctrl().awaits_bus() {
        assert_eq!(
            host.interrupt()
                .expect("an interrupt until the data phase ends"),
            Progress::Pending
        );
    }
    host.rig.delayed_us.get() - before
}

/// The longest sleep of the busy retry between two looks at the bus, ns: how far past the
/// card's release of DAT0 it may see it.
const BUSY_RETRY_LONGEST_SLEEP_NS: u64 = BUSY_RETRY_MAX_SLEEP_US as u64 * 1_000;

/// An open-ended write (no CMD23): the card programs with DAT0 low after XFER_COMPL, and the
/// stop (CMD12, R1b) needs the bus idle. Upstream waits for SDCBUSY in the data interrupt
/// (`msdc_cmd_is_ready`, up to 20 ms with interrupts off) and fails the stop past it. Here
/// the data interrupt does not wait: the stop waits (`awaits_bus`) for the busy retry work
/// the slot logic schedules, which issues it from process context once the card is done
/// (`slot::software_queue::retry_busy`, `retry_stop`), 10 ms or 30 ms later alike (past
/// upstream's 20 ms), and the request succeeds.
#[test]
fn an_open_ended_write_stops_from_process_context_after_the_programming() {
    const MS: u64 = 1_000_000;
    let mut storage = vec![0u8; 64 * 512];
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);
    let (written, _) = patterned(2048);
    rig.fill(0, &written);

    for busy in [10 * MS, 30 * MS] {
        rig.model().inject(Fault::ProgramBusy(busy));
        host.start(&block_request(true, 2, 4, false), &[(0, 2048)])
            .expect("start");
        let waited_us = interrupts_until_the_stop_waits(&mut host);
        assert!(
            waited_us < 100,
            "the data interrupt waited {waited_us} µs for the card"
        );
        assert!(host.ctrl().card_busy(&rig), "the card programs");
        // A look of the busy retry while the card programs sends nothing and keeps the
        // stop waiting.
        let commands = rig.model().commands();
        let look = retry_busy(&host.slot, &mut BusyRetry::new(), 0);
        assert!(matches!(look, BusWait::Sleep { .. }), "{look:?}");
        assert!(host.ctrl().awaits_bus());
        assert_eq!(
            rig.model().commands(),
            commands,
            "nothing sent on a busy bus"
        );
        assert!(!rig.interrupt_line(), "the stop's interrupts wait masked");

        let slept_before = host.slept_ns;
        let result = host.wait().expect("the request completes");
        assert_ok(&result);
        assert_eq!(
            result.stop.map(|stop| stop.error),
            Some(None),
            "the stop went out"
        );
        let slept = host.slept_ns - slept_before;
        assert!(
            (busy - MS..busy + BUSY_RETRY_LONGEST_SLEEP_NS).contains(&slept),
            "slept {slept} ns for {busy} ns of programming"
        );
        assert!(!host.ctrl().card_busy(&rig));
    }
    rig.assert_no_violations();
}

/// A card that programs an open-ended write longer than the request's data timeout (250 ms
/// for a write here): the busy retry gives up on the stop there, failing it with a
/// time-out and resetting the controller, the data already on the card; the watchdog's
/// abort of a stop still waiting fails it the same way. Neither waits in an interrupt.
#[test]
fn a_stop_waiting_past_the_data_timeout_or_aborted_fails_with_a_time_out() {
    const MS: u64 = 1_000_000;
    let mut storage = vec![0u8; 64 * 512];
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);

    rig.model().inject(Fault::ProgramBusy(400 * MS));
    host.start(&block_request(true, 8, 4, false), &[(0, 2048)])
        .expect("start");
    assert!(interrupts_until_the_stop_waits(&mut host) < 100);
    assert_eq!(host.ctrl().stop_wait_limit_ns(), 250 * MS);
    let commands = rig.model().commands();
    let result = host.wait().expect("the request completes");
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 2048,
            error: None
        })
    );
    assert_eq!(result.stop.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(rig.model().commands(), commands, "no stop was sent");
    assert!((250 * MS..250 * MS + BUSY_RETRY_LONGEST_SLEEP_NS).contains(&host.slept_ns));
    assert!(host.ctrl().card_busy(&rig), "still programming");
    rig.model().elapse(150 * MS);
    rig.sync_card();
    assert!(!host.ctrl().card_busy(&rig));
    // The card still receives: the block layer's recovery stops it (`mmc_blk_send_stop`).
    assert_eq!(host.command(12, 0, flags::R1B | flags::AC).error, None);

    rig.model().inject(Fault::ProgramBusy(30 * MS));
    host.start(&block_request(true, 8, 4, false), &[(0, 2048)])
        .expect("start");
    interrupts_until_the_stop_waits(&mut host);
    let result = host.abort().expect("the request was in flight");
    assert_eq!(result.stop.unwrap().error, Some(ErrorKind::TimedOut));
    assert!(!host.ctrl().awaits_bus());
    assert!(
        matches!(host.ctrl().retry_stop(&rig, true), Progress::Pending),
        "nothing waits"
    );
    // The busy retry the parked stop scheduled runs after the abort and finds nothing.
    assert!(host.slot.take_busy_retry(), "the parked stop scheduled it");
    let slept = host.slept_ns;
    assert_eq!(host.busy_retry(), Progress::Pending);
    assert_eq!(host.slept_ns, slept, "nothing to wait for");
    rig.model().elapse(30 * MS);
    rig.sync_card();
    assert_eq!(host.command(12, 0, flags::R1B | flags::AC).error, None);
    assert_ok(&host.run(&block_request(false, 2, 4, true), &[(0, 2048)]));
    rig.assert_no_violations();
}

#[test]
fn a_card_stuck_busy_after_an_r1b_command_recovers_by_reinitialisation() {
    let mut storage = vec![0u8; 64 * 512];
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);

    rig.model().inject(Fault::BusyStuck);
    // CMD6 (a cache flush as the core sends it): answered, then the card stays busy.
    let switch = host.command(6, 0x03_20_01_00, flags::R1B | flags::AC);
    assert_eq!(switch.error, None);
    assert!(host.ctrl().card_busy(&rig));
    let stop = request(command(12, 0, flags::R1B | flags::AC));
    assert_eq!(host.start(&stop, &[]), Err(StartError::BusBusy));
    // The core's hardware reset: the bus back to one line, then CMD0 and identification.
    host.ctrl().set_bus_width(&rig, 1);
    host.clock(400_000, Timing::Legacy);
    emmc_init(&mut host);
    assert!(!host.ctrl().card_busy(&rig));
    let result = host.run(&block_request(false, 0, 2, true), &[(0, 1024)]);
    assert_ok(&result);
    rig.assert_no_violations();
}

#[test]
fn abort_in_the_command_phase() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    assert_eq!(host.abort(), None, "nothing to abort when idle");

    rig.misbehave.hide_interrupts.set(true);
    host.start(&block_request(false, 0, 2, true), &[(0, 1024)])
        .unwrap();
    assert_eq!(host.wait(), None, "the interrupt was lost");
    assert!(!host.ctrl().is_idle());
    let result = host.abort().expect("a request was in flight");
    assert_eq!(result.sbc.unwrap().error, Some(ErrorKind::TimedOut));
    assert_eq!(result.cmd, CommandResult::NOT_RUN);
    assert!(host.ctrl().is_idle());
    assert_eq!(rig.peek(MSDC_INTEN), 0, "request interrupts masked");
    rig.misbehave.hide_interrupts.set(false);
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn abort_in_the_data_phase_stops_the_dma() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&modern_config(), &mut storage);
    let mut host = sd_host(&rig);

    rig.misbehave.drop_dma_start.set(true);
    host.start(&block_request(false, 0, 1, false), &[(0, 512)])
        .unwrap();
    assert_eq!(
        host.interrupt(),
        Some(Progress::Pending),
        "command done, data started"
    );
    assert_eq!(
        rig.peek(MSDC_INTEN),
        InterruptSet::XFER_COMPL.bits()
            | InterruptSet::DATTMO.bits()
            | InterruptSet::DATCRCERR.bits()
            | DMA_BDCSERR
            | DMA_GPDCSERR
            | InterruptSet::DMA_PROTECT.bits(),
        "exactly the data interrupts"
    );
    assert_eq!(host.wait(), None, "the data never moves");
    assert!(rig.model().busy(), "the controller waits for the DMA");

    let result = host.abort().unwrap();
    assert_eq!(result.cmd.error, None);
    assert_eq!(card_state(result.cmd.response[0]), 4);
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 0,
            error: Some(ErrorKind::TimedOut)
        })
    );
    assert!(!rig.model().busy(), "DMA stopped and controller reset");
    rig.misbehave.drop_dma_start.set(false);
    host.ok(12, 0, flags::R1B | flags::AC);
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn stray_and_late_interrupts_are_ignored() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);

    // Idle: nothing is enabled for requests, nothing is touched.
    rig.misbehave.injected_events.set(CMDRDY | XFER_COMPL);
    let writes = rig.writes.get();
    assert!(matches!(
        host.ctrl().handle_interrupt(&rig),
        Progress::Pending
    ));
    assert_eq!(rig.writes.get(), writes, "no register written");
    assert_eq!(
        rig.misbehave.injected_events.get(),
        CMDRDY | XFER_COMPL,
        "nothing acknowledged"
    );

    // Command events left over from before are cleared when the next command starts,
    // so they cannot complete it early.
    rig.misbehave.injected_events.set(CMDTMO);
    rig.misbehave.drop_dma_start.set(true);
    host.start(&block_request(false, 0, 1, false), &[(0, 512)])
        .unwrap();
    assert_eq!(rig.misbehave.injected_events.get(), 0);
    assert_eq!(host.interrupt(), Some(Progress::Pending));

    // Data phase: late command events are not enabled any more and stay unconsumed.
    rig.misbehave.injected_events.set(CMDRDY | CMDTMO | ACMDRDY);
    assert!(!rig.interrupt_line());
    assert!(matches!(
        host.ctrl().handle_interrupt(&rig),
        Progress::Pending
    ));
    assert_eq!(
        rig.misbehave.injected_events.get(),
        CMDRDY | CMDTMO | ACMDRDY
    );
    rig.misbehave.drop_dma_start.set(false);
    let result = host.abort().unwrap();
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::TimedOut));
    host.ok(12, 0, flags::R1B | flags::AC);

    // After completion another call finds nothing.
    let result = host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
    assert_ok(&result);
    assert!(matches!(
        host.ctrl().handle_interrupt(&rig),
        Progress::Pending
    ));
    assert_eq!(host.interrupt(), None, "line low");
    rig.assert_no_violations();
}

#[test]
fn stop_command_on_a_card_already_in_tran_reports_its_error() {
    // The data failed on a bounded transfer that the card had finished: the stop is sent
    // anyway, and the SD card ignores it (illegal in tran).
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    rig.misbehave
        .fault_on_data_command
        .set(Some(Fault::DataCrc));
    let result = host.run(&block_request(false, 0, 2, true), &[(0, 1024)]);
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::BadCrc));
    assert_eq!(result.stop.unwrap().error, Some(ErrorKind::TimedOut));
    still_usable(&mut host);
    rig.assert_no_violations();
}

#[test]
fn explicit_stop_request_without_data() {
    // The core's CMD12 as its own request (mmc_wait_for_cmd).
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let rig = sd_rig(&legacy_config(), &mut storage);
    let mut host = sd_host(&rig);
    rig.model().inject(Fault::DataTimeout);
    let result = host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
    assert_eq!(result.data.unwrap().error, Some(ErrorKind::TimedOut));
    let stop = host.run(&crate::rig::request(stop_command()), &[]);
    assert_eq!(stop.cmd.error, None);
    still_usable(&mut host);
}

/// Runs the interrupts of the request `host` started until its data phase is over and it
/// waits for its DMA stop to take effect; how long those interrupts busy-waited, µs. The
/// slot logic has scheduled the busy retry for it then ([`Host::wait`] runs it).
fn interrupts_until_the_dma_stop_waits<C: models::msdc::CardSlot>(host: &mut Host<'_, C>) -> u64 {
    let before = host.rig.delayed_us.get();
    while !host.ctrl().awaits_dma_stop() {
        assert_eq!(
            host.interrupt()
                .expect("an interrupt until the data phase ends"),
            Progress::Pending,
            "the request completed with its DMA stop still running"
        );
    }
    host.rig.delayed_us.get() - before
}

/// A DMA stop slow to clear under bus load (`MSDC_DMA_CTRL.STOP` set for 300 µs, then
/// 30 ms, past upstream's 20 ms poll, while `MSDC_DMA_CFG.STS` already reads idle; the
/// board's `dma_stop_slow`): upstream polls it in the data interrupt, 1 µs apart, up to
/// 20 ms with interrupts off. Here the interrupt polls it for a few microseconds only
/// (`DMA_STOP_POLL_LIMIT_IRQ` reads of each register) and leaves the request on the
/// controller, its interrupts masked, for the busy retry work (process context), which
/// ends the data phase once the stop has taken effect: the open-ended read's stop command
/// (CMD12) goes out from there, and the request completes once, with its data. Meanwhile
/// the controller is busy for a request with data, so no DMA starts during the stop (the
/// model would record it).
#[test]
fn a_slow_dma_stop_is_waited_for_in_process_context_not_in_the_interrupt() {
    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;
    let (storage, expect) = patterned(64 * 512);
    let mut storage = storage;
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);
    let next = block_request(false, 0, 1, false);

    for (address, stop_ns) in [(4u32, 300 * US), (8, 30 * MS)] {
        let stops = rig.model().slow_dma_stops();
        rig.model().inject_slow_dma_stop(stop_ns);
        let read = block_request(false, address, 4, false);
        host.start(&read, &[(0, 2048)]).expect("start");
        let spun_us = interrupts_until_the_dma_stop_waits(&mut host);
        assert!(
            spun_us <= IRQ_SPIN_LIMIT_US,
            "the data interrupt spun {spun_us} µs for the DMA stop"
        );
        assert_eq!(rig.model().slow_dma_stops(), stops + 1, "the stop took it");
        assert!(host.ctrl().dma_stop_pending());
        assert!(
            host.ctrl().bus_busy_for(&rig, &next),
            "no DMA may start during the stop"
        );
        assert!(!rig.interrupt_line(), "its interrupts wait masked");
        // A look of the busy retry while the stop runs waits, and sends nothing.
        let commands = rig.model().commands();
        let look = retry_busy(&host.slot, &mut BusyRetry::new(), 0);
        assert!(matches!(look, BusWait::Sleep { .. }), "{look:?}");
        assert!(host.ctrl().awaits_dma_stop());
        assert_eq!(rig.model().commands(), commands, "nothing sent");

        let slept_before = host.slept_ns;
        let result = host.wait().expect("the request completes");
        assert_ok(&result);
        assert_eq!(result.data.unwrap().bytes_xfered, 2048);
        assert_eq!(
            result.stop.map(|stop| stop.error),
            Some(None),
            "the open-ended read's stop went out after the DMA stop"
        );
        let slept = host.slept_ns - slept_before;
        assert!(
            slept >= stop_ns / 2 && slept < stop_ns + BUSY_RETRY_LONGEST_SLEEP_NS,
            "slept {slept} ns for a {stop_ns} ns DMA stop"
        );
        assert!(!host.ctrl().dma_stop_pending());
        let at = address as usize * 512;
        assert_eq!(rig.data(0, 2048), expect[at..at + 2048], "block {address}");
        assert_eq!(host.take_hardware_fault(), None);
    }
    assert_ok(&host.run(&next, &[(0, 512)]));
    rig.assert_no_violations();
}

/// A DMA stop that has not taken effect by the request's data timeout (the busy retry's
/// bound for it): the request fails with a DMA error (what the engine wrote is not known to
/// be complete), the fault is logged, the controller reset, and nothing hangs. The stop
/// outlives the reset (the engine's bus transactions are outside the controller), so no
/// DMA may start yet: the next request with data is refused after the full 20 ms wait at
/// its start, one without data goes out, and once the stop has cleared data flows again.
#[test]
fn a_dma_stop_past_the_data_timeout_fails_its_request_and_holds_the_next_dma() {
    const MS: u64 = 1_000_000;
    let (storage, expect) = patterned(64 * 512);
    let mut storage = storage;
    let rig = emmc_rig(&legacy_config(), &mut storage);
    let mut host = emmc_host(&rig);

    rig.model().inject_slow_dma_stop(2_000 * MS);
    host.start(&block_request(false, 4, 1, false), &[(0, 512)])
        .expect("start");
    interrupts_until_the_dma_stop_waits(&mut host);
    let limit = host.ctrl().stop_wait_limit_ns();
    assert!(limit > 20 * MS && limit < 1_000 * MS, "limit {limit} ns");
    let resets = rig.resets.get();
    let result = host.wait().expect("the request completes, failed");
    assert_eq!(
        result.data.map(|data| data.error),
        Some(Some(ErrorKind::DmaFault))
    );
    assert!((limit..limit + BUSY_RETRY_LONGEST_SLEEP_NS).contains(&host.slept_ns));
    assert_eq!(
        host.take_hardware_fault(),
        Some(msdc::controller::HwError::DmaStopTimeout)
    );
    assert!(rig.resets.get() > resets, "the controller was reset");
    assert!(host.ctrl().dma_stop_pending(), "the stop still runs");

    let read = block_request(false, 8, 1, false);
    assert!(host.ctrl().bus_busy_for(&rig, &read));
    assert_eq!(
        host.start(&read, &[(0, 512)]),
        Err(StartError::Hardware(
            msdc::controller::HwError::DmaStopTimeout
        ))
    );
    host.ok(13, 1 << 16, flags::R1 | flags::AC);

    rig.model().elapse(2_000 * MS);
    assert!(!host.ctrl().bus_busy_for(&rig, &read));
    assert_ok(&host.run(&read, &[(0, 512)]));
    assert!(!host.ctrl().dma_stop_pending());
    assert_eq!(rig.data(0, 512), expect[8 * 512..9 * 512]);
    rig.assert_no_violations();
}

/// The longest an interrupt may busy-wait for the hardware, µs: issue 31's bound on the
/// handler's interrupts-off stretch.
const IRQ_SPIN_LIMIT_US: u64 = 100;
