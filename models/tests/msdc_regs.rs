// SPDX-License-Identifier: GPL-2.0
//! The MSDC model's own register and descriptor definitions against the hardware facts in
//! mtk-sd.c: field positions of the words the model decodes, and the GPD/BD layout.

use models::msdc::desc::{
    checksum_sealed, Bd, Gpd, BD_INFO, CHECKSUM_SEAL, CHECKSUM_SPAN, GPD_DATA_LEN, GPD_INFO,
};
use models::msdc::regs::{
    AutoCommand, BusWidth, ClockMode, DataType, ResponseType, MSDC_CFG, MSDC_INT, MSDC_PS, SDC_CMD,
};
use registers::{FieldValue, PartialFieldValue};

#[test]
fn sdc_cmd_fields_sit_where_msdc_cmd_prepare_raw_cmd_puts_them() {
    // vol_swt << 30 | auto_cmd << 28 | blklen << 16 | go_irq << 15 | stop << 14 |
    // rw << 13 | dtype << 11 | rsptyp << 7 | brk << 6 | opcode
    let raw =
        (1 << 30) | (2 << 28) | (512 << 16) | (1 << 14) | (1 << 13) | (2 << 11) | (7 << 7) | 25;
    let cmd = SDC_CMD::from_raw(raw);
    assert!(cmd.volswth());
    assert_eq!(cmd.autocmd(), 2);
    assert_eq!(cmd.blklen(), 512);
    assert!(!cmd.goirq());
    assert!(cmd.stop());
    assert!(cmd.rw());
    assert_eq!(cmd.dtype(), DataType::Multiple);
    assert_eq!(cmd.rsptyp(), 7);
    assert!(!cmd.brk());
    assert_eq!(cmd.opcode(), 25);
    assert_eq!(
        ResponseType::try_from_bits(u64::from(cmd.rsptyp())),
        Some(ResponseType::R1b)
    );
    assert_eq!(
        AutoCommand::try_from_bits(u64::from(cmd.autocmd())),
        Some(AutoCommand::Cmd23)
    );
    assert_eq!(ResponseType::try_from_bits(4), None);
    assert_eq!(AutoCommand::try_from_bits(3), None);
    assert_eq!(SDC_CMD::UNMODELLED.raw(), (1 << 31) | (1 << 15) | (1 << 6));
}

#[test]
fn msdc_cfg_has_both_divider_layouts() {
    // CKDIV 15:8 and CKMOD 17:16, or CKDIV_EXTRA 19:8 and CKMOD_EXTRA 21:20.
    let cfg = MSDC_CFG::from_raw(0x0036_5A00);
    assert_eq!(cfg.ckdiv(), 0x5A);
    assert_eq!(cfg.ckmod(), ClockMode::Ddr);
    assert_eq!(cfg.ckdiv_extra(), 0x65A);
    assert_eq!(cfg.ckmod_extra(), ClockMode::Hs400);
    assert_eq!(ClockMode::from_bits(1), ClockMode::Undivided);
    assert_eq!(MSDC_CFG::zeroed().with_hs400_ck_mode(true).raw(), 1 << 18);
    assert_eq!(
        MSDC_CFG::zeroed().with_hs400_ck_mode_extra(true).raw(),
        1 << 22
    );
    assert_eq!(
        MSDC_CFG::zeroed().with_rst(true).with_ckstb(true).raw(),
        (1 << 2) | (1 << 7)
    );
}

#[test]
fn interrupt_and_pin_bits() {
    assert_eq!(MSDC_INT::zeroed().with_cmdrdy(true).raw(), 1 << 8);
    assert_eq!(MSDC_INT::zeroed().with_xfer_compl(true).raw(), 1 << 12);
    assert_eq!(MSDC_INT::zeroed().with_dma_gpdcserr(true).raw(), 1 << 18);
    assert_eq!(MSDC_INT::zeroed().with_cmdq(true).raw(), 1 << 28);
    // CDEN and CDDEBOUNCE are writable; DAT 23:16 and CMD 24 idle high.
    assert_eq!(MSDC_PS::WRITABLE.raw(), 0xF001);
    assert_eq!(MSDC_PS::LINES_IDLE.raw(), 0x01FF_0000);
    assert_eq!(BusWidth::try_from_bits(2).map(BusWidth::lines), Some(8));
    assert_eq!(BusWidth::try_from_bits(3), None);
}

/// A descriptor of `words` little-endian words.
fn bytes<const N: usize>(words: &[u32]) -> [u8; N] {
    let mut b = [0u8; N];
    for (chunk, w) in b.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    b
}

#[test]
fn gpd_and_bd_words_decode_as_mt_gpdma_desc_and_mt_bdma_desc() {
    // gpd_info: HWO 0, BDP 1, checksum 15:8, NEXT_H4 27:24, PTR_H4 31:28; then next, ptr,
    // gpd_data_len (BUFLEN 15:0, EXTLEN 23:16), arg, blknum, cmd.
    let gpd = Gpd::decode(&bytes(&[0x3200_AB03, 0x1000, 0x2000, 0x12_3456, 5, 6, 7]));
    let expected = Gpd {
        info: GPD_INFO::zeroed()
            .with_hwo(true)
            .with_bdp(true)
            .with_const_checksum::<0xAB>()
            .with_const_next_h4::<2>()
            .with_const_ptr_h4::<3>(),
        next: 0x1000,
        ptr: 0x2000,
        data_len: GPD_DATA_LEN::zeroed()
            .with_const_buflen::<0x3456>()
            .with_const_extlen::<0x12>(),
        arg: 5,
        blknum: 6,
        cmd: 7,
    };
    assert_eq!(gpd, expected);

    // bd_info: EOL 0, checksum 15:8, NEXT_H4 27:24, PTR_H4 31:28; then next, ptr and
    // bd_data_len (BUFLEN 15:0, or 23:0 with 36-bit DMA).
    let bd = Bd::decode(&bytes(&[0x4500_CD01, 0x3000, 0x4000, 0xAB_CDEF]));
    let info = BD_INFO::zeroed()
        .with_eol(true)
        .with_const_checksum::<0xCD>()
        .with_const_next_h4::<5>()
        .with_const_ptr_h4::<4>();
    assert_eq!(bd.info, info);
    assert_eq!((bd.next, bd.ptr), (0x3000, 0x4000));
    assert_eq!(bd.data_len.buflen(), 0xCDEF);
    assert_eq!(bd.data_len.buflen_ext(), 0xAB_CDEF);
}

#[test]
fn the_checksum_seals_the_first_sixteen_bytes() {
    assert_eq!(CHECKSUM_SPAN, 16);
    assert_eq!(CHECKSUM_SEAL, 0xFF);
    let mut d = [0u8; Gpd::SIZE];
    d[0] = 0x03;
    // msdc_dma_calcs: 0xFF minus the sum of the 16 bytes, stored in byte 1.
    d[1] = 0xFF - 0x03;
    assert!(checksum_sealed(&d));
    // Bytes past the span do not count.
    d[20] = 0x55;
    assert!(checksum_sealed(&d));
    d[4] = 1;
    assert!(!checksum_sealed(&d));
}
