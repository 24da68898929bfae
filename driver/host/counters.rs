// SPDX-License-Identifier: GPL-2.0

//! The slot's counters, as debugfs shows them: its queue mode, requests issued and
//! completed, the most in flight at once, errors by kind, recoveries and power cycles.

use core::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::mmc_request::{ErrorKind, RequestResult};

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

/// Counters debugfs shows; written under the request lock, read without it.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) mode: ModeCell,
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
}

impl Counters {
    pub(super) fn set_mode(&self, mode: Mode) {
        self.mode.0.store(mode as u8, Ordering::Relaxed);
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
