// SPDX-License-Identifier: GPL-2.0
//! Tests of the SDIO card model on its own, against the SDIO Simplified Specification and
//! the way Linux 7.3's SDIO core drives a card: the probe sequence (`mmc_rescan_try_freq`,
//! `mmc_attach_sdio`, `sdio_read_cccr`, the CIS walk, high speed, 4-bit bus, block size,
//! `sdio_enable_func`, `sdio_claim_irq`), CMD52 and CMD53 in their modes, the R5 flags,
//! interrupts, I/O abort and reset.

use models::emmc::{CardWork, Command, DataError, NoResponse, Response};
use models::msdc::CardSlot;

mod spec_patterns;
use models::sdio::regs::{cccr, fbr1, func1, tuple, COMMON_CIS, FUNC1_CIS};
use models::sdio::{
    r5, IoState, SdioCard, SdioConfig, SdioState, CMD5_BUSY_POLLS, DEFAULT_RCA, DEVICE_ID,
    ENABLE_POLLS, IO_RW_EXTENDED_ARG, R5, VENDOR_ID,
};
use spec_patterns::PATTERN_4BIT;

const RAM: usize = 0x1_0000;
const RCA: u32 = (DEFAULT_RCA as u32) << 16;
/// The voltage `mmc_select_voltage` leaves for a 3.3 V host: 3.2–3.4 V.
const HOST_OCR: u32 = 0x0030_0000;
/// R4_18V_PRESENT: a UHS-capable host asks for 1.8 V with CMD5.
const S18R: u32 = 1 << 24;
/// The R5 error flags Linux's `mmc_io_rw_direct` fails on.
const R5_ERRORS: u32 = r5::ERROR | r5::FUNCTION_NUMBER | r5::OUT_OF_RANGE;
/// The chunk the MSDC model moves per call.
const CHUNK: usize = 64;

fn cmd(c: &mut SdioCard<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    c.command(Command::new(index, argument))
}

/// The CMD52 argument, as `mmc_io_rw_direct_host` builds it.
fn cmd52_arg(write: bool, function: u32, address: u32, data: u8, raw: bool) -> u32 {
    (u32::from(write) << 31)
        | (function << 28)
        | (u32::from(write && raw) << 27)
        | (address << 9)
        | u32::from(data)
}

/// CMD52; the R5 word.
fn cmd52(
    c: &mut SdioCard<'_>,
    write: bool,
    function: u32,
    address: u32,
    data: u8,
    raw: bool,
) -> Result<u32, NoResponse> {
    match cmd(c, 52, cmd52_arg(write, function, address, data, raw))? {
        Response::R1(v) => Ok(v),
        other => panic!("CMD52 answered {other:?}"),
    }
}

/// `sdio_readb`: the byte, the R5 free of errors.
fn readb(c: &mut SdioCard<'_>, function: u32, address: u32) -> u8 {
    let r = cmd52(c, false, function, address, 0, false).unwrap();
    assert_eq!(r & R5_ERRORS, 0, "read {function}:{address:#x}: {r:#x}");
    r as u8
}

/// `sdio_writeb`.
fn writeb(c: &mut SdioCard<'_>, function: u32, address: u32, value: u8) {
    let r = cmd52(c, true, function, address, value, false).unwrap();
    assert_eq!(r & R5_ERRORS, 0, "write {function}:{address:#x}: {r:#x}");
    assert_eq!(r as u8, value, "echo");
}

/// The CMD53 argument, as `mmc_io_rw_extended` builds it (blocks 0: byte mode of `blksz`).
fn cmd53_arg(write: bool, function: u32, address: u32, incr: bool, blocks: u32, blksz: u32) -> u32 {
    let mut arg = (u32::from(write) << 31) | (function << 28) | (u32::from(incr) << 26);
    arg |= address << 9;
    if blocks == 0 {
        arg |= if blksz == 512 { 0 } else { blksz };
    } else {
        arg |= (1 << 27) | blocks;
    }
    arg
}

/// `mmc_io_rw_extended` for the CMD53 argument `arg` (see [`cmd53_arg`]), with the data
/// phase of `buf` in the MSDC model's chunks.
fn rw_extended(c: &mut SdioCard<'_>, arg: u32, buf: &mut [u8]) -> Result<(), String> {
    let write = IO_RW_EXTENDED_ARG::from_raw(arg).write();
    let r = cmd(c, 53, arg)
        .map_err(|_| "no response".to_string())?
        .value();
    for chunk in buf.chunks_mut(CHUNK) {
        let moved = if write {
            c.write_data(chunk)
        } else {
            c.read_data(chunk)
        };
        moved.map_err(|e| format!("data: {e:?} (R5 {r:#x})"))?;
    }
    if r & R5_ERRORS != 0 {
        return Err(format!("R5 {r:#x}"));
    }
    Ok(())
}

/// `sdio_io_rw_ext_helper` for a card with SMB and a function whose `cur_blksize` and
/// `max_blksize` are `blksz` (the host allows 511 blocks of up to 2048 bytes): the commands'
/// (blocks, blksz) in order.
fn rw_helper(
    c: &mut SdioCard<'_>,
    write: bool,
    address: u32,
    incr: bool,
    buf: &mut [u8],
    blksz: u32,
) -> Vec<(u32, u32)> {
    let max_byte = blksz.min(512);
    let mut sent = Vec::new();
    let (mut at, mut addr) = (0usize, address);
    let mut remainder = buf.len() as u32;
    if remainder > max_byte {
        while remainder >= blksz {
            let blocks = (remainder / blksz).min(511);
            let size = blocks * blksz;
            let part = &mut buf[at..at + size as usize];
            rw_extended(c, cmd53_arg(write, 1, addr, incr, blocks, blksz), part).unwrap();
            sent.push((blocks, blksz));
            remainder -= size;
            at += size as usize;
            if incr {
                addr += size;
            }
        }
    }
    while remainder > 0 {
        let size = remainder.min(max_byte);
        let part = &mut buf[at..at + size as usize];
        rw_extended(c, cmd53_arg(write, 1, addr, incr, 0, size), part).unwrap();
        sent.push((0, size));
        remainder -= size;
        at += size as usize;
        if incr {
            addr += size;
        }
    }
    sent
}

/// What the CIS walk (`sdio_read_cis`) found.
#[derive(Debug, Default)]
struct Cis {
    vendor: Option<(u16, u16)>,
    funcid: Option<u8>,
    /// Function 0's FUNCE: block size and TPLFE_MAX_TRAN_SPEED in Hz.
    fn0: Option<(u16, u32)>,
    /// A function's FUNCE: its size, max block size and enable timeout in ms.
    func: Option<(usize, u16, u32)>,
}

