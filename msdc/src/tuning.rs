// SPDX-License-Identifier: GPL-2.0

//! Sample-point tuning of the MSDC: which delay cell and clock edge the controller samples
//! the command and data lines at, for HS200, SDR104, SDR50 and DDR50 (the tuning command),
//! and where the HS400 data strobe is sampled (EXT_CSD reads).
//!
//! # How the glue drives it
//!
//! Tuning is a sweep of delay cells with the card answering a probe at each: a state machine
//! here, the probes sent by the glue with the MMC core's helpers (`mmc_send_tuning`,
//! `mmc_get_ext_csd`) outside the controller's lock, as ordinary requests:
//!
//! 1. [`Controller::begin_tuning`] (or [`Controller::begin_hs400_tuning`]) picks the plan
//!    for the SoC and programs its first sample point;
//! 2. [`Controller::next_tuning_probe`] programs the next sample point and says what to
//!    send ([`TuningProbe`]), until it returns `None`;
//! 3. after each probe, [`Controller::record_tuning_probe`] with whether it passed;
//! 4. [`Controller::finish_tuning`] returns what was chosen ([`TuningReport`]) and keeps it
//!    as the tuned parameters, which [`Controller::set_clock`] restores above 52 MHz and
//!    runtime suspend and resume keep. A failed tuning leaves the delay lines as they were
//!    before it began.
//!
//! The tries per sample point are inside the state machine: the response sweeps ask three
//! passes in a row before a cell counts (upstream's stability rule), the others one.
//!
//! # Plans (Linux 7.3's `msdc_execute_tuning`)
//!
//! - Together, on SoCs with `data_tune` and `async_fifo` (MT2701, MT2712, MT6779, MT7622,
//!   MT7986, the MT8183 family, MT8196, MT8516): one sweep moves the command and data delays
//!   together, rising edge first, then the falling edge unless the rising window is good
//!   enough (12 cells, or 4 from cell 0). Before HS400 (after
//!   [`Controller::prepare_hs400_tuning`]) the data line goes back to the rising edge and
//!   delay 0 afterwards: in HS400 the data strobe samples it.
//! - HS400 command tuning, on `hs400_tune` SoCs (MT8173, MT6795) before HS400: the eMMC 5.0
//!   command pad delay (`PAD_CMD_TUNE.RX_DLY3`, 32 cells, three tries each) on the edge
//!   the device tree names (`mediatek,hs400-cmd-resp-sel-rising`).
//! - Otherwise response, then data: the command delay (three tries per cell) on both edges,
//!   upstream's preference for a long falling window starting near cell 0, then on SoCs
//!   without the async FIFO and without `mediatek,hs200-cmd-int-delay` the internal
//!   command delay (`CMDRRDLY`), then (not before HS400) the data delay on both edges.
//!
//! The sample edges are `MSDC_IOCON.RSPL` for the command line and `MSDC_IOCON.DSPL` with
//! `W_DSPL` for the data lines, or `MSDC_PATCH_BIT0.RD_DAT_SEL` with
//! `MSDC_PATCH_BIT2.CFGCRCSTSEDGE` on SoCs with the new receive path (MT8196). The delay
//! lines are the top region's (`EMMC_TOP_CMD`, `EMMC_TOP_CONTROL`) on SoCs with
//! `needs_top_base`, else the pad tune register's; a 64-cell step continues above cell 31
//! in the second delay (`*RXDLY2`, or the pad tune register four bytes on) with the first
//! at 31.
//!
//! # The window
//!
//! [`best_delay`] finds the longest run of passing cells and samples inside it with
//! upstream's rule: a third of the way in for a window that starts at cell 0 (the smallest
//! delay that is safe), halfway in otherwise.
//!
//! Differences from upstream, all deliberate:
//! - A window may wrap around the top of the sweep (cells 30, 31, 0, 1 of a 32-cell sweep):
//!   the sweep is circular, as the delay line's phase is. Upstream cuts such a window in
//!   two. A wrapped window reports `start > end`.
//! - No early stop: upstream stops looking once a 32-cell map has a window of 12 starting
//!   below cell 4, even when a longer one follows; here the longest window wins, and of
//!   equal ones the one starting lowest.
//! - The internal command delay sweep covers the 32 cells its 5-bit field has (upstream
//!   sweeps the tuning step, so a 64-cell step tries every value twice), and an empty
//!   internal map keeps the delay the command sweep ran with (upstream writes 0xFF into the
//!   field, i.e. 31).
//! - A failed sweep restores the delay lines and edges it found (upstream programs its
//!   error value 0xFF as a delay and, after a failed data sweep, saves that as the tuned
//!   result).
//! - The top data delay below cell 32 leaves the second delay at 0, as the command delay
//!   and the pad tune path do (upstream writes the cell into both, which doubles the delay
//!   when the second delay is selected, i.e. with a 64-cell step).
//! - The new receive path's data edge bits (MT8196) are part of the default and tuned
//!   parameters, so a clock at or below 52 MHz goes back to the rising edge (upstream
//!   restores `MSDC_IOCON` only, which holds no edge on that SoC).
//! - The HS400 target ([`Controller::prepare_hs400_tuning`]) is forgotten when the MMC
//!   core goes back to the legacy timing (card re-initialisation); upstream keeps it
//!   forever, so an HS200 tuning after a failed HS400 switch would leave the data delay at
//!   0.
//! - The strobe sweep always runs, as upstream's: a device tree `hs400-ds-delay` is the
//!   starting point it overwrites `DLY1` of, its `DLY3` stays.
//!
//! [`Controller`]: super::controller::Controller
//! [`Controller::begin_tuning`]: super::controller::Controller::begin_tuning
//! [`Controller::begin_hs400_tuning`]: super::controller::Controller::begin_hs400_tuning
//! [`Controller::next_tuning_probe`]: super::controller::Controller::next_tuning_probe
//! [`Controller::record_tuning_probe`]: super::controller::Controller::record_tuning_probe
//! [`Controller::finish_tuning`]: super::controller::Controller::finish_tuning
//! [`Controller::set_clock`]: super::controller::Controller::set_clock
//! [`Controller::prepare_hs400_tuning`]: super::controller::Controller::prepare_hs400_tuning

