// SPDX-License-Identifier: GPL-2.0
//! CQHCI descriptors (task, direct command, link and transfer) as typed words, and the memory
//! layout that holds them; the only place that knows their encodings.
//!
//! Every descriptor starts with the same attribute bits: Valid, End, Int and Act. Words are
//! little-endian in memory.
//!
//! The 128-bit task descriptor is the 64-bit task word followed by a crypto word. Inline
//! crypto is out of scope: that word is always zero and CQCFG's crypto enable stays clear.

use super::regs::Tag;
use crate::registers::FieldOverflow;

/// Size of a block in a queued transfer.
pub const BLOCK_SIZE: u32 = 512;

/// Largest data length of one transfer descriptor (its 16-bit length field holds 0 for this).
pub const MAX_TRANSFER_LENGTH: u32 = 64 * 1024;

/// Bytes in one descriptor word.
const WORD_LEN: usize = core::mem::size_of::<u64>();

field_enum! {
    /// The Act field of a descriptor: what kind of descriptor it is.
    pub enum Act: 3 bits, partial {
        /// No operation (a terminating link descriptor).
        Nop = 0b000,
        /// Transfer descriptor.
        Transfer = 0b100,
        /// Task descriptor (data task or direct command).
        Task = 0b101,
        /// Link descriptor.
        Link = 0b110,
    }
}

/// Width of the bus addresses in link and transfer descriptors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaWidth {
    /// 32-bit addresses: 8-byte link and transfer descriptors.
    Bits32,
    /// 64-bit addresses: 16-byte link descriptors, 16-byte (or 12-byte) transfer descriptors.
    Bits64,
}

field_enum! {
    /// Size of a task descriptor (CQCFG.TASK_DESC_SZ).
    pub enum TaskDescriptorSize: 1 bits {
        /// 64-bit task descriptors.
        Bits64 = 0,
        /// 128-bit task descriptors (the upper word holds crypto parameters, always zero here).
        Bits128 = 1,
    }
}

field_enum! {
    /// Direction of a data task (the task descriptor's Data Direction bit).
    pub enum Direction: 1 bits {
        /// Memory to device.
        Write = 0,
        /// Device to memory.
        Read = 1,
    }
}

field_enum! {
    /// The response a direct command expects (the DCMD descriptor's Response Type).
    pub enum DcmdResponse: 2 bits, partial {
        /// No response.
        None = 0b00,
        /// A 48-bit response without busy (R1, R4, R5).
        Short = 0b10,
        /// A 48-bit response followed by busy signalling on DAT0 (R1b).
        ShortBusy = 0b11,
    }
}

register! {
    /// Task descriptor of a data transfer task, bits 63:0.
    pub TASK_DESC(u64) {
        /// Valid: the descriptor may be used.
        0:0 valid => bool;
        /// End: the last descriptor of the task (always set on a task descriptor).
        1:1 end => bool;
        /// Int: the completion raises TCC at once instead of counting towards coalescing.
        2:2 int => bool;
        /// Act: [`Act::Task`].
        5:3 act ?=> Act;
        /// Forced programming: the data goes to the non-volatile storage, not the cache.
        6:6 forced_programming => bool;
        /// Context ID (0 = no context).
        10:7 context_id;
        /// Tag request: the data is tagged.
        11:11 tag_request => bool;
        /// Data direction.
        12:12 data_direction => Direction;
        /// Priority: a high-priority task.
        13:13 priority => bool;
        /// QBR (queue barrier): the task starts only after all earlier tasks finished.
        14:14 qbr => bool;
        /// Reliable write.
        15:15 reliable_write => bool;
        /// Block count (512-byte blocks).
        31:16 block_count;
        /// Block address: the first block on the card.
        63:32 block_address;
    }

    /// Bits 127:64 of a 128-bit task descriptor: the inline-crypto parameters.
    pub TASK_DESC_CRYPTO(u64) {
        /// Data unit number (DUN): the initialisation vector's seed.
        31:0 dun;
        /// Crypto configuration index (CCI): the key slot.
        39:32 cci;
        /// Crypto enable (CE).
        47:47 ce => bool;
    }

    /// Task descriptor of a direct command (DCMD, slot 31), bits 63:0.
    pub DCMD_DESC(u64) {
        /// Valid: the descriptor may be used.
        0:0 valid => bool;
        /// End: always set on a task descriptor.
        1:1 end => bool;
        /// Int: the completion raises TCC at once.
        2:2 int => bool;
        /// Act: [`Act::Task`].
        5:3 act ?=> Act;
        /// QBR (queue barrier): the command waits for every earlier task.
        14:14 qbr => bool;
        /// Command index.
        21:16 cmd_index;
        /// Command timing: 1 lets the command go out while a data transfer runs.
        22:22 cmd_timing => bool;
        /// Response type.
        24:23 resp_type ?=> DcmdResponse;
        /// Command argument.
        63:32 cmd_argument;
    }

    /// Link descriptor, bits 63:0; with 64-bit DMA the address's high half follows in
    /// [`DESC_ADDRESS_HI`].
    pub LINK_DESC(u64) {
        /// Valid: the link is followed.
        0:0 valid => bool;
        /// End: the slot has no transfer descriptors (the DCMD slot).
        1:1 end => bool;
        /// Int (unused on links).
        2:2 int => bool;
        /// Act: [`Act::Link`], or [`Act::Nop`] for a terminating descriptor.
        5:3 act ?=> Act;
        /// Address of the slot's first transfer descriptor, bits 31:0.
        63:32 link_address_lo;
    }

    /// Transfer descriptor, bits 63:0; with 64-bit DMA the address's high half follows in
    /// [`DESC_ADDRESS_HI`].
    pub TRAN_DESC(u64) {
        /// Valid: the descriptor may be used.
        0:0 valid => bool;
        /// End: the task's last transfer descriptor.
        1:1 end => bool;
        /// Int (unused on transfer descriptors).
        2:2 int => bool;
        /// Act: [`Act::Transfer`].
        5:3 act ?=> Act;
        /// Data length in bytes; 0 means 64 KiB.
        31:16 data_length;
        /// Data buffer address, bits 31:0.
        63:32 data_address_lo;
    }

    /// Bits 127:64 of a 64-bit-DMA link or transfer descriptor (only bits 95:64 with the
    /// 12-byte transfer descriptor quirk).
    pub DESC_ADDRESS_HI(u64) {
        /// Address bits 63:32.
        31:0 address_hi;
    }
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
    /// Context ID (0..=15; 0 = no context).
    pub context: u8,
}