/// Walks the CIS whose pointer is at function 0 address `pointer`, with CMD52 reads.
fn read_cis(c: &mut SdioCard<'_>, pointer: u32) -> Cis {
    const SPEED_VAL: [u32; 16] = [
        0, 10, 12, 13, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 70, 80,
    ];
    const SPEED_UNIT: [u32; 8] = [10_000, 100_000, 1_000_000, 10_000_000, 0, 0, 0, 0];
    let mut ptr = 0u32;
    for i in 0..3 {
        ptr |= u32::from(readb(c, 0, pointer + i)) << (i * 8);
    }
    let mut cis = Cis::default();
    for _ in 0..64 {
        let code = readb(c, 0, ptr);
        ptr += 1;
        if code == tuple::END {
            return cis;
        }
        if code == 0 {
            continue;
        }
        let link = readb(c, 0, ptr);
        ptr += 1;
        assert_ne!(link, 0xFF);
        let body: Vec<u8> = (0..u32::from(link)).map(|i| readb(c, 0, ptr + i)).collect();
        match code {
            tuple::MANFID => {
                assert!(body.len() >= 4);
                let v = u16::from_le_bytes([body[0], body[1]]);
                let d = u16::from_le_bytes([body[2], body[3]]);
                cis.vendor = Some((v, d));
            }
            tuple::FUNCID => cis.funcid = Some(body[0]),
            tuple::FUNCE if body[0] == 0 => {
                assert!(body.len() >= 4);
                let blk = u16::from_le_bytes([body[1], body[2]]);
                let speed = body[3];
                let hz =
                    SPEED_VAL[usize::from((speed >> 3) & 15)] * SPEED_UNIT[usize::from(speed & 7)];
                cis.fn0 = Some((blk, hz));
            }
            tuple::FUNCE if body[0] == 1 => {
                let blk = u16::from_le_bytes([body[12], body[13]]);
                let timeout = u32::from(u16::from_le_bytes([body[28], body[29]])) * 10;
                cis.func = Some((body.len(), blk, timeout));
            }
            other => panic!("unexpected tuple {other:#x}"),
        }
        ptr += u32::from(link);
    }
    panic!("CIS without CISTPL_END");
}

/// `sdio_reset`: read IO_ABORT, set RES, write it (both may go unanswered).
fn sdio_reset(c: &mut SdioCard<'_>) -> (Result<u32, NoResponse>, Result<u32, NoResponse>) {
    let read = cmd52(c, false, 0, cccr::IO_ABORT, 0, false);
    let abort = match read {
        Ok(r) if r & R5_ERRORS == 0 => (r as u8) | 0x08,
        _ => 0x08,
    };
    (read, cmd52(c, true, 0, cccr::IO_ABORT, abort, false))
}

/// CMD5 with `ocr` until the card is ready (`mmc_send_io_op_cond`); the last R4 and the
/// polls it took.
fn io_op_cond(c: &mut SdioCard<'_>, ocr: u32) -> (u32, u32) {
    for i in 1..=100 {
        let r = match cmd(c, 5, ocr).unwrap() {
            Response::R3(v) => v,
            other => panic!("CMD5 answered {other:?}"),
        };
        if r & (1 << 31) != 0 {
            return (r, i);
        }
    }
    panic!("CMD5 never ready");
}

/// What the probe learned.
#[derive(Debug)]
struct Probe {
    cccr_vsn: u8,
    sdio_vsn: u8,
    multi_block: bool,
    high_speed: bool,
    common: Cis,
    func: Cis,
    enable_polls: u32,
}

/// The 7.3 core's probe of a fresh card on a UHS-capable host, then a function driver's
/// `sdio_enable_func` and `sdio_claim_irq`.
fn linux_probe(c: &mut SdioCard<'_>) -> Probe {
    // mmc_rescan_try_freq: sdio_reset, CMD0, CMD8: the card has seen no CMD5 and is silent.
    let (read, write) = sdio_reset(c);
    assert_eq!((read, write), (Err(NoResponse), Err(NoResponse)));
    assert_eq!(cmd(c, 0, 0), Err(NoResponse));
    assert_eq!(cmd(c, 8, 0x1AA), Err(NoResponse));
    // mmc_attach_sdio: CMD5 inquiry.
    let Response::R3(ocr) = cmd(c, 5, 0).unwrap() else {
        panic!("R4 expected")
    };
    assert_eq!((ocr >> 28) & 7, 1, "one function");
    assert_eq!(ocr & (1 << 27), 0, "no memory");
    assert_eq!(ocr & 0x00FF_FFFF, 0x00FF_8000, "2.7-3.6 V");
    assert_eq!(ocr & (1 << 31), 0, "an inquiry starts no power-up");
    assert_eq!(c.take_work(), CardWork::None);
    // mmc_sdio_init_card: CMD5 with the voltage and S18R until ready.
    let (rocr, polls) = io_op_cond(c, HOST_OCR | S18R);
    assert_eq!(polls, CMD5_BUSY_POLLS + 1);
    assert_eq!(rocr & S18R, 0, "no 1.8 V: S18A clear");
    assert_eq!(c.take_work(), CardWork::PowerUp);
    assert_eq!(c.max_clock_hz(), 400_000);
    // CMD3, CMD7.
    let rca = cmd(c, 3, 0).unwrap().value() >> 16;
    assert_eq!(rca, u32::from(DEFAULT_RCA));
    assert_eq!(c.max_clock_hz(), 25_000_000);
    assert!(matches!(cmd(c, 7, rca << 16), Ok(Response::R1b(0))));
    assert_eq!(c.state(), SdioState::Command);
    // sdio_read_cccr.
    let rev = readb(c, 0, cccr::REVISION);
    let (cccr_vsn, sdio_vsn) = (rev & 0x0F, rev >> 4);
    assert!(cccr_vsn <= 3, "a CCCR revision Linux knows");
    let caps = readb(c, 0, cccr::CAPABILITY);
    let multi_block = caps & 0x02 != 0;
    assert_eq!(caps & 0xC0, 0, "not a low-speed card");
    assert_ne!(readb(c, 0, cccr::POWER_CONTROL) & 0x01, 0, "SMPC");
    let speed = readb(c, 0, cccr::BUS_SPEED);
    let mut uhs = 0;
    if cccr_vsn >= 3 {
        uhs = readb(c, 0, cccr::UHS_SUPPORT);
        assert_eq!(readb(c, 0, cccr::DRIVER_STRENGTH) & 0x07, 0, "type B only");
        // sdio_read_cccr: SAI, so the core sets EAI (the asynchronous interrupt).
        let ext = readb(c, 0, cccr::INTERRUPT_EXT);
        assert_eq!(ext, cccr::INT_EXT_SAI, "SAI, not yet enabled");
        writeb(c, 0, cccr::INTERRUPT_EXT, ext | cccr::INT_EXT_EAI);
        assert_eq!(
            readb(c, 0, cccr::INTERRUPT_EXT),
            cccr::INT_EXT_SAI | cccr::INT_EXT_EAI
        );
        assert!(c.async_interrupt_enabled());
    }
    assert_eq!(uhs, 0, "no UHS-I mode: the core takes the high-speed path");
    let high_speed = speed & 0x01 != 0;
    // sdio_read_common_cis.
    let common = read_cis(c, cccr::CIS_POINTER);
    // sdio_enable_hs.
    if high_speed {
        let s = readb(c, 0, cccr::BUS_SPEED);
        writeb(c, 0, cccr::BUS_SPEED, s | 0x02);
    }
    // sdio_enable_4bit_bus (sdio_enable_wide).
    let ctrl = readb(c, 0, cccr::BUS_INTERFACE);
    assert_ne!(ctrl & 0x03, 0x01, "SDIO_CCCR_IF is valid");
    writeb(c, 0, cccr::BUS_INTERFACE, (ctrl & !0x03) | 0x02);
    // sdio_init_func(1): sdio_read_fbr, sdio_read_func_cis.
    assert_eq!(
        readb(c, 0, fbr1::STD_INTERFACE) & 0x0F,
        0,
        "no standard class"
    );
    let func = read_cis(c, fbr1::CIS_POINTER);
    // sdio_bus_probe: sdio_set_block_size(func, 0) = min(max_blksize, host, 512).
    let blksz = func.func.unwrap().1.min(512);
    writeb(c, 0, fbr1::BLOCK_SIZE, blksz as u8);
    writeb(c, 0, fbr1::BLOCK_SIZE + 1, (blksz >> 8) as u8);
    // The driver: sdio_enable_func.
    let ioe = readb(c, 0, cccr::IO_ENABLE);
    writeb(c, 0, cccr::IO_ENABLE, ioe | 0x02);
    let mut enable_polls = 0;
    loop {
        enable_polls += 1;
        if readb(c, 0, cccr::IO_READY) & 0x02 != 0 {
            break;
        }
        assert!(enable_polls < 100);
    }
    // sdio_claim_irq.
    let ien = readb(c, 0, cccr::INT_ENABLE);
    writeb(c, 0, cccr::INT_ENABLE, ien | 0x02 | 0x01);
    Probe {
        cccr_vsn,
        sdio_vsn,
        multi_block,
        high_speed,
        common,
        func,
        enable_polls,
    }
}

