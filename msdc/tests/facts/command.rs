// SPDX-License-Identifier: GPL-2.0

//! `SDC_CMD` words against the register layout: opcode 5:0, RSPTYP 9:7, DTYPE 12:11,
//! RW 13, STOP 14, GOIRQ 15, BLKLEN 27:16, AUTOCMD 29:28, VOLSWTH 30.

use mmc_request::Direction;
use msdc::command::*;
use proptest::prelude::*;

// The MMC core's flag patterns (include/linux/mmc/core.h), spelled out.
const PRESENT: u32 = 1 << 0;
const LONG: u32 = 1 << 1;
const CRC: u32 = 1 << 2;
const BUSY: u32 = 1 << 3;
const OPCODE: u32 = 1 << 4;
const RSP_NONE: u32 = 0;
const RSP_R1: u32 = PRESENT | CRC | OPCODE;
const RSP_R1B: u32 = PRESENT | CRC | OPCODE | BUSY;
const RSP_R1B_NO_CRC: u32 = PRESENT | OPCODE | BUSY;
const RSP_R2: u32 = PRESENT | LONG | CRC;
const RSP_R3: u32 = PRESENT;
const RSP_R4: u32 = PRESENT;
const RSP_R5: u32 = PRESENT | CRC | OPCODE;
const RSP_R6: u32 = PRESENT | CRC | OPCODE;
const RSP_R7: u32 = PRESENT | CRC | OPCODE;
const CMD_AC: u32 = 0 << 5;
const CMD_ADTC: u32 = 1 << 5;
const CMD_BC: u32 = 2 << 5;
const CMD_BCR: u32 = 3 << 5;
const SPI_S1: u32 = 1 << 7;
const SPI_B4: u32 = 1 << 9;

// Word fields, as the register documentation states them.
const fn rsptyp(code: u32) -> u32 {
    code << 7
}
const SINGLE: u32 = 1 << 11;
const MULTI: u32 = 2 << 11;
const STREAM: u32 = 3 << 11;
const WRITE: u32 = 1 << 13;
const STOP: u32 = 1 << 14;
const GO_IRQ: u32 = 1 << 15;
const fn blklen(bytes: u32) -> u32 {
    bytes << 16
}
const AUTO_CMD12: u32 = 1 << 28;
const AUTO_CMD23: u32 = 2 << 28;
const VOLTAGE_SWITCH: u32 = 1 << 30;

fn word(opcode: u32, flags: u32) -> u32 {
    Command::new(opcode, ResponseType::from_mmc_flags(flags).unwrap())
        .sdc_cmd()
        .unwrap()
        .raw()
}

fn data_word(opcode: u32, flags: u32, data: DataTransfer, auto: AutoCommand) -> u32 {
    Command::new(opcode, ResponseType::from_mmc_flags(flags).unwrap())
        .with_data(data)
        .with_auto_command(auto)
        .sdc_cmd()
        .unwrap()
        .raw()
}

fn read(block_size: u32, blocks: u32) -> DataTransfer {
    DataTransfer::blocks(Direction::Read, block_size, blocks)
}

fn write(block_size: u32, blocks: u32) -> DataTransfer {
    DataTransfer::blocks(Direction::Write, block_size, blocks)
}

#[test]
fn response_flags_decode() {
    let cases = [
        (RSP_NONE, ResponseType::None),
        (RSP_R1, ResponseType::R1),
        (RSP_R1B, ResponseType::R1b),
        (RSP_R1B_NO_CRC, ResponseType::R1bNoCrc),
        (RSP_R2, ResponseType::R2),
        (RSP_R3, ResponseType::R3),
        (RSP_R4, ResponseType::R3),
        (RSP_R5, ResponseType::R1),
        (RSP_R6, ResponseType::R1),
        (RSP_R7, ResponseType::R1),
    ];
    for (flags, want) in cases {
        assert_eq!(
            ResponseType::from_mmc_flags(flags),
            Ok(want),
            "flags {flags:#x}"
        );
        // Command type and SPI bits do not change the native response type.
        let noisy = flags | CMD_BCR | SPI_S1 | SPI_B4;
        assert_eq!(
            ResponseType::from_mmc_flags(noisy),
            Ok(want),
            "flags {noisy:#x}"
        );
    }
    assert_eq!(
        ResponseType::from_mmc_flags(PRESENT | LONG),
        Err(CommandError::UnsupportedResponse(PRESENT | LONG))
    );
    assert_eq!(
        ResponseType::from_mmc_flags(BUSY),
        Err(CommandError::UnsupportedResponse(BUSY))
    );
}

