// SPDX-License-Identifier: GPL-2.0
//! Descriptor decoding as the modelled CQHCI reads memory (JESD84-B51 CQHCI task, direct
//! command, link and transfer descriptors), written independently of the engine's encoders.

/// Largest length of one transfer descriptor, which its 16-bit field holds as 0.
pub const MAX_TRANSFER_LENGTH: u32 = 64 * 1024;

field_enum! {
    /// The Act field of a descriptor (the other four encodings are reserved).
    pub enum Act: 3 bits, partial {
        /// 000b: no operation.
        Nop = 0b000,
        /// 100b: transfer data.
        Transfer = 0b100,
        /// 101b: task (data task or direct command).
        Task = 0b101,
        /// 110b: link to another descriptor.
        Link = 0b110,
    }
}

register! {
    /// The attribute bits every descriptor's first word starts with.
    pub DESC_ATTRIBUTES(u64) {
        /// Valid.
        0:0 valid => bool;
        /// End: the last descriptor of the task or list.
        1:1 end => bool;
        /// Int: interrupt on completion regardless of coalescing.
        2:2 int => bool;
        /// Act.
        5:3 act ?=> Act;
        /// The same bits as a number, for the reserved encodings [`Act`] does not name.
        5:3 act_code;
    }

    /// The first word of a data transfer task descriptor (after the attributes).
    pub TASK_DESC(u64) {
        /// Forced programming.
        6:6 forced_programming => bool;
        /// Context ID.
        10:7 context_id;
        /// Tag request.
        11:11 tag_request => bool;
        /// Data direction: set for a read.
        12:12 data_direction => bool;
        /// Priority.
        13:13 priority => bool;
        /// Queue barrier (QBR).
        14:14 qbr => bool;
        /// Reliable write.
        15:15 reliable_write => bool;
        /// Block count.
        31:16 block_count;
        /// Block address.
        63:32 block_address;
    }

    /// The second word of a 128-bit task descriptor.
    pub TASK_DESC_CRYPTO(u64) {
        /// Crypto enable (CE).
        47:47 ce => bool;
    }

    /// The first word of a direct command task descriptor (after the attributes).
    pub DCMD_DESC(u64) {
        /// Queue barrier (QBR).
        14:14 qbr => bool;
        /// Command index.
        21:16 cmd_index;
        /// Command timing: set when the command may go out during a data transfer.
        22:22 cmd_timing => bool;
        /// Response type: 0 none, 2 R1/R4/R5, 3 R1b.
        24:23 resp_type;
        /// Command argument.
        63:32 cmd_argument;
    }

    /// The first word of a link or transfer descriptor (after the attributes).
    pub DATA_DESC(u64) {
        /// Data length (transfer only); 0 means 65536.
        31:16 length;
        /// Address bits 31:0 (all of it with 32-bit DMA).
        63:32 address_lo;
    }

    /// The word after the first of a 64-bit DMA link or transfer descriptor.
    pub DATA_DESC_HI(u32) {
        /// Address bits 63:32.
        31:0 address_hi;
    }
}

/// The attribute bits every descriptor starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attributes {
    /// VALID.
    pub valid: bool,
    /// END.
    pub end: bool,
    /// INT.
    pub interrupt: bool,
    /// ACT (`None`: a reserved encoding).
    pub act: Option<Act>,
}

impl Attributes {
    /// Decodes the attribute bits of a descriptor's first word.
    pub fn decode(word0: u64) -> Self {
        let attributes = DESC_ATTRIBUTES::from_raw(word0);
        Self {
            valid: attributes.valid(),
            end: attributes.end(),
            interrupt: attributes.int(),
            act: attributes.act(),
        }
    }
}

