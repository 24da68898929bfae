// SPDX-License-Identifier: GPL-2.0

//! Register offsets and field masks against the upstream `mtk-sd.c` definitions.

use msdc::command::{AutoCommand, ResponseType, TransferMode};
use msdc::regs::*;
use registers::{register, FieldOverflow, FieldValue, PartialFieldValue, Register, Window};

/// `GENMASK(high, low)` written out independently of the register layer.
fn genmask(high: u32, low: u32) -> u32 {
    let mut mask = 0u32;
    for bit in low..=high {
        mask |= 1 << bit;
    }
    mask
}

/// The bits a numeric field occupies: those that writing 0 clears in an all-ones word.
macro_rules! mask {
    ($register:ident, $with_const:ident) => {
        !$register::from_raw(u32::MAX).$with_const::<0>().raw()
    };
}

/// The bits a flag occupies: the word with the flag alone set.
macro_rules! flag {
    ($register:ident, $with:ident) => {
        $register::zeroed().$with(true).raw()
    };
}

/// The name of the window register `R` lives in.
fn window_of<R: Register>() -> &'static str {
    <R::Window as Window>::NAME
}

#[test]
fn base_register_offsets() {
    let expected: &[(usize, usize)] = &[
        (MSDC_CFG::OFFSET, 0x00),
        (MSDC_IOCON::OFFSET, 0x04),
        (MSDC_PS::OFFSET, 0x08),
        (MSDC_INT::OFFSET, 0x0C),
        (MSDC_INTEN::OFFSET, 0x10),
        (MSDC_FIFOCS::OFFSET, 0x14),
        (MSDC_TXDATA::OFFSET, 0x18),
        (MSDC_RXDATA::OFFSET, 0x1C),
        (SDC_CFG::OFFSET, 0x30),
        (SDC_CMD::OFFSET, 0x34),
        (SDC_ARG::OFFSET, 0x38),
        (SDC_STS::OFFSET, 0x3C),
        (SDC_RESP0::OFFSET, 0x40),
        (SDC_RESP1::OFFSET, 0x44),
        (SDC_RESP2::OFFSET, 0x48),
        (SDC_RESP3::OFFSET, 0x4C),
        (SDC_BLK_NUM::OFFSET, 0x50),
        (SDC_ADV_CFG0::OFFSET, 0x64),
        (MSDC_NEW_RX_CFG::OFFSET, 0x68),
        (EMMC_IOCON::OFFSET, 0x7C),
        (SDC_ACMD_RESP::OFFSET, 0x80),
        (DMA_SA_H4BIT::OFFSET, 0x8C),
        (MSDC_DMA_SA::OFFSET, 0x90),
        (MSDC_DMA_CA::OFFSET, 0x94),
        (MSDC_DMA_CTRL::OFFSET, 0x98),
        (MSDC_DMA_CFG::OFFSET, 0x9C),
        (MSDC_DBG_SEL::OFFSET, 0xA0),
        (MSDC_DBG_OUT::OFFSET, 0xA4),
        (MSDC_DMA_LENGTH::OFFSET, 0xA8),
        (MSDC_PATCH_BIT0::OFFSET, 0xB0),
        (MSDC_PATCH_BIT1::OFFSET, 0xB4),
        (MSDC_PATCH_BIT2::OFFSET, 0xB8),
        (MSDC_PAD_TUNE::OFFSET, 0xEC),
        (MSDC_PAD_TUNE0::OFFSET, 0xF0),
        (MSDC_PAD_TUNE1::OFFSET, 0xF4),
        (MSDC_DAT_RDDLY0::OFFSET, 0xF8),
        (MSDC_DAT_RDDLY1::OFFSET, 0xFC),
        (MSDC_HW_DBG::OFFSET, 0x110),
        (MSDC_VERSION::OFFSET, 0x114),
        (PAD_DS_TUNE::OFFSET, 0x188),
        (PAD_CMD_TUNE::OFFSET, 0x18C),
        (EMMC51_CFG0::OFFSET, 0x204),
        (EMMC50_CFG0::OFFSET, 0x208),
        (EMMC50_CFG1::OFFSET, 0x20C),
        (EMMC50_CFG2::OFFSET, 0x21C),
        (EMMC50_CFG3::OFFSET, 0x220),
        (SDC_FIFO_CFG::OFFSET, 0x228),
        (CQHCI_SETTING::OFFSET, 0x7FC),
        (CQHCI_BLOCK_OFFSET, 0x800),
    ];
    for (index, (actual, want)) in expected.iter().enumerate() {
        assert_eq!(actual, want, "entry {index}");
    }
    assert_eq!(window_of::<MSDC_CFG>(), MsdcBase::NAME);
    assert_eq!(window_of::<CQHCI_SETTING>(), MsdcBase::NAME);
    assert_eq!(window_of::<MSDC_PAD_TUNE0>(), MsdcBase::NAME);
    assert_eq!(<CQHCI_SETTING as Register>::NAME, "CQHCI_SETTING");
}