impl DataTask {
    /// The first 64 bits of the task descriptor. `interrupt` sets Int: completion raises TCC
    /// at once instead of counting towards interrupt coalescing. A context ID above 15 is
    /// refused.
    pub fn encode(&self, interrupt: bool) -> Result<TASK_DESC, FieldOverflow> {
        let f = &self.flags;
        TASK_DESC::zeroed()
            .with_valid(true)
            .with_end(true)
            .with_int(interrupt)
            .with_act(Act::Task)
            .with_forced_programming(f.forced_programming)
            .try_with_context_id(u64::from(self.context))?
            .with_tag_request(f.data_tag)
            .with_data_direction(self.direction)
            .with_priority(f.priority)
            .with_qbr(f.queue_barrier)
            .with_reliable_write(f.reliable_write)
            .try_with_block_count(u64::from(self.block_count))?
            .try_with_block_address(u64::from(self.block_address))
    }

    /// Number of bytes the task moves.
    pub const fn byte_count(&self) -> u32 {
        self.block_count as u32 * BLOCK_SIZE
    }
}

/// A direct command (DCMD) task, issued from slot 31.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectCommand {
    /// Command index (0..=63).
    pub opcode: u8,
    /// Command argument.
    pub argument: u32,
    /// Expected response.
    pub response: DcmdResponse,
}

impl DirectCommand {
    /// The first 64 bits of the task descriptor; a command index above 63 is refused.
    pub fn encode(&self) -> Result<DCMD_DESC, FieldOverflow> {
        // A command with busy must wait for the data lines; the others may go out while a
        // transfer runs.
        let timing = self.response != DcmdResponse::ShortBusy;
        DCMD_DESC::zeroed()
            .with_valid(true)
            .with_end(true)
            .with_int(true)
            .with_act(Act::Task)
            .with_qbr(true)
            .try_with_cmd_index(u64::from(self.opcode))?
            .with_cmd_timing(timing)
            .with_resp_type(self.response)
            .try_with_cmd_argument(u64::from(self.argument))
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
    attributes: TRAN_DESC,
    address: u64,
    length: u32,
}

impl TransferDescriptor {
    /// A descriptor for `length` bytes (1..=64 KiB) at bus address `address`; `end` marks the
    /// last descriptor of the task.
    pub fn new(address: u64, length: u32, end: bool) -> Option<Self> {
        if length == 0 || length > MAX_TRANSFER_LENGTH {
            return None;
        }
        // The 16-bit length field holds 0 for 64 KiB.
        let attributes = TRAN_DESC::zeroed()
            .with_valid(true)
            .with_end(end)
            .with_act(Act::Transfer)
            .try_with_data_length(u64::from(length % MAX_TRANSFER_LENGTH))
            .ok()?;
        Some(Self {
            attributes,
            address,
            length,
        })
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
        self.attributes.end()
    }

