// SPDX-License-Identifier: GPL-2.0
//! A bench for the MSDC model's sampling and line tests: a small card that answers every
//! command, sends or takes one block for the data commands, and lets the test set its line
//! levels and SDIO interrupt and see what the controller told it; and the register
//! sequences of a host (clock, delays, one command, one DMA block) on top of the model.

// Shared by `msdc_sampling` and `msdc_lines`, each of which uses a part.
#![allow(dead_code)]

use models::emmc::{Command, DataError, NoResponse, Response};
use models::msdc::desc::{BD_INFO, GPD_INFO};
use models::msdc::regs::{
    ClockMode, DataType, ResponseType, MSDC_CFG, MSDC_DMA_CTRL, MSDC_DMA_SA, MSDC_INT, SDC_ARG,
    SDC_BLK_NUM, SDC_CFG, SDC_CMD, SDC_STS,
};
use models::msdc::{CardSlot, ModelConfig, MsdcModel};
use models::Ram;

/// The card status the fake card answers with (ready for data, transfer state).
pub(crate) const STATUS: u32 = 0x900;

/// Where the GPD, the (empty) next GPD, the BD and the buffer are in the bench's memory.
const GPD: u32 = 0x0;
const NEXT_GPD: u32 = 0x40;
const BD: u32 = 0x80;
pub(crate) const BUFFER: u32 = 0x100;

/// What a read sends: every byte the same.
pub(crate) const PATTERN: u8 = 0xA5;

/// A card that runs whatever it is sent and shows what the controller did to it.
#[derive(Debug, Default)]
pub(crate) struct FakeCard {
    /// The commands it ran, in order.
    pub(crate) commands: Vec<u8>,
    /// Bytes of the open read it still has to send.
    pub(crate) read_left: usize,
    /// Bytes of the open write it still takes.
    pub(crate) write_left: usize,
    /// Bytes written to it.
    pub(crate) written: Vec<u8>,
    /// DAT3..DAT0 as it drives them.
    pub(crate) data_lines: u8,
    /// CMD as it drives it.
    pub(crate) cmd_line: bool,
    /// It asserts an SDIO interrupt.
    pub(crate) sdio_irq: bool,
    /// The clock changes the controller reported, in order.
    pub(crate) clock_log: Vec<bool>,
    /// Hardware resets seen.
    pub(crate) resets: u32,
}

impl FakeCard {
    /// A card with its lines idle high.
    pub(crate) fn new() -> Self {
        Self {
            data_lines: 0xF,
            cmd_line: true,
            ..Self::default()
        }
    }
}

impl CardSlot for FakeCard {
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        self.commands.push(cmd.index);
        match cmd.index {
            // The tuning blocks: 128 bytes on an 8-bit eMMC (CMD21), 64 on SD (CMD19).
            21 => self.read_left = 128,
            19 => self.read_left = 64,
            // CMD8: the EXT_CSD read.
            8 | 17 => self.read_left = 512,
            24 => self.write_left = 512,
            _ => {}
        }
        Ok(Response::R1(STATUS))
    }

    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        if self.read_left == 0 {
            return Err(DataError::NoTransfer);
        }
        if buf.len() > self.read_left {
            return Err(DataError::Overrun);
        }
        buf.fill(PATTERN);
        self.read_left -= buf.len();
        Ok(())
    }

    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        if data.len() > self.write_left {
            return Err(DataError::Overrun);
        }
        self.written.extend_from_slice(data);
        self.write_left -= data.len();
        Ok(())
    }

    fn data_lines(&self) -> u8 {
        self.data_lines
    }

    fn cmd_line(&self) -> bool {
        self.cmd_line
    }

    fn clock_running(&mut self, running: bool) {
        self.clock_log.push(running);
    }

    fn hardware_reset(&mut self) {
        self.resets += 1;
    }

    fn sdio_interrupt(&self) -> bool {
        self.sdio_irq
    }
}

/// The model, the card and the memory the DMA reaches.
pub(crate) struct Rig {
    pub(crate) model: MsdcModel,
    pub(crate) card: FakeCard,
    ram: Vec<u8>,
}

/// `MSDC_CFG` in SD/MMC mode with the card clock free-running.
pub(crate) const RUNNING: MSDC_CFG = MSDC_CFG::zeroed().with_mode(true).with_ckpdn(true);

impl Rig {
    /// A model built as `config` says with the fake card, in SD/MMC mode on a 4-bit bus at
    /// 400 kHz (CKDIV 125 of the default 200 MHz source).
    pub(crate) fn new(config: ModelConfig) -> Self {
        let mut rig = Self {
            model: MsdcModel::new(config),
            card: FakeCard::new(),
            ram: vec![0; 0x400],
        };
        rig.clock(ClockMode::Divided, 125, false);
        let four_bit = SDC_CFG::zeroed().with_buswidth(models::msdc::regs::BusWidth::Four);
        rig.model.write(SDC_CFG::OFFSET, four_bit.raw());
        rig
    }

    /// Programs the clock (8-bit divider layout) and waits for `CKSTB`.
    pub(crate) fn clock(&mut self, mode: ClockMode, div: u32, hs400: bool) {
        let cfg = RUNNING
            .with_ckmod(mode)
            .try_with_ckdiv(div)
            .unwrap()
            .with_hs400_ck_mode(hs400);
        self.model.write(MSDC_CFG::OFFSET, cfg.raw());
        // The clock settles in time: let it pass.
        self.model.elapse(models::msdc::controller::CLOCK_SETTLE_NS);
        assert!(MSDC_CFG::from_raw(self.model.read(MSDC_CFG::OFFSET)).ckstb());
    }

