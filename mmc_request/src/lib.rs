// SPDX-License-Identifier: GPL-2.0

//! An MMC request as a host driver's engines see it, and what they answer.
//!
//! These are the one set of request types on the path MMC core → driver → engine →
//! completion: the kernel's MMC abstraction layer builds them from `struct mmc_request` and
//! turns the results back into `struct mmc_command`/`mmc_data` fields; the engines (the
//! MSDC legacy request engine, the queue engines' glue) take and return them as they are.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

// The register layer is a crate of its own on the host and the kernel crate's `registers`
// module in the kernel: `register!` is in scope in both.
#[cfg(not(CONFIG_RUST))]
#[macro_use]
extern crate registers;

/// The `mmc_command.flags` and `mmc_data.flags` bits of `include/linux/mmc/core.h`, and the
/// response types the MMC core makes of them.
pub mod flags {
    /// `MMC_RSP_PRESENT`: the command has a response.
    pub const MMC_RSP_PRESENT: u32 = 1 << 0;
    /// `MMC_RSP_136`: the response is 136 bits long.
    pub const MMC_RSP_136: u32 = 1 << 1;
    /// `MMC_RSP_CRC`: the response carries a valid CRC.
    pub const MMC_RSP_CRC: u32 = 1 << 2;
    /// `MMC_RSP_BUSY`: the card may signal busy on DAT0 after the response.
    pub const MMC_RSP_BUSY: u32 = 1 << 3;
    /// `MMC_RSP_OPCODE`: the response echoes the command index.
    pub const MMC_RSP_OPCODE: u32 = 1 << 4;
    /// The bits that make up the response type (`mmc_resp_type()`).
    pub const MMC_RSP_TYPE_MASK: u32 =
        MMC_RSP_PRESENT | MMC_RSP_136 | MMC_RSP_CRC | MMC_RSP_BUSY | MMC_RSP_OPCODE;

    /// `MMC_RSP_NONE`: no response.
    pub const MMC_RSP_NONE: u32 = 0;
    /// `MMC_RSP_R1`, also R5, R6 and R7.
    pub const MMC_RSP_R1: u32 = MMC_RSP_PRESENT | MMC_RSP_CRC | MMC_RSP_OPCODE;
    /// `MMC_RSP_R1B`: R1 followed by busy on DAT0.
    pub const MMC_RSP_R1B: u32 = MMC_RSP_R1 | MMC_RSP_BUSY;
    /// `MMC_RSP_R1B_NO_CRC`: R1b whose CRC is not checked.
    pub const MMC_RSP_R1B_NO_CRC: u32 = MMC_RSP_PRESENT | MMC_RSP_OPCODE | MMC_RSP_BUSY;
    /// `MMC_RSP_R2`: the 136-bit CID or CSD.
    pub const MMC_RSP_R2: u32 = MMC_RSP_PRESENT | MMC_RSP_136 | MMC_RSP_CRC;
    /// `MMC_RSP_R3`, also R4: 48 bits without CRC.
    pub const MMC_RSP_R3: u32 = MMC_RSP_PRESENT;

    /// `MMC_CMD_AC`: addressed command without data.
    pub const MMC_CMD_AC: u32 = 0;
    /// `MMC_CMD_ADTC`: addressed command with data.
    pub const MMC_CMD_ADTC: u32 = 1 << 5;
    /// `MMC_CMD_BC`: broadcast command without response.
    pub const MMC_CMD_BC: u32 = 2 << 5;
    /// `MMC_CMD_BCR`: broadcast command with response.
    pub const MMC_CMD_BCR: u32 = 3 << 5;

    /// `MMC_DATA_WRITE` (`mmc_data.flags`): the data goes to the card.
    pub const MMC_DATA_WRITE: u32 = 1 << 8;
    /// `mmc_data::flags`: command queue barrier (a CQE task).
    pub const MMC_DATA_QBR: u32 = 1 << 10;
    /// `mmc_data::flags`: high priority (a CQE task).
    pub const MMC_DATA_PRIO: u32 = 1 << 11;
    /// `mmc_data::flags`: reliable write.
    pub const MMC_DATA_REL_WR: u32 = 1 << 12;
    /// `mmc_data::flags`: tagged request.
    pub const MMC_DATA_DAT_TAG: u32 = 1 << 13;
    /// `mmc_data::flags`: forced programming.
    pub const MMC_DATA_FORCED_PRG: u32 = 1 << 14;
}

/// The bus timings of `mmc_ios.timing` (`MMC_TIMING_*` of `include/linux/mmc/host.h`).
pub mod timing {
    /// Legacy (default speed).
    pub const MMC_TIMING_LEGACY: u32 = 0;
    /// eMMC high speed.
    pub const MMC_TIMING_MMC_HS: u32 = 1;
    /// SD high speed.
    pub const MMC_TIMING_SD_HS: u32 = 2;
    /// UHS-I SDR12.
    pub const MMC_TIMING_UHS_SDR12: u32 = 3;
    /// UHS-I SDR25.
    pub const MMC_TIMING_UHS_SDR25: u32 = 4;
    /// UHS-I SDR50.
    pub const MMC_TIMING_UHS_SDR50: u32 = 5;
    /// UHS-I SDR104.
    pub const MMC_TIMING_UHS_SDR104: u32 = 6;
    /// UHS-I DDR50.
    pub const MMC_TIMING_UHS_DDR50: u32 = 7;
    /// eMMC DDR52.
    pub const MMC_TIMING_MMC_DDR52: u32 = 8;
    /// eMMC HS200.
    pub const MMC_TIMING_MMC_HS200: u32 = 9;
    /// eMMC HS400.
    pub const MMC_TIMING_MMC_HS400: u32 = 10;
}

