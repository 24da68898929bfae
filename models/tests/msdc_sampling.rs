// SPDX-License-Identifier: GPL-2.0
//! The MSDC model's sample windows: above 52 MHz a response, read data or a write CRC
//! status sampled at a delay or edge outside the board's window is a CRC error (counted by
//! `sampling_errors`, not a violation), for the delays of the top window and of either pad
//! tune register, and the HS400 data strobe; at or below 52 MHz every delay works.

mod msdc_sampling_rig;

use models::msdc::regs::{
    ClockMode, EMMC50_CFG0, EMMC50_PAD_DS_TUNE, EMMC_TOP_CMD, EMMC_TOP_CONTROL, MSDC_CFG, MSDC_INT,
    MSDC_IOCON, MSDC_PATCH_BIT, MSDC_PATCH_BIT2, PAD_DS_TUNE, PAD_TUNE2_CELLS, PAD_TUNE_CELLS,
    TOP_BASE,
};
use models::msdc::{Fault, FaultScope, ModelConfig, PadTuneLayout, SamplePoint, SampleWindows};
use msdc_sampling_rig::{Rig, PATTERN};

/// The rising and falling windows a test board has, in that order.
fn windows(cmd: [u64; 2], data: [u64; 2], strobe: u32) -> SampleWindows {
    SampleWindows { cmd, data, strobe }
}

fn top_board(sampling: SampleWindows) -> Rig {
    Rig::new(ModelConfig {
        top_region: true,
        sampling,
        ..ModelConfig::default()
    })
}

fn pad_board(layout: PadTuneLayout, sampling: SampleWindows) -> Rig {
    Rig::new(ModelConfig {
        pad_tune: layout,
        sampling,
        ..ModelConfig::default()
    })
}

/// How the delays of a test are laid out: the top window, or a pad tune register.
#[derive(Clone, Copy, Debug)]
enum Delays {
    Top,
    Pad(PadTuneLayout),
}

impl Delays {
    fn board(self, sampling: SampleWindows) -> Rig {
        match self {
            Self::Top => top_board(sampling),
            Self::Pad(layout) => pad_board(layout, sampling),
        }
    }
}

/// Programs the response delay cells: `first` and `second` with their selects as `sel`
/// (the read data's fields of a shared register left alone).
fn set_cmd_cells(rig: &mut Rig, delays: Delays, first: u32, second: u32, sel: [bool; 2]) {
    match delays {
        Delays::Top => {
            let r = EMMC_TOP_CMD::zeroed()
                .try_with_pad_cmd_rxdly(first)
                .and_then(|r| r.try_with_pad_cmd_rxdly2(second))
                .unwrap()
                .with_pad_cmd_rd_rxdly_sel(sel[0])
                .with_pad_cmd_rd_rxdly2_sel(sel[1]);
            rig.write(TOP_BASE + EMMC_TOP_CMD::OFFSET, r.raw());
        }
        Delays::Pad(layout) => {
            let r1 = PAD_TUNE_CELLS::from_raw(rig.read(layout.offset()))
                .try_with_cmdrdly(first)
                .unwrap()
                .with_cmd_sel(sel[0]);
            let r2 = PAD_TUNE2_CELLS::from_raw(rig.read(layout.second_offset()))
                .try_with_cmdrdly2(second)
                .unwrap()
                .with_cmd2_sel(sel[1]);
            rig.write(layout.offset(), r1.raw());
            rig.write(layout.second_offset(), r2.raw());
        }
    }
}

/// Programs the read data delay cells, as [`set_cmd_cells`].
fn set_data_cells(rig: &mut Rig, delays: Delays, first: u32, second: u32, sel: [bool; 2]) {
    match delays {
        Delays::Top => {
            let r = EMMC_TOP_CONTROL::zeroed()
                .try_with_pad_dat_rd_rxdly(first)
                .and_then(|r| r.try_with_pad_dat_rd_rxdly2(second))
                .unwrap()
                .with_pad_dat_rd_rxdly_sel(sel[0])
                .with_pad_dat_rd_rxdly2_sel(sel[1]);
            rig.write(TOP_BASE + EMMC_TOP_CONTROL::OFFSET, r.raw());
        }
        Delays::Pad(layout) => {
            let r1 = PAD_TUNE_CELLS::from_raw(rig.read(layout.offset()))
                .try_with_datrrdly(first)
                .unwrap()
                .with_rd_sel(sel[0]);
            let r2 = PAD_TUNE2_CELLS::from_raw(rig.read(layout.second_offset()))
                .try_with_datrrdly2(second)
                .unwrap()
                .with_rd2_sel(sel[1]);
            rig.write(layout.offset(), r1.raw());
            rig.write(layout.second_offset(), r2.raw());
        }
    }
}

