// SPDX-License-Identifier: GPL-2.0
//! Cross-checks the MSDC driver's logic crate against the independently written MSDC and
//! SD card models: register values come from `msdc::{command, dma, clock, regs}`, behaviour
//! from `sim::msdc` and `sim::sd`.

use msdc::clock::{self, DividerWidth, Timing};
use msdc::command::{
    response_words, AutoCommand, Command as DrvCommand, DataDirection, DataTransfer, ResponseType,
};
use msdc::dma::{self, DescriptorArea, DmaAddressing, Segment};
use msdc::errors::{self, ErrorKind};
use msdc::regs::{
    InterruptSet, RegisterWord, DMA_SA_H4BIT, MSDC_CFG, MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_DMA_SA,
    MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_PATCH_BIT2, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD,
    SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS,
};
use sim::emmc::{Card, CardState, ReadyOrder};
use sim::msdc::{CardSlot, Fault, ModelConfig, MsdcModel, Violation};
use sim::sd::{SdCard, SdConfig, ACMD41_BUSY_POLLS, BLOCK_SIZE, DEFAULT_RCA};
use sim::Ram;

/// RAM above 4 GiB, so the 36-bit address paths are exercised.
const RAM_BASE: u64 = 0x1_2000_0000;
/// RAM for a controller without 36-bit DMA.
const RAM_BASE_32: u64 = 0x8000_0000;
const RAM_LEN: usize = 0x5_0000;
/// Offset of the data buffers in RAM (the descriptors are at offset 0).
const DATA_OFFSET: u64 = 0x1_0000;
const SOURCE_HZ: u32 = 200_000_000;

const CMD_INTS: InterruptSet = errors::COMMAND_INTERRUPTS;
const DATA_INTS: InterruptSet = errors::DATA_INTERRUPTS;

/// What one request ended with.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Done([u32; 4]),
    Command(ErrorKind),
    Data(ErrorKind),
}

struct Host {
    model: MsdcModel,
    ram: Vec<u8>,
    base: u64,
    addressing: DmaAddressing,
    /// Corrupt byte `n` of the descriptor area after writing the chain.
    corrupt_descriptor: Option<usize>,
    /// Events seen by the last request.
    last_events: u32,
}

impl Host {
    fn new() -> Self {
        Self::with(ModelConfig::default())
    }

    fn with(config: ModelConfig) -> Self {
        let (base, addressing) = if config.support_64g {
            (RAM_BASE, DmaAddressing::Bits36)
        } else {
            (RAM_BASE_32, DmaAddressing::Bits32)
        };
        let mut h = Self {
            model: MsdcModel::new(config),
            ram: vec![0; RAM_LEN],
            base,
            addressing,
            corrupt_descriptor: None,
            last_events: 0,
        };
        h.init();
        h
    }

    fn rd(&mut self, offset: usize) -> u32 {
        self.model.read(offset)
    }

    fn wr(&mut self, offset: usize, value: u32) {
        self.model.write(offset, value)
    }

    fn poll_clear(&mut self, offset: usize, bit: u32) {
        for _ in 0..16 {
            if self.rd(offset) & bit == 0 {
                return;
            }
        }
        panic!("bit {bit:#x} of {offset:#x} never cleared");
    }

    fn reset_hw(&mut self) {
        let cfg = MSDC_CFG::from_raw(self.rd(MSDC_CFG::OFFSET)).with_flag(MSDC_CFG::RST, true);
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        self.poll_clear(MSDC_CFG::OFFSET, MSDC_CFG::RST.mask());
        let fifo = MSDC_FIFOCS::default().with_flag(MSDC_FIFOCS::CLR, true);
        self.wr(MSDC_FIFOCS::OFFSET, fifo.raw());
        self.poll_clear(MSDC_FIFOCS::OFFSET, MSDC_FIFOCS::CLR.mask());
        let all = self.rd(MSDC_INT::OFFSET);
        self.wr(MSDC_INT::OFFSET, all);
    }