/// A card brought through the probe with default settings.
fn probed(ram: &mut [u8]) -> SdioCard<'_> {
    let mut c = SdioCard::new(ram, SdioConfig::default());
    linux_probe(&mut c);
    c
}

/// A card selected (CMD5, CMD3, CMD7) but with nothing enabled.
fn selected(ram: &mut [u8], config: SdioConfig) -> SdioCard<'_> {
    let mut c = SdioCard::new(ram, config);
    cmd(&mut c, 5, 0).unwrap();
    io_op_cond(&mut c, HOST_OCR);
    cmd(&mut c, 3, 0).unwrap();
    cmd(&mut c, 7, RCA).unwrap();
    c
}

#[test]
fn linux_probe_sequence() {
    let mut ram = vec![0u8; RAM];
    let mut c = SdioCard::new(&mut ram, SdioConfig::default());
    let p = linux_probe(&mut c);
    assert_eq!((p.cccr_vsn, p.sdio_vsn), (3, 4), "CCCR 3.00, SDIO 3.00");
    assert!(p.multi_block && p.high_speed);
    assert_eq!(p.common.vendor, Some((VENDOR_ID, DEVICE_ID)));
    assert_eq!(p.common.funcid, Some(0x0C));
    assert_eq!(p.common.fn0, Some((512, 25_000_000)));
    // cistpl_funce_func wants 42 bytes for SDIO 1.10 and later.
    assert_eq!(p.func.func, Some((42, 512, 1000)));
    assert_eq!(p.func.vendor, None, "the core copies the card's IDs");
    assert_eq!(p.enable_polls, ENABLE_POLLS + 1);
    assert_eq!(c.bus_width(), 4);
    assert_eq!(c.max_clock_hz(), 50_000_000);
    assert_eq!(readb(&mut c, 0, fbr1::BLOCK_SIZE), 0x00);
    assert_eq!(readb(&mut c, 0, fbr1::BLOCK_SIZE + 1), 0x02);
    assert_eq!(readb(&mut c, 0, cccr::INT_ENABLE), 0x03);
    // The CIS pointers.
    let ptr = |c: &mut SdioCard<'_>, at: u32| {
        (0..3).fold(0u32, |p, i| p | u32::from(readb(c, 0, at + i)) << (8 * i))
    };
    assert_eq!(ptr(&mut c, cccr::CIS_POINTER), COMMON_CIS);
    assert_eq!(ptr(&mut c, fbr1::CIS_POINTER), FUNC1_CIS);
    // The chosen IDs bind no in-tree driver; the WILC1000 pair would.
    assert_ne!((VENDOR_ID, DEVICE_ID), (0x0296, 0x5347));
}

#[test]
fn linux_reinit_after_select() {
    // mmc_sdio_pre_init on a card that is in use: sdio_reset now lands (RES), CMD0, CMD8,
    // CMD5 inquiry, then the full init again.
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    writeb(&mut c, 1, 0x10, 0xAB);
    let (read, write) = sdio_reset(&mut c);
    assert_eq!(read.unwrap() & 0xFF, 0, "IO_ABORT reads 0");
    assert!(write.is_ok());
    assert_eq!(c.state(), SdioState::Idle);
    assert_eq!(c.stats().resets, 1);
    assert_eq!(cmd(&mut c, 0, 0), Err(NoResponse));
    assert_eq!(cmd(&mut c, 8, 0x1AA), Err(NoResponse));
    assert_eq!(cmd52(&mut c, false, 0, 0, 0, false), Err(NoResponse));
    let p = linux_probe(&mut c);
    assert_eq!(p.common.vendor, Some((VENDOR_ID, DEVICE_ID)));
    assert_eq!(c.ram()[0x10], 0xAB, "the RAM window keeps its contents");
}