use super::clock::Timing;
use super::regs::{
    MsdcBase, MsdcRegs, MsdcTop, CQHCI_SETTING, EMMC50_CFG0, EMMC50_CFG1, EMMC50_CFG3,
    EMMC50_PAD_DS_TUNE, EMMC51_CFG0, EMMC_TOP_CMD, EMMC_TOP_CONTROL, LOOP_TEST_CONTROL, MSDC_IOCON,
    MSDC_NEW_RX_CFG, MSDC_PAD_TUNE0, MSDC_PAD_TUNE1, MSDC_PATCH_BIT0, MSDC_PATCH_BIT1,
    MSDC_PATCH_BIT2, PAD_CMD_TUNE, PAD_DS_TUNE, SDC_ADV_CFG0,
};
use super::soc::SocData;
use crate::registers::{FieldOverflow, Io};

/// Cells of one delay line (upstream's `PAD_DELAY_HALF`): a 5-bit delay field.
pub const DELAY_LINE_CELLS: u8 = 32;

/// A rising-edge window at least this long is good enough: the falling edge is not swept.
const GOOD_WINDOW: u8 = 12;

/// A rising-edge window starting at cell 0 and at least this long is good enough too.
const GOOD_WINDOW_FROM_ZERO: u8 = 4;

/// A falling-edge response window this long, starting below [`NEAR_ZERO`], is preferred
/// over a longer rising one (upstream's response rule).
const NEAR_ZERO: u8 = 4;

/// Passes in a row a response sample point needs (upstream's three tries).
const RESPONSE_TRIES: u8 = 3;

/// `MSDC_PATCH_BIT1.CMDTA` for HS400 command tuning.
const HS400_COMMAND_TURNAROUND: u32 = 2;

/// `EMMC50_CFG3.OUTS_WR` in HS400: two outstanding writes, for read performance.
const HS400_OUTSTANDING_WRITES: u32 = 2;

/// `EMMC51_CFG0.CMDQ_RDAT_CNT` without enhanced strobe.
const CMDQ_READ_DATA_COUNT: u32 = 0xB4;

/// How many delay cells a tuning sweeps (`mediatek,tuning-step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuningStep {
    /// One delay line, 32 cells: upstream's default for slots that may hold an eMMC.
    Cells32,
    /// Both delay lines, 64 cells: upstream's default for `no-mmc` slots.
    Cells64,
}

impl TuningStep {
    /// The step a device tree's `mediatek,tuning-step` names (32 or 64).
    pub const fn from_dt(cells: u32) -> Option<Self> {
        match cells {
            32 => Some(Self::Cells32),
            64 => Some(Self::Cells64),
            _ => None,
        }
    }

