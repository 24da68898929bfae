// SPDX-License-Identifier: GPL-2.0

//! The time the MSDC model charges for the requests the engine runs: commands, data phases
//! and card busy work at the clock and bus width the engine programmed. (The latency model's
//! arithmetic on its own is tested in `models`.)

use models::emmc::{Card, Command, ReadyOrder};
use models::latency::{Latency, ResponseLength};
use models::msdc::{CardSlot, ModelConfig, MsdcModel};
use models::sd::{SdCard, SdConfig, BLOCK_SIZE, DEFAULT_RCA};
use msdc::clock::Timing;

use crate::replay::rw;
use crate::rig::flags::{AC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::rig::{adtc_read, model_config, modern_config, Host, Rig};

const MS: u64 = 1_000_000;
const EMMC_RCA_ARG: u32 = 1 << 16;

/// A bench for a 36-bit controller whose model charges `latency` (`Rig::new` builds the
/// model with eMMC timing).
fn rig_with_latency<C: CardSlot>(card: C, latency: Latency) -> Rig<C> {
    let config = modern_config();
    let rig = Rig::new(&config, card);
    *rig.model() = MsdcModel::new(ModelConfig {
        latency,
        ..model_config(&config)
    });
    rig
}

/// Runs `test` with a host on a 36-bit controller whose model charges `latency`, an eMMC of
/// `sectors` sectors in the slot; auto-CMD23 is on, as for any eMMC.
fn with_emmc(sectors: usize, latency: Latency, test: impl FnOnce(&mut Host<'_, Card<'_>>)) {
    let mut storage = vec![0u8; sectors * 512];
    let rig = rig_with_latency(Card::new(&mut storage, 8, ReadyOrder::Immediate), latency);
    let mut h = Host::new(&rig);
    h.set_mmc_card(true);
    test(&mut h);
}

/// An eMMC from power-up to the transfer state at 400 kHz and one bit, and its EXT_CSD.
fn identify_emmc(h: &mut Host<'_, Card<'_>>) {
    h.ok(0, 0, NONE | BC);
    while h.ok(1, 0x40FF_8080, R3 | BCR)[0] & (1 << 31) == 0 {}
    h.ok(2, 0, R2 | BCR);
    h.ok(3, EMMC_RCA_ARG, R1 | AC);
    h.ok(7, EMMC_RCA_ARG, R1 | AC);
    h.mrq(&adtc_read(8, 0, 512)).unwrap();
}

#[test]
fn zero_latency_charges_nothing_for_requests() {
    with_emmc(64, Latency::ZERO, |h| {
        identify_emmc(h);
        h.mrq(&rw(true, 0, 4, false)).unwrap();
        assert_eq!(h.rig.model().take_elapsed_ns(), 0);
    });
}

/// An SD card brought to 4-bit high speed directly, through the card model's own commands.
fn sd_card_at_high_speed(storage: &mut [u8]) -> SdCard<'_> {
    let mut card = SdCard::new(storage, SdConfig::default());
    let mut c = |i: u8, a: u32| card.command(Command::new(i, a)).unwrap();
    c(0, 0);
    c(8, 0x1AA);
    loop {
        c(55, 0);
        if c(41, 0x40FF_8000).value() & (1 << 31) != 0 {
            break;
        }
    }
    c(2, 0);
    c(3, 0);
    let rca = u32::from(DEFAULT_RCA) << 16;
    c(7, rca);
    c(55, rca);
    c(6, 2);
    c(6, 0x80FF_FFF1);
    let mut status = [0u8; 64];
    card.read_data(&mut status).unwrap();
    assert_eq!(card.max_clock_hz(), 50_000_000);
    card
}

