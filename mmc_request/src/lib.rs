// SPDX-License-Identifier: GPL-2.0

//! An MMC request as a host driver's engines see it, and what they answer.
//!
//! These are the one set of request types on the path MMC core → driver → engine →
//! completion: the kernel's MMC abstraction layer builds them from `struct mmc_request` and
//! turns the results back into `struct mmc_command`/`mmc_data` fields; the engines (the
//! MSDC legacy request engine, the queue engines' glue) take and return them as they are.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

/// One command of a request, as `struct mmc_command` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Command index.
    pub opcode: u32,
    /// Argument.
    pub arg: u32,
    /// `MMC_RSP_*` and `MMC_CMD_*` flags.
    pub flags: u32,
    /// For R1b commands: how long the card may stay busy, in ms (0: unknown).
    pub busy_timeout_ms: u32,
}

/// Which way a data phase moves data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Card to host.
    Read,
    /// Host to card (`MMC_DATA_WRITE`).
    Write,
}

/// The data phase of a request, as `struct mmc_data` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Data {
    /// Bytes per block.
    pub block_size: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Which way the data moves.
    pub direction: Direction,
    /// Data timeout: nanoseconds part.
    pub timeout_ns: u32,
    /// Data timeout: bus clock cycles part, added to `timeout_ns`.
    pub timeout_clks: u32,
}

impl Data {
    /// Whether the data goes to the card.
    pub const fn is_write(&self) -> bool {
        matches!(self.direction, Direction::Write)
    }

    /// Bytes of the whole transfer, if they fit in 32 bits.
    pub const fn bytes(&self) -> Option<u32> {
        self.block_size.checked_mul(self.blocks)
    }
}

/// A request, as `struct mmc_request` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// SET_BLOCK_COUNT (CMD23) to precede the command.
    pub sbc: Option<Command>,
    /// The command.
    pub cmd: Command,
    /// The data phase of the command.
    pub data: Option<Data>,
    /// The stop command (CMD12) the core wants after a multiple block transfer.
    pub stop: Option<Command>,
}

/// One scatter-gather segment of a request's data, mapped for the device's DMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Bus address of the first byte.
    pub bus_address: u64,
    /// Length in bytes.
    pub len: u32,
}

/// Why a phase of a request failed, in the terms the MMC core's error codes draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// No response or no data in time: `-ETIMEDOUT`.
    TimedOut,
    /// A CRC check failed: `-EILSEQ`.
    BadCrc,
    /// The host could not move the data (a DMA descriptor or address fault): `-EIO`.
    DmaFault,
}

/// The outcome of one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandResult {
    /// The response in `mmc_command.resp` order; zero for a command without response.
    pub response: [u32; 4],
    /// What went wrong, if anything.
    pub error: Option<ErrorKind>,
}

impl CommandResult {
    /// No response read, no error: a command that has not run (the core's initial state).
    pub const NOT_RUN: Self = Self {
        response: [0; 4],
        error: None,
    };

    /// A command that failed with `error` and no response.
    pub const fn failed(error: ErrorKind) -> Self {
        Self {
            response: [0; 4],
            error: Some(error),
        }
    }
}

/// The outcome of the data phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataResult {
    /// Bytes transferred: `blocks * block_size` on success, 0 on error.
    pub bytes_xfered: u32,
    /// What went wrong, if anything.
    pub error: Option<ErrorKind>,
}

/// The outcome of a request, phase by phase. A phase that did not run is `None` (for the
/// command: [`CommandResult::NOT_RUN`]), so the core's initial values stand for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestResult {
    /// The set-block-count command, sent by software or as auto-CMD23.
    pub sbc: Option<CommandResult>,
    /// The command.
    pub cmd: CommandResult,
    /// The data phase.
    pub data: Option<DataResult>,
    /// The stop command.
    pub stop: Option<CommandResult>,
}

impl RequestResult {
    /// Nothing has run yet.
    pub const NOT_RUN: Self = Self {
        sbc: None,
        cmd: CommandResult::NOT_RUN,
        data: None,
        stop: None,
    };

    /// Every phase `request` has, failed with `error` before anything reached the card.
    pub const fn failed(request: &Request, error: ErrorKind) -> Self {
        Self {
            sbc: match request.sbc {
                Some(_) => Some(CommandResult::failed(error)),
                None => None,
            },
            cmd: CommandResult::failed(error),
            data: match request.data {
                Some(_) => Some(DataResult {
                    bytes_xfered: 0,
                    error: Some(error),
                }),
                None => None,
            },
            stop: None,
        }
    }

    /// The first error of the request, in phase order.
    pub fn first_error(&self) -> Option<ErrorKind> {
        self.sbc
            .and_then(|sbc| sbc.error)
            .or(self.cmd.error)
            .or(self.data.and_then(|data| data.error))
            .or(self.stop.and_then(|stop| stop.error))
    }
}