    /// HS200/SDR104 speed: the 200 MHz source undivided.
    pub(crate) fn hs200(&mut self) {
        self.clock(ClockMode::Undivided, 0, false);
    }

    /// HS400: source/2 (100 MHz here) in HS400 mode.
    pub(crate) fn hs400(&mut self) {
        self.clock(ClockMode::Hs400, 0, true);
    }

    /// Sets the bits `set` of the register at `offset` (the model's register space).
    pub(crate) fn set_bits(&mut self, offset: usize, set: u32) {
        let v = self.model.read(offset);
        self.model.write(offset, v | set);
    }

    /// Writes the register at `offset`.
    pub(crate) fn write(&mut self, offset: usize, value: u32) {
        self.model.write(offset, value);
    }

    /// Reads the register at `offset`.
    pub(crate) fn read(&mut self, offset: usize) -> u32 {
        self.model.read(offset)
    }

    /// Runs the model until it has nothing to do.
    pub(crate) fn run(&mut self) {
        let mut mem = Ram::new(0, &mut self.ram);
        self.model.run(&mut self.card, &mut mem, 16);
    }

    /// One step of the model (also when it has nothing to do).
    pub(crate) fn step(&mut self) -> bool {
        let mut mem = Ram::new(0, &mut self.ram);
        self.model.step(&mut self.card, &mut mem)
    }

    /// `MSDC_INT` as read, then cleared.
    pub(crate) fn take_int(&mut self) -> MSDC_INT {
        let int = MSDC_INT::from_raw(self.model.read(MSDC_INT::OFFSET));
        self.model.write(MSDC_INT::OFFSET, u32::MAX);
        int
    }

    /// Sends `opcode` with an R1 response and no data; the interrupt status it leaves.
    pub(crate) fn command(&mut self, opcode: u32) -> MSDC_INT {
        self.command_with(opcode, ResponseType::R1)
    }

    /// Sends `opcode` with an R1b response and no data; the interrupt status it leaves.
    pub(crate) fn r1b_command(&mut self, opcode: u32) -> MSDC_INT {
        self.command_with(opcode, ResponseType::R1b)
    }

    fn command_with(&mut self, opcode: u32, response: ResponseType) -> MSDC_INT {
        let word = SDC_CMD::zeroed()
            .try_with_opcode(opcode)
            .and_then(|c| c.try_with_rsptyp(response as u32))
            .unwrap();
        self.model.write(SDC_ARG::OFFSET, 0);
        self.model.write(SDC_CMD::OFFSET, word.raw());
        self.run();
        self.take_int()
    }

    /// Puts one GPD with one BD of `len` bytes at [`BUFFER`] in memory and starts the DMA.
    pub(crate) fn arm_dma(&mut self, len: u32) {
        let gpd = [
            GPD_INFO::zeroed().with_hwo(true).with_bdp(true).raw(),
            NEXT_GPD,
            BD,
            0,
            0,
            0,
            0,
        ];
        let bd = [BD_INFO::zeroed().with_eol(true).raw(), 0, BUFFER, len];
        self.ram.fill(0);
        for (at, words) in [(GPD, &gpd[..]), (BD, &bd[..])] {
            for (i, w) in words.iter().enumerate() {
                let o = at as usize + 4 * i;
                self.ram[o..o + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        self.model.write(MSDC_DMA_SA::OFFSET, GPD);
        let start = MSDC_DMA_CTRL::zeroed().with_mode(true).with_start(true);
        self.model.write(MSDC_DMA_CTRL::OFFSET, start.raw());
    }

    /// Sends `opcode` with a single block of `len` bytes (`write`: to the card) by DMA; the
    /// interrupt status it leaves.
    pub(crate) fn transfer(&mut self, opcode: u32, len: u32, write: bool) -> MSDC_INT {
        self.arm_dma(len);
        self.data_command(opcode, len, write)
    }

    /// Sends `opcode` with a single block of `len` bytes (`write`: to the card), leaving the
    /// DMA as it is; the interrupt status it leaves.
    pub(crate) fn data_command(&mut self, opcode: u32, len: u32, write: bool) -> MSDC_INT {
        self.model.write(SDC_BLK_NUM::OFFSET, 1);
        self.model.write(SDC_ARG::OFFSET, 0);
        let word = SDC_CMD::zeroed()
            .try_with_opcode(opcode)
            .and_then(|c| c.try_with_rsptyp(ResponseType::R1 as u32))
            .and_then(|c| c.try_with_blklen(len))
            .unwrap()
            .with_dtype(DataType::Single)
            .with_rw(write);
        self.model.write(SDC_CMD::OFFSET, word.raw());
        self.run();
        self.take_int()
    }

    /// Reads one `len`-byte block with `opcode` (CMD21, CMD19, CMD17).
    pub(crate) fn read_block(&mut self, opcode: u32, len: u32) -> MSDC_INT {
        self.transfer(opcode, len, false)
    }

    /// Writes one 512-byte block (CMD24).
    pub(crate) fn write_block(&mut self) -> MSDC_INT {
        self.transfer(24, 512, true)
    }

    /// The block the last read put in memory.
    pub(crate) fn buffer(&self, len: usize) -> &[u8] {
        &self.ram[BUFFER as usize..BUFFER as usize + len]
    }

    /// Whether the controller is idle (`SDC_STS` neither command nor data busy).
    pub(crate) fn idle(&mut self) -> bool {
        let sts = SDC_STS::from_raw(self.model.read(SDC_STS::OFFSET));
        !sts.sdcbusy() && !sts.cmdbusy()
    }
}
