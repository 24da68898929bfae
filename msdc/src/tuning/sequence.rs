// SPDX-License-Identifier: GPL-2.0

//! The tuning sequence: the controller's [`Tuner`], which runs the SoC's plan sweep by
//! sweep, programs each sample point, counts the probes' results into the pass/fail map,
//! programs the chosen point, and keeps the default and tuned parameters.

use super::super::clock::Timing;
use super::super::regs::{
    MsdcBase, MsdcRegs, MsdcTop, CQHCI_SETTING, EMMC50_CFG0, EMMC50_CFG1, EMMC50_CFG3,
    EMMC50_PAD_DS_TUNE, EMMC51_CFG0, EMMC_TOP_CMD, EMMC_TOP_CONTROL, LOOP_TEST_CONTROL,
    MSDC_NEW_RX_CFG, MSDC_PAD_TUNE0, MSDC_PAD_TUNE1, MSDC_PATCH_BIT0, MSDC_PATCH_BIT1,
    MSDC_PATCH_BIT2, PAD_CMD_TUNE, PAD_DS_TUNE, SDC_ADV_CFG0,
};
use super::super::soc::SocData;
use super::delay_lines::{
    current_strobe_delay, read_pad_tune, read_pad_tune2, set_command_delay, set_command_edge,
    set_data_delay, set_data_edge, set_hs400_command_delay, set_internal_delay, set_strobe_delay,
    write_pad_tune, write_pad_tune2, TuneSnapshot,
};
use super::window::{best_delay, choose_edge, rising_good_enough, DelayChoice};
use super::{
    BoardTuning, SampleEdge, TunedPoint, TuningError, TuningKind, TuningProbe, TuningReport,
    TuningStep, TUNED_ABOVE_HZ,
};
use crate::registers::{FieldOverflow, Io};

/// Passes in a row a response sample point needs (upstream's three tries).
const RESPONSE_TRIES: u8 = 3;

/// `MSDC_PATCH_BIT1.CMDTA` for HS400 command tuning.
const HS400_COMMAND_TURNAROUND: u32 = 2;

/// `EMMC50_CFG3.OUTS_WR` in HS400: two outstanding writes, for read performance.
const HS400_OUTSTANDING_WRITES: u32 = 2;

/// `EMMC51_CFG0.CMDQ_RDAT_CNT` without enhanced strobe.
const CMDQ_READ_DATA_COUNT: u32 = 0xB4;

/// What a sweep programs at each cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The command delay (response tuning), both edges.
    Command,
    /// The data delay, both edges.
    Data,
    /// The command and data delays at once, both edges.
    Together,
    /// The internal command delay, edge as chosen.
    Internal,
    /// `PAD_CMD_TUNE.RX_DLY3` (HS400 command tuning), the board's edge.
    Hs400Command,
    /// The strobe's `DLY1` (HS400).
    Strobe,
}

impl Target {
    const fn two_edges(self) -> bool {
        matches!(self, Self::Command | Self::Data | Self::Together)
    }
}

/// One sweep over the cells of a [`Target`] on one edge.
#[derive(Clone, Copy, Debug)]
struct Sweep {
    target: Target,
    edge: SampleEdge,
    step: TuningStep,
    tries: u8,
    probe: TuningProbe,
    /// The cell being probed; the sweep is done at `step.cells()`.
    cell: u8,
    /// Passes in a row at `cell` so far.
    passes: u8,
    /// A probe was handed out and its result is awaited.
    outstanding: bool,
    /// Cells that passed.
    map: u64,
}

impl Sweep {
    fn new(target: Target, edge: SampleEdge, board: &BoardTuning) -> Self {
        let (step, tries, probe) = match target {
            Target::Command => (
                board.tuning_step,
                RESPONSE_TRIES,
                TuningProbe::SendTuningResponse,
            ),
            Target::Data | Target::Together => (board.tuning_step, 1, TuningProbe::SendTuning),
            Target::Internal => (TuningStep::Cells32, 1, TuningProbe::SendTuningResponse),
            Target::Hs400Command => (
                TuningStep::Cells32,
                RESPONSE_TRIES,
                TuningProbe::SendTuningResponse,
            ),
            Target::Strobe => (TuningStep::Cells32, 1, TuningProbe::ReadExtCsd),
        };
        Self {
            target,
            edge,
            step,
            tries,
            probe,
            cell: 0,
            passes: 0,
            outstanding: false,
            map: 0,
        }
    }

