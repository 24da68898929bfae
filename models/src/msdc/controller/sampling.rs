// SPDX-License-Identifier: GPL-2.0
//! Tuning: the board's sample windows, and the delay lines and edges (pad tune or top
//! registers, the data strobe in HS400) that decide whether the host reads a response, read
//! data or a CRC status right once the bus runs faster than [`RELAXED_CLOCK_HZ`].

use super::super::regs::{
    ClockMode, EMMC50_CFG0, EMMC50_PAD_DS_TUNE, EMMC_TOP_CMD, EMMC_TOP_CONTROL, MSDC_IOCON,
    MSDC_PAD_TUNE, MSDC_PAD_TUNE0, MSDC_PATCH_BIT, PAD_DS_TUNE, PAD_TUNE2_CELLS, PAD_TUNE_CELLS,
};
use super::MsdcModel;

/// The fastest bus clock at which every sample delay and edge works: the legacy and
/// high-speed timings (up to 52 MHz, DDR52 included) have the margin; above it (HS200,
/// SDR104, SDR50, HS400) the board's [`SampleWindows`] decide.
pub const RELAXED_CLOCK_HZ: u32 = 52_000_000;

/// Cells of a response or read data delay line: two cascaded cells of 0..31, 0..62 in all.
pub const DELAY_CELLS: u32 = 64;

/// Cells of the data strobe's `DLY1` delay.
pub const STROBE_CELLS: u32 = 32;

/// The board's sampling windows: which sample delays, on which clock edge, read a line
/// correctly once the bus runs faster than [`RELAXED_CLOCK_HZ`]. Bit `d` of a window is set
/// when an effective delay of `d` cells samples correctly; the effective delay is the sum
/// of the delay cells the pad tune (or top) registers enable (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleWindows {
    /// The response on CMD, by edge ([`SampleWindows::RISING`], [`SampleWindows::FALLING`],
    /// selected by `MSDC_IOCON.RSPL`).
    pub cmd: [u64; 2],
    /// Read data and the write CRC status on DAT, by edge (`MSDC_IOCON.DSPL` and `W_DSPL`,
    /// or `PATCH_BIT.RD_DAT_SEL` and `PATCH_BIT2.CFGCRCSTSEDGE` on new-RX SoCs).
    pub data: [u64; 2],
    /// HS400: the data strobe's `DLY1` settings (0..31) at which the strobe latches the
    /// read data and CRC status (and, with enhanced strobe, the response).
    pub strobe: u32,
}

impl SampleWindows {
    /// The index of the rising edge's window.
    pub const RISING: usize = 0;
    /// The index of the falling edge's window.
    pub const FALLING: usize = 1;

    /// Every delay on either edge works: a board without timing trouble.
    pub const ALL: Self = Self {
        cmd: [u64::MAX; 2],
        data: [u64::MAX; 2],
        strobe: u32::MAX,
    };

    /// A window of `len` delay cells from `start`, wrapping past the last of the
    /// [`DELAY_CELLS`] back to 0 (a `len` of 64 or more is every cell).
    pub const fn span(start: u32, len: u32) -> u64 {
        wrapping_span(start, len, DELAY_CELLS)
    }

    /// A strobe window of `len` `DLY1` settings from `start`, wrapping past 31.
    pub const fn strobe_span(start: u32, len: u32) -> u32 {
        // At most STROBE_CELLS bits: nothing is cut.
        wrapping_span(start, len, STROBE_CELLS) as u32
    }
}

/// Where the host samples a line: the clock edge and the effective delay in cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplePoint {
    /// Sampled on the falling edge (index [`SampleWindows::FALLING`] of a window).
    pub falling: bool,
    /// The effective delay, in cells ([`DELAY_CELLS`]).
    pub delay: u32,
}

/// Where the host samples the response and the read data, at a timing that the board's
/// `cmd` and `data` windows decide (above [`RELAXED_CLOCK_HZ`], HS400 aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplePoints {
    /// The response on CMD.
    pub cmd: SamplePoint,
    /// The read data on DAT.
    pub data: SamplePoint,
}

