// SPDX-License-Identifier: GPL-2.0
//! What the eMMC and SD card models do alike, written once: the steps every command starts
//! with, the erase sequence, block data phases and the read-out of a register.
//!
//! JESD84-B51 and the SD Physical Layer Specification agree on these: an inactive card
//! answers nothing, CMD0 resets the card in any state, a command outside an open erase
//! sequence ends it with ERASE_RESET, CMD38 erases the range two bound commands set, and
//! data moves in 512-byte blocks from a start block to a count (or until CMD12). What the
//! specifications name differently (the commands' indices, the status bits) each card model
//! supplies.

use super::emmc::{CardWork, Command, DataError, NoResponse, Response};

/// Size of a data block: both cards fix it at 512 bytes (eMMC sector mode, SDHC/SDXC).
pub const BLOCK_SIZE: usize = 512;

/// The tuning block on a 4-bit bus, 64 bytes: what eMMC CMD21 sends in HS200 (JESD84-B51
/// "Sampling Tuning Sequence for HS200") and SD CMD19 in SDR50/SDR104 (Physical Layer
/// Specification §4.2.4.5 "Tuning Command"). The host compares every byte.
pub const TUNING_BLOCK_4BIT: [u8; 64] = [
    0xFF, 0x0F, 0xFF, 0x00, 0xFF, 0xCC, 0xC3, 0xCC, 0xC3, 0x3C, 0xCC, 0xFF, 0xFE, 0xFF, 0xFE, 0xEF,
    0xFF, 0xDF, 0xFF, 0xDD, 0xFF, 0xFB, 0xFF, 0xFB, 0xBF, 0xFF, 0x7F, 0xFF, 0x77, 0xF7, 0xBD, 0xEF,
    0xFF, 0xF0, 0xFF, 0xF0, 0x0F, 0xFC, 0xCC, 0x3C, 0xCC, 0x33, 0xCC, 0xCF, 0xFF, 0xEF, 0xFF, 0xEE,
    0xFF, 0xFD, 0xFF, 0xFD, 0xDF, 0xFF, 0xBF, 0xFF, 0xBB, 0xFF, 0xF7, 0xFF, 0xF7, 0x7F, 0x7B, 0xDE,
];

/// The tuning block eMMC CMD21 sends on an 8-bit bus, 128 bytes (JESD84-B51 "Sampling
/// Tuning Sequence for HS200").
pub const TUNING_BLOCK_8BIT: [u8; 128] = [
    0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF, 0xCC, 0xCC, 0xCC, 0x33, 0xCC, 0xCC,
    0xCC, 0x33, 0x33, 0xCC, 0xCC, 0xCC, 0xFF, 0xFF, 0xFF, 0xEE, 0xFF, 0xFF, 0xFF, 0xEE, 0xEE, 0xFF,
    0xFF, 0xFF, 0xDD, 0xFF, 0xFF, 0xFF, 0xDD, 0xDD, 0xFF, 0xFF, 0xFF, 0xBB, 0xFF, 0xFF, 0xFF, 0xBB,
    0xBB, 0xFF, 0xFF, 0xFF, 0x77, 0xFF, 0xFF, 0xFF, 0x77, 0x77, 0xFF, 0x77, 0xBB, 0xDD, 0xEE, 0xFF,
    0xFF, 0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF, 0xCC, 0xCC, 0xCC, 0x33, 0xCC,
    0xCC, 0xCC, 0x33, 0x33, 0xCC, 0xCC, 0xCC, 0xFF, 0xFF, 0xFF, 0xEE, 0xFF, 0xFF, 0xFF, 0xEE, 0xEE,
    0xFF, 0xFF, 0xFF, 0xDD, 0xFF, 0xFF, 0xFF, 0xDD, 0xDD, 0xFF, 0xFF, 0xFF, 0xBB, 0xFF, 0xFF, 0xFF,
    0xBB, 0xBB, 0xFF, 0xFF, 0xFF, 0x77, 0xFF, 0xFF, 0xFF, 0x77, 0x77, 0xFF, 0x77, 0xBB, 0xDD, 0xEE,
];

/// The state both card models keep alike: what the steps every command starts with use,
/// and the status bits waiting for the next response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardCore {
    /// Error bits waiting to be reported with the next response.
    pub pending: u32,
    /// The busy work the last command started (see [`CardWork`]).
    pub work: CardWork,
    /// The card is in the inactive state: it answers nothing until a power cycle.
    pub inactive: bool,
    /// The erase sequence.
    pub erase: EraseRange,
}

impl CardCore {
    /// A card just powered up, whose erase sequence is `erase`.
    pub const fn new(erase: EraseRange) -> Self {
        Self {
            pending: 0,
            work: CardWork::None,
            inactive: false,
            erase,
        }
    }