#[test]
fn top_register_offsets() {
    assert_eq!(
        (EMMC_TOP_CONTROL::OFFSET, window_of::<EMMC_TOP_CONTROL>()),
        (0x00, MsdcTop::NAME)
    );
    assert_eq!(
        (EMMC_TOP_CMD::OFFSET, window_of::<EMMC_TOP_CMD>()),
        (0x04, MsdcTop::NAME)
    );
    assert_eq!(
        (
            EMMC50_PAD_DS_TUNE::OFFSET,
            window_of::<EMMC50_PAD_DS_TUNE>()
        ),
        (0x0C, MsdcTop::NAME)
    );
    assert_eq!(
        (LOOP_TEST_CONTROL::OFFSET, window_of::<LOOP_TEST_CONTROL>()),
        (0x30, MsdcTop::NAME)
    );
    assert_eq!(<LOOP_TEST_CONTROL as Register>::OFFSET, 0x30);
    assert_ne!(MsdcTop::NAME, MsdcBase::NAME);
}

#[test]
fn field_masks_match_the_c_definitions() {
    let fields: &[(u32, u32)] = &[
        (flag!(MSDC_CFG, with_mode), 1 << 0),
        (flag!(MSDC_CFG, with_ckpdn), 1 << 1),
        (flag!(MSDC_CFG, with_rst), 1 << 2),
        (flag!(MSDC_CFG, with_pio), 1 << 3),
        (flag!(MSDC_CFG, with_ckstb), 1 << 7),
        (mask!(MSDC_CFG, with_const_ckdiv), genmask(15, 8)),
        (
            !MSDC_CFG::from_raw(u32::MAX)
                .with_ckmod(ClockMode::Divided)
                .raw(),
            genmask(17, 16),
        ),
        (flag!(MSDC_CFG, with_hs400_ck_mode), 1 << 18),
        (mask!(MSDC_CFG, with_const_ckdiv_extra), genmask(19, 8)),
        (
            !MSDC_CFG::from_raw(u32::MAX)
                .with_ckmod_extra(ClockMode::Divided)
                .raw(),
            genmask(21, 20),
        ),
        (flag!(MSDC_CFG, with_hs400_ck_mode_extra), 1 << 22),
        (flag!(MSDC_IOCON, with_rspl), 1 << 1),
        (flag!(MSDC_IOCON, with_ddlsel), 1 << 3),
        (flag!(MSDC_IOCON, with_w_dspl), 1 << 8),
        (flag!(MSDC_IOCON, with_d7spl), 1 << 23),
        (mask!(MSDC_IOCON, with_const_riscsz), genmask(25, 24)),
        (mask!(MSDC_PS, with_const_cddebounce), genmask(15, 12)),
        (mask!(MSDC_PS, with_const_dat), genmask(23, 16)),
        (flag!(MSDC_PS, with_dat0), 1 << 16),
        (flag!(MSDC_PS, with_data1), 1 << 17),
        (flag!(MSDC_PS, with_wp), 1 << 31),
        (mask!(MSDC_FIFOCS, with_const_rxcnt), genmask(7, 0)),
        (mask!(MSDC_FIFOCS, with_const_txcnt), genmask(23, 16)),
        (flag!(MSDC_FIFOCS, with_clr), 1 << 31),
        (flag!(SDC_CFG, with_inswkup), 1 << 1),
        (mask!(SDC_CFG, with_const_wrdtoc), genmask(14, 2)),
        (
            !SDC_CFG::from_raw(u32::MAX)
                .with_buswidth(BusWidth::One)
                .raw(),
            genmask(17, 16),
        ),
        (flag!(SDC_CFG, with_sdio), 1 << 19),
        (flag!(SDC_CFG, with_sdioide), 1 << 20),
        (mask!(SDC_CFG, with_const_dtoc), genmask(31, 24)),
        (flag!(SDC_STS, with_sdcbusy), 1 << 0),
        (flag!(SDC_STS, with_cmdbusy), 1 << 1),
        (flag!(SDC_STS, with_spm_resource_release), 1 << 3),
        (flag!(SDC_STS, with_swr_compl), 1 << 31),
        (flag!(SDC_ADV_CFG0, with_dat1_irq_trigger), 1 << 19),
        (flag!(SDC_ADV_CFG0, with_rx_enhance_en), 1 << 20),
        (flag!(SDC_ADV_CFG0, with_new_tx_en), 1 << 31),
        (flag!(MSDC_NEW_RX_CFG, with_new_rx_path_sel), 1 << 0),
        (flag!(EMMC_IOCON, with_bootrst), 1 << 0),
        (
            mask!(DMA_SA_H4BIT, with_const_addr_high_4bit),
            genmask(3, 0),
        ),
        (flag!(MSDC_DMA_CTRL, with_start), 1 << 0),
        (flag!(MSDC_DMA_CTRL, with_stop), 1 << 1),
        (flag!(MSDC_DMA_CTRL, with_resume), 1 << 2),
        (flag!(MSDC_DMA_CTRL, with_mode), 1 << 8),
        (flag!(MSDC_DMA_CTRL, with_lastbuf), 1 << 10),
        (mask!(MSDC_DMA_CTRL, with_const_brustsz), genmask(14, 12)),
        (flag!(MSDC_DMA_CFG, with_sts), 1 << 0),
        (flag!(MSDC_DMA_CFG, with_decsen), 1 << 1),
        (flag!(MSDC_DMA_CFG, with_ahbhprot2), 1 << 9),
        (flag!(MSDC_DMA_CFG, with_activeen), 1 << 13),
        (flag!(MSDC_DMA_CFG, with_cs12b16b), 1 << 16),
        (flag!(MSDC_PATCH_BIT0, with_oddsupp), 1 << 1),
        (flag!(MSDC_PATCH_BIT0, with_descup_sel), 1 << 6),
        (
            mask!(MSDC_PATCH_BIT0, with_const_int_dat_latch_ck_sel),
            genmask(9, 7),
        ),
        (
            mask!(MSDC_PATCH_BIT0, with_const_ckgen_msdc_dly_sel),
            genmask(14, 10),
        ),
        (mask!(MSDC_PATCH_BIT0, with_const_busydly), genmask(21, 18)),
        (mask!(MSDC_PATCH_BIT0, with_const_wdod), genmask(25, 22)),
        (flag!(MSDC_PATCH_BIT0, with_decrctmo), 1 << 30),
        (
            mask!(MSDC_PATCH_BIT1, with_const_wrdat_crc_tacntr),
            genmask(2, 0),
        ),
        (mask!(MSDC_PATCH_BIT1, with_const_cmdta), genmask(5, 3)),
        (flag!(MSDC_PATCH_BIT1, with_busy_check_sel), 1 << 7),
        (mask!(MSDC_PATCH_BIT1, with_const_stop_dly), genmask(11, 8)),
        (flag!(MSDC_PATCH_BIT1, with_ddr_cmd_fix_sel), 1 << 14),
        (flag!(MSDC_PATCH_BIT1, with_single_burst), 1 << 16),
        (flag!(MSDC_PATCH_BIT1, with_rsvd20), genmask(18, 17)),
        (
            flag!(MSDC_PATCH_BIT1, with_msdc_clk_enfeat),
            genmask(31, 24),
        ),
        (flag!(MSDC_PATCH_BIT2, with_support_64g), 1 << 1),
        (mask!(MSDC_PATCH_BIT2, with_const_respwait), genmask(3, 2)),
        (flag!(MSDC_PATCH_BIT2, with_cfgresp), 1 << 15),
        (
            mask!(MSDC_PATCH_BIT2, with_const_respstsensel),
            genmask(18, 16),
        ),
        (
            mask!(MSDC_PATCH_BIT2, with_const_pop_en_cnt),
            genmask(23, 20),
        ),
        (flag!(MSDC_PATCH_BIT2, with_cfgcrcstsedge), 1 << 25),
        (flag!(MSDC_PATCH_BIT2, with_cfgcrcsts), 1 << 28),
        (
            mask!(MSDC_PATCH_BIT2, with_const_crcstsensel),
            genmask(31, 29),
        ),
        (mask!(MSDC_PAD_TUNE, with_const_datwrdly), genmask(4, 0)),
        (mask!(MSDC_PAD_TUNE, with_const_datrrdly), genmask(12, 8)),
        (flag!(MSDC_PAD_TUNE, with_rd_sel), 1 << 13),
        (flag!(MSDC_PAD_TUNE, with_rxdlysel), 1 << 15),
        (mask!(MSDC_PAD_TUNE, with_const_cmdrdly), genmask(20, 16)),
        (flag!(MSDC_PAD_TUNE, with_cmd_sel), 1 << 21),
        (mask!(MSDC_PAD_TUNE, with_const_cmdrrdly), genmask(26, 22)),
        (mask!(MSDC_PAD_TUNE, with_const_clktdly), genmask(31, 27)),
        (mask!(MSDC_PAD_TUNE1, with_const_datrrdly2), genmask(12, 8)),
        (flag!(MSDC_PAD_TUNE1, with_rd2_sel), 1 << 13),
        (mask!(MSDC_PAD_TUNE1, with_const_cmdrdly2), genmask(20, 16)),
        (flag!(MSDC_PAD_TUNE1, with_cmd2_sel), 1 << 21),
        (mask!(MSDC_DAT_RDDLY0, with_const_d0), genmask(28, 24)),
        (mask!(MSDC_DAT_RDDLY1, with_const_d7), genmask(4, 0)),
        (flag!(PAD_DS_TUNE, with_dly_sel), 1 << 0),
        (flag!(PAD_DS_TUNE, with_dly2_sel), 1 << 1),
        (mask!(PAD_DS_TUNE, with_const_dly1), genmask(6, 2)),
        (mask!(PAD_DS_TUNE, with_const_dly2), genmask(11, 7)),
        (mask!(PAD_DS_TUNE, with_const_dly3), genmask(16, 12)),
        (flag!(PAD_CMD_TUNE, with_dly3sel), 1 << 0),
        (mask!(PAD_CMD_TUNE, with_const_rx_dly3), genmask(5, 1)),
        (
            mask!(EMMC51_CFG0, with_const_cmdq_rdat_cnt),
            genmask(21, 12),
        ),
        (flag!(EMMC50_CFG0, with_padcmd_latchck), 1 << 0),
        (flag!(EMMC50_CFG0, with_crcsts_edge), 1 << 3),
        (flag!(EMMC50_CFG0, with_cfcsts_sel), 1 << 4),
        (flag!(EMMC50_CFG0, with_cmd_resp_sel), 1 << 9),
        (flag!(EMMC50_CFG1, with_ds_cfg), 1 << 28),
        (mask!(EMMC50_CFG2, with_const_axi_set_len), genmask(27, 24)),
        (mask!(EMMC50_CFG3, with_const_outs_wr), genmask(4, 0)),
        (flag!(SDC_FIFO_CFG, with_wrvalidsel), 1 << 24),
        (flag!(SDC_FIFO_CFG, with_rdvalidsel), 1 << 25),
        (flag!(CQHCI_SETTING, with_rd_cmd_wnd_sel), 1 << 14),
        (flag!(CQHCI_SETTING, with_wr_cmd_wnd_sel), 1 << 15),
        (flag!(EMMC_TOP_CONTROL, with_pad_rxdly_sel), 1 << 0),
        (flag!(EMMC_TOP_CONTROL, with_delay_en), 1 << 1),
        (
            mask!(EMMC_TOP_CONTROL, with_const_pad_dat_rd_rxdly2),
            genmask(6, 2),
        ),
        (
            mask!(EMMC_TOP_CONTROL, with_const_pad_dat_rd_rxdly),
            genmask(11, 7),
        ),
        (flag!(EMMC_TOP_CONTROL, with_pad_dat_rd_rxdly2_sel), 1 << 12),
        (flag!(EMMC_TOP_CONTROL, with_pad_dat_rd_rxdly_sel), 1 << 13),
        (flag!(EMMC_TOP_CONTROL, with_data_k_value_sel), 1 << 14),
        (flag!(EMMC_TOP_CONTROL, with_sdc_rx_enh_en), 1 << 15),
        (
            mask!(EMMC_TOP_CMD, with_const_pad_cmd_rxdly2),
            genmask(4, 0),
        ),
        (mask!(EMMC_TOP_CMD, with_const_pad_cmd_rxdly), genmask(9, 5)),
        (flag!(EMMC_TOP_CMD, with_pad_cmd_rd_rxdly2_sel), 1 << 10),
        (flag!(EMMC_TOP_CMD, with_pad_cmd_rd_rxdly_sel), 1 << 11),
        (
            mask!(EMMC_TOP_CMD, with_const_pad_cmd_tx_dly),
            genmask(16, 12),
        ),
        (flag!(EMMC50_PAD_DS_TUNE, with_pad_ds_dly_sel), 1 << 16),
        (flag!(EMMC50_PAD_DS_TUNE, with_pad_ds_dly2_sel), 1 << 15),
        (
            mask!(EMMC50_PAD_DS_TUNE, with_const_pad_ds_dly1),
            genmask(14, 10),
        ),
        (
            mask!(EMMC50_PAD_DS_TUNE, with_const_pad_ds_dly3),
            genmask(4, 0),
        ),
        (
            flag!(LOOP_TEST_CONTROL, with_test_loop_dsclk_mux_sel),
            1 << 0,
        ),
        (
            flag!(LOOP_TEST_CONTROL, with_test_loop_latch_mux_sel),
            1 << 1,
        ),
        (flag!(LOOP_TEST_CONTROL, with_loop_en_sel_clk), 1 << 20),
        (
            flag!(LOOP_TEST_CONTROL, with_test_hs400_cmd_loop_mux_sel),
            1 << 31,
        ),
    ];
    for (index, (actual, want)) in fields.iter().enumerate() {
        assert_eq!(
            actual, want,
            "entry {index}: {actual:#010x} != {want:#010x}"
        );
    }
}

