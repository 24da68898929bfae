// SPDX-License-Identifier: GPL-2.0

//! Encoding the descriptor chain that MSDC's DMA engine walks in descriptor mode.
//!
//! A transfer is one general purpose descriptor (GPD) pointing to a list of buffer
//! descriptors (BDs), one per scatter-gather segment, the last one flagged end-of-list.
//! The hardware also follows the GPD's `next` pointer, so a second, empty GPD (hardware
//! ownership clear) ends the GPD list. Every descriptor carries a checksum: its first 16
//! bytes must add up to `0xFF` modulo 256, and `MSDC_DMA_CFG.DECSEN` makes the engine
//! check it.
//!
//! The caller owns the memory: one DMA-coherent area and its bus address, laid out as
//!
//! | offset | content |
//! |---|---|
//! | 0 | GPD 0, 28 bytes |
//! | 28 | GPD 1, 28 bytes, all zero |
//! | [`BD_TABLE_OFFSET`] | BD 0, BD 1, ..., 16 bytes each |
//!
//! Descriptor words are little-endian. SoCs with 36-bit DMA keep address bits 35:32 in the
//! `*_H4` fields of the info word; without it, addresses must fit in 32 bits. Addresses or
//! lengths that do not fit are refused instead of being truncated as upstream would.
//!
//! The DMA engine reads this memory once started, so the caller must make the writes
//! visible to the device (a write barrier) before setting `MSDC_DMA_CTRL.START`.

use super::regs::{DMA_BURST_64B, DMA_SA_H4BIT, MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_DMA_SA};
use crate::mmc_request::Segment;
use crate::registers::{FieldOverflow, FieldValue};

/// Size of a GPD in bytes.
pub const GPD_SIZE: usize = 28;
/// Size of a BD in bytes.
pub const BD_SIZE: usize = 16;
/// Bytes covered by a descriptor checksum.
pub const CHECKSUM_SPAN: usize = 16;
/// Offset of the BD table in the descriptor area, after both GPDs, 64-byte aligned.
pub const BD_TABLE_OFFSET: usize = 64;
/// Most BDs one transfer may use (upstream `MAX_BD_NUM`, the host's `max_segs`).
pub const MAX_SEGMENTS: usize = 1024;

/// Bytes of descriptor area needed for up to `segments` segments.
pub const fn area_len(segments: usize) -> usize {
    BD_TABLE_OFFSET + segments * BD_SIZE
}

/// The checksum byte of a descriptor: makes its first [`CHECKSUM_SPAN`] bytes add up to
/// `0xFF` modulo 256.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum(pub u8);

impl FieldValue for Checksum {
    const WIDTH: u32 = u8::BITS;

    fn into_bits(self) -> u64 {
        u64::from(self.0)
    }

    fn from_bits(bits: u64) -> Self {
        // The field is eight bits wide: `bits` fits.
        Self(bits as u8)
    }
}

register! {
    /// Word 0 of a GPD (`gpd_info`).
    pub GpdInfo(u32) {
        /// Hardware owns the descriptor; the engine clears it when done.
        0:0 hwo => bool;
        /// The GPD points to a BD list rather than to a buffer.
        1:1 bdp => bool;
        /// Makes the first 16 bytes add up to `0xFF`.
        15:8 checksum => Checksum;
        /// Interrupt when the descriptor completes.
        16:16 int => bool;
        /// Bits 35:32 of `next`.
        27:24 next_h4;
        /// Bits 35:32 of `ptr`.
        31:28 ptr_h4;
    }

    /// Word 3 of a GPD (`gpd_data_len`), unused when the GPD points to BDs.
    pub GpdDataLen(u32) {
        /// Buffer length bits 15:0.
        15:0 buflen;
        /// Extension length.
        23:16 extlen;
    }

    /// Word 0 of a BD (`bd_info`).
    pub BdInfo(u32) {
        /// Last BD of the list.
        0:0 eol => bool;
        /// Makes the 16 bytes add up to `0xFF`.
        15:8 checksum => Checksum;
        /// Pad the buffer to a block.
        17:17 blkpad => bool;
        /// Pad the buffer to a 32-bit word.
        18:18 dwpad => bool;
        /// Bits 35:32 of `next`.
        27:24 next_h4;
        /// Bits 35:32 of `ptr`.
        31:28 ptr_h4;
    }

    /// Word 3 of a BD (`bd_data_len`).
    pub BdDataLen(u32) {
        /// Buffer length on SoCs with 32-bit DMA.
        15:0 buflen;
        /// Buffer length on SoCs with 36-bit DMA.
        23:0 buflen_ext;
    }

    /// A bus address as the descriptors and the `DMA_SA` registers take it: a low word, and
    /// bits 35:32 in a 4-bit `*_H4` field.
    pub BusAddress(u64) {
        /// Bits 31:0, the address word.
        31:0 low;
        /// Bits 35:32, for the `*_H4` fields and `DMA_SA_H4BIT`.
        35:32 high;
    }
}