/// An effective delay of `d` cells (0..62): the first cell filled before the second.
fn split(d: u32) -> (u32, u32) {
    (d.min(31), d.saturating_sub(31))
}

/// Sets `MSDC_IOCON`'s response and data edges (true: falling).
fn set_edges(rig: &mut Rig, rspl: bool, dspl: bool, w_dspl: bool) {
    let iocon = MSDC_IOCON::zeroed()
        .with_rspl(rspl)
        .with_dspl(dspl)
        .with_w_dspl(w_dspl);
    rig.write(MSDC_IOCON::OFFSET, iocon.raw());
}

/// The effective delays 0..62 whose response samples right, found by sending CMD13 at each.
fn cmd_sweep(rig: &mut Rig, delays: Delays) -> u64 {
    let mut passed = 0u64;
    for d in 0..63 {
        let (a, b) = split(d);
        set_cmd_cells(rig, delays, a, b, [true, true]);
        let int = rig.command(13);
        assert!(
            int.cmdrdy() != int.rspcrcerr(),
            "one outcome at {d}: {int:?}"
        );
        if int.cmdrdy() {
            passed |= 1 << d;
        }
    }
    passed
}

/// The effective delays 0..62 whose read data samples right, found with CMD21.
fn data_sweep(rig: &mut Rig, delays: Delays) -> u64 {
    let mut passed = 0u64;
    for d in 0..63 {
        let (a, b) = split(d);
        set_data_cells(rig, delays, a, b, [true, true]);
        let int = rig.read_block(21, 128);
        assert!(int.cmdrdy(), "the response is fine at {d}");
        assert!(int.xfer_compl() != int.datcrcerr(), "one outcome at {d}");
        if int.xfer_compl() {
            passed |= 1 << d;
        }
    }
    passed
}

const LAYOUTS: [Delays; 3] = [
    Delays::Top,
    Delays::Pad(PadTuneLayout::PadTune),
    Delays::Pad(PadTuneLayout::PadTune0),
];

/// Every cell the sweeps reach (0..62).
const REACHABLE: u64 = (1 << 63) - 1;

#[test]
fn span_builds_wrapping_windows() {
    assert_eq!(SampleWindows::span(4, 3), 0b111 << 4);
    assert_eq!(SampleWindows::span(62, 4), 0b11 | (0b11 << 62));
    assert_eq!(SampleWindows::span(9, 64), u64::MAX);
    assert_eq!(SampleWindows::span(9, 0), 0);
    assert_eq!(SampleWindows::strobe_span(30, 4), 0b11 | (0b11 << 30));
    assert_eq!(SampleWindows::default(), SampleWindows::ALL);
    assert_eq!(PadTuneLayout::PadTune.second_offset(), 0xF0);
    assert_eq!(PadTuneLayout::PadTune0.second_offset(), 0xF4);
    assert_eq!(PadTuneLayout::default(), PadTuneLayout::PadTune0);
}

#[test]
fn at_or_below_52_mhz_every_delay_and_edge_works() {
    let none = windows([0; 2], [0; 2], 0);
    for delays in LAYOUTS {
        let mut rig = delays.board(none);
        // 200 MHz / (4 × 1): 50 MHz, high speed.
        rig.clock(ClockMode::Divided, 1, false);
        assert_eq!(rig.model.bus_clock_hz(), 50_000_000);
        for falling in [false, true] {
            set_edges(&mut rig, falling, falling, falling);
            for d in [0, 17, 40, 62] {
                let (a, b) = split(d);
                set_cmd_cells(&mut rig, delays, a, b, [true, true]);
                set_data_cells(&mut rig, delays, a, b, [true, true]);
                assert!(rig.command(13).cmdrdy());
                assert!(rig.read_block(17, 512).xfer_compl());
                assert!(rig.write_block().xfer_compl());
            }
        }
        // DDR52: 200 MHz / 4 in DDR mode.
        rig.clock(ClockMode::Ddr, 0, false);
        assert_eq!(rig.model.bus_clock_hz(), 50_000_000);
        assert!(rig.read_block(17, 512).xfer_compl());
        assert_eq!(rig.model.sampling_errors(), 0, "{delays:?}");
        assert_eq!(rig.model.violations().0, 0);
    }
}