/// The command indices whose meaning a host driver needs to know.
pub mod opcode {
    /// CMD11: SD voltage switch (`SD_SWITCH_VOLTAGE`).
    pub const SD_SWITCH_VOLTAGE: u32 = 11;
    /// CMD12: stop transmission (`MMC_STOP_TRANSMISSION`).
    pub const MMC_STOP_TRANSMISSION: u32 = 12;
    /// CMD18: read multiple blocks (`MMC_READ_MULTIPLE_BLOCK`).
    pub const MMC_READ_MULTIPLE_BLOCK: u32 = 18;
    /// CMD23: set block count (`MMC_SET_BLOCK_COUNT`).
    pub const MMC_SET_BLOCK_COUNT: u32 = 23;
    /// CMD25: write multiple blocks (`MMC_WRITE_MULTIPLE_BLOCK`).
    pub const MMC_WRITE_MULTIPLE_BLOCK: u32 = 25;
    /// CMD40: enter interrupt mode (`MMC_GO_IRQ_STATE`).
    pub const MMC_GO_IRQ_STATE: u32 = 40;
}

register! {
    /// The argument of SET_BLOCK_COUNT (CMD23), as JESD84-B51 lays it out (the MMC core's
    /// `MMC_CMD23_ARG_*`); an SD card takes the block count alone.
    pub SetBlockCountArgument(u32) {
        /// Number of blocks of the following CMD18 or CMD25.
        15:0 block_count;
        /// Forced programming: the write bypasses the card's cache.
        24:24 forced_programming => bool;
        /// Context ID of the write.
        28:25 context_id;
        /// Tag request (`MMC_CMD23_ARG_TAG_REQ`): the write carries a data tag.
        29:29 tag_request => bool;
        /// Packed command: the data is a packed command list.
        30:30 packed => bool;
        /// Reliable write request (`MMC_CMD23_ARG_REL_WR`).
        31:31 reliable_write => bool;
    }
}

impl SetBlockCountArgument {
    /// Whether the argument is a block count and nothing else: no flag, no context.
    pub const fn is_plain_count(self) -> bool {
        self.raw() == self.block_count()
    }
}

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

/// An error as the MMC core counts it for the host (`enum mmc_err_stat`, `mmc_host::err_stats`,
/// shown in debugfs `err_stats`): the entries a host driver counts, as the C hosts do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorStat {
    /// A command's response did not come (`MMC_ERR_CMD_TIMEOUT`).
    CommandTimeout,
    /// A command's response failed its CRC (`MMC_ERR_CMD_CRC`).
    CommandCrc,
    /// The data did not come in time (`MMC_ERR_DAT_TIMEOUT`).
    DataTimeout,
    /// The data failed its CRC (`MMC_ERR_DAT_CRC`).
    DataCrc,
    /// The DMA engine could not move the data (`MMC_ERR_ADMA`).
    Dma,
    /// The host's own request timer ended a request (`MMC_ERR_REQ_TIMEOUT`).
    RequestTimeout,
    /// The controller did not finish a bounded wait: reset, FIFO clear, clock, DMA stop
    /// (`MMC_ERR_CTRL_TIMEOUT`).
    ControllerTimeout,
    /// The command queue engine found an error in a response (CQIS.RED,
    /// `MMC_ERR_CMDQ_RED`).
    QueueResponseError,
    /// The command queue engine reported a general crypto error (CQIS.GCE,
    /// `MMC_ERR_CMDQ_GCE`).
    QueueCryptoError,
    /// The command queue engine found a task's crypto configuration invalid (CQIS.ICCE,
    /// `MMC_ERR_CMDQ_ICCE`).
    QueueCryptoConfigError,
    /// The core's timer expired for a queued task still in the engine
    /// (`MMC_ERR_CMDQ_REQ_TIMEOUT`).
    QueueRequestTimeout,
}

impl ErrorStat {
    /// How a command phase's error counts.
    pub const fn of_command(error: ErrorKind) -> Self {
        match error {
            ErrorKind::TimedOut => Self::CommandTimeout,
            ErrorKind::BadCrc => Self::CommandCrc,
            ErrorKind::DmaFault => Self::Dma,
        }
    }

    /// How a data phase's error counts.
    pub const fn of_data(error: ErrorKind) -> Self {
        match error {
            ErrorKind::TimedOut => Self::DataTimeout,
            ErrorKind::BadCrc => Self::DataCrc,
            ErrorKind::DmaFault => Self::Dma,
        }
    }
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

    /// The core's error statistics this result adds to, one per failed phase in phase
    /// order: the set-block-count, command and stop phases as commands, the data phase as
    /// data. (A set-block-count or stop the controller sent by itself is counted as the
    /// command it is, not as `MMC_ERR_AUTO_CMD`: the result does not say who sent it.)
    pub fn error_stats(&self) -> impl Iterator<Item = ErrorStat> {
        let command = |phase: Option<CommandResult>| {
            phase
                .and_then(|phase| phase.error)
                .map(ErrorStat::of_command)
        };
        [
            command(self.sbc),
            command(Some(self.cmd)),
            self.data
                .and_then(|data| data.error)
                .map(ErrorStat::of_data),
            command(self.stop),
        ]
        .into_iter()
        .flatten()
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
