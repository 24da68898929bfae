// SPDX-License-Identifier: GPL-2.0
//! Tests of the eMMC card model on its own: identification, EXT_CSD, legacy transfers and the
//! command queue commands, checked against JESD84-B51 behaviour.

use models::emmc::{
    status, Card, CardConfig, CardState, CardWork, Command, NoResponse, ReadyOrder, Response,
    PARTITION_UNIT,
};

fn card(storage: &mut [u8]) -> Card<'_> {
    let mut c = Card::new(storage, 8, ReadyOrder::Immediate);
    c.initialize(3, false).unwrap();
    c
}

fn cmd(c: &mut Card<'_>, index: u8, argument: u32) -> Result<Response, NoResponse> {
    c.command(Command::new(index, argument))
}

fn enable_queue(c: &mut Card<'_>) {
    let r = cmd(c, 6, (3 << 24) | (15 << 16) | (1 << 8)).unwrap();
    assert_eq!(r.value() & 0xFDF9_A080, 0);
    assert!(c.ext_csd().cmdq_enabled());
}

#[test]
fn identification_reaches_transfer_state() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    assert_eq!(c.state(), CardState::Idle);
    // The first CMD1 answer is still busy.
    assert_eq!(cmd(&mut c, 1, 0x40FF_8080), Ok(Response::R3(0x40FF_8080)));
    assert_eq!(cmd(&mut c, 1, 0x40FF_8080), Ok(Response::R3(0xC0FF_8080)));
    assert!(matches!(cmd(&mut c, 2, 0), Ok(Response::R2(_))));
    assert!(cmd(&mut c, 3, 5 << 16).is_ok());
    assert_eq!(c.rca(), 5);
    // Addressed commands ignore other RCAs.
    assert_eq!(cmd(&mut c, 13, 4 << 16), Err(NoResponse));
    assert!(matches!(cmd(&mut c, 9, 5 << 16), Ok(Response::R2(_))));
    // R1 from stand-by to transfer (JESD84-B51: R1b only from disconnect).
    assert!(matches!(cmd(&mut c, 7, 5 << 16), Ok(Response::R1(_))));
    assert_eq!(c.state(), CardState::Tran);
    let s = cmd(&mut c, 13, 5 << 16).unwrap().value();
    assert_eq!((s >> status::STATE_SHIFT) & 0xF, 4);
    assert_ne!(s & status::READY_FOR_DATA, 0);
}

#[test]
fn ext_csd_reports_queue_and_capacity() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = card(&mut storage);
    assert!(cmd(&mut c, 8, 0).is_ok());
    let mut ext = [0u8; 512];
    c.read_data(&mut ext[..200]).unwrap();
    c.read_data(&mut ext[200..]).unwrap();
    assert_eq!(c.state(), CardState::Tran);
    assert_eq!(ext[192], 8);
    assert_eq!(u32::from_le_bytes(ext[212..216].try_into().unwrap()), 16);
    assert_eq!(ext[308] & 1, 1);
    assert_eq!(ext[307], 7);
    assert_eq!(c.ext_csd().cmdq_depth(), 8);
    // Properties are read-only: SWITCH_ERROR comes with the next status, once.
    let r = cmd(&mut c, 6, (3 << 24) | (200 << 16) | (1 << 8)).unwrap();
    assert_eq!(r.value() & status::SWITCH_ERROR, 0);
    let s = cmd(&mut c, 13, 3 << 16).unwrap().value();
    assert_ne!(s & status::SWITCH_ERROR, 0);
    let s = cmd(&mut c, 13, 3 << 16).unwrap().value();
    assert_eq!(s & status::SWITCH_ERROR, 0);
}

