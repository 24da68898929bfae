// SPDX-License-Identifier: GPL-2.0

//! How a driver reaches a model: the models are register files, and [`Bus`] puts one behind
//! the register layer's [`Io`] trait, for each window the model [`Serves`].
//!
//! The driver's code takes `&impl Io<Window>` as it does over MMIO, so the same code drives
//! the hardware and the models. The window types come from the driver crates; the offsets
//! inside a window are decoded by the models with their own register definitions.

use core::cell::{RefCell, RefMut};

use crate::registers::{poll_by_reads, Io, PollLimit, Window};

/// A model's register file: what a bus read or write does to it.
pub trait RegisterFile {
    /// A 32-bit read at byte offset `offset` of the model's register space, with the side
    /// effects the hardware's read has.
    fn read(&mut self, offset: usize) -> u32;

    /// A 32-bit write at byte offset `offset`.
    fn write(&mut self, offset: usize, value: u32);

    /// The driver busy-waited `us` microseconds between two polls.
    fn wait_us(&mut self, _us: u32) {}
}

/// A model serves window `W` at byte offset [`Serves::BASE`] of its register space.
pub trait Serves<W: Window> {
    /// Where the window starts in the model's register space.
    const BASE: usize;
}

/// A model on a register bus. Accesses borrow the model for their own duration only, so a
/// test may inspect or step the model between two accesses through [`Bus::model`].
pub struct Bus<M> {
    model: RefCell<M>,
}

impl<M> Bus<M> {
    /// Puts `model` on the bus.
    pub fn new(model: M) -> Self {
        Self {
            model: RefCell::new(model),
        }
    }

    /// The model, for a test to inspect or step; no register access may happen meanwhile.
    pub fn model(&self) -> RefMut<'_, M> {
        self.model.borrow_mut()
    }

    /// The model, taken off the bus.
    pub fn into_model(self) -> M {
        self.model.into_inner()
    }
}

impl<M: RegisterFile + Serves<W>, W: Window> Io<W> for Bus<M> {
    fn read32(&self, offset: usize) -> u32 {
        self.model.borrow_mut().read(M::BASE + offset)
    }

    fn write32(&self, offset: usize, value: u32) {
        self.model.borrow_mut().write(M::BASE + offset, value);
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        let model = RefCell::new(self.model.borrow_mut());
        poll_by_reads(
            || model.borrow_mut().read(M::BASE + offset),
            |us| model.borrow_mut().wait_us(us),
            done,
            limit,
        )
    }
}
