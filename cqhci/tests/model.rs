// SPDX-License-Identifier: GPL-2.0
//! Engine against the model with large buffers (host only): 64 KiB transfer descriptors,
//! 128-segment scatter lists and every descriptor layout, with the data checked end to end.

use cqhci::{
    CardInfo, CompletionStatus, Config, Cqhci, DataTask, DescriptorMemory, Direction, DmaWidth,
    Segment, Tag, TaskDescriptorSize, TaskFlags,
};
use sim::bus::Bus;
use sim::cqhci::{CqhciModel, ModelConfig};
use sim::emmc::{Card, ReadyOrder};
use sim::{BusFault, BusMemory, Ram};

struct Regions<'a>([Ram<'a>; 3]);

impl BusMemory for Regions<'_> {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), BusFault> {
        match self.0.iter_mut().find(|r| r.contains(address, buf.len())) {
            Some(r) => r.read(address, buf),
            None => Err(BusFault { address }),
        }
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), BusFault> {
        match self.0.iter_mut().find(|r| r.contains(address, data.len())) {
            Some(r) => r.write(address, data),
            None => Err(BusFault { address }),
        }
    }
}

const SECTORS: usize = 512;

/// Writes 256 KiB through `segments` pieces, reads it back through a different split, and
/// checks both the card and the buffer.
fn round_trip(
    config: Config,
    model: ModelConfig,
    base: u64,
    write_split: &[u32],
    read_split: &[u32],
) {
    let mut storage = vec![0u8; SECTORS * 512];
    let mut card = Card::new(&mut storage, 32, ReadyOrder::Immediate);
    card.initialize(7, true).unwrap();
    let mut engine = Cqhci::new(config).unwrap();
    let bus = Bus::new(CqhciModel::new(model));
    let mut tdl = vec![0u8; engine.layout().tdl_len()];
    let mut transfers = vec![0u8; engine.layout().transfer_area_len()];
    let (tdl_bus, xfer_bus, data_bus) = (base, base + 0x10_0000, base + 0x100_0000);
    let len = SECTORS * 512;
    let mut data: Vec<u8> = (0..2 * len).map(|i| (i * 7 + i / 512) as u8).collect();
    let card_info = CardInfo {
        command_queue_enabled: true,
        rca: 7,
    };
    let mut mem = DescriptorMemory {
        tdl: &mut tdl,
        tdl_bus,
        transfers: &mut transfers,
        transfers_bus: xfer_bus,
    };
    engine.enable(&bus, &(), card_info, &mut mem).unwrap();

    let segments = |split: &[u32], start: u64| -> Vec<Segment> {
        let mut at = start;
        split
            .iter()
            .map(|&length| {
                let s = Segment {
                    address: at,
                    length,
                };
                at += u64::from(length);
                s
            })
            .collect()
    };
    let plan = [
        (Direction::Write, segments(write_split, data_bus), 0u32),
        (
            Direction::Read,
            segments(read_split, data_bus + len as u64),
            0u32,
        ),
    ];
    for (direction, list, lba) in plan {
        let task = DataTask {
            direction,
            block_count: SECTORS as u16,
            block_address: lba,
            flags: TaskFlags::default(),
            context: 0,
        };
        let mut mem = DescriptorMemory {
            tdl: &mut tdl,
            tdl_bus,
            transfers: &mut transfers,
            transfers_bus: xfer_bus,
        };
        engine
            .issue_data(&bus, &(), &mut mem, Tag::new(5).unwrap(), &task, list)
            .unwrap();
        let mut done = false;
        for _ in 0..100 {
            let mut memory = Regions([
                Ram::new(tdl_bus, &mut tdl),
                Ram::new(xfer_bus, &mut transfers),
                Ram::new(data_bus, &mut data),
            ]);
            bus.model().step(&mut card, &mut memory);
            let pending = bus.model().interrupt_pending();
            if pending {
                let out = engine.irq(&bus, None, None);
                if out.completed.status(Tag::new(5).unwrap()) == Some(CompletionStatus::Done) {
                    done = true;
                    break;
                }
            }
        }
        assert_eq!(bus.model().violations(), (0, None), "violations");
        assert!(done, "{direction:?} did not complete");
    }
    let (written, read) = data.split_at(len);
    assert_eq!(card.storage(), written);
    assert_eq!(read, written);
}

fn config(task: TaskDescriptorSize, dma: DmaWidth, short: bool) -> Config {
    Config {
        task_descriptor: task,
        dma,
        short_transfer_descriptor: short,
        direct_commands: true,
        max_segments: 128,
        coalescing: None,
    }
}

fn model(dma64: bool, short: bool) -> ModelConfig {
    ModelConfig {
        dma64,
        short_transfer_descriptor: short,
        ..ModelConfig::MEDIATEK
    }
}

#[test]
fn four_64k_descriptors() {
    // One segment of 256 KiB becomes four descriptors whose length field is 0.
    round_trip(
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false),
        model(true, false),
        0x3_0000_0000,
        &[256 * 1024],
        &[65536, 65536, 65536, 65536],
    );
}

#[test]
fn one_hundred_twenty_eight_segments() {
    round_trip(
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false),
        model(true, false),
        0x3_0000_0000,
        &[2048; 128],
        &[65536 + 512, 65536 - 512, 131072],
    );
}

#[test]
fn short_transfer_descriptors() {
    round_trip(
        config(TaskDescriptorSize::Bits64, DmaWidth::Bits64, true),
        model(true, true),
        0x1_0000_0000,
        &[2048; 128],
        &[65536, 65536, 65536, 65536],
    );
}

#[test]
fn thirty_two_bit_dma() {
    round_trip(
        config(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false),
        model(false, false),
        0x4000_0000,
        &[4096; 64],
        &[65536, 65536, 131072],
    );
    round_trip(
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits32, false),
        model(false, false),
        0x4000_0000,
        &[262_144],
        &[512; 128].iter().map(|_| 2048).collect::<Vec<u32>>(),
    );
}

#[test]
#[should_panic(expected = "violations")]
fn model_catches_a_layout_mismatch() {
    // The engine writes 16-byte transfer descriptors; a controller wired for 12-byte ones
    // reads garbage and reports it instead of mirroring the engine.
    round_trip(
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false),
        model(true, true),
        0x3_0000_0000,
        &[2048; 128],
        &[262_144],
    );
}
