// SPDX-License-Identifier: GPL-2.0

//! Tuning (`msdc::tuning` through the controller) against the `models` model: the probe
//! sequences of each plan (tune-together, response then data with the internal delay,
//! HS400 command tuning, the HS400 strobe sweep), the registers they leave on SoCs with the
//! top region and with the pad tune register, the edge registers of the new receive path,
//! the tuned parameters after clock changes and after a power-off, and an SD card tuned at
//! SDR104 with real requests as the probes.
//!
//! The card models do not sample, so a fake card decides each probe: it passes when the
//! delay cell and edge programmed in the model's registers lie inside its window. The
//! registers are decoded here from mtk-sd.c's bit definitions, not by the code under test.

use mmc_request::Request;
use models::emmc::Card;
use models::msdc::regs::TOP_BASE;
use models::msdc::{CardSlot, Fault};
use models::sd::{SdCard, BLOCK_SIZE};
use msdc::clock::Timing;
use msdc::controller::{Controller, HostSetup};
use msdc::soc::{self, PadTuneRegister, SocData};
use msdc::tuning::{
    BoardTuning, SampleEdge, TunedPoint, TuningError, TuningKind, TuningProbe, TuningReport,
    TuningStep,
};

use crate::emmc::emmc_rig;
use crate::rig::{block_request, flags, modern_config, Host, Rig};
use crate::sd::{rca_arg, sd_init, sd_rig};

// mtk-sd.c offsets.
const MSDC_IOCON: usize = 0x04;
const MSDC_PATCH_BIT: usize = 0xB0;
const MSDC_PATCH_BIT1: usize = 0xB4;
const MSDC_PATCH_BIT2: usize = 0xB8;
const PAD_DS_TUNE: usize = 0x188;
const PAD_CMD_TUNE: usize = 0x18C;
const EMMC50_CFG0: usize = 0x208;
const EMMC50_CFG1: usize = 0x20C;
const EMMC50_CFG3: usize = 0x220;
const EMMC51_CFG0: usize = 0x204;
const EMMC_TOP_CONTROL: usize = TOP_BASE;
const EMMC_TOP_CMD: usize = TOP_BASE + 0x04;
const EMMC50_PAD_DS_TUNE: usize = TOP_BASE + 0x0C;
const LOOP_TEST_CONTROL: usize = TOP_BASE + 0x30;

/// `GENMASK(high, low)` field of `value`.
fn field(value: u32, high: u32, low: u32) -> u32 {
    (value >> low) & ((1 << (high - low + 1)) - 1)
}

fn bit(value: u32, n: u32) -> bool {
    value & (1 << n) != 0
}

/// The sample points the model's registers hold now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Programmed {
    command: u32,
    data: u32,
    command_falling: bool,
    data_falling: bool,
    internal: u32,
    hs400_command: u32,
    strobe: u32,
}

fn pad_tune(soc: &SocData) -> usize {
    match soc.pad_tune_reg {
        PadTuneRegister::PadTune => 0xEC,
        PadTuneRegister::PadTune0 => 0xF0,
    }
}

fn programmed<C: CardSlot>(rig: &Rig<C>) -> Programmed {
    let soc = rig.config.soc;
    let (command, data) = if soc.needs_top_base {
        // PAD_CMD_RXDLY 9:5, RXDLY2 4:0 (RXDLY2_SEL 10); PAD_DAT_RD_RXDLY 11:7, RXDLY2 6:2
        // (RXDLY2_SEL 12).
        let cmd = rig.peek(EMMC_TOP_CMD);
        let ctl = rig.peek(EMMC_TOP_CONTROL);
        let second_cmd = if bit(cmd, 10) { field(cmd, 4, 0) } else { 0 };
        let second_data = if bit(ctl, 12) { field(ctl, 6, 2) } else { 0 };
        (
            field(cmd, 9, 5) + second_cmd,
            field(ctl, 11, 7) + second_data,
        )
    } else {
        // CMDRDLY 20:16, DATRRDLY 12:8; at +4 CMDRDLY2 20:16 (CMD2_SEL 21), DATRRDLY2
        // 12:8 (RD2_SEL 13).
        let tune = rig.peek(pad_tune(soc));
        let tune2 = rig.peek(pad_tune(soc) + 4);
        let second_cmd = if bit(tune2, 21) {
            field(tune2, 20, 16)
        } else {
            0
        };
        let second_data = if bit(tune2, 13) {
            field(tune2, 12, 8)
        } else {
            0
        };
        (
            field(tune, 20, 16) + second_cmd,
            field(tune, 12, 8) + second_data,
        )
    };
    let iocon = rig.peek(MSDC_IOCON);
    // RSPL 1; DSPL 2 with W_DSPL 8, or RD_DAT_SEL 3 of PATCH_BIT with CFGCRCSTSEDGE 25 of
    // PATCH_BIT2 on the new receive path.
    let data_falling = if soc.support_new_rx {
        let (p0, p2) = (rig.peek(MSDC_PATCH_BIT), rig.peek(MSDC_PATCH_BIT2));
        assert_eq!(bit(p0, 3), bit(p2, 25), "both data edge bits move together");
        assert!(!bit(iocon, 2));
        bit(p0, 3)
    } else {
        assert_eq!(
            bit(iocon, 2),
            bit(iocon, 8),
            "DSPL and W_DSPL move together"
        );
        bit(iocon, 2)
    };
    let strobe = if soc.needs_top_base {
        field(rig.peek(EMMC50_PAD_DS_TUNE), 14, 10)
    } else {
        field(rig.peek(PAD_DS_TUNE), 6, 2)
    };
    Programmed {
        command,
        data,
        command_falling: bit(iocon, 1),
        data_falling,
        // CMDRRDLY 26:22.
        internal: field(rig.peek(pad_tune(soc)), 26, 22),
        // PAD_CMD_TUNE_RX_DLY3 5:1.
        hs400_command: field(rig.peek(PAD_CMD_TUNE), 5, 1),
        strobe,
    }
}

