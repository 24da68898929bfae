// SPDX-License-Identifier: GPL-2.0
//! Engine against the model with large buffers (host only): 64 KiB transfer descriptors,
//! 128-segment scatter lists and every descriptor layout, with the data checked end to end.

use cqhci::{
    CardInfo, CompletionStatus, Config, Cqhci, DataTask, DescriptorMemory, Direction, DmaWidth,
    Segment, Tag, TaskDescriptorSize, TaskFlags,
};
use models::bus::Bus;
use models::cqhci::{CqhciModel, ModelConfig};
use models::emmc::{Card, ReadyOrder};
use models::{BusFault, BusMemory, Ram};

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

/// Declares one test per entry: a [`round_trip`] with the engine's configuration, the
/// model's, the bus address of the memory, and the write and read splits.
macro_rules! round_trips {
    ($(
        $(#[$attr:meta])*
        $name:ident: $config:expr, $model:expr,
            at $base:expr, write $write:expr, read $read:expr;
    )*) => {$(
        #[test]
        $(#[$attr])*
        fn $name() {
            round_trip($config, $model, $base, $write, $read);
        }
    )*};
}

round_trips! {
    /// One segment of 256 KiB becomes four descriptors whose length field is 0.
    four_64k_descriptors:
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false), model(true, false),
        at 0x3_0000_0000, write &[256 * 1024], read &[65536; 4];

    one_hundred_twenty_eight_segments:
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false), model(true, false),
        at 0x3_0000_0000, write &[2048; 128], read &[65536 + 512, 65536 - 512, 131072];

    short_transfer_descriptors:
        config(TaskDescriptorSize::Bits64, DmaWidth::Bits64, true), model(true, true),
        at 0x1_0000_0000, write &[2048; 128], read &[65536; 4];

    thirty_two_bit_dma:
        config(TaskDescriptorSize::Bits64, DmaWidth::Bits32, false), model(false, false),
        at 0x4000_0000, write &[4096; 64], read &[65536, 65536, 131072];

    thirty_two_bit_dma_with_128_bit_tasks:
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits32, false), model(false, false),
        at 0x4000_0000, write &[262_144], read &[2048; 128];

    /// The engine writes 16-byte transfer descriptors; a controller wired for 12-byte ones
    /// reads garbage and reports it instead of mirroring the engine.
    #[should_panic(expected = "violations")]
    model_catches_a_layout_mismatch:
        config(TaskDescriptorSize::Bits128, DmaWidth::Bits64, false), model(true, true),
        at 0x3_0000_0000, write &[2048; 128], read &[262_144];
}