#[test]
fn response_type_codes() {
    // upstream msdc_cmd_find_resp(): none 0, R1/R5/R6/R7 1, R2 2, R3/R4 3, R1b 7.
    assert_eq!(ResponseType::None.hardware_code(), 0);
    assert_eq!(ResponseType::R1.hardware_code(), 1);
    assert_eq!(ResponseType::R2.hardware_code(), 2);
    assert_eq!(ResponseType::R3.hardware_code(), 3);
    assert_eq!(ResponseType::R1b.hardware_code(), 7);
    assert_eq!(ResponseType::R1bNoCrc.hardware_code(), 7);
    assert!(ResponseType::R1b.has_busy() && ResponseType::R1bNoCrc.has_busy());
    assert!(!ResponseType::R1.has_busy());
    assert!(ResponseType::R1bNoCrc.ignores_crc_error());
    assert!(!ResponseType::R1b.ignores_crc_error());
    assert_eq!(ResponseType::None.response_registers(), 0);
    assert_eq!(ResponseType::R1.response_registers(), 1);
    assert_eq!(ResponseType::R2.response_registers(), 4);
}

#[test]
fn commands_without_data() {
    // CMD0 GO_IDLE_STATE: everything zero, yet still a command.
    assert_eq!(word(0, RSP_NONE | CMD_BC | SPI_S1), 0x0000_0000);
    // CMD1 SEND_OP_COND, R3.
    assert_eq!(word(1, RSP_R3 | CMD_BCR), 1 | rsptyp(3));
    // CMD2 ALL_SEND_CID, R2.
    assert_eq!(word(2, RSP_R2 | CMD_BCR), 2 | rsptyp(2));
    assert_eq!(word(2, RSP_R2 | CMD_BCR), 0x0000_0102);
    // CMD3 SEND_RELATIVE_ADDR, R6.
    assert_eq!(word(3, RSP_R6 | CMD_BCR), 3 | rsptyp(1));
    // CMD5 IO_SEND_OP_COND, R4.
    assert_eq!(word(5, RSP_R4 | CMD_BCR), 5 | rsptyp(3));
    // CMD6 MMC SWITCH, R1b.
    assert_eq!(word(6, RSP_R1B | CMD_AC), 6 | rsptyp(7));
    // CMD7 SELECT_CARD, R1b.
    assert_eq!(word(7, RSP_R1B | CMD_AC), 0x0000_0387);
    // CMD8 SEND_IF_COND, R7, no data.
    assert_eq!(word(8, RSP_R7 | CMD_BCR), 8 | rsptyp(1));
    // CMD9 SEND_CSD, R2.
    assert_eq!(word(9, RSP_R2 | CMD_AC), 9 | rsptyp(2));
    // CMD13 SEND_STATUS, R1.
    assert_eq!(word(13, RSP_R1 | CMD_AC), 13 | rsptyp(1));
    // CMD22 SD_ADDR_EXT (SDUC), R1, no data: no data type, unlike upstream's forced bit 11.
    assert_eq!(word(22, RSP_R1 | CMD_AC), 22 | rsptyp(1));
    // CMD38 ERASE with R1B_NO_CRC still uses the R1b code.
    assert_eq!(word(38, RSP_R1B_NO_CRC | CMD_AC), 38 | rsptyp(7));
    // CMD52 IO_RW_DIRECT, R5: no stop flag.
    assert_eq!(word(52, RSP_R5 | CMD_AC), 52 | rsptyp(1));
    // CMD55 APP_CMD, R1.
    assert_eq!(word(55, RSP_R1 | CMD_AC), 55 | rsptyp(1));
    // ACMD41 SD_SEND_OP_COND, R3.
    assert_eq!(word(41, RSP_R3 | CMD_BCR), 41 | rsptyp(3));
    // CMD63, the largest index.
    assert_eq!(word(63, RSP_R1 | CMD_AC), 63 | rsptyp(1));
}

