// SPDX-License-Identifier: GPL-2.0

//! The request types and the MMC core's constants, checked against `include/linux/mmc/core.h`
//! and JESD84-B51's CMD23 argument.

use mmc_request::flags::*;
use mmc_request::*;

#[test]
fn response_types_are_the_cores() {
    // include/linux/mmc/core.h, bit by bit.
    assert_eq!(MMC_RSP_TYPE_MASK, 0x1F);
    assert_eq!(MMC_RSP_R1, 0b1_0101);
    assert_eq!(MMC_RSP_R1B, 0b1_1101);
    assert_eq!(MMC_RSP_R1B_NO_CRC, 0b1_1001);
    assert_eq!(MMC_RSP_R2, 0b0_0111);
    assert_eq!(MMC_RSP_R3, 0b0_0001);
    assert_eq!(MMC_RSP_NONE, 0);
    assert_eq!(
        [MMC_CMD_AC, MMC_CMD_ADTC, MMC_CMD_BC, MMC_CMD_BCR],
        [0, 0x20, 0x40, 0x60]
    );
    assert_eq!(MMC_DATA_WRITE, 0x100);
}

#[test]
fn set_block_count_argument_fields() {
    // JESD84-B51 CMD23: [31] reliable write, [30] packed, [29] tag request, [28:25] context
    // ID, [24] forced programming, [15:0] number of blocks.
    let argument = SetBlockCountArgument::zeroed()
        .with_reliable_write(true)
        .with_packed(true)
        .with_tag_request(true)
        .with_const_context_id::<0xF>()
        .with_forced_programming(true)
        .with_const_block_count::<0xFFFF>();
    assert_eq!(argument.raw(), 0xFF00_FFFF);
    assert!(SetBlockCountArgument::from_raw(8).is_plain_count());
    assert!(SetBlockCountArgument::from_raw(0xFFFF).is_plain_count());
    for flag in [1 << 31, 1 << 30, 1 << 29, 1 << 25, 1 << 24, 1 << 16] {
        let argument = SetBlockCountArgument::from_raw(flag | 8);
        assert!(!argument.is_plain_count(), "{argument:?}");
        assert_eq!(argument.block_count(), 8);
    }
}

fn command(opcode: u32) -> Command {
    Command {
        opcode,
        arg: 0,
        flags: MMC_RSP_R1,
        busy_timeout_ms: 0,
    }
}

#[test]
fn a_request_failed_before_it_ran() {
    let data = Data {
        block_size: 512,
        blocks: 4,
        direction: Direction::Write,
        timeout_ns: 0,
        timeout_clks: 0,
    };
    assert!(data.is_write());
    assert_eq!(data.bytes(), Some(2048));
    let request = Request {
        sbc: Some(command(23)),
        cmd: command(25),
        data: Some(data),
        stop: Some(command(12)),
    };
    let result = RequestResult::failed(&request, ErrorKind::DmaFault);
    assert_eq!(result.sbc, Some(CommandResult::failed(ErrorKind::DmaFault)));
    assert_eq!(result.cmd, CommandResult::failed(ErrorKind::DmaFault));
    assert_eq!(
        result.data,
        Some(DataResult {
            bytes_xfered: 0,
            error: Some(ErrorKind::DmaFault)
        })
    );
    assert_eq!(
        result.stop, None,
        "the stop is not sent for a request that never ran"
    );
    assert_eq!(result.first_error(), Some(ErrorKind::DmaFault));

    let bare = Request {
        sbc: None,
        data: None,
        stop: None,
        ..request
    };
    let result = RequestResult::failed(&bare, ErrorKind::TimedOut);
    assert_eq!((result.sbc, result.data), (None, None));
    assert_eq!(RequestResult::NOT_RUN.first_error(), None);
}

#[test]
fn first_error_in_phase_order() {
    let ok = CommandResult {
        response: [1, 0, 0, 0],
        error: None,
    };
    let result = RequestResult {
        sbc: Some(ok),
        cmd: ok,
        data: Some(DataResult {
            bytes_xfered: 0,
            error: Some(ErrorKind::BadCrc),
        }),
        stop: Some(CommandResult::failed(ErrorKind::TimedOut)),
    };
    assert_eq!(result.first_error(), Some(ErrorKind::BadCrc));
    let sbc_failed = RequestResult {
        sbc: Some(CommandResult::failed(ErrorKind::TimedOut)),
        ..result
    };
    assert_eq!(sbc_failed.first_error(), Some(ErrorKind::TimedOut));
}

#[test]
fn error_statistics_by_phase() {
    let ok = CommandResult {
        response: [0; 4],
        error: None,
    };
    let mut result = RequestResult {
        sbc: Some(ok),
        cmd: ok,
        data: Some(DataResult {
            bytes_xfered: 512,
            error: None,
        }),
        stop: None,
    };
    assert_eq!(result.error_stats().count(), 0, "a success counts nothing");

    result.cmd = CommandResult::failed(ErrorKind::BadCrc);
    result.data = Some(DataResult {
        bytes_xfered: 0,
        error: Some(ErrorKind::TimedOut),
    });
    result.stop = Some(CommandResult::failed(ErrorKind::TimedOut));
    assert_eq!(
        result.error_stats().collect::<Vec<_>>(),
        [
            ErrorStat::CommandCrc,
            ErrorStat::DataTimeout,
            ErrorStat::CommandTimeout
        ]
    );

    result.sbc = Some(CommandResult::failed(ErrorKind::TimedOut));
    result.cmd = ok;
    result.data = Some(DataResult {
        bytes_xfered: 0,
        error: Some(ErrorKind::DmaFault),
    });
    result.stop = None;
    assert_eq!(
        result.error_stats().collect::<Vec<_>>(),
        [ErrorStat::CommandTimeout, ErrorStat::Dma]
    );
    assert_eq!(
        ErrorStat::of_data(ErrorKind::BadCrc),
        ErrorStat::DataCrc,
        "a data CRC error is the data's, not the command's"
    );
}
