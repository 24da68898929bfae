// SPDX-License-Identifier: GPL-2.0

//! Building the `SDC_CMD` word that issues a command, and reading its response back.
//!
//! The hardware needs to be told more than the command index: the response format, whether
//! and how data follows, and which commands have side effects on the bus state machine
//! (CMD12 stops a transfer, CMD11 switches the signalling voltage, CMD40 waits for an
//! interrupt response). [`Command::sdc_cmd`] derives all of it from a description that the
//! kernel glue fills from `struct mmc_command`.
//!
//! Differences from the upstream C driver, all deliberate:
//! - The data type comes from the data description only. Upstream also forces "single
//!   block" for a list of opcodes (ACMD13, ACMD22, ACMD51, CMD6 and CMD8 when they carry
//!   data), which is redundant for them, but it also hits CMD22 `SD_ADDR_EXT`: an SDUC
//!   card's addressing command without data, which would then wait for a data block.
//! - The stop flag is set for CMD12 only. Upstream's second case, CMD52 with
//!   `flags == ~0`, never occurs: no command carries those flags.
//! - CMD11 switches voltage only without data, so the obsolete MMC stream read, which
//!   shares the index, cannot set the voltage switch flag.
//! - When a set-block-count (CMD23) cannot go out as auto-CMD23, [`plan_set_block_count`]
//!   sends it in software rather than dropping it.

use super::regs::SDC_CMD;
pub use super::regs::{AutoCommand, TransferMode};
use crate::mmc_request::flags::{
    MMC_RSP_NONE, MMC_RSP_R1, MMC_RSP_R1B, MMC_RSP_R1B_NO_CRC, MMC_RSP_R2, MMC_RSP_R3,
    MMC_RSP_TYPE_MASK,
};
use crate::mmc_request::opcode::{
    MMC_GO_IRQ_STATE, MMC_READ_MULTIPLE_BLOCK, MMC_STOP_TRANSMISSION, MMC_WRITE_MULTIPLE_BLOCK,
    SD_SWITCH_VOLTAGE,
};
use crate::mmc_request::{Direction, SetBlockCountArgument};
use crate::registers::PartialFieldValue;

/// Why a command could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandError {
    /// The command index does not fit in six bits.
    InvalidOpcode(u32),
    /// `mmc_command.flags` hold a response type the MMC core does not define.
    UnsupportedResponse(u32),
    /// The block size is zero or does not fit the 12-bit `BLKLEN` field.
    InvalidBlockSize(u32),
    /// A data transfer of zero blocks.
    NoBlocks,
    /// An automatic CMD12 or CMD23 was asked for without a multiple block transfer.
    AutoCommandWithoutMultiBlock,
}

/// Response format, as far as the controller needs to know it.
///
/// R5, R6 and R7 have the same flags as R1, and R4 the same as R3, so the MMC core cannot
/// tell them apart and neither does the hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseType {
    /// No response.
    None,
    /// 48-bit response with CRC and command index (R1, R5, R6, R7).
    R1,
    /// R1 followed by busy on DAT0.
    R1b,
    /// R1b whose CRC is not checked (`MMC_RSP_R1B_NO_CRC`).
    R1bNoCrc,
    /// 136-bit response (CID, CSD).
    R2,
    /// 48-bit response without CRC (R3 OCR, R4).
    R3,
}

impl ResponseType {
    /// Decodes the response type bits of `mmc_command.flags`; other bits are ignored.
    pub const fn from_mmc_flags(flags: u32) -> Result<Self, CommandError> {
        match flags & MMC_RSP_TYPE_MASK {
            MMC_RSP_NONE => Ok(Self::None),
            MMC_RSP_R1 => Ok(Self::R1),
            MMC_RSP_R1B => Ok(Self::R1b),
            MMC_RSP_R1B_NO_CRC => Ok(Self::R1bNoCrc),
            MMC_RSP_R2 => Ok(Self::R2),
            MMC_RSP_R3 => Ok(Self::R3),
            other => Err(CommandError::UnsupportedResponse(other)),
        }
    }

