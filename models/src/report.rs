// SPDX-License-Identifier: GPL-2.0
//! Which model violations a host of the models reports: the first of each kind, so that a
//! log names every distinct misuse once instead of either only the very first one or one
//! line per occurrence.

use core::mem::{discriminant, Discriminant};

/// The kinds (enum variants) of violations seen so far, up to `N` of them.
#[derive(Debug)]
pub struct FirstOfKind<V, const N: usize> {
    kinds: [Option<Discriminant<V>>; N],
}

impl<V, const N: usize> FirstOfKind<V, N> {
    /// Nothing seen yet.
    pub const fn new() -> Self {
        Self { kinds: [None; N] }
    }

    /// Whether `violation` is the first of its kind, which is then remembered. Once `N`
    /// kinds are remembered every further kind counts as seen: the log stays bounded.
    pub fn first(&mut self, violation: &V) -> bool {
        let kind = discriminant(violation);
        for slot in self.kinds.iter_mut() {
            match slot {
                Some(seen) if *seen == kind => return false,
                Some(_) => {}
                None => {
                    *slot = Some(kind);
                    return true;
                }
            }
        }
        false
    }
}

impl<V, const N: usize> Default for FirstOfKind<V, N> {
    fn default() -> Self {
        Self::new()
    }
}
