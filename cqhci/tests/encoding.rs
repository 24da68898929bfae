// SPDX-License-Identifier: GPL-2.0
//! Unit tests of every register and descriptor encoding, against values worked out by hand
//! from the CQHCI register and descriptor tables.

use cqhci::desc::{EncodeError, BLOCK_SIZE, MAX_TRANSFER_LENGTH};
use cqhci::regs::{
    response_index, send_status_rca, Capabilities, Cfg, Ctl, InterruptCoalescing, Interrupts,
    SendStatusConfig1, TaskErrorInfo, Version,
};
use cqhci::{
    DataTask, DcmdResponse, DirectCommand, Direction, DmaWidth, Layout, LinkDescriptor, Reg, Tag,
    TaskDescriptorSize, TaskFlags, TaskMask, TransferDescriptor,
};

#[test]
fn register_offsets_and_names() {
    let expected: [(Reg, usize, &str); 23] = [
        (Reg::Ver, 0x00, "CQVER"),
        (Reg::Cap, 0x04, "CQCAP"),
        (Reg::Cfg, 0x08, "CQCFG"),
        (Reg::Ctl, 0x0C, "CQCTL"),
        (Reg::Is, 0x10, "CQIS"),
        (Reg::Iste, 0x14, "CQISTE"),
        (Reg::Isge, 0x18, "CQISGE"),
        (Reg::Ic, 0x1C, "CQIC"),
        (Reg::Tdlba, 0x20, "CQTDLBA"),
        (Reg::Tdlbau, 0x24, "CQTDLBAU"),
        (Reg::Tdbr, 0x28, "CQTDBR"),
        (Reg::Tcn, 0x2C, "CQTCN"),
        (Reg::Dqs, 0x30, "CQDQS"),
        (Reg::Dpt, 0x34, "CQDPT"),
        (Reg::Tclr, 0x38, "CQTCLR"),
        (Reg::Tdpe, 0x3C, "CQTDPE"),
        (Reg::Ssc1, 0x40, "CQSSC1"),
        (Reg::Ssc2, 0x44, "CQSSC2"),
        (Reg::Crdct, 0x48, "CQCRDCT"),
        (Reg::Rmem, 0x50, "CQRMEM"),
        (Reg::Terri, 0x54, "CQTERRI"),
        (Reg::Cri, 0x58, "CQCRI"),
        (Reg::Cra, 0x5C, "CQCRA"),
    ];
    assert_eq!(Reg::ALL.len(), expected.len());
    for (reg, (want, offset, name)) in Reg::ALL.iter().zip(expected) {
        assert_eq!(*reg, want);
        assert_eq!(reg.offset(), offset, "{name}");
        assert_eq!(reg.name(), name);
    }
}

#[test]
fn flag_registers() {
    assert_eq!(Cfg::ENABLE.bits(), 0x1);
    assert_eq!(Cfg::CRYPTO_GENERAL_ENABLE.bits(), 0x2);
    assert_eq!(Cfg::TASK_DESC_128.bits(), 0x100);
    assert_eq!(Cfg::DCMD.bits(), 0x1000);
    assert_eq!(Ctl::HALT.bits(), 0x1);
    assert_eq!(Ctl::CLEAR_ALL_TASKS.bits(), 0x100);
    assert_eq!(Interrupts::HAC.bits(), 1);
    assert_eq!(Interrupts::TCC.bits(), 2);
    assert_eq!(Interrupts::RED.bits(), 4);
    assert_eq!(Interrupts::TCL.bits(), 8);
    assert_eq!(Interrupts::GCE.bits(), 0x10);
    assert_eq!(Interrupts::ICCE.bits(), 0x20);
    assert_eq!(Interrupts::OPERATIONAL.bits(), 0x36);
    assert_eq!(Interrupts::ERRORS.bits(), 0x34);
    assert_eq!(Interrupts::EMPTY.bits(), 0);

    let both = Cfg::ENABLE.union(Cfg::DCMD);
    assert_eq!(both.bits(), 0x1001);
    assert!(both.contains(Cfg::DCMD));
    assert!(!both.contains(Cfg::DCMD.union(Cfg::TASK_DESC_128)));
    assert!(both.intersects(Cfg::DCMD.union(Cfg::TASK_DESC_128)));
    assert!(!both.intersects(Cfg::TASK_DESC_128));
    assert_eq!(both.without(Cfg::ENABLE), Cfg::DCMD);
    assert_eq!(both.with(Cfg::TASK_DESC_128, true).bits(), 0x1101);
    assert_eq!(both.with(Cfg::DCMD, false), Cfg::ENABLE);
    assert_eq!(Cfg::from_bits(0x1100), Cfg::DCMD.union(Cfg::TASK_DESC_128));
}