#[test]
fn special_commands() {
    // CMD12 STOP_TRANSMISSION, R1b: the stop flag.
    assert_eq!(word(12, RSP_R1B | CMD_AC), 12 | rsptyp(7) | STOP);
    assert_eq!(word(12, RSP_R1B | CMD_AC), 0x0000_438C);
    // CMD12 as R1 (reads on some cards): still stop.
    assert_eq!(word(12, RSP_R1 | CMD_AC), 12 | rsptyp(1) | STOP);
    // CMD11 SD_SWITCH_VOLTAGE, R1: the voltage switch flag.
    assert_eq!(word(11, RSP_R1 | CMD_AC), 11 | rsptyp(1) | VOLTAGE_SWITCH);
    assert_eq!(word(11, RSP_R1 | CMD_AC), 0x4000_008B);
    // CMD40 GO_IRQ_STATE, R5: the go-irq flag.
    assert_eq!(word(40, RSP_R5 | CMD_BCR), 40 | rsptyp(1) | GO_IRQ);
}

#[test]
fn single_block_transfers() {
    // CMD17 READ_SINGLE_BLOCK, 512 bytes.
    let cmd17 = data_word(17, RSP_R1 | CMD_ADTC, read(512, 1), AutoCommand::None);
    assert_eq!(cmd17, 17 | rsptyp(1) | SINGLE | blklen(512));
    assert_eq!(cmd17, 0x0200_0891);
    // Every other single block data command: R1 or R5 (response code 1), single block,
    // the block length, and the direction.
    let cases = [
        // CMD24 WRITE_BLOCK.
        (24, RSP_R1, write(512, 1), WRITE | blklen(512)),
        // CMD8 SEND_EXT_CSD (eMMC, ADTC), 512 bytes.
        (8, RSP_R1, read(512, 1), blklen(512)),
        // CMD6 SD_SWITCH (ADTC), 64 bytes.
        (6, RSP_R1, read(64, 1), blklen(64)),
        // ACMD13 SD_STATUS, 64 bytes; ACMD51 SEND_SCR, 8 bytes; ACMD22 NUM_WR_BLKS, 4 bytes.
        (13, RSP_R1, read(64, 1), blklen(64)),
        (51, RSP_R1, read(8, 1), blklen(8)),
        (22, RSP_R1, read(4, 1), blklen(4)),
        // CMD19 tuning block (4-bit, 64 bytes) and CMD21 (8-bit HS200, 128 bytes).
        (19, RSP_R1, read(64, 1), blklen(64)),
        (21, RSP_R1, read(128, 1), blklen(128)),
        // CMD53 IO_RW_EXTENDED byte mode, 4 bytes, write.
        (53, RSP_R5, write(4, 1), WRITE | blklen(4)),
        // The largest block length the 12-bit field holds.
        (17, RSP_R1, read(4095, 1), blklen(0xFFF)),
    ];
    for (opcode, flags, data, fields) in cases {
        assert_eq!(
            data_word(opcode, flags | CMD_ADTC, data, AutoCommand::None),
            opcode | rsptyp(1) | SINGLE | fields,
            "CMD{opcode} {data:?}"
        );
    }
}

