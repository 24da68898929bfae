// SPDX-License-Identifier: GPL-2.0

//! What tells a runtime-suspended controller of the SDIO card's interrupt while the MMC
//! core has it enabled: a source the slot holds from the enable to the disable, either the
//! dedicated wake-up interrupt (the card's interrupt on DAT1 resumes the controller) or a
//! usage hold that keeps the controller running.
//!
//! Making a source and releasing one sleep (`request_irq`, `free_irq` through the PM
//! core's wake-up interrupt), so neither can run under the slot's spinlock. The decision
//! is taken under the lock, in one section per call, and the work is done outside it:
//!
//! - [`SdioIrqSource::set_enabled`] records the core's enable or disable and says what
//!   to do: make a source ([`Step::Arm`], with a [`Ticket`]), release one
//!   ([`Step::Release`]), or nothing. An enable while a source is held or being made
//!   asks for nothing more; a disable takes the held source out, or cancels the one
//!   being made.
//! - [`SdioIrqSource::armed`] takes the source made for a ticket, if that enable still
//!   stands and no later decision superseded it; otherwise it hands the source back, to
//!   be released outside the lock. A held source is never replaced, so none is dropped
//!   under the lock.
//! - [`SdioIrqSource::remove`] (the host left the core) takes the held source out and
//!   refuses every later arming.

/// What [`SdioIrqSource::set_enabled`] asks of its caller, outside the lock.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub enum Step<S> {
    /// Nothing.
    Nothing,
    /// Make a source and give it to [`SdioIrqSource::armed`] with this ticket.
    Arm(Ticket),
    /// Release this source.
    Release(S),
}

/// Names one arming decision; a source made for an older one is not kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u32);

#[derive(Debug)]
enum Held<S> {
    None,
    /// A source is being made outside the lock for this ticket.
    Arming(u32),
    Armed(S),
}

/// The slot's SDIO interrupt source, under the slot's lock.
#[derive(Debug)]
pub struct SdioIrqSource<S> {
    held: Held<S>,
    /// The last arming decision's ticket.
    generation: u32,
    /// The core has the card's interrupt enabled.
    enabled: bool,
    /// The host has left the core: no source any more.
    removed: bool,
}

impl<S> Default for SdioIrqSource<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> SdioIrqSource<S> {
    /// No source, the interrupt disabled.
    pub const fn new() -> Self {
        Self {
            held: Held::None,
            generation: 0,
            enabled: false,
            removed: false,
        }
    }

    /// The core enables (`true`) or disables the card's interrupt.
    pub fn set_enabled(&mut self, enable: bool) -> Step<S> {
        self.enabled = enable && !self.removed;
        if self.enabled {
            match self.held {
                Held::None => {
                    self.generation = self.generation.wrapping_add(1);
                    self.held = Held::Arming(self.generation);
                    Step::Arm(Ticket(self.generation))
                }
                // Held or being made: that source serves this enable too.
                Held::Arming(_) | Held::Armed(_) => Step::Nothing,
            }
        } else {
            match core::mem::replace(&mut self.held, Held::None) {
                Held::Armed(source) => Step::Release(source),
                // The arming under way is superseded: its source comes back from `armed`.
                Held::Arming(_) | Held::None => Step::Nothing,
            }
        }
    }

    /// Keeps `source`, made for `ticket`, if that decision still stands; otherwise hands
    /// it back to be released outside the lock.
    pub fn armed(&mut self, ticket: Ticket, source: S) -> Option<S> {
        match self.held {
            Held::Arming(generation) if generation == ticket.0 && self.enabled => {
                self.held = Held::Armed(source);
                None
            }
            _ => Some(source),
        }
    }

    /// The host left the core: the source to release outside the lock; none is made again.
    pub fn remove(&mut self) -> Option<S> {
        self.removed = true;
        self.enabled = false;
        match core::mem::replace(&mut self.held, Held::None) {
            Held::Armed(source) => Some(source),
            Held::Arming(_) | Held::None => None,
        }
    }

    /// The source held, if one is.
    pub fn source(&self) -> Option<&S> {
        match &self.held {
            Held::Armed(source) => Some(source),
            _ => None,
        }
    }
}