#[test]
fn card_without_command_queue() {
    let mut storage = vec![0u8; 16 * 512];
    let config = CardConfig {
        queue_depth: 0,
        ..CardConfig::default()
    };
    let mut c = Card::with_config(&mut storage, [&mut [], &mut []], config);
    // Enabling the queue as part of initialisation fails: the SWITCH reports an error.
    assert_eq!(c.initialize(3, true), Err(NoResponse));
    c.initialize(3, false).unwrap();
    // EXT_CSD: CMDQ_SUPPORT 0, CMDQ_DEPTH 0; the CSD's CCC leaves out class 11.
    assert_eq!(c.ext_csd().get(308), 0);
    assert_eq!(c.ext_csd().get(307), 0);
    assert!(!c.ext_csd().cmdq_supported());
    let ccc = c.csd()[1] >> 20;
    assert_eq!(ccc, 0x035);
    // CMDQ_MODE_EN cannot be set (SWITCH_ERROR with the next status); clearing it is fine.
    let switch = |c: &mut Card<'_>, value: u32| {
        cmd(c, 6, (3 << 24) | (15 << 16) | (value << 8)).unwrap();
        cmd(c, 13, 3 << 16).unwrap().value() & status::SWITCH_ERROR == 0
    };
    assert!(!switch(&mut c, 1), "no command queue to enable");
    assert!(!c.ext_csd().cmdq_enabled());
    assert!(switch(&mut c, 0));
    // The queue commands and CMD13 with SQS stay illegal.
    for (index, arg) in [
        (44, (1 << 30) | (2 << 16) | 1),
        (45, 4),
        (46, 2 << 16),
        (48, 1),
    ] {
        assert_eq!(cmd(&mut c, index, arg), Err(NoResponse), "CMD{index}");
        let s = cmd(&mut c, 13, 3 << 16).unwrap().value();
        assert_ne!(s & status::ILLEGAL_COMMAND, 0, "CMD{index}");
    }
    assert_eq!(cmd(&mut c, 13, (3 << 16) | (1 << 15)), Err(NoResponse));
    // A card with the queue advertises class 11 as well.
    let mut other = vec![0u8; 16 * 512];
    let queued = card(&mut other);
    assert!(queued.ext_csd().cmdq_supported());
    assert_eq!(queued.csd()[1] >> 20, 0x835);
}

#[test]
fn legacy_transfers() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = card(&mut storage);
    let block: Vec<u8> = (0..1024).map(|i| i as u8).collect();
    assert!(cmd(&mut c, 23, 2).is_ok());
    assert!(cmd(&mut c, 25, 3).is_ok());
    assert_eq!(c.state(), CardState::Rcv);
    c.write_data(&block).unwrap();
    assert_eq!(c.state(), CardState::Tran);
    assert_eq!(&c.storage()[1536..2560], &block[..]);
    assert!(cmd(&mut c, 17, 4).is_ok());
    let mut one = [0u8; 512];
    c.read_data(&mut one).unwrap();
    assert_eq!(&one[..], &block[512..]);
    assert_eq!(
        c.read_data(&mut one),
        Err(models::emmc::DataError::NoTransfer)
    );
    // Open-ended read stopped by CMD12.
    assert!(cmd(&mut c, 18, 0).is_ok());
    c.read_data(&mut one).unwrap();
    c.read_data(&mut one).unwrap();
    // R1 to stop a read (R1b only for writes).
    assert!(matches!(cmd(&mut c, 12, 0), Ok(Response::R1(_))));
    assert_eq!(c.state(), CardState::Tran);
    let r = cmd(&mut c, 17, 16).unwrap();
    assert_ne!(r.value() & status::ADDRESS_OUT_OF_RANGE, 0);
    let r = cmd(&mut c, 16, 1024).unwrap();
    assert_ne!(r.value() & status::BLOCK_LEN_ERROR, 0);
}

