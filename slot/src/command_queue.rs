// SPDX-License-Identifier: GPL-2.0

//! The CQHCI command queue's side of the slot, as far as it is shared yet: what a queued
//! request becomes (a data task or a direct command) and what a completed task hands back
//! to the core. The order of the engine calls is still the glue's (`[SLOT-CQE]` in
//! `docs/todo.md`).

use crate::cqhci::{
    self, CompletionStatus, DataTask, DcmdResponse, DirectCommand, TaskError, TaskFlags,
};
use crate::mmc_request::{flags, Command, Data, Direction, ErrorKind};

/// The data task of a request with `data`, starting at `block_address`, with the
/// attributes its `MMC_DATA_*` flags ask for.
pub fn data_task(data: &Data, block_address: u32, data_flags: u32) -> DataTask {
    DataTask {
        direction: match data.direction {
            Direction::Read => cqhci::Direction::Read,
            Direction::Write => cqhci::Direction::Write,
        },
        // Too many blocks for a task: refused by the engine as a task of none.
        block_count: u16::try_from(data.blocks).unwrap_or(0),
        block_address,
        flags: TaskFlags {
            reliable_write: data_flags & flags::MMC_DATA_REL_WR != 0,
            data_tag: data_flags & flags::MMC_DATA_DAT_TAG != 0,
            priority: data_flags & flags::MMC_DATA_PRIO != 0,
            queue_barrier: data_flags & flags::MMC_DATA_QBR != 0,
            forced_programming: data_flags & flags::MMC_DATA_FORCED_PRG != 0,
        },
        context: 0,
    }
}

/// The direct command of a request without data (a cache flush), its response type from
/// the command's flags.
pub fn direct_command(cmd: &Command) -> Result<DirectCommand, cqhci::Error> {
    let response = if cmd.flags & flags::MMC_RSP_PRESENT == 0 {
        DcmdResponse::None
    } else if cmd.flags & flags::MMC_RSP_BUSY != 0 {
        DcmdResponse::ShortBusy
    } else {
        DcmdResponse::Short
    };
    let opcode = u8::try_from(cmd.opcode).map_err(|_| cqhci::Error::ValueTooWide)?;
    Ok(DirectCommand {
        opcode,
        argument: cmd.arg,
        response,
    })
}

/// The request error of a task that ended with `error`.
pub fn task_error(error: TaskError) -> ErrorKind {
    match error {
        TaskError::Crc => ErrorKind::BadCrc,
        TaskError::Timeout => ErrorKind::TimedOut,
        TaskError::Io => ErrorKind::DmaFault,
    }
}

/// What a task that completed with `status` hands back to the core: the bytes moved (all
/// of `data` when it is done, none otherwise: a requeued task runs again whole) and its
/// error.
pub fn task_ending(status: CompletionStatus, data: Option<Data>) -> (u32, Option<ErrorKind>) {
    match status {
        CompletionStatus::Done => (data.and_then(|data| data.bytes()).unwrap_or(0), None),
        CompletionStatus::Requeue => (0, None),
        CompletionStatus::Failed(error) => (0, Some(task_error(error))),
    }
}
