// SPDX-License-Identifier: GPL-2.0
//! Unit tests of every register and descriptor encoding, against values worked out by hand
//! from the CQHCI register and descriptor tables.

use cqhci::desc::{
    Act, EncodeError, BLOCK_SIZE, DCMD_DESC, LINK_DESC, MAX_TRANSFER_LENGTH, TASK_DESC,
    TASK_DESC_CRYPTO, TRAN_DESC,
};
use cqhci::regs::{
    Interrupts, RegisterDump, CQCAP, CQCFG, CQCRA, CQCRDCT, CQCRI, CQCTL, CQDPT, CQDQS, CQIC, CQIS,
    CQISGE, CQISTE, CQRMEM, CQSSC1, CQSSC2, CQTCLR, CQTCN, CQTDBR, CQTDLBA, CQTDLBAU, CQTDPE,
    CQTERRI, CQVER,
};
use cqhci::{
    DataTask, DcmdResponse, DirectCommand, Direction, DmaWidth, Layout, LinkDescriptor, Tag,
    TaskDescriptorSize, TaskFlags, TaskMask, TransferDescriptor,
};
use registers::{FieldOverflow, Register};

/// A register's offset and name.
fn at<R: Register>() -> (usize, &'static str) {
    (R::OFFSET, R::NAME)
}

#[test]
fn register_offsets_and_names() {
    let expected: [(usize, &str); 23] = [
        (0x00, "CQVER"),
        (0x04, "CQCAP"),
        (0x08, "CQCFG"),
        (0x0C, "CQCTL"),
        (0x10, "CQIS"),
        (0x14, "CQISTE"),
        (0x18, "CQISGE"),
        (0x1C, "CQIC"),
        (0x20, "CQTDLBA"),
        (0x24, "CQTDLBAU"),
        (0x28, "CQTDBR"),
        (0x2C, "CQTCN"),
        (0x30, "CQDQS"),
        (0x34, "CQDPT"),
        (0x38, "CQTCLR"),
        (0x3C, "CQTDPE"),
        (0x40, "CQSSC1"),
        (0x44, "CQSSC2"),
        (0x48, "CQCRDCT"),
        (0x50, "CQRMEM"),
        (0x54, "CQTERRI"),
        (0x58, "CQCRI"),
        (0x5C, "CQCRA"),
    ];
    let registers = [
        at::<CQVER>(),
        at::<CQCAP>(),
        at::<CQCFG>(),
        at::<CQCTL>(),
        at::<CQIS>(),
        at::<CQISTE>(),
        at::<CQISGE>(),
        at::<CQIC>(),
        at::<CQTDLBA>(),
        at::<CQTDLBAU>(),
        at::<CQTDBR>(),
        at::<CQTCN>(),
        at::<CQDQS>(),
        at::<CQDPT>(),
        at::<CQTCLR>(),
        at::<CQTDPE>(),
        at::<CQSSC1>(),
        at::<CQSSC2>(),
        at::<CQCRDCT>(),
        at::<CQRMEM>(),
        at::<CQTERRI>(),
        at::<CQCRI>(),
        at::<CQCRA>(),
    ];
    assert_eq!(registers, expected);
    // A dump lists the same registers in the same order.
    assert_eq!(RegisterDump::COUNT, expected.len());
    let dump = RegisterDump {
        cqver: CQVER::from_raw(7),
        ..RegisterDump::default()
    };
    for ((name, offset, value), (want_offset, want_name)) in
        dump.entries().into_iter().zip(expected)
    {
        assert_eq!((offset, name), (want_offset, want_name));
        assert_eq!(value, if name == "CQVER" { 7 } else { 0 });
    }
}

