// SPDX-License-Identifier: GPL-2.0
//! Benchmark of the engine's hot paths: preparing and issuing one data task (1, 16 and 128
//! segments) and handling one completion interrupt, over memory-backed registers on a
//! `models::bus::Bus`.
//!
//! Prints nanoseconds per operation; nothing is asserted about the figures.

use std::hint::black_box;
use std::time::Instant;

use cqhci::regs::{CQIS, CQTCN};
use cqhci::{
    CardInfo, Config, Cqhci, CqhciBlock, DataTask, DescriptorMemory, Direction, DmaWidth,
    Interrupts, Segment, Tag, TaskDescriptorSize, TaskFlags,
};
use models::bus::{Bus, RegisterFile, Serves};

/// Registers kept in memory: writes to CQIS and CQTCN clear bits like the hardware.
struct Regs([u32; 24]);

impl RegisterFile for Regs {
    fn read(&mut self, offset: usize) -> u32 {
        self.0[offset / 4]
    }

    fn write(&mut self, offset: usize, value: u32) {
        let slot = &mut self.0[offset / 4];
        match offset {
            CQIS::OFFSET | CQTCN::OFFSET => *slot &= !value,
            _ => *slot = value,
        }
    }
}

impl Serves<CqhciBlock> for Regs {
    const BASE: usize = 0;
}

const ROUNDS: u32 = 200_000;

fn main() {
    let config = Config {
        task_descriptor: TaskDescriptorSize::Bits128,
        dma: DmaWidth::Bits64,
        short_transfer_descriptor: false,
        direct_commands: true,
        max_segments: 128,
        coalescing: None,
    };
    let mut engine = Cqhci::new(config).expect("config");
    let regs = Bus::new(Regs([0; 24]));
    let mut tdl = vec![0u8; engine.layout().tdl_len()];
    let mut transfers = vec![0u8; engine.layout().transfer_area_len()];
    let card = CardInfo {
        command_queue_enabled: true,
        rca: 1,
    };
    let mut mem = DescriptorMemory {
        tdl: &mut tdl,
        tdl_bus: 0x1_0000_0000,
        transfers: &mut transfers,
        transfers_bus: 0x1_0001_0000,
    };
    engine.enable(&regs, &(), card, &mut mem).expect("enable");
    let tag = Tag::new(3).expect("tag");

    for segments in [1u32, 16, 128] {
        let list: Vec<Segment> = (0..segments)
            .map(|i| Segment {
                address: 0x2_0000_0000 + u64::from(i) * 0x2000,
                length: 4096,
            })
            .collect();
        let task = DataTask {
            direction: Direction::Write,
            block_count: (segments * 8) as u16,
            block_address: 0x1000,
            flags: TaskFlags::default(),
            context: 0,
        };
        let mut issue_ns = 0u128;
        let mut irq_ns = 0u128;
        for _ in 0..ROUNDS {
            let start = Instant::now();
            let ticket = engine
                .issue_data(&regs, &(), &mut mem, tag, &task, list.iter().copied())
                .expect("issue");
            issue_ns += start.elapsed().as_nanos();
            black_box(ticket);
            regs.model().0[CQIS::OFFSET / 4] = Interrupts::TCC.bits();
            regs.model().0[CQTCN::OFFSET / 4] = tag.mask().bits();
            let start = Instant::now();
            let out = engine.irq(&regs, None, None);
            irq_ns += start.elapsed().as_nanos();
            black_box(out);
        }
        let rounds = u128::from(ROUNDS);
        println!(
            "prepare+issue {segments:>3} segment(s): {:>6} ns/task",
            issue_ns / rounds
        );
        println!(
            "completion interrupt ({segments:>3}-segment task): {:>6} ns/irq",
            irq_ns / rounds
        );
    }
}