    /// The `SDC_CMD.RSPTYP` code.
    pub const fn hardware_code(self) -> u32 {
        match self {
            Self::None => 0,
            Self::R1 => 1,
            Self::R2 => 2,
            Self::R3 => 3,
            Self::R1b | Self::R1bNoCrc => 7,
        }
    }

    /// Whether the card may hold DAT0 busy after the response.
    pub const fn has_busy(self) -> bool {
        matches!(self, Self::R1b | Self::R1bNoCrc)
    }

    /// Whether the MMC core asked for response CRC errors to be ignored
    /// (`MMC_RSP_R1B_NO_CRC`, used for commands whose response may be corrupted by design).
    pub const fn ignores_crc_error(self) -> bool {
        matches!(self, Self::R1bNoCrc)
    }

    /// How many `SDC_RESPn` registers hold the response, starting at `SDC_RESP0`.
    pub const fn response_registers(self) -> usize {
        match self {
            Self::None => 0,
            Self::R2 => 4,
            _ => 1,
        }
    }
}

/// `SDC_CMD.RSPTYP`: the [`ResponseType::hardware_code`]; code 7 reads back as R1b, as the
/// hardware has one busy response type only.
impl PartialFieldValue for ResponseType {
    const WIDTH: u32 = 3;

    fn into_bits(self) -> u64 {
        u64::from(self.hardware_code())
    }

    fn try_from_bits(bits: u64) -> Option<Self> {
        match bits {
            0 => Some(Self::None),
            1 => Some(Self::R1),
            2 => Some(Self::R2),
            3 => Some(Self::R3),
            7 => Some(Self::R1b),
            _ => None,
        }
    }
}

/// The data phase that follows a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTransfer {
    /// Read or write.
    pub direction: Direction,
    /// Bytes per block (`mmc_data.blksz`).
    pub block_size: u32,
    /// Number of blocks (`mmc_data.blocks`).
    pub blocks: u32,
    /// Frame the data as an MMC stream instead of blocks.
    pub stream: bool,
}

impl DataTransfer {
    /// A block transfer in `direction`.
    pub const fn blocks(direction: Direction, block_size: u32, blocks: u32) -> Self {
        Self {
            direction,
            block_size,
            blocks,
            stream: false,
        }
    }

    /// How the data phase is framed.
    pub const fn mode(&self) -> TransferMode {
        if self.stream {
            TransferMode::Stream
        } else if self.blocks > 1 {
            TransferMode::MultiBlock
        } else {
            TransferMode::SingleBlock
        }
    }
}

/// How a request's set-block-count command (`mrq->sbc`) is to be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetBlockCountPlan {
    /// The request has no set-block-count command.
    None,
    /// The controller sends it as auto-CMD23 with the data command.
    Hardware,
    /// The driver sends it as its own command first.
    Software,
}

impl SetBlockCountPlan {
    /// The automatic command the data command needs under this plan.
    pub const fn auto_command(self) -> AutoCommand {
        match self {
            Self::Hardware => AutoCommand::Cmd23,
            Self::None | Self::Software => AutoCommand::None,
        }
    }
}

/// Decides how to send a set-block-count command with argument `sbc_arg`, if any.
///
/// Auto-CMD23 takes its argument from `SDC_BLK_NUM`, so it can only send a plain block
/// count: any other field of the [`SetBlockCountArgument`] (reliable write, packed, tag,
/// context) forces the software path. Upstream uses the hardware path on eMMC only, and
/// only for CMD18/CMD25.
pub const fn plan_set_block_count(
    opcode: u32,
    card_is_mmc: bool,
    sbc_arg: Option<u32>,
) -> SetBlockCountPlan {
    match sbc_arg {
        None => SetBlockCountPlan::None,
        Some(arg) => {
            let multi_block =
                opcode == MMC_READ_MULTIPLE_BLOCK || opcode == MMC_WRITE_MULTIPLE_BLOCK;
            if card_is_mmc && multi_block && SetBlockCountArgument::from_raw(arg).is_plain_count() {
                SetBlockCountPlan::Hardware
            } else {
                SetBlockCountPlan::Software
            }
        }
    }
}

