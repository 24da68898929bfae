// SPDX-License-Identifier: GPL-2.0
//! Typed CQHCI descriptors (task, direct command, link, transfer) and the memory layout that
//! holds them; the only place that knows their bit encodings.
//!
//! Every descriptor starts with the same attribute bits: VALID (0), END (1), INT (2) and ACT
//! (5:3). All multi-byte fields are little-endian in memory.
//!
//! The 128-bit task descriptor's second word carries inline-crypto parameters. Inline crypto is
//! out of scope: that word is always written as zero and CQCFG's crypto enable stays clear.

use super::regs::Tag;

/// Size of a block in a queued transfer.
pub const BLOCK_SIZE: u32 = 512;

/// Largest data length of one transfer descriptor (its 16-bit length field holds 0 for this).
pub const MAX_TRANSFER_LENGTH: u32 = 64 * 1024;

const VALID: u64 = 1;
const END: u64 = 1 << 1;
const INT: u64 = 1 << 2;
const ACT_SHIFT: u32 = 3;

/// The ACT field (bits 5:3) of a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// No operation (used by a terminating link descriptor).
    Nop = 0,
    /// Transfer descriptor.
    Transfer = 4,
    /// Task descriptor (data task or direct command).
    Task = 5,
    /// Link descriptor.
    Link = 6,
}

const fn attributes(valid: bool, end: bool, interrupt: bool, action: Action) -> u64 {
    let mut bits = (action as u64) << ACT_SHIFT;
    if valid {
        bits |= VALID;
    }
    if end {
        bits |= END;
    }
    if interrupt {
        bits |= INT;
    }
    bits
}

/// Width of the bus addresses in link and transfer descriptors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaWidth {
    /// 32-bit addresses: 8-byte link and transfer descriptors.
    Bits32,
    /// 64-bit addresses: 16-byte link descriptors, 16-byte (or 12-byte) transfer descriptors.
    Bits64,
}

/// Size of a task descriptor (CQCFG.TASK_DESC_SZ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskDescriptorSize {
    /// 64-bit task descriptors.
    Bits64,
    /// 128-bit task descriptors (the upper word holds crypto parameters, always zero here).
    Bits128,
}

/// Direction of a data task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Device to memory.
    Read,
    /// Memory to device.
    Write,
}

/// Optional attributes of a data task (bits of the task descriptor and of CMD44).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskFlags {
    /// Reliable write (`MMC_DATA_REL_WR`).
    pub reliable_write: bool,
    /// Data tag (`MMC_DATA_DAT_TAG`).
    pub data_tag: bool,
    /// High priority (`MMC_DATA_PRIO`).
    pub priority: bool,
    /// Queue barrier (`MMC_DATA_QBR`).
    pub queue_barrier: bool,
    /// Forced programming (`MMC_DATA_FORCED_PRG`).
    pub forced_programming: bool,
}

/// A data transfer task: what the first word of its task descriptor says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTask {
    /// Transfer direction.
    pub direction: Direction,
    /// Number of 512-byte blocks (1..=65535).
    pub block_count: u16,
    /// First block address on the card.
    pub block_address: u32,
    /// Optional attributes.
    pub flags: TaskFlags,
    /// Context ID (4 bits; 0 = no context).
    pub context: u8,
}

impl DataTask {
    /// The first 64 bits of the task descriptor. `interrupt` sets INT: completion raises TCC
    /// at once instead of counting towards interrupt coalescing.
    pub const fn encode(&self, interrupt: bool) -> u64 {
        let f = &self.flags;
        let mut word = attributes(true, true, interrupt, Action::Task);
        if f.forced_programming {
            word |= 1 << 6;
        }
        word |= ((self.context & 0xF) as u64) << 7;
        if f.data_tag {
            word |= 1 << 11;
        }
        if matches!(self.direction, Direction::Read) {
            word |= 1 << 12;
        }
        if f.priority {
            word |= 1 << 13;
        }
        if f.queue_barrier {
            word |= 1 << 14;
        }
        if f.reliable_write {
            word |= 1 << 15;
        }
        word |= (self.block_count as u64) << 16;
        word |= (self.block_address as u64) << 32;
        word
    }

    /// Number of bytes the task moves.
    pub const fn byte_count(&self) -> u32 {
        self.block_count as u32 * BLOCK_SIZE
    }
}

/// The response a direct command expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcmdResponse {
    /// No response.
    None,
    /// A 48-bit response without busy (R1, R3, ...).
    Short,
    /// A 48-bit response followed by busy signalling on DAT0 (R1b).
    ShortBusy,
}