#[test]
fn flag_registers() {
    let enable = CQCFG::zeroed().with_cq_en(true);
    let dcmd = CQCFG::zeroed().with_dcmd_en(true);
    assert_eq!(enable.raw(), 0x1);
    assert_eq!(CQCFG::zeroed().with_cr_general_en(true).raw(), 0x2);
    assert_eq!(
        CQCFG::zeroed()
            .with_task_desc_sz(TaskDescriptorSize::Bits128)
            .raw(),
        0x100
    );
    assert_eq!(dcmd.raw(), 0x1000);
    assert_eq!(CQCTL::zeroed().with_halt(true).raw(), 0x1);
    assert_eq!(CQCTL::zeroed().with_clr_all_tasks(true).raw(), 0x100);
    assert_eq!(Interrupts::HAC.bits(), 1);
    assert_eq!(Interrupts::TCC.bits(), 2);
    assert_eq!(Interrupts::RED.bits(), 4);
    assert_eq!(Interrupts::TCL.bits(), 8);
    assert_eq!(Interrupts::GCE.bits(), 0x10);
    assert_eq!(Interrupts::ICCE.bits(), 0x20);
    assert_eq!(Interrupts::OPERATIONAL.bits(), 0x36);
    assert_eq!(Interrupts::ERRORS.bits(), 0x34);
    assert_eq!(Interrupts::EMPTY.bits(), 0);

    let both = enable.with_dcmd_en(true);
    assert_eq!(both.raw(), 0x1001);
    assert!(both.dcmd_en());
    assert_eq!(both.task_desc_sz(), TaskDescriptorSize::Bits64);
    assert!(!both.cr_general_en());
    assert_eq!(both.with_cq_en(false), dcmd);
    assert_eq!(
        both.with_task_desc_sz(TaskDescriptorSize::Bits128).raw(),
        0x1101
    );
    assert_eq!(both.with_dcmd_en(false), enable);
    assert_eq!(
        CQCFG::from_raw(0x1100),
        dcmd.with_task_desc_sz(TaskDescriptorSize::Bits128)
    );
    // The value-set operations of the shared interrupt layout.
    let errors = Interrupts::ERRORS;
    assert!(errors.contains(Interrupts::RED.union(Interrupts::ICCE)));
    assert!(!errors.contains(Interrupts::RED.union(Interrupts::TCC)));
    assert!(errors.intersects(Interrupts::RED.union(Interrupts::TCC)));
    assert!(!errors.intersects(Interrupts::TCC));
    // A union keeps what both sets hold (an XOR would drop it).
    assert_eq!(
        Interrupts::OPERATIONAL.union(errors),
        Interrupts::OPERATIONAL
    );
    assert_eq!(Interrupts::TCC.union(Interrupts::TCC), Interrupts::TCC);
    assert_eq!(
        Interrupts::from_status(CQIS::from_raw(0x9)).status().raw(),
        0x9
    );
    assert_eq!(
        Interrupts::from_status(CQIS::from_raw(0x9)),
        Interrupts::HAC.union(Interrupts::TCL)
    );
    let status = CQIS::from_raw(0x3F);
    assert!(status.hac() && status.tcc() && status.red());
    assert!(status.tcl() && status.gce() && status.icce());
    assert_eq!(
        CQISTE::zeroed().with_enabled(Interrupts::OPERATIONAL).raw(),
        0x36
    );
    assert_eq!(CQISGE::zeroed().with_signalled(Interrupts::HAC).raw(), 0x1);
    assert_eq!(CQISTE::from_raw(0xFFFF_FFC8).enabled(), Interrupts::TCL);
}

#[test]
fn version_and_capabilities() {
    let v = CQVER::from_raw(0x0000_0510);
    assert_eq!((v.emmc_ver_major(), v.printed_minor()), (5, 10));
    let v = CQVER::from_raw(0xFFFF_F42A);
    assert_eq!((v.emmc_ver_major(), v.printed_minor()), (4, 30));
    let cap = CQCAP::from_raw(0x1000_30C8);
    assert!(cap.cs());
    assert_eq!(cap.itcfmul(), 3);
    assert_eq!(cap.itcfval(), 0xC8);
    let cap = CQCAP::from_raw(0xEFFF_0FFF);
    assert!(!cap.cs());
    assert_eq!(cap.itcfmul(), 0);
    assert_eq!(cap.itcfval(), 0x3FF);
}

#[test]
fn interrupt_coalescing() {
    assert_eq!(CQIC::program(31, 1).map(CQIC::raw), Ok(0x8000_9F81));
    assert_eq!(CQIC::program(4, 127).map(CQIC::raw), Ok(0x8000_84FF));
    // Out-of-range values are refused, never truncated or spilled into other fields.
    assert_eq!(
        CQIC::program(0x20, 1),
        Err(FieldOverflow {
            value: 0x20,
            max: 0x1F
        })
    );
    assert_eq!(
        CQIC::program(31, 0x80),
        Err(FieldOverflow {
            value: 0x80,
            max: 0x7F
        })
    );
    assert_eq!(CQIC::reset_counter().raw(), 0x8001_0000);
    let ic = CQIC::from_raw(0x8010_0A05);
    assert!(ic.icendis());
    assert!(ic.icsb());
    assert_eq!(ic.iccth(), 10);
    assert_eq!(ic.ictoval(), 5);
    assert!(!CQIC::from_raw(0x7FFF_FFFF).icendis());
    assert_eq!(CQIC::zeroed().with_icendis(true).raw(), 1 << 31);
    assert_eq!(CQIC::zeroed().with_icsb(true).raw(), 1 << 20);
    assert_eq!(CQIC::zeroed().with_icctr(true).raw(), 1 << 16);
    assert_eq!(CQIC::zeroed().with_iccthwen(true).raw(), 1 << 15);
    assert_eq!(CQIC::zeroed().with_ictovalwen(true).raw(), 1 << 7);
}