/// A command to issue, as the controller needs it described.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Command index (`mmc_command.opcode`).
    pub opcode: u32,
    /// Response format.
    pub response: ResponseType,
    /// The data phase, if the command transfers data.
    pub data: Option<DataTransfer>,
    /// Command the controller adds by itself.
    pub auto_command: AutoCommand,
}

impl Command {
    /// A command without data.
    pub const fn new(opcode: u32, response: ResponseType) -> Self {
        Self {
            opcode,
            response,
            data: None,
            auto_command: AutoCommand::None,
        }
    }

    /// The same command with a data phase.
    pub const fn with_data(self, data: DataTransfer) -> Self {
        Self {
            data: Some(data),
            ..self
        }
    }

    /// The same command with an automatic command.
    pub const fn with_auto_command(self, auto_command: AutoCommand) -> Self {
        Self {
            auto_command,
            ..self
        }
    }

    /// The `SDC_CMD` value that issues this command.
    ///
    /// Writing it starts the command, so `SDC_ARG` (and for data, `SDC_BLK_NUM`, the DMA
    /// setup and the timeout) must be programmed first.
    pub fn sdc_cmd(&self) -> Result<SDC_CMD, CommandError> {
        let mut word = SDC_CMD::zeroed()
            .try_with_opc(self.opcode)
            .map_err(|_| CommandError::InvalidOpcode(self.opcode))?
            .with_rsptyp(self.response);

        match self.opcode {
            MMC_STOP_TRANSMISSION => word = word.with_stop(true),
            SD_SWITCH_VOLTAGE if self.data.is_none() => word = word.with_volswth(true),
            MMC_GO_IRQ_STATE if self.data.is_none() => word = word.with_goirq(true),
            _ => {}
        }

        match self.data {
            None => {
                if self.auto_command != AutoCommand::None {
                    return Err(CommandError::AutoCommandWithoutMultiBlock);
                }
            }
            Some(data) => word = Self::with_data_phase(word, data, self.auto_command)?,
        }
        Ok(word)
    }

    fn with_data_phase(
        word: SDC_CMD,
        data: DataTransfer,
        auto_command: AutoCommand,
    ) -> Result<SDC_CMD, CommandError> {
        let word = match data.block_size {
            0 => Err(CommandError::InvalidBlockSize(0)),
            size => word
                .try_with_blklen(size)
                .map_err(|_| CommandError::InvalidBlockSize(size)),
        }?;
        if data.blocks == 0 {
            return Err(CommandError::NoBlocks);
        }
        let mode = data.mode();
        if auto_command != AutoCommand::None && mode != TransferMode::MultiBlock {
            return Err(CommandError::AutoCommandWithoutMultiBlock);
        }
        Ok(word
            .with_dtype(mode)
            .with_rw(data.direction == Direction::Write)
            .with_autocmd(auto_command))
    }
}

/// The response in `mmc_command.resp` order, from `SDC_RESP0..3` in register order.
///
/// A 136-bit response has its most significant word in `SDC_RESP3`, while the MMC core
/// expects it in `resp[0]`, so the words are reversed. Words the response does not use are
/// zero, whatever the registers hold.
pub const fn response_words(response: ResponseType, registers: [u32; 4]) -> [u32; 4] {
    match response {
        ResponseType::None => [0; 4],
        ResponseType::R2 => [registers[3], registers[2], registers[1], registers[0]],
        _ => [registers[0], 0, 0, 0],
    }
}