/// A direct command (DCMD) task, issued from slot 31.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectCommand {
    /// Command index (6 bits).
    pub opcode: u8,
    /// Command argument.
    pub argument: u32,
    /// Expected response.
    pub response: DcmdResponse,
}

impl DirectCommand {
    /// The first 64 bits of the task descriptor; the argument sits in bits 63:32.
    pub const fn encode(&self) -> u64 {
        // CMD_TIMING = 1 lets the command go out while a data transfer is active; a command
        // with busy must wait for the data lines, so it gets 0.
        let (response_type, timing): (u64, u64) = match self.response {
            DcmdResponse::None => (0, 1),
            DcmdResponse::Short => (2, 1),
            DcmdResponse::ShortBusy => (3, 0),
        };
        // Bits are merged with `|=` one field at a time; the fields never overlap.
        let mut word = attributes(true, true, true, Action::Task);
        word |= 1 << 14;
        word |= ((self.opcode & 0x3F) as u64) << 16;
        word |= timing << 22;
        word |= response_type << 23;
        word |= (self.argument as u64) << 32;
        word
    }
}

/// A link descriptor: where a slot's transfer descriptors are, or nothing (DCMD slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkDescriptor {
    /// Points to the slot's transfer descriptor list.
    Next(u64),
    /// Ends the slot (the DCMD slot has no transfer descriptors).
    Terminal,
}

/// A transfer descriptor: one contiguous piece of a task's data buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransferDescriptor {
    address: u64,
    length: u32,
    end: bool,
}

impl TransferDescriptor {
    /// A descriptor for `length` bytes (1..=64 KiB) at bus address `address`; `end` marks the
    /// last descriptor of the task.
    pub const fn new(address: u64, length: u32, end: bool) -> Option<Self> {
        if length == 0 || length > MAX_TRANSFER_LENGTH {
            None
        } else {
            Some(Self {
                address,
                length,
                end,
            })
        }
    }

    /// Bus address of the data.
    pub const fn address(&self) -> u64 {
        self.address
    }

    /// Length in bytes (1..=65536).
    pub const fn length(&self) -> u32 {
        self.length
    }

    /// Whether this is the task's last descriptor.
    pub const fn is_end(&self) -> bool {
        self.end
    }

    /// The 32-bit attribute word. The 16-bit length field holds 0 for 64 KiB.
    pub const fn attribute_word(&self) -> u32 {
        let mut word = attributes(true, self.end, false, Action::Transfer) as u32;
        word |= (self.length & 0xFFFF) << 16;
        word
    }
}

/// Why a descriptor could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The descriptor does not fit in the memory given.
    OutOfBounds,
    /// The address does not fit in a 32-bit descriptor.
    AddressTooWide,
}