    /// The descriptor's first word without the address: attributes and length.
    pub const fn attributes(&self) -> TRAN_DESC {
        self.attributes
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

/// Copies `bytes` into `out` at `offset`.
fn put(out: &mut [u8], offset: usize, bytes: &[u8]) -> Result<(), EncodeError> {
    let end = offset
        .checked_add(bytes.len())
        .ok_or(EncodeError::OutOfBounds)?;
    out.get_mut(offset..end)
        .ok_or(EncodeError::OutOfBounds)?
        .copy_from_slice(bytes);
    Ok(())
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
            TaskDescriptorSize::Bits64 => WORD_LEN,
            TaskDescriptorSize::Bits128 => 2 * WORD_LEN,
        }
    }

    /// Link descriptor size in bytes.
    pub const fn link_len(&self) -> usize {
        match self.dma {
            DmaWidth::Bits32 => WORD_LEN,
            DmaWidth::Bits64 => 2 * WORD_LEN,
        }
    }

    /// Distance between consecutive transfer descriptors in bytes.
    pub const fn transfer_len(&self) -> usize {
        match (self.dma, self.short_transfer) {
            (DmaWidth::Bits32, _) => WORD_LEN,
            // The second word is cut to the address's high half.
            (DmaWidth::Bits64, true) => WORD_LEN + WORD_LEN / 2,
            (DmaWidth::Bits64, false) => 2 * WORD_LEN,
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

    /// Splits a bus address for a link or transfer descriptor: the part that goes in bits
    /// 63:32 of its first word and, with 64-bit DMA, the high half that follows. With 32-bit
    /// DMA the whole address goes in the first word, whose field refuses one above 4 GiB.
    fn split_address(&self, address: u64) -> Result<(u64, Option<DESC_ADDRESS_HI>), EncodeError> {
        match self.dma {
            DmaWidth::Bits32 => Ok((address, None)),
            DmaWidth::Bits64 => {
                let high = DESC_ADDRESS_HI::zeroed()
                    .try_with_address_hi(address >> u32::BITS)
                    .map_err(|_| EncodeError::AddressTooWide)?;
                Ok((address & u64::from(u32::MAX), Some(high)))
            }
        }
    }

    /// Writes a descriptor's words into `slot`, which is exactly as long as the descriptor:
    /// the first word, then (64-bit DMA) the address's high half, cut to the bytes left.
    fn put_words(
        slot: &mut [u8],
        first: u64,
        high: Option<DESC_ADDRESS_HI>,
    ) -> Result<(), EncodeError> {
        put(slot, 0, &first.to_le_bytes())?;
        if let Some(high) = high {
            let bytes = high.raw().to_le_bytes();
            let left = slot.len().saturating_sub(WORD_LEN);
            put(
                slot,
                WORD_LEN,
                bytes.get(..left).ok_or(EncodeError::OutOfBounds)?,
            )?;
        }
        Ok(())
    }

    /// Writes a task descriptor whose first word is `word0` into `tdl`; the crypto word of a
    /// 128-bit descriptor is zero.
    pub fn write_task(&self, tdl: &mut [u8], tag: Tag, word0: u64) -> Result<(), EncodeError> {
        let offset = self.task_offset(tag);
        put(tdl, offset, &word0.to_le_bytes())?;
        if let TaskDescriptorSize::Bits128 = self.task {
            put(
                tdl,
                offset + WORD_LEN,
                &TASK_DESC_CRYPTO::zeroed().raw().to_le_bytes(),
            )?;
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
        let end = offset
            .checked_add(self.link_len())
            .ok_or(EncodeError::OutOfBounds)?;
        let slot = tdl.get_mut(offset..end).ok_or(EncodeError::OutOfBounds)?;
        let (attributes, address) = match link {
            LinkDescriptor::Next(address) => (
                LINK_DESC::zeroed().with_valid(true).with_act(Act::Link),
                address,
            ),
            LinkDescriptor::Terminal => (LINK_DESC::zeroed().with_end(true).with_act(Act::Nop), 0),
        };
        let (low, high) = self.split_address(address)?;
        let word = attributes
            .try_with_link_address_lo(low)
            .map_err(|_| EncodeError::AddressTooWide)?;
        Self::put_words(slot, word.raw(), high)
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
        let (low, high) = self.split_address(desc.address)?;
        let word = desc
            .attributes
            .try_with_data_address_lo(low)
            .map_err(|_| EncodeError::AddressTooWide)?;
        Self::put_words(slot, word.raw(), high)
    }
}