#[test]
fn pad_tune_layout_at_both_locations() {
    // MSDC_PAD_TUNE (0xEC) and MSDC_PAD_TUNE0 (0xF0) are one layout at two offsets.
    let fields: &[(u32, u32, u32)] = &[
        (
            mask!(MSDC_PAD_TUNE, with_const_datwrdly),
            mask!(MSDC_PAD_TUNE0, with_const_datwrdly),
            genmask(4, 0),
        ),
        (
            flag!(MSDC_PAD_TUNE, with_rxdlysel),
            flag!(MSDC_PAD_TUNE0, with_rxdlysel),
            1 << 15,
        ),
        (
            mask!(MSDC_PAD_TUNE, with_const_clktdly),
            mask!(MSDC_PAD_TUNE0, with_const_clktdly),
            genmask(31, 27),
        ),
    ];
    for (index, (tune, tune0, want)) in fields.iter().enumerate() {
        assert_eq!((tune, tune0), (want, want), "entry {index}");
    }
}

#[test]
fn sdc_cmd_layout() {
    let all_ones = SDC_CMD::from_raw(u32::MAX);
    assert_eq!(mask!(SDC_CMD, with_const_opc), genmask(5, 0));
    assert_eq!(flag!(SDC_CMD, with_brk), 1 << 6);
    assert_eq!(
        !all_ones.with_rsptyp(ResponseType::None).raw(),
        genmask(9, 7)
    );
    assert_eq!(
        SDC_CMD::zeroed().with_rsptyp(ResponseType::R1b).raw(),
        genmask(9, 7),
        "R1b is code 7"
    );
    assert_eq!(
        SDC_CMD::zeroed().with_dtype(TransferMode::Stream).raw(),
        genmask(12, 11),
        "stream is type 3"
    );
    assert_eq!(flag!(SDC_CMD, with_rw), 1 << 13);
    assert_eq!(flag!(SDC_CMD, with_stop), 1 << 14);
    assert_eq!(flag!(SDC_CMD, with_goirq), 1 << 15);
    assert_eq!(mask!(SDC_CMD, with_const_blklen), genmask(27, 16));
    assert_eq!(
        !all_ones.with_autocmd(AutoCommand::None).raw(),
        genmask(29, 28)
    );
    assert_eq!(flag!(SDC_CMD, with_volswth), 1 << 30);
    assert_eq!(flag!(SDC_CMD, with_acmd53), 1 << 31);
}

