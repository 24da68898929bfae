// SPDX-License-Identifier: GPL-2.0
//! The eMMC card model: card states, identification, EXT_CSD, single/multi-block transfers and
//! the command queue (CMD44..CMD48), over storage the caller provides.
//!
//! The interface is the bus's: a command and its argument in, a response out, then a data
//! phase the host drives with [`Card::read_data`] or [`Card::write_data`]. Both the CQHCI model
//! and, later, the MSDC model talk to the card this way.

use super::command::{status, CardState, Command, NoResponse, Response};
use super::ext_csd::{index, ExtCsd, EXT_CSD_LEN};

/// Size of a sector.
pub const SECTOR_SIZE: usize = 512;

const QUEUE_SLOTS: usize = 32;

/// How the card picks when queued tasks become ready for execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadyOrder {
    /// Every queued task is ready at the next status poll.
    Immediate,
    /// Each task becomes ready after a pseudo-random number (1..=4) of status polls, so
    /// tasks complete out of order; the seed makes runs repeatable.
    Shuffled(u32),
}

/// Parameters of a queued task (from CMD44 and CMD45).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedTask {
    /// Read (CMD46) or write (CMD47) task.
    pub read: bool,
    /// Number of blocks.
    pub blocks: u16,
    /// First block address (set by CMD45).
    pub address: u32,
    /// Reliable write request.
    pub reliable_write: bool,
    /// Tag request.
    pub tag_request: bool,
    /// Context ID.
    pub context: u8,
    /// Forced programming.
    pub forced_programming: bool,
    /// High priority.
    pub priority: bool,
}

impl QueuedTask {
    /// Decodes a CMD44 argument: bit 31 reliable write, 30 direction (1 = read), 29 tag
    /// request, 28:25 context, 24 forced programming, 23 priority, 20:16 task ID, 15:0 blocks.
    pub const fn from_cmd44(argument: u32) -> (u8, QueuedTask) {
        let task_id = ((argument >> 16) & 0x1F) as u8;
        (
            task_id,
            QueuedTask {
                read: argument & (1 << 30) != 0,
                blocks: (argument & 0xFFFF) as u16,
                address: 0,
                reliable_write: argument & (1 << 31) != 0,
                tag_request: argument & (1 << 29) != 0,
                context: ((argument >> 25) & 0xF) as u8,
                forced_programming: argument & (1 << 24) != 0,
                priority: argument & (1 << 23) != 0,
            },
        )
    }

    /// The CMD44 argument for this task in queue slot `task_id`.
    pub const fn cmd44_argument(&self, task_id: u8) -> u32 {
        let mut arg = ((task_id as u32 & 0x1F) << 16) | self.blocks as u32;
        if self.reliable_write {
            arg |= 1 << 31;
        }
        if self.read {
            arg |= 1 << 30;
        }
        if self.tag_request {
            arg |= 1 << 29;
        }
        arg |= (self.context as u32 & 0xF) << 25;
        if self.forced_programming {
            arg |= 1 << 24;
        }
        if self.priority {
            arg |= 1 << 23;
        }
        arg
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    task: QueuedTask,
    /// Status polls left before the task is ready; 0 = ready.
    polls_left: u8,
}

/// What the current data phase moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataPhase {
    None,
    /// The card sends `remaining` bytes from storage offset `offset`; `task` is the queued
    /// task being executed; `open_ended` reads continue until CMD12.
    Read {
        offset: usize,
        remaining: usize,
        task: Option<u8>,
        open_ended: bool,
    },
    /// The card receives bytes into storage.
    Write {
        offset: usize,
        remaining: usize,
        task: Option<u8>,
        open_ended: bool,
        reliable: bool,
    },
    /// The card sends the Extended CSD.
    ExtCsd {
        sent: usize,
    },
}

/// A data phase request that the card cannot serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataError {
    /// No data phase is open in that direction.
    NoTransfer,
    /// More bytes than the transfer has left.
    Overrun,
}