#[test]
fn the_response_window_depends_on_the_edge_for_every_layout() {
    let rising = SampleWindows::span(10, 5);
    let falling = SampleWindows::span(40, 8);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([rising, falling], [u64::MAX; 2], 0));
        rig.hs200();
        set_edges(&mut rig, false, false, false);
        assert_eq!(cmd_sweep(&mut rig, delays), rising, "{delays:?} rising");
        set_edges(&mut rig, true, false, false);
        assert_eq!(cmd_sweep(&mut rig, delays), falling, "{delays:?} falling");
        // Every miss is one sampling error, none a violation; the card ran each command.
        let misses = 2 * 63 - 5 - 8;
        assert_eq!(rig.model.sampling_errors(), misses);
        assert_eq!(rig.model.violations().0, 0);
        assert_eq!(rig.card.commands.len(), 2 * 63);
    }
}

#[test]
fn a_window_shifted_at_run_time_fails_the_tuned_delay_until_retuned() {
    let before = SampleWindows::span(10, 8);
    let after = SampleWindows::span(30, 8);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([before; 2], [before; 2], 0));
        rig.hs200();
        set_edges(&mut rig, false, false, false);
        // Tuned to the middle of the window: everything passes.
        assert_eq!(cmd_sweep(&mut rig, delays), before, "{delays:?}");
        set_cmd_cells(&mut rig, delays, 14, 0, [true, false]);
        assert_eq!(data_sweep(&mut rig, delays), before, "{delays:?}");
        set_data_cells(&mut rig, delays, 14, 0, [true, false]);
        assert!(rig.command(13).cmdrdy());
        assert!(rig.read_block(21, 128).xfer_compl());
        let errors = rig.model.sampling_errors();
        // The board's timing drifts: the tuned delays now misread responses and data, and a
        // new tuning finds the shifted windows, whose middles work.
        rig.model.set_sampling(windows([after; 2], [after; 2], 0));
        assert!(rig.command(13).rspcrcerr(), "{delays:?}");
        assert_eq!(rig.model.sampling_errors(), errors + 1);
        assert_eq!(cmd_sweep(&mut rig, delays), after, "{delays:?}");
        set_cmd_cells(&mut rig, delays, 31, 3, [true, true]);
        let int = rig.read_block(21, 128);
        assert!(int.cmdrdy() && int.datcrcerr(), "{delays:?} {int:?}");
        assert_eq!(data_sweep(&mut rig, delays), after, "{delays:?}");
        set_data_cells(&mut rig, delays, 31, 3, [true, true]);
        assert!(rig.command(13).cmdrdy());
        assert!(rig.read_block(21, 128).xfer_compl());
        assert_eq!(rig.model.violations().0, 0);
    }
}

/// The board reports the tuning commands a driver sends, whichever driver it is: a sweep
/// of CMD21 counts each one, so does SD's CMD19, other commands (CMD13 here, a read's
/// CMD17) none.
#[test]
fn tuning_commands_count_the_tuning_blocks_only() {
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([u64::MAX; 2], [SampleWindows::span(20, 12); 2], 0));
        rig.hs200();
        assert_eq!(cmd_sweep(&mut rig, delays), (1u64 << 63) - 1, "{delays:?}");
        set_data_cells(&mut rig, delays, 26, 0, [true, false]);
        assert!(rig.read_block(17, 512).xfer_compl());
        assert_eq!(rig.model.tuning_commands(), 0, "{delays:?}");
        assert_eq!(data_sweep(&mut rig, delays), SampleWindows::span(20, 12));
        assert_eq!(rig.model.tuning_commands(), 63, "{delays:?}");
        // SD's CMD19, at a delay inside the window.
        set_data_cells(&mut rig, delays, 26, 0, [true, false]);
        assert!(rig.read_block(19, 64).xfer_compl());
        assert_eq!(rig.model.tuning_commands(), 64, "{delays:?}");
    }
}