#[test]
fn version_and_capabilities() {
    let v = Version::from_bits(0x0000_0510);
    assert_eq!((v.major(), v.minor()), (5, 10));
    let v = Version::from_bits(0xFFFF_F42A);
    assert_eq!((v.major(), v.minor()), (4, 30));
    let cap = Capabilities::from_bits(0x1000_30C8);
    assert!(cap.crypto_support());
    assert_eq!(cap.timer_clock_multiplier(), 3);
    assert_eq!(cap.timer_clock_value(), 0xC8);
    let cap = Capabilities::from_bits(0xEFFF_0FFF);
    assert!(!cap.crypto_support());
    assert_eq!(cap.timer_clock_multiplier(), 0);
    assert_eq!(cap.timer_clock_value(), 0x3FF);
}

#[test]
fn interrupt_coalescing() {
    assert_eq!(InterruptCoalescing::program(31, 1).bits(), 0x8000_9F81);
    assert_eq!(InterruptCoalescing::program(4, 127).bits(), 0x8000_84FF);
    // Out-of-range values are truncated to their fields, never spill into others.
    assert_eq!(InterruptCoalescing::program(0xFF, 0xFF).bits(), 0x8000_9FFF);
    assert_eq!(InterruptCoalescing::reset_counter().bits(), 0x8001_0000);
    let ic = InterruptCoalescing::from_bits(0x8010_0A05);
    assert!(ic.enabled());
    assert_eq!(ic.threshold(), 10);
    assert_eq!(ic.timeout(), 5);
    assert!(!InterruptCoalescing::from_bits(0x7FFF_FFFF).enabled());
    assert_eq!(InterruptCoalescing::ENABLE, 1 << 31);
    assert_eq!(InterruptCoalescing::STATUS, 1 << 20);
    assert_eq!(InterruptCoalescing::RESET, 1 << 16);
}

#[test]
fn send_status_and_response_fields() {
    let ssc1 = SendStatusConfig1::new(1, 0x1000);
    assert_eq!(ssc1.bits(), 0x0001_1000);
    assert_eq!(ssc1.block_counter(), 1);
    assert_eq!(ssc1.idle_timer(), 0x1000);
    assert_eq!(SendStatusConfig1::new(0x1F, 0xFFFF).bits(), 0x000F_FFFF);
    let read = SendStatusConfig1::from_bits(0xFFF5_ABCD);
    assert_eq!((read.block_counter(), read.idle_timer()), (5, 0xABCD));
    assert_eq!(send_status_rca(0xBEEF), 0xBEEF);
    assert_eq!(response_index(0xFFFF_FFED), 0x2D);
}

#[test]
fn task_error_info() {
    let t = TaskErrorInfo::from_bits(0x852F_8D2E);
    assert!(t.command_valid());
    assert_eq!(t.command_index(), 46);
    assert_eq!(t.command_task().number(), 13);
    assert!(t.data_valid());
    assert_eq!(t.data_index(), 47);
    assert_eq!(t.data_task().number(), 5);
    assert_eq!(t.bits(), 0x852F_8D2E);
    let none = TaskErrorInfo::from_bits(0x7FFF_7FFF);
    assert!(!none.command_valid());
    assert!(!none.data_valid());
    assert_eq!(none.command_task().number(), 31);
    assert_eq!(none.data_task().number(), 31);
    assert_eq!(none.command_index(), 0x3F);
    assert_eq!(none.data_index(), 0x3F);
}