#[test]
fn cmd5_voltage_and_busy() {
    let mut ram = vec![0u8; RAM];
    let config = SdioConfig {
        busy_polls: 5,
        ..SdioConfig::default()
    };
    let mut c = SdioCard::new(&mut ram, config);
    // Nothing but CMD5 is answered before the first CMD5.
    assert_eq!(cmd(&mut c, 3, 0), Err(NoResponse));
    assert_eq!(cmd(&mut c, 5, HOST_OCR).map(|r| r.value() >> 31), Ok(0));
    assert_eq!(c.state(), SdioState::Init);
    // Not ready: CMD3 is illegal, and so is CMD52.
    assert_eq!(cmd(&mut c, 3, 0), Err(NoResponse));
    assert_eq!(cmd52(&mut c, false, 0, 0, 0, false), Err(NoResponse));
    let (_, polls) = io_op_cond(&mut c, HOST_OCR);
    assert_eq!(polls, 5);
    // The illegal commands are reported by the next R6, then cleared.
    let r6 = cmd(&mut c, 3, 0).unwrap().value();
    assert_ne!(r6 & (1 << 14), 0, "ILLEGAL_COMMAND in R6");
    assert_eq!(cmd(&mut c, 3, 0).unwrap().value(), RCA, "cleared, same RCA");
    // CMD5 after init answers ready and changes nothing.
    assert_eq!(cmd(&mut c, 5, HOST_OCR).map(|r| r.value() >> 31), Ok(1));
    assert_eq!(c.state(), SdioState::Standby);
    // A window that misses the card's: inactive.
    let mut ram2 = vec![0u8; 16];
    let mut c = SdioCard::new(&mut ram2, SdioConfig::default());
    assert_eq!(cmd(&mut c, 5, 0x0000_0080), Err(NoResponse));
    assert_eq!(c.state(), SdioState::Inactive);
    assert_eq!(cmd(&mut c, 5, HOST_OCR), Err(NoResponse));
    c.power_cycle();
    assert_eq!(c.state(), SdioState::Idle);
    assert!(cmd(&mut c, 5, HOST_OCR).is_ok());
}

#[test]
fn select_deselect_and_inactive() {
    let mut ram = vec![0u8; RAM];
    let mut c = selected(&mut ram, SdioConfig::default());
    // mmc_sdio_alive: CMD7 to the selected card answers.
    assert!(cmd(&mut c, 7, RCA).is_ok());
    assert_eq!(c.state(), SdioState::Command);
    // R5 IO_CURRENT_STATE: CMD when selected.
    let r = R5::from_raw(cmd52(&mut c, false, 0, 0, 0, false).unwrap());
    assert_eq!(r.io_current_state(), Some(IoState::Command));
    // Deselect (RCA 0): no response, stand-by; CMD52 still answers, DIS.
    assert_eq!(cmd(&mut c, 7, 0), Err(NoResponse));
    assert_eq!(c.state(), SdioState::Standby);
    let r = R5::from_raw(cmd52(&mut c, false, 0, 0, 0, false).unwrap());
    assert_eq!(r.io_current_state(), Some(IoState::Disabled));
    // CMD53 needs the selected card.
    assert_eq!(
        cmd(&mut c, 53, cmd53_arg(false, 0, 0, true, 0, 4)),
        Err(NoResponse)
    );
    let r = cmd52(&mut c, false, 0, 0, 0, false).unwrap();
    assert_ne!(r & r5::ILLEGAL_COMMAND, 0, "reported once");
    let r = cmd52(&mut c, false, 0, 0, 0, false).unwrap();
    assert_eq!(r & r5::ILLEGAL_COMMAND, 0, "then cleared");
    // Another card's RCA: ignored.
    assert_eq!(cmd(&mut c, 7, 0x1234 << 16), Err(NoResponse));
    assert_eq!(c.state(), SdioState::Standby);
    assert!(cmd(&mut c, 7, RCA).is_ok());
    // CMD15: inactive.
    assert_eq!(cmd(&mut c, 15, RCA), Err(NoResponse));
    assert_eq!(c.state(), SdioState::Inactive);
    assert_eq!(cmd52(&mut c, false, 0, 0, 0, false), Err(NoResponse));
}

#[test]
fn cmd52_read_write_and_raw() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    let before = c.stats().direct;
    // Without RAW the response echoes the byte; with RAW it reads back.
    writeb(&mut c, 1, func1::SCRATCH, 0x5A);
    assert_eq!(readb(&mut c, 1, func1::SCRATCH), 0x5A);
    let r = cmd52(&mut c, true, 1, func1::SCRATCH, 0xC3, true).unwrap();
    assert_eq!(r & 0xFF, 0xC3);
    // A read-only register: the write is dropped, RAW shows what is there.
    let r = cmd52(&mut c, true, 1, func1::ID, 0x00, true).unwrap();
    assert_eq!(r & 0xFF, u32::from(func1::ID_VALUE));
    let r = cmd52(&mut c, true, 0, cccr::REVISION, 0x00, true).unwrap();
    assert_eq!(r & 0xFF, 0x43);
    // RAM through CMD52.
    writeb(&mut c, 1, 0xFFFF, 0x77);
    assert_eq!(readb(&mut c, 1, 0xFFFF), 0x77);
    assert_eq!(c.ram()[0xFFFF], 0x77);
    // CCCR fields: the reserved 01b bus width is not taken, CD disable is kept.
    let r = cmd52(&mut c, true, 0, cccr::BUS_INTERFACE, 0x81, true).unwrap();
    assert_eq!(r & 0xFF, 0x82, "width stays 4-bit, CD disable set");
    assert_eq!(c.bus_width(), 4);
    // E4MI and EMPC are writable, the rest of those registers not.
    let r = cmd52(&mut c, true, 0, cccr::CAPABILITY, 0xFF, true).unwrap();
    assert_eq!(
        r & 0xFF,
        u32::from(cccr::CAP_SMB | cccr::CAP_S4MI | cccr::CAP_E4MI)
    );
    let r = cmd52(&mut c, true, 0, cccr::POWER_CONTROL, 0xFF, true).unwrap();
    assert_eq!(r & 0xFF, 0x03);
    // FN0 block size.
    writeb(&mut c, 0, cccr::FN0_BLOCK_SIZE, 0x40);
    writeb(&mut c, 0, cccr::FN0_BLOCK_SIZE + 1, 0x00);
    assert_eq!(readb(&mut c, 0, cccr::FN0_BLOCK_SIZE), 0x40);
    assert_eq!(c.stats().direct - before, 13, "CMD52s counted");
}