    /// The R2 to CMD9 SEND_CSD (`csd`) or CMD10 SEND_CID (`cid`) for a card in stand-by;
    /// no response unless the command is `addressed` to the card. R2 carries no status, so
    /// the pending bits are dropped.
    pub fn send_csd_or_cid(
        &mut self,
        index: u8,
        addressed: bool,
        csd: [u32; 4],
        cid: [u32; 4],
    ) -> Result<Response, NoResponse> {
        if !addressed {
            return Err(NoResponse);
        }
        self.pending = 0;
        Ok(Response::R2(if index == 9 { csd } else { cid }))
    }
}

/// A card model, as the steps of [`command`] see it.
pub trait CardModel {
    /// The state those steps use.
    fn core(&mut self) -> &mut CardCore;

    /// CMD0: back to idle, storage kept.
    fn reset(&mut self);

    /// A command the steps let through to the card's own handling.
    fn handle(&mut self, cmd: Command) -> Result<Response, NoResponse>;
}

/// Takes a command as every card does: the previous command's work is forgotten, an
/// inactive card stays silent, CMD0 resets the card whatever its state, and a command that
/// is no part of an open erase sequence ends it (ERASE_RESET with the next response). Then
/// the card handles the command.
pub fn command<C: CardModel>(card: &mut C, cmd: Command) -> Result<Response, NoResponse> {
    let core = card.core();
    core.work = CardWork::None;
    if core.inactive {
        return Err(NoResponse);
    }
    if cmd.index == 0 {
        card.reset();
        return Ok(Response::None);
    }
    core.pending |= core.erase.interrupt(cmd.index);
    card.handle(cmd)
}

/// The erase sequence: the commands that set the first and the last block of an erase, and
/// the bounds they set so far, which the erase command takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EraseRange {
    first_command: u8,
    last_command: u8,
    erase_command: u8,
    /// ERASE_RESET in the card's status.
    erase_reset: u32,
    start: Option<u32>,
    end: Option<u32>,
}

/// Why an erase bound was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraseBoundError {
    /// The block is beyond the end of the memory; the sequence is cleared.
    OutOfRange,
    /// A last block came without a first one.
    Sequence,
}

impl EraseRange {
    /// No bounds yet, for a card whose `first`, `last` and `erase` commands make the
    /// sequence (CMD35, CMD36, CMD38 on eMMC; CMD32, CMD33, CMD38 on SD) and whose status
    /// reports an interrupted sequence with `erase_reset`.
    pub const fn new(first: u8, last: u8, erase: u8, erase_reset: u32) -> Self {
        Self {
            first_command: first,
            last_command: last,
            erase_command: erase,
            erase_reset,
            start: None,
            end: None,
        }
    }

    /// Clears the bounds.
    pub fn clear(&mut self) {
        self.start = None;
        self.end = None;
    }

    /// Ends an open sequence if CMD`index` is no part of it (the status poll, CMD13, is);
    /// returns the status bits that report it: ERASE_RESET if it did, else none.
    pub fn interrupt(&mut self, index: u8) -> u32 {
        let open = self.start.is_some() || self.end.is_some();
        let part = [
            13,
            self.first_command,
            self.last_command,
            self.erase_command,
        ];
        if open && !part.contains(&index) {
            self.clear();
            return self.erase_reset;
        }
        0
    }

    /// The bound command CMD`index` (the first or the last) for `block`, in a memory of
    /// `blocks` blocks. A block beyond the end clears the sequence.
    pub fn set(&mut self, index: u8, block: u32, blocks: u32) -> Result<(), EraseBoundError> {
        if block >= blocks {
            self.clear();
            return Err(EraseBoundError::OutOfRange);
        }
        if index == self.first_command {
            self.start = Some(block);
            self.end = None;
        } else {
            if self.start.is_none() {
                return Err(EraseBoundError::Sequence);
            }
            self.end = Some(block);
        }
        Ok(())
    }

    /// Takes the first and last block for the erase command; `None` unless both are set.
    /// The sequence ends either way.
    pub fn take(&mut self) -> Option<(u32, u32)> {
        let range = self.start.zip(self.end);
        self.clear();
        range
    }
}

/// Erases blocks `first..=last` of `memory` (what lies beyond its end is not there to
/// erase): erased memory reads 0x00 on both cards (eMMC ERASED_MEM_CONT and SD
/// DATA_STAT_AFTER_ERASE are 0). Returns the work for the latency model.
pub fn erase_blocks(memory: &mut [u8], first: u32, last: u32) -> CardWork {
    let from = (first as usize).saturating_mul(BLOCK_SIZE);
    let to = (last as usize).saturating_add(1).saturating_mul(BLOCK_SIZE);
    if let Some(span) = memory.get_mut(from..to) {
        span.fill(0);
    }
    CardWork::Erase {
        blocks: u64::from(last.saturating_sub(first)) + 1,
    }
}

/// Why a block data phase refused bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockError {
    /// More bytes than the transfer has left.
    Overrun,
    /// The transfer ran past the end of the memory: the card stops there and reports it
    /// (out of range) with the next response.
    PastEnd,
}