#[test]
fn multi_block_transfers() {
    // CMD18 READ_MULTIPLE_BLOCK, 8 blocks, ended by a software CMD12.
    let cmd18 = data_word(18, RSP_R1 | CMD_ADTC, read(512, 8), AutoCommand::None);
    assert_eq!(cmd18, 18 | rsptyp(1) | MULTI | blklen(512));
    assert_eq!(cmd18, 0x0200_1092);
    // With auto-CMD23: upstream's BIT(29).
    let cmd18_acmd23 = data_word(18, RSP_R1 | CMD_ADTC, read(512, 8), AutoCommand::Cmd23);
    assert_eq!(cmd18_acmd23, cmd18 | AUTO_CMD23);
    assert_eq!(cmd18_acmd23, cmd18 | (1 << 29));
    // CMD25 WRITE_MULTIPLE_BLOCK with auto-CMD12.
    assert_eq!(
        data_word(25, RSP_R1 | CMD_ADTC, write(512, 2), AutoCommand::Cmd12),
        25 | rsptyp(1) | MULTI | WRITE | blklen(512) | AUTO_CMD12
    );
    // SDIO CMD53 block mode, 16 blocks of 256 bytes.
    assert_eq!(
        data_word(53, RSP_R5 | CMD_ADTC, read(256, 16), AutoCommand::None),
        53 | rsptyp(1) | MULTI | blklen(256)
    );
}

#[test]
fn stream_transfers() {
    let stream = |direction| DataTransfer {
        direction,
        block_size: 512,
        blocks: 4,
        stream: true,
    };
    // MMC CMD20 WRITE_DAT_UNTIL_STOP.
    assert_eq!(
        data_word(
            20,
            RSP_R1 | CMD_ADTC,
            stream(Direction::Write),
            AutoCommand::None
        ),
        20 | rsptyp(1) | STREAM | WRITE | blklen(512)
    );
    // MMC CMD11 READ_DAT_UNTIL_STOP shares the index of SD's voltage switch: with data it
    // is a stream read and must not start the switch sequence.
    assert_eq!(
        data_word(
            11,
            RSP_R1 | CMD_ADTC,
            stream(Direction::Read),
            AutoCommand::None
        ),
        11 | rsptyp(1) | STREAM | blklen(512)
    );
}

#[test]
fn invalid_commands_are_refused() {
    let r1 = ResponseType::R1;
    assert_eq!(
        Command::new(64, r1).sdc_cmd(),
        Err(CommandError::InvalidOpcode(64))
    );
    assert_eq!(
        Command::new(u32::MAX, r1).sdc_cmd(),
        Err(CommandError::InvalidOpcode(u32::MAX))
    );
    for size in [0, 4096, u32::MAX] {
        assert_eq!(
            Command::new(17, r1).with_data(read(size, 1)).sdc_cmd(),
            Err(CommandError::InvalidBlockSize(size))
        );
    }
    assert_eq!(
        Command::new(17, r1).with_data(read(512, 0)).sdc_cmd(),
        Err(CommandError::NoBlocks)
    );
    assert_eq!(
        Command::new(17, r1)
            .with_data(read(512, 1))
            .with_auto_command(AutoCommand::Cmd23)
            .sdc_cmd(),
        Err(CommandError::AutoCommandWithoutMultiBlock)
    );
    assert_eq!(
        Command::new(13, r1)
            .with_auto_command(AutoCommand::Cmd12)
            .sdc_cmd(),
        Err(CommandError::AutoCommandWithoutMultiBlock)
    );
}

#[test]
fn set_block_count_plans() {
    use SetBlockCountPlan::{Hardware, Software};
    assert_eq!(
        plan_set_block_count(18, true, None),
        SetBlockCountPlan::None
    );
    // eMMC, plain block count, multi-block opcode: auto-CMD23.
    assert_eq!(plan_set_block_count(18, true, Some(8)), Hardware);
    assert_eq!(plan_set_block_count(25, true, Some(0xFFFF)), Hardware);
    // Reliable write (bit 31), packed (bit 30), tag request (bit 29): software.
    assert_eq!(
        plan_set_block_count(25, true, Some((1 << 31) | 8)),
        Software
    );
    assert_eq!(
        plan_set_block_count(25, true, Some((1 << 29) | 8)),
        Software
    );
    assert_eq!(plan_set_block_count(25, true, Some(0x1_0000)), Software);
    // SD cards always get CMD23 in software.
    assert_eq!(plan_set_block_count(18, false, Some(8)), Software);
    // A set-block-count before anything but CMD18/CMD25 is sent, not dropped.
    assert_eq!(plan_set_block_count(17, true, Some(1)), Software);
    assert_eq!(Hardware.auto_command(), AutoCommand::Cmd23);
    assert_eq!(Software.auto_command(), AutoCommand::None);
    assert_eq!(SetBlockCountPlan::None.auto_command(), AutoCommand::None);
}

