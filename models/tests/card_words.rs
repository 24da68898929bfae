// SPDX-License-Identifier: GPL-2.0
//! The card models' status, OCR and argument words against JESD84-B51 and the SD Physical
//! Layer Specification: the bit positions written as numbers here are the specifications'.

use models::emmc::command::{
    status, CardState, SwitchAccess, DEVICE_STATUS, OCR, QUEUED_TASK_PARAMS, RCA_ARG,
    SET_BLOCK_COUNT_ARG, SWITCH_ARG, TASK_ARG,
};
use models::emmc::ext_csd::{PARTITION_CONFIG, SEC_FEATURE_SUPPORT};
use models::sd::card::{
    status as sd_status, CARD_STATUS, OCR as SD_OCR, R6, SEND_IF_COND, SWITCH_FUNC_ARG,
};

/// Each mask is the one bit the specification gives it.
fn assert_single_bits(what: &str, bits: &[(u32, u32)]) {
    for &(mask, bit) in bits {
        assert_eq!(mask, 1 << bit, "{what} bit {bit}");
    }
}

#[test]
fn device_status_bits() {
    let bits = [
        (status::ADDRESS_OUT_OF_RANGE, 31),
        (status::ERASE_PARAM, 27),
        (status::ILLEGAL_COMMAND, 22),
        (status::ERROR, 19),
        (status::ERASE_RESET, 13),
        (status::READY_FOR_DATA, 8),
        (status::SWITCH_ERROR, 7),
        (status::APP_CMD, 5),
    ];
    assert_single_bits("device status", &bits);
    assert_eq!(status::STATE_SHIFT, 9);
    assert_eq!(DEVICE_STATUS::ERRORS.raw(), 0xFDF9_A080);
    let s = DEVICE_STATUS::from_raw(4 << 9);
    assert_eq!(s.current_state(), Some(CardState::Tran));
    assert_eq!(DEVICE_STATUS::from_raw(10 << 9).current_state(), None);
    assert_eq!(DEVICE_STATUS::from_raw(10 << 9).current_state_code(), 10);
}

#[test]
fn emmc_ocr_and_arguments() {
    let ocr = OCR::from_raw(0xC0FF_8080);
    assert!(ocr.ready());
    assert_eq!(ocr.access_mode(), 0b10);
    assert!(ocr.v170_195());
    assert_eq!(ocr.v27_36(), 0x1FF);
    assert_eq!(ocr.v20_26(), 0);

    let rca = RCA_ARG::from_raw(0x1234_8000);
    assert_eq!(rca.rca(), 0x1234);
    assert!(rca.sleep());
    assert!(rca.sqs());

    // CMD6: access 25:24, index 23:16, value 15:8, command set 2:0.
    let switch = SWITCH_ARG::from_raw(0x030F_0100);
    assert_eq!(switch.access(), SwitchAccess::WriteByte);
    assert_eq!(switch.index(), 15);
    assert_eq!(switch.value(), 1);
    assert_eq!(switch.cmd_set(), 0);

    let sbc = SET_BLOCK_COUNT_ARG::from_raw(0x8000_0008);
    assert!(sbc.reliable_write());
    assert!(!sbc.packed());
    assert_eq!(sbc.blocks(), 8);

    let params = QUEUED_TASK_PARAMS::from_raw((1 << 30) | (3 << 25) | (1 << 23) | (7 << 16) | 9);
    assert!(params.data_direction());
    assert_eq!(params.context_id(), 3);
    assert!(params.priority());
    assert_eq!(params.task_id(), 7);
    assert_eq!(params.num_blocks(), 9);

    let task = TASK_ARG::from_raw((31 << 16) | 2);
    assert_eq!(task.task_id(), 31);
    assert_eq!(task.tm_op_code(), 2);
}

#[test]
fn ext_csd_byte_fields() {
    // PARTITION_CONFIG: BOOT_ACK 6, BOOT_PARTITION_ENABLE 5:3, PARTITION_ACCESS 2:0.
    let config = PARTITION_CONFIG::from_raw(0x4B);
    assert!(config.boot_ack());
    assert_eq!(config.boot_partition_enable(), 1);
    assert_eq!(config.partition_access(), 3);
    assert_eq!(PARTITION_CONFIG::NON_VOLATILE.raw(), 0x78);
    assert_eq!(
        SEC_FEATURE_SUPPORT::zeroed().with_sec_gb_cl_en(true).raw(),
        0x10
    );
}

#[test]
fn sd_status_ocr_and_arguments() {
    let bits = [
        (sd_status::OUT_OF_RANGE, 31),
        (sd_status::ADDRESS_ERROR, 30),
        (sd_status::COM_CRC_ERROR, 23),
        (sd_status::APP_CMD, 5),
        (CARD_STATUS::zeroed().with_ake_seq_error(true).raw(), 3),
    ];
    assert_single_bits("card status", &bits);
    assert_eq!(sd_status::STATE_SHIFT, 9);

    let ocr = SD_OCR::from_raw(0xC100_8000);
    assert!(ocr.busy_done());
    assert!(ocr.ccs());
    assert!(ocr.s18());
    assert_eq!(ocr.vdd_27_36(), 1);
    assert_eq!(models::sd::OCR_VOLTAGE_WINDOW, 0x00FF_8000);

    let cond = SEND_IF_COND::from_raw(0x1AA);
    assert_eq!(cond.vhs(), 1);
    assert_eq!(cond.check_pattern(), 0xAA);
    assert_eq!(SEND_IF_COND::ECHOED.raw(), 0xFFF);

    // R6: RCA 31:16, then status bits 23, 22, 19 at 15, 14, 13, and 12:0.
    let r6 = R6::zeroed()
        .with_com_crc_error(true)
        .with_illegal_command(true)
        .with_error(true);
    assert_eq!(r6.raw(), 0xE000);
    assert_eq!(R6::SAME_POSITION.raw(), 0x1FFF);

    // CMD6: mode 31, group n at bits 4n-1:4(n-1).
    let f = SWITCH_FUNC_ARG::from_raw(0x80FF_FFF3);
    assert!(f.mode());
    assert_eq!(f.group1(), 3);
    assert_eq!(f.group2(), 0xF);
    assert_eq!(f.group6(), 0xF);
}