#[test]
fn r5_error_flags() {
    let mut ram = vec![0u8; 0x1000];
    let mut c = selected(&mut ram, SdioConfig::default());
    // Function 1 not enabled: ERROR (Linux: -EIO).
    let r = cmd52(&mut c, false, 1, 0, 0, false).unwrap();
    assert_eq!(r & R5_ERRORS, r5::ERROR);
    writeb(&mut c, 0, cccr::IO_ENABLE, 0x02);
    while readb(&mut c, 0, cccr::IO_READY) & 0x02 == 0 {}
    // Functions 2..7 do not exist: FUNCTION_NUMBER (Linux: -EINVAL).
    for f in 2..8 {
        let r = cmd52(&mut c, false, f, 0, 0, false).unwrap();
        assert_eq!(r & R5_ERRORS, r5::FUNCTION_NUMBER, "function {f}");
        let r = cmd(&mut c, 53, cmd53_arg(false, f, 0, true, 0, 4))
            .unwrap()
            .value();
        assert_eq!(r & R5_ERRORS, r5::FUNCTION_NUMBER);
        assert_eq!(
            c.read_data(&mut [0; 4]),
            Err(DataError::NoTransfer),
            "no data phase"
        );
    }
    // Beyond the 4 KiB RAM, and beyond the control registers: OUT_OF_RANGE (-ERANGE).
    for addr in [0x1000, 0xFFFF, func1::CONTROL_END, 0x1_FFFF] {
        let r = cmd52(&mut c, false, 1, addr, 0, false).unwrap();
        assert_eq!(r & R5_ERRORS, r5::OUT_OF_RANGE, "{addr:#x}");
    }
    // A CMD53 range that leaves the RAM.
    let r = cmd(&mut c, 53, cmd53_arg(false, 1, 0xFF0, true, 0, 32))
        .unwrap()
        .value();
    assert_eq!(r & R5_ERRORS, r5::OUT_OF_RANGE);
    assert_eq!(c.state(), SdioState::Command);
    assert_eq!(c.read_data(&mut [0; 32]), Err(DataError::NoTransfer));
    // Function 0 answers anywhere in its 17-bit space (reserved bytes read 0).
    assert_eq!(readb(&mut c, 0, 0x1_FFFF), 0);
    assert_eq!(readb(&mut c, 0, 0x200), 0, "function 2's FBR: absent");
    // The flags are at the positions Linux tests.
    assert_eq!(
        (r5::ERROR, r5::FUNCTION_NUMBER, r5::OUT_OF_RANGE),
        (1 << 11, 1 << 9, 1 << 8)
    );
    assert_eq!((r5::COM_CRC_ERROR, r5::ILLEGAL_COMMAND), (1 << 15, 1 << 14));
}

#[test]
fn cmd53_byte_mode_incrementing() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    let mut data: Vec<u8> = (0..100u32).map(|i| (i * 7) as u8).collect();
    rw_extended(&mut c, cmd53_arg(true, 1, 0x1234, true, 0, 100), &mut data).unwrap();
    assert_eq!(&c.ram()[0x1234..0x1234 + 100], &data[..]);
    assert_eq!(
        c.state(),
        SdioState::Command,
        "the last byte ends the transfer"
    );
    let mut back = vec![0u8; 100];
    rw_extended(&mut c, cmd53_arg(false, 1, 0x1234, true, 0, 100), &mut back).unwrap();
    assert_eq!(back, data);
    // Count 0 is 512 bytes.
    c.ram_mut()[..512].fill(0xEE);
    let mut buf = vec![0u8; 512];
    rw_extended(&mut c, cmd53_arg(false, 1, 0, true, 0, 512), &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0xEE));
    // The R5 of a CMD53 that starts its data phase reports TRN.
    let r = R5::from_raw(
        cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 0, 2))
            .unwrap()
            .value(),
    );
    assert_eq!(r.io_current_state(), Some(IoState::Transfer));
    assert_eq!(c.data_remaining(), 2);
    // More than is left: Overrun, nothing moved; the rest still comes.
    assert_eq!(c.read_data(&mut [0; 3]), Err(DataError::Overrun));
    assert_eq!(
        c.write_data(&[0; 2]),
        Err(DataError::NoTransfer),
        "wrong direction"
    );
    c.read_data(&mut [0; 2]).unwrap();
    assert_eq!(c.read_data(&mut [0; 1]), Err(DataError::NoTransfer));
    // Function 0 through CMD53: the common CIS.
    let mut cis = vec![0u8; 6];
    rw_extended(
        &mut c,
        cmd53_arg(false, 0, COMMON_CIS, true, 0, 6),
        &mut cis,
    )
    .unwrap();
    let [vl, vh] = VENDOR_ID.to_le_bytes();
    let [dl, dh] = DEVICE_ID.to_le_bytes();
    assert_eq!(cis, [tuple::MANFID, 4, vl, vh, dl, dh]);
}

#[test]
fn cmd53_block_mode() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    let mut data: Vec<u8> = (0..3 * 512u32).map(|i| (i % 251) as u8).collect();
    rw_extended(&mut c, cmd53_arg(true, 1, 0x200, true, 3, 512), &mut data).unwrap();
    assert_eq!(&c.ram()[0x200..0x200 + 3 * 512], &data[..]);
    let mut back = vec![0u8; 3 * 512];
    rw_extended(&mut c, cmd53_arg(false, 1, 0x200, true, 3, 512), &mut back).unwrap();
    assert_eq!(back, data);
    assert_eq!(c.stats().extended, 2);
    // The block size is the FBR's: 64-byte blocks after a change.
    writeb(&mut c, 0, fbr1::BLOCK_SIZE, 64);
    writeb(&mut c, 0, fbr1::BLOCK_SIZE + 1, 0);
    let r = cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 5, 64))
        .unwrap()
        .value();
    assert_eq!(r & R5_ERRORS, 0);
    assert_eq!(c.data_remaining(), 5 * 64);
    let mut buf = vec![0u8; 5 * 64];
    c.read_data(&mut buf).unwrap();
    assert_eq!(c.state(), SdioState::Command);
    // A block size of 0 or above 512: ERROR, no data phase.
    for size in [0u16, 1024] {
        writeb(&mut c, 0, fbr1::BLOCK_SIZE, size as u8);
        writeb(&mut c, 0, fbr1::BLOCK_SIZE + 1, (size >> 8) as u8);
        let r = cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 1, 512))
            .unwrap()
            .value();
        assert_eq!(r & R5_ERRORS, r5::ERROR, "block size {size}");
        assert_eq!(c.state(), SdioState::Command);
    }
    // Function 0 block mode uses the FN0 block size (0 until set).
    let r = cmd(&mut c, 53, cmd53_arg(false, 0, 0, true, 1, 16))
        .unwrap()
        .value();
    assert_eq!(r & R5_ERRORS, r5::ERROR);
    writeb(&mut c, 0, cccr::FN0_BLOCK_SIZE, 16);
    let mut cccr_bytes = vec![0u8; 32];
    rw_extended(&mut c, cmd53_arg(false, 0, 0, true, 2, 16), &mut cccr_bytes).unwrap();
    assert_eq!(cccr_bytes[0], 0x43);
    assert_eq!(cccr_bytes[cccr::FN0_BLOCK_SIZE as usize], 16);
    // Block mode's argument: bit 27 and the count.
    let a = IO_RW_EXTENDED_ARG::from_raw(cmd53_arg(true, 1, 0x1_0000, false, 7, 512));
    assert!(a.write() && a.block_mode() && !a.increment());
    assert_eq!((a.function(), a.address(), a.count()), (1, 0x1_0000, 7));
}