#[test]
fn the_read_data_window_depends_on_the_edge_for_every_layout() {
    let rising = SampleWindows::span(20, 12);
    let falling = SampleWindows::span(33, 20);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([u64::MAX; 2], [rising, falling], 0));
        rig.hs200();
        assert_eq!(data_sweep(&mut rig, delays), rising, "{delays:?} rising");
        set_edges(&mut rig, false, true, false);
        assert_eq!(data_sweep(&mut rig, delays), falling, "{delays:?} falling");
        assert_eq!(rig.model.sampling_errors(), 2 * 63 - 12 - 20);
        assert_eq!(rig.model.violations().0, 0);
        // A misread block still landed in memory (the DMA moved it).
        assert!(rig.buffer(128).iter().all(|&b| b == PATTERN));
    }
}

#[test]
fn a_wrapping_window_passes_at_both_ends() {
    let window = SampleWindows::span(58, 10);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        // The sweeps reach 0..62: the window's cell 63 is never an effective delay.
        assert_eq!(
            cmd_sweep(&mut rig, delays),
            window & REACHABLE,
            "{delays:?}"
        );
        assert_eq!(
            data_sweep(&mut rig, delays),
            window & REACHABLE,
            "{delays:?}"
        );
    }
}

#[test]
fn a_one_cell_window_passes_at_that_cell_only() {
    let window = SampleWindows::span(45, 1);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        assert_eq!(cmd_sweep(&mut rig, delays), window, "{delays:?}");
        // The data sweep needs the responses read right.
        let (a, b) = split(45);
        set_cmd_cells(&mut rig, delays, a, b, [true, true]);
        assert_eq!(data_sweep(&mut rig, delays), window, "{delays:?}");
    }
}

#[test]
fn only_selected_cells_add_to_the_delay() {
    // A one-cell window at 40: reachable only with both cells (31 + 9).
    let window = SampleWindows::span(40, 1);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        set_cmd_cells(&mut rig, delays, 31, 9, [true, true]);
        set_data_cells(&mut rig, delays, 31, 9, [true, true]);
        assert!(rig.command(13).cmdrdy(), "{delays:?}");
        assert!(rig.read_block(21, 128).xfer_compl(), "{delays:?}");
        // A 32-cell setup (no second select): 31 at most, the second cell does not count.
        set_data_cells(&mut rig, delays, 31, 9, [true, false]);
        assert!(rig.read_block(21, 128).datcrcerr(), "{delays:?}");
        set_cmd_cells(&mut rig, delays, 31, 9, [true, false]);
        assert!(rig.command(13).rspcrcerr(), "{delays:?}");
        // The second cells alone count too (9 cells: outside).
        set_cmd_cells(&mut rig, delays, 31, 9, [false, true]);
        assert!(rig.command(13).rspcrcerr(), "{delays:?}");
        // The first cells of a board whose delay 0 works, bypassed: delay 0.
        let mut rig = delays.board(windows([1; 2], [1; 2], 0));
        rig.hs200();
        set_cmd_cells(&mut rig, delays, 20, 20, [false, false]);
        set_data_cells(&mut rig, delays, 20, 20, [false, false]);
        assert!(rig.command(13).cmdrdy(), "{delays:?}");
        assert!(rig.read_block(21, 128).xfer_compl(), "{delays:?}");
    }
}

#[test]
fn a_32_cell_sweep_on_a_64_cell_board() {
    // The eMMC tuning step of mtk-sd.c (32): the window lies in the first cells.
    let window = SampleWindows::span(3, 9);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        let mut passed = 0u64;
        for d in 0..32 {
            set_cmd_cells(&mut rig, delays, d, 0, [true, false]);
            if rig.command(13).cmdrdy() {
                passed |= 1 << d;
            }
        }
        assert_eq!(passed, window, "{delays:?}");
    }
}

