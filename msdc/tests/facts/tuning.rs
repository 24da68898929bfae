// SPDX-License-Identifier: GPL-2.0

//! The tuning window chooser (`best_delay`) against a brute-force oracle written from its
//! contract, exhaustively for narrow windows at every place and by property for any map;
//! the tuning step and board defaults against mtk-sd.c's; the timings a tuning is for.

use msdc::clock::Timing;
use msdc::soc;
use msdc::tuning::{
    best_delay, BoardTuning, DelayChoice, DelayWindow, TuningError, TuningKind, TuningStep,
};
use proptest::prelude::*;

fn cells(step: TuningStep) -> u32 {
    match step {
        TuningStep::Cells32 => 32,
        TuningStep::Cells64 => 64,
    }
}

fn passes(map: u64, n: u32, cell: u32) -> bool {
    map & (1 << (cell % n)) != 0
}

/// The contract, by brute force: every (start, len) whose cells all pass and which cannot
/// grow at either end (or covers everything); the longest, then the lowest start; chosen a
/// third in from cell 0, else halfway, modulo the step.
fn oracle(map: u64, step: TuningStep) -> Option<(u32, u32, u32)> {
    let n = cells(step);
    let mut best: Option<(u32, u32)> = None;
    for start in 0..n {
        for len in 1..=n {
            let all = (0..len).all(|i| passes(map, n, start + i));
            let maximal =
                len == n || (!passes(map, n, start + n - 1) && !passes(map, n, start + len));
            if all && maximal && best.is_none_or(|(_, l)| len > l) {
                best = Some((start, len));
            }
        }
    }
    let (start, len) = best?;
    let into = if start == 0 { len / 3 } else { len / 2 };
    Some((start, len, (start + into) % n))
}

fn check(map: u64, step: TuningStep) {
    let got = best_delay(map, step);
    match oracle(map, step) {
        None => assert_eq!(got, Err(TuningError::NoWindow), "{map:#x}"),
        Some((start, len, chosen)) => {
            let n = cells(step);
            let expected = DelayChoice {
                window: DelayWindow {
                    start: start as u8,
                    end: ((start + len - 1) % n) as u8,
                    len: len as u8,
                },
                chosen: chosen as u8,
            };
            assert_eq!(got, Ok(expected), "{map:#x} in {n} cells");
        }
    }
}

/// `len` passing cells from `start`, wrapping.
fn run(start: u32, len: u32, n: u32) -> u64 {
    (0..len).fold(0, |map, i| map | 1 << ((start + i) % n))
}

#[test]
fn an_empty_map_has_no_window() {
    for step in [TuningStep::Cells32, TuningStep::Cells64] {
        assert_eq!(best_delay(0, step), Err(TuningError::NoWindow));
    }
    // Bits above a 32-cell sweep are not cells of it.
    assert_eq!(
        best_delay(0xFFFF_FFFF_0000_0000, TuningStep::Cells32),
        Err(TuningError::NoWindow)
    );
}

#[test]
fn a_full_map_is_one_window_from_cell_0() {
    let full = best_delay(u32::MAX.into(), TuningStep::Cells32).unwrap();
    assert_eq!(
        full.window,
        DelayWindow {
            start: 0,
            end: 31,
            len: 32
        }
    );
    assert_eq!(full.chosen, 10, "a third of 32");
    let full = best_delay(u64::MAX, TuningStep::Cells64).unwrap();
    assert_eq!(
        full.window,
        DelayWindow {
            start: 0,
            end: 63,
            len: 64
        }
    );
    assert_eq!(full.chosen, 21);
}

#[test]
fn narrow_and_wrapping_windows_at_every_place() {
    for step in [TuningStep::Cells32, TuningStep::Cells64] {
        let n = cells(step);
        for len in 1..n {
            for start in 0..n {
                check(run(start, len, n), step);
            }
        }
    }
}

#[test]
fn narrow_windows_of_one_to_three_cells() {
    for len in 1..=3u8 {
        for start in 0..32u8 {
            let c = best_delay(run(start.into(), len.into(), 32), TuningStep::Cells32).unwrap();
            assert_eq!(c.window.len, len);
            assert_eq!(c.window.start, start);
            let into = if start == 0 { len / 3 } else { len / 2 };
            assert_eq!(c.chosen, (start + into) % 32);
        }
    }
}

#[test]
fn the_examples() {
    // At cell 0: a third in (the smallest safe delay).
    let c = best_delay(run(0, 12, 32), TuningStep::Cells32).unwrap();
    assert_eq!((c.window.start, c.window.end, c.chosen), (0, 11, 4));
    // Across the top: 30, 31, 0, 1, 2 is one window of 5 starting at 30.
    let c = best_delay(run(30, 5, 32), TuningStep::Cells32).unwrap();
    assert_eq!((c.window.start, c.window.end, c.window.len), (30, 2, 5));
    assert_eq!(c.chosen, 0, "(30 + 2) % 32");
    // Upstream's early stop would take 0..=11; the longer window wins here.
    let map = run(0, 12, 32) | run(14, 16, 32);
    let c = best_delay(map, TuningStep::Cells32).unwrap();
    assert_eq!((c.window.start, c.window.len, c.chosen), (14, 16, 22));
    // Equal windows: the lower start.
    let map = run(3, 5, 32) | run(20, 5, 32);
    assert_eq!(
        best_delay(map, TuningStep::Cells32).unwrap().window.start,
        3
    );
}

