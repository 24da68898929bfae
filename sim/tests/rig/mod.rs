// SPDX-License-Identifier: GPL-2.0
//! The test rig shared by the MSDC integration tests: a host that drives `sim::msdc::MsdcModel`
//! with register values from the driver's logic crate (`msdc::{command, dma, clock, regs,
//! errors}`) the way the MediaTek driver does, plus helpers that replay what the Linux 7.3 MMC
//! core sends (`mmc_wait_for_cmd`, `mmc_switch`, `mmc_poll_for_busy`, block requests with
//! `sbc`/`stop`).

#![allow(dead_code)]

use msdc::clock::{self, DividerWidth, Timing};
use msdc::command::{
    plan_set_block_count, response_words, AutoCommand, Command as DrvCommand, DataDirection,
    DataTransfer, ResponseType, SetBlockCountPlan,
};
use msdc::dma::{self, DescriptorArea, DmaAddressing, Segment};
use msdc::errors::{self, ErrorKind};
use msdc::regs::{
    BusWidth, InterruptSet, DMA_SA_H4BIT, MSDC_CFG, MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_DMA_SA,
    MSDC_FIFOCS, MSDC_INT, MSDC_INTEN, MSDC_PATCH_BIT2, SDC_ARG, SDC_BLK_NUM, SDC_CFG, SDC_CMD,
    SDC_RESP0, SDC_RESP1, SDC_RESP2, SDC_RESP3, SDC_STS,
};
use registers::PartialFieldValue;
use sim::msdc::{CardSlot, ModelConfig, MsdcModel};
use sim::sd::DEFAULT_RCA;
use sim::Ram;

/// RAM above 4 GiB, so the 36-bit address paths are exercised.
pub(crate) const RAM_BASE: u64 = 0x1_2000_0000;
/// RAM for a controller without 36-bit DMA.
pub(crate) const RAM_BASE_32: u64 = 0x8000_0000;
/// RAM: descriptors, then 1 MiB of data buffers.
pub(crate) const RAM_LEN: usize = 0x11_0000;
/// Offset of the data buffers in RAM (the descriptors are at offset 0).
pub(crate) const DATA_OFFSET: u64 = 0x1_0000;
/// Source clock of the MSDC divider.
pub(crate) const SOURCE_HZ: u32 = 200_000_000;

/// Interrupts enabled while a command runs.
pub(crate) const CMD_INTS: InterruptSet = errors::COMMAND_INTERRUPTS;
/// Interrupts enabled while data moves.
pub(crate) const DATA_INTS: InterruptSet = errors::DATA_INTERRUPTS;

/// What one request ended with.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The request finished; the response words.
    Done([u32; 4]),
    /// The command failed.
    Command(ErrorKind),
    /// The data phase failed.
    Data(ErrorKind),
}

/// A host controller driver in miniature, over the MSDC model.
pub(crate) struct Host {
    pub(crate) model: MsdcModel,
    /// The card is an eMMC: a plain CMD23 goes out as auto-CMD23 (as mtk-sd does).
    pub(crate) card_is_mmc: bool,
    pub(crate) ram: Vec<u8>,
    pub(crate) base: u64,
    pub(crate) addressing: DmaAddressing,
    /// Corrupt byte `n` of the descriptor area after writing the chain.
    pub(crate) corrupt_descriptor: Option<usize>,
    /// Events seen by the last request.
    pub(crate) last_events: u32,
}

impl Host {
    pub(crate) fn new() -> Self {
        Self::with(ModelConfig::default())
    }

    pub(crate) fn with(config: ModelConfig) -> Self {
        let (base, addressing) = if config.support_64g {
            (RAM_BASE, DmaAddressing::Bits36)
        } else {
            (RAM_BASE_32, DmaAddressing::Bits32)
        };
        let mut h = Self {
            model: MsdcModel::new(config),
            card_is_mmc: false,
            ram: vec![0; RAM_LEN],
            base,
            addressing,
            corrupt_descriptor: None,
            last_events: 0,
        };
        h.init();
        h
    }

    pub(crate) fn rd(&mut self, offset: usize) -> u32 {
        self.model.read(offset)
    }

    pub(crate) fn wr(&mut self, offset: usize, value: u32) {
        self.model.write(offset, value)
    }

    pub(crate) fn poll_clear(&mut self, offset: usize, bit: u32) {
        for _ in 0..16 {
            if self.rd(offset) & bit == 0 {
                return;
            }
        }
        panic!("bit {bit:#x} of {offset:#x} never cleared");
    }

