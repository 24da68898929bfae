// SPDX-License-Identifier: GPL-2.0
//! The eMMC command interface of the card model: commands, responses, card states and the
//! R1 card status bits (JESD84-B51 §6.10, §6.13).

/// A command as a host sends it: index and argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Command index (CMD0..CMD63).
    pub index: u8,
    /// 32-bit argument.
    pub argument: u32,
}

impl Command {
    /// CMD`index` with argument `argument`.
    pub const fn new(index: u8, argument: u32) -> Self {
        Self { index, argument }
    }
}

/// The card's answer to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// R1: card status.
    R1(u32),
    /// R1b: card status, then busy on DAT0 while the card works.
    R1b(u32),
    /// R2: CID or CSD, most significant word first.
    R2([u32; 4]),
    /// R3: OCR.
    R3(u32),
    /// A CMD13 with SQS set: the queue status register (one bit per ready task).
    QueueStatus(u32),
    /// No response is defined for this command (CMD0).
    None,
}

impl Response {
    /// The 32-bit payload of a short response (0 for R2 and none).
    pub const fn value(&self) -> u32 {
        match *self {
            Response::R1(v) | Response::R1b(v) | Response::R3(v) | Response::QueueStatus(v) => v,
            Response::R2(_) | Response::None => 0,
        }
    }
}

/// The card did not answer (wrong address, wrong state for a broadcast, or a lost command):
/// the host sees a command timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoResponse;

/// Card-internal work a command started that keeps the card busy beyond the bus exchange
/// (an R1b busy phase or power-up), for the latency model (the `latency` module).
///
/// A card reports it through `take_work` right after the command that caused it; data
/// transfers are timed by the controller from the bytes it moved and are not reported here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CardWork {
    /// Nothing beyond the exchange itself.
    #[default]
    None,
    /// Power-up finished with this CMD1/ACMD41 (the response reports the card ready).
    PowerUp,
    /// An EXT_CSD write (eMMC CMD6 SWITCH) other than a cache flush.
    Switch,
    /// An eMMC cache flush (EXT_CSD FLUSH_CACHE).
    Flush,
    /// CMD38 erased (or trimmed or discarded) this many 512-byte blocks.
    Erase {
        /// Blocks affected.
        blocks: u64,
    },
}

/// Card states (CURRENT_STATE, card status bits 12:9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardState {
    /// Idle.
    Idle = 0,
    /// Ready.
    Ready = 1,
    /// Identification.
    Ident = 2,
    /// Stand-by.
    Stby = 3,
    /// Transfer.
    Tran = 4,
    /// Sending data.
    Data = 5,
    /// Receiving data.
    Rcv = 6,
    /// Programming.
    Prg = 7,
    /// Disconnect.
    Dis = 8,
}

/// R1 card status bits.
pub mod status {
    /// The address was out of range.
    pub const ADDRESS_OUT_OF_RANGE: u32 = 1 << 31;
    /// A misaligned address.
    pub const ADDRESS_MISALIGN: u32 = 1 << 30;
    /// The block length is not allowed.
    pub const BLOCK_LEN_ERROR: u32 = 1 << 29;
    /// An erase command arrived out of sequence (CMD38 without CMD35/CMD36, CMD36 without
    /// CMD35).
    pub const ERASE_SEQ_ERROR: u32 = 1 << 28;
    /// An invalid selection of erase groups or erase argument.
    pub const ERASE_PARAM: u32 = 1 << 27;
    /// Write-protect violation.
    pub const WP_VIOLATION: u32 = 1 << 26;
    /// CRC check of the previous command failed.
    pub const COM_CRC_ERROR: u32 = 1 << 23;
    /// Command not legal in this state.
    pub const ILLEGAL_COMMAND: u32 = 1 << 22;
    /// Internal ECC failure.
    pub const CARD_ECC_FAILED: u32 = 1 << 21;
    /// Internal controller error.
    pub const CC_ERROR: u32 = 1 << 20;
    /// General error.
    pub const ERROR: u32 = 1 << 19;
    /// The buffer is empty and the card accepts data.
    pub const READY_FOR_DATA: u32 = 1 << 8;
    /// An erase sequence was cleared because a command outside the sequence arrived.
    pub const ERASE_RESET: u32 = 1 << 13;
    /// A SWITCH command failed.
    pub const SWITCH_ERROR: u32 = 1 << 7;
    /// An exception event is pending.
    pub const EXCEPTION_EVENT: u32 = 1 << 6;
    /// The next command is an application command.
    pub const APP_CMD: u32 = 1 << 5;
    /// Position of CURRENT_STATE.
    pub const STATE_SHIFT: u32 = 9;
}
