// SPDX-License-Identifier: GPL-2.0

//! Register access: one trait, one receiver convention, the window in the type.

use core::fmt;

/// A register window: a block of registers with its own base address, such as a device-tree
/// `reg` entry or a block at a fixed offset inside one. Implemented by zero-sized marker types
/// that name the window; every register type names the window it lives in.
pub trait Window {
    /// The window's name as the datasheet or the device tree calls it.
    const NAME: &'static str;
}

/// A 32-bit hardware register at a fixed offset of its [`Window`]. Implemented by
/// [`register!`](crate::register!) for every register it declares with a location.
pub trait Register: Copy {
    /// The window the register lives in.
    type Window: Window;
    /// Byte offset from the start of the window.
    const OFFSET: usize;
    /// The register's datasheet name.
    const NAME: &'static str;

    /// Wraps a raw value read from the hardware.
    fn from_raw(raw: u32) -> Self;

    /// The raw value to write to the hardware.
    fn raw(self) -> u32;
}

/// How long a poll waits: `attempts` reads with `interval_us` microseconds of busy-waiting
/// between two of them. A poll never waits longer than `attempts * interval_us` plus the
/// reads themselves, and never sleeps, so it may run in atomic context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollLimit {
    /// Reads before the poll gives up (at least one read is always made).
    pub attempts: u32,
    /// Busy-wait between two reads, in microseconds.
    pub interval_us: u32,
}

/// A poll ran out of attempts before the register reached the awaited state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollTimeout {
    /// The register's datasheet name.
    pub register: &'static str,
    /// The value of the last read.
    pub last: u32,
}

impl fmt::Display for PollTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} stayed at {:#010x}", self.register, self.last)
    }
}

/// Access to the registers of window `W`: MMIO in the kernel, a hardware model in tests.
///
/// Implementors provide the three raw operations; code uses the typed ones, which take the
/// offset from the register type. A type that implements `Io<W>` for some windows and not
/// others cannot be used to reach a register of another window: that does not compile.
///
/// `write32` must order earlier writes to coherent memory before the register write (the
/// kernel's `writel` does, `writel_relaxed` does not): DMA engines fetch descriptors as soon
/// as a start or doorbell register is written.
pub trait Io<W: Window> {
    /// Reads the 32-bit register at byte offset `offset` of the window.
    fn read32(&self, offset: usize) -> u32;

    /// Writes the 32-bit register at byte offset `offset` of the window.
    fn write32(&self, offset: usize, value: u32);

    /// Reads the register at `offset` until `done` accepts its value, at most as long as
    /// `limit` allows; returns the accepted value or the last one read.
    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32>;

    /// Reads register `R`.
    fn read<R: Register<Window = W>>(&self) -> R {
        R::from_raw(self.read32(R::OFFSET))
    }

    /// Writes register `R`.
    fn write<R: Register<Window = W>>(&self, value: R) {
        self.write32(R::OFFSET, value.raw());
    }

    /// Reads register `R`, changes it with `change` and writes the result back; returns what
    /// was written.
    fn update<R: Register<Window = W>>(&self, change: impl FnOnce(R) -> R) -> R {
        let value = change(self.read::<R>());
        self.write(value);
        value
    }

    /// Polls register `R` until `done` accepts its value, bounded by `limit`.
    fn poll<R: Register<Window = W>>(
        &self,
        mut done: impl FnMut(R) -> bool,
        limit: PollLimit,
    ) -> Result<R, PollTimeout> {
        self.poll32(R::OFFSET, |raw| done(R::from_raw(raw)), limit)
            .map(R::from_raw)
            .map_err(|last| PollTimeout {
                register: R::NAME,
                last,
            })
    }
}

/// [`Io::poll32`] for an implementation that can only read and wait, such as a hardware
/// model: `read` until `done` accepts the value, `wait_us(limit.interval_us)` between two
/// reads, at most `limit.attempts` reads (at least one).
pub fn poll_by_reads(
    mut read: impl FnMut() -> u32,
    mut wait_us: impl FnMut(u32),
    mut done: impl FnMut(u32) -> bool,
    limit: PollLimit,
) -> Result<u32, u32> {
    let mut last = read();
    for _ in 1..limit.attempts.max(1) {
        if done(last) {
            return Ok(last);
        }
        wait_us(limit.interval_us);
        last = read();
    }
    if done(last) {
        Ok(last)
    } else {
        Err(last)
    }
}