/// A bad stretch punched into the run of passing cells under a sample point
/// ([`SampleWindows::hole_under`]), each an inclusive range of cells: the short run left
/// below it, the stretch, and the wider run left above it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    /// The run of passing cells left below the stretch.
    pub below: (u32, u32),
    /// The stretch that no longer samples right, the sample point at its top.
    pub stretch: (u32, u32),
    /// The run of passing cells left above the stretch.
    pub above: (u32, u32),
}

impl SampleWindows {
    /// The cells a hole keeps at the bottom of the run it is punched into.
    pub const HOLE_KEEPS_BELOW: u32 = 2;

    /// The other edge's `window` of a line that got a hole ([`SampleWindows::hole_under`]):
    /// the bad stretch lies across that edge's runs too, so that each keeps only its
    /// lowest [`SampleWindows::HOLE_KEEPS_BELOW`] cells, no more than the run below the
    /// hole. Without this, a slot whose other edge has a run as wide as the one above the
    /// hole would leave the choice between the two to the tuning's edge rule.
    pub fn hole_across(window: u64) -> u64 {
        let mut kept = 0u64;
        let mut run = 0;
        for cell in 0..DELAY_CELLS {
            if bit_set(window, cell) {
                if run < Self::HOLE_KEEPS_BELOW {
                    kept |= 1 << cell;
                }
                run += 1;
            } else {
                run = 0;
            }
        }
        kept
    }

    /// `window` with a hole under the sample delay `delay`, as a board's window gets one
    /// when crosstalk or a reflection spoils a stretch of it (the tuning windows with a
    /// hole that upstream's 64-step tuning answered): in the run of passing cells around
    /// `delay` (`lo..=hi`, not wrapping past the last cell), the cells from `lo + 2` up
    /// to `delay` stop working, so that a short run of two cells is left below the hole
    /// and a wider one above it. A tuning that takes the first run it finds lands in the
    /// short run, at its edge; one that takes the widest lands above. `None` if `delay`
    /// does not sample right or the run above would not be the wider.
    pub fn hole_under(window: u64, delay: u32) -> Option<(u64, Hole)> {
        if delay >= DELAY_CELLS || !bit_set(window, delay) {
            return None;
        }
        let mut lo = delay;
        while lo > 0 && bit_set(window, lo - 1) {
            lo -= 1;
        }
        let mut hi = delay;
        while hi + 1 < DELAY_CELLS && bit_set(window, hi + 1) {
            hi += 1;
        }
        let first_bad = lo + Self::HOLE_KEEPS_BELOW;
        if delay < first_bad || hi - delay <= Self::HOLE_KEEPS_BELOW {
            return None;
        }
        let stretch = Self::span(first_bad, delay - first_bad + 1);
        Some((
            window & !stretch,
            Hole {
                below: (lo, first_bad - 1),
                stretch: (first_bad, delay),
                above: (delay + 1, hi),
            },
        ))
    }
}

/// `len` consecutive bits from `start` in a ring of `cells` bits (at most 64).
const fn wrapping_span(start: u32, len: u32, cells: u32) -> u64 {
    let mut window = 0u64;
    let mut i = 0;
    while i < len && i < cells {
        window |= 1 << ((start % cells + i) % cells);
        i += 1;
    }
    window
}

impl Default for SampleWindows {
    /// [`SampleWindows::ALL`].
    fn default() -> Self {
        Self::ALL
    }
}

/// Where the SoC's pad tune register is (`pad_tune_reg` of mtk-sd.c's per-SoC data), used
/// for the delays when the controller has no top window; the second cells are at `+4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PadTuneLayout {
    /// `MSDC_PAD_TUNE` at 0xEC (MT8173, MT8135, MT6795, MT7620), second cells at 0xF0.
    PadTune,
    /// `MSDC_PAD_TUNE0` at 0xF0 (MT8183 family, MT2701, MT2712, MT7622 and the rest),
    /// second cells at 0xF4.
    #[default]
    PadTune0,
}

impl PadTuneLayout {
    /// The offset of the register with the first delay cells.
    pub const fn offset(self) -> usize {
        match self {
            Self::PadTune => MSDC_PAD_TUNE::OFFSET,
            Self::PadTune0 => MSDC_PAD_TUNE0::OFFSET,
        }
    }

    /// The offset of the register with the second delay cells.
    pub const fn second_offset(self) -> usize {
        self.offset() + SECOND_CELLS
    }
}