/// DMA address width, a per-SoC property (`support_64g`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaAddressing {
    /// 32-bit addresses, 16-bit BD lengths.
    Bits32,
    /// 36-bit addresses, 24-bit BD lengths.
    Bits36,
}

impl DmaAddressing {
    /// Maps the per-SoC `support_64g` flag.
    pub const fn from_support_64g(support_64g: bool) -> Self {
        if support_64g {
            Self::Bits36
        } else {
            Self::Bits32
        }
    }

    /// Number of address bits (the device's DMA mask width).
    pub const fn address_bits(self) -> u32 {
        match self {
            Self::Bits32 => 32,
            Self::Bits36 => 36,
        }
    }

    /// One past the highest reachable bus address.
    pub const fn address_limit(self) -> u64 {
        1u64 << self.address_bits()
    }

    /// `word` with the BD length field of this width set to `len`, refusing a length wider
    /// than the field.
    pub fn with_length(self, word: BdDataLen, len: u32) -> Result<BdDataLen, FieldOverflow> {
        match self {
            Self::Bits32 => word.try_with_buflen(len),
            Self::Bits36 => word.try_with_buflen_ext(len),
        }
    }

    /// Longest segment one BD can describe (the host's `max_seg_size`): the length field of
    /// this width, all ones.
    pub const fn max_segment_len(self) -> u32 {
        let all_ones = BdDataLen::from_raw(u32::MAX);
        match self {
            Self::Bits32 => all_ones.buflen(),
            Self::Bits36 => all_ones.buflen_ext(),
        }
    }
}

/// Why a descriptor area or chain was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaError {
    /// The area cannot hold both GPDs and at least one BD.
    AreaTooSmall,
    /// The area's bus address is not 4-byte aligned.
    Misaligned,
    /// An address (of the area or of a segment) lies beyond the DMA address width.
    AddressOutOfRange(u64),
    /// A segment is longer than one BD can describe.
    SegmentTooLong {
        /// The segment's length.
        len: u32,
        /// The longest allowed.
        max: u32,
    },
    /// A segment of zero bytes.
    EmptySegment,
    /// A transfer without segments.
    NoSegments,
    /// More segments than the area, or [`MAX_SEGMENTS`], allows.
    TooManySegments {
        /// How many fit.
        max: usize,
    },
}

/// What the registers need to start a chain that was just written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainStart {
    /// Bus address of the first GPD.
    pub gpd_bus_address: u64,
    /// Number of BDs written.
    pub segments: usize,
    /// Sum of the segment lengths.
    pub total_len: u64,
    /// `DMA_SA_H4BIT` value; write it only on SoCs with 36-bit DMA.
    pub start_high: Option<DMA_SA_H4BIT>,
    /// `MSDC_DMA_SA` value; write it last, after `DMA_SA_H4BIT`.
    pub start_low: MSDC_DMA_SA,
}

/// A caller-owned memory area that holds a descriptor chain.
#[derive(Debug)]
pub struct DescriptorArea<'a> {
    memory: &'a mut [u8],
    bus_address: u64,
    addressing: DmaAddressing,
    capacity: usize,
}

impl<'a> DescriptorArea<'a> {
    /// Takes `memory`, which the device sees at `bus_address`.
    pub fn new(
        memory: &'a mut [u8],
        bus_address: u64,
        addressing: DmaAddressing,
    ) -> Result<Self, DmaError> {
        if bus_address & 3 != 0 {
            return Err(DmaError::Misaligned);
        }
        let capacity = match memory.len().checked_sub(BD_TABLE_OFFSET) {
            Some(table) => table / BD_SIZE,
            None => 0,
        };
        if capacity == 0 {
            return Err(DmaError::AreaTooSmall);
        }
        let capacity = capacity.min(MAX_SEGMENTS);
        let used = u64::try_from(area_len(capacity)).map_err(|_| DmaError::AreaTooSmall)?;
        match bus_address.checked_add(used) {
            Some(end) if end <= addressing.address_limit() => {}
            _ => return Err(DmaError::AddressOutOfRange(bus_address)),
        }
        Ok(Self {
            memory,
            bus_address,
            addressing,
            capacity,
        })
    }

