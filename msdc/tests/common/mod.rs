// SPDX-License-Identifier: GPL-2.0

//! Test support shared by the msdc test binaries (`controller`, `queue`, and `linux`
//! through the controller's rig): the MMC core's command and request builders, so every
//! harness describes requests the way the core does. Each binary includes it with
//! `#[path = "../common/mod.rs"] mod common;`.

use mmc_request::{Command, Data, Direction, Request};

/// `mmc_command.flags` response and command types, by their short names.
pub(crate) mod flags {
    pub(crate) use mmc_request::flags::{
        MMC_CMD_AC as AC, MMC_CMD_ADTC as ADTC, MMC_CMD_BC as BC, MMC_CMD_BCR as BCR,
        MMC_RSP_NONE as NONE, MMC_RSP_R1 as R1, MMC_RSP_R1B as R1B,
        MMC_RSP_R1B_NO_CRC as R1B_NO_CRC, MMC_RSP_R2 as R2, MMC_RSP_R3 as R3,
    };
}

/// A command as the MMC core describes it.
pub(crate) fn command(opcode: u32, arg: u32, flags: u32) -> Command {
    Command {
        opcode,
        arg,
        flags,
        busy_timeout_ms: 0,
    }
}

/// A request of one command without data.
pub(crate) fn request(cmd: Command) -> Request {
    Request {
        sbc: None,
        cmd,
        data: None,
        stop: None,
    }
}

/// A data phase of `blocks` blocks of `block_size` bytes with the MMC core's default
/// timeouts for SD cards (100 ms for reads, 250 ms for writes).
pub(crate) fn data(direction: Direction, block_size: u32, blocks: u32) -> Data {
    Data {
        block_size,
        blocks,
        direction,
        timeout_ns: match direction {
            Direction::Read => 100_000_000,
            Direction::Write => 250_000_000,
        },
        timeout_clks: 0,
    }
}

/// A block read or write of 512-byte blocks as `mmc_blk_rw_rq_prep` builds it: CMD17/24
/// for one block, CMD18/25 otherwise, with CMD23 when `sbc`, and always a stop command for
/// multiple blocks.
pub(crate) fn block_request(direction: Direction, lba: u32, blocks: u32, sbc: bool) -> Request {
    let multi = blocks > 1;
    let opcode = match (direction, multi) {
        (Direction::Read, false) => 17,
        (Direction::Read, true) => 18,
        (Direction::Write, false) => 24,
        (Direction::Write, true) => 25,
    };
    Request {
        sbc: (multi && sbc).then(|| command(23, blocks, flags::R1 | flags::AC)),
        cmd: command(opcode, lba, flags::R1 | flags::ADTC),
        data: Some(data(direction, 512, blocks)),
        stop: multi.then(|| command(12, 0, flags::R1B | flags::AC)),
    }
}