    fn init(&mut self) {
        let cfg = MSDC_CFG::default()
            .with_flag(MSDC_CFG::MODE, true)
            .with_flag(MSDC_CFG::CKPDN, true);
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        self.reset_hw();
        self.wr(MSDC_INTEN::OFFSET, 0);
        let p2 = MSDC_PATCH_BIT2::default().with_flag(
            MSDC_PATCH_BIT2::SUPPORT_64G,
            self.addressing == DmaAddressing::Bits36,
        );
        self.wr(MSDC_PATCH_BIT2::OFFSET, p2.raw());
        self.set_clock(400_000, Timing::Legacy);
    }

    fn set_clock(&mut self, hz: u32, timing: Timing) {
        let plan = clock::plan(SOURCE_HZ, hz, timing, DividerWidth::Bits8).unwrap();
        let clock::ClockPlan::Running(setting) = plan else {
            panic!("gated");
        };
        let cfg = MSDC_CFG::from_raw(self.rd(MSDC_CFG::OFFSET));
        let cfg = setting.apply(cfg, DividerWidth::Bits8).unwrap();
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        for _ in 0..16 {
            if self.rd(MSDC_CFG::OFFSET) & MSDC_CFG::CKSTB.mask() != 0 {
                return;
            }
        }
        panic!("clock never stable");
    }

    fn set_bus_width(&mut self, code: u32) {
        let c = SDC_CFG::from_raw(self.rd(SDC_CFG::OFFSET))
            .with(SDC_CFG::BUSWIDTH, code)
            .unwrap();
        self.wr(SDC_CFG::OFFSET, c.raw());
    }

    fn ack(&mut self) -> u32 {
        let events = self.rd(MSDC_INT::OFFSET) & self.rd(MSDC_INTEN::OFFSET);
        self.wr(MSDC_INT::OFFSET, events);
        self.last_events |= events;
        events
    }

    /// Writes the chain for `segments` and points the DMA at it.
    fn setup_dma(&mut self, segments: &[Segment]) {
        let mut scratch = vec![0u8; dma::area_len(16)];
        let mut area = DescriptorArea::new(&mut scratch, self.base, self.addressing).unwrap();
        let data_at = self.base + DATA_OFFSET;
        let start = area
            .write_chain(segments.iter().map(|s| Segment {
                bus_address: data_at + s.bus_address,
                len: s.len,
            }))
            .unwrap();
        let len = scratch.len();
        self.ram[..len].copy_from_slice(&scratch);
        if let Some(n) = self.corrupt_descriptor {
            self.ram[n] ^= 0x5A;
        }
        let dcfg = dma::checksum_checking(MSDC_DMA_CFG::from_raw(self.rd(MSDC_DMA_CFG::OFFSET)));
        self.wr(MSDC_DMA_CFG::OFFSET, dcfg.raw());
        let dctrl = dma::descriptor_mode(MSDC_DMA_CTRL::from_raw(self.rd(MSDC_DMA_CTRL::OFFSET)));
        self.wr(MSDC_DMA_CTRL::OFFSET, dctrl.raw());
        if let Some(high) = start.start_high {
            let high: DMA_SA_H4BIT = high;
            self.wr(DMA_SA_H4BIT::OFFSET, high.raw());
        }
        let low: MSDC_DMA_SA = start.start_low;
        self.wr(MSDC_DMA_SA::OFFSET, low.raw());
    }

    fn run<C: CardSlot>(&mut self, card: &mut C) {
        let mut mem = Ram::new(self.base, &mut self.ram);
        self.model.run(card, &mut mem, 16);
    }