    /// How many BDs the area holds, at most [`MAX_SEGMENTS`].
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bus address of the first GPD, the value for the DMA start address registers.
    pub fn gpd_bus_address(&self) -> u64 {
        self.bus_address
    }

    /// Bus address of BD `index`, if the area holds it.
    pub fn bd_bus_address(&self, index: usize) -> Option<u64> {
        (index < self.capacity).then(|| self.slot_bus_address(index))
    }

    /// Bus address of BD `index`, for an `index` below the capacity.
    fn slot_bus_address(&self, index: usize) -> u64 {
        // `new` checked that all `capacity` slots lie below the address limit, and the
        // capacity is at most `MAX_SEGMENTS`, so none of this can overflow.
        self.bus_address + (BD_TABLE_OFFSET + index * BD_SIZE) as u64
    }

    /// The descriptor memory, e.g. for a test to inspect.
    pub fn memory(&self) -> &[u8] {
        self.memory
    }

    /// Writes the chain describing `segments` and returns what the registers need.
    ///
    /// The first GPD is handed to the hardware last: on an error it is left zeroed, not
    /// owned by the hardware, so starting the DMA anyway would transfer nothing.
    pub fn write_chain<I>(&mut self, segments: I) -> Result<ChainStart, DmaError>
    where
        I: IntoIterator<Item = Segment>,
    {
        self.put(0, &[0; 2 * GPD_SIZE])?;

        let mut segments = segments.into_iter().peekable();
        let mut count = 0usize;
        let mut total_len = 0u64;
        while let Some(segment) = segments.next() {
            if count >= self.capacity {
                return Err(DmaError::TooManySegments { max: self.capacity });
            }
            let last = segments.peek().is_none();
            let bd = self.encode_bd(count, segment, last)?;
            self.put(BD_TABLE_OFFSET + count * BD_SIZE, &bd)?;
            count += 1;
            total_len += u64::from(segment.len);
        }
        if count == 0 {
            return Err(DmaError::NoSegments);
        }

        let gpd = self.encode_gpd()?;
        self.put(0, &gpd)?;

        let high = split_address(self.bus_address).1;
        Ok(ChainStart {
            gpd_bus_address: self.bus_address,
            segments: count,
            total_len,
            start_high: match self.addressing {
                DmaAddressing::Bits32 => None,
                DmaAddressing::Bits36 => Some(
                    DMA_SA_H4BIT::zeroed()
                        .try_with_addr_high_4bit(high)
                        .map_err(|_| DmaError::AddressOutOfRange(self.bus_address))?,
                ),
            },
            start_low: MSDC_DMA_SA::from_raw(split_address(self.bus_address).0),
        })
    }

    fn put(&mut self, offset: usize, bytes: &[u8]) -> Result<(), DmaError> {
        let end = offset
            .checked_add(bytes.len())
            .ok_or(DmaError::AreaTooSmall)?;
        self.memory
            .get_mut(offset..end)
            .ok_or(DmaError::AreaTooSmall)?
            .copy_from_slice(bytes);
        Ok(())
    }

    /// Checks that `address` is reachable and returns its low word and bits 35:32.
    fn reachable(&self, address: u64) -> Result<(u32, u32), DmaError> {
        if address >= self.addressing.address_limit() {
            return Err(DmaError::AddressOutOfRange(address));
        }
        Ok(split_address(address))
    }