/// Counters the tests inspect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CardStats {
    /// Commands received.
    pub commands: u32,
    /// Queued tasks executed to the end.
    pub tasks_completed: u32,
    /// Cache flushes (EXT_CSD FLUSH_CACHE writes).
    pub flushes: u32,
    /// Queue discards (CMD48).
    pub discards: u32,
    /// Reliable writes completed.
    pub reliable_writes: u32,
}

/// An eMMC card.
#[derive(Debug)]
pub struct Card<'a> {
    storage: &'a mut [u8],
    state: CardState,
    rca: u16,
    ocr_polls: u8,
    pending_errors: u32,
    ext_csd: ExtCsd,
    block_count: Option<u32>,
    data: DataPhase,
    queue: [Option<Entry>; QUEUE_SLOTS],
    /// The task whose CMD44 arrived and which waits for its CMD45.
    awaiting_address: Option<(u8, QueuedTask)>,
    order: ReadyOrder,
    rng: u32,
    stats: CardStats,
}

const OCR_VOLTAGES: u32 = 0x00FF_8080;
const OCR_SECTOR_MODE: u32 = 0x4000_0000;
const OCR_READY: u32 = 0x8000_0000;

impl<'a> Card<'a> {
    /// A card in the idle state whose user area is `storage` (a whole number of sectors).
    pub fn new(storage: &'a mut [u8], queue_depth: u8, order: ReadyOrder) -> Self {
        let sectors = u32::try_from(storage.len() / SECTOR_SIZE).unwrap_or(u32::MAX);
        let rng = match order {
            ReadyOrder::Immediate => 0,
            ReadyOrder::Shuffled(seed) => seed | 1,
        };
        Self {
            storage,
            state: CardState::Idle,
            rca: 0,
            ocr_polls: 0,
            pending_errors: 0,
            ext_csd: ExtCsd::new(sectors, queue_depth),
            block_count: None,
            data: DataPhase::None,
            queue: [None; QUEUE_SLOTS],
            awaiting_address: None,
            order,
            rng,
            stats: CardStats::default(),
        }
    }

    /// The user area.
    pub fn storage(&self) -> &[u8] {
        self.storage
    }

    /// The user area, for a test to prepare.
    pub fn storage_mut(&mut self) -> &mut [u8] {
        self.storage
    }

    /// Number of sectors.
    pub fn sectors(&self) -> u32 {
        u32::try_from(self.storage.len() / SECTOR_SIZE).unwrap_or(u32::MAX)
    }

    /// The Extended CSD.
    pub fn ext_csd(&self) -> &ExtCsd {
        &self.ext_csd
    }

    /// The current state.
    pub fn state(&self) -> CardState {
        self.state
    }

    /// The relative card address (0 before CMD3).
    pub fn rca(&self) -> u16 {
        self.rca
    }

    /// Counters.
    pub fn stats(&self) -> CardStats {
        self.stats
    }

    /// Task IDs currently in the queue.
    pub fn queued_tasks(&self) -> u32 {
        let mut mask = 0u32;
        for (i, e) in self.queue.iter().enumerate() {
            if e.is_some() {
                mask |= 1u32 << (i & 31);
            }
        }
        mask
    }

    /// The parameters of queued task `task_id`.
    pub fn queued_task(&self, task_id: u8) -> Option<QueuedTask> {
        self.queue
            .get(usize::from(task_id))
            .copied()
            .flatten()
            .map(|e| e.task)
    }

    /// Bytes left in the current data phase.
    pub fn data_remaining(&self) -> usize {
        match self.data {
            DataPhase::None => 0,
            DataPhase::Read { remaining, .. } | DataPhase::Write { remaining, .. } => remaining,
            DataPhase::ExtCsd { sent } => EXT_CSD_LEN.saturating_sub(sent),
        }
    }

    fn next_random(&mut self) -> u32 {
        // xorshift32: deterministic and cheap; quality does not matter here.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x
    }