    /// Upstream's step without `mediatek,tuning-step`: 64 for a slot with `no-mmc`
    /// (`MMC_CAP2_NO_MMC`), else 32.
    pub const fn default_for_slot(no_mmc: bool) -> Self {
        if no_mmc {
            Self::Cells64
        } else {
            Self::Cells32
        }
    }

    /// Number of cells.
    pub const fn cells(self) -> u8 {
        match self {
            Self::Cells32 => DELAY_LINE_CELLS,
            Self::Cells64 => 2 * DELAY_LINE_CELLS,
        }
    }

    /// Whether the sweep reaches the second delay line.
    const fn uses_second_line(self) -> bool {
        matches!(self, Self::Cells64)
    }

    /// The map bits of a sweep of this step.
    const fn mask(self) -> u64 {
        match self {
            Self::Cells32 => (1 << DELAY_LINE_CELLS) - 1,
            Self::Cells64 => u64::MAX,
        }
    }
}

/// The board's tuning values from the device tree, carried in the controller's setup.
///
/// As upstream, 0 stands for an absent number property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardTuning {
    /// `mediatek,latch-ck`: the internal data latch clock (`INT_DAT_LATCH_CK_SEL`, 0..7).
    pub latch_ck: u32,
    /// `hs400-ds-delay`: a whole `PAD_DS_TUNE` / `EMMC50_PAD_DS_TUNE` value for HS400.
    pub hs400_ds_delay: u32,
    /// `mediatek,hs400-ds-dly3`: the strobe's third delay (0..31).
    pub hs400_ds_dly3: u32,
    /// `mediatek,hs200-cmd-int-delay`: the internal command delay for HS200 and SDR104
    /// (0..31); when given, the internal delay is not swept.
    pub hs200_cmd_int_delay: u32,
    /// `mediatek,hs400-cmd-int-delay`: the internal command delay in HS400 on
    /// `hs400_tune` SoCs (0..31).
    pub hs400_cmd_int_delay: u32,
    /// `mediatek,hs400-cmd-resp-sel-rising`: HS400 command tuning samples on the rising
    /// edge (else the falling one).
    pub hs400_cmd_resp_sel_rising: bool,
    /// The sweep length: `mediatek,tuning-step`, else [`TuningStep::default_for_slot`].
    pub tuning_step: TuningStep,
}

impl BoardTuning {
    /// No tuning property given, on a slot with or without `no-mmc`.
    pub const fn defaults(no_mmc: bool) -> Self {
        Self {
            latch_ck: 0,
            hs400_ds_delay: 0,
            hs400_ds_dly3: 0,
            hs200_cmd_int_delay: 0,
            hs400_cmd_int_delay: 0,
            hs400_cmd_resp_sel_rising: false,
            tuning_step: TuningStep::default_for_slot(no_mmc),
        }
    }

    /// Whether every value fits its register field; the first that does not is returned.
    pub fn check(&self) -> Result<(), FieldOverflow> {
        MSDC_PATCH_BIT0::zeroed().try_with_int_dat_latch_ck_sel(self.latch_ck)?;
        PAD_DS_TUNE::zeroed().try_with_dly3(self.hs400_ds_dly3)?;
        MSDC_PAD_TUNE0::zeroed().try_with_cmdrrdly(self.hs200_cmd_int_delay)?;
        MSDC_PAD_TUNE0::zeroed().try_with_cmdrrdly(self.hs400_cmd_int_delay)?;
        Ok(())
    }
}

/// The timing a tuning is for; the MMC core tunes in these (an HS400 eMMC in HS200).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuningKind {
    /// eMMC HS200 (CMD21), also before HS400.
    Hs200,
    /// SD/SDIO UHS-I SDR104 (CMD19).
    Sdr104,
    /// SD/SDIO UHS-I SDR50 (CMD19).
    Sdr50,
    /// SD UHS-I DDR50 (CMD19), unless the card is quirked not to be tuned there.
    Ddr50,
}

impl TuningKind {
    /// The kind for the timing the core tunes in; `None` for timings without tuning.
    pub const fn for_timing(timing: Timing) -> Option<Self> {
        match timing {
            Timing::MmcHs200 => Some(Self::Hs200),
            Timing::UhsSdr104 => Some(Self::Sdr104),
            Timing::UhsSdr50 => Some(Self::Sdr50),
            Timing::UhsDdr50 => Some(Self::Ddr50),
            _ => None,
        }
    }