    fn encode_bd(
        &self,
        index: usize,
        segment: Segment,
        last: bool,
    ) -> Result<[u8; BD_SIZE], DmaError> {
        let max = self.addressing.max_segment_len();
        if segment.len == 0 {
            return Err(DmaError::EmptySegment);
        }
        if segment.len > max {
            return Err(DmaError::SegmentTooLong {
                len: segment.len,
                max,
            });
        }
        let (ptr_low, ptr_high) = self.reachable(segment.bus_address)?;
        // The last byte must be reachable too; the engine does not wrap at 4 GiB.
        let end = segment
            .bus_address
            .checked_add(u64::from(segment.len) - 1)
            .ok_or(DmaError::AddressOutOfRange(segment.bus_address))?;
        self.reachable(end)?;

        // Every slot but the last links to its neighbour, as upstream pre-links the table;
        // the engine stops at EOL and never follows the link.
        let (next_low, next_high) = if index + 1 < self.capacity {
            split_address(self.slot_bus_address(index + 1))
        } else {
            (0, 0)
        };

        let mut info = BdInfo::zeroed().with_eol(last);
        if self.addressing == DmaAddressing::Bits36 {
            info = info
                .try_with_next_h4(next_high)
                .and_then(|info| info.try_with_ptr_h4(ptr_high))
                .map_err(|_| DmaError::AddressOutOfRange(segment.bus_address))?;
        }
        let data_len = self
            .addressing
            .with_length(BdDataLen::zeroed(), segment.len)
            .map_err(|_| DmaError::SegmentTooLong {
                len: segment.len,
                max,
            })?;

        let rest = [next_low, ptr_low, data_len.raw()];
        let info = info.with_checksum(checksum(info.raw(), &rest));
        let mut bytes = [0u8; BD_SIZE];
        write_words(&mut bytes, info.raw(), &rest);
        Ok(bytes)
    }

    fn encode_gpd(&self) -> Result<[u8; GPD_SIZE], DmaError> {
        let second_gpd = self.bus_address + GPD_SIZE as u64;
        let bd_table = self.slot_bus_address(0);
        let (next_low, next_high) = self.reachable(second_gpd)?;
        let (ptr_low, ptr_high) = self.reachable(bd_table)?;

        let mut info = GpdInfo::zeroed().with_hwo(true).with_bdp(true);
        if self.addressing == DmaAddressing::Bits36 {
            info = info
                .try_with_next_h4(next_high)
                .and_then(|info| info.try_with_ptr_h4(ptr_high))
                .map_err(|_| DmaError::AddressOutOfRange(self.bus_address))?;
        }

        // Words 3..6 (data length, argument, block count, command) stay zero: with BDP set
        // the engine takes lengths from the BDs, and the command is issued by registers.
        let rest = [next_low, ptr_low];
        let info = info.with_checksum(checksum(info.raw(), &rest));
        let mut bytes = [0u8; GPD_SIZE];
        write_words(&mut bytes, info.raw(), &rest);
        Ok(bytes)
    }
}

/// Bits 31:0 and bits 35:32 of a bus address.
fn split_address(address: u64) -> (u32, u32) {
    let address = BusAddress::from_raw(address);
    // Both fields are at most 32 bits wide: the conversions keep every bit.
    (address.low() as u32, address.high() as u32)
}

/// Writes `info` and then `rest` as little-endian words from the start of `bytes`.
fn write_words(bytes: &mut [u8], info: u32, rest: &[u32]) {
    let words = core::iter::once(&info).chain(rest);
    for (chunk, word) in bytes.chunks_exact_mut(WORD_SIZE).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
}

/// Bytes of a descriptor word.
const WORD_SIZE: usize = core::mem::size_of::<u32>();

/// Sum of the checksummed bytes, modulo 256.
fn byte_sum(bytes: &[u8]) -> u8 {
    bytes
        .iter()
        .take(CHECKSUM_SPAN)
        .fold(0u8, |sum, byte| sum.wrapping_add(*byte))
}

/// The checksum of a descriptor made of `info`, whose checksum field is still clear, and
/// the words that follow it.
fn checksum(info: u32, rest: &[u32]) -> Checksum {
    let mut span = [0u8; CHECKSUM_SPAN];
    write_words(&mut span, info, rest);
    Checksum(0xFFu8.wrapping_sub(byte_sum(&span)))
}

/// Whether a descriptor's first 16 bytes add up to `0xFF`, the rule the engine checks.
pub fn checksum_valid(descriptor: &[u8]) -> bool {
    descriptor.len() >= CHECKSUM_SPAN && byte_sum(descriptor) == 0xFF
}

/// `MSDC_DMA_CTRL` switched to descriptor mode with 64-byte bursts.
pub fn descriptor_mode(ctrl: MSDC_DMA_CTRL) -> MSDC_DMA_CTRL {
    ctrl.with_mode(true).with_const_brustsz::<DMA_BURST_64B>()
}

/// `MSDC_DMA_CFG` with descriptor checksum checking on.
pub fn checksum_checking(cfg: MSDC_DMA_CFG) -> MSDC_DMA_CFG {
    cfg.with_decsen(true)
}