#[test]
fn response_word_order() {
    let registers = [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
    assert_eq!(
        response_words(ResponseType::R2, registers),
        [0x4444_4444, 0x3333_3333, 0x2222_2222, 0x1111_1111]
    );
    for short in [ResponseType::R1, ResponseType::R1b, ResponseType::R3] {
        assert_eq!(response_words(short, registers), [0x1111_1111, 0, 0, 0]);
    }
    assert_eq!(response_words(ResponseType::None, registers), [0; 4]);
}

/// Pulls a word apart with the documented layout, independently of `regs`.
fn decode(word: u32) -> (u32, u32, u32, bool, bool, bool, u32, u32, bool) {
    (
        word & 0x3F,
        (word >> 7) & 0x7,
        (word >> 11) & 0x3,
        word & (1 << 13) != 0,
        word & (1 << 14) != 0,
        word & (1 << 15) != 0,
        (word >> 16) & 0xFFF,
        (word >> 28) & 0x3,
        word & (1 << 30) != 0,
    )
}

fn response_strategy() -> impl Strategy<Value = ResponseType> {
    prop_oneof![
        Just(ResponseType::None),
        Just(ResponseType::R1),
        Just(ResponseType::R1b),
        Just(ResponseType::R1bNoCrc),
        Just(ResponseType::R2),
        Just(ResponseType::R3),
    ]
}

proptest! {
    #[test]
    fn words_decode_back(
        opcode in 0u32..64,
        response in response_strategy(),
        has_data: bool,
        write: bool,
        block_size in 1u32..4096,
        blocks in 1u32..2048,
        auto in 0u32..3,
    ) {
        let auto = match auto {
            0 => AutoCommand::None,
            1 => AutoCommand::Cmd12,
            _ => AutoCommand::Cmd23,
        };
        let direction = if write { Direction::Write } else { Direction::Read };
        let mut command = Command::new(opcode, response).with_auto_command(auto);
        if has_data {
            command = command.with_data(DataTransfer::blocks(direction, block_size, blocks));
        }
        let result = command.sdc_cmd();
        let multi = has_data && blocks > 1;
        if auto != AutoCommand::None && !multi {
            prop_assert_eq!(result, Err(CommandError::AutoCommandWithoutMultiBlock));
            return Ok(());
        }
        let (op, rsp, dtype, rw, stop, go_irq, len, autocmd, volt) = decode(result.unwrap().raw());
        prop_assert_eq!(op, opcode);
        let code = match response {
            ResponseType::None => 0,
            ResponseType::R1 => 1,
            ResponseType::R2 => 2,
            ResponseType::R3 => 3,
            ResponseType::R1b | ResponseType::R1bNoCrc => 7,
        };
        prop_assert_eq!(rsp, code);
        prop_assert_eq!(dtype, if !has_data { 0 } else if blocks > 1 { 2 } else { 1 });
        prop_assert_eq!(rw, has_data && write);
        prop_assert_eq!(len, if has_data { block_size } else { 0 });
        prop_assert_eq!(autocmd, match auto {
            AutoCommand::None => 0,
            AutoCommand::Cmd12 => 1,
            AutoCommand::Cmd23 => 2,
        });
        prop_assert_eq!(stop, opcode == 12);
        prop_assert_eq!(volt, opcode == 11 && !has_data);
        prop_assert_eq!(go_irq, opcode == 40 && !has_data);
    }

    #[test]
    fn no_input_panics(opcode: u32, flags: u32, block_size: u32, blocks: u32, stream: bool) {
        if let Ok(response) = ResponseType::from_mmc_flags(flags) {
            let data = DataTransfer { direction: Direction::Read, block_size, blocks, stream };
            let _ = Command::new(opcode, response).with_data(data).sdc_cmd();
            let _ = Command::new(opcode, response).sdc_cmd();
        }
        let _ = plan_set_block_count(opcode, stream, Some(flags));
    }
}