    /// The timing of this kind.
    pub const fn timing(self) -> Timing {
        match self {
            Self::Hs200 => Timing::MmcHs200,
            Self::Sdr104 => Timing::UhsSdr104,
            Self::Sdr50 => Timing::UhsSdr50,
            Self::Ddr50 => Timing::UhsDdr50,
        }
    }

    /// The 200 MHz timings, where upstream sets the board's internal command delay.
    const fn at_200_mhz(self) -> bool {
        matches!(self, Self::Hs200 | Self::Sdr104)
    }
}

/// Which timings the controller of a SoC can tune, for the glue to advertise only those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunableTimings {
    /// eMMC HS200.
    pub hs200: bool,
    /// eMMC HS400 with data strobe tuning.
    pub hs400: bool,
    /// eMMC HS400 with enhanced strobe.
    pub hs400_enhanced_strobe: bool,
    /// SD/SDIO SDR104.
    pub sdr104: bool,
    /// SD/SDIO SDR50.
    pub sdr50: bool,
    /// SD DDR50.
    pub ddr50: bool,
}

impl SocData {
    /// The timings this crate tunes on the SoC. Every plan of upstream's is implemented
    /// (tune-together, response then data, HS400 command tuning, the strobe sweep and
    /// enhanced strobe), so every SoC tunes every timing; the board's device tree still
    /// decides which of them the slot may use.
    pub const fn tunable_timings(&self) -> TunableTimings {
        TunableTimings {
            hs200: true,
            hs400: true,
            hs400_enhanced_strobe: true,
            sdr104: true,
            sdr50: true,
            ddr50: true,
        }
    }
}

/// What the glue sends for the probe [`Controller::next_tuning_probe`] programmed.
///
/// [`Controller::next_tuning_probe`]: super::controller::Controller::next_tuning_probe
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuningProbe {
    /// The tuning command (`mmc_send_tuning`: CMD21 for eMMC, CMD19 for SD/SDIO) for a
    /// command line sweep; it passed if the command's response came back without error
    /// (its `cmd_error`), whatever the data block did.
    SendTuningResponse,
    /// The tuning command for a sweep of the data line (or both lines); it passed if it
    /// returned 0.
    SendTuning,
    /// An EXT_CSD read (`mmc_get_ext_csd`), for the HS400 strobe sweep; it passed if it
    /// returned 0.
    ReadExtCsd,
}

/// The clock edge a line is sampled on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleEdge {
    /// The rising edge (the register bit clear).
    Rising,
    /// The falling edge.
    Falling,
}

impl SampleEdge {
    const fn falling(self) -> bool {
        matches!(self, Self::Falling)
    }

    const fn from_falling(falling: bool) -> Self {
        if falling {
            Self::Falling
        } else {
            Self::Rising
        }
    }
}

/// A run of passing delay cells: `start` to `end` inclusive, wrapping around the top of
/// the sweep when `start > end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayWindow {
    /// First passing cell.
    pub start: u8,
    /// Last passing cell (inclusive).
    pub end: u8,
    /// Number of cells, 1 to the sweep's length.
    pub len: u8,
}

/// The window [`best_delay`] found and the cell it samples at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayChoice {
    /// The longest run of passing cells.
    pub window: DelayWindow,
    /// The cell to sample at, inside the window.
    pub chosen: u8,
}

/// Why tuning did not produce a sample point; the delay lines are as before it began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuningError {
    /// No cell passed (`-EIO`).
    NoWindow,
    /// [`Controller::finish_tuning`] before the state machine said it was done; the tuning
    /// was abandoned.
    ///
    /// [`Controller::finish_tuning`]: super::controller::Controller::finish_tuning
    Incomplete,
    /// No tuning is running.
    NotTuning,
    /// A request is in flight (`-EBUSY`).
    Busy,
    /// The controller is runtime suspended: nothing was touched.
    Suspended,
    /// A [`BoardTuning`] value does not fit its register field (`-EINVAL`).
    BoardValue(FieldOverflow),
}

impl From<FieldOverflow> for TuningError {
    fn from(e: FieldOverflow) -> Self {
        Self::BoardValue(e)
    }
}

/// A sample point tuning chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunedPoint {
    /// The edge sampled on.
    pub edge: SampleEdge,
    /// First cell of the passing window.
    pub window_start: u8,
    /// Last cell of the passing window (inclusive; `< window_start` when it wraps).
    pub window_end: u8,
    /// The cell programmed.
    pub chosen: u8,
}