    fn status(&mut self, now: u32) -> u32 {
        let mut s = self.pending_errors | now | ((self.state as u32) << status::STATE_SHIFT);
        if matches!(
            self.state,
            CardState::Tran | CardState::Data | CardState::Stby
        ) {
            s |= status::READY_FOR_DATA;
        }
        self.pending_errors = 0;
        s
    }

    fn r1(&mut self, now: u32) -> Result<Response, NoResponse> {
        Ok(Response::R1(self.status(now)))
    }

    fn r1b(&mut self, now: u32) -> Result<Response, NoResponse> {
        Ok(Response::R1b(self.status(now)))
    }

    fn illegal(&mut self) -> Result<Response, NoResponse> {
        self.r1(status::ILLEGAL_COMMAND)
    }

    fn addressed(&self, cmd: Command) -> bool {
        (cmd.argument >> 16) as u16 == self.rca
    }

    fn queue_empty(&self) -> bool {
        self.queue.iter().all(Option::is_none) && self.awaiting_address.is_none()
    }

    fn range(&self, address: u32, blocks: u32) -> Option<core::ops::Range<usize>> {
        let start = usize::try_from(address).ok()?.checked_mul(SECTOR_SIZE)?;
        let len = usize::try_from(blocks).ok()?.checked_mul(SECTOR_SIZE)?;
        let end = start.checked_add(len)?;
        if end <= self.storage.len() {
            Some(start..end)
        } else {
            None
        }
    }