    pub(crate) fn reset_hw(&mut self) {
        let cfg = MSDC_CFG::from_raw(self.rd(MSDC_CFG::OFFSET)).with_rst(true);
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        self.poll_clear(MSDC_CFG::OFFSET, MSDC_CFG::zeroed().with_rst(true).raw());
        let fifo = MSDC_FIFOCS::zeroed().with_clr(true);
        self.wr(MSDC_FIFOCS::OFFSET, fifo.raw());
        self.poll_clear(
            MSDC_FIFOCS::OFFSET,
            MSDC_FIFOCS::zeroed().with_clr(true).raw(),
        );
        let all = self.rd(MSDC_INT::OFFSET);
        self.wr(MSDC_INT::OFFSET, all);
    }

    pub(crate) fn init(&mut self) {
        let cfg = MSDC_CFG::zeroed().with_mode(true).with_ckpdn(true);
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        self.reset_hw();
        self.wr(MSDC_INTEN::OFFSET, 0);
        let p2 =
            MSDC_PATCH_BIT2::zeroed().with_support_64g(self.addressing == DmaAddressing::Bits36);
        self.wr(MSDC_PATCH_BIT2::OFFSET, p2.raw());
        self.set_clock(400_000, Timing::Legacy);
    }

    pub(crate) fn set_clock(&mut self, hz: u32, timing: Timing) {
        let plan = clock::plan(SOURCE_HZ, hz, timing, DividerWidth::Bits8).unwrap();
        let clock::ClockPlan::Running(setting) = plan else {
            panic!("gated");
        };
        let cfg = MSDC_CFG::from_raw(self.rd(MSDC_CFG::OFFSET));
        let cfg = setting.apply(cfg, DividerWidth::Bits8).unwrap();
        self.wr(MSDC_CFG::OFFSET, cfg.raw());
        for _ in 0..16 {
            if self.rd(MSDC_CFG::OFFSET) & MSDC_CFG::zeroed().with_ckstb(true).raw() != 0 {
                return;
            }
        }
        panic!("clock never stable");
    }

    pub(crate) fn set_bus_width(&mut self, code: u32) {
        let c = SDC_CFG::from_raw(self.rd(SDC_CFG::OFFSET))
            .with_buswidth(BusWidth::try_from_bits(u64::from(code)).unwrap());
        self.wr(SDC_CFG::OFFSET, c.raw());
    }

    pub(crate) fn ack(&mut self) -> u32 {
        let events = self.rd(MSDC_INT::OFFSET) & self.rd(MSDC_INTEN::OFFSET);
        self.wr(MSDC_INT::OFFSET, events);
        self.last_events |= events;
        events
    }