    const fn done(&self) -> bool {
        self.cell >= self.step.cells()
    }

    fn advance(&mut self, passed: bool) {
        if passed {
            self.map |= 1 << self.cell;
        }
        self.cell += 1;
        self.passes = 0;
        self.outstanding = false;
    }

    fn record(&mut self, passed: bool) {
        if !self.outstanding || self.done() {
            return;
        }
        if !passed {
            self.advance(false);
            return;
        }
        self.passes += 1;
        self.outstanding = false;
        if self.passes >= self.tries {
            self.advance(true);
        }
    }
}

/// Where a tuning session is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    Sweeping,
    Complete,
    Failed(TuningError),
}

/// Up to three targets one after the other (response, internal delay, data).
const MAX_TARGETS: usize = 3;

#[derive(Clone, Copy, Debug)]
struct Session {
    timing: Timing,
    kind: Option<TuningKind>,
    targets: [Option<Target>; MAX_TARGETS],
    index: usize,
    sweep: Sweep,
    /// The rising-edge result of a two-edge target whose falling edge is being swept.
    rising: Option<Result<DelayChoice, TuningError>>,
    /// The internal command delay before its sweep, kept if no cell passes.
    internal_before: u32,
    /// The strobe's `DLY1` before its sweep.
    strobe_before: u8,
    response: Option<TunedPoint>,
    sample: Option<TunedPoint>,
    progress: Progress,
    /// The delay lines before tuning began, restored if it fails.
    before: TuneSnapshot,
}

/// The tuning state of a controller: the board's values, the default and tuned parameters
/// and the session in progress. The controller owns one and calls it under its lock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuner {
    board: BoardTuning,
    default_tune: TuneSnapshot,
    tuned: TuneSnapshot,
    /// The MMC core prepared HS400 ([`Tuner::prepare_hs400`]).
    hs400_mode: bool,
    /// Enhanced strobe as last set, for resume to program again; `None` if never set.
    enhanced_strobe: Option<bool>,
    /// The timing `LOOP_TEST_CONTROL` was last programmed for (new transmit path).
    loop_timing: Option<Timing>,
    session: Option<Session>,
}

impl Tuner {
    pub(crate) const fn new(board: BoardTuning) -> Self {
        Self {
            board,
            default_tune: TuneSnapshot::ZERO,
            tuned: TuneSnapshot::ZERO,
            hs400_mode: false,
            enhanced_strobe: None,
            loop_timing: None,
            session: None,
        }
    }

    pub(crate) const fn board(&self) -> &BoardTuning {
        &self.board
    }

    pub(crate) const fn step(&self) -> TuningStep {
        self.board.tuning_step
    }

    pub(crate) const fn is_tuning(&self) -> bool {
        self.session.is_some()
    }

    pub(crate) const fn hs400_mode(&self) -> bool {
        self.hs400_mode
    }

    /// Initialisation, before anything else (`msdc_init_hw`): the new transmit and
    /// receive paths must see their enables go from 0 to 1; forgets the session, the
    /// HS400 target and the tuned parameters.
    pub(crate) fn enable_new_paths(&mut self, r: &impl MsdcRegs, soc: &SocData) {
        self.session = None;
        self.hs400_mode = false;
        self.loop_timing = None;
        toggle_new_paths(r, soc);
        self.program_loop(r, soc, Timing::Legacy);
    }

