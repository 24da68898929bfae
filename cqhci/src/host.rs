// SPDX-License-Identifier: GPL-2.0
//! The host controller's side of the engine: vendor hooks, scatter-list segments and the
//! transfer descriptor list a hook may fill itself.

use super::desc::{EncodeError, Layout, TransferDescriptor, MAX_TRANSFER_LENGTH};
use super::engine::Error;
use super::regs::CqhciBlock;
use crate::registers::Io;

/// One DMA-mapped piece of a request's data buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Bus (DMA) address.
    pub address: u64,
    /// Length in bytes; may exceed 64 KiB (the engine splits it).
    pub length: u32,
}

/// Vendor hooks around the generic engine, all optional (the `cqhci_host_ops` of C).
///
/// The engine calls them synchronously, never while it waits, with the CQHCI registers it
/// was given; like register access, they take `&self`.
pub trait CqhciHost {
    /// The controller has been switched on (after enable, and when a request un-halts it).
    fn enable(&self, _regs: &impl Io<CqhciBlock>) {}

    /// The controller is being switched off: `recovery` is true at the start of error
    /// recovery (stop DMA and reset the host's data path), false on a plain `cqe_off`.
    fn disable(&self, _regs: &impl Io<CqhciBlock>, _recovery: bool) {}

    /// Called before a request takes the controller out of halt.
    fn pre_enable(&self, _regs: &impl Io<CqhciBlock>) {}

    /// Called after `cqe_off` has halted the controller.
    fn post_disable(&self, _regs: &impl Io<CqhciBlock>) {}

    /// Called after the engine's register dump so the host can add its own registers.
    fn dump_vendor_regs(&self, _regs: &impl Io<CqhciBlock>) {}

    /// Writes the transfer descriptors for one segment (the first argument) into the list
    /// itself, e.g. to split at a boundary the controller cannot cross. The second argument
    /// marks the request's final segment, whose final descriptor must have END set. Return
    /// `None` to use the default (split into 64 KiB pieces).
    fn prepare_transfer_descriptors(
        &self,
        _segment: Segment,
        _last: bool,
        _list: &mut TransferList<'_>,
    ) -> Option<Result<(), Error>> {
        None
    }
}

/// A host without vendor hooks.
impl CqhciHost for () {}

/// A slot's transfer descriptor area being filled, descriptor by descriptor.
#[derive(Debug)]
pub struct TransferList<'a> {
    area: &'a mut [u8],
    layout: Layout,
    count: usize,
    ended: bool,
}

impl<'a> TransferList<'a> {
    pub(super) fn new(area: &'a mut [u8], layout: Layout) -> Self {
        Self {
            area,
            layout,
            count: 0,
            ended: false,
        }
    }

    /// Appends one descriptor. Fails if the list is full, already ended, or the address does
    /// not fit the descriptor format.
    pub fn push(&mut self, desc: TransferDescriptor) -> Result<(), Error> {
        if self.ended {
            return Err(Error::TooManySegments);
        }
        if self.count >= usize::from(self.layout.max_segments()) {
            return Err(Error::TooManySegments);
        }
        self.layout
            .write_transfer(self.area, self.count, &desc)
            .map_err(|e| match e {
                EncodeError::AddressTooWide => Error::AddressNotReachable,
                EncodeError::OutOfBounds => Error::MemoryTooSmall,
            })?;
        self.count += 1;
        self.ended = desc.is_end();
        Ok(())
    }

    /// Appends `segment` as descriptors of at most 64 KiB each; END goes on the last piece of
    /// the last segment.
    pub fn push_segment(&mut self, segment: Segment, last: bool) -> Result<(), Error> {
        if segment.length == 0 {
            return Err(Error::EmptySegment);
        }
        let mut offset = 0u32;
        while offset < segment.length {
            let piece = (segment.length - offset).min(MAX_TRANSFER_LENGTH);
            let address = segment
                .address
                .checked_add(u64::from(offset))
                .ok_or(Error::AddressNotReachable)?;
            let end = last && segment.length - offset == piece;
            let desc = TransferDescriptor::new(address, piece, end).ok_or(Error::EmptySegment)?;
            self.push(desc)?;
            offset += piece;
        }
        Ok(())
    }

    /// Number of descriptors written.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no descriptor has been written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether the last descriptor written has END set.
    pub fn is_ended(&self) -> bool {
        self.ended
    }
}