#[test]
fn transfers_larger_than_a_block() {
    // sdio_memcpy_toio/fromio of 64 KiB with 512-byte blocks: one block-mode CMD53 of 128
    // blocks; 1500 bytes: 2 blocks, then 476 bytes in byte mode.
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    let mut data: Vec<u8> = (0..RAM as u32).map(|i| (i ^ (i >> 8)) as u8).collect();
    assert_eq!(
        rw_helper(&mut c, true, 0, true, &mut data, 512),
        [(128, 512)]
    );
    assert_eq!(c.ram(), &data[..]);
    let mut back = vec![0u8; RAM];
    assert_eq!(
        rw_helper(&mut c, false, 0, true, &mut back, 512),
        [(128, 512)]
    );
    assert_eq!(back, data);
    let mut part = vec![0u8; 1500];
    let sent = rw_helper(&mut c, false, 0x8000, true, &mut part, 512);
    assert_eq!(sent, [(2, 512), (0, 476)]);
    assert_eq!(part, data[0x8000..0x8000 + 1500]);
    // A small function block size: byte mode is limited to it too.
    writeb(&mut c, 0, fbr1::BLOCK_SIZE, 64);
    writeb(&mut c, 0, fbr1::BLOCK_SIZE + 1, 0);
    let sent = rw_helper(&mut c, false, 0x100, true, &mut part, 64);
    assert_eq!(sent, [(23, 64), (0, 28)]);
    assert_eq!(part, data[0x100..0x100 + 1500]);
}

#[test]
fn cmd53_fixed_address() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    // The FIFO port: a fixed-address write fills it, a fixed-address read drains it.
    let mut data: Vec<u8> = (1..=40).collect();
    rw_extended(
        &mut c,
        cmd53_arg(true, 1, func1::FIFO, false, 0, 40),
        &mut data,
    )
    .unwrap();
    assert_eq!(readb(&mut c, 1, func1::FIFO_LEVEL), 40);
    let mut back = vec![0u8; 40];
    rw_extended(
        &mut c,
        cmd53_arg(false, 1, func1::FIFO, false, 0, 40),
        &mut back,
    )
    .unwrap();
    assert_eq!(back, data);
    assert_eq!(readb(&mut c, 1, func1::FIFO_LEVEL), 0);
    assert_eq!(readb(&mut c, 1, func1::FIFO), 0, "empty reads 0");
    // A full FIFO drops what comes on.
    let mut many = vec![0xAA; 128];
    rw_extended(
        &mut c,
        cmd53_arg(true, 1, func1::FIFO, false, 0, 128),
        &mut many,
    )
    .unwrap();
    assert_eq!(
        readb(&mut c, 1, func1::FIFO_LEVEL) as usize,
        func1::FIFO_DEPTH
    );
    // A fixed RAM address reads the same byte again and again; a write leaves the last.
    c.ram_mut()[0x40] = 0x99;
    let mut same = vec![0u8; 8];
    rw_extended(&mut c, cmd53_arg(false, 1, 0x40, false, 0, 8), &mut same).unwrap();
    assert_eq!(same, [0x99; 8]);
    let mut seq: Vec<u8> = (0..8).collect();
    rw_extended(&mut c, cmd53_arg(true, 1, 0x41, false, 0, 8), &mut seq).unwrap();
    assert_eq!(c.ram()[0x41], 7);
    assert_eq!(c.ram()[0x42], 0);
    // Fixed address at the last RAM byte: in range, whatever the count.
    let r = cmd(&mut c, 53, cmd53_arg(false, 1, 0xFFFF, false, 0, 512))
        .unwrap()
        .value();
    assert_eq!(r & R5_ERRORS, 0);
    c.read_data(&mut [0; 512]).unwrap();
}

#[test]
fn interrupts_raised_acked_and_masked() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    assert!(!c.sdio_interrupt());
    assert_eq!(c.data_lines(), 0xF);
    // The function driver's test register raises cause bits.
    writeb(&mut c, 1, func1::INT_TRIGGER, 0x05);
    assert!(c.sdio_interrupt());
    assert_eq!(c.data_lines(), 0xD, "DAT1 low");
    assert_eq!(readb(&mut c, 0, cccr::INT_PENDING), 0x02);
    // The handler reads the causes and acknowledges one: still pending.
    assert_eq!(readb(&mut c, 1, func1::INT_STATUS), 0x05);
    writeb(&mut c, 1, func1::INT_STATUS, 0x01);
    assert!(c.sdio_interrupt());
    writeb(&mut c, 1, func1::INT_STATUS, 0x04);
    assert!(!c.sdio_interrupt());
    assert_eq!(readb(&mut c, 0, cccr::INT_PENDING), 0);
    // Masked by IENM or IEN1: not signalled, INT_PENDING still shows it.
    c.raise_interrupt(0x80);
    writeb(&mut c, 0, cccr::INT_ENABLE, 0x02);
    assert!(!c.sdio_interrupt());
    assert_eq!(readb(&mut c, 0, cccr::INT_PENDING), 0x02);
    writeb(&mut c, 0, cccr::INT_ENABLE, 0x01);
    assert!(!c.sdio_interrupt());
    writeb(&mut c, 0, cccr::INT_ENABLE, 0x03);
    assert!(c.sdio_interrupt());
    // During a 4-bit data phase DAT1 carries data; in 1-bit mode it stays the IRQ line.
    cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 0, 8)).unwrap();
    assert!(!c.sdio_interrupt());
    c.read_data(&mut [0; 8]).unwrap();
    assert!(c.sdio_interrupt());
    writeb(&mut c, 0, cccr::BUS_INTERFACE, 0x00);
    assert_eq!(c.bus_width(), 1);
    cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 0, 8)).unwrap();
    assert!(c.sdio_interrupt());
    c.read_data(&mut [0; 8]).unwrap();
    // sdio_disable_func resets the function: the causes go.
    writeb(&mut c, 0, cccr::IO_ENABLE, 0x00);
    assert_eq!(readb(&mut c, 0, cccr::IO_READY), 0);
    assert_eq!(c.int_status(), 0);
    assert!(!c.sdio_interrupt());
    // Through the slot interface too.
    let slot: &mut dyn CardSlot = &mut c;
    assert!(!slot.sdio_interrupt());
    assert_eq!(slot.data_lines(), 0xF);
}