    /// Initialisation: the delay lines at zero (the top region's, or the pad tune
    /// register's and with a 64-cell step its second one's).
    pub(crate) fn clear_delay_lines(&self, r: &impl MsdcRegs, soc: &SocData) {
        if soc.needs_top_base {
            Io::<MsdcTop>::write(r, EMMC_TOP_CONTROL::zeroed());
            Io::<MsdcTop>::write(r, EMMC_TOP_CMD::zeroed());
        } else {
            write_pad_tune(r, soc, MSDC_PAD_TUNE0::zeroed());
            if self.step().uses_second_line() {
                write_pad_tune2(r, soc, MSDC_PAD_TUNE1::zeroed());
            }
        }
    }

    /// Initialisation: the enhanced receive path of a SoC with a top region.
    pub(crate) fn enable_top_rx_enhance(&self, r: &impl MsdcRegs) {
        Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| v.with_sdc_rx_enh_en(true));
    }

    /// Initialisation: which delay lines sample (data tuning: the command and data delays,
    /// and the second ones for a 64-cell step; else the clock delay), then the default
    /// parameters, which are also the tuned ones until a tuning succeeds.
    pub(crate) fn select_delay_lines(&mut self, r: &impl MsdcRegs, soc: &SocData) {
        let second = self.step().uses_second_line();
        match (soc.data_tune, soc.needs_top_base) {
            (true, true) => {
                Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| {
                    v.with_pad_dat_rd_rxdly_sel(true)
                        .with_data_k_value_sel(false)
                        .with_pad_dat_rd_rxdly2_sel(second || v.pad_dat_rd_rxdly2_sel())
                });
                Io::<MsdcTop>::update::<EMMC_TOP_CMD>(r, |v| {
                    v.with_pad_cmd_rd_rxdly_sel(true)
                        .with_pad_cmd_rd_rxdly2_sel(second || v.pad_cmd_rd_rxdly2_sel())
                });
            }
            (true, false) => {
                let tune = read_pad_tune(r, soc);
                write_pad_tune(r, soc, tune.with_rd_sel(true).with_cmd_sel(true));
                if second {
                    let tune2 = read_pad_tune2(r, soc);
                    write_pad_tune2(r, soc, tune2.with_rd2_sel(true).with_cmd2_sel(true));
                }
            }
            (false, true) => {
                Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| v.with_pad_rxdly_sel(true));
            }
            (false, false) => {
                let tune = read_pad_tune(r, soc);
                write_pad_tune(r, soc, tune.with_rxdlysel(true));
            }
        }
        self.default_tune = TuneSnapshot::read(r, soc, self.step());
        self.tuned = self.default_tune;
    }

    /// After a clock change to `bus_hz` for `timing` (`msdc_set_mclk`): the default
    /// parameters at or below 52 MHz (tuning at 200 MHz does not suit them), the tuned ones
    /// above; in HS400 on `hs400_tune` SoCs the board's internal command delay; and the
    /// new transmit path's loop clock for the timing.
    pub(crate) fn after_clock_change(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
        bus_hz: u32,
        timing: Timing,
    ) -> Result<(), FieldOverflow> {
        if bus_hz <= TUNED_ABOVE_HZ {
            self.default_tune.write(r, soc, self.step(), false);
        } else {
            self.tuned.write(r, soc, self.step(), true);
        }
        if timing == Timing::MmcHs400 && soc.hs400_tune {
            set_internal_delay(r, soc, self.board.hs400_cmd_int_delay)?;
        }
        self.program_loop(r, soc, timing);
        Ok(())
    }

    /// The MMC core asked for `timing`: back at the legacy timing the card is being
    /// initialised again, and the HS400 target is forgotten.
    pub(crate) fn timing_requested(&mut self, timing: Timing) {
        if timing == Timing::Legacy {
            self.hs400_mode = false;
        }
    }

    /// `LOOP_TEST_CONTROL` for `timing` on SoCs with the new transmit path
    /// (`msdc_new_tx_setting`), when it changed.
    fn program_loop(&mut self, r: &impl MsdcRegs, soc: &SocData, timing: Timing) {
        if !(soc.support_new_tx && soc.needs_top_base) || self.loop_timing == Some(timing) {
            return;
        }
        let loop_clock = matches!(
            timing,
            Timing::UhsSdr50 | Timing::UhsSdr104 | Timing::MmcHs200 | Timing::MmcHs400
        );
        Io::<MsdcTop>::update::<LOOP_TEST_CONTROL>(r, |v| {
            v.with_test_loop_dsclk_mux_sel(true)
                .with_test_loop_latch_mux_sel(true)
                .with_test_hs400_cmd_loop_mux_sel(false)
                .with_loop_en_sel_clk(loop_clock)
        });
        self.loop_timing = Some(timing);
    }

    /// Resume, before the saved registers go back: the new paths' enables toggled again,
    /// as upstream's `msdc_restore_reg` does.
    pub(crate) fn before_restore(&self, r: &impl MsdcRegs, soc: &SocData) {
        toggle_new_paths(r, soc);
    }

    /// Resume, after the saved registers went back: the enhanced strobe setting, whose
    /// registers are outside the save set.
    pub(crate) fn after_restore(&self, r: &impl MsdcRegs) {
        if let Some(on) = self.enhanced_strobe {
            program_enhanced_strobe(r, on);
        }
    }

    /// Starts tuning for `kind` with the SoC's plan and programs its first sample point.
    pub(crate) fn begin(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
        kind: TuningKind,
    ) -> Result<(), TuningError> {
        self.board.check()?;
        self.abandon(r, soc);
        let plan: [Option<Target>; MAX_TARGETS] = if soc.data_tune && soc.async_fifo {
            [Some(Target::Together), None, None]
        } else if self.hs400_mode && soc.hs400_tune {
            [Some(Target::Hs400Command), None, None]
        } else {
            let internal = !soc.async_fifo && self.board.hs200_cmd_int_delay == 0;
            [
                Some(Target::Command),
                internal.then_some(Target::Internal),
                (!self.hs400_mode).then_some(Target::Data),
            ]
        };
        self.start_session(r, soc, kind.timing(), Some(kind), plan)
    }

    /// Starts the HS400 strobe sweep (`msdc_execute_hs400_tuning`).
    pub(crate) fn begin_strobe(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
    ) -> Result<(), TuningError> {
        self.board.check()?;
        self.abandon(r, soc);
        let plan = [Some(Target::Strobe), None, None];
        self.start_session(r, soc, Timing::MmcHs400, None, plan)
    }

    fn start_session(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
        timing: Timing,
        kind: Option<TuningKind>,
        targets: [Option<Target>; MAX_TARGETS],
    ) -> Result<(), TuningError> {
        let first = targets[0].unwrap_or(Target::Strobe);
        let mut session = Session {
            timing,
            kind,
            targets,
            index: 0,
            sweep: Sweep::new(first, SampleEdge::Rising, &self.board),
            rising: None,
            internal_before: 0,
            strobe_before: 0,
            response: None,
            sample: None,
            progress: Progress::Sweeping,
            before: TuneSnapshot::read(r, soc, self.step()),
        };
        self.start_target(r, soc, &mut session, first)?;
        self.session = Some(session);
        Ok(())
    }

    /// Programs what `target` needs before its sweep and makes its first sweep current.
    fn start_target(
        &self,
        r: &impl MsdcRegs,
        soc: &SocData,
        session: &mut Session,
        target: Target,
    ) -> Result<(), FieldOverflow> {
        let board = &self.board;
        let at_200_mhz = session.kind.is_some_and(TuningKind::at_200_mhz);
        let mut edge = SampleEdge::Rising;
        match target {
            Target::Together => {
                set_latch_clock(r, board.latch_ck)?;
                set_command_edge(r, edge);
                set_data_edge(r, soc, edge);
            }
            Target::Command => {
                if at_200_mhz {
                    set_internal_delay(r, soc, board.hs200_cmd_int_delay)?;
                }
                set_command_edge(r, edge);
            }
            Target::Data => {
                set_latch_clock(r, board.latch_ck)?;
                set_data_edge(r, soc, edge);
            }
            Target::Internal => {
                session.internal_before = read_pad_tune(r, soc).cmdrrdly();
            }
            Target::Hs400Command => {
                Io::<MsdcBase>::update::<PAD_CMD_TUNE>(r, |v| v.with_dly3sel(true));
                Io::<MsdcBase>::update::<MSDC_PATCH_BIT1>(r, |v| {
                    v.with_const_cmdta::<HS400_COMMAND_TURNAROUND>()
                });
                if at_200_mhz {
                    set_internal_delay(r, soc, board.hs200_cmd_int_delay)?;
                }
                edge = SampleEdge::from_falling(!board.hs400_cmd_resp_sel_rising);
                set_command_edge(r, edge);
            }
            Target::Strobe => {
                if soc.needs_top_base {
                    Io::<MsdcTop>::update::<EMMC50_PAD_DS_TUNE>(r, |v| {
                        v.with_pad_ds_dly_sel(true).with_pad_ds_dly2_sel(false)
                    });
                } else {
                    Io::<MsdcBase>::update::<PAD_DS_TUNE>(r, |v| {
                        v.with_dly_sel(true).with_dly2_sel(false)
                    });
                }
                session.strobe_before = current_strobe_delay(r, soc);
            }
        }
        session.sweep = Sweep::new(target, edge, board);
        session.rising = None;
        Ok(())
    }

    /// The next probe, programming its sample point; `None` once every sweep is done (or
    /// tuning failed, or none is running).
    pub(crate) fn next_probe(&mut self, r: &impl MsdcRegs, soc: &SocData) -> Option<TuningProbe> {
        let mut session = self.session.take()?;
        // Each pass either hands out a probe or finishes a sweep; a plan has at most six.
        let mut probe = None;
        for _ in 0..=2 * MAX_TARGETS {
            if session.progress != Progress::Sweeping {
                break;
            }
            let sweep = &mut session.sweep;
            if !sweep.done() {
                if !sweep.outstanding && sweep.passes == 0 {
                    program_cell(r, soc, sweep.target, sweep.step, sweep.cell);
                }
                sweep.outstanding = true;
                probe = Some(sweep.probe);
                break;
            }
            self.sweep_done(r, soc, &mut session);
        }
        self.session = Some(session);
        probe
    }

    /// The result of the probe [`Tuner::next_probe`] handed out last.
    pub(crate) fn record(&mut self, passed: bool) {
        if let Some(session) = self.session.as_mut() {
            if session.progress == Progress::Sweeping {
                session.sweep.record(passed);
            }
        }
    }

    /// A sweep finished: the next edge or target, or the end.
    fn sweep_done(&self, r: &impl MsdcRegs, soc: &SocData, session: &mut Session) {
        let sweep = session.sweep;
        let result = best_delay(sweep.map, sweep.step);
        let chosen = if sweep.target.two_edges() {
            if sweep.edge == SampleEdge::Rising {
                if !result.as_ref().is_ok_and(rising_good_enough) {
                    session.rising = Some(result);
                    set_edges(r, soc, sweep.target, SampleEdge::Falling);
                    session.sweep = Sweep::new(sweep.target, SampleEdge::Falling, &self.board);
                    return;
                }
                result.map(|c| (SampleEdge::Rising, c))
            } else {
                let rising = session.rising.take().unwrap_or(Err(TuningError::NoWindow));
                choose_edge(sweep.target == Target::Command, rising, result)
            }
        } else {
            result.map(|c| (sweep.edge, c))
        };
        match (sweep.target, chosen) {
            (Target::Internal, chosen) => {
                let value = chosen.map_or(session.internal_before, |(_, c)| u32::from(c.chosen));
                // A cell of the 32 swept, or the value read from the field.
                let _ = set_internal_delay(r, soc, value);
            }
            (_, Err(e)) => {
                self.fail(r, soc, session, e);
                return;
            }
            (target, Ok((edge, choice))) => {
                self.program_choice(r, soc, target, edge, choice.chosen);
                let point = TunedPoint::new(edge, choice);
                if target == Target::Command {
                    session.response = Some(point);
                } else {
                    session.sample = Some(point);
                }
            }
        }
        self.next_target(r, soc, session);
    }

    fn next_target(&self, r: &impl MsdcRegs, soc: &SocData, session: &mut Session) {
        let next = (session.index + 1..MAX_TARGETS)
            .find_map(|index| Some((index, session.targets.get(index).copied()??)));
        let Some((index, target)) = next else {
            session.progress = Progress::Complete;
            return;
        };
        session.index = index;
        if let Err(e) = self.start_target(r, soc, session, target) {
            self.fail(r, soc, session, TuningError::BoardValue(e));
        }
    }

    /// Programs the chosen point of `target`.
    fn program_choice(
        &self,
        r: &impl MsdcRegs,
        soc: &SocData,
        target: Target,
        edge: SampleEdge,
        cell: u8,
    ) {
        let step = self.step();
        match target {
            Target::Together => {
                set_edges(r, soc, target, edge);
                set_command_delay(r, soc, step, cell);
                set_data_delay(r, soc, step, cell);
                if self.hs400_mode {
                    // In HS400 the strobe samples the data.
                    set_data_edge(r, soc, SampleEdge::Rising);
                    set_data_delay(r, soc, step, 0);
                }
            }
            Target::Command | Target::Data => {
                set_edges(r, soc, target, edge);
                program_cell(r, soc, target, step, cell);
            }
            Target::Internal | Target::Hs400Command | Target::Strobe => {
                program_cell(r, soc, target, TuningStep::Cells32, cell);
            }
        }
    }

    fn fail(&self, r: &impl MsdcRegs, soc: &SocData, session: &mut Session, error: TuningError) {
        session.before.write(r, soc, self.step(), true);
        if session.sweep.target == Target::Strobe {
            set_strobe_delay(r, soc, session.strobe_before);
        }
        session.progress = Progress::Failed(error);
    }

    /// Ends the session: the report and the tuned parameters on success; on failure (or
    /// an unfinished session) the delay lines as they were.
    pub(crate) fn finish(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
    ) -> Result<TuningReport, TuningError> {
        let mut session = self.session.take().ok_or(TuningError::NotTuning)?;
        match session.progress {
            Progress::Failed(e) => return Err(e),
            Progress::Sweeping => {
                self.fail(r, soc, &mut session, TuningError::Incomplete);
                return Err(TuningError::Incomplete);
            }
            Progress::Complete => {}
        }
        let (sample, response) = match (session.sample, session.response) {
            (Some(sample), response) => (sample, response),
            (None, Some(response)) => (response, None),
            (None, None) => return Err(TuningError::NoWindow),
        };
        if session.kind.is_some() {
            self.tuned = TuneSnapshot::read(r, soc, self.step());
        }
        Ok(TuningReport {
            timing: session.timing,
            sample,
            response,
        })
    }

    /// Ends a session in progress without a result, restoring the delay lines.
    pub(crate) fn abandon(&mut self, r: &impl MsdcRegs, soc: &SocData) {
        if let Some(mut session) = self.session.take() {
            if session.progress == Progress::Sweeping {
                self.fail(r, soc, &mut session, TuningError::Incomplete);
            }
        }
    }

    /// `msdc_prepare_hs400_tuning`: HS400 is the target; the board's strobe delays, the
    /// CRC status path HS400 needs and two outstanding writes.
    pub(crate) fn prepare_hs400(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
    ) -> Result<(), TuningError> {
        self.board.check()?;
        self.hs400_mode = true;
        let board = &self.board;
        if soc.needs_top_base {
            if board.hs400_ds_dly3 != 0 {
                let v = Io::<MsdcTop>::read::<EMMC50_PAD_DS_TUNE>(r);
                Io::<MsdcTop>::write(r, v.try_with_pad_ds_dly3(board.hs400_ds_dly3)?);
            }
            if board.hs400_ds_delay != 0 {
                Io::<MsdcTop>::write(r, EMMC50_PAD_DS_TUNE::from_raw(board.hs400_ds_delay));
            }
        } else {
            if board.hs400_ds_dly3 != 0 {
                let v = Io::<MsdcBase>::read::<PAD_DS_TUNE>(r);
                Io::<MsdcBase>::write(r, v.try_with_dly3(board.hs400_ds_dly3)?);
            }
            if board.hs400_ds_delay != 0 {
                Io::<MsdcBase>::write(r, PAD_DS_TUNE::from_raw(board.hs400_ds_delay));
            }
        }
        Io::<MsdcBase>::update::<MSDC_PATCH_BIT2>(r, |v| v.with_cfgcrcsts(false));
        Io::<MsdcBase>::update::<EMMC50_CFG3>(r, |v| {
            v.with_const_outs_wr::<HS400_OUTSTANDING_WRITES>()
        });
        Ok(())
    }

    /// `msdc_hs400_enhanced_strobe`.
    pub(crate) fn set_enhanced_strobe(
        &mut self,
        r: &impl MsdcRegs,
        soc: &SocData,
        on: bool,
    ) -> Result<(), TuningError> {
        if on {
            self.prepare_hs400(r, soc)?;
        }
        program_enhanced_strobe(r, on);
        self.enhanced_strobe = Some(on);
        Ok(())
    }
}