    /// Writes the chain for `segments` and points the DMA at it.
    pub(crate) fn setup_dma(&mut self, segments: &[Segment]) {
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

    pub(crate) fn run<C: CardSlot>(&mut self, card: &mut C) {
        let mut mem = Ram::new(self.base, &mut self.ram);
        self.model.run(card, &mut mem, 16);
    }

    /// Issues one command (with its data phase through `segments`) the way the driver would.
    pub(crate) fn request<C: CardSlot>(
        &mut self,
        card: &mut C,
        cmd: DrvCommand,
        arg: u32,
        segments: &[Segment],
    ) -> Outcome {
        self.last_events = 0;
        assert_eq!(
            self.rd(SDC_STS::OFFSET) & SDC_STS::zeroed().with_cmdbusy(true).raw(),
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
        assert!(self.rd(SDC_STS::OFFSET) & SDC_STS::zeroed().with_cmdbusy(true).raw() != 0);
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
        let start = MSDC_DMA_CTRL::from_raw(self.rd(MSDC_DMA_CTRL::OFFSET)).with_start(true);
        self.wr(MSDC_DMA_CTRL::OFFSET, start.raw());
        self.run(card);
        let events = InterruptSet::from_bits_retain(self.ack());
        let stop = MSDC_DMA_CTRL::from_raw(self.rd(MSDC_DMA_CTRL::OFFSET)).with_stop(true);
        self.wr(MSDC_DMA_CTRL::OFFSET, stop.raw());
        self.poll_clear(
            MSDC_DMA_CTRL::OFFSET,
            MSDC_DMA_CTRL::zeroed().with_stop(true).raw(),
        );
        self.poll_clear(
            MSDC_DMA_CFG::OFFSET,
            MSDC_DMA_CFG::zeroed().with_sts(true).raw(),
        );
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

    pub(crate) fn simple<C: CardSlot>(
        &mut self,
        card: &mut C,
        op: u32,
        rt: ResponseType,
        arg: u32,
    ) -> Outcome {
        self.request(card, DrvCommand::new(op, rt), arg, &[])
    }

    pub(crate) fn ok<C: CardSlot>(
        &mut self,
        card: &mut C,
        op: u32,
        rt: ResponseType,
        arg: u32,
    ) -> [u32; 4] {
        match self.simple(card, op, rt, arg) {
            Outcome::Done(r) => r,
            other => panic!("CMD{op} failed: {other:?}"),
        }
    }

    pub(crate) fn read<C: CardSlot>(
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

    pub(crate) fn write<C: CardSlot>(
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

    pub(crate) fn data(&self, offset: usize, len: usize) -> &[u8] {
        let at = DATA_OFFSET as usize + offset;
        &self.ram[at..at + len]
    }

    pub(crate) fn data_mut(&mut self, offset: usize, len: usize) -> &mut [u8] {
        let at = DATA_OFFSET as usize + offset;
        &mut self.ram[at..at + len]
    }
}

/// A segment at `offset` into the data buffers (made a bus address by `setup_dma`).
pub(crate) fn seg(offset: u64, len: u32) -> Segment {
    Segment {
        bus_address: offset,
        len,
    }
}

/// CMD13/CMD7 argument for the SD card's default RCA.
pub(crate) fn rca_arg() -> u32 {
    u32::from(DEFAULT_RCA) << 16
}

/// Fills `storage` with a pattern that differs from block to block.
pub(crate) fn pattern(storage: &mut [u8]) {
    for (i, b) in storage.iter_mut().enumerate() {
        *b = (i * 7 + i / 512) as u8;
    }
}

/// Core-level error of a request, as `mmc_request` reports it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ReqError {
    /// `sbc.error`.
    Sbc(Outcome),
    /// `cmd.error` or `data.error`.
    Cmd(Outcome),
    /// `stop.error`.
    Stop(Outcome),
}

/// A `struct mmc_request` as the MMC core builds it (`mmc_blk_rw_rq_prep`,
/// `mmc_send_adtc_data`, `mmc_app_send_scr`, ...).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mrq {
    /// `mrq->sbc` argument (CMD23), if any.
    pub(crate) sbc: Option<u32>,
    /// Command index.
    pub(crate) opcode: u32,
    /// Argument.
    pub(crate) arg: u32,
    /// Response type from `cmd.flags`.
    pub(crate) response: ResponseType,
    /// `(direction, blksz, blocks)` of `mrq->data`.
    pub(crate) data: Option<(DataDirection, u32, u32)>,
    /// `mrq->stop` is set (CMD12: R1 after reads, R1b after writes).
    pub(crate) stop: bool,
}

impl Mrq {
    /// A single-block data command reading `blksz` bytes (`mmc_send_adtc_data`).
    pub(crate) fn adtc_read(opcode: u32, arg: u32, blksz: u32) -> Self {
        Self {
            sbc: None,
            opcode,
            arg,
            response: ResponseType::R1,
            data: Some((DataDirection::Read, blksz, 1)),
            stop: false,
        }
    }

    /// A block layer read or write of `blocks` sectors at `sector` the way
    /// `mmc_blk_rw_rq_prep` builds it with CMD23 support: CMD17/CMD24 for one block,
    /// otherwise CMD18/CMD25 with `sbc` (and `stop`, which the host skips when `sbc` is set).
    pub(crate) fn rw(write: bool, sector: u32, blocks: u32, reliable: bool) -> Self {
        let multi = blocks > 1 || reliable;
        let opcode = match (write, multi) {
            (false, false) => 17,
            (false, true) => 18,
            (true, false) => 24,
            (true, true) => 25,
        };
        Self {
            sbc: multi.then_some(blocks | if reliable { 1 << 31 } else { 0 }),
            opcode,
            arg: sector,
            response: ResponseType::R1,
            data: Some((
                if write {
                    DataDirection::Write
                } else {
                    DataDirection::Read
                },
                512,
                blocks,
            )),
            stop: multi,
        }
    }

    /// An open-ended multiple block transfer (no CMD23), ended by CMD12.
    pub(crate) fn open_ended(write: bool, sector: u32, blocks: u32) -> Self {
        Self {
            sbc: None,
            ..Self::rw(write, sector, blocks.max(2), false)
        }
    }
}

/// Splits `len` bytes of the data buffer into 32 KiB segments (scatter-gather pages).
pub(crate) fn segments(len: u32) -> Vec<Segment> {
    let mut v = Vec::new();
    let mut at = 0u32;
    while at < len {
        let n = (len - at).min(0x8000);
        v.push(seg(u64::from(at), n));
        at += n;
    }
    v
}

impl Host {
    /// `mmc_wait_for_cmd`: one command without data; the response words.
    pub(crate) fn wait_for_cmd<C: CardSlot>(
        &mut self,
        card: &mut C,
        opcode: u32,
        arg: u32,
        response: ResponseType,
    ) -> Result<[u32; 4], Outcome> {
        match self.simple(card, opcode, response, arg) {
            Outcome::Done(r) => Ok(r),
            other => Err(other),
        }
    }

    /// Issues `m` the way the MediaTek driver does: the `sbc` as auto-CMD23 when
    /// `plan_set_block_count` allows it, otherwise as its own command; the command with its
    /// data through the data buffer; CMD12 after an open-ended multiple block transfer.
    /// Returns the command's response words.
    pub(crate) fn mrq<C: CardSlot>(&mut self, card: &mut C, m: &Mrq) -> Result<[u32; 4], ReqError> {
        let plan = plan_set_block_count(m.opcode, self.card_is_mmc, m.sbc);
        if plan == SetBlockCountPlan::Software {
            let arg = m.sbc.unwrap_or(0);
            if let Err(e) = self.wait_for_cmd(card, 23, arg, ResponseType::R1) {
                return Err(ReqError::Sbc(e));
            }
        }
        let mut cmd = DrvCommand::new(m.opcode, m.response);
        let mut segs = Vec::new();
        if let Some((dir, blksz, blocks)) = m.data {
            cmd = cmd
                .with_data(DataTransfer::blocks(dir, blksz, blocks))
                .with_auto_command(plan.auto_command());
            segs = segments(blksz * blocks);
        }
        let out = self.request(card, cmd, m.arg, &segs);
        let resp = match out {
            Outcome::Done(r) => r,
            other => return Err(ReqError::Cmd(other)),
        };
        let multi = m.data.is_some_and(|(_, _, blocks)| blocks > 1) || m.sbc.is_some();
        if multi && m.stop && m.sbc.is_none() {
            let write = matches!(m.data, Some((DataDirection::Write, _, _)));
            let rt = if write {
                ResponseType::R1b
            } else {
                ResponseType::R1
            };
            if let Err(e) = self.wait_for_cmd(card, 12, 0, rt) {
                return Err(ReqError::Stop(e));
            }
        }
        Ok(resp)
    }

    /// `mmc_poll_for_busy` with CMD13 (no `MMC_CAP_WAIT_WHILE_BUSY`): polls until the card
    /// is ready for data in the transfer state. Returns the accumulated status bits, or the
    /// first status with SWITCH_ERROR when `switch` (`MMC_BUSY_CMD6`).
    pub(crate) fn poll_busy<C: CardSlot>(
        &mut self,
        card: &mut C,
        rca: u16,
        switch: bool,
    ) -> Result<u32, u32> {
        let mut seen = 0;
        for _ in 0..16 {
            let s = self
                .wait_for_cmd(card, 13, u32::from(rca) << 16, ResponseType::R1)
                .map_err(|_| u32::MAX)?[0];
            seen |= s;
            if switch && s & (1 << 7) != 0 {
                return Err(s);
            }
            if s & (1 << 8) != 0 && (s >> 9) & 0xF == 4 {
                return Ok(seen);
            }
        }
        Err(seen)
    }

    /// `mmc_switch(card, EXT_CSD_CMD_SET_NORMAL, index, value, ...)` on a host without
    /// `MMC_CAP_WAIT_WHILE_BUSY`: CMD6 (R1b), CMD13 polling, then the switch status.
    /// `Err` carries the status with SWITCH_ERROR (the core's -EBADMSG) or `u32::MAX` for a
    /// failed command.
    pub(crate) fn mmc_switch<C: CardSlot>(
        &mut self,
        card: &mut C,
        rca: u16,
        index: u8,
        value: u8,
    ) -> Result<(), u32> {
        let arg = (3 << 24) | (u32::from(index) << 16) | (u32::from(value) << 8) | 1;
        self.wait_for_cmd(card, 6, arg, ResponseType::R1b)
            .map_err(|_| u32::MAX)?;
        self.poll_busy(card, rca, true)?;
        let s = self
            .wait_for_cmd(card, 13, u32::from(rca) << 16, ResponseType::R1)
            .map_err(|_| u32::MAX)?[0];
        if s & (1 << 7) != 0 {
            return Err(s);
        }
        Ok(())
    }

    /// The MSDC violations so far, asserted to be none.
    pub(crate) fn assert_no_violations(&self) {
        assert_eq!(
            self.model.violations().0,
            0,
            "{:?}",
            self.model.violations()
        );
    }
}

/// `unstuff_bits` of the Linux MMC core: `size` bits from bit `start` of a 128-bit register
/// given most significant word first.
pub(crate) fn unstuff_bits(resp: &[u32; 4], start: u32, size: u32) -> u32 {
    let mask = if size < 32 {
        (1u32 << size) - 1
    } else {
        u32::MAX
    };
    let off = 3 - (start / 32) as usize;
    let shft = start % 32;
    let mut res = resp[off] >> shft;
    if size + shft > 32 {
        res |= resp[off - 1] << ((32 - shft) % 32);
    }
    res & mask
}