    /// Issues one command (with its data phase through `segments`) the way the driver would.
    fn request<C: CardSlot>(
        &mut self,
        card: &mut C,
        cmd: DrvCommand,
        arg: u32,
        segments: &[Segment],
    ) -> Outcome {
        self.last_events = 0;
        assert_eq!(
            self.rd(SDC_STS::OFFSET) & SDC_STS::CMDBUSY.mask(),
            0,
            "controller busy"
        );
        let word: SDC_CMD = cmd.sdc_cmd().unwrap();
        if let Some(data) = cmd.data {
            self.wr(SDC_BLK_NUM::OFFSET, data.blocks);
            self.setup_dma(segments);
        }
        self.wr(MSDC_INTEN::OFFSET, CMD_INTS.bits());
        self.wr(SDC_ARG::OFFSET, arg);
        self.wr(SDC_CMD::OFFSET, word.raw());
        assert!(self.rd(SDC_STS::OFFSET) & SDC_STS::CMDBUSY.mask() != 0);
        self.run(card);
        assert!(self.model.interrupt_pending());
        let events = InterruptSet::from_bits_retain(self.ack());
        if cmd.auto_command == AutoCommand::Cmd23 {
            assert_eq!(errors::auto_command_outcome(events), Some(Ok(())));
        }
        let regs = [
            self.rd(SDC_RESP0::OFFSET),
            self.rd(SDC_RESP1::OFFSET),
            self.rd(SDC_RESP2::OFFSET),
            self.rd(SDC_RESP3::OFFSET),
        ];
        match errors::command_outcome(events, cmd.response) {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                self.reset_hw();
                return Outcome::Command(e);
            }
            None => panic!("no command event: {events:?}"),
        }
        let resp = response_words(cmd.response, regs);
        if cmd.data.is_none() {
            return Outcome::Done(resp);
        }
        self.wr(MSDC_INTEN::OFFSET, (CMD_INTS | DATA_INTS).bits());
        let start = MSDC_DMA_CTRL::from_raw(self.rd(MSDC_DMA_CTRL::OFFSET))
            .with_flag(MSDC_DMA_CTRL::START, true);
        self.wr(MSDC_DMA_CTRL::OFFSET, start.raw());
        self.run(card);
        let events = InterruptSet::from_bits_retain(self.ack());
        let stop = MSDC_DMA_CTRL::from_raw(self.rd(MSDC_DMA_CTRL::OFFSET))
            .with_flag(MSDC_DMA_CTRL::STOP, true);
        self.wr(MSDC_DMA_CTRL::OFFSET, stop.raw());
        self.poll_clear(MSDC_DMA_CTRL::OFFSET, MSDC_DMA_CTRL::STOP.mask());
        self.poll_clear(MSDC_DMA_CFG::OFFSET, MSDC_DMA_CFG::STS.mask());
        if cmd.auto_command == AutoCommand::Cmd12 {
            assert_eq!(errors::auto_command_outcome(events), Some(Ok(())));
        }
        match errors::data_outcome(events) {
            Some(Ok(())) => Outcome::Done(resp),
            Some(Err(e)) => {
                self.reset_hw();
                Outcome::Data(e)
            }
            None => panic!("no data event: {events:?}"),
        }
    }

    fn simple<C: CardSlot>(
        &mut self,
        card: &mut C,
        op: u32,
        rt: ResponseType,
        arg: u32,
    ) -> Outcome {
        self.request(card, DrvCommand::new(op, rt), arg, &[])
    }

    fn ok<C: CardSlot>(&mut self, card: &mut C, op: u32, rt: ResponseType, arg: u32) -> [u32; 4] {
        match self.simple(card, op, rt, arg) {
            Outcome::Done(r) => r,
            other => panic!("CMD{op} failed: {other:?}"),
        }
    }

    fn read<C: CardSlot>(
        &mut self,
        card: &mut C,
        op: u32,
        arg: u32,
        (block, blocks): (u32, u32),
        auto: AutoCommand,
        segments: &[Segment],
    ) -> Outcome {
        let data = DataTransfer::blocks(DataDirection::Read, block, blocks);
        let cmd = DrvCommand::new(op, ResponseType::R1)
            .with_data(data)
            .with_auto_command(auto);
        self.request(card, cmd, arg, segments)
    }

    fn write<C: CardSlot>(
        &mut self,
        card: &mut C,
        op: u32,
        arg: u32,
        blocks: u32,
        auto: AutoCommand,
        segments: &[Segment],
    ) -> Outcome {
        let data = DataTransfer::blocks(DataDirection::Write, 512, blocks);
        let cmd = DrvCommand::new(op, ResponseType::R1)
            .with_data(data)
            .with_auto_command(auto);
        self.request(card, cmd, arg, segments)
    }

    fn data(&self, offset: usize, len: usize) -> &[u8] {
        let at = DATA_OFFSET as usize + offset;
        &self.ram[at..at + len]
    }

    fn data_mut(&mut self, offset: usize, len: usize) -> &mut [u8] {
        let at = DATA_OFFSET as usize + offset;
        &mut self.ram[at..at + len]
    }
}