#[test]
fn command_queue_tasks() {
    let mut storage = vec![0u8; 16 * 512];
    storage[4 * 512] = 0xAB;
    let mut c = card(&mut storage);
    // Queue commands are illegal until CMDQ_MODE_EN is set: no response, and
    // ILLEGAL_COMMAND in the next one.
    assert_eq!(cmd(&mut c, 44, (1 << 30) | (2 << 16) | 1), Err(NoResponse));
    let s = cmd(&mut c, 13, 3 << 16).unwrap().value();
    assert_ne!(s & status::ILLEGAL_COMMAND, 0);
    enable_queue(&mut c);
    assert_eq!(
        cmd(&mut c, 44, (1 << 30) | (2 << 16) | 1).unwrap().value() & 0xFDF9_A080,
        0
    );
    assert_eq!(cmd(&mut c, 45, 4).unwrap().value() & 0xFDF9_A080, 0);
    let task = c.queued_task(2).unwrap();
    assert!(task.read);
    assert_eq!((task.blocks, task.address), (1, 4));
    assert_eq!(
        task.cmd44_argument(2).unwrap().raw(),
        (1 << 30) | (2 << 16) | 1
    );
    // A write task with every flag.
    let arg = (1 << 31) | (1 << 29) | (3 << 25) | (1 << 24) | (1 << 23) | (5 << 16) | 2;
    assert_eq!(cmd(&mut c, 44, arg).unwrap().value() & 0xFDF9_A080, 0);
    assert_eq!(cmd(&mut c, 45, 8).unwrap().value() & 0xFDF9_A080, 0);
    let w = c.queued_task(5).unwrap();
    assert!(w.reliable_write && w.tag_request && w.forced_programming && w.priority && !w.read);
    assert_eq!(w.context, 3);
    assert_eq!(w.cmd44_argument(5).unwrap().raw(), arg);
    // Task IDs have 5 bits: slot 32 does not fit.
    assert!(w.cmd44_argument(32).is_err());
    // Legacy transfers and a flush are refused while tasks are queued.
    assert_eq!(cmd(&mut c, 17, 0), Err(NoResponse));
    let flush = (3 << 24) | (32 << 16) | (1 << 8);
    assert_eq!(cmd(&mut c, 6, flush), Err(NoResponse));
    let s = cmd(&mut c, 13, 3 << 16).unwrap().value();
    assert_ne!(s & status::ILLEGAL_COMMAND, 0);
    // Not ready before a status poll.
    assert_ne!(cmd(&mut c, 46, 2 << 16).unwrap().value() & status::ERROR, 0);
    assert_eq!(
        cmd(&mut c, 13, (3 << 16) | (1 << 15)),
        Ok(Response::QueueStatus(0x24))
    );
    // Direction must match.
    assert_ne!(cmd(&mut c, 47, 2 << 16).unwrap().value() & status::ERROR, 0);
    assert!(cmd(&mut c, 46, 2 << 16).is_ok());
    let mut buf = [0u8; 512];
    c.read_data(&mut buf).unwrap();
    assert_eq!(buf[0], 0xAB);
    assert_eq!(c.queued_tasks(), 1 << 5);
    assert!(cmd(&mut c, 47, 5 << 16).is_ok());
    c.write_data(&[0x5A; 1024]).unwrap();
    assert_eq!(c.stats().reliable_writes, 1);
    assert_eq!(c.stats().tasks_completed, 2);
    assert_eq!(c.queued_tasks(), 0);
    assert!(cmd(&mut c, 6, flush).is_ok());
    assert_eq!(c.stats().flushes, 1);
}