/// A passing window of cells `lo..=hi` (wrapping when `lo > hi`) on one edge.
#[derive(Clone, Copy, Debug)]
struct Window {
    lo: u32,
    hi: u32,
    falling: bool,
}

impl Window {
    const fn rising(lo: u32, hi: u32) -> Self {
        Self {
            lo,
            hi,
            falling: false,
        }
    }

    const fn falling(lo: u32, hi: u32) -> Self {
        Self {
            lo,
            hi,
            falling: true,
        }
    }

    fn contains(&self, cell: u32, falling: bool) -> bool {
        let inside = if self.lo <= self.hi {
            (self.lo..=self.hi).contains(&cell)
        } else {
            cell >= self.lo || cell <= self.hi
        };
        inside && falling == self.falling
    }
}

/// A card that answers each line correctly inside its windows.
#[derive(Clone, Debug, Default)]
struct FakeCard {
    command: Vec<Window>,
    data: Vec<Window>,
    /// Internal command delays that pass (all when empty).
    internal: Option<Window>,
    hs400_command: Vec<Window>,
    strobe: Option<Window>,
}

impl FakeCard {
    fn command_ok(&self, p: &Programmed) -> bool {
        let line = self
            .command
            .iter()
            .any(|w| w.contains(p.command, p.command_falling));
        let internal = self.internal.is_none_or(|w| w.contains(p.internal, false));
        line && internal
    }

    fn data_ok(&self, p: &Programmed) -> bool {
        self.data.iter().any(|w| w.contains(p.data, p.data_falling))
    }

    /// Whether `probe` passes with the registers as `rig` holds them.
    fn answers<C: CardSlot>(&self, rig: &Rig<C>, probe: TuningProbe) -> bool {
        let p = programmed(rig);
        match probe {
            TuningProbe::SendTuningResponse if !self.hs400_command.is_empty() => self
                .hs400_command
                .iter()
                .any(|w| w.contains(p.hs400_command, p.command_falling)),
            TuningProbe::SendTuningResponse => self.command_ok(&p),
            TuningProbe::SendTuning => self.command_ok(&p) && self.data_ok(&p),
            TuningProbe::ReadExtCsd => self.strobe.is_some_and(|w| w.contains(p.strobe, false)),
        }
    }
}

/// The glue's loop: probes until the state machine is done; returns the result and the
/// probes in order.
fn run_tuning<C: CardSlot>(
    ctrl: &mut Controller<u32>,
    rig: &Rig<C>,
    mut answer: impl FnMut(&Rig<C>, TuningProbe) -> bool,
) -> (Result<TuningReport, TuningError>, Vec<TuningProbe>) {
    let mut probes = Vec::new();
    while let Some(probe) = ctrl.next_tuning_probe(rig) {
        assert_eq!(
            ctrl.next_tuning_probe(rig),
            Some(probe),
            "asked again: the same"
        );
        probes.push(probe);
        assert!(probes.len() < 1000, "tuning does not end");
        let passed = answer(rig, probe);
        ctrl.record_tuning_probe(passed);
    }
    assert!(ctrl.is_tuning(), "finished only by finish_tuning");
    let result = ctrl.finish_tuning(rig);
    assert!(!ctrl.is_tuning());
    (result, probes)
}

fn tune<C: CardSlot>(
    ctrl: &mut Controller<u32>,
    rig: &Rig<C>,
    kind: TuningKind,
    card: &FakeCard,
) -> (Result<TuningReport, TuningError>, Vec<TuningProbe>) {
    ctrl.begin_tuning(rig, kind).expect("begin_tuning");
    run_tuning(ctrl, rig, |rig, probe| card.answers(rig, probe))
}

fn config(soc: &'static SocData, board: BoardTuning) -> HostSetup {
    HostSetup {
        soc,
        board,
        ..modern_config()
    }
}

/// An initialised controller on an empty slot of `config`'s SoC, at `hz` for `timing`.
fn bench(config: HostSetup) -> Rig<SdCard<'static>> {
    Rig::new(&config, SdCard::new(&mut [], Default::default()))
}

fn controller<C: CardSlot>(rig: &Rig<C>, hz: u32, timing: Timing) -> Controller<u32> {
    let mut ctrl = Controller::new(rig.config);
    ctrl.init_hardware(rig).unwrap();
    ctrl.set_clock(rig, hz, timing).unwrap();
    ctrl
}