#[test]
fn sdc_cmd_encodings_read_back() {
    let word = SDC_CMD::from_raw((7 << 7) | (2 << 11) | (2 << 28));
    assert_eq!(word.rsptyp(), Some(ResponseType::R1b));
    assert_eq!(word.dtype(), Some(TransferMode::MultiBlock));
    assert_eq!(word.autocmd(), Some(AutoCommand::Cmd23));
    // Reserved or "none" encodings: RSPTYP 4, DTYPE 0 (no data), AUTOCMD 3 (vendor CMD19).
    let word = SDC_CMD::from_raw((4 << 7) | (3 << 28));
    assert_eq!(word.rsptyp(), None);
    assert_eq!(word.dtype(), None);
    assert_eq!(word.autocmd(), None);
    assert_eq!(ResponseType::R1bNoCrc.into_bits(), 7);
}

register! {
    /// A word with the edge cases of the layer's fields: the whole word and its top bit.
    EdgeWord(u32) {
        /// Bits 31:0.
        31:0 whole;
        /// Bit 31 alone, as a number.
        31:31 top;
    }
}

#[test]
fn field_helpers() {
    // CKDIV is 15:8: eight bits, at most 0xFF.
    assert_eq!(mask!(MSDC_CFG, with_const_ckdiv), genmask(15, 8));
    assert_eq!(MSDC_CFG::from_raw(u32::MAX).ckdiv(), 0xFF);
    assert_eq!(
        MSDC_CFG::zeroed().try_with_ckdiv(0xAB).map(MSDC_CFG::raw),
        Ok(0xAB00)
    );
    assert_eq!(
        MSDC_CFG::zeroed().try_with_ckdiv(0x100),
        Err(FieldOverflow {
            value: 0x100,
            max: 0xFF
        })
    );
    assert_eq!(MSDC_CFG::from_raw(0x1234_5678).ckdiv(), 0x56);
    assert_eq!(
        MSDC_CFG::from_raw(0xFFFF_FFFF)
            .try_with_ckdiv(0)
            .map(MSDC_CFG::raw),
        Ok(0xFFFF_00FF)
    );

    assert_eq!(mask!(EdgeWord, with_const_whole), u32::MAX);
    assert_eq!(EdgeWord::from_raw(u32::MAX).whole(), u32::MAX);
    assert_eq!(
        EdgeWord::zeroed()
            .try_with_whole(u32::MAX)
            .map(EdgeWord::raw),
        Ok(u32::MAX)
    );
    assert_eq!(mask!(EdgeWord, with_const_top), 1 << 31);
    assert_eq!(
        EdgeWord::zeroed().try_with_top(2),
        Err(FieldOverflow { value: 2, max: 1 })
    );
}