impl TunedPoint {
    const fn new(edge: SampleEdge, choice: DelayChoice) -> Self {
        Self {
            edge,
            window_start: choice.window.start,
            window_end: choice.window.end,
            chosen: choice.chosen,
        }
    }
}

/// What a finished tuning chose, for the glue's log line
/// (`timing: <host> <mode> window=<lo>-<hi> chosen=<n>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuningReport {
    /// The timing tuned for: HS200, SDR104, SDR50 or DDR50, or HS400 for the strobe.
    pub timing: Timing,
    /// The sample point of the last sweep: command and data together, the data line
    /// after a separate response sweep, the HS400 command pad delay, the strobe delay, or
    /// the command line when it was the only one tuned (before HS400).
    pub sample: TunedPoint,
    /// The command line's point when it was tuned separately before the data line.
    pub response: Option<TunedPoint>,
}

/// The longest run of passing cells in the first `step` bits of `map` (bit `n` set: cell
/// `n` passed), wrapping around the top, and the cell to sample at: a third of the way in
/// for a window starting at cell 0, halfway in otherwise (modulo the step). Of equally long
/// windows the one starting lowest wins; a full map is one window from cell 0.
pub fn best_delay(map: u64, step: TuningStep) -> Result<DelayChoice, TuningError> {
    let cells = step.cells();
    let map = map & step.mask();
    if map == 0 {
        return Err(TuningError::NoWindow);
    }
    let passes = |cell: u8| map & (1u64 << (cell % cells)) != 0;
    let window = if map == step.mask() {
        DelayWindow {
            start: 0,
            end: cells - 1,
            len: cells,
        }
    } else {
        // Scanning from just above a failing cell, no run is cut by the scan's start.
        let failing = (0..cells).find(|&cell| !passes(cell)).unwrap_or(0);
        let mut best: Option<DelayWindow> = None;
        let mut run: Option<(u8, u8)> = None;
        for offset in 1..=cells {
            let cell = (failing + offset) % cells;
            if passes(cell) {
                let (start, len) = run.unwrap_or((cell, 0));
                run = Some((start, len + 1));
                continue;
            }
            if let Some((start, len)) = run.take() {
                let longer = best.is_none_or(|b| len > b.len || (len == b.len && start < b.start));
                if longer {
                    best = Some(DelayWindow {
                        start,
                        end: (start + len - 1) % cells,
                        len,
                    });
                }
            }
        }
        best.ok_or(TuningError::NoWindow)?
    };
    let into = if window.start == 0 {
        window.len / 3
    } else {
        window.len / 2
    };
    Ok(DelayChoice {
        window,
        chosen: (window.start + into) % cells,
    })
}

/// Whether a rising-edge window makes the falling-edge sweep unnecessary.
fn rising_good_enough(choice: &DelayChoice) -> bool {
    let w = choice.window;
    w.len >= GOOD_WINDOW || (w.start == 0 && w.len >= GOOD_WINDOW_FROM_ZERO)
}

/// Picks the edge of a two-edge sweep: the longer window, the rising edge of equal ones;
/// for the response, a falling window of [`GOOD_WINDOW`] starting below [`NEAR_ZERO`] beats
/// a longer rising one (upstream's `msdc_tune_response`).
fn choose_edge(
    response_rule: bool,
    rising: Result<DelayChoice, TuningError>,
    falling: Result<DelayChoice, TuningError>,
) -> Result<(SampleEdge, DelayChoice), TuningError> {
    let len = |r: &Result<DelayChoice, TuningError>| r.as_ref().map_or(0, |c| c.window.len);
    let (rise_len, fall_len) = (len(&rising), len(&falling));
    let near_zero_fall = matches!(&falling,
        Ok(c) if c.window.len >= GOOD_WINDOW && c.window.start < NEAR_ZERO);
    let best = if response_rule && near_zero_fall {
        fall_len
    } else {
        rise_len.max(fall_len)
    };
    match (rising, falling) {
        (Ok(rise), _) if best == rise_len => Ok((SampleEdge::Rising, rise)),
        (_, Ok(fall)) => Ok((SampleEdge::Falling, fall)),
        (Ok(rise), Err(_)) => Ok((SampleEdge::Rising, rise)),
        (Err(e), Err(_)) => Err(e),
    }
}