#[test]
fn queue_errors_and_discard() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = card(&mut storage);
    enable_queue(&mut c);
    // Task ID beyond the depth, zero blocks, CMD45 without CMD44, address out of range.
    assert_ne!(
        cmd(&mut c, 44, (9 << 16) | 1).unwrap().value() & status::ERROR,
        0
    );
    assert_ne!(cmd(&mut c, 44, 1 << 16).unwrap().value() & status::ERROR, 0);
    assert_eq!(cmd(&mut c, 45, 0), Err(NoResponse));
    assert!(cmd(&mut c, 44, (1 << 16) | 2).is_ok());
    assert_ne!(
        cmd(&mut c, 45, 15).unwrap().value() & status::ADDRESS_OUT_OF_RANGE,
        0
    );
    for id in 0..3 {
        assert!(cmd(&mut c, 44, (id << 16) | 1).is_ok());
        assert!(cmd(&mut c, 45, id).is_ok());
    }
    // Busy task ID.
    assert_ne!(cmd(&mut c, 44, 1).unwrap().value() & status::ERROR, 0);
    assert_eq!(c.queued_tasks(), 0b111);
    assert!(matches!(
        cmd(&mut c, 48, (1 << 16) | 2),
        Ok(Response::R1b(_))
    ));
    assert_eq!(c.queued_tasks(), 0b101);
    // Queue mode cannot change while tasks are queued.
    let off = (3 << 24) | (15 << 16);
    assert!(cmd(&mut c, 6, off).is_ok());
    assert_ne!(
        cmd(&mut c, 13, 3 << 16).unwrap().value() & status::SWITCH_ERROR,
        0
    );
    assert!(cmd(&mut c, 48, 1).is_ok());
    assert_eq!(c.queued_tasks(), 0);
    assert_eq!(c.stats().discards, 2);
    assert_ne!(cmd(&mut c, 48, 3).unwrap().value() & status::ERROR, 0);
    assert!(cmd(&mut c, 6, off).is_ok());
    assert!(!c.ext_csd().cmdq_enabled());
}

#[test]
fn stop_aborts_a_queued_transfer() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = card(&mut storage);
    enable_queue(&mut c);
    assert!(cmd(&mut c, 44, (4 << 16) | 2).is_ok());
    assert!(cmd(&mut c, 45, 0).is_ok());
    assert!(cmd(&mut c, 13, (3 << 16) | (1 << 15)).is_ok());
    assert!(cmd(&mut c, 47, 4 << 16).is_ok());
    c.write_data(&[1; 512]).unwrap();
    assert_eq!(c.data_remaining(), 512);
    assert_eq!(
        c.write_data(&[1; 1024]),
        Err(models::emmc::DataError::Overrun)
    );
    assert!(cmd(&mut c, 12, 0).is_ok());
    assert_eq!(c.queued_tasks(), 0);
    assert_eq!(c.data_remaining(), 0);
    assert_eq!(c.stats().tasks_completed, 0);
}

#[test]
fn shuffled_readiness_is_out_of_order() {
    let mut storage = vec![0u8; 64 * 512];
    let mut c = Card::new(&mut storage, 32, ReadyOrder::Shuffled(42));
    c.initialize(3, true).unwrap();
    for id in 0..16 {
        assert!(cmd(&mut c, 44, (id << 16) | 1).is_ok());
        assert!(cmd(&mut c, 45, id).is_ok());
    }
    let mut first_ready = Vec::new();
    for _ in 0..4 {
        let Response::QueueStatus(q) = cmd(&mut c, 13, (3 << 16) | (1 << 15)).unwrap() else {
            panic!("no queue status")
        };
        first_ready.push(q);
    }
    assert_eq!(first_ready[3], 0xFFFF, "every task ready after four polls");
    assert!(
        first_ready[0] != 0 && first_ready[0] != 0xFFFF,
        "readiness must be staggered"
    );
}

#[test]
fn identification_refuses_what_idle_does_not_know() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    // SD and SDIO probes in idle: no response (§6.13), and CMD13 needs an RCA.
    for (index, arg) in [(8, 0x1AA), (5, 0), (55, 0), (41, 0x40FF_8000), (13, 0)] {
        assert_eq!(cmd(&mut c, index, arg), Err(NoResponse), "CMD{index}");
    }
    // CMD1 with a zero argument starts power-up too.
    assert_eq!(cmd(&mut c, 1, 0), Ok(Response::R3(0x40FF_8080)));
    assert_eq!(c.take_work(), CardWork::None);
    assert_eq!(cmd(&mut c, 1, 0x40FF_8080), Ok(Response::R3(0xC0FF_8080)));
    assert_eq!(c.take_work(), CardWork::PowerUp);
    assert_eq!(c.take_work(), CardWork::None, "reading clears it");
    // CMD1 outside idle is illegal.
    assert_eq!(cmd(&mut c, 1, 0x40FF_8080), Err(NoResponse));
    assert_eq!(c.max_clock_hz(), 400_000);
}