proptest! {
    #[test]
    fn any_32_cell_map(map in any::<u32>()) {
        check(map.into(), TuningStep::Cells32);
    }

    #[test]
    fn any_64_cell_map(map in any::<u64>()) {
        check(map, TuningStep::Cells64);
    }

    #[test]
    fn the_chosen_cell_passes_and_sits_in_the_window(map in any::<u64>()) {
        for step in [TuningStep::Cells32, TuningStep::Cells64] {
            let n = cells(step);
            if let Ok(c) = best_delay(map, step) {
                prop_assert!(passes(map, n, c.chosen.into()));
                let offset = (u32::from(c.chosen) + n - u32::from(c.window.start)) % n;
                prop_assert!(offset < u32::from(c.window.len));
            }
        }
    }
}

#[test]
fn the_tuning_step_as_upstream() {
    assert_eq!(TuningStep::from_dt(32), Some(TuningStep::Cells32));
    assert_eq!(TuningStep::from_dt(64), Some(TuningStep::Cells64));
    assert_eq!(TuningStep::from_dt(48), None);
    // PAD_DELAY_FULL for no-mmc slots, PAD_DELAY_HALF otherwise.
    assert_eq!(TuningStep::default_for_slot(true).cells(), 64);
    assert_eq!(TuningStep::default_for_slot(false).cells(), 32);
    let board = BoardTuning::defaults(true);
    assert_eq!(board.tuning_step, TuningStep::Cells64);
    assert_eq!(
        (board.latch_ck, board.hs400_ds_delay, board.hs400_ds_dly3),
        (0, 0, 0)
    );
    assert!(!board.hs400_cmd_resp_sel_rising);
    assert_eq!(board.check(), Ok(()));
    // INT_DAT_LATCH_CK_SEL is 3 bits, the delays 5.
    let too_wide = |b: BoardTuning| b.check().is_err();
    assert!(too_wide(BoardTuning {
        latch_ck: 8,
        ..board
    }));
    assert!(!too_wide(BoardTuning {
        latch_ck: 7,
        ..board
    }));
    assert!(too_wide(BoardTuning {
        hs400_ds_dly3: 32,
        ..board
    }));
    assert!(too_wide(BoardTuning {
        hs200_cmd_int_delay: 32,
        ..board
    }));
    assert!(too_wide(BoardTuning {
        hs400_cmd_int_delay: 32,
        ..board
    }));
}

#[test]
fn tuning_kinds_of_the_timings_the_core_tunes_in() {
    for (timing, kind) in [
        (Timing::MmcHs200, Some(TuningKind::Hs200)),
        (Timing::UhsSdr104, Some(TuningKind::Sdr104)),
        (Timing::UhsSdr50, Some(TuningKind::Sdr50)),
        (Timing::UhsDdr50, Some(TuningKind::Ddr50)),
        (Timing::MmcHs400, None),
        (Timing::MmcHighSpeed, None),
        (Timing::Legacy, None),
    ] {
        assert_eq!(TuningKind::for_timing(timing), kind, "{timing:?}");
        if let Some(kind) = kind {
            assert_eq!(kind.timing(), timing);
        }
    }
    for soc in [&soc::MT8173, &soc::MT8183, &soc::MT8196, &soc::MT7620] {
        let t = soc.tunable_timings();
        assert!(t.hs200 && t.hs400 && t.hs400_enhanced_strobe && t.sdr104 && t.sdr50 && t.ddr50);
    }
}

#[test]
fn the_edge_bits_and_the_second_delay_line() {
    use msdc::regs::{MSDC_IOCON, MSDC_PATCH_BIT0};
    use msdc::soc::PadTuneRegister;
    // MSDC_PATCH_BIT_RD_DAT_SEL BIT(3); MSDC_IOCON_DSPL BIT(2), W_DSPL BIT(8), RSPL BIT(1).
    assert_eq!(
        MSDC_PATCH_BIT0::zeroed().with_rd_dat_sel(true).raw(),
        1 << 3
    );
    assert_eq!(MSDC_IOCON::zeroed().with_dspl(true).raw(), 1 << 2);
    assert_eq!(MSDC_IOCON::zeroed().with_w_dspl(true).raw(), 1 << 8);
    assert_eq!(MSDC_IOCON::zeroed().with_rspl(true).raw(), 1 << 1);
    // TUNING_REG2_FIXED_OFFEST: 4 bytes after the pad tune register.
    assert_eq!(PadTuneRegister::PadTune.second_offset(), 0xF0);
    assert_eq!(PadTuneRegister::PadTune0.second_offset(), 0xF4);
}
