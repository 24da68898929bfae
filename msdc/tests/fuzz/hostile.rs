// SPDX-License-Identifier: GPL-2.0

//! What the lying register files of the `cqhci` and `msdc` fuzz targets share: the noise
//! they draw hostile bits from, and how they carry out a request the driver makes of the
//! hardware (the `cqhci` target includes this file with `#[path]`).

use std::cell::Cell;

use proptest::prelude::*;

/// How the hardware carries out a request (a halt, a reset, a self-clearing bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Obeys {
    AtOnce,
    Never,
    AtRandom,
}

/// `Obeys`, mostly at once.
pub(crate) fn obeys() -> impl Strategy<Value = Obeys> {
    prop_oneof![6 => Just(Obeys::AtOnce), 1 => Just(Obeys::Never), 2 => Just(Obeys::AtRandom)]
}

/// The hostile bits of one case: xorshift64, reproducible from the case's seed.
#[derive(Debug)]
pub(crate) struct Noise(Cell<u64>);

impl Noise {
    pub(crate) fn new(seed: u64) -> Self {
        Self(Cell::new(seed | 1))
    }

    pub(crate) fn bits(&self) -> u32 {
        let mut x = self.0.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0.set(x);
        (x >> 32) as u32
    }

    /// Whether the hardware carries out the request this time.
    pub(crate) fn carries_out(&self, how: Obeys) -> bool {
        match how {
            Obeys::AtOnce => true,
            Obeys::Never => false,
            Obeys::AtRandom => self.bits() & 1 == 1,
        }
    }
}

/// A poll's answer for the value it read last.
pub(crate) fn verdict(value: u32, done: impl FnOnce(u32) -> bool) -> Result<u32, u32> {
    if done(value) {
        Ok(value)
    } else {
        Err(value)
    }
}