#[test]
fn the_controller_charges_commands_and_data() {
    let mut storage = vec![0u8; 2048 * BLOCK_SIZE];
    let rig = rig_with_latency(sd_card_at_high_speed(&mut storage), Latency::SD);
    // The host at 50 MHz, 4 bit.
    let mut h = Host::new(&rig);
    h.clock(50_000_000, Timing::SdHighSpeed);
    h.ctrl().set_bus_width(&rig, 4);
    assert_eq!(rig.model().bus_clock_hz(), 50_000_000);
    rig.model().take_elapsed_ns();
    let l = Latency::SD;
    let hz = 50_000_000;
    let elapsed = || rig.model().take_elapsed_ns();
    // CMD13: one short exchange.
    h.ok(13, u32::from(DEFAULT_RCA) << 16, R1 | AC);
    assert_eq!(elapsed(), l.command_ns(ResponseLength::Short, hz));
    assert_eq!(elapsed(), 0, "the counter restarts");
    // CMD23 + CMD18 of 512 KiB: two exchanges, the access time and 21.4 ms of blocks.
    h.mrq(&rw(false, 0, 1024, false)).unwrap();
    let t = elapsed();
    assert_eq!(
        t,
        2 * l.command_ns(ResponseLength::Short, hz) + l.read_ns(512, 1024, 4, false, hz)
    );
    assert!((21 * MS..22 * MS).contains(&(t - l.read_access_ns)), "{t}");
    // CMD23 + CMD25 of 4 KiB: the write time with programming.
    h.mrq(&rw(true, 8, 8, false)).unwrap();
    assert_eq!(
        elapsed(),
        2 * l.command_ns(ResponseLength::Short, hz) + l.write_ns(512, 8, 4, false, hz)
    );
    // A command nobody answers: the host waited the longest N_CR.
    h.wait_for_cmd(2, 0, R2 | BCR).unwrap_err();
    assert_eq!(elapsed(), l.command_ns(ResponseLength::Missing, hz));
    // Erase: CMD32, CMD33, CMD38 with the erase busy for 100 blocks.
    h.ok(32, 100, R1 | AC);
    h.ok(33, 199, R1 | AC);
    h.ok(38, 0, R1B | AC);
    assert_eq!(
        elapsed(),
        3 * l.command_ns(ResponseLength::Short, hz) + l.erase_time_ns(100)
    );
    rig.assert_no_violations();
}

#[test]
fn power_up_switch_and_flush_are_charged() {
    with_emmc(64, Latency::EMMC, |h| {
        let l = Latency::EMMC;
        let hz = 400_000;
        let rig = h.rig;
        let elapsed = || rig.model().take_elapsed_ns();
        h.ok(0, 0, NONE | BC);
        assert_eq!(elapsed(), l.command_ns(ResponseLength::None, hz));
        // The busy answer costs the exchange, the ready one the power-up time as well.
        h.ok(1, 0x40FF_8080, R3 | BCR);
        assert_eq!(elapsed(), l.command_ns(ResponseLength::Short, hz));
        h.ok(1, 0x40FF_8080, R3 | BCR);
        assert_eq!(
            elapsed(),
            l.command_ns(ResponseLength::Short, hz) + l.power_up_ns
        );
        h.ok(2, 0, R2 | BCR);
        assert_eq!(elapsed(), l.command_ns(ResponseLength::Long, hz));
        h.ok(3, EMMC_RCA_ARG, R1 | AC);
        h.ok(7, EMMC_RCA_ARG, R1 | AC);
        elapsed();
        // CMD6 (R1b): the exchange and the switch busy; a failed switch costs no busy.
        let switch = |index: u32| (3 << 24) | (index << 16) | (1 << 8);
        h.ok(6, switch(175), R1B | AC);
        assert_eq!(
            elapsed(),
            l.command_ns(ResponseLength::Short, hz) + l.switch_ns
        );
        h.ok(6, switch(200), R1B | AC);
        assert_eq!(elapsed(), l.command_ns(ResponseLength::Short, hz));
        h.ok(6, switch(32), R1B | AC);
        assert_eq!(
            elapsed(),
            l.command_ns(ResponseLength::Short, hz) + l.flush_ns
        );
    });
}

#[test]
fn emmc_initialisation_takes_plausible_time() {
    with_emmc(256, Latency::EMMC, |h| {
        identify_emmc(h);
        let t = h.rig.model().take_elapsed_ns();
        // 20 ms power-up, about 10 ms of EXT_CSD at 1 bit and 400 kHz, and a few commands.
        assert!((32 * MS..36 * MS).contains(&t), "{t}");
        h.rig.assert_no_violations();
    });
}