fn point(edge: SampleEdge, start: u8, end: u8, chosen: u8) -> TunedPoint {
    TunedPoint {
        edge,
        window_start: start,
        window_end: end,
        chosen,
    }
}

fn count(probes: &[TuningProbe], kind: TuningProbe) -> usize {
    probes.iter().filter(|&&p| p == kind).count()
}

#[test]
fn together_on_the_top_region_stops_after_a_good_rising_window() {
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    let card = FakeCard {
        command: vec![Window::rising(10, 25)],
        data: vec![Window::rising(8, 27)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    // One sweep of 32 whole-transfer probes: 16 cells from 10 are good enough.
    assert_eq!(probes, vec![TuningProbe::SendTuning; 32]);
    assert_eq!(
        report,
        Ok(TuningReport {
            timing: Timing::MmcHs200,
            sample: point(SampleEdge::Rising, 10, 25, 18),
            response: None,
        })
    );
    let p = programmed(&rig);
    assert_eq!((p.command, p.data), (18, 18));
    assert!(!p.command_falling && !p.data_falling);
    // PAD_CMD_RD_RXDLY_SEL 11 and PAD_DAT_RD_RXDLY_SEL 13 stay selected, the enhanced
    // receive path (15) on, DATA_K_VALUE_SEL (14) clear; RXDLY 9:5 / 11:7 = 18.
    assert_eq!(rig.peek(EMMC_TOP_CMD), (1 << 11) | (18 << 5));
    assert_eq!(
        rig.peek(EMMC_TOP_CONTROL),
        (1 << 15) | (1 << 13) | (18 << 7)
    );
    // The pad tune register is not the delay line here.
    assert_eq!(rig.peek(0xF0), 0);
    rig.assert_no_violations();
}

#[test]
fn together_with_the_pad_tune_register_takes_the_falling_edge() {
    let rig = bench(config(&soc::MT2712, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    // Rising: 4 cells from 3 (not good enough); falling: 20 cells from 8.
    let card = FakeCard {
        command: vec![Window::rising(3, 6), Window::falling(8, 27)],
        data: vec![Window::rising(0, 31), Window::falling(0, 31)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    assert_eq!(probes.len(), 64, "both edges swept");
    assert_eq!(
        report.unwrap().sample,
        point(SampleEdge::Falling, 8, 27, 18)
    );
    let p = programmed(&rig);
    assert_eq!((p.command, p.data), (18, 18));
    assert!(p.command_falling && p.data_falling);
    // MSDC_PAD_TUNE0: RD_SEL 13, CMD_SEL 21, DATRRDLY 12:8, CMDRDLY 20:16.
    assert_eq!(
        rig.peek(0xF0),
        (1 << 13) | (1 << 21) | (18 << 8) | (18 << 16)
    );
    // RSPL 1, DSPL 2, W_DSPL 8.
    assert_eq!(rig.peek(MSDC_IOCON), (1 << 1) | (1 << 2) | (1 << 8));
    rig.assert_no_violations();
}

#[test]
fn a_window_across_the_top_of_a_64_cell_sweep() {
    let board = BoardTuning {
        tuning_step: TuningStep::Cells64,
        ..BoardTuning::defaults(true)
    };
    let rig = bench(config(&soc::MT8183, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    // Both *2_SEL bits selected at initialisation: RXDLY2_SEL 10 and 12.
    assert_eq!(rig.peek(EMMC_TOP_CMD), (1 << 11) | (1 << 10));
    assert_eq!(
        rig.peek(EMMC_TOP_CONTROL),
        (1 << 15) | (1 << 13) | (1 << 12)
    );
    // Delays 50 to 62 and 0 to 5. Above cell 31 the first delay stays at 31 and the second
    // takes the cell minus 32 (upstream's encoding: cells 31 and 32 are both delay 31), so
    // delays 50..=62 are cells 51..=63.
    let card = FakeCard {
        command: vec![Window::rising(50, 5)],
        data: vec![Window::rising(0, 63)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    assert_eq!(probes.len(), 64);
    // 19 cells from 51 through 63 and 0 to 5: halfway is (51 + 9) % 64.
    assert_eq!(report.unwrap().sample, point(SampleEdge::Rising, 51, 5, 60));
    // Cell 60: the first delay at 31, the second at 28.
    let cmd = rig.peek(EMMC_TOP_CMD);
    assert_eq!((field(cmd, 9, 5), field(cmd, 4, 0)), (31, 28));
    let ctl = rig.peek(EMMC_TOP_CONTROL);
    assert_eq!((field(ctl, 11, 7), field(ctl, 6, 2)), (31, 28));
    rig.assert_no_violations();
}

#[test]
fn the_data_delay_below_32_leaves_the_second_delay_at_zero() {
    let board = BoardTuning {
        tuning_step: TuningStep::Cells64,
        ..BoardTuning::defaults(true)
    };
    let rig = bench(config(&soc::MT8183, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    let card = FakeCard {
        command: vec![Window::rising(0, 63)],
        data: vec![Window::rising(4, 20)],
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    assert_eq!(report.unwrap().sample.chosen, 12);
    let ctl = rig.peek(EMMC_TOP_CONTROL);
    assert_eq!((field(ctl, 11, 7), field(ctl, 6, 2)), (12, 0));
    assert_eq!(programmed(&rig).data, 12);
}

#[test]
fn response_then_internal_then_data_without_the_async_fifo() {
    let rig = bench(config(&soc::MT8173, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    let card = FakeCard {
        command: vec![Window::rising(5, 20)],
        data: vec![Window::rising(2, 30)],
        internal: Some(Window::rising(0, 20)),
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    // Response: three tries at each of the 16 passing cells, one at the 16 failing ones;
    // the internal delay: 32 single tries; data: 32.
    let responses = count(&probes, TuningProbe::SendTuningResponse);
    assert_eq!(responses, 16 * 3 + 16 + 32);
    assert_eq!(count(&probes, TuningProbe::SendTuning), 32);
    assert_eq!(
        probes[..responses],
        vec![TuningProbe::SendTuningResponse; responses][..],
        "the response first"
    );
    assert_eq!(
        report,
        Ok(TuningReport {
            timing: Timing::UhsSdr104,
            sample: point(SampleEdge::Rising, 2, 30, 16),
            response: Some(point(SampleEdge::Rising, 5, 20, 13)),
        })
    );
    let p = programmed(&rig);
    // The internal window 0..=20 starts at 0: a third of 21 in.
    assert_eq!((p.command, p.internal, p.data), (13, 7, 16));
    // MSDC_PAD_TUNE at 0xEC: RXDLYSEL 15 (clock tuning, no data_tune) kept.
    assert!(bit(rig.peek(0xEC), 15));
    assert_eq!(rig.peek(0xF0), 0, "32-cell step: the second line untouched");
    rig.assert_no_violations();
}

#[test]
fn a_flaky_response_cell_needs_three_passes() {
    // A board internal delay: no internal sweep, every response probe is the command's.
    let board = BoardTuning {
        hs200_cmd_int_delay: 1,
        ..BoardTuning::defaults(false)
    };
    let rig = bench(config(&soc::MT8173, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    ctrl.begin_tuning(&rig, TuningKind::Hs200).unwrap();
    let mut tries_at = [0u32; 32];
    let (report, _) = run_tuning(&mut ctrl, &rig, |rig, probe| {
        let p = programmed(rig);
        if probe == TuningProbe::SendTuning {
            return true;
        }
        if p.command_falling {
            return false;
        }
        let cell = p.command as usize;
        tries_at[cell] += 1;
        // Cells 10..=20 pass, but 15 fails its third try.
        (10..=20).contains(&cell) && !(cell == 15 && tries_at[cell] == 3)
    });
    assert_eq!(tries_at[15], 3);
    assert_eq!(tries_at[14], 3);
    assert_eq!(tries_at[9], 1, "a failure moves on at once");
    // 10..=14 and 16..=20 tie; the lower start wins (the falling edge never passes).
    assert_eq!(
        report.unwrap().response,
        Some(point(SampleEdge::Rising, 10, 14, 12))
    );
    assert_eq!(programmed(&rig).internal, 1);
}

#[test]
fn the_board_internal_delay_replaces_the_sweep_at_200_mhz() {
    let board = BoardTuning {
        hs200_cmd_int_delay: 9,
        ..BoardTuning::defaults(false)
    };
    let rig = bench(config(&soc::MT8173, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    let card = FakeCard {
        command: vec![Window::rising(0, 31)],
        data: vec![Window::rising(0, 31)],
        internal: Some(Window::rising(9, 9)),
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(count(&probes, TuningProbe::SendTuningResponse), 32 * 3);
    assert_eq!(count(&probes, TuningProbe::SendTuning), 32);
    assert!(report.is_ok());
    assert_eq!(programmed(&rig).internal, 9);
}

#[test]
fn hs400_command_tuning_on_mt8173() {
    let board = BoardTuning {
        hs400_cmd_int_delay: 6,
        ..BoardTuning::defaults(false)
    };
    let rig = bench(config(&soc::MT8173, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    ctrl.prepare_hs400_tuning(&rig).unwrap();
    assert!(ctrl.hs400_target());
    // CFGCRCSTS 28 cleared, OUTS_WR 4:0 = 2.
    assert!(!bit(rig.peek(MSDC_PATCH_BIT2), 28));
    assert_eq!(field(rig.peek(EMMC50_CFG3), 4, 0), 2);
    let card = FakeCard {
        hs400_command: vec![Window::falling(4, 20)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(probes, vec![TuningProbe::SendTuningResponse; 17 * 3 + 15]);
    assert_eq!(
        report,
        Ok(TuningReport {
            timing: Timing::MmcHs200,
            sample: point(SampleEdge::Falling, 4, 20, 12),
            response: None,
        })
    );
    // PAD_CMD_TUNE: bit 0 selects the eMMC 5.0 pad, RX_DLY3 5:1 = 12; CMDTA 5:3 = 2;
    // RSPL set (no hs400-cmd-resp-sel-rising).
    assert_eq!(rig.peek(PAD_CMD_TUNE), 1 | (12 << 1));
    assert_eq!(field(rig.peek(MSDC_PATCH_BIT1), 5, 3), 2);
    assert!(programmed(&rig).command_falling);

    // In HS400 the board's internal command delay applies: CMDRRDLY 26:22 = 6.
    ctrl.set_clock(&rig, 50_000_000, Timing::MmcHighSpeed)
        .unwrap();
    ctrl.set_clock(&rig, 200_000_000, Timing::MmcHs400).unwrap();
    assert_eq!(programmed(&rig).internal, 6);
    assert_eq!(
        rig.peek(PAD_CMD_TUNE),
        1 | (12 << 1),
        "tuned PAD_CMD_TUNE back"
    );
    rig.assert_no_violations();
}

#[test]
fn before_hs400_the_data_line_goes_to_the_strobe() {
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    ctrl.prepare_hs400_tuning(&rig).unwrap();
    let card = FakeCard {
        command: vec![Window::falling(2, 22)],
        data: vec![Window::rising(0, 31), Window::falling(0, 31)],
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(report.unwrap().sample.chosen, 12);
    let p = programmed(&rig);
    assert_eq!((p.command, p.command_falling), (12, true));
    assert_eq!((p.data, p.data_falling), (0, false));

    // Back at the legacy timing (the card is initialised again) HS400 is forgotten.
    ctrl.set_clock(&rig, 400_000, Timing::Legacy).unwrap();
    assert!(!ctrl.hs400_target());
}

#[test]
fn response_only_before_hs400_without_data_tuning() {
    // MT8189: a top region but no data tuning: the response is swept, not the data.
    let rig = bench(config(&soc::MT8189, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    // Clock tuning selected: PAD_RXDLY_SEL 0, with SDC_RX_ENH_EN 15.
    assert_eq!(rig.peek(EMMC_TOP_CONTROL), (1 << 15) | 1);
    ctrl.prepare_hs400_tuning(&rig).unwrap();
    let card = FakeCard {
        command: vec![Window::rising(0, 15)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(probes, vec![TuningProbe::SendTuningResponse; 16 * 3 + 16]);
    // Async FIFO: no internal delay sweep. The only point is the response's.
    assert_eq!(
        report,
        Ok(TuningReport {
            timing: Timing::MmcHs200,
            sample: point(SampleEdge::Rising, 0, 15, 5),
            response: None,
        })
    );
    assert_eq!(programmed(&rig).command, 5);
    rig.assert_no_violations();
}

#[test]
fn the_new_receive_path_samples_data_with_the_patch_bits() {
    let rig = bench(config(&soc::MT8196, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    // The loop clock for SDR104: LOOP_EN_SEL_CLK 20.
    assert_eq!(rig.peek(LOOP_TEST_CONTROL), (1 << 20) | 0b11);
    let card = FakeCard {
        command: vec![Window::falling(0, 31)],
        data: vec![Window::falling(6, 28)],
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    assert_eq!(
        report.unwrap().sample,
        point(SampleEdge::Falling, 6, 28, 17)
    );
    assert!(bit(rig.peek(MSDC_PATCH_BIT), 3) && bit(rig.peek(MSDC_PATCH_BIT2), 25));
    assert_eq!(rig.peek(MSDC_IOCON), 1 << 1, "RSPL only");

    // At 50 MHz the default: rising edges again; back above 52 MHz the tuned ones.
    ctrl.set_clock(&rig, 50_000_000, Timing::SdHighSpeed)
        .unwrap();
    let p = programmed(&rig);
    assert!(!p.command_falling && !p.data_falling);
    assert_eq!((p.command, p.data), (0, 0));
    assert_eq!(
        rig.peek(LOOP_TEST_CONTROL),
        0b11,
        "no loop clock at high speed"
    );
    ctrl.set_clock(&rig, 200_000_000, Timing::UhsSdr104)
        .unwrap();
    let p = programmed(&rig);
    assert!(p.command_falling && p.data_falling);
    assert_eq!((p.command, p.data), (17, 17));
    rig.assert_no_violations();
}

#[test]
fn no_window_restores_the_delay_lines() {
    for soc in [&soc::MT8183, &soc::MT2712, &soc::MT8173] {
        let rig = bench(config(soc, BoardTuning::defaults(false)));
        let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
        let before = programmed(&rig);
        let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &FakeCard::default());
        assert_eq!(report, Err(TuningError::NoWindow), "{soc:?}");
        // Both edges tried; a failed response ends the tuning before the data.
        assert_eq!(probes.len(), 64, "{soc:?}");
        assert_eq!(programmed(&rig), before, "{soc:?}");
        rig.assert_no_violations();
    }
}

#[test]
fn an_unfinished_tuning_restores_the_delay_lines() {
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    let before = programmed(&rig);
    ctrl.begin_tuning(&rig, TuningKind::Hs200).unwrap();
    for _ in 0..5 {
        assert_eq!(ctrl.next_tuning_probe(&rig), Some(TuningProbe::SendTuning));
        ctrl.record_tuning_probe(true);
    }
    assert_eq!(programmed(&rig).command, 4);
    assert_eq!(ctrl.finish_tuning(&rig), Err(TuningError::Incomplete));
    assert_eq!(programmed(&rig), before);
    assert_eq!(ctrl.finish_tuning(&rig), Err(TuningError::NotTuning));
    assert_eq!(ctrl.next_tuning_probe(&rig), None);

    // abort_tuning does the same.
    ctrl.begin_tuning(&rig, TuningKind::Hs200).unwrap();
    ctrl.next_tuning_probe(&rig);
    ctrl.record_tuning_probe(true);
    ctrl.next_tuning_probe(&rig);
    ctrl.abort_tuning(&rig);
    assert!(!ctrl.is_tuning());
    assert_eq!(programmed(&rig), before);
}

#[test]
fn board_values_wider_than_their_fields_are_refused() {
    let board = BoardTuning {
        latch_ck: 8,
        ..BoardTuning::defaults(false)
    };
    let rig = bench(config(&soc::MT8183, board));
    let mut ctrl = Controller::<u32>::new(rig.config);
    assert!(matches!(
        ctrl.init_hardware(&rig),
        Err(msdc::controller::HwError::BoardValue(_))
    ));
    assert!(matches!(
        ctrl.begin_tuning(&rig, TuningKind::Hs200),
        Err(TuningError::BoardValue(_))
    ));
}

#[test]
fn the_strobe_sweep_reads_ext_csd() {
    for soc in [&soc::MT8183, &soc::MT8173] {
        let board = BoardTuning {
            hs400_ds_dly3: 5,
            ..BoardTuning::defaults(false)
        };
        let rig = bench(config(soc, board));
        let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs400);
        ctrl.prepare_hs400_tuning(&rig).unwrap();
        ctrl.begin_hs400_tuning(&rig).unwrap();
        let card = FakeCard {
            strobe: Some(Window::rising(7, 18)),
            ..FakeCard::default()
        };
        let (report, probes) = run_tuning(&mut ctrl, &rig, |rig, p| card.answers(rig, p));
        assert_eq!(probes, vec![TuningProbe::ReadExtCsd; 32]);
        assert_eq!(
            report,
            Ok(TuningReport {
                timing: Timing::MmcHs400,
                sample: point(SampleEdge::Rising, 7, 18, 13),
                response: None,
            })
        );
        // Top: DLY_SEL 16, DLY2_SEL 15 clear, DLY1 14:10, DLY3 4:0. Base: DLY_SEL 0,
        // DLY2_SEL 1 clear, DLY1 6:2, DLY3 16:12.
        if soc.needs_top_base {
            assert_eq!(rig.peek(EMMC50_PAD_DS_TUNE), (1 << 16) | (13 << 10) | 5);
        } else {
            assert_eq!(rig.peek(PAD_DS_TUNE), 1 | (13 << 2) | (5 << 12));
        }
        rig.assert_no_violations();
    }
}

#[test]
fn a_failed_strobe_sweep_keeps_the_board_delay() {
    let board = BoardTuning {
        hs400_ds_delay: (1 << 16) | (9 << 10) | 3,
        ..BoardTuning::defaults(false)
    };
    let rig = bench(config(&soc::MT8183, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs400);
    ctrl.prepare_hs400_tuning(&rig).unwrap();
    assert_eq!(rig.peek(EMMC50_PAD_DS_TUNE), (1 << 16) | (9 << 10) | 3);
    ctrl.begin_hs400_tuning(&rig).unwrap();
    let (report, _) = run_tuning(&mut ctrl, &rig, |_, _| false);
    assert_eq!(report, Err(TuningError::NoWindow));
    assert_eq!(field(rig.peek(EMMC50_PAD_DS_TUNE), 14, 10), 9);
}

#[test]
fn enhanced_strobe_on_and_off() {
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs400);
    rig.cqhci_setting.set((1 << 14) | (1 << 15));
    ctrl.set_hs400_enhanced_strobe(&rig, true).unwrap();
    assert!(ctrl.hs400_target());
    // PADCMD_LATCHCK 0 and CMD_RESP_SEL 9 (with CFCSTS_SEL 4 from init); DS_CFG 28;
    // RD/WR_CMD_WND_SEL 14/15 clear; CMDQ_RDAT_CNT 21:12 = 0.
    assert_eq!(rig.peek(EMMC50_CFG0), 1 | (1 << 4) | (1 << 9));
    assert_eq!(rig.peek(EMMC50_CFG1), 1 << 28);
    assert_eq!(rig.cqhci_setting.get(), 0);
    assert_eq!(field(rig.peek(EMMC51_CFG0), 21, 12), 0);

    // Kept across a power-off.
    ctrl.suspend(&rig).unwrap();
    rig.model().power_off();
    rig.model().power_on();
    ctrl.resume(&rig).unwrap();
    assert_eq!(rig.peek(EMMC50_CFG1), 1 << 28);

    ctrl.set_hs400_enhanced_strobe(&rig, false).unwrap();
    assert_eq!(rig.peek(EMMC50_CFG0), 1 << 4);
    assert_eq!(rig.peek(EMMC50_CFG1), 0);
    assert_eq!(rig.cqhci_setting.get(), (1 << 14) | (1 << 15));
    assert_eq!(field(rig.peek(EMMC51_CFG0), 21, 12), 0xB4);
    rig.assert_no_violations();
}

/// The tuned parameters of each kind of SoC after clock changes and after a power-off.
#[test]
fn tuned_parameters_survive_clock_changes_and_a_power_off() {
    for soc in [&soc::MT8183, &soc::MT2712, &soc::MT8173, &soc::MT8196] {
        let rig = bench(config(soc, BoardTuning::defaults(false)));
        let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
        let defaults = programmed(&rig);
        let card = FakeCard {
            command: vec![Window::falling(3, 25)],
            data: vec![Window::falling(3, 25)],
            internal: Some(Window::rising(0, 31)),
            ..FakeCard::default()
        };
        let (report, _) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
        assert!(report.is_ok(), "{soc:?}");
        let tuned = programmed(&rig);
        assert_eq!((tuned.command, tuned.data), (14, 14), "{soc:?}");
        let loop_control = soc.support_new_tx.then(|| rig.peek(LOOP_TEST_CONTROL));

        ctrl.set_clock(&rig, 50_000_000, Timing::SdHighSpeed)
            .unwrap();
        assert_eq!(programmed(&rig), defaults, "{soc:?} at 50 MHz");
        ctrl.set_clock(&rig, 200_000_000, Timing::UhsSdr104)
            .unwrap();
        assert_eq!(programmed(&rig), tuned, "{soc:?} at 200 MHz");

        ctrl.suspend(&rig).unwrap();
        rig.model().power_off();
        rig.model().power_on();
        assert_eq!(rig.peek(MSDC_IOCON), 0);
        ctrl.resume(&rig).unwrap();
        assert_eq!(programmed(&rig), tuned, "{soc:?} after a power-off");
        if let Some(value) = loop_control {
            assert_eq!(rig.peek(LOOP_TEST_CONTROL), value);
            // The new paths' enables went 0 to 1 again.
            assert_eq!(rig.peek(0x68), 1);
            assert!(bit(rig.peek(0x64), 31));
        }
        // A re-initialisation goes back to the defaults.
        ctrl.init_hardware(&rig).unwrap();
        ctrl.set_clock(&rig, 200_000_000, Timing::UhsSdr104)
            .unwrap();
        assert_eq!(programmed(&rig), defaults, "{soc:?} after init");
        rig.assert_no_violations();
    }
}

#[test]
fn a_64_cell_step_survives_a_power_off_on_the_pad_tune_register() {
    let board = BoardTuning {
        tuning_step: TuningStep::Cells64,
        ..BoardTuning::defaults(true)
    };
    let rig = bench(config(&soc::MT2712, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    let card = FakeCard {
        command: vec![Window::rising(30, 60)],
        data: vec![Window::rising(30, 60)],
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    // Delays 30..=60 are cells 30..=61 (cells 31 and 32 are both delay 31).
    assert_eq!(
        report.unwrap().sample,
        point(SampleEdge::Rising, 30, 61, 46)
    );
    // MSDC_PAD_TUNE1 at 0xF4: RD2_SEL 13, CMD2_SEL 21, the second delays at 46 - 32.
    assert_eq!(
        rig.peek(0xF4),
        (1 << 13) | (1 << 21) | (14 << 8) | (14 << 16)
    );
    let tuned = programmed(&rig);
    assert_eq!((tuned.command, tuned.data), (45, 45));
    ctrl.suspend(&rig).unwrap();
    rig.model().power_off();
    rig.model().power_on();
    ctrl.resume(&rig).unwrap();
    assert_eq!(programmed(&rig), tuned);
    rig.assert_no_violations();
}

/// The glue's probe as a real request: the SD card's status for a response probe, a block
/// read for a whole one; a fault the fake card calls for is injected into the model, so
/// the controller sees the failure (and resets) as it would on hardware.
fn probe_request(host: &mut Host<'_, SdCard<'_>>, card: &FakeCard, probe: TuningProbe) -> bool {
    let rig = host.rig;
    let passes = card.answers(rig, probe);
    match probe {
        TuningProbe::SendTuningResponse => {
            if !passes {
                rig.model().inject(Fault::ResponseCrc);
            }
            host.command(13, rca_arg(), flags::R1 | flags::AC)
                .error
                .is_none()
        }
        TuningProbe::SendTuning => {
            if !passes {
                rig.misbehave
                    .fault_on_data_command
                    .set(Some(Fault::DataCrc));
            }
            let result = host.run(&block_request(false, 0, 1, false), &[(0, 512)]);
            result.first_error().is_none()
        }
        TuningProbe::ReadExtCsd => unreachable!("no strobe sweep for SD"),
    }
}

#[test]
fn an_sd_card_tuned_at_sdr104_with_requests_as_probes() {
    for soc in [&soc::MT8183, &soc::MT8173] {
        let mut storage = vec![0x5Au8; 16 * BLOCK_SIZE];
        let config = HostSetup {
            soc,
            ..modern_config()
        };
        let rig = sd_rig(&config, &mut storage);
        let mut host = Host::new(&rig);
        sd_init(&mut host, true);
        assert_eq!(host.ctrl().bus_clock_hz(), 200_000_000);
        let card = FakeCard {
            command: vec![Window::rising(6, 26)],
            data: vec![Window::rising(9, 29)],
            internal: Some(Window::rising(0, 31)),
            ..FakeCard::default()
        };
        host.ctrl()
            .begin_tuning(&rig, TuningKind::Sdr104)
            .expect("begin_tuning");
        let mut probes = 0;
        loop {
            let Some(probe) = host.ctrl().next_tuning_probe(&rig) else {
                break;
            };
            probes += 1;
            let passed = probe_request(&mut host, &card, probe);
            host.ctrl().record_tuning_probe(passed);
        }
        assert!(probes >= 32);
        let report = host.ctrl().finish_tuning(&rig).expect("tuned");
        // Together (MT8183): cmd and data pass in 9..=26; separately (MT8173): data alone.
        let expected = if soc.data_tune {
            point(SampleEdge::Rising, 9, 26, 18)
        } else {
            point(SampleEdge::Rising, 9, 29, 19)
        };
        assert_eq!(report.sample, expected, "{soc:?}");
        // The card works at the chosen point, and after a power-off.
        assert_eq!(
            host.run(&block_request(false, 2, 2, true), &[(0, 1024)])
                .first_error(),
            None
        );
        host.ctrl().suspend(&rig).unwrap();
        rig.model().power_off();
        rig.model().power_on();
        host.ctrl().resume(&rig).unwrap();
        assert!(card.answers(&rig, TuningProbe::SendTuning));
        assert_eq!(
            host.command(13, rca_arg(), flags::R1 | flags::AC).error,
            None
        );
        rig.assert_no_violations();
    }
}

#[test]
fn tuning_is_refused_while_a_request_is_in_flight_or_suspended() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let rig = emmc_rig(&modern_config(), &mut storage);
    let mut host = crate::emmc::emmc_host(&rig);
    let req: Request = block_request(false, 0, 1, false);
    host.start(&req, &[(0, 512)]).unwrap();
    assert_eq!(
        host.ctrl().begin_tuning(&rig, TuningKind::Hs200),
        Err(TuningError::Busy)
    );
    host.wait().unwrap();
    host.ctrl().suspend(&rig).unwrap();
    assert_eq!(
        host.ctrl().begin_tuning(&rig, TuningKind::Hs200),
        Err(TuningError::Suspended)
    );
    host.ctrl().resume(&rig).unwrap();
    let _: &Rig<Card<'_>> = &rig;
}

/// A sampling window with a hole: the card answers the tuning block on both sides of a
/// bad stretch. The first run of passing cells is short, the one above the hole wide: the
/// sample point goes in the middle of the widest, not of the first, on the response and
/// on the data lines alike (upstream's `get_best_delay`).
#[test]
fn a_window_with_a_hole_takes_the_widest_run_not_the_first() {
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    // Cells 2..=9 pass, 10..=13 fail, 14..=31 pass: 8 cells, then 18.
    let card = FakeCard {
        command: vec![Window::rising(2, 9), Window::rising(14, 31)],
        data: vec![Window::rising(2, 9), Window::rising(14, 31)],
        ..FakeCard::default()
    };
    let (report, probes) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(probes, vec![TuningProbe::SendTuning; 32]);
    // 18 cells from 14, good enough on the rising edge: halfway is 14 + 9.
    assert_eq!(
        report.unwrap().sample,
        point(SampleEdge::Rising, 14, 31, 23)
    );
    let p = programmed(&rig);
    assert_eq!((p.command, p.data), (23, 23));
    assert!(!p.command_falling && !p.data_falling);
    rig.assert_no_violations();

    // The wide run below the hole this time, a short one above: the lower one wins.
    let rig = bench(config(&soc::MT8183, BoardTuning::defaults(false)));
    let mut ctrl = controller(&rig, 200_000_000, Timing::MmcHs200);
    let card = FakeCard {
        command: vec![Window::rising(1, 17), Window::rising(23, 28)],
        data: vec![Window::rising(1, 17), Window::rising(23, 28)],
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Hs200, &card);
    assert_eq!(report.unwrap().sample, point(SampleEdge::Rising, 1, 17, 9));
    rig.assert_no_violations();
}

/// The board's `sample_hole` fault on its SDR104 slot (64-cell sweep, rising window 26 to
/// 39, falling 40 to 45, tuned at 33): a hole from 28 to 33 on the rising edge, and across
/// the falling edge's run, which keeps its two lowest cells. The widest run of either
/// edge is the one above the hole: a sweep that took the first run of each edge would
/// find two cells on both, and sample next to the hole, rising at 26 or 27.
#[test]
fn the_boards_sdr104_hole_takes_the_run_above_it() {
    let board = BoardTuning {
        tuning_step: TuningStep::Cells64,
        ..BoardTuning::defaults(true)
    };
    let rig = bench(config(&soc::MT8183, board));
    let mut ctrl = controller(&rig, 200_000_000, Timing::UhsSdr104);
    let holed = || {
        vec![
            Window::rising(26, 27),
            Window::rising(34, 39),
            Window::falling(40, 41),
        ]
    };
    let card = FakeCard {
        command: holed(),
        data: holed(),
        ..FakeCard::default()
    };
    let (report, _) = tune(&mut ctrl, &rig, TuningKind::Sdr104, &card);
    assert_eq!(report.unwrap().sample.edge, SampleEdge::Rising);
    let p = programmed(&rig);
    assert!(!p.command_falling && !p.data_falling);
    assert!((34..=39).contains(&p.command), "{}", p.command);
    assert!((34..=39).contains(&p.data), "{}", p.data);
    rig.assert_no_violations();
}
