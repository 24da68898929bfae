// SPDX-License-Identifier: GPL-2.0
//! Descriptor decoding as the modelled CQHCI reads memory (JESD84-B51 CQHCI task, direct
//! command, link and transfer descriptors), written independently of the engine's encoders.

/// The ACT field of a descriptor (bits 5:3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// 000b: no operation.
    Nop,
    /// 100b: transfer data.
    Transfer,
    /// 101b: task (data task or direct command).
    Task,
    /// 110b: link to another descriptor.
    Link,
    /// Any other value (reserved).
    Reserved(u8),
}

/// The attribute bits every descriptor starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attributes {
    /// VALID (bit 0).
    pub valid: bool,
    /// END (bit 1).
    pub end: bool,
    /// INT (bit 2).
    pub interrupt: bool,
    /// ACT (bits 5:3).
    pub act: Act,
}

impl Attributes {
    /// Decodes the low bits of a descriptor word.
    pub const fn decode(word: u32) -> Self {
        let act = match (word >> 3) & 0x7 {
            0 => Act::Nop,
            4 => Act::Transfer,
            5 => Act::Task,
            6 => Act::Link,
            other => Act::Reserved(other as u8),
        };
        Self {
            valid: word & 1 != 0,
            end: word & 2 != 0,
            interrupt: word & 4 != 0,
            act,
        }
    }
}

/// A data transfer task descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTaskDesc {
    /// INT: interrupt on completion regardless of coalescing.
    pub interrupt: bool,
    /// Forced programming (bit 6).
    pub forced_programming: bool,
    /// Context ID (bits 10:7).
    pub context: u8,
    /// Data tag (bit 11).
    pub data_tag: bool,
    /// Data direction, 1 = read (bit 12).
    pub read: bool,
    /// Priority (bit 13).
    pub priority: bool,
    /// Queue barrier (bit 14).
    pub queue_barrier: bool,
    /// Reliable write (bit 15).
    pub reliable_write: bool,
    /// Block count (bits 31:16).
    pub blocks: u16,
    /// Block address (bits 63:32).
    pub address: u32,
}

/// A direct command task descriptor (slot 31 with DCMD enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcmdDesc {
    /// INT.
    pub interrupt: bool,
    /// Queue barrier (bit 14).
    pub queue_barrier: bool,
    /// Command index (bits 21:16).
    pub index: u8,
    /// CMD_TIMING (bit 22): 1 = may be sent during a data transfer.
    pub timing: bool,
    /// RESP_TYPE (bits 24:23): 0 none, 2 R1/R4/R5, 3 R1b.
    pub response_type: u8,
    /// Argument (bits 63:32).
    pub argument: u32,
}

/// Why a task descriptor is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskDescError {
    /// VALID is clear.
    NotValid,
    /// ACT is not "task".
    WrongAct(Act),
    /// END is clear on a task descriptor.
    NoEnd,
    /// Block count 0.
    NoBlocks,
}

fn check_task_attributes(word0: u64) -> Result<Attributes, TaskDescError> {
    let attr = Attributes::decode(word0 as u32);
    if !attr.valid {
        return Err(TaskDescError::NotValid);
    }
    if attr.act != Act::Task {
        return Err(TaskDescError::WrongAct(attr.act));
    }
    if !attr.end {
        return Err(TaskDescError::NoEnd);
    }
    Ok(attr)
}

/// Decodes the first word of a data task descriptor.
pub fn decode_data_task(word0: u64) -> Result<DataTaskDesc, TaskDescError> {
    let attr = check_task_attributes(word0)?;
    let bit = |n: u32| word0 & (1u64 << n) != 0;
    let blocks = ((word0 >> 16) & 0xFFFF) as u16;
    if blocks == 0 {
        return Err(TaskDescError::NoBlocks);
    }
    Ok(DataTaskDesc {
        interrupt: attr.interrupt,
        forced_programming: bit(6),
        context: ((word0 >> 7) & 0xF) as u8,
        data_tag: bit(11),
        read: bit(12),
        priority: bit(13),
        queue_barrier: bit(14),
        reliable_write: bit(15),
        blocks,
        address: (word0 >> 32) as u32,
    })
}

/// Decodes the first word of a direct command task descriptor.
pub fn decode_dcmd(word0: u64) -> Result<DcmdDesc, TaskDescError> {
    let attr = check_task_attributes(word0)?;
    Ok(DcmdDesc {
        interrupt: attr.interrupt,
        queue_barrier: word0 & (1 << 14) != 0,
        index: ((word0 >> 16) & 0x3F) as u8,
        timing: word0 & (1 << 22) != 0,
        response_type: ((word0 >> 23) & 0x3) as u8,
        argument: (word0 >> 32) as u32,
    })
}

/// Whether the second word of a 128-bit task descriptor asks for inline crypto (bit 47 of the
/// descriptor, bit 15 of the upper word's high half).
pub const fn crypto_requested(word1: u64) -> bool {
    word1 & (1 << 47) != 0
}

/// A link or transfer descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataDesc {
    /// The attribute bits.
    pub attributes: Attributes,
    /// Data length in bytes: the 16-bit field, with 0 meaning 65536 (transfer only).
    pub length: u32,
    /// The address (transfer: data; link: next descriptor).
    pub address: u64,
}

/// Decodes a link or transfer descriptor from its first word and its address field (a 32-bit
/// address already widened for 32-bit DMA).
pub const fn decode_data_desc(word: u32, address: u64) -> DataDesc {
    let field = word >> 16;
    DataDesc {
        attributes: Attributes::decode(word),
        length: if field == 0 { 0x1_0000 } else { field },
        address,
    }
}