/// A segment at `offset` into the data buffers (made a bus address by `setup_dma`).
fn seg(offset: u64, len: u32) -> Segment {
    Segment {
        bus_address: offset,
        len,
    }
}

fn rca_arg() -> u32 {
    u32::from(DEFAULT_RCA) << 16
}

fn pattern(storage: &mut [u8]) {
    for (i, b) in storage.iter_mut().enumerate() {
        *b = (i * 7 + i / 512) as u8;
    }
}

/// Runs the SD initialisation the MMC core performs (mmc_attach_sd) up to the transfer
/// state at 4-bit UHS SDR104, and checks what the card reported on the way.
/// A host and a default SD card brought to 4-bit SDR104 transfer state.
fn initialised_sd(storage: &mut [u8]) -> (Host, SdCard<'_>) {
    let mut card = SdCard::new(storage, SdConfig::default());
    let mut h = Host::new();
    sd_init(&mut h, &mut card);
    (h, card)
}

fn sd_init(h: &mut Host, card: &mut SdCard<'_>) {
    use ResponseType::*;
    assert_eq!(h.simple(card, 0, None, 0), Outcome::Done([0; 4]));
    let r7 = h.ok(card, 8, R1, 0x1AA)[0];
    assert_eq!(r7 & 0xFFF, 0x1AA, "CMD8 echoes VHS and check pattern");
    let mut polls = 0;
    let ocr = loop {
        h.ok(card, 55, R1, 0);
        let ocr = h.ok(card, 41, R3, 0x4100_0000 | 0x00FF_8000)[0];
        polls += 1;
        if ocr & (1 << 31) != 0 {
            break ocr;
        }
        assert!(polls < 10, "card never ready");
    };
    assert_eq!(polls, ACMD41_BUSY_POLLS + 1);
    assert!(ocr & (1 << 30) != 0, "CCS: high capacity");
    assert!(ocr & (1 << 24) != 0, "S18A");
    // CMD11: the voltage switch command carries VOLSWTH.
    let r = h.ok(card, 11, R1, 0)[0];
    assert_eq!(r & 0xFFF9_0000, 0);
    assert!(card.signal_1v8());
    let cid = h.ok(card, 2, R2, 0);
    assert_eq!(cid[0] >> 24, 0x03, "MID in resp[0] bits 31:24");
    let r6 = h.ok(card, 3, R1, 0)[0];
    assert_eq!(r6 >> 16, u32::from(DEFAULT_RCA));
    let csd = h.ok(card, 9, R2, rca_arg());
    assert_eq!(csd[0] >> 30, 1, "CSD version 2.0");
    let r = h.ok(card, 7, R1b, rca_arg())[0];
    assert_eq!((r >> 9) & 0xF, 3, "CMD7 answered in stby");
    assert_eq!(card.state(), CardState::Tran);
    // ACMD51: SCR, 8 bytes of data.
    h.ok(card, 55, R1, rca_arg());
    let scr = h.read(card, 51, 0, (8, 1), AutoCommand::None, &[seg(0, 8)]);
    assert!(matches!(scr, Outcome::Done(_)), "{scr:?}");
    assert_eq!(h.data(0, 4), &[0x02, 0x05, 0x80, 0x02]);
    // ACMD6: 4-bit bus, then the host.
    h.ok(card, 55, R1, rca_arg());
    h.ok(card, 6, R1, 2);
    h.set_bus_width(1);
    assert_eq!(card.bus_width(), 4);
    // CMD6 check then switch to SDR104 (function 3 of group 1).
    let switch = |h: &mut Host, card: &mut SdCard<'_>, arg: u32| {
        let out = h.read(card, 6, arg, (64, 1), AutoCommand::None, &[seg(0x100, 64)]);
        assert!(matches!(out, Outcome::Done(_)), "{out:?}");
        h.data(0x100, 64).to_vec()
    };
    let status = switch(h, card, 0x00FF_FFF3);
    assert!(status[13] & (1 << 3) != 0, "SDR104 supported at 1.8 V");
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(card.access_mode(), 0, "check mode switches nothing");
    let status = switch(h, card, 0x80FF_FFF3);
    assert_eq!(status[16] & 0xF, 3);
    assert_eq!(card.access_mode(), 3);
    h.set_clock(200_000_000, Timing::UhsSdr104);
}