#[test]
fn register_values() {
    let cfg = MSDC_CFG::from_raw(0)
        .with_mode(true)
        .with_ckpdn(true)
        .try_with_ckdiv(0x42)
        .unwrap();
    assert_eq!(cfg.raw(), 0x0000_4203);
    assert_eq!(cfg.ckdiv(), 0x42);
    assert!(cfg.ckpdn());
    assert!(!cfg.rst());
    assert_eq!(cfg.with_mode(false).raw(), 0x0000_4202);
    // CKMOD takes a `ClockMode`, so 4 cannot even be written; a divider wider than CKDIV
    // is refused.
    assert!(cfg.try_with_ckdiv(0x100).is_err());
    // A refused value leaves the register as it was.
    assert_eq!(cfg.raw(), 0x0000_4203);
}

#[test]
fn interrupt_bits() {
    let bits: &[(InterruptSet, u32)] = &[
        (InterruptSet::MMCIRQ, 0),
        (InterruptSet::CDSC, 1),
        (InterruptSet::ACMDRDY, 3),
        (InterruptSet::ACMDTMO, 4),
        (InterruptSet::ACMDCRCERR, 5),
        (InterruptSet::DMAQ_EMPTY, 6),
        (InterruptSet::SDIOIRQ, 7),
        (InterruptSet::CMDRDY, 8),
        (InterruptSet::CMDTMO, 9),
        (InterruptSet::RSPCRCERR, 10),
        (InterruptSet::CSTA, 11),
        (InterruptSet::XFER_COMPL, 12),
        (InterruptSet::DXFER_DONE, 13),
        (InterruptSet::DATTMO, 14),
        (InterruptSet::DATCRCERR, 15),
        (InterruptSet::ACMD19_DONE, 16),
        (InterruptSet::DMA_BDCSERR, 17),
        (InterruptSet::DMA_GPDCSERR, 18),
        (InterruptSet::DMA_PROTECT, 19),
        (InterruptSet::CMDQ, 28),
    ];
    let mut all = 0u32;
    for (set, bit) in bits {
        assert_eq!(set.bits(), 1 << bit, "bit {bit}");
        all |= 1 << bit;
    }
    assert_eq!(InterruptSet::ALL.bits(), all);
}