#[test]
fn clock_tuning_selects_the_first_cells() {
    // SoCs without data_tune set RXDLYSEL (pad tune) or PAD_RXDLY_SEL (top) instead.
    let window = SampleWindows::span(12, 1);
    let mut rig = top_board(windows([window; 2], [window; 2], 0));
    rig.hs200();
    let ctl = EMMC_TOP_CONTROL::zeroed()
        .with_const_pad_dat_rd_rxdly::<12>()
        .with_pad_rxdly_sel(true);
    let cmd = EMMC_TOP_CMD::zeroed().with_const_pad_cmd_rxdly::<12>();
    rig.write(TOP_BASE + EMMC_TOP_CONTROL::OFFSET, ctl.raw());
    rig.write(TOP_BASE + EMMC_TOP_CMD::OFFSET, cmd.raw());
    assert!(rig.command(13).cmdrdy());
    assert!(rig.read_block(21, 128).xfer_compl());
    let layout = PadTuneLayout::PadTune;
    let mut rig = pad_board(layout, windows([window; 2], [window; 2], 0));
    rig.hs200();
    let tune = PAD_TUNE_CELLS::zeroed()
        .with_const_cmdrdly::<12>()
        .with_const_datrrdly::<12>()
        .with_rxdlysel(true);
    rig.write(layout.offset(), tune.raw());
    assert!(rig.command(13).cmdrdy());
    assert!(rig.read_block(21, 128).xfer_compl());
}