impl BlockError {
    /// The error the host sees; the out-of-range bit `out_of_range` goes to `pending` for
    /// a transfer that ran past the end.
    pub fn report(self, pending: &mut u32, out_of_range: u32) -> DataError {
        if self == Self::PastEnd {
            *pending |= out_of_range;
        }
        DataError::Overrun
    }
}

/// A block data phase in progress: where its next byte is in the card's memory and how many
/// bytes are left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockData {
    offset: usize,
    /// `None` for an open-ended transfer, which runs until CMD12.
    remaining: Option<usize>,
}

impl BlockData {
    /// A transfer from block `first` of `blocks` blocks (`None`: open-ended).
    pub fn new(first: u32, blocks: Option<u32>) -> Self {
        Self {
            offset: (first as usize).saturating_mul(BLOCK_SIZE),
            remaining: blocks.map(|n| (n as usize).saturating_mul(BLOCK_SIZE)),
        }
    }

    /// Where the next byte is.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Bytes left (`None`: open-ended).
    pub const fn remaining(&self) -> Option<usize> {
        self.remaining
    }

    /// The memory range of the next `len` bytes.
    fn next(&self, len: usize) -> Result<core::ops::Range<usize>, BlockError> {
        if self.remaining.is_some_and(|r| len > r) {
            return Err(BlockError::Overrun);
        }
        let end = self.offset.checked_add(len).ok_or(BlockError::Overrun)?;
        Ok(self.offset..end)
    }

    /// Moves past `span`; returns whether the transfer is complete.
    fn advance(&mut self, span: core::ops::Range<usize>) -> bool {
        self.remaining = self.remaining.map(|r| r.saturating_sub(span.len()));
        self.offset = span.end;
        self.remaining == Some(0)
    }

    /// Card to host: fills `buf` with the next bytes of `memory`; returns whether the
    /// transfer is complete.
    pub fn read(&mut self, memory: &[u8], buf: &mut [u8]) -> Result<bool, BlockError> {
        let span = self.next(buf.len())?;
        let src = memory.get(span.clone()).ok_or(BlockError::PastEnd)?;
        buf.copy_from_slice(src);
        Ok(self.advance(span))
    }

    /// Host to card: stores `data` as the next bytes of `memory`; returns whether the
    /// transfer is complete.
    pub fn write(&mut self, memory: &mut [u8], data: &[u8]) -> Result<bool, BlockError> {
        let span = self.next(data.len())?;
        let dst = memory.get_mut(span.clone()).ok_or(BlockError::PastEnd)?;
        dst.copy_from_slice(data);
        Ok(self.advance(span))
    }
}

/// A register the card sends as its data phase (eMMC EXT_CSD; SD SCR, SD status, switch
/// status): how many bytes are sent of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readout {
    sent: usize,
    len: usize,
}

impl Readout {
    /// The first of `len` bytes.
    pub const fn new(len: usize) -> Self {
        Self { sent: 0, len }
    }

    /// Bytes left to send.
    pub const fn remaining(&self) -> usize {
        self.len.saturating_sub(self.sent)
    }

    /// Fills `buf` with the next bytes of `register`; returns whether all are sent.
    pub fn read(&mut self, register: &[u8], buf: &mut [u8]) -> Result<bool, DataError> {
        let end = self.sent.checked_add(buf.len()).ok_or(DataError::Overrun)?;
        if end > self.len {
            return Err(DataError::Overrun);
        }
        let src = register.get(self.sent..end).ok_or(DataError::Overrun)?;
        buf.copy_from_slice(src);
        self.sent = end;
        Ok(end == self.len)
    }
}

/// Where a card is in the CMD11 signal voltage switch (SD Physical Layer 3.01 §4.2.4.2,
/// "Timing to Switch Signal Voltage", which SDIO 3.00 follows): after its CMD11 response
/// the card holds CMD and DAT3..DAT0 low; a clock stop lets it move its I/O to 1.8 V, and
/// the next clock start ends the switch, the lines released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoltageSwitch {
    /// No switch under way: the lines are released (pulled high).
    Idle,
    /// CMD11 answered: the lines held low until the host stops the clock.
    LinesLow,
    /// The clock stopped: the I/O moves to 1.8 V, lines still low, until the clock runs.
    ClockStopped,
}

impl VoltageSwitch {
    /// The phase after the host started (`true`) or stopped the clock, and whether that
    /// ended the switch (the card now signals at 1.8 V). A start without a stop before it
    /// changes nothing.
    pub const fn clock(self, running: bool) -> (Self, bool) {
        match (self, running) {
            (Self::LinesLow, false) => (Self::ClockStopped, false),
            (Self::ClockStopped, true) => (Self::Idle, true),
            (phase, _) => (phase, false),
        }
    }

    /// Whether the card holds its lines low.
    pub const fn lines_low(self) -> bool {
        !matches!(self, Self::Idle)
    }
}