#[test]
fn interrupt_set_operations() {
    let a = InterruptSet::CMDRDY | InterruptSet::CMDTMO;
    let b = InterruptSet::CMDTMO | InterruptSet::XFER_COMPL;
    assert_eq!((a & b).bits(), 1 << 9);
    assert_eq!((a - b).bits(), 1 << 8);
    assert!(a.contains(InterruptSet::CMDRDY));
    assert!(!a.contains(b));
    assert!(a.intersects(b));
    assert!(InterruptSet::empty().is_empty());
    let mut c = InterruptSet::empty();
    c |= InterruptSet::SDIOIRQ;
    c &= a;
    assert!(c.is_empty());

    let pending = InterruptSet::pending_enabled(
        MSDC_INT::from_raw((1 << 8) | (1 << 12) | (1 << 25)),
        MSDC_INTEN::from_raw((1 << 8) | (1 << 25)),
    );
    assert_eq!(pending.bits(), (1 << 8) | (1 << 25));
    assert_eq!(pending.as_acknowledge().raw(), (1 << 8) | (1 << 25));
    assert_eq!(a.as_enable().raw(), (1 << 8) | (1 << 9));
}

#[test]
fn interrupt_registers_share_the_layout() {
    // The constants come from MSDC_INT's fields; MSDC_INTEN has the same bits.
    assert_eq!(
        InterruptSet::CMDRDY.bits(),
        MSDC_INTEN::zeroed().with_cmdrdy(true).raw()
    );
    assert_eq!(flag!(MSDC_INTEN, with_cmdq), 1 << 28);
    assert_eq!(flag!(MSDC_INT, with_cdsc), 1 << 1);
    let pending = MSDC_INT::from_raw((1 << 7) | (1 << 12));
    assert!(pending.sdioirq() && pending.xfer_compl() && !pending.cmdrdy());
}