/// The first and second delay fields for `cell`: below 32 the first alone, above it the
/// first at 31 and the rest in the second.
fn split_cell(cell: u8) -> (u32, u32) {
    let last = u32::from(DELAY_LINE_CELLS - 1);
    let cell = u32::from(cell);
    if cell <= last {
        (cell, 0)
    } else {
        (last, (cell - u32::from(DELAY_LINE_CELLS)).min(last))
    }
}

/// The pad tune register of `soc`, in [`MSDC_PAD_TUNE0`]'s layout (the two share it).
fn read_pad_tune(r: &impl Io<MsdcBase>, soc: &SocData) -> MSDC_PAD_TUNE0 {
    MSDC_PAD_TUNE0::from_raw(r.read32(soc.pad_tune_reg.offset()))
}

fn write_pad_tune(r: &impl Io<MsdcBase>, soc: &SocData, value: MSDC_PAD_TUNE0) {
    r.write32(soc.pad_tune_reg.offset(), value.raw());
}

/// The pad tune register's second delay line, in [`MSDC_PAD_TUNE1`]'s layout.
fn read_pad_tune2(r: &impl Io<MsdcBase>, soc: &SocData) -> MSDC_PAD_TUNE1 {
    MSDC_PAD_TUNE1::from_raw(r.read32(soc.pad_tune_reg.second_offset()))
}

fn write_pad_tune2(r: &impl Io<MsdcBase>, soc: &SocData, value: MSDC_PAD_TUNE1) {
    r.write32(soc.pad_tune_reg.second_offset(), value.raw());
}

/// Programs the command delay line at `cell`.
fn set_command_delay(r: &impl MsdcRegs, soc: &SocData, step: TuningStep, cell: u8) {
    let (first, second) = split_cell(cell);
    if soc.needs_top_base {
        Io::<MsdcTop>::update::<EMMC_TOP_CMD>(r, |v| {
            let v = v.try_with_pad_cmd_rxdly(first).unwrap_or(v);
            v.try_with_pad_cmd_rxdly2(second).unwrap_or(v)
        });
    } else {
        let fields: PadTuneFields = (
            MSDC_PAD_TUNE0::try_with_cmdrdly,
            MSDC_PAD_TUNE1::try_with_cmdrdly2,
        );
        set_pad_tune_delay(r, soc, step, (first, second), fields);
    }
}

/// Programs the data delay line at `cell`.
fn set_data_delay(r: &impl MsdcRegs, soc: &SocData, step: TuningStep, cell: u8) {
    let (first, second) = split_cell(cell);
    if soc.needs_top_base {
        Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| {
            let v = v.try_with_pad_dat_rd_rxdly(first).unwrap_or(v);
            v.try_with_pad_dat_rd_rxdly2(second).unwrap_or(v)
        });
    } else {
        let fields: PadTuneFields = (
            MSDC_PAD_TUNE0::try_with_datrrdly,
            MSDC_PAD_TUNE1::try_with_datrrdly2,
        );
        set_pad_tune_delay(r, soc, step, (first, second), fields);
    }
}

/// A setter of a delay field.
type DelayField<T> = fn(T, u32) -> Result<T, FieldOverflow>;

/// The setters of one delay line's fields in the pad tune register and its second one.
type PadTuneFields = (DelayField<MSDC_PAD_TUNE0>, DelayField<MSDC_PAD_TUNE1>);

/// A delay line of the pad tune register: `values.0` into its field `fields.0` and, with a
/// 64-cell step, `values.1` into the second register's `fields.1`.
fn set_pad_tune_delay(
    r: &impl MsdcRegs,
    soc: &SocData,
    step: TuningStep,
    values: (u32, u32),
    fields: PadTuneFields,
) {
    // `split_cell` keeps both values within the 5-bit fields.
    let tune = read_pad_tune(r, soc);
    write_pad_tune(r, soc, (fields.0)(tune, values.0).unwrap_or(tune));
    if step.uses_second_line() {
        let tune2 = read_pad_tune2(r, soc);
        write_pad_tune2(r, soc, (fields.1)(tune2, values.1).unwrap_or(tune2));
    }
}

fn set_command_edge(r: &impl MsdcRegs, edge: SampleEdge) {
    Io::<MsdcBase>::update::<MSDC_IOCON>(r, |v| v.with_rspl(edge.falling()));
}