/// How far the second delay cells' register is from the first's (mtk-sd.c's fixed offset).
const SECOND_CELLS: usize = 4;

/// What the samplers need to get right at the current bus timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timing {
    /// At or below [`RELAXED_CLOCK_HZ`]: every delay and edge works.
    Relaxed,
    /// Above it without HS400: the cmd and data windows.
    Fast,
    /// HS400 (`CKMOD` 3) above it: the cmd window and the strobe.
    Hs400,
}

impl MsdcModel {
    /// Changes the board's sampling windows from now on (a board whose timing drifts, so
    /// that the delays software tuned stop working and the host must re-tune).
    pub fn set_sampling(&mut self, windows: SampleWindows) {
        self.config.sampling = windows;
    }

    /// The bus timing the samplers face.
    fn timing(&self) -> Timing {
        if self.bus_clock_hz() <= RELAXED_CLOCK_HZ {
            Timing::Relaxed
        } else if self.clock_setting(self.cfg).mode == ClockMode::Hs400 {
            Timing::Hs400
        } else {
            Timing::Fast
        }
    }

    /// The effective response delay: the enabled cells of the top window's `EMMC_TOP_CMD`,
    /// or of the pad tune register and the one after it.
    fn cmd_delay(&self) -> u32 {
        if self.config.top_region {
            let clock_tune = EMMC_TOP_CONTROL::from_raw(self.top_value(EMMC_TOP_CONTROL::OFFSET))
                .pad_rxdly_sel();
            let r = EMMC_TOP_CMD::from_raw(self.top_value(EMMC_TOP_CMD::OFFSET));
            cascade(
                (r.pad_cmd_rd_rxdly_sel() || clock_tune, r.pad_cmd_rxdly()),
                (r.pad_cmd_rd_rxdly2_sel(), r.pad_cmd_rxdly2()),
            )
        } else {
            let (first, second) = self.pad_tune_cells();
            cascade(
                (first.cmd_sel() || first.rxdlysel(), first.cmdrdly()),
                (second.cmd2_sel(), second.cmdrdly2()),
            )
        }
    }

    /// The effective read data (and CRC status) delay, as [`MsdcModel::cmd_delay`] for the
    /// data lines (`EMMC_TOP_CONTROL`, or `DATRRDLY`/`DATRRDLY2`).
    fn data_delay(&self) -> u32 {
        if self.config.top_region {
            let r = EMMC_TOP_CONTROL::from_raw(self.top_value(EMMC_TOP_CONTROL::OFFSET));
            cascade(
                (
                    r.pad_dat_rd_rxdly_sel() || r.pad_rxdly_sel(),
                    r.pad_dat_rd_rxdly(),
                ),
                (r.pad_dat_rd_rxdly2_sel(), r.pad_dat_rd_rxdly2()),
            )
        } else {
            let (first, second) = self.pad_tune_cells();
            cascade(
                (first.rd_sel() || first.rxdlysel(), first.datrrdly()),
                (second.rd2_sel(), second.datrrdly2()),
            )
        }
    }

    /// The pad tune register and the one after it, decoded.
    fn pad_tune_cells(&self) -> (PAD_TUNE_CELLS, PAD_TUNE2_CELLS) {
        let layout = self.config.pad_tune;
        (
            PAD_TUNE_CELLS::from_raw(self.plain_value(layout.offset())),
            PAD_TUNE2_CELLS::from_raw(self.plain_value(layout.second_offset())),
        )
    }

    /// The data strobe's `DLY1` setting, 0 while `DLY_SEL` bypasses the cells.
    fn strobe_delay(&self) -> u32 {
        if self.config.top_region {
            let r = EMMC50_PAD_DS_TUNE::from_raw(self.top_value(EMMC50_PAD_DS_TUNE::OFFSET));
            if r.pad_ds_dly_sel() {
                r.pad_ds_dly1()
            } else {
                0
            }
        } else {
            let r = PAD_DS_TUNE::from_raw(self.plain_value(PAD_DS_TUNE::OFFSET));
            if r.dly_sel() {
                r.dly1()
            } else {
                0
            }
        }
    }

