// SPDX-License-Identifier: GPL-2.0

//! The slot's counters, as debugfs shows them: its queue mode and the engine that runs it,
//! requests issued and completed, the most in flight at once, errors by kind, recoveries,
//! power cycles, tunings, hardware faults, dispatches deferred for a busy bus and the
//! interrupt handler's longest run, overall and by what it was about.

use core::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::{
    mmc_request::{ErrorKind, RequestResult},
    msdc::{clock::Timing, tuning::TuningReport},
    slot::InterruptKind,
};

/// The slot's queue mode, as debugfs shows it (`cqe`, `hsq` or `legacy`).
#[derive(Default)]
pub(crate) struct ModeCell(AtomicU8);

/// The modes a slot runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Mode {
    Legacy = 0,
    Hsq = 1,
    Cqe = 2,
}

impl core::fmt::Debug for ModeCell {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self.0.load(Ordering::Relaxed) {
            1 => "hsq",
            2 => "cqe",
            _ => "legacy",
        })
    }
}

/// Which implementation runs the slot's queue, as debugfs shows it: `rust` (the driver's
/// engines), `c` (the kernel's C engines, test kernels only) or `none` (a slot that serves
/// one request at a time).
#[derive(Default)]
pub(crate) struct EngineCell(AtomicU8);

/// The engines a slot's queue may run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Engine {
    None = 0,
    Rust = 1,
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    C = 2,
}

impl core::fmt::Debug for EngineCell {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self.0.load(Ordering::Relaxed) {
            1 => "rust",
            2 => "c",
            _ => "none",
        })
    }
}

/// Counters debugfs shows; written under the request lock, read without it.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) mode: ModeCell,
    /// Set once, when the slot is set up.
    pub(crate) engine: EngineCell,
    pub(crate) queue_depth: AtomicU32,
    pub(crate) issued: AtomicU64,
    pub(crate) completed: AtomicU64,
    pub(crate) max_in_flight: AtomicU32,
    pub(crate) errors: AtomicU64,
    pub(crate) errors_crc: AtomicU64,
    pub(crate) errors_timeout: AtomicU64,
    pub(crate) errors_other: AtomicU64,
    pub(crate) recoveries: AtomicU64,
    /// Direct commands (cache flushes) the command queue engine issued.
    pub(crate) direct_commands: AtomicU64,
    /// Runtime suspends and resumes of the controller.
    pub(crate) runtime_suspends: AtomicU64,
    pub(crate) runtime_resumes: AtomicU64,
    /// System sleeps the controller went through.
    pub(crate) system_sleeps: AtomicU64,
    /// Probes of tuning sweeps (tuning commands, EXT_CSD reads of the strobe sweep) and
    /// those that failed, as a sweep expects many to: not counted as errors.
    pub(crate) tuning_probes: AtomicU64,
    pub(crate) tuning_probes_failed: AtomicU64,
    /// The last tuning's outcome.
    pub(crate) tuning: TuningView,
    /// Tunings that succeeded: the first per timing, and every re-tune the core asked for
    /// after CRC errors.
    pub(crate) tunings: AtomicU64,
    /// Hardware faults the request engine recorded (a reset or DMA stop that never
    /// completed, a clock that never stabilised), each also logged.
    pub(crate) hardware_faults: AtomicU64,
    /// Software queue dispatches, and stop commands of open-ended writes, that found the
    /// bus busy (a card still programming a write) and went to the busy retry work.
    pub(crate) busy_retries: AtomicU64,
    /// The longest run of the interrupt handler so far, in ns of the monotonic clock: a
    /// stretch with interrupts off on its CPU.
    pub(crate) irq_max_ns: AtomicU64,
    /// The same by what the run was about, with the most register reads one run's polls
    /// made.
    pub(crate) irq_max: IrqMaxByKind,
}

/// The interrupt handler's longest run and most poll reads in one run, per
/// [`InterruptKind`], as debugfs shows them: one line per kind, `<kind> ns=<N>
/// polls=<N>`. The polls tell a wait for the hardware (many reads) from a slow guest (a
/// long run of few reads).
#[derive(Default)]
pub(crate) struct IrqMaxByKind {
    ns: [AtomicU64; InterruptKind::ALL.len()],
    polls: [AtomicU32; InterruptKind::ALL.len()],
}

impl IrqMaxByKind {
    fn record(&self, kind: InterruptKind, ns: u64, polls: u32) {
        if let Some(i) = InterruptKind::ALL.iter().position(|k| *k == kind) {
            self.ns[i].fetch_max(ns, Ordering::Relaxed);
            self.polls[i].fetch_max(polls, Ordering::Relaxed);
        }
    }
}

impl core::fmt::Debug for IrqMaxByKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for ((kind, ns), polls) in InterruptKind::ALL.iter().zip(&self.ns).zip(&self.polls) {
            writeln!(
                f,
                "{} ns={} polls={}",
                kind.name(),
                ns.load(Ordering::Relaxed),
                polls.load(Ordering::Relaxed)
            )?;
        }
        Ok(())
    }
}