#[test]
fn send_status_and_response_fields() {
    let ssc1 = CQSSC1::zeroed()
        .with_const_cbc::<1>()
        .with_const_cit::<0x1000>();
    assert_eq!(ssc1.raw(), 0x0001_1000);
    assert_eq!(ssc1.cbc(), 1);
    assert_eq!(ssc1.cit(), 0x1000);
    assert_eq!(
        CQSSC1::zeroed()
            .with_const_cbc::<0xF>()
            .with_const_cit::<0xFFFF>()
            .raw(),
        0x000F_FFFF
    );
    assert!(CQSSC1::zeroed().try_with_cbc(0x1F).is_err());
    let read = CQSSC1::from_raw(0xFFF5_ABCD);
    assert_eq!((read.cbc(), read.cit()), (5, 0xABCD));
    assert_eq!(
        CQSSC2::zeroed().try_with_rca(0xBEEF).map(CQSSC2::raw),
        Ok(0xBEEF)
    );
    assert_eq!(CQCRI::from_raw(0xFFFF_FFED).index(), 0x2D);
    assert_eq!(CQCRA::from_raw(0xDEAD_BEEF).argument(), 0xDEAD_BEEF);
    assert_eq!(CQCRDCT::from_raw(0x900).response(), 0x900);
    assert_eq!(CQRMEM::from_raw(0xFDF9_A080).rmem(), 0xFDF9_A080);
}

#[test]
fn task_error_info() {
    let t = CQTERRI::from_raw(0x852F_8D2E);
    assert!(t.rmefv());
    assert_eq!(t.rmeci(), 46);
    assert_eq!(t.rmetid().number(), 13);
    assert!(t.dtefv());
    assert_eq!(t.dteci(), 47);
    assert_eq!(t.dtetid().number(), 5);
    assert_eq!(t.raw(), 0x852F_8D2E);
    let none = CQTERRI::from_raw(0x7FFF_7FFF);
    assert!(!none.rmefv());
    assert!(!none.dtefv());
    assert_eq!(none.rmetid().number(), 31);
    assert_eq!(none.dtetid().number(), 31);
    assert_eq!(none.rmeci(), 0x3F);
    assert_eq!(none.dteci(), 0x3F);
    // Written the other way, for a model or a test that reports an error.
    let named = CQTERRI::zeroed()
        .with_rmetid(Tag::new(13).unwrap())
        .with_dtetid(Tag::new(5).unwrap());
    assert_eq!(named.raw(), 0x0500_0D00);
}

#[test]
fn tags_and_masks() {
    assert_eq!(Tag::new(31), Some(Tag::DCMD));
    assert_eq!(Tag::new(32), None);
    let t = Tag::new(7).unwrap();
    assert_eq!((t.number(), t.index()), (7, 7));
    assert_eq!(t.mask().bits(), 0x80);
    assert_eq!(TaskMask::ALL.count(), 32);
    assert_eq!(CQTDBR::zeroed().with_dbr(t.mask()).raw(), 0x80);
    assert_eq!(
        CQTCN::from_raw(0x8000_0005).tcn(),
        TaskMask::from_bits(0x8000_0005)
    );
    assert_eq!(CQTDPE::from_raw(0x10).tdpe().iter().next(), Tag::new(4));
    let others = [
        CQDQS::from_raw(1).dqs(),
        CQDPT::from_raw(1).dpt(),
        CQTCLR::from_raw(1).tclr(),
    ];
    assert_eq!(others, [TaskMask::from_bits(1); 3]);
    let m = TaskMask::from_bits(0x8000_0005);
    assert_eq!(m.count(), 3);
    assert!(m.contains(Tag::DCMD));
    assert!(!m.contains(t));
    assert!(!m.is_empty());
    assert!(TaskMask::EMPTY.is_empty());
    // Bounded, so an iterator that never ends fails here instead of filling memory.
    let tags: Vec<u32> = m.iter().map(Tag::number).take(Tag::COUNT + 1).collect();
    assert_eq!(tags, [0, 2, 31]);
    assert_eq!(m.with(t).bits(), 0x8000_0085);
    assert_eq!(m.with(Tag::DCMD), m, "adding a member changes nothing");
    assert_eq!(m.without(t), m, "removing a non-member changes nothing");
    assert_eq!(m.without(Tag::DCMD).bits(), 5);
    assert_eq!(TaskMask::EMPTY.iter().next(), None);
}