#[test]
fn io_abort_ends_a_transfer() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    // Four blocks, the host takes one and stops.
    cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 4, 512)).unwrap();
    c.read_data(&mut [0; 512]).unwrap();
    assert_eq!(c.state(), SdioState::Transfer);
    // Only the abort is taken while the transfer runs.
    assert_eq!(
        cmd52(&mut c, false, 0, cccr::INT_PENDING, 0, false),
        Err(NoResponse)
    );
    assert_eq!(
        cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 0, 4)),
        Err(NoResponse)
    );
    // An abort of another function leaves it running.
    let r = cmd52(&mut c, true, 0, cccr::IO_ABORT, 0x02, false).unwrap();
    assert_ne!(
        r & r5::ILLEGAL_COMMAND,
        0,
        "the refused commands are reported"
    );
    assert_eq!(c.state(), SdioState::Transfer);
    let r = R5::from_raw(cmd52(&mut c, true, 0, cccr::IO_ABORT, 0x01, false).unwrap());
    assert_eq!(r.io_current_state(), Some(IoState::Command));
    assert_eq!(c.state(), SdioState::Command);
    assert_eq!(c.data_remaining(), 0);
    assert_eq!(c.read_data(&mut [0; 512]), Err(DataError::NoTransfer));
    assert_eq!(c.stats().aborts, 1);
    // An open-ended block read (count 0) runs until the abort.
    c.ram_mut()[..512].fill(0x3C);
    cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 0, 512) | (1 << 27)).unwrap();
    assert_eq!(c.data_remaining(), usize::MAX);
    let mut block = [0u8; 512];
    for _ in 0..10 {
        c.read_data(&mut block).unwrap();
    }
    writeb(&mut c, 0, cccr::IO_ABORT, 0x01);
    assert_eq!(c.state(), SdioState::Command);
    // One that reaches the end of the space stops with Overrun.
    cmd(
        &mut c,
        53,
        cmd53_arg(false, 1, 0xFE00, true, 0, 512) | (1 << 27),
    )
    .unwrap();
    c.read_data(&mut block).unwrap();
    c.read_data(&mut [0; 6]).unwrap();
    assert_eq!(
        c.read_data(&mut [0; 1]),
        Err(DataError::Overrun),
        "0x10006 is unmapped"
    );
    assert_eq!(c.state(), SdioState::Command);
    // Disabling the function ends its transfer too.
    cmd(&mut c, 53, cmd53_arg(true, 1, 0, true, 2, 512)).unwrap();
    writeb(&mut c, 0, cccr::IO_ABORT, 0x01);
    cmd(&mut c, 53, cmd53_arg(true, 1, 0, true, 2, 512)).unwrap();
    let r = cmd52(&mut c, true, 0, cccr::IO_ENABLE, 0, false);
    assert_eq!(
        r,
        Err(NoResponse),
        "not the abort register: refused during the transfer"
    );
    writeb(&mut c, 0, cccr::IO_ABORT, 0x01);
}

#[test]
fn io_reset_restores_power_on_values() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    writeb(&mut c, 1, func1::SCRATCH, 0x11);
    c.raise_interrupt(1);
    cmd(&mut c, 53, cmd53_arg(false, 1, 0, true, 2, 512)).unwrap();
    // RES during a transfer: the abort register is the one CMD52 taken.
    assert!(cmd52(&mut c, true, 0, cccr::IO_ABORT, cccr::ABORT_RES, false).is_ok());
    assert_eq!(c.state(), SdioState::Idle);
    assert_eq!((c.rca(), c.ready(), c.bus_width()), (0, false, 1));
    assert_eq!(c.max_clock_hz(), 400_000);
    assert!(!c.sdio_interrupt());
    assert_eq!(c.data_remaining(), 0);
    // Silent until CMD5.
    assert_eq!(cmd(&mut c, 7, RCA), Err(NoResponse));
    assert_eq!(cmd(&mut c, 3, 0), Err(NoResponse));
    cmd(&mut c, 5, 0).unwrap();
    io_op_cond(&mut c, HOST_OCR);
    cmd(&mut c, 3, 0).unwrap();
    cmd(&mut c, 7, RCA).unwrap();
    for (addr, value) in [
        (cccr::IO_ENABLE, 0),
        (cccr::IO_READY, 0),
        (cccr::INT_ENABLE, 0),
        (cccr::BUS_INTERFACE, 0),
        (cccr::BUS_SPEED, cccr::SPEED_SHS),
        (fbr1::BLOCK_SIZE, 0),
        (fbr1::BLOCK_SIZE + 1, 0),
    ] {
        assert_eq!(readb(&mut c, 0, addr), value, "{addr:#x}");
    }
    writeb(&mut c, 0, cccr::IO_ENABLE, 0x02);
    while readb(&mut c, 0, cccr::IO_READY) & 0x02 == 0 {}
    assert_eq!(readb(&mut c, 1, func1::SCRATCH), 0);
    assert_eq!(c.int_status(), 0);
}

#[test]
fn bus_speed_and_clock() {
    let mut ram = vec![0u8; 16];
    let mut c = selected(&mut ram, SdioConfig::default());
    assert_eq!(c.max_clock_hz(), 25_000_000);
    // UHS-I bus speeds are not taken; high speed is.
    for bss in [2u8, 3, 4] {
        let r = cmd52(&mut c, true, 0, cccr::BUS_SPEED, (bss << 1) | 1, true).unwrap();
        assert_eq!(r & 0xFF, 0x01, "BSS {bss}");
    }
    let r = cmd52(&mut c, true, 0, cccr::BUS_SPEED, 0x03, true).unwrap();
    assert_eq!(r & 0xFF, 0x03);
    assert_eq!(c.max_clock_hz(), 50_000_000);
    writeb(&mut c, 0, cccr::BUS_SPEED, 0x01);
    assert_eq!(c.max_clock_hz(), 25_000_000);
    // A card without SHS ignores EHS.
    let mut ram = vec![0u8; 16];
    let config = SdioConfig {
        high_speed: false,
        ..SdioConfig::default()
    };
    let mut c = selected(&mut ram, config);
    assert_eq!(readb(&mut c, 0, cccr::BUS_SPEED), 0);
    let r = cmd52(&mut c, true, 0, cccr::BUS_SPEED, 0x02, true).unwrap();
    assert_eq!(r & 0xFF, 0);
    assert_eq!(c.max_clock_hz(), 25_000_000);
    // The slot reports the same.
    let slot: &mut dyn CardSlot = &mut c;
    assert_eq!(
        (slot.max_clock_hz(), slot.bus_width()),
        (Some(25_000_000), Some(1))
    );
}