fn put_u32(out: &mut [u8], offset: usize, value: u32) -> Result<(), EncodeError> {
    let end = offset.checked_add(4).ok_or(EncodeError::OutOfBounds)?;
    let dst = out.get_mut(offset..end).ok_or(EncodeError::OutOfBounds)?;
    dst.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

fn put_u64(out: &mut [u8], offset: usize, value: u64) -> Result<(), EncodeError> {
    let end = offset.checked_add(8).ok_or(EncodeError::OutOfBounds)?;
    let dst = out.get_mut(offset..end).ok_or(EncodeError::OutOfBounds)?;
    dst.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

fn put_address(
    out: &mut [u8],
    offset: usize,
    width: DmaWidth,
    address: u64,
) -> Result<(), EncodeError> {
    match width {
        DmaWidth::Bits64 => put_u64(out, offset, address),
        DmaWidth::Bits32 => {
            let narrow = u32::try_from(address).map_err(|_| EncodeError::AddressTooWide)?;
            put_u32(out, offset, narrow)
        }
    }
}

/// Sizes and offsets of the descriptor memory: one place for every length and position.
///
/// The task descriptor list (TDL) holds, for each of the 32 slots, a task descriptor followed
/// by a link descriptor. The transfer area holds `max_segments` transfer descriptors for each
/// data slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    task: TaskDescriptorSize,
    dma: DmaWidth,
    short_transfer: bool,
    max_segments: u16,
    data_slots: u8,
}

impl Layout {
    /// The layout for the given descriptor sizes. `short_transfer` is the 12-byte 64-bit
    /// transfer descriptor quirk; `data_slots` is the number of slots that carry data tasks
    /// (31 when slot 31 is the DCMD slot, else 32).
    pub const fn new(
        task: TaskDescriptorSize,
        dma: DmaWidth,
        short_transfer: bool,
        max_segments: u16,
        data_slots: u8,
    ) -> Self {
        Self {
            task,
            dma,
            short_transfer,
            max_segments,
            data_slots,
        }
    }

    /// Task descriptor size in bytes.
    pub const fn task_len(&self) -> usize {
        match self.task {
            TaskDescriptorSize::Bits64 => 8,
            TaskDescriptorSize::Bits128 => 16,
        }
    }

    /// Link descriptor size in bytes.
    pub const fn link_len(&self) -> usize {
        match self.dma {
            DmaWidth::Bits32 => 8,
            DmaWidth::Bits64 => 16,
        }
    }

    /// Distance between consecutive transfer descriptors in bytes.
    pub const fn transfer_len(&self) -> usize {
        match (self.dma, self.short_transfer) {
            (DmaWidth::Bits32, _) => 8,
            (DmaWidth::Bits64, true) => 12,
            (DmaWidth::Bits64, false) => 16,
        }
    }

    /// Size of one TDL slot (task descriptor plus link descriptor).
    pub const fn slot_len(&self) -> usize {
        self.task_len() + self.link_len()
    }

    /// Size of the task descriptor list.
    pub const fn tdl_len(&self) -> usize {
        self.slot_len() * Tag::COUNT
    }

    /// Size of one slot's transfer descriptor area.
    pub const fn transfer_slot_len(&self) -> usize {
        self.transfer_len() * self.max_segments as usize
    }

    /// Size of the whole transfer descriptor area.
    pub const fn transfer_area_len(&self) -> usize {
        self.transfer_slot_len() * self.data_slots as usize
    }

    /// Maximum number of transfer descriptors per task.
    pub const fn max_segments(&self) -> u16 {
        self.max_segments
    }

    /// Address width of link and transfer descriptors.
    pub const fn dma_width(&self) -> DmaWidth {
        self.dma
    }

    /// Offset of `tag`'s task descriptor in the TDL.
    pub const fn task_offset(&self, tag: Tag) -> usize {
        self.slot_len() * tag.index()
    }

    /// Offset of `tag`'s link descriptor in the TDL.
    pub const fn link_offset(&self, tag: Tag) -> usize {
        self.task_offset(tag) + self.task_len()
    }

    /// Offset of `tag`'s transfer descriptors in the transfer area.
    pub const fn transfer_offset(&self, tag: Tag) -> usize {
        self.transfer_slot_len() * tag.index()
    }

    /// Writes a task descriptor whose first word is `word0` into `tdl`; the second word of a
    /// 128-bit descriptor (crypto) is zero.
    pub fn write_task(&self, tdl: &mut [u8], tag: Tag, word0: u64) -> Result<(), EncodeError> {
        let offset = self.task_offset(tag);
        put_u64(tdl, offset, word0)?;
        if let TaskDescriptorSize::Bits128 = self.task {
            put_u64(tdl, offset + 8, 0)?;
        }
        Ok(())
    }

    /// Writes `tag`'s link descriptor into `tdl`.
    pub fn write_link(
        &self,
        tdl: &mut [u8],
        tag: Tag,
        link: LinkDescriptor,
    ) -> Result<(), EncodeError> {
        let offset = self.link_offset(tag);
        let (attr, address) = match link {
            LinkDescriptor::Next(address) => {
                (attributes(true, false, false, Action::Link), address)
            }
            LinkDescriptor::Terminal => (attributes(false, true, false, Action::Nop), 0),
        };
        // Zero the whole descriptor first so a 64-bit link's reserved upper bytes are clean.
        let end = offset
            .checked_add(self.link_len())
            .ok_or(EncodeError::OutOfBounds)?;
        tdl.get_mut(offset..end)
            .ok_or(EncodeError::OutOfBounds)?
            .fill(0);
        put_u32(tdl, offset, attr as u32)?;
        put_address(tdl, offset + 4, self.dma, address)
    }

    /// Writes transfer descriptor number `index` of a slot's area `area`.
    pub fn write_transfer(
        &self,
        area: &mut [u8],
        index: usize,
        desc: &TransferDescriptor,
    ) -> Result<(), EncodeError> {
        let offset = index
            .checked_mul(self.transfer_len())
            .ok_or(EncodeError::OutOfBounds)?;
        let end = offset
            .checked_add(self.transfer_len())
            .ok_or(EncodeError::OutOfBounds)?;
        let slot = area.get_mut(offset..end).ok_or(EncodeError::OutOfBounds)?;
        put_address(slot, 4, self.dma, desc.address)?;
        put_u32(slot, 0, desc.attribute_word())?;
        if self.transfer_len() == 16 {
            put_u32(slot, 12, 0)?;
        }
        Ok(())
    }
}