fn toggle_new_paths(r: &impl MsdcRegs, soc: &SocData) {
    if soc.support_new_tx {
        Io::<MsdcBase>::update::<SDC_ADV_CFG0>(r, |v| v.with_new_tx_en(false));
        Io::<MsdcBase>::update::<SDC_ADV_CFG0>(r, |v| v.with_new_tx_en(true));
    }
    if soc.support_new_rx {
        Io::<MsdcBase>::update::<MSDC_NEW_RX_CFG>(r, |v| v.with_new_rx_path_sel(false));
        Io::<MsdcBase>::update::<MSDC_NEW_RX_CFG>(r, |v| v.with_new_rx_path_sel(true));
    }
}

fn program_enhanced_strobe(r: &impl MsdcRegs, on: bool) {
    Io::<MsdcBase>::update::<EMMC50_CFG0>(r, |v| v.with_padcmd_latchck(on).with_cmd_resp_sel(on));
    Io::<MsdcBase>::update::<EMMC50_CFG1>(r, |v| v.with_ds_cfg(on));
    Io::<MsdcBase>::update::<CQHCI_SETTING>(r, |v| {
        v.with_rd_cmd_wnd_sel(!on).with_wr_cmd_wnd_sel(!on)
    });
    Io::<MsdcBase>::update::<EMMC51_CFG0>(r, |v| {
        if on {
            v.with_const_cmdq_rdat_cnt::<0>()
        } else {
            v.with_const_cmdq_rdat_cnt::<CMDQ_READ_DATA_COUNT>()
        }
    });
}