#[test]
fn unsupported_voltage_and_cmd15_make_the_card_inactive() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    // 2.0–2.1 V only (bit 8): no overlap with the card's OCR.
    assert_eq!(cmd(&mut c, 1, 0x0000_0100), Err(NoResponse));
    assert!(c.inactive());
    assert_eq!(
        cmd(&mut c, 0, 0),
        Err(NoResponse),
        "only a power cycle helps"
    );
    c.power_cycle();
    c.initialize(3, false).unwrap();
    assert_eq!(cmd(&mut c, 15, 4 << 16), Err(NoResponse));
    assert!(!c.inactive(), "another card's RCA");
    assert_eq!(cmd(&mut c, 15, 3 << 16), Err(NoResponse));
    assert!(c.inactive());
}

#[test]
fn partitions_and_registers() {
    let mut user = vec![0u8; 4096 * 512];
    let mut boot0 = vec![1u8; 3 * PARTITION_UNIT];
    let mut boot1 = vec![2u8; 2 * PARTITION_UNIT + 100];
    let config = CardConfig {
        rpmb_size_mult: 0,
        cache_kib: 0,
        ..CardConfig::default()
    };
    let mut c = Card::with_config(&mut user, [&mut boot0, &mut boot1], config);
    c.initialize(3, false).unwrap();
    // Both boot partitions have the smaller size; no RPMB, no cache.
    assert_eq!(c.ext_csd().get(226), 2);
    assert_eq!(c.boot_storage(0).len(), 2 * PARTITION_UNIT);
    assert_eq!(c.ext_csd().get(168), 0);
    assert_eq!(c.ext_csd().cache_kib(), 0);
    let switch = |c: &mut Card<'_>, index: u32, value: u32| {
        cmd(c, 6, (3 << 24) | (index << 16) | (value << 8)).unwrap();
        cmd(c, 13, 3 << 16).unwrap().value() & status::SWITCH_ERROR == 0
    };
    assert!(!switch(&mut c, 179, 3), "no RPMB partition to select");
    assert!(!switch(&mut c, 33, 1), "no cache to turn on");
    assert!(switch(&mut c, 179, 2));
    assert!(cmd(&mut c, 17, 0).is_ok());
    let mut buf = [0u8; 512];
    c.read_data(&mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 2));
    // CMD0 returns to the user area but keeps BOOT_PARTITION_ENABLE.
    assert!(switch(&mut c, 179, (1 << 3) | 2));
    c.initialize(3, false).unwrap();
    assert_eq!(c.ext_csd().get(179), 1 << 3);
    // A 2 MiB user area: C_SIZE describes it (8 × 256 KiB units).
    let csd = c.csd();
    let c_size = ((csd[1] & 0x3FF) << 2) | (csd[2] >> 30);
    assert_eq!(c_size, 7);
    assert_eq!(Card::cid()[0] >> 24, 0x7E);
}

#[test]
fn reliable_writes_need_cmd23() {
    let mut storage = vec![0u8; 16 * 512];
    let mut c = card(&mut storage);
    assert!(cmd(&mut c, 23, (1 << 31) | 2).is_ok());
    assert!(cmd(&mut c, 25, 0).is_ok());
    c.write_data(&[9; 1024]).unwrap();
    assert_eq!(c.stats().reliable_writes, 1);
    // Packed commands are not supported.
    assert_eq!(cmd(&mut c, 23, (1 << 30) | 2), Err(NoResponse));
    // Without CMD23 the reliable flag does not carry over.
    assert!(cmd(&mut c, 25, 4).is_ok());
    c.write_data(&[9; 512]).unwrap();
    assert!(matches!(cmd(&mut c, 12, 0), Ok(Response::R1b(_))));
    assert_eq!(c.stats().reliable_writes, 1);
}
