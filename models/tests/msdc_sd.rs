// SPDX-License-Identifier: GPL-2.0
//! The MSDC model's register file and command checks, poked through its own API
//! (`MsdcModel::read`/`write` with the model's register definitions) with an SD card behind
//! it. The request engine against the same models is tested in msdc's `linux` target.

use models::msdc::regs::{
    DataType, ResponseType, MSDC_CFG, MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_PS, SDC_ARG,
    SDC_BLK_NUM, SDC_CMD, SDC_STS,
};
use models::msdc::{ModelConfig, MsdcModel, Violation};
use models::sd::{SdCard, SdConfig, BLOCK_SIZE};
use models::Ram;

/// `MSDC_CFG` in MMC/SD mode.
const SD_MODE: MSDC_CFG = MSDC_CFG::zeroed().with_mode(true);
/// An offset the register map leaves unused.
const UNUSED_OFFSET: usize = 0x300;

/// `SDC_CMD` for command `opcode` with an R1 response.
fn r1_command(opcode: u32) -> SDC_CMD {
    SDC_CMD::zeroed()
        .try_with_opcode(opcode)
        .and_then(|c| c.try_with_rsptyp(ResponseType::R1 as u32))
        .unwrap()
}

#[test]
fn register_behaviour() {
    let mut m = MsdcModel::new(ModelConfig::default());
    // RST reads back set once, then clear.
    m.write(MSDC_CFG::OFFSET, SD_MODE.with_rst(true).raw());
    assert!(MSDC_CFG::from_raw(m.read(MSDC_CFG::OFFSET)).rst());
    assert!(!MSDC_CFG::from_raw(m.read(MSDC_CFG::OFFSET)).rst());
    // CKSTB drops on a divider change: 200 MHz / (4 × 125) = 400 kHz with the 8-bit divider.
    m.write(MSDC_CFG::OFFSET, SD_MODE.with_const_ckdiv::<125>().raw());
    assert_eq!(m.bus_clock_hz(), 400_000);
    assert!(!MSDC_CFG::from_raw(m.read(MSDC_CFG::OFFSET)).ckstb());
    m.elapse(models::msdc::controller::CLOCK_SETTLE_NS);
    assert!(MSDC_CFG::from_raw(m.read(MSDC_CFG::OFFSET)).ckstb());
    // DAT0 high: the card is not busy (msdc_card_busy), card present (CDSTS 0).
    let ps = MSDC_PS::from_raw(m.read(MSDC_PS::OFFSET));
    assert_eq!(ps.dat() & 1, 1, "DAT0 high");
    assert!(!ps.cdsts());
    // FIFO clear self-clears.
    m.write(
        MSDC_FIFOCS::OFFSET,
        MSDC_FIFOCS::zeroed().with_clr(true).raw(),
    );
    assert!(MSDC_FIFOCS::from_raw(m.read(MSDC_FIFOCS::OFFSET)).clr());
    assert!(!MSDC_FIFOCS::from_raw(m.read(MSDC_FIFOCS::OFFSET)).clr());
    // W1C and masking: a command to nothing times out.
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut ram = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut ram);
    m.write(SDC_ARG::OFFSET, 0);
    m.write(SDC_CMD::OFFSET, r1_command(13).raw());
    let sts = SDC_STS::from_raw(m.read(SDC_STS::OFFSET));
    assert!(sts.cmdbusy() && !sts.sdcbusy(), "CMDBUSY only");
    m.run(&mut card, &mut mem, 4);
    let sts = SDC_STS::from_raw(m.read(SDC_STS::OFFSET));
    assert!(!sts.cmdbusy() && !sts.sdcbusy());
    let timeout = MSDC_INT::zeroed().with_cmdtmo(true);
    assert_eq!(m.read(MSDC_INT::OFFSET), timeout.raw());
    assert!(!m.interrupt_pending());
    m.write(MSDC_INTEN::OFFSET, timeout.raw());
    assert!(m.interrupt_pending());
    m.write(MSDC_INT::OFFSET, MSDC_INT::zeroed().with_cmdrdy(true).raw());
    assert!(m.interrupt_pending());
    m.write(MSDC_INT::OFFSET, timeout.raw());
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
    m.write(MSDC_CFG::OFFSET, SD_MODE.with_pio(true).raw());
    // CMD17: one 512-byte block.
    m.write(SDC_BLK_NUM::OFFSET, 1);
    m.write(SDC_ARG::OFFSET, 0);
    let read_block = r1_command(17)
        .with_dtype(DataType::Single)
        .with_const_blklen::<512>();
    m.write(SDC_CMD::OFFSET, read_block.raw());
    m.run(&mut card, &mut mem, 4);
    assert!(
        MSDC_INT::from_raw(m.read(MSDC_INT::OFFSET)).cmdtmo(),
        "no response"
    );
    assert_eq!(m.violations().1[0], Some(Violation::PioMode));
}