#[test]
fn sd_initialisation_through_the_controller() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    let status = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert_eq!((status >> 9) & 0xF, 4);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}

#[test]
fn sd_single_and_multi_block_reads_and_writes() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let (mut h, mut card) = initialised_sd(&mut storage);

    // CMD17, one segment.
    let out = h.read(
        &mut card,
        17,
        5,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 512), &expect[5 * 512..6 * 512]);

    // CMD18 over three segments, ended by a software CMD12.
    let segs = [seg(0, 1000), seg(0x2000, 24), seg(0x4000, 512)];
    let out = h.read(&mut card, 18, 10, (512, 3), AutoCommand::None, &segs);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(
        card.state(),
        CardState::Data,
        "open-ended read still running"
    );
    let stop = DrvCommand::new(12, ResponseType::R1b);
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    assert_eq!(card.state(), CardState::Tran);
    assert_eq!(h.data(0, 1000), &expect[10 * 512..10 * 512 + 1000]);
    assert_eq!(h.data(0x2000, 24), &expect[10 * 512 + 1000..11 * 512 + 512]);
    assert_eq!(h.data(0x4000, 512), &expect[12 * 512..13 * 512]);

    // CMD18 with auto-CMD12.
    let out = h.read(
        &mut card,
        18,
        20,
        (512, 2),
        AutoCommand::Cmd12,
        &[seg(0, 1024)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran);
    assert_eq!(h.data(0, 1024), &expect[20 * 512..22 * 512]);

    // CMD24.
    h.data_mut(0, 512).fill(0xA5);
    let out = h.write(&mut card, 24, 7, 1, AutoCommand::None, &[seg(0, 512)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    // CMD23 (software, as for SD) then CMD25 of two blocks.
    h.data_mut(0x1000, 1024).fill(0x3C);
    h.ok(&mut card, 23, ResponseType::R1, 2);
    let out = h.write(
        &mut card,
        25,
        30,
        2,
        AutoCommand::None,
        &[seg(0x1000, 1024)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran, "CMD23 bounded the write");
    // CMD25 with auto-CMD12.
    h.data_mut(0x3000, 1536).fill(0x77);
    let out = h.write(
        &mut card,
        25,
        40,
        3,
        AutoCommand::Cmd12,
        &[seg(0x3000, 1536)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
    assert!(storage[7 * 512..8 * 512].iter().all(|&b| b == 0xA5));
    assert!(storage[30 * 512..32 * 512].iter().all(|&b| b == 0x3C));
    assert_eq!(storage[32 * 512], expect[32 * 512]);
    assert!(storage[40 * 512..43 * 512].iter().all(|&b| b == 0x77));
    assert_eq!(storage[6 * 512..7 * 512], expect[6 * 512..7 * 512]);
}

#[test]
fn emmc_multi_block_with_auto_cmd23() {
    let mut storage = vec![0u8; 32 * 512];
    pattern(&mut storage);
    let expect = storage.clone();
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    card.initialize(1, false).unwrap();
    let mut h = Host::new();
    h.set_bus_width(2);
    let out = h.read(
        &mut card,
        18,
        4,
        (512, 4),
        AutoCommand::Cmd23,
        &[seg(0, 2048)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(card.state(), CardState::Tran, "auto-CMD23 bounded the read");
    assert_eq!(h.data(0, 2048), &expect[4 * 512..8 * 512]);
    h.data_mut(0, 1024).fill(0xEE);
    let out = h.write(&mut card, 25, 9, 2, AutoCommand::Cmd23, &[seg(0, 1024)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
    assert!(card.storage()[9 * 512..11 * 512].iter().all(|&b| b == 0xEE));
}

#[test]
fn injected_command_faults() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.model.inject(Fault::CommandTimeout);
    assert_eq!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Command(ErrorKind::TimedOut)
    );
    h.model.inject(Fault::ResponseCrc);
    assert_eq!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Command(ErrorKind::BadCrc)
    );
    // The fault is for one command only.
    assert!(matches!(
        h.simple(&mut card, 13, ResponseType::R1, rca_arg()),
        Outcome::Done(_)
    ));
}

#[test]
fn injected_data_faults() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.model.inject(Fault::DataCrc);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
    h.model.inject(Fault::DataTimeout);
    let out = h.read(
        &mut card,
        18,
        0,
        (512, 2),
        AutoCommand::None,
        &[seg(0, 1024)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    // The card still sends: the driver stops it with CMD12 and carries on.
    assert_eq!(card.state(), CardState::Data);
    let stop = DrvCommand::new(12, ResponseType::R1b);
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    let out = h.read(
        &mut card,
        17,
        1,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
}

#[test]
fn descriptor_checksum_errors() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // Byte 4 of the GPD (its `next` field) is covered by the checksum.
    h.corrupt_descriptor = Some(4);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::DmaFault));
    assert!(h.last_events & InterruptSet::DMA_GPDCSERR.bits() != 0);
    let stop = DrvCommand::new(12, ResponseType::R1b);
    // The single block read is still open on the card's side: CMD12 ends it.
    assert!(matches!(
        h.request(&mut card, stop, 0, &[]),
        Outcome::Done(_)
    ));
    // First BD at offset 64.
    h.corrupt_descriptor = Some(64 + 8);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::DmaFault));
    assert!(h.last_events & InterruptSet::DMA_BDCSERR.bits() != 0);
}

#[test]
fn bus_width_mismatch_is_a_data_crc_error() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    h.set_bus_width(0);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
}

#[test]
fn illegal_and_out_of_range_commands() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // CMD2 in tran: illegal, no response; the next status reports ILLEGAL_COMMAND once.
    assert_eq!(
        h.simple(&mut card, 2, ResponseType::R2, 0),
        Outcome::Command(ErrorKind::TimedOut)
    );
    let s = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert!(s & (1 << 22) != 0);
    let s = h.ok(&mut card, 13, ResponseType::R1, rca_arg())[0];
    assert_eq!(s & (1 << 22), 0);
    // A read beyond the capacity: OUT_OF_RANGE in the response, no data (timeout).
    let out = h.read(
        &mut card,
        17,
        1000,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    // An open-ended read that runs off the end; CMD12's response reports OUT_OF_RANGE.
    let out = h.read(
        &mut card,
        18,
        63,
        (512, 2),
        AutoCommand::None,
        &[seg(0, 1024)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::TimedOut));
    let stop = DrvCommand::new(12, ResponseType::R1b);
    let Outcome::Done(r) = h.request(&mut card, stop, 0, &[]) else {
        panic!("CMD12 failed");
    };
    assert!(r[0] & (1 << 31) != 0);
}

#[test]
fn r3_received_as_r1_fails_crc() {
    let mut storage = vec![0u8; 16 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::new();
    h.ok(&mut card, 0, ResponseType::None, 0);
    h.ok(&mut card, 8, ResponseType::R1, 0x1AA);
    h.ok(&mut card, 55, ResponseType::R1, 0);
    assert_eq!(
        h.simple(&mut card, 41, ResponseType::R1, 0x40FF_8000),
        Outcome::Command(ErrorKind::BadCrc)
    );
}

#[test]
fn register_behaviour() {
    let mut m = MsdcModel::new(ModelConfig::default());
    // RST reads back set once, then clear.
    m.write(0x00, 0x5);
    assert_eq!(m.read(0x00) & 0x4, 0x4);
    assert_eq!(m.read(0x00) & 0x4, 0);
    // CKSTB drops on a divider change.
    m.write(0x00, 0x1 | (125 << 8));
    assert_eq!(m.bus_clock_hz(), 400_000);
    assert_eq!(m.read(0x00) & 0x80, 0);
    let mut stable = false;
    for _ in 0..4 {
        stable |= m.read(0x00) & 0x80 != 0;
    }
    assert!(stable);
    // DAT0 high: the card is not busy (msdc_card_busy), card present (CDSTS 0).
    assert_eq!(m.read(0x08) & ((1 << 16) | (1 << 1)), 1 << 16);
    // FIFO clear self-clears.
    m.write(0x14, 1 << 31);
    assert!(m.read(0x14) & (1 << 31) != 0);
    assert_eq!(m.read(0x14) & (1 << 31), 0);
    // W1C and masking: a command to nothing times out.
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut ram = vec![0u8; 64];
    let mut mem = Ram::new(0, &mut ram);
    m.write(0x38, 0);
    m.write(0x34, 13 | (1 << 7));
    assert_eq!(m.read(0x3C) & 3, 2, "CMDBUSY only");
    m.run(&mut card, &mut mem, 4);
    assert_eq!(m.read(0x3C) & 3, 0);
    assert_eq!(m.read(0x0C), 1 << 9);
    assert!(!m.interrupt_pending());
    m.write(0x10, 1 << 9);
    assert!(m.interrupt_pending());
    m.write(0x0C, 1 << 8);
    assert!(m.interrupt_pending());
    m.write(0x0C, 1 << 9);
    assert!(!m.interrupt_pending());
    // Unknown registers are refused visibly.
    m.write(0x300, 1);
    let (n, list) = m.violations();
    assert_eq!(n, 1);
    assert_eq!(list[0], Some(Violation::UnknownRegister(0x300)));
}

#[test]
fn pio_mode_is_rejected() {
    let mut storage = vec![0u8; 8 * BLOCK_SIZE];
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::new();
    let cfg = h.rd(0) | 0x8;
    h.wr(0, cfg);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert_eq!(out, Outcome::Command(ErrorKind::TimedOut));
    assert_eq!(h.model.violations().1[0], Some(Violation::PioMode));
}

#[test]
fn clock_settings_agree_with_the_model() {
    for width in [DividerWidth::Bits8, DividerWidth::Bits12] {
        let config = ModelConfig {
            divider_12bit: width == DividerWidth::Bits12,
            ..ModelConfig::default()
        };
        let cases = [
            (400_000, Timing::Legacy),
            (300_000, Timing::Legacy),
            (25_000_000, Timing::SdHighSpeed),
            (50_000_000, Timing::UhsSdr50),
            (100_000_000, Timing::UhsSdr50),
            (200_000_000, Timing::UhsSdr104),
            (208_000_000, Timing::UhsSdr104),
            (150_000_000, Timing::MmcHs200),
            (50_000_000, Timing::UhsDdr50),
            (26_000_000, Timing::MmcDdr52),
            (10_000_000, Timing::UhsDdr50),
            (7_000_000, Timing::MmcDdr52),
            (200_000_000, Timing::MmcHs400),
            (100_000_000, Timing::MmcHs400),
            (20_000_000, Timing::MmcHs400),
        ];
        for (hz, timing) in cases {
            let mut m = MsdcModel::new(config);
            let plan = clock::plan(SOURCE_HZ, hz, timing, width).unwrap();
            let clock::ClockPlan::Running(setting) = plan else {
                panic!("gated");
            };
            let cfg = setting.apply(MSDC_CFG::default(), width).unwrap();
            m.write(MSDC_CFG::OFFSET, cfg.raw());
            assert_eq!(
                m.bus_clock_hz(),
                plan.bus_hz(),
                "{hz} Hz {timing:?} {width:?}: driver and model disagree"
            );
            assert!(
                plan.bus_hz() <= hz,
                "{hz} Hz {timing:?}: clock above request"
            );
        }
    }
}

#[test]
fn data_above_the_card_clock_limit_fails() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    // Back to default speed on the card, but the host keeps 200 MHz.
    let out = h.read(
        &mut card,
        6,
        0x80FF_FFF0,
        (64, 1),
        AutoCommand::None,
        &[seg(0, 64)],
    );
    assert_eq!(out, Outcome::Data(ErrorKind::BadCrc));
    assert_eq!(card.max_clock_hz(), 25_000_000);
    let (_, list) = h.model.violations();
    assert_eq!(
        list[0],
        Some(Violation::ClockTooFast {
            hz: 200_000_000,
            max: 25_000_000
        })
    );
}

#[test]
fn thirty_two_bit_dma_and_long_segments() {
    // 32-bit controller: 16-bit BD lengths, no high nibbles.
    let mut storage = vec![0u8; 256 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let mut card = SdCard::new(&mut storage, SdConfig::default());
    let mut h = Host::with(ModelConfig {
        support_64g: false,
        ..ModelConfig::default()
    });
    sd_init(&mut h, &mut card);
    let segs = [seg(0, 0xFFFF), seg(0x1_0000, 0x1_0000 - 0xFFFF + 512)];
    let out = h.read(&mut card, 18, 2, (512, 129), AutoCommand::Cmd12, &segs);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 0xFFFF), &expect[2 * 512..2 * 512 + 0xFFFF]);
    assert_eq!(h.data(0x1_0000, 513), &expect[2 * 512 + 0xFFFF..131 * 512]);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());

    // 36-bit controller: one 128 KiB segment needs the 24-bit length field.
    let mut storage = vec![0u8; 512 * BLOCK_SIZE];
    pattern(&mut storage);
    let expect = storage.clone();
    let (mut h, mut card) = initialised_sd(&mut storage);
    let out = h.read(
        &mut card,
        18,
        100,
        (512, 256),
        AutoCommand::Cmd12,
        &[seg(0, 0x2_0000)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 0x2_0000), &expect[100 * 512..356 * 512]);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}

