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

// The submodules reach the crate's other modules through `super::super` (the crate root
// on the host, the `msdc` module in the kernel).
mod delay_lines;
mod sequence;
mod window;

pub(super) use sequence::Tuner;
pub use window::{best_delay, DelayChoice, DelayWindow};

use super::clock::Timing;
use super::regs::{MSDC_PAD_TUNE0, MSDC_PATCH_BIT0, PAD_DS_TUNE};
use super::soc::SocData;
use crate::registers::FieldOverflow;

/// Cells of one delay line (upstream's `PAD_DELAY_HALF`): a 5-bit delay field.
pub const DELAY_LINE_CELLS: u8 = 32;

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

/// At or below this bus clock the default parameters apply (upstream's 52 MHz: the
/// high-speed step between HS200 and HS400 runs there).
pub const TUNED_ABOVE_HZ: u32 = 52_000_000;
