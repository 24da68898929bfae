// SPDX-License-Identifier: GPL-2.0
//! The MSDC model's register file and command checks, poked through its own API
//! (`MsdcModel::read`/`write` with the model's register definitions) with an SD card behind
//! it. The request engine against the same models is tested in msdc's `linux` target.

use sim::msdc::regs::{
    cfg, cmd, fifocs, int, sts, MSDC_CFG, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_PS, SDC_ARG,
    SDC_BLK_NUM, SDC_CMD, SDC_STS,
};
use sim::msdc::{ModelConfig, MsdcModel, Violation};
use sim::sd::{SdCard, SdConfig, BLOCK_SIZE};
use sim::Ram;

/// `MSDC_CFG.CKDIV` (15:8) of the 8-bit divider layout: 200 MHz / (4 × 125) = 400 kHz.
const CKDIV_400_KHZ: u32 = 125 << 8;
/// `MSDC_PS.CDSTS`: the card-detect pin (low: card present).
const PS_CDSTS: u32 = 1 << 1;
/// `MSDC_PS.DAT0`: the DAT0 line level (high: card not busy).
const PS_DAT0: u32 = 1 << 16;
/// `SDC_CMD.RSPTYP` of an R1 response.
const RSPTYP_R1: u32 = 1 << cmd::RSPTYP_SHIFT;
/// An offset the register map leaves unused.
const UNUSED_OFFSET: usize = 0x300;

#[test]
fn register_behaviour() {
    let mut m = MsdcModel::new(ModelConfig::default());
    // RST reads back set once, then clear.
    m.write(MSDC_CFG, cfg::MODE | cfg::RST);
    assert_eq!(m.read(MSDC_CFG) & cfg::RST, cfg::RST);
    assert_eq!(m.read(MSDC_CFG) & cfg::RST, 0);
    // CKSTB drops on a divider change.
    m.write(MSDC_CFG, cfg::MODE | CKDIV_400_KHZ);
    assert_eq!(m.bus_clock_hz(), 400_000);
    assert_eq!(m.read(MSDC_CFG) & cfg::CKSTB, 0);
    let mut stable = false;
    for _ in 0..4 {
        stable |= m.read(MSDC_CFG) & cfg::CKSTB != 0;
    }
    assert!(stable);
    // DAT0 high: the card is not busy (msdc_card_busy), card present (CDSTS 0).
    assert_eq!(m.read(MSDC_PS) & (PS_DAT0 | PS_CDSTS), PS_DAT0);
    // FIFO clear self-clears.
    m.write(MSDC_FIFOCS, fifocs::CLR);
    assert!(m.read(MSDC_FIFOCS) & fifocs::CLR != 0);
    assert_eq!(m.read(MSDC_FIFOCS) & fifocs::CLR, 0);
    // W1C and masking: a command to nothing times out.
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut ram = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut ram);
    m.write(SDC_ARG, 0);
    m.write(SDC_CMD, 13 | RSPTYP_R1);
    let busy = sts::SDCBUSY | sts::CMDBUSY;
    assert_eq!(m.read(SDC_STS) & busy, sts::CMDBUSY, "CMDBUSY only");
    m.run(&mut card, &mut mem, 4);
    assert_eq!(m.read(SDC_STS) & busy, 0);
    assert_eq!(m.read(MSDC_INT), int::CMDTMO);
    assert!(!m.interrupt_pending());
    m.write(MSDC_INTEN, int::CMDTMO);
    assert!(m.interrupt_pending());
    m.write(MSDC_INT, int::CMDRDY);
    assert!(m.interrupt_pending());
    m.write(MSDC_INT, int::CMDTMO);
    assert!(!m.interrupt_pending());
    // Unknown registers are refused visibly.
    m.write(UNUSED_OFFSET, 1);
    let (n, list) = m.violations();
    assert_eq!(n, 1);
    assert_eq!(list[0], Some(Violation::UnknownRegister(UNUSED_OFFSET)));
}

#[test]
fn pio_mode_is_rejected() {
    // The request engine clears PIO before every data command (as mtk-sd does), so only a
    // hand-written command reaches the model in PIO mode.
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut ram = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut ram);
    let mut m = MsdcModel::new(ModelConfig::default());
    m.write(MSDC_CFG, cfg::MODE | cfg::PIO);
    // CMD17: one 512-byte block (DTYPE 1).
    m.write(SDC_BLK_NUM, 1);
    m.write(SDC_ARG, 0);
    m.write(
        SDC_CMD,
        17 | RSPTYP_R1 | (1 << cmd::DTYPE_SHIFT) | (512 << cmd::BLKLEN_SHIFT),
    );
    m.run(&mut card, &mut mem, 4);
    assert_eq!(m.read(MSDC_INT) & int::CMDTMO, int::CMDTMO, "no response");
    assert_eq!(m.violations().1[0], Some(Violation::PioMode));
}
