// SPDX-License-Identifier: GPL-2.0
//! The SDIO card model behind the MSDC model: the commands of the 7.3 SDIO core's probe,
//! programmed with the response types mtk-sd gives them (R4 as R3, R5 and R6 as R1, CMD7 as
//! R1), reach the card and come back without a violation of the model's response checks.

use models::msdc::controller::CLOCK_SETTLE_NS;
use models::msdc::regs::{ResponseType, MSDC_CFG, MSDC_INT, SDC_ARG, SDC_CMD, SDC_RESP0};
use models::msdc::{ModelConfig, MsdcModel};
use models::sdio::regs::cccr;
use models::sdio::{SdioCard, SdioConfig, SdioState, DEFAULT_RCA};
use models::Ram;

/// Sends `opcode` with `arg` through the legacy registers with response type `rsp`; the
/// interrupt bits it raised (cleared) and `SDC_RESP0`.
fn send(
    m: &mut MsdcModel,
    card: &mut SdioCard<'_>,
    mem: &mut Ram<'_>,
    opcode: u32,
    arg: u32,
    rsp: ResponseType,
) -> (MSDC_INT, u32) {
    m.write(SDC_ARG::OFFSET, arg);
    let word = SDC_CMD::zeroed()
        .try_with_opcode(opcode)
        .and_then(|c| c.try_with_rsptyp(rsp as u32))
        .unwrap();
    m.write(SDC_CMD::OFFSET, word.raw());
    m.run(card, mem, 8);
    let int = MSDC_INT::from_raw(m.read(MSDC_INT::OFFSET));
    m.write(MSDC_INT::OFFSET, int.raw());
    (int, m.read(SDC_RESP0::OFFSET))
}

/// Programs `cfg` and waits for the clock to be stable (CKSTB), as mtk-sd does: 1 µs
/// between two reads.
fn set_clock(m: &mut MsdcModel, cfg: MSDC_CFG) {
    m.write(MSDC_CFG::OFFSET, cfg.raw());
    let polls = CLOCK_SETTLE_NS / 1_000 + 1;
    assert!((0..polls).any(|_| {
        m.elapse(1_000);
        MSDC_CFG::from_raw(m.read(MSDC_CFG::OFFSET)).ckstb()
    }));
}

#[test]
fn probe_commands_through_the_msdc_model() {
    let mut ram = vec![0u8; 0x1_0000];
    let mut card = SdioCard::new(&mut ram, SdioConfig::default());
    let mut buf = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut buf);
    let mut m = MsdcModel::new(ModelConfig::default());
    // SD mode, 400 kHz (200 MHz / (4 × 125)).
    set_clock(
        &mut m,
        MSDC_CFG::zeroed().with_mode(true).with_const_ckdiv::<125>(),
    );
    // sdio_reset's CMD52 and CMD8 to a card that has seen no CMD5: command timeouts.
    let abort_read = cccr::IO_ABORT << 9;
    let (int, _) = send(
        &mut m,
        &mut card,
        &mut mem,
        52,
        abort_read,
        ResponseType::R1,
    );
    assert!(int.cmdtmo());
    send(&mut m, &mut card, &mut mem, 0, 0, ResponseType::None);
    let (int, _) = send(&mut m, &mut card, &mut mem, 8, 0x1AA, ResponseType::R1);
    assert!(int.cmdtmo());
    // CMD5 (R4, programmed as R3: no CRC check) until ready.
    let (int, ocr) = send(&mut m, &mut card, &mut mem, 5, 0, ResponseType::R3);
    assert!(int.cmdrdy() && !int.rspcrcerr());
    assert_eq!(ocr & 0x7000_0000, 0x1000_0000, "one function");
    let mut ready = false;
    for _ in 0..10 {
        let (int, r4) = send(
            &mut m,
            &mut card,
            &mut mem,
            5,
            0x0030_0000,
            ResponseType::R3,
        );
        assert!(int.cmdrdy());
        if r4 & (1 << 31) != 0 {
            ready = true;
            break;
        }
    }
    assert!(ready);
    // CMD3 (R6 as R1), CMD7 (R1).
    let (int, r6) = send(&mut m, &mut card, &mut mem, 3, 0, ResponseType::R1);
    assert!(int.cmdrdy());
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    // 25 MHz once the card has its RCA.
    set_clock(
        &mut m,
        MSDC_CFG::zeroed().with_mode(true).with_const_ckdiv::<2>(),
    );
    let (int, _) = send(
        &mut m,
        &mut card,
        &mut mem,
        7,
        r6 & 0xFFFF_0000,
        ResponseType::R1,
    );
    assert!(int.cmdrdy());
    assert_eq!(card.state(), SdioState::Command);
    // CMD52 (R5 as R1): the CCCR revision.
    let (int, r5) = send(&mut m, &mut card, &mut mem, 52, 0, ResponseType::R1);
    assert!(int.cmdrdy() && !int.rspcrcerr());
    assert_eq!(r5 & 0xFF, 0x43);
    assert_eq!((r5 >> 12) & 3, 1, "IO_CURRENT_STATE CMD");
    // An R5 received as R3 would skip its CRC: the model flags that; none was recorded.
    assert_eq!(m.violations().0, 0, "{:?}", m.violations().1);
}