fn set_data_edge(r: &impl MsdcRegs, soc: &SocData, edge: SampleEdge) {
    let falling = edge.falling();
    if soc.support_new_rx {
        Io::<MsdcBase>::update::<MSDC_PATCH_BIT0>(r, |v| v.with_rd_dat_sel(falling));
        Io::<MsdcBase>::update::<MSDC_PATCH_BIT2>(r, |v| v.with_cfgcrcstsedge(falling));
    } else {
        Io::<MsdcBase>::update::<MSDC_IOCON>(r, |v| v.with_dspl(falling).with_w_dspl(falling));
    }
}

/// The internal command delay (`CMDRRDLY` of the pad tune register).
fn set_internal_delay(r: &impl MsdcRegs, soc: &SocData, value: u32) -> Result<(), FieldOverflow> {
    let tune = read_pad_tune(r, soc).try_with_cmdrrdly(value)?;
    write_pad_tune(r, soc, tune);
    Ok(())
}

fn set_hs400_command_delay(r: &impl MsdcRegs, cell: u8) {
    Io::<MsdcBase>::update::<PAD_CMD_TUNE>(r, |v| v.try_with_rx_dly3(u32::from(cell)).unwrap_or(v));
}

/// The strobe's first delay (`DLY1`), and what it was.
fn set_strobe_delay(r: &impl MsdcRegs, soc: &SocData, cell: u8) -> u8 {
    let cell = u32::from(cell);
    let before = if soc.needs_top_base {
        let v = Io::<MsdcTop>::read::<EMMC50_PAD_DS_TUNE>(r);
        Io::<MsdcTop>::write(r, v.try_with_pad_ds_dly1(cell).unwrap_or(v));
        v.pad_ds_dly1()
    } else {
        let v = Io::<MsdcBase>::read::<PAD_DS_TUNE>(r);
        Io::<MsdcBase>::write(r, v.try_with_dly1(cell).unwrap_or(v));
        v.dly1()
    };
    // A 5-bit field.
    before as u8
}

/// The delay lines and edges tuning sets, as read back: upstream's `msdc_tune_para`, plus
/// the second pad tune register with a 64-cell step and the new receive path's edge bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct TuneSnapshot {
    iocon: u32,
    pad_tune: u32,
    pad_tune2: u32,
    pad_cmd_tune: u32,
    top_control: u32,
    top_cmd: u32,
    data_falling: bool,
}

impl TuneSnapshot {
    /// Every field zero: what nothing has been read into yet.
    const ZERO: Self = Self {
        iocon: 0,
        pad_tune: 0,
        pad_tune2: 0,
        pad_cmd_tune: 0,
        top_control: 0,
        top_cmd: 0,
        data_falling: false,
    };

    fn read(r: &impl MsdcRegs, soc: &SocData, step: TuningStep) -> Self {
        let mut snapshot = Self {
            iocon: Io::<MsdcBase>::read::<MSDC_IOCON>(r).raw(),
            pad_cmd_tune: Io::<MsdcBase>::read::<PAD_CMD_TUNE>(r).raw(),
            ..Self::ZERO
        };
        if soc.support_new_rx {
            snapshot.data_falling = Io::<MsdcBase>::read::<MSDC_PATCH_BIT0>(r).rd_dat_sel();
        }
        if soc.needs_top_base {
            snapshot.top_control = Io::<MsdcTop>::read::<EMMC_TOP_CONTROL>(r).raw();
            snapshot.top_cmd = Io::<MsdcTop>::read::<EMMC_TOP_CMD>(r).raw();
        } else {
            snapshot.pad_tune = read_pad_tune(r, soc).raw();
            if step.uses_second_line() {
                snapshot.pad_tune2 = read_pad_tune2(r, soc).raw();
            }
        }
        snapshot
    }