#[test]
fn enable_immediately_and_custom_ids() {
    let mut ram = vec![0u8; 16];
    let config = SdioConfig {
        enable_polls: 0,
        vendor: 0x1234,
        device: 0xABCD,
        rca: 0x4321,
        ..SdioConfig::default()
    };
    let mut c = SdioCard::new(&mut ram, config);
    cmd(&mut c, 5, 0).unwrap();
    io_op_cond(&mut c, HOST_OCR);
    assert_eq!(cmd(&mut c, 3, 0).unwrap().value() >> 16, 0x4321);
    cmd(&mut c, 7, 0x4321 << 16).unwrap();
    let cis = read_cis(&mut c, cccr::CIS_POINTER);
    assert_eq!(cis.vendor, Some((0x1234, 0xABCD)));
    writeb(&mut c, 0, cccr::IO_ENABLE, 0x02);
    assert_eq!(
        readb(&mut c, 0, cccr::IO_READY),
        0x02,
        "ready at the first poll"
    );
}

/// With the clock stopped, a 4-bit card signals its interrupt only with the asynchronous
/// interrupt enabled (SDIO 3.00 §8.1.1), which is what a suspended host's wake-up
/// interrupt on DAT1 relies on; in 1-bit mode DAT1 is the interrupt line at any time.
#[test]
fn asynchronous_interrupt_with_the_clock_stopped() {
    let mut ram = vec![0u8; RAM];
    let mut c = probed(&mut ram);
    assert_eq!(c.bus_width(), 4);
    // The core's probe enabled it; without it first.
    assert!(c.async_interrupt_enabled());
    writeb(&mut c, 0, cccr::INTERRUPT_EXT, 0);
    writeb(&mut c, 1, func1::INT_TRIGGER, 0x01);
    assert!(c.sdio_interrupt());
    c.clock_running(false);
    assert!(!c.async_interrupt_enabled());
    assert!(!c.sdio_interrupt(), "no interrupt period without the clock");
    c.clock_running(true);
    writeb(&mut c, 0, cccr::INTERRUPT_EXT, cccr::INT_EXT_EAI);
    assert!(c.async_interrupt_enabled());
    c.clock_running(false);
    assert!(
        c.sdio_interrupt(),
        "asynchronous interrupt: DAT1 low without the clock"
    );
    assert_eq!(c.data_lines(), 0xD);
    c.clock_running(true);
    writeb(&mut c, 1, func1::INT_STATUS, 0x01);
    assert!(!c.sdio_interrupt());
    // A card without SAI keeps EAI clear.
    let mut ram2 = vec![0u8; RAM];
    let mut plain = selected(
        &mut ram2,
        SdioConfig {
            async_interrupt: false,
            ..SdioConfig::default()
        },
    );
    writeb(&mut plain, 0, cccr::INTERRUPT_EXT, cccr::INT_EXT_EAI);
    assert_eq!(readb(&mut plain, 0, cccr::INTERRUPT_EXT), 0);
}

/// A UHS-I card as the 7.3 core brings it up with a UHS-capable host: S18A to CMD5 with
/// S18R, CMD11 with the lines held low until the clock has stopped and restarted, then
/// SDR50 (CCCR SSDR50 and BSS) and the CMD19 tuning block.
#[test]
fn uhs_voltage_switch_sdr50_and_tuning() {
    let mut ram = vec![0u8; RAM];
    let mut c = SdioCard::new(
        &mut ram,
        SdioConfig {
            uhs_sdr50: true,
            ..SdioConfig::default()
        },
    );
    let (rocr, _) = io_op_cond(&mut c, HOST_OCR | S18R);
    assert_ne!(rocr & S18R, 0, "S18A");
    // mmc_set_uhs_voltage: CMD11, the lines low, the clock stopped and restarted.
    assert!(matches!(cmd(&mut c, 11, 0), Ok(Response::R1(0))));
    assert_eq!((c.data_lines(), c.cmd_line()), (0, false));
    assert_eq!(cmd(&mut c, 3, 0), Err(NoResponse), "CMD held low: lost");
    c.clock_running(false);
    assert_eq!(c.data_lines(), 0);
    c.clock_running(true);
    assert_eq!((c.data_lines(), c.cmd_line()), (0xF, true));
    assert!(c.signal_1v8());
    // A card already at 1.8 V answers S18A clear.
    let (rocr, _) = io_op_cond(&mut c, HOST_OCR | S18R);
    assert_eq!(rocr & S18R, 0);
    let rca = cmd(&mut c, 3, 0).unwrap().value() >> 16;
    cmd(&mut c, 7, rca << 16).unwrap();
    assert_eq!(readb(&mut c, 0, cccr::UHS_SUPPORT), cccr::UHS_SDR50);
    // CMD19 only at SDR50.
    assert_eq!(cmd(&mut c, 19, 0), Err(NoResponse), "not at default speed");
    writeb(&mut c, 0, cccr::BUS_INTERFACE, cccr::BUS_WIDTH_4BIT);
    writeb(&mut c, 0, cccr::BUS_SPEED, cccr::SPEED_SDR50);
    assert_eq!(
        readb(&mut c, 0, cccr::BUS_SPEED) & cccr::SPEED_BSS_MASK,
        cccr::SPEED_SDR50
    );
    assert_eq!(c.max_clock_hz(), 100_000_000);
    assert!(cmd(&mut c, 19, 0).is_ok());
    let mut block = [0u8; 64];
    c.read_data(&mut block).unwrap();
    assert_eq!(block, PATTERN_4BIT);
    // A block left half read ends with the next command.
    assert!(cmd(&mut c, 19, 0).is_ok());
    c.read_data(&mut block[..16]).unwrap();
    assert!(cmd(&mut c, 52, 0).is_ok());
    assert_eq!(c.read_data(&mut block[..16]), Err(DataError::NoTransfer));
    // A power cycle goes back to 3.3 V.
    c.power_cycle();
    assert!(!c.signal_1v8());
}
