// SPDX-License-Identifier: GPL-2.0

//! Register offsets and field masks against the upstream `mtk-sd.c` definitions.

use msdc::regs::*;

/// `GENMASK(high, low)` written out independently of `Field`.
fn genmask(high: u32, low: u32) -> u32 {
    let mut mask = 0u32;
    for bit in low..=high {
        mask |= 1 << bit;
    }
    mask
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
        (MSDC_PAD_TUNE::TUNE0_OFFSET, 0xF0),
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
        (CQHCI_BASE, 0x800),
    ];
    for (index, (actual, want)) in expected.iter().enumerate() {
        assert_eq!(actual, want, "entry {index}");
    }
    assert_eq!(MSDC_CFG::REGION, Region::Base);
    assert_eq!(<CQHCI_SETTING as Register>::REGION, Region::Base);
}

#[test]
fn top_register_offsets() {
    assert_eq!(
        (EMMC_TOP_CONTROL::OFFSET, EMMC_TOP_CONTROL::REGION),
        (0x00, Region::Top)
    );
    assert_eq!(
        (EMMC_TOP_CMD::OFFSET, EMMC_TOP_CMD::REGION),
        (0x04, Region::Top)
    );
    assert_eq!(
        (EMMC50_PAD_DS_TUNE::OFFSET, EMMC50_PAD_DS_TUNE::REGION),
        (0x0C, Region::Top)
    );
    assert_eq!(
        (LOOP_TEST_CONTROL::OFFSET, LOOP_TEST_CONTROL::REGION),
        (0x30, Region::Top)
    );
    assert_eq!(<LOOP_TEST_CONTROL as Register>::OFFSET, 0x30);
}