/// A misread response (RSPCRCERR) of a single-block read: the card ran the command and
/// sends its block anyway, and the controller's data path receives it. Upstream's tuning
/// relies on that: mtk-sd.c:1398-1406 does not reset the controller after a response CRC
/// error of CMD19/CMD21 (or during HS400 tuning) because "the tune data may have already
/// come", and msdc_cmd_next() then starts the DMA (msdc_start_data(), mtk-sd.c:1230-1243)
/// and waits for the data phase to end. A model that dropped the data phase left that DMA
/// waiting for ever, and upstream's 5 s request timeout ended every failing tuning point.
#[test]
fn a_misread_response_is_rspcrcerr_and_the_block_still_arrives() {
    let mut rig = top_board(windows([0; 2], [u64::MAX; 2], 0));
    rig.hs200();
    // Upstream's order: the command, then the DMA once the response came.
    let int = rig.data_command(21, 128, false);
    assert!(int.rspcrcerr() && !int.cmdrdy() && !int.xfer_compl() && !int.datcrcerr());
    assert_eq!(rig.card.commands, [21]);
    assert!(!rig.idle(), "the data phase waits for the DMA");
    rig.arm_dma(128);
    rig.run();
    let int = rig.take_int();
    assert!(int.xfer_compl() && !int.datcrcerr(), "{int:?}");
    assert_eq!(rig.card.read_left, 0, "the tuning block went out");
    assert!(rig.buffer(128).iter().all(|&b| b == PATTERN));
    assert!(rig.idle());
    assert_eq!(rig.model.sampling_errors(), 1);

    // The DMA armed first (the order of a driver that starts it with the command): the
    // same block arrives in the same run.
    let int = rig.read_block(21, 128);
    assert!(
        int.rspcrcerr() && int.xfer_compl() && !int.datcrcerr(),
        "{int:?}"
    );
    assert!(rig.idle());

    // A host that resets after the error abandons the data phase; the card still clocks
    // its block out, and the next tuning command finds it ready (SD's CMD19 too).
    let int = rig.data_command(21, 128, false);
    assert!(int.rspcrcerr());
    // msdc_reset_hw(): MSDC_CFG.RST, then read until it clears.
    rig.set_bits(MSDC_CFG::OFFSET, MSDC_CFG::zeroed().with_rst(true).raw());
    while MSDC_CFG::from_raw(rig.read(MSDC_CFG::OFFSET)).rst() {}
    assert!(rig.idle());
    let int = rig.read_block(19, 64);
    assert!(int.rspcrcerr() && int.xfer_compl());
    assert_eq!(rig.card.read_left, 0);
    assert_eq!(rig.card.commands, [21, 21, 21, 19]);
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn injected_crc_faults_are_not_sampling_errors() {
    let mut rig = top_board(SampleWindows::ALL);
    rig.hs200();
    rig.model.inject(models::msdc::Fault::DataCrc);
    assert!(rig.read_block(17, 512).datcrcerr());
    rig.model.inject(models::msdc::Fault::ResponseCrc);
    assert!(rig.command(13).rspcrcerr());
    assert_eq!(rig.model.sampling_errors(), 0);
}

#[test]
fn a_fault_aimed_at_block_transfers_waits_for_one_and_only_good_ones_count() {
    let mut rig = top_board(SampleWindows::ALL);
    rig.hs200();
    rig.model
        .inject_into(Fault::ReadDataCrc, FaultScope::BlockTransfer);
    // Tuning reads, status and the EXT_CSD read are not block transfers.
    assert!(rig.read_block(21, 128).xfer_compl());
    assert!(rig.read_block(8, 512).xfer_compl());
    assert!(rig.command(13).cmdrdy());
    assert_eq!(rig.model.pending_fault(), Some(Fault::ReadDataCrc));
    assert_eq!(rig.model.block_transfers(), 0);
    // A write is a block transfer, but not one the read fault applies to.
    assert!(rig.write_block().xfer_compl());
    assert_eq!(rig.model.block_transfers(), 1);
    assert!(rig.read_block(17, 512).datcrcerr());
    assert_eq!(rig.model.pending_fault(), None);
    assert_eq!(
        rig.model.block_transfers(),
        1,
        "the failed read does not count"
    );
    assert!(rig.read_block(17, 512).xfer_compl());
    assert_eq!(rig.model.block_transfers(), 2);
    // A command fault in that scope skips CMD13 and hits the next read.
    rig.model
        .inject_into(Fault::CommandTimeout, FaultScope::BlockTransfer);
    assert!(rig.command(13).cmdrdy());
    assert!(rig.read_block(17, 512).cmdtmo());
    assert_eq!(rig.model.block_transfers(), 2);
    // Unscoped, it takes the next command.
    rig.model.inject(Fault::CommandTimeout);
    assert!(rig.command(13).cmdtmo());
    assert_eq!(rig.model.violations().0, 0);
}

#[test]
fn write_crc_status_follows_w_dspl_and_the_data_reaches_the_card() {
    // Rising misses everything, falling catches everything.
    let mut rig = top_board(windows([u64::MAX; 2], [0, u64::MAX], 0));
    rig.hs200();
    set_edges(&mut rig, false, true, false);
    let int = rig.write_block();
    assert!(int.cmdrdy() && int.datcrcerr() && !int.xfer_compl());
    assert_eq!(rig.card.written.len(), 512, "the card took the block");
    set_edges(&mut rig, false, false, true);
    assert!(rig.write_block().xfer_compl());
    // Reads go by DSPL (now rising): misread.
    assert!(rig.read_block(17, 512).datcrcerr());
    assert_eq!(rig.model.sampling_errors(), 2);
}

#[test]
fn new_rx_socs_take_the_data_edges_from_the_patch_bits() {
    let mut rig = Rig::new(ModelConfig {
        top_region: true,
        new_rx: true,
        sampling: windows([u64::MAX; 2], [0, u64::MAX], 0),
        ..ModelConfig::default()
    });
    rig.hs200();
    // IOCON's data edges say falling, but count for nothing here.
    set_edges(&mut rig, false, true, true);
    assert!(rig.read_block(17, 512).datcrcerr());
    assert!(rig.write_block().datcrcerr());
    let rd = MSDC_PATCH_BIT::zeroed().with_rd_dat_sel(true);
    rig.set_bits(MSDC_PATCH_BIT::OFFSET, rd.raw());
    assert!(rig.read_block(17, 512).xfer_compl());
    assert!(rig.write_block().datcrcerr());
    let crc = MSDC_PATCH_BIT2::zeroed().with_cfgcrcstsedge(true);
    rig.set_bits(MSDC_PATCH_BIT2::OFFSET, crc.raw());
    assert!(rig.write_block().xfer_compl());
}

/// Sets the HS400 strobe's `DLY1` (with `DLY_SEL` as `sel`) in the layout of `top`.
fn set_strobe(rig: &mut Rig, top: bool, dly1: u32, sel: bool) {
    if top {
        let r = EMMC50_PAD_DS_TUNE::zeroed()
            .try_with_pad_ds_dly1(dly1)
            .unwrap()
            .with_pad_ds_dly_sel(sel);
        rig.write(TOP_BASE + EMMC50_PAD_DS_TUNE::OFFSET, r.raw());
    } else {
        let r = PAD_DS_TUNE::zeroed()
            .try_with_dly1(dly1)
            .unwrap()
            .with_dly_sel(sel);
        rig.write(PAD_DS_TUNE::OFFSET, r.raw());
    }
}

#[test]
fn hs400_reads_and_crc_status_go_by_the_strobe() {
    let strobe = SampleWindows::strobe_span(8, 6);
    for top in [true, false] {
        // The data window misses everything: in HS400 it does not count.
        let sampling = windows([u64::MAX; 2], [0; 2], strobe);
        let mut rig = if top {
            top_board(sampling)
        } else {
            pad_board(PadTuneLayout::PadTune0, sampling)
        };
        rig.hs400();
        let mut reads = 0u32;
        let mut writes = 0u32;
        for dly1 in 0..32 {
            set_strobe(&mut rig, top, dly1, true);
            if rig.read_block(17, 512).xfer_compl() {
                reads |= 1 << dly1;
            }
            if rig.write_block().xfer_compl() {
                writes |= 1 << dly1;
            }
        }
        assert_eq!(reads, strobe, "top {top}");
        assert_eq!(writes, strobe, "top {top}");
        // DLY_SEL clear: the cells are bypassed (setting 0, outside this window).
        set_strobe(&mut rig, top, 10, false);
        assert!(rig.read_block(17, 512).datcrcerr());
        assert_eq!(rig.model.sampling_errors(), 2 * (32 - 6) + 1);
    }
}

#[test]
fn hs400_responses_go_by_the_cmd_window_or_with_enhanced_strobe_by_the_strobe() {
    let strobe = SampleWindows::strobe_span(8, 6);
    let mut rig = top_board(windows([0; 2], [u64::MAX; 2], strobe));
    rig.hs400();
    set_strobe(&mut rig, true, 10, true);
    assert!(rig.command(13).rspcrcerr());
    let es = EMMC50_CFG0::zeroed()
        .with_padcmd_latchck(true)
        .with_cmd_resp_sel(true);
    rig.set_bits(EMMC50_CFG0::OFFSET, es.raw());
    assert!(rig.command(13).cmdrdy());
    set_strobe(&mut rig, true, 20, true);
    assert!(rig.command(13).rspcrcerr());
}

#[test]
fn sdr50_at_100_mhz_needs_the_windows() {
    let mut rig = top_board(windows([0; 2], [0; 2], 0));
    // 200 MHz / 2.
    rig.clock(ClockMode::Divided, 0, false);
    assert_eq!(rig.model.bus_clock_hz(), 100_000_000);
    let int: MSDC_INT = rig.command(13);
    assert!(int.rspcrcerr());
}

#[test]
fn a_misread_auto_cmd23_response_is_acmdcrcerr_and_stops_the_command() {
    use models::msdc::regs::{AutoCommand, DataType, ResponseType, SDC_BLK_NUM, SDC_CMD};
    let mut rig = top_board(windows([0; 2], [u64::MAX; 2], 0));
    rig.hs200();
    rig.write(SDC_BLK_NUM::OFFSET, 2);
    let word = SDC_CMD::zeroed()
        .with_const_opcode::<18>()
        .try_with_rsptyp(ResponseType::R1 as u32)
        .and_then(|c| c.try_with_autocmd(AutoCommand::Cmd23 as u32))
        .unwrap()
        .with_const_blklen::<512>()
        .with_dtype(DataType::Multiple);
    rig.write(SDC_CMD::OFFSET, word.raw());
    rig.run();
    let int = rig.take_int();
    assert!(int.acmdcrcerr() && !int.acmdrdy() && !int.cmdrdy());
    assert_eq!(
        rig.card.commands,
        [23],
        "the card ran CMD23; CMD18 was not sent"
    );
    assert_eq!(rig.model.sampling_errors(), 1);
    assert!(rig.idle());
}

#[test]
fn a_window_with_a_hole_passes_on_both_sides_of_it() {
    // A bad stretch of 5 cells (13..17) inside the board's window: the cells below and
    // above it sample right, the stretch does not, on the response and the data lines.
    let window = SampleWindows::span(6, 7) | SampleWindows::span(18, 22);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        assert_eq!(cmd_sweep(&mut rig, delays), window, "{delays:?}");
        let (a, b) = split(25);
        set_cmd_cells(&mut rig, delays, a, b, [true, true]);
        assert_eq!(data_sweep(&mut rig, delays), window, "{delays:?}");
    }
}