    fn strobe_latches(&self) -> bool {
        bit_set(u64::from(self.config.sampling.strobe), self.strobe_delay())
    }

    /// Whether the host reads the response right at the current timing, delay and edge.
    pub(super) fn response_sampled(&self) -> bool {
        let w = &self.config.sampling;
        match self.timing() {
            Timing::Relaxed => true,
            Timing::Hs400
                if EMMC50_CFG0::from_raw(self.plain_value(EMMC50_CFG0::OFFSET)).cmd_resp_sel() =>
            {
                self.strobe_latches()
            }
            Timing::Fast | Timing::Hs400 => {
                let edge = MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET)).rspl();
                bit_set(w.cmd[usize::from(edge)], self.cmd_delay())
            }
        }
    }

    /// Whether the host reads the data (`write == false`) or the write CRC status right.
    pub(super) fn data_sampled(&self, write: bool) -> bool {
        let w = &self.config.sampling;
        match self.timing() {
            Timing::Relaxed => true,
            // The card drives the strobe with its read data and its CRC status.
            Timing::Hs400 => self.strobe_latches(),
            Timing::Fast => {
                let falling = if self.config.new_rx {
                    if write {
                        self.patch_bit2().cfgcrcstsedge()
                    } else {
                        MSDC_PATCH_BIT::from_raw(self.plain_value(MSDC_PATCH_BIT::OFFSET))
                            .rd_dat_sel()
                    }
                } else {
                    let iocon = MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET));
                    if write {
                        iocon.w_dspl()
                    } else {
                        iocon.dspl()
                    }
                };
                bit_set(w.data[usize::from(falling)], self.data_delay())
            }
        }
    }

    /// Where the host samples the response and the read data now, if the board's `cmd`
    /// and `data` windows decide at the current timing (above [`RELAXED_CLOCK_HZ`],
    /// HS400 aside): the edges and the effective delays the registers select.
    pub fn sample_points(&self) -> Option<SamplePoints> {
        if self.timing() != Timing::Fast {
            return None;
        }
        let cmd = SamplePoint {
            falling: MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET)).rspl(),
            delay: self.cmd_delay(),
        };
        let falling = if self.config.new_rx {
            MSDC_PATCH_BIT::from_raw(self.plain_value(MSDC_PATCH_BIT::OFFSET)).rd_dat_sel()
        } else {
            MSDC_IOCON::from_raw(self.plain_value(MSDC_IOCON::OFFSET)).dspl()
        };
        let data = SamplePoint {
            falling,
            delay: self.data_delay(),
        };
        Some(SamplePoints { cmd, data })
    }

    /// The board's sampling windows now.
    pub fn sampling(&self) -> SampleWindows {
        self.config.sampling
    }

    pub(super) fn sampling_error(&mut self) {
        self.sampling_errors = self.sampling_errors.saturating_add(1);
    }

    /// How many CRC errors (RSPCRCERR, ACMDCRCERR, DATCRCERR) came from a sample outside
    /// the board's windows ([`ModelConfig::sampling`](super::ModelConfig::sampling)):
    /// expected while software tunes, so counted here rather than as violations.
    pub fn sampling_errors(&self) -> u32 {
        self.sampling_errors
    }

    /// How many tuning block commands the controller sent: SD's CMD19 and eMMC's CMD21
    /// SEND_TUNING_BLOCK (SD Physical Layer 4.2.4.5, JEDEC 84-B51 6.6.5.1), whoever
    /// drives the controller (opcode 19 is also eMMC's BUS_TEST_W, which the MMC
    /// core sends only with `MMC_CAP_BUS_WIDTH_TEST`). Software tunes with a sweep of
    /// them, so a tuning shows here as tens of them.
    pub fn tuning_commands(&self) -> u32 {
        self.tuning_commands
    }
}

/// The delay of two cascaded cells, each counted when its select bit is set.
fn cascade(first: (bool, u32), second: (bool, u32)) -> u32 {
    let cell = |(on, cells): (bool, u32)| if on { cells } else { 0 };
    cell(first) + cell(second)
}

/// Whether bit `delay` of `window` is set (none past the window's width).
fn bit_set(window: u64, delay: u32) -> bool {
    window.checked_shr(delay).is_some_and(|w| w & 1 == 1)
}