    /// Writes the snapshot back; `PAD_CMD_TUNE` only for a tuned one (upstream's default
    /// restore leaves it).
    fn write(&self, r: &impl MsdcRegs, soc: &SocData, step: TuningStep, command_pad: bool) {
        Io::<MsdcBase>::write(r, MSDC_IOCON::from_raw(self.iocon));
        if command_pad {
            Io::<MsdcBase>::write(r, PAD_CMD_TUNE::from_raw(self.pad_cmd_tune));
        }
        if soc.support_new_rx {
            set_data_edge(r, soc, SampleEdge::from_falling(self.data_falling));
        }
        if soc.needs_top_base {
            Io::<MsdcTop>::write(r, EMMC_TOP_CONTROL::from_raw(self.top_control));
            Io::<MsdcTop>::write(r, EMMC_TOP_CMD::from_raw(self.top_cmd));
        } else {
            write_pad_tune(r, soc, MSDC_PAD_TUNE0::from_raw(self.pad_tune));
            if step.uses_second_line() {
                write_pad_tune2(r, soc, MSDC_PAD_TUNE1::from_raw(self.pad_tune2));
            }
        }
    }
}

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
pub(super) struct Tuner {
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
    pub(super) const fn new(board: BoardTuning) -> Self {
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

    pub(super) const fn board(&self) -> &BoardTuning {
        &self.board
    }

    pub(super) const fn step(&self) -> TuningStep {
        self.board.tuning_step
    }

    pub(super) const fn is_tuning(&self) -> bool {
        self.session.is_some()
    }

    pub(super) const fn hs400_mode(&self) -> bool {
        self.hs400_mode
    }

    /// Initialisation, before anything else (`msdc_init_hw`): the new transmit and
    /// receive paths must see their enables go from 0 to 1; forgets the session, the
    /// HS400 target and the tuned parameters.
    pub(super) fn enable_new_paths(&mut self, r: &impl MsdcRegs, soc: &SocData) {
        self.session = None;
        self.hs400_mode = false;
        self.loop_timing = None;
        toggle_new_paths(r, soc);
        self.program_loop(r, soc, Timing::Legacy);
    }

    /// Initialisation: the delay lines at zero (the top region's, or the pad tune
    /// register's and with a 64-cell step its second one's).
    pub(super) fn clear_delay_lines(&self, r: &impl MsdcRegs, soc: &SocData) {
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
    pub(super) fn enable_top_rx_enhance(&self, r: &impl MsdcRegs) {
        Io::<MsdcTop>::update::<EMMC_TOP_CONTROL>(r, |v| v.with_sdc_rx_enh_en(true));
    }

    /// Initialisation: which delay lines sample (data tuning: the command and data delays,
    /// and the second ones for a 64-cell step; else the clock delay), then the default
    /// parameters, which are also the tuned ones until a tuning succeeds.
    pub(super) fn select_delay_lines(&mut self, r: &impl MsdcRegs, soc: &SocData) {
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
    pub(super) fn after_clock_change(
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
    pub(super) fn timing_requested(&mut self, timing: Timing) {
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
    pub(super) fn before_restore(&self, r: &impl MsdcRegs, soc: &SocData) {
        toggle_new_paths(r, soc);
    }

    /// Resume, after the saved registers went back: the enhanced strobe setting, whose
    /// registers are outside the save set.
    pub(super) fn after_restore(&self, r: &impl MsdcRegs) {
        if let Some(on) = self.enhanced_strobe {
            program_enhanced_strobe(r, on);
        }
    }

    /// Starts tuning for `kind` with the SoC's plan and programs its first sample point.
    pub(super) fn begin(
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
    pub(super) fn begin_strobe(
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
    pub(super) fn next_probe(&mut self, r: &impl MsdcRegs, soc: &SocData) -> Option<TuningProbe> {
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
    pub(super) fn record(&mut self, passed: bool) {
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
    pub(super) fn finish(
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
    pub(super) fn abandon(&mut self, r: &impl MsdcRegs, soc: &SocData) {
        if let Some(mut session) = self.session.take() {
            if session.progress == Progress::Sweeping {
                self.fail(r, soc, &mut session, TuningError::Incomplete);
            }
        }
    }

    /// `msdc_prepare_hs400_tuning`: HS400 is the target; the board's strobe delays, the
    /// CRC status path HS400 needs and two outstanding writes.
    pub(super) fn prepare_hs400(
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
    pub(super) fn set_enhanced_strobe(
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

/// At or below this bus clock the default parameters apply (upstream's 52 MHz: the
/// high-speed step between HS200 and HS400 runs there).
pub const TUNED_ABOVE_HZ: u32 = 52_000_000;

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

fn current_strobe_delay(r: &impl MsdcRegs, soc: &SocData) -> u8 {
    let dly1 = if soc.needs_top_base {
        Io::<MsdcTop>::read::<EMMC50_PAD_DS_TUNE>(r).pad_ds_dly1()
    } else {
        Io::<MsdcBase>::read::<PAD_DS_TUNE>(r).dly1()
    };
    // A 5-bit field.
    dly1 as u8
}