/// One of a task's flags.
type Flag = fn(&mut TaskFlags) -> &mut bool;

fn task(direction: Direction, flags: TaskFlags) -> DataTask {
    DataTask {
        direction,
        block_count: 8,
        block_address: 0x1234,
        flags,
        context: 0,
    }
}

#[test]
fn data_task_descriptor() {
    let read = task(Direction::Read, TaskFlags::default());
    assert_eq!(word(read.encode(true)), 0x0000_1234_0008_102F);
    assert_eq!(word(read.encode(false)), 0x0000_1234_0008_102B);
    assert_eq!(read.byte_count(), 8 * BLOCK_SIZE);
    let write = task(Direction::Write, TaskFlags::default());
    assert_eq!(word(write.encode(true)), 0x0000_1234_0008_002F);
    let decoded = read.encode(true).unwrap();
    assert_eq!(decoded.act(), Some(Act::Task));
    assert_eq!(decoded.data_direction(), Direction::Read);
    assert_eq!(
        (decoded.block_count(), decoded.block_address()),
        (8, 0x1234)
    );
    assert!(decoded.valid() && decoded.end() && decoded.int());
    // Each flag alone, and the bit it sets.
    let each: [(Flag, u64); 5] = [
        (|f| &mut f.forced_programming, 1 << 6),
        (|f| &mut f.data_tag, 1 << 11),
        (|f| &mut f.priority, 1 << 13),
        (|f| &mut f.queue_barrier, 1 << 14),
        (|f| &mut f.reliable_write, 1 << 15),
    ];
    for (flag, bit) in each {
        let mut flags = TaskFlags::default();
        *flag(&mut flags) = true;
        assert_eq!(
            word(task(Direction::Write, flags).encode(true)),
            0x0000_1234_0008_002F | bit
        );
    }
    let full = DataTask {
        direction: Direction::Read,
        block_count: 0xFFFF,
        block_address: 0xFFFF_FFFF,
        flags: TaskFlags {
            reliable_write: true,
            data_tag: true,
            priority: true,
            queue_barrier: true,
            forced_programming: true,
        },
        context: 0xF,
    };
    assert_eq!(word(full.encode(true)), 0xFFFF_FFFF_FFFF_FFEF);
    let context = DataTask {
        context: 0x5,
        ..task(Direction::Write, TaskFlags::default())
    };
    assert_eq!(word(context.encode(true)), 0x0000_1234_0008_02AF);
    // A context ID wider than its four bits is refused, never spilled into other fields.
    let wide = DataTask {
        context: 0xFF,
        ..full
    };
    assert_eq!(
        wide.encode(true),
        Err(FieldOverflow {
            value: 0xFF,
            max: 0xF
        })
    );
}

/// The raw word an encoder built.
fn word(encoded: Result<TASK_DESC, FieldOverflow>) -> u64 {
    encoded.unwrap().raw()
}

fn dcmd(opcode: u8, argument: u32, response: DcmdResponse) -> DirectCommand {
    DirectCommand {
        opcode,
        argument,
        response,
    }
}