/// A data transfer task descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTaskDesc {
    /// INT: interrupt on completion regardless of coalescing.
    pub interrupt: bool,
    /// Forced programming.
    pub forced_programming: bool,
    /// Context ID.
    pub context: u8,
    /// Tag request (data tag).
    pub data_tag: bool,
    /// Data direction is read.
    pub read: bool,
    /// Priority.
    pub priority: bool,
    /// Queue barrier.
    pub queue_barrier: bool,
    /// Reliable write.
    pub reliable_write: bool,
    /// Block count.
    pub blocks: u16,
    /// Block address.
    pub address: u32,
}

/// A direct command task descriptor (slot 31 with DCMD enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcmdDesc {
    /// INT.
    pub interrupt: bool,
    /// Queue barrier.
    pub queue_barrier: bool,
    /// Command index.
    pub index: u8,
    /// CMD_TIMING: may be sent during a data transfer.
    pub timing: bool,
    /// RESP_TYPE: 0 none, 2 R1/R4/R5, 3 R1b.
    pub response_type: u8,
    /// Argument.
    pub argument: u32,
}

/// Why a task descriptor is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskDescError {
    /// VALID is clear.
    NotValid,
    /// ACT is not "task": the ACT code found.
    WrongAct(u8),
    /// END is clear on a task descriptor.
    NoEnd,
    /// Block count 0.
    NoBlocks,
}

fn check_task_attributes(word0: u64) -> Result<Attributes, TaskDescError> {
    let attr = Attributes::decode(word0);
    if !attr.valid {
        return Err(TaskDescError::NotValid);
    }
    if attr.act != Some(Act::Task) {
        // A 3-bit field.
        let code = DESC_ATTRIBUTES::from_raw(word0).act_code() as u8;
        return Err(TaskDescError::WrongAct(code));
    }
    if !attr.end {
        return Err(TaskDescError::NoEnd);
    }
    Ok(attr)
}

/// Decodes the first word of a data task descriptor.
pub fn decode_data_task(word0: u64) -> Result<DataTaskDesc, TaskDescError> {
    let attr = check_task_attributes(word0)?;
    let task = TASK_DESC::from_raw(word0);
    // Every field is narrower than the type it is kept in.
    let blocks = task.block_count() as u16;
    if blocks == 0 {
        return Err(TaskDescError::NoBlocks);
    }
    Ok(DataTaskDesc {
        interrupt: attr.interrupt,
        forced_programming: task.forced_programming(),
        context: task.context_id() as u8,
        data_tag: task.tag_request(),
        read: task.data_direction(),
        priority: task.priority(),
        queue_barrier: task.qbr(),
        reliable_write: task.reliable_write(),
        blocks,
        address: task.block_address() as u32,
    })
}

/// Decodes the first word of a direct command task descriptor.
pub fn decode_dcmd(word0: u64) -> Result<DcmdDesc, TaskDescError> {
    let attr = check_task_attributes(word0)?;
    let dcmd = DCMD_DESC::from_raw(word0);
    // Every field is narrower than the type it is kept in.
    Ok(DcmdDesc {
        interrupt: attr.interrupt,
        queue_barrier: dcmd.qbr(),
        index: dcmd.cmd_index() as u8,
        timing: dcmd.cmd_timing(),
        response_type: dcmd.resp_type() as u8,
        argument: dcmd.cmd_argument() as u32,
    })
}

/// Whether the second word of a 128-bit task descriptor asks for inline crypto.
pub fn crypto_requested(word1: u64) -> bool {
    TASK_DESC_CRYPTO::from_raw(word1).ce()
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

/// Decodes a link or transfer descriptor from its first word and, with 64-bit DMA, the word
/// that holds the address's high half.
pub fn decode_data_desc(word0: u64, high: Option<u32>) -> DataDesc {
    let desc = DATA_DESC::from_raw(word0);
    let high = high.map_or(0, |h| DATA_DESC_HI::from_raw(h).address_hi());
    // A 16-bit field: the value fits.
    let field = desc.length() as u32;
    DataDesc {
        attributes: Attributes::decode(word0),
        length: if field == 0 {
            MAX_TRANSFER_LENGTH
        } else {
            field
        },
        address: desc.address_lo() | (u64::from(high) << u32::BITS),
    }
}