#[test]
fn tags_and_masks() {
    assert_eq!(Tag::new(31), Some(Tag::DCMD));
    assert_eq!(Tag::new(32), None);
    let t = Tag::new(7).unwrap();
    assert_eq!((t.number(), t.index()), (7, 7));
    assert_eq!(t.mask().bits(), 0x80);
    let m = TaskMask::from_bits(0x8000_0005);
    assert_eq!(m.count(), 3);
    assert!(m.contains(Tag::DCMD));
    assert!(!m.contains(t));
    assert!(!m.is_empty());
    assert!(TaskMask::EMPTY.is_empty());
    let tags: Vec<u32> = m.iter().map(Tag::number).collect();
    assert_eq!(tags, [0, 2, 31]);
    assert_eq!(m.with(t).bits(), 0x8000_0085);
    assert_eq!(m.with(Tag::DCMD), m, "adding a member changes nothing");
    assert_eq!(m.without(t), m, "removing a non-member changes nothing");
    assert_eq!(m.without(Tag::DCMD).bits(), 5);
    assert_eq!(TaskMask::EMPTY.iter().next(), None);
}

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
    assert_eq!(read.encode(true), 0x0000_1234_0008_102F);
    assert_eq!(read.encode(false), 0x0000_1234_0008_102B);
    assert_eq!(read.byte_count(), 8 * BLOCK_SIZE);
    let write = task(Direction::Write, TaskFlags::default());
    assert_eq!(write.encode(true), 0x0000_1234_0008_002F);
    let each = [
        (
            TaskFlags {
                forced_programming: true,
                ..TaskFlags::default()
            },
            1u64 << 6,
        ),
        (
            TaskFlags {
                data_tag: true,
                ..TaskFlags::default()
            },
            1 << 11,
        ),
        (
            TaskFlags {
                priority: true,
                ..TaskFlags::default()
            },
            1 << 13,
        ),
        (
            TaskFlags {
                queue_barrier: true,
                ..TaskFlags::default()
            },
            1 << 14,
        ),
        (
            TaskFlags {
                reliable_write: true,
                ..TaskFlags::default()
            },
            1 << 15,
        ),
    ];
    for (flags, bit) in each {
        assert_eq!(
            task(Direction::Write, flags).encode(true),
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
        context: 0xFF,
    };
    assert_eq!(full.encode(true), 0xFFFF_FFFF_FFFF_FFEF);
    let context = DataTask {
        context: 0x5,
        ..task(Direction::Write, TaskFlags::default())
    };
    assert_eq!(context.encode(true), 0x0000_1234_0008_02AF);
}

#[test]
fn direct_command_descriptor() {
    let flush = DirectCommand {
        opcode: 6,
        argument: 0x0320_0100,
        response: DcmdResponse::ShortBusy,
    };
    assert_eq!(flush.encode(), 0x0320_0100_0186_402F);
    let status = DirectCommand {
        opcode: 13,
        argument: 0x0002_0000,
        response: DcmdResponse::Short,
    };
    assert_eq!(status.encode(), 0x0002_0000_014D_402F);
    let none = DirectCommand {
        opcode: 0x7F,
        argument: 0,
        response: DcmdResponse::None,
    };
    assert_eq!(none.encode(), 0x0000_0000_007F_402F);
}

#[test]
fn transfer_descriptor_lengths() {
    assert_eq!(TransferDescriptor::new(0, 0, true), None);
    assert_eq!(
        TransferDescriptor::new(0, MAX_TRANSFER_LENGTH + 1, true),
        None
    );
    let d = TransferDescriptor::new(0x1000, 512, false).unwrap();
    assert_eq!(d.attribute_word(), 0x0200_0021);
    assert_eq!((d.address(), d.length(), d.is_end()), (0x1000, 512, false));
    let last = TransferDescriptor::new(0x1000, 0xFFFF, true).unwrap();
    assert_eq!(last.attribute_word(), 0xFFFF_0023);
    // The 16-bit field holds 0 for 64 KiB.
    let max = TransferDescriptor::new(0x1000, MAX_TRANSFER_LENGTH, true).unwrap();
    assert_eq!(max.attribute_word(), 0x0000_0023);
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