    /// Sends a command to the card.
    pub fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        self.stats.commands = self.stats.commands.wrapping_add(1);
        match cmd.index {
            0 => {
                self.reset();
                Ok(Response::None)
            }
            1 => self.send_op_cond(),
            2 => {
                if self.state != CardState::Ready {
                    return Err(NoResponse);
                }
                self.state = CardState::Ident;
                Ok(Response::R2([
                    0x1501_0044,
                    0x5349_4D30,
                    0x3100_0000,
                    0x0000_0001,
                ]))
            }
            3 => {
                if self.state != CardState::Ident {
                    return Err(NoResponse);
                }
                let rca = (cmd.argument >> 16) as u16;
                if rca == 0 {
                    return self.illegal();
                }
                let r = self.r1(0);
                self.rca = rca;
                self.state = CardState::Stby;
                r
            }
            6 => self.switch(cmd),
            7 => self.select(cmd),
            8 => {
                if self.state != CardState::Tran {
                    return self.illegal();
                }
                let r = self.r1(0);
                self.state = CardState::Data;
                self.data = DataPhase::ExtCsd { sent: 0 };
                r
            }
            9 => {
                if !self.addressed(cmd) || self.state != CardState::Stby {
                    return Err(NoResponse);
                }
                Ok(Response::R2([
                    0xD04F_0132,
                    0x0F59_03FF,
                    0xFFFF_FFFF,
                    0x9240_4001,
                ]))
            }
            12 => self.stop(),
            13 => {
                if !self.addressed(cmd) {
                    return Err(NoResponse);
                }
                if cmd.argument & (1 << 15) != 0 {
                    if !self.ext_csd.cmdq_enabled() {
                        return self.illegal();
                    }
                    return Ok(Response::QueueStatus(self.poll_queue()));
                }
                self.r1(0)
            }
            16 => {
                if self.state != CardState::Tran {
                    return self.illegal();
                }
                if cmd.argument as usize != SECTOR_SIZE {
                    return self.r1(status::BLOCK_LEN_ERROR);
                }
                self.r1(0)
            }
            17 | 18 => self.legacy_read(cmd),
            23 => {
                if self.state != CardState::Tran || !self.queue_empty() {
                    return self.illegal();
                }
                self.block_count = Some(cmd.argument & 0xFFFF);
                self.r1(0)
            }
            24 | 25 => self.legacy_write(cmd),
            44 => self.queue_params(cmd),
            45 => self.queue_address(cmd),
            46 | 47 => self.execute(cmd),
            48 => self.task_management(cmd),
            _ => self.illegal(),
        }
    }

    /// CMD0: back to idle with the power-up register values; storage is kept.
    fn reset(&mut self) {
        let sectors = self.sectors();
        let depth = self.ext_csd.cmdq_depth() as u8;
        self.state = CardState::Idle;
        self.rca = 0;
        self.ocr_polls = 0;
        self.pending_errors = 0;
        self.ext_csd = ExtCsd::new(sectors, depth);
        self.block_count = None;
        self.data = DataPhase::None;
        self.queue = [None; QUEUE_SLOTS];
        self.awaiting_address = None;
    }

    fn send_op_cond(&mut self) -> Result<Response, NoResponse> {
        match self.state {
            CardState::Idle | CardState::Ready => {}
            _ => return Err(NoResponse),
        }
        // Power-up takes one extra poll: the first answer is still busy.
        let mut ocr = OCR_VOLTAGES | OCR_SECTOR_MODE;
        if self.ocr_polls > 0 {
            ocr |= OCR_READY;
            self.state = CardState::Ready;
        }
        self.ocr_polls = self.ocr_polls.saturating_add(1);
        Ok(Response::R3(ocr))
    }

    fn select(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if !self.addressed(cmd) {
            if self.state == CardState::Tran {
                self.state = CardState::Stby;
            }
            return Err(NoResponse);
        }
        match self.state {
            CardState::Stby => {
                let r = self.r1b(0);
                self.state = CardState::Tran;
                r
            }
            CardState::Tran => self.r1b(0),
            _ => self.illegal(),
        }
    }

    fn switch(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran {
            return self.illegal();
        }
        let access = (cmd.argument >> 24) & 0x3;
        let byte = ((cmd.argument >> 16) & 0xFF) as usize;
        let value = ((cmd.argument >> 8) & 0xFF) as u8;
        if access != 3 || byte >= index::PROPERTIES_START {
            return self.r1b(status::SWITCH_ERROR);
        }
        match byte {
            // The queue mode only changes while the queue is empty.
            index::CMDQ_MODE_EN if !self.queue_empty() => return self.r1b(status::SWITCH_ERROR),
            // In queue mode a flush is only legal on an empty queue (hosts send it as a
            // barrier direct command for that reason).
            index::FLUSH_CACHE => {
                if !self.queue_empty() {
                    return self.illegal();
                }
                if value & 1 != 0 {
                    self.stats.flushes = self.stats.flushes.wrapping_add(1);
                }
                return self.r1b(0);
            }
            _ => {}
        }
        self.ext_csd.set(byte, value);
        self.r1b(0)
    }

    fn stop(&mut self) -> Result<Response, NoResponse> {
        match self.data {
            DataPhase::None => {
                if self.state == CardState::Tran {
                    // Tolerated without a transfer; recovery sends it blindly.
                    return self.r1b(0);
                }
                self.illegal()
            }
            DataPhase::Read { task, .. } | DataPhase::Write { task, .. } => {
                // An aborted queued task leaves the queue.
                if let Some(id) = task {
                    if let Some(e) = self.queue.get_mut(usize::from(id)) {
                        *e = None;
                    }
                }
                self.data = DataPhase::None;
                self.block_count = None;
                let r = self.r1b(0);
                self.state = CardState::Tran;
                r
            }
            DataPhase::ExtCsd { .. } => {
                self.data = DataPhase::None;
                self.state = CardState::Tran;
                self.r1b(0)
            }
        }
    }

    fn legacy_read(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.queue_empty() {
            return self.illegal();
        }
        let multi = cmd.index == 18;
        let preset = if multi { self.block_count.take() } else { None };
        let blocks = preset.unwrap_or(1);
        let Some(range) = self.range(cmd.argument, blocks) else {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        };
        let r = self.r1(0);
        self.state = CardState::Data;
        self.data = DataPhase::Read {
            offset: range.start,
            remaining: range.len(),
            task: None,
            open_ended: multi && preset.is_none(),
        };
        r
    }

    fn legacy_write(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.queue_empty() {
            return self.illegal();
        }
        let multi = cmd.index == 25;
        let preset = if multi { self.block_count.take() } else { None };
        let blocks = preset.unwrap_or(1);
        let Some(range) = self.range(cmd.argument, blocks) else {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        };
        let r = self.r1(0);
        self.state = CardState::Rcv;
        self.data = DataPhase::Write {
            offset: range.start,
            remaining: range.len(),
            task: None,
            open_ended: multi && preset.is_none(),
            reliable: false,
        };
        r
    }

    fn queue_params(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let (task_id, task) = QueuedTask::from_cmd44(cmd.argument);
        let depth = self.ext_csd.cmdq_depth();
        let occupied = self
            .queue
            .get(usize::from(task_id))
            .is_some_and(Option::is_some);
        if u32::from(task_id) >= depth || occupied || task.blocks == 0 {
            self.awaiting_address = None;
            return self.r1(status::ERROR);
        }
        self.awaiting_address = Some((task_id, task));
        self.r1(0)
    }

    fn queue_address(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let Some((task_id, mut task)) = self.awaiting_address.take() else {
            return self.illegal();
        };
        if self.range(cmd.argument, u32::from(task.blocks)).is_none() {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        }
        task.address = cmd.argument;
        let polls_left = match self.order {
            ReadyOrder::Immediate => 1,
            ReadyOrder::Shuffled(_) => (self.next_random() % 4) as u8 + 1,
        };
        if let Some(e) = self.queue.get_mut(usize::from(task_id)) {
            *e = Some(Entry { task, polls_left });
        }
        self.r1(0)
    }

    /// One CMD13 queue-status poll: tasks age by one poll; returns the ready mask.
    fn poll_queue(&mut self) -> u32 {
        let mut ready = 0u32;
        for (i, e) in self.queue.iter_mut().enumerate() {
            if let Some(entry) = e {
                entry.polls_left = entry.polls_left.saturating_sub(1);
                if entry.polls_left == 0 {
                    ready |= 1u32 << (i & 31);
                }
            }
        }
        ready
    }

    fn execute(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let task_id = ((cmd.argument >> 16) & 0x1F) as u8;
        let Some(entry) = self.queue.get(usize::from(task_id)).copied().flatten() else {
            return self.r1(status::ERROR);
        };
        let read = cmd.index == 46;
        if entry.polls_left != 0 || entry.task.read != read {
            return self.r1(status::ERROR);
        }
        let Some(range) = self.range(entry.task.address, u32::from(entry.task.blocks)) else {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        };
        let r = self.r1(0);
        if read {
            self.state = CardState::Data;
            self.data = DataPhase::Read {
                offset: range.start,
                remaining: range.len(),
                task: Some(task_id),
                open_ended: false,
            };
        } else {
            self.state = CardState::Rcv;
            self.data = DataPhase::Write {
                offset: range.start,
                remaining: range.len(),
                task: Some(task_id),
                open_ended: false,
                reliable: entry.task.reliable_write,
            };
        }
        r
    }

    fn task_management(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        match cmd.argument & 0xF {
            1 => {
                self.queue = [None; QUEUE_SLOTS];
                self.awaiting_address = None;
            }
            2 => {
                let task_id = usize::try_from((cmd.argument >> 16) & 0x1F).unwrap_or(0);
                if let Some(e) = self.queue.get_mut(task_id) {
                    *e = None;
                }
            }
            _ => return self.r1b(status::ERROR),
        }
        self.stats.discards = self.stats.discards.wrapping_add(1);
        self.r1b(0)
    }

    fn finish_data(&mut self, task: Option<u8>) {
        if let Some(id) = task {
            if let Some(e) = self.queue.get_mut(usize::from(id)) {
                *e = None;
            }
            self.stats.tasks_completed = self.stats.tasks_completed.wrapping_add(1);
        }
        self.data = DataPhase::None;
        self.state = CardState::Tran;
    }

    /// Data phase, card to host: fills `buf` with the next bytes of the transfer.
    pub fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        match self.data {
            DataPhase::Read {
                offset,
                remaining,
                task,
                open_ended,
            } => {
                if buf.len() > remaining && !open_ended {
                    return Err(DataError::Overrun);
                }
                let end = offset.checked_add(buf.len()).ok_or(DataError::Overrun)?;
                let src = self.storage.get(offset..end).ok_or(DataError::Overrun)?;
                buf.copy_from_slice(src);
                let left = remaining.saturating_sub(buf.len());
                if left == 0 && !open_ended {
                    self.finish_data(task);
                } else {
                    self.data = DataPhase::Read {
                        offset: end,
                        remaining: left,
                        task,
                        open_ended,
                    };
                }
                Ok(())
            }
            DataPhase::ExtCsd { sent } => {
                let end = sent.checked_add(buf.len()).ok_or(DataError::Overrun)?;
                let src = self
                    .ext_csd
                    .bytes()
                    .get(sent..end)
                    .ok_or(DataError::Overrun)?;
                buf.copy_from_slice(src);
                if end == EXT_CSD_LEN {
                    self.finish_data(None);
                } else {
                    self.data = DataPhase::ExtCsd { sent: end };
                }
                Ok(())
            }
            _ => Err(DataError::NoTransfer),
        }
    }

    /// Data phase, host to card: stores `data` as the next bytes of the transfer.
    pub fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        let DataPhase::Write {
            offset,
            remaining,
            task,
            open_ended,
            reliable,
        } = self.data
        else {
            return Err(DataError::NoTransfer);
        };
        if data.len() > remaining && !open_ended {
            return Err(DataError::Overrun);
        }
        let end = offset.checked_add(data.len()).ok_or(DataError::Overrun)?;
        let dst = self
            .storage
            .get_mut(offset..end)
            .ok_or(DataError::Overrun)?;
        dst.copy_from_slice(data);
        let left = remaining.saturating_sub(data.len());
        if left == 0 && !open_ended {
            if reliable {
                self.stats.reliable_writes = self.stats.reliable_writes.wrapping_add(1);
            }
            self.finish_data(task);
        } else {
            self.data = DataPhase::Write {
                offset: end,
                remaining: left,
                task,
                open_ended,
                reliable,
            };
        }
        Ok(())
    }

    /// Runs the identification sequence (CMD0, CMD1, CMD2, CMD3, CMD7) and, if
    /// `command_queue`, enables the queue with CMD6: the card ends in the transfer state.
    pub fn initialize(&mut self, rca: u16, command_queue: bool) -> Result<(), NoResponse> {
        self.command(Command::new(0, 0))?;
        let mut ready = false;
        for _ in 0..4 {
            if let Response::R3(ocr) =
                self.command(Command::new(1, OCR_VOLTAGES | OCR_SECTOR_MODE))?
            {
                if ocr & OCR_READY != 0 {
                    ready = true;
                    break;
                }
            }
        }
        if !ready {
            return Err(NoResponse);
        }
        self.command(Command::new(2, 0))?;
        let arg = u32::from(rca) << 16;
        check(self.command(Command::new(3, arg))?)?;
        check(self.command(Command::new(7, arg))?)?;
        if command_queue {
            let switch = (3 << 24) | ((index::CMDQ_MODE_EN as u32) << 16) | (1 << 8);
            check(self.command(Command::new(6, switch))?)?;
        }
        Ok(())
    }
}

/// Error bits a response may carry.
const ERROR_BITS: u32 = 0xFDF9_A080;

fn check(response: Response) -> Result<(), NoResponse> {
    if response.value() & ERROR_BITS != 0 {
        Err(NoResponse)
    } else {
        Ok(())
    }
}