#[test]
fn a_consumed_gpd_must_be_rearmed() {
    let mut storage = vec![0u8; 64 * BLOCK_SIZE];
    let (mut h, mut card) = initialised_sd(&mut storage);
    let out = h.read(
        &mut card,
        17,
        0,
        (512, 1),
        AutoCommand::None,
        &[seg(0, 512)],
    );
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.ram[0] & 1, 0, "HWO handed back");
    // Reissue without rewriting the chain: the engine finds no owned GPD.
    let data = DataTransfer::blocks(DataDirection::Read, 512, 1);
    let word = DrvCommand::new(17, ResponseType::R1)
        .with_data(data)
        .sdc_cmd()
        .unwrap();
    h.wr(SDC_BLK_NUM::OFFSET, 1);
    h.wr(SDC_ARG::OFFSET, 0);
    h.wr(SDC_CMD::OFFSET, word.raw());
    h.run(&mut card);
    let start = h.rd(MSDC_DMA_CTRL::OFFSET) | MSDC_DMA_CTRL::START.mask();
    h.wr(MSDC_DMA_CTRL::OFFSET, start);
    h.run(&mut card);
    assert!(h.rd(MSDC_INT::OFFSET) & InterruptSet::DATTMO.bits() != 0);
    assert!(matches!(
        h.model.violations().1[0],
        Some(Violation::GpdNotOwned(_))
    ));
}

#[test]
fn emmc_ext_csd_read_and_switch() {
    let mut storage = vec![0u8; 32 * 512];
    let mut card = Card::new(&mut storage, 8, ReadyOrder::Immediate);
    card.initialize(1, false).unwrap();
    let mut h = Host::new();
    h.set_bus_width(2);
    // CMD8 SEND_EXT_CSD: one 512-byte block.
    let out = h.read(&mut card, 8, 0, (512, 1), AutoCommand::None, &[seg(0, 512)]);
    assert!(matches!(out, Outcome::Done(_)), "{out:?}");
    assert_eq!(h.data(0, 512), &card.ext_csd().bytes()[..]);
    // CMD6 SWITCH (R1b) enabling the command queue, then CMD13.
    let r = h.ok(
        &mut card,
        6,
        ResponseType::R1b,
        (3 << 24) | (15 << 16) | (1 << 8),
    );
    assert_eq!(r[0] & 0xFDF9_A080, 0);
    assert!(card.ext_csd().cmdq_enabled());
    let s = h.ok(&mut card, 13, ResponseType::R1, 1 << 16)[0];
    assert_eq!((s >> 9) & 0xF, 4);
    assert_eq!(h.model.violations().0, 0, "{:?}", h.model.violations());
}