#[test]
fn encodings() {
    let buswidth = |width: BusWidth| SDC_CFG::zeroed().with_buswidth(width).raw() >> 16;
    assert_eq!(buswidth(BusWidth::from_mmc(0)), 0);
    assert_eq!(buswidth(BusWidth::from_mmc(2)), 1);
    assert_eq!(buswidth(BusWidth::from_mmc(3)), 2);
    assert_eq!(BusWidth::from_mmc(7), BusWidth::One);
    assert_eq!(SDC_CFG::from_raw(3 << 16).buswidth(), None, "reserved");
    for value in 0..4 {
        let mode = MSDC_CFG::from_raw(value << 16).ckmod();
        assert_eq!(MSDC_CFG::zeroed().with_ckmod(mode).raw(), value << 16);
        assert_eq!(mode.into_bits(), u64::from(value));
        assert_eq!(MSDC_CFG::from_raw(value << 20).ckmod_extra(), mode);
        assert_eq!(mode.is_double_data_rate(), value >= 2);
    }
    // 4 is no CKMOD encoding: its bit is HS400_CK_MODE, outside the field.
    assert_eq!(MSDC_CFG::from_raw(4 << 16).ckmod(), ClockMode::Divided);
    assert_eq!(ClockMode::WIDTH, 2);
    assert_eq!(DMA_BURST_64B, 6);
}