#[test]
fn a_hole_under_the_sample_point_leaves_a_short_run_below_and_a_wide_one_above() {
    // The board's SDR104 slot: rising 26..=39, tuned to the middle.
    let window = SampleWindows::span(26, 14);
    let (holed, hole) = SampleWindows::hole_under(window, 33).unwrap();
    assert_eq!(hole.below, (26, 27));
    assert_eq!(hole.stretch, (28, 33));
    assert_eq!(hole.above, (34, 39));
    assert_eq!(
        holed,
        SampleWindows::span(26, 2) | SampleWindows::span(34, 6)
    );
    // The run above must end up the wider, and the point must sample right.
    assert_eq!(SampleWindows::hole_under(window, 37), None);
    assert_eq!(SampleWindows::hole_under(window, 27), None);
    assert_eq!(SampleWindows::hole_under(window, 40), None);
    assert_eq!(SampleWindows::hole_under(window, 64), None);
    // Only the run around the point is cut: another run of the window stays whole.
    let two = SampleWindows::span(2, 4) | window;
    let (holed, _) = SampleWindows::hole_under(two, 30).unwrap();
    assert_eq!(holed & SampleWindows::span(2, 4), SampleWindows::span(2, 4));
    assert_eq!(
        holed & window,
        SampleWindows::span(26, 2) | SampleWindows::span(31, 9)
    );
}