#[test]
fn direct_command_descriptor() {
    let flush = dcmd(6, 0x0320_0100, DcmdResponse::ShortBusy);
    assert_eq!(
        flush.encode().map(DCMD_DESC::raw),
        Ok(0x0320_0100_0186_402F)
    );
    let decoded = flush.encode().unwrap();
    assert_eq!(decoded.resp_type(), Some(DcmdResponse::ShortBusy));
    assert!(!decoded.cmd_timing());
    assert_eq!(
        (decoded.cmd_index(), decoded.cmd_argument()),
        (6, 0x0320_0100)
    );
    let status = dcmd(13, 0x0002_0000, DcmdResponse::Short);
    assert_eq!(
        status.encode().map(DCMD_DESC::raw),
        Ok(0x0002_0000_014D_402F)
    );
    let none = dcmd(0x3F, 0, DcmdResponse::None);
    assert_eq!(none.encode().map(DCMD_DESC::raw), Ok(0x0000_0000_007F_402F));
    // A command index wider than its six bits is refused, never spilled into CMD_TIMING.
    let wide = dcmd(0x7F, 0, DcmdResponse::None);
    assert_eq!(
        wide.encode(),
        Err(FieldOverflow {
            value: 0x7F,
            max: 0x3F
        })
    );
    // The reserved response type reads as none of the three.
    assert_eq!(DCMD_DESC::from_raw(1 << 23).resp_type(), None);
}

#[test]
fn transfer_descriptor_lengths() {
    assert_eq!(TransferDescriptor::new(0, 0, true), None);
    assert_eq!(
        TransferDescriptor::new(0, MAX_TRANSFER_LENGTH + 1, true),
        None
    );
    let d = TransferDescriptor::new(0x1000, 512, false).unwrap();
    assert_eq!(d.attributes().raw(), 0x0200_0021);
    assert_eq!(d.attributes().act(), Some(Act::Transfer));
    assert_eq!((d.address(), d.length(), d.is_end()), (0x1000, 512, false));
    let last = TransferDescriptor::new(0x1000, 0xFFFF, true).unwrap();
    assert_eq!(last.attributes().raw(), 0xFFFF_0023);
    // The 16-bit field holds 0 for 64 KiB.
    let max = TransferDescriptor::new(0x1000, MAX_TRANSFER_LENGTH, true).unwrap();
    assert_eq!(max.attributes().raw(), 0x0000_0023);
    assert_eq!(max.attributes().data_length(), 0);
    assert_eq!(max.length(), 65536);
    assert!(max.is_end());
}

fn layout(task: TaskDescriptorSize, dma: DmaWidth, short: bool) -> Layout {
    Layout::new(task, dma, short, 128, 31)
}

