// SPDX-License-Identifier: GPL-2.0

//! Choosing a sample point from a sweep's pass/fail map: the longest window of passing
//! delay cells, the cell to sample at inside it, and the edge of a two-edge sweep.
//!
//! Pure functions of the map: nothing here touches a register.

use super::{SampleEdge, TuningError, TuningStep};

/// A rising-edge window at least this long is good enough: the falling edge is not swept.
const GOOD_WINDOW: u8 = 12;

/// A rising-edge window starting at cell 0 and at least this long is good enough too.
const GOOD_WINDOW_FROM_ZERO: u8 = 4;

/// A falling-edge response window this long, starting below [`NEAR_ZERO`], is preferred
/// over a longer rising one (upstream's response rule).
const NEAR_ZERO: u8 = 4;

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
pub(super) fn rising_good_enough(choice: &DelayChoice) -> bool {
    let w = choice.window;
    w.len >= GOOD_WINDOW || (w.start == 0 && w.len >= GOOD_WINDOW_FROM_ZERO)
}

/// Picks the edge of a two-edge sweep: the longer window, the rising edge of equal ones;
/// for the response, a falling window of [`GOOD_WINDOW`] starting below [`NEAR_ZERO`] beats
/// a longer rising one (upstream's `msdc_tune_response`).
pub(super) fn choose_edge(
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