#[test]
fn field_masks_match_the_c_definitions() {
    let fields: &[(u32, u32)] = &[
        (MSDC_CFG::MODE.mask(), 1 << 0),
        (MSDC_CFG::CKPDN.mask(), 1 << 1),
        (MSDC_CFG::RST.mask(), 1 << 2),
        (MSDC_CFG::PIO.mask(), 1 << 3),
        (MSDC_CFG::CKSTB.mask(), 1 << 7),
        (MSDC_CFG::CKDIV.mask(), genmask(15, 8)),
        (MSDC_CFG::CKMOD.mask(), genmask(17, 16)),
        (MSDC_CFG::HS400_CK_MODE.mask(), 1 << 18),
        (MSDC_CFG::CKDIV_EXTRA.mask(), genmask(19, 8)),
        (MSDC_CFG::CKMOD_EXTRA.mask(), genmask(21, 20)),
        (MSDC_CFG::HS400_CK_MODE_EXTRA.mask(), 1 << 22),
        (MSDC_IOCON::RSPL.mask(), 1 << 1),
        (MSDC_IOCON::DDLSEL.mask(), 1 << 3),
        (MSDC_IOCON::W_DSPL.mask(), 1 << 8),
        (MSDC_IOCON::D7SPL.mask(), 1 << 23),
        (MSDC_IOCON::RISCSZ.mask(), genmask(25, 24)),
        (MSDC_PS::CDDEBOUNCE.mask(), genmask(15, 12)),
        (MSDC_PS::DAT.mask(), genmask(23, 16)),
        (MSDC_PS::DAT0.mask(), 1 << 16),
        (MSDC_PS::DATA1.mask(), 1 << 17),
        (MSDC_PS::WP.mask(), 1 << 31),
        (MSDC_FIFOCS::RXCNT.mask(), genmask(7, 0)),
        (MSDC_FIFOCS::TXCNT.mask(), genmask(23, 16)),
        (MSDC_FIFOCS::CLR.mask(), 1 << 31),
        (SDC_CFG::INSWKUP.mask(), 1 << 1),
        (SDC_CFG::WRDTOC.mask(), genmask(14, 2)),
        (SDC_CFG::BUSWIDTH.mask(), genmask(17, 16)),
        (SDC_CFG::SDIO.mask(), 1 << 19),
        (SDC_CFG::SDIOIDE.mask(), 1 << 20),
        (SDC_CFG::DTOC.mask(), genmask(31, 24)),
        (SDC_STS::SDCBUSY.mask(), 1 << 0),
        (SDC_STS::CMDBUSY.mask(), 1 << 1),
        (SDC_STS::SPM_RESOURCE_RELEASE.mask(), 1 << 3),
        (SDC_STS::SWR_COMPL.mask(), 1 << 31),
        (SDC_ADV_CFG0::DAT1_IRQ_TRIGGER.mask(), 1 << 19),
        (SDC_ADV_CFG0::RX_ENHANCE_EN.mask(), 1 << 20),
        (SDC_ADV_CFG0::NEW_TX_EN.mask(), 1 << 31),
        (MSDC_NEW_RX_CFG::NEW_RX_PATH_SEL.mask(), 1 << 0),
        (EMMC_IOCON::BOOTRST.mask(), 1 << 0),
        (DMA_SA_H4BIT::ADDR_HIGH_4BIT.mask(), genmask(3, 0)),
        (MSDC_DMA_CTRL::START.mask(), 1 << 0),
        (MSDC_DMA_CTRL::STOP.mask(), 1 << 1),
        (MSDC_DMA_CTRL::RESUME.mask(), 1 << 2),
        (MSDC_DMA_CTRL::MODE.mask(), 1 << 8),
        (MSDC_DMA_CTRL::LASTBUF.mask(), 1 << 10),
        (MSDC_DMA_CTRL::BRUSTSZ.mask(), genmask(14, 12)),
        (MSDC_DMA_CFG::STS.mask(), 1 << 0),
        (MSDC_DMA_CFG::DECSEN.mask(), 1 << 1),
        (MSDC_DMA_CFG::AHBHPROT2.mask(), 1 << 9),
        (MSDC_DMA_CFG::ACTIVEEN.mask(), 1 << 13),
        (MSDC_DMA_CFG::CS12B16B.mask(), 1 << 16),
        (MSDC_PATCH_BIT0::ODDSUPP.mask(), 1 << 1),
        (MSDC_PATCH_BIT0::DESCUP_SEL.mask(), 1 << 6),
        (MSDC_PATCH_BIT0::INT_DAT_LATCH_CK_SEL.mask(), genmask(9, 7)),
        (MSDC_PATCH_BIT0::CKGEN_MSDC_DLY_SEL.mask(), genmask(14, 10)),
        (MSDC_PATCH_BIT0::BUSYDLY.mask(), genmask(21, 18)),
        (MSDC_PATCH_BIT0::WDOD.mask(), genmask(25, 22)),
        (MSDC_PATCH_BIT0::DECRCTMO.mask(), 1 << 30),
        (MSDC_PATCH_BIT1::WRDAT_CRC_TACNTR.mask(), genmask(2, 0)),
        (MSDC_PATCH_BIT1::CMDTA.mask(), genmask(5, 3)),
        (MSDC_PATCH_BIT1::BUSY_CHECK_SEL.mask(), 1 << 7),
        (MSDC_PATCH_BIT1::STOP_DLY.mask(), genmask(11, 8)),
        (MSDC_PATCH_BIT1::DDR_CMD_FIX_SEL.mask(), 1 << 14),
        (MSDC_PATCH_BIT1::SINGLE_BURST.mask(), 1 << 16),
        (MSDC_PATCH_BIT1::RSVD20.mask(), genmask(18, 17)),
        (MSDC_PATCH_BIT1::MSDC_CLK_ENFEAT.mask(), genmask(31, 24)),
        (MSDC_PATCH_BIT2::SUPPORT_64G.mask(), 1 << 1),
        (MSDC_PATCH_BIT2::RESPWAIT.mask(), genmask(3, 2)),
        (MSDC_PATCH_BIT2::CFGRESP.mask(), 1 << 15),
        (MSDC_PATCH_BIT2::RESPSTSENSEL.mask(), genmask(18, 16)),
        (MSDC_PATCH_BIT2::POP_EN_CNT.mask(), genmask(23, 20)),
        (MSDC_PATCH_BIT2::CFGCRCSTSEDGE.mask(), 1 << 25),
        (MSDC_PATCH_BIT2::CFGCRCSTS.mask(), 1 << 28),
        (MSDC_PATCH_BIT2::CRCSTSENSEL.mask(), genmask(31, 29)),
        (MSDC_PAD_TUNE::DATWRDLY.mask(), genmask(4, 0)),
        (MSDC_PAD_TUNE::DATRRDLY.mask(), genmask(12, 8)),
        (MSDC_PAD_TUNE::RD_SEL.mask(), 1 << 13),
        (MSDC_PAD_TUNE::RXDLYSEL.mask(), 1 << 15),
        (MSDC_PAD_TUNE::CMDRDLY.mask(), genmask(20, 16)),
        (MSDC_PAD_TUNE::CMD_SEL.mask(), 1 << 21),
        (MSDC_PAD_TUNE::CMDRRDLY.mask(), genmask(26, 22)),
        (MSDC_PAD_TUNE::CLKTDLY.mask(), genmask(31, 27)),
        (MSDC_PAD_TUNE1::DATRRDLY2.mask(), genmask(12, 8)),
        (MSDC_PAD_TUNE1::RD2_SEL.mask(), 1 << 13),
        (MSDC_PAD_TUNE1::CMDRDLY2.mask(), genmask(20, 16)),
        (MSDC_PAD_TUNE1::CMD2_SEL.mask(), 1 << 21),
        (MSDC_DAT_RDDLY0::D0.mask(), genmask(28, 24)),
        (MSDC_DAT_RDDLY1::D7.mask(), genmask(4, 0)),
        (PAD_DS_TUNE::DLY_SEL.mask(), 1 << 0),
        (PAD_DS_TUNE::DLY2_SEL.mask(), 1 << 1),
        (PAD_DS_TUNE::DLY1.mask(), genmask(6, 2)),
        (PAD_DS_TUNE::DLY2.mask(), genmask(11, 7)),
        (PAD_DS_TUNE::DLY3.mask(), genmask(16, 12)),
        (PAD_CMD_TUNE::DLY3SEL.mask(), 1 << 0),
        (PAD_CMD_TUNE::RX_DLY3.mask(), genmask(5, 1)),
        (EMMC51_CFG0::CMDQ_RDAT_CNT.mask(), genmask(21, 12)),
        (EMMC50_CFG0::PADCMD_LATCHCK.mask(), 1 << 0),
        (EMMC50_CFG0::CRCSTS_EDGE.mask(), 1 << 3),
        (EMMC50_CFG0::CFCSTS_SEL.mask(), 1 << 4),
        (EMMC50_CFG0::CMD_RESP_SEL.mask(), 1 << 9),
        (EMMC50_CFG1::DS_CFG.mask(), 1 << 28),
        (EMMC50_CFG2::AXI_SET_LEN.mask(), genmask(27, 24)),
        (EMMC50_CFG3::OUTS_WR.mask(), genmask(4, 0)),
        (SDC_FIFO_CFG::WRVALIDSEL.mask(), 1 << 24),
        (SDC_FIFO_CFG::RDVALIDSEL.mask(), 1 << 25),
        (CQHCI_SETTING::RD_CMD_WND_SEL.mask(), 1 << 14),
        (CQHCI_SETTING::WR_CMD_WND_SEL.mask(), 1 << 15),
        (EMMC_TOP_CONTROL::PAD_RXDLY_SEL.mask(), 1 << 0),
        (EMMC_TOP_CONTROL::DELAY_EN.mask(), 1 << 1),
        (EMMC_TOP_CONTROL::PAD_DAT_RD_RXDLY2.mask(), genmask(6, 2)),
        (EMMC_TOP_CONTROL::PAD_DAT_RD_RXDLY.mask(), genmask(11, 7)),
        (EMMC_TOP_CONTROL::PAD_DAT_RD_RXDLY2_SEL.mask(), 1 << 12),
        (EMMC_TOP_CONTROL::PAD_DAT_RD_RXDLY_SEL.mask(), 1 << 13),
        (EMMC_TOP_CONTROL::DATA_K_VALUE_SEL.mask(), 1 << 14),
        (EMMC_TOP_CONTROL::SDC_RX_ENH_EN.mask(), 1 << 15),
        (EMMC_TOP_CMD::PAD_CMD_RXDLY2.mask(), genmask(4, 0)),
        (EMMC_TOP_CMD::PAD_CMD_RXDLY.mask(), genmask(9, 5)),
        (EMMC_TOP_CMD::PAD_CMD_RD_RXDLY2_SEL.mask(), 1 << 10),
        (EMMC_TOP_CMD::PAD_CMD_RD_RXDLY_SEL.mask(), 1 << 11),
        (EMMC_TOP_CMD::PAD_CMD_TX_DLY.mask(), genmask(16, 12)),
        (EMMC50_PAD_DS_TUNE::PAD_DS_DLY_SEL.mask(), 1 << 16),
        (EMMC50_PAD_DS_TUNE::PAD_DS_DLY2_SEL.mask(), 1 << 15),
        (EMMC50_PAD_DS_TUNE::PAD_DS_DLY1.mask(), genmask(14, 10)),
        (EMMC50_PAD_DS_TUNE::PAD_DS_DLY3.mask(), genmask(4, 0)),
        (LOOP_TEST_CONTROL::TEST_LOOP_DSCLK_MUX_SEL.mask(), 1 << 0),
        (LOOP_TEST_CONTROL::TEST_LOOP_LATCH_MUX_SEL.mask(), 1 << 1),
        (LOOP_TEST_CONTROL::LOOP_EN_SEL_CLK.mask(), 1 << 20),
        (
            LOOP_TEST_CONTROL::TEST_HS400_CMD_LOOP_MUX_SEL.mask(),
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
fn sdc_cmd_layout() {
    assert_eq!(SDC_CMD::OPC.mask(), genmask(5, 0));
    assert_eq!(SDC_CMD::BRK.mask(), 1 << 6);
    assert_eq!(SDC_CMD::RSPTYP.mask(), genmask(9, 7));
    assert_eq!(SDC_CMD::DTYPE.mask(), genmask(12, 11));
    assert_eq!(SDC_CMD::RW.mask(), 1 << 13);
    assert_eq!(SDC_CMD::STOP.mask(), 1 << 14);
    assert_eq!(SDC_CMD::GOIRQ.mask(), 1 << 15);
    assert_eq!(SDC_CMD::BLKLEN.mask(), genmask(27, 16));
    assert_eq!(SDC_CMD::AUTOCMD.mask(), genmask(29, 28));
    assert_eq!(SDC_CMD::VOLSWTH.mask(), 1 << 30);
    assert_eq!(SDC_CMD::ACMD53.mask(), 1 << 31);
}

#[test]
fn field_helpers() {
    let ckdiv = MSDC_CFG::CKDIV;
    assert_eq!(
        (ckdiv.high_bit(), ckdiv.low_bit(), ckdiv.width()),
        (15, 8, 8)
    );
    assert_eq!(ckdiv.max_value(), 0xFF);
    assert_eq!(ckdiv.prepare(0xAB), Ok(0xAB00));
    assert_eq!(
        ckdiv.prepare(0x100),
        Err(FieldOverflow {
            value: 0x100,
            max: 0xFF
        })
    );
    assert_eq!(ckdiv.extract(0x1234_5678), 0x56);
    assert_eq!(ckdiv.replace(0xFFFF_FFFF, 0), Ok(0xFFFF_00FF));

    let whole: Field<MSDC_CFG> = Field::new(31, 0);
    assert_eq!(whole.mask(), u32::MAX);
    assert_eq!(whole.max_value(), u32::MAX);
    assert_eq!(whole.prepare(u32::MAX), Ok(u32::MAX));
    let top: Field<MSDC_CFG> = Field::new(31, 31);
    assert_eq!(top.mask(), 1 << 31);
    assert_eq!(top.prepare(2), Err(FieldOverflow { value: 2, max: 1 }));
}

#[test]
fn register_values() {
    let cfg = MSDC_CFG::from_raw(0)
        .with_flag(MSDC_CFG::MODE, true)
        .with_flag(MSDC_CFG::CKPDN, true)
        .with(MSDC_CFG::CKDIV, 0x42)
        .unwrap();
    assert_eq!(cfg.raw(), 0x0000_4203);
    assert_eq!(cfg.get(MSDC_CFG::CKDIV), 0x42);
    assert!(cfg.is_set(MSDC_CFG::CKPDN));
    assert!(!cfg.is_set(MSDC_CFG::RST));
    assert_eq!(cfg.with_flag(MSDC_CFG::MODE, false).raw(), 0x0000_4202);
    assert!(cfg.with(MSDC_CFG::CKMOD, 4).is_err());
    // A refused value leaves the register as it was.
    assert_eq!(RegisterWord::raw(cfg), 0x0000_4203);
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
fn encodings() {
    assert_eq!(BusWidth::from_mmc(0).field_value(), 0);
    assert_eq!(BusWidth::from_mmc(2).field_value(), 1);
    assert_eq!(BusWidth::from_mmc(3).field_value(), 2);
    assert_eq!(BusWidth::from_mmc(7), BusWidth::One);
    for value in 0..4 {
        let mode = ClockMode::from_field(value).unwrap();
        assert_eq!(mode.field_value(), value);
        assert_eq!(mode.is_double_data_rate(), value >= 2);
    }
    assert_eq!(ClockMode::from_field(4), None);
    assert_eq!(DMA_BURST_64B, 6);
}