/// The last tuning's outcome as debugfs shows it, `<timing> window=<lo>-<hi> chosen=<n>`
/// (the last sweep's passing window, which wraps when lo > hi, and the cell sampled at),
/// or `none` before the first tuning.
#[derive(Default)]
pub(crate) struct TuningView(AtomicU64);

impl TuningView {
    /// A published outcome has this bit set.
    const VALID: u64 = 1 << 63;

    pub(super) fn publish(&self, report: &TuningReport) {
        let s = report.sample;
        let packed = Self::VALID
            | (timing_code(report.timing) << 24)
            | (u64::from(s.window_start) << 16)
            | (u64::from(s.window_end) << 8)
            | u64::from(s.chosen);
        self.0.store(packed, Ordering::Relaxed);
    }
}

/// The names debugfs and the end-to-end run use for the timings a tuning is for.
const TUNED_TIMINGS: [(Timing, &str); 5] = [
    (Timing::MmcHs200, "hs200"),
    (Timing::MmcHs400, "hs400"),
    (Timing::UhsSdr104, "sdr104"),
    (Timing::UhsSdr50, "sdr50"),
    (Timing::UhsDdr50, "ddr50"),
];

fn timing_code(timing: Timing) -> u64 {
    TUNED_TIMINGS
        .iter()
        .position(|(t, _)| *t == timing)
        .map_or(0xFF, |i| i as u64)
}

impl core::fmt::Debug for TuningView {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let v = self.0.load(Ordering::Relaxed);
        if v & Self::VALID == 0 {
            return f.write_str("none");
        }
        let name = usize::try_from((v >> 24) & 0xFF)
            .ok()
            .and_then(|i| TUNED_TIMINGS.get(i))
            .map_or("other", |(_, name)| name);
        write!(
            f,
            "{} window={}-{} chosen={}",
            name,
            (v >> 16) & 0xFF,
            (v >> 8) & 0xFF,
            v & 0xFF
        )
    }
}

impl Counters {
    pub(super) fn set_mode(&self, mode: Mode) {
        self.mode.0.store(mode as u8, Ordering::Relaxed);
    }

    pub(super) fn set_engine(&self, engine: Engine) {
        self.engine.0.store(engine as u8, Ordering::Relaxed);
    }

    pub(super) fn issued(&self) {
        let issued = self.issued.fetch_add(1, Ordering::Relaxed) + 1;
        let in_flight = issued.saturating_sub(self.completed.load(Ordering::Relaxed));
        self.max_in_flight.fetch_max(
            u32::try_from(in_flight).unwrap_or(u32::MAX),
            Ordering::Relaxed,
        );
    }

    pub(super) fn completed(&self, errors: impl IntoIterator<Item = ErrorKind>) {
        self.completed.fetch_add(1, Ordering::Relaxed);
        let mut failed = false;
        for error in errors {
            failed = true;
            let counter = match error {
                ErrorKind::BadCrc => &self.errors_crc,
                ErrorKind::TimedOut => &self.errors_timeout,
                ErrorKind::DmaFault => &self.errors_other,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        if failed {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A probe of a tuning sweep completed, `failed` or not.
    pub(super) fn tuning_probe_completed(&self, failed: bool) {
        self.completed.fetch_add(1, Ordering::Relaxed);
        self.tuning_probes.fetch_add(1, Ordering::Relaxed);
        if failed {
            self.tuning_probes_failed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A tuning succeeded with `report`.
    pub(super) fn tuned(&self, report: &TuningReport) {
        self.tuning.publish(report);
        self.tunings.fetch_add(1, Ordering::Relaxed);
    }

    /// The request engine recorded a hardware fault.
    pub(super) fn hardware_fault(&self) {
        self.hardware_faults.fetch_add(1, Ordering::Relaxed);
    }

    /// A dispatch found the bus busy and waits for the busy retry.
    pub(super) fn busy_retry(&self) {
        self.busy_retries.fetch_add(1, Ordering::Relaxed);
    }

    /// The interrupt handler ran for `ns` about `kind`, its polls reading registers
    /// `polls` times.
    pub(crate) fn interrupt_handled(&self, kind: InterruptKind, ns: u64, polls: u32) {
        self.irq_max_ns.fetch_max(ns, Ordering::Relaxed);
        self.irq_max.record(kind, ns, polls);
    }

    pub(super) fn failed(&self) {
        self.completed([ErrorKind::DmaFault]);
    }
}

/// The errors of every phase of `result`.
pub(super) fn result_errors(result: &RequestResult) -> impl Iterator<Item = ErrorKind> + '_ {
    [
        result.sbc.and_then(|r| r.error),
        result.cmd.error,
        result.data.and_then(|d| d.error),
        result.stop.and_then(|r| r.error),
    ]
    .into_iter()
    .flatten()
}