fn set_latch_clock(r: &impl MsdcRegs, latch_ck: u32) -> Result<(), FieldOverflow> {
    let v = Io::<MsdcBase>::read::<MSDC_PATCH_BIT0>(r).try_with_int_dat_latch_ck_sel(latch_ck)?;
    Io::<MsdcBase>::write(r, v);
    Ok(())
}

fn set_edges(r: &impl MsdcRegs, soc: &SocData, target: Target, edge: SampleEdge) {
    match target {
        Target::Command => set_command_edge(r, edge),
        Target::Data => set_data_edge(r, soc, edge),
        Target::Together => {
            set_command_edge(r, edge);
            set_data_edge(r, soc, edge);
        }
        Target::Internal | Target::Hs400Command | Target::Strobe => {}
    }
}

fn program_cell(r: &impl MsdcRegs, soc: &SocData, target: Target, step: TuningStep, cell: u8) {
    match target {
        Target::Command => set_command_delay(r, soc, step, cell),
        Target::Data => set_data_delay(r, soc, step, cell),
        Target::Together => {
            set_command_delay(r, soc, step, cell);
            set_data_delay(r, soc, step, cell);
        }
        // Below 32: the field holds it.
        Target::Internal => {
            let _ = set_internal_delay(r, soc, u32::from(cell));
        }
        Target::Hs400Command => set_hs400_command_delay(r, cell),
        Target::Strobe => {
            set_strobe_delay(r, soc, cell);
        }
    }
}