#[test]
fn layout_sizes() {
    let mtk = layout(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    assert_eq!(mtk.task_len(), 16);
    assert_eq!(mtk.link_len(), 16);
    assert_eq!(mtk.transfer_len(), 16);
    assert_eq!(mtk.slot_len(), 32);
    assert_eq!(mtk.tdl_len(), 1024);
    assert_eq!(mtk.transfer_slot_len(), 2048);
    assert_eq!(mtk.transfer_area_len(), 63_488);
    assert_eq!(mtk.max_segments(), 128);
    assert_eq!(mtk.dma_width(), DmaWidth::Bits64);
    let t = Tag::new(3).unwrap();
    assert_eq!(mtk.task_offset(t), 96);
    assert_eq!(mtk.link_offset(t), 112);
    assert_eq!(mtk.transfer_offset(t), 6144);

    let short = layout(TaskDescriptorSize::Bits64, DmaWidth::Bits64, true);
    assert_eq!(short.transfer_len(), 12);
    assert_eq!(short.slot_len(), 24);
    assert_eq!(short.link_offset(t), 80);
    let narrow = layout(TaskDescriptorSize::Bits64, DmaWidth::Bits32, true);
    assert_eq!(narrow.link_len(), 8);
    assert_eq!(narrow.transfer_len(), 8);
    assert_eq!(narrow.tdl_len(), 512);
    assert_eq!(narrow.dma_width(), DmaWidth::Bits32);
    let all = Layout::new(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false, 2, 32);
    assert_eq!(all.transfer_area_len(), 8 * 2 * 32);
}

#[test]
fn task_descriptor_bytes() {
    let t = Tag::new(1).unwrap();
    let wide = layout(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    let mut tdl = [0xAAu8; 1024];
    wide.write_task(&mut tdl, t, 0x0102_0304_0506_0708).unwrap();
    assert_eq!(&tdl[32..40], &[8, 7, 6, 5, 4, 3, 2, 1]);
    // The crypto word of a 128-bit descriptor is zero.
    assert_eq!(&tdl[40..48], &[0; 8]);
    assert_eq!(TASK_DESC_CRYPTO::zeroed().raw(), 0);
    assert_eq!(TASK_DESC_CRYPTO::zeroed().with_ce(true).raw(), 1 << 47);
    assert_eq!(tdl[48], 0xAA);
    assert_eq!(tdl[31], 0xAA);

    let narrow = layout(TaskDescriptorSize::Bits64, DmaWidth::Bits64, false);
    let mut tdl = [0xAAu8; 768];
    narrow
        .write_task(&mut tdl, t, 0x0102_0304_0506_0708)
        .unwrap();
    assert_eq!(&tdl[24..32], &[8, 7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(tdl[32], 0xAA);
    assert_eq!(
        narrow.write_task(&mut tdl[..24], t, 0),
        Err(EncodeError::OutOfBounds)
    );
    assert_eq!(
        wide.write_task(&mut [0u8; 40], t, 0),
        Err(EncodeError::OutOfBounds)
    );
}

#[test]
fn link_descriptor_bytes() {
    let t = Tag::new(0).unwrap();
    let wide = layout(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    let mut tdl = [0xAAu8; 64];
    wide.write_link(&mut tdl, t, LinkDescriptor::Next(0x1_2345_6780))
        .unwrap();
    assert_eq!(
        &tdl[16..32],
        &[0x31, 0, 0, 0, 0x80, 0x67, 0x45, 0x23, 1, 0, 0, 0, 0, 0, 0, 0]
    );
    wide.write_link(&mut tdl, t, LinkDescriptor::Terminal)
        .unwrap();
    assert_eq!(
        &tdl[16..32],
        &[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(LINK_DESC::from_raw(0x31).act(), Some(Act::Link));
    assert_eq!(LINK_DESC::from_raw(0x2).act(), Some(Act::Nop));
    assert_eq!(TRAN_DESC::from_raw(0x38).act(), None);
    assert_eq!(TASK_DESC::from_raw(0x28).act(), Some(Act::Task));
    assert_eq!(tdl[32], 0xAA);

    let narrow = layout(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false);
    let mut tdl = [0xAAu8; 32];
    narrow
        .write_link(&mut tdl, t, LinkDescriptor::Next(0x8765_4320))
        .unwrap();
    assert_eq!(&tdl[8..16], &[0x31, 0, 0, 0, 0x20, 0x43, 0x65, 0x87]);
    assert_eq!(tdl[16], 0xAA);
    assert_eq!(
        narrow.write_link(&mut tdl, t, LinkDescriptor::Next(0x1_0000_0000)),
        Err(EncodeError::AddressTooWide)
    );
    assert_eq!(
        narrow.write_link(&mut tdl[..12], t, LinkDescriptor::Terminal),
        Err(EncodeError::OutOfBounds)
    );
}

#[test]
fn transfer_descriptor_bytes() {
    let d = TransferDescriptor::new(0x1_2345_6780, MAX_TRANSFER_LENGTH, true).unwrap();
    let wide = layout(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false);
    let mut area = [0xAAu8; 48];
    wide.write_transfer(&mut area, 1, &d).unwrap();
    assert_eq!(
        &area[16..32],
        &[0x23, 0, 0, 0, 0x80, 0x67, 0x45, 0x23, 1, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(area[15], 0xAA);
    assert_eq!(area[32], 0xAA);
    assert_eq!(
        wide.write_transfer(&mut area, 3, &d),
        Err(EncodeError::OutOfBounds)
    );

    let short = layout(TaskDescriptorSize::Bits128, DmaWidth::Bits64, true);
    let mut area = [0xAAu8; 36];
    short.write_transfer(&mut area, 1, &d).unwrap();
    assert_eq!(
        &area[12..24],
        &[0x23, 0, 0, 0, 0x80, 0x67, 0x45, 0x23, 1, 0, 0, 0]
    );
    assert_eq!(area[11], 0xAA);
    assert_eq!(area[24], 0xAA);

    let narrow = layout(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false);
    let small = TransferDescriptor::new(0x8765_4320, 4096, false).unwrap();
    let mut area = [0xAAu8; 24];
    narrow.write_transfer(&mut area, 2, &small).unwrap();
    assert_eq!(&area[16..24], &[0x21, 0, 0, 0x10, 0x20, 0x43, 0x65, 0x87]);
    assert_eq!(area[15], 0xAA);
    assert_eq!(
        narrow.write_transfer(&mut area, 1, &d),
        Err(EncodeError::AddressTooWide)
    );
    assert_eq!(
        narrow.write_transfer(&mut area, usize::MAX, &small),
        Err(EncodeError::OutOfBounds)
    );
}