#[test]
fn a_hole_across_the_other_edge_leaves_each_run_its_two_lowest_cells() {
    // The SDR104 slot's falling edge: 40..=45.
    assert_eq!(
        SampleWindows::hole_across(SampleWindows::span(40, 6)),
        SampleWindows::span(40, 2)
    );
    let runs = SampleWindows::span(0, 1) | SampleWindows::span(5, 2) | SampleWindows::span(50, 14);
    assert_eq!(
        SampleWindows::hole_across(runs),
        SampleWindows::span(0, 1) | SampleWindows::span(5, 2) | SampleWindows::span(50, 2)
    );
    assert_eq!(SampleWindows::hole_across(0), 0);
}

#[test]
fn sample_points_follow_the_delays_and_edges_above_52_mhz_only() {
    for delays in LAYOUTS {
        let window = SampleWindows::span(0, 63);
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        set_edges(&mut rig, true, false, false);
        let (a, b) = split(40);
        set_cmd_cells(&mut rig, delays, a, b, [true, true]);
        set_data_cells(&mut rig, delays, 12, 0, [true, false]);
        // At the identification clock the windows decide nothing.
        assert_eq!(rig.model.sample_points(), None, "{delays:?}");
        rig.hs200();
        let points = rig.model.sample_points().unwrap();
        assert_eq!(
            points.cmd,
            SamplePoint {
                falling: true,
                delay: 40
            },
            "{delays:?}"
        );
        assert_eq!(
            points.data,
            SamplePoint {
                falling: false,
                delay: 12
            },
            "{delays:?}"
        );
    }
}

#[test]
fn a_hole_punched_under_the_tuned_point_fails_it_and_the_run_above_passes() {
    let window = SampleWindows::span(26, 14);
    for delays in LAYOUTS {
        let mut rig = delays.board(windows([window; 2], [window; 2], 0));
        rig.hs200();
        set_edges(&mut rig, false, false, false);
        let (a, b) = split(33);
        set_cmd_cells(&mut rig, delays, a, b, [true, true]);
        set_data_cells(&mut rig, delays, a, b, [true, true]);
        assert!(rig.command(13).cmdrdy(), "{delays:?}");
        let points = rig.model.sample_points().unwrap();
        let (cmd, _) = SampleWindows::hole_under(window, points.cmd.delay).unwrap();
        let (data, _) = SampleWindows::hole_under(window, points.data.delay).unwrap();
        rig.model
            .set_sampling(windows([cmd, window], [data, window], 0));
        assert_eq!(rig.model.sampling().cmd[0], cmd);
        assert!(rig.command(13).rspcrcerr(), "{delays:?}");
        // Both sides of the hole still sample right; a re-tuning finds them.
        assert_eq!(cmd_sweep(&mut rig, delays), cmd, "{delays:?}");
        let (a, b) = split(36);
        set_cmd_cells(&mut rig, delays, a, b, [true, true]);
        assert!(rig.read_block(21, 128).datcrcerr(), "{delays:?}");
        assert_eq!(data_sweep(&mut rig, delays), data, "{delays:?}");
        set_data_cells(&mut rig, delays, a, b, [true, true]);
        assert!(rig.read_block(21, 128).xfer_compl(), "{delays:?}");
        assert_eq!(rig.model.violations().0, 0);
    }
}
