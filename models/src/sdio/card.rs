// SPDX-License-Identifier: GPL-2.0
//! The SDIO card model: an I/O-only card with one function, from CMD5 power-up through the
//! CCCR, FBR and CIS to CMD52 and CMD53 transfers, I/O abort, I/O reset and the function
//! interrupt on DAT1.
//!
//! Behaviour follows the SDIO Simplified Specification (3.00):
//!
//! * States: idle (the I/O part has seen no CMD5 and answers nothing else, §3.3),
//!   initialisation (CMD5 seen; busy for [`SdioConfig::busy_polls`] CMD5s with a voltage,
//!   then ready), stand-by (CMD3 published the RCA), command (CMD7 selected the card),
//!   transfer (a CMD53 moves data), inactive (CMD15, or a CMD5 voltage window that misses
//!   the card's: silent until [`SdioCard::power_cycle`]).
//! * CMD0 and the memory commands (CMD8, ACMD41, …) get no response: the card has no memory
//!   part, and CMD0 resets only memory (§4.4). Other commands not legal in the state get no
//!   response and set ILLEGAL_COMMAND for the next R5, R6 or R1 (clear condition B); a card
//!   that has seen no CMD5 records nothing.
//! * CMD5 with a zero OCR is an inquiry: it enables the I/O part but starts no power-up.
//!   After the card is ready, CMD5 still answers R4 (ready) and changes nothing. S18R is
//!   ignored: the card has no 1.8 V signalling (S18A stays 0; UHS support is 0).
//! * CMD7 to the selected card's own RCA answers and keeps it selected (Linux's liveness
//!   check, `mmc_sdio_alive`, relies on that); another RCA deselects it without a response.
//! * CMD52 is answered once the card is ready, selected or not (IO_CURRENT_STATE reports DIS
//!   before CMD7), since it carries no RCA. While a CMD53 runs only a write to IO_ABORT is
//!   taken (CAPABILITY SDC = 0).
//! * CMD53 needs the selected card. Byte mode moves 1..512 bytes (count 0 = 512), block mode
//!   counts blocks of the function's block size (FN0 block size or FBR1 block size; count
//!   0 = until an I/O abort). The OP code selects an incrementing or a fixed address. An
//!   argument the card refuses (a function it does not have: FUNCTION_NUMBER; function 1 not
//!   enabled and ready, or block mode with a zero block size or one above 512: ERROR; an
//!   address range that leaves the function's implemented space: OUT_OF_RANGE) is answered
//!   with the flag and starts no data phase, so the host's data phase finds nothing
//!   ([`DataError::NoTransfer`]).
//! * The data phase moves whatever chunks the host offers, up to the byte count; more than
//!   is left is [`DataError::Overrun`] and moves nothing. An open-ended block transfer that
//!   runs out of the function's space stops with `Overrun`. The last byte returns the card
//!   to the command state.
//! * IO_ABORT: writing ASx = the function of the running CMD53 ends it (the command state);
//!   RES resets the I/O part: every CCCR and FBR field, function 1's registers, the RCA and
//!   the power-up go back to their power-on values and the card waits for CMD5 (idle). The
//!   RAM window is the caller's storage and keeps its contents.
//! * Clearing IOE1 resets function 1 (interrupt causes, scratch, FIFO) and ends its running
//!   CMD53; setting it makes IOR1 read 0 for [`SdioConfig::enable_polls`] reads, then 1.
//! * Interrupts: function 1's interrupt is pending while INT_STATUS has a cause set; CCCR
//!   INT_PENDING bit 1 shows it whatever the enables. The card signals it on DAT1
//!   ([`SdioCard::sdio_interrupt`], [`SdioCard::data_lines`]) while IENM and IEN1 are set
//!   and function 1 is ready, except during a 4-bit CMD53 data phase, when DAT1 carries data
//!   (the model has no interrupt period between blocks).
//! * Clock: 400 kHz until CMD3 (identification), then 25 MHz, 50 MHz once BSS selects high
//!   speed (EHS).
//! * Not modelled: SPI mode, suspend/resume (SBS = 0), read wait (SRW = 0), CMD52 during a
//!   data transfer other than the abort (SDC = 0), CSA, wake-up, UHS-I modes, asynchronous
//!   interrupts, CRC checking of what the host sends (the MSDC model injects CRC faults).

use super::super::cards::{VoltageSwitch, TUNING_BLOCK_4BIT};
use super::super::emmc::command::RCA_ARG;
use super::super::emmc::{CardWork, Command, DataError, NoResponse, Response};
use super::super::msdc::CardSlot;
use super::super::sd::card::{CARD_STATUS, R6};
use super::command::{IoState, IO_OCR, IO_RW_DIRECT_ARG, IO_RW_EXTENDED_ARG, R5};
use super::regs::{
    build_cis, cccr, fbr1, func1, CIS_AREA_END, CIS_LEN, COMMON_CIS, FUNC1_CIS, MAX_BLOCK_SIZE,
};

/// RCA the card publishes with CMD3 unless [`SdioConfig::rca`] says otherwise.
pub const DEFAULT_RCA: u16 = 0x0001;

/// The vendor ID in the CISTPL_MANFID (TPLMID_MANF) unless [`SdioConfig::vendor`] says
/// otherwise. No vendor in Linux's `sdio_ids.h` uses it, so no in-tree function driver or
/// SDIO quirk matches the card.
pub const VENDOR_ID: u16 = 0x7E57;

/// The device ID in the CISTPL_MANFID (TPLMID_CARD) unless [`SdioConfig::device`] says
/// otherwise.
pub const DEVICE_ID: u16 = 0x5D10;

/// CMD5 polls (with a voltage) that answer busy (C clear) before the card is ready.
pub const CMD5_BUSY_POLLS: u32 = 2;

/// IO_READY reads that show function 1 not ready after IOE1 was set.
pub const ENABLE_POLLS: u32 = 1;

/// The highest address of a function's 17-bit space, plus one.
const SPACE_END: u32 = 0x2_0000;

/// Card properties a test may vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdioConfig {
    /// RCA published by CMD3.
    pub rca: u16,
    /// The CISTPL_MANFID vendor ID.
    pub vendor: u16,
    /// The CISTPL_MANFID device ID.
    pub device: u16,
    /// CMD5 polls that answer busy, see [`CMD5_BUSY_POLLS`].
    pub busy_polls: u32,
    /// IO_READY reads that show function 1 not ready, see [`ENABLE_POLLS`].
    pub enable_polls: u32,
    /// The card supports high speed (CCCR SHS): 50 MHz after EHS.
    pub high_speed: bool,
    /// The card supports the asynchronous interrupt (CCCR SAI): once the host sets EAI, it
    /// signals its interrupt on DAT1 of a 4-bit bus also while the host has stopped the
    /// clock (SDIO 3.00 §8.1.1), which is what lets a suspended host wake on it.
    pub async_interrupt: bool,
    /// The card supports UHS-I: 1.8 V signalling by CMD11 (S18A to a CMD5 with S18R) and
    /// SDR50 (CCCR SSDR50), tuned with CMD19.
    pub uhs_sdr50: bool,
}

impl Default for SdioConfig {
    fn default() -> Self {
        Self {
            rca: DEFAULT_RCA,
            vendor: VENDOR_ID,
            device: DEVICE_ID,
            busy_polls: CMD5_BUSY_POLLS,
            enable_polls: ENABLE_POLLS,
            high_speed: true,
            async_interrupt: true,
            uhs_sdr50: false,
        }
    }
}

/// The card's state (SDIO Simplified Specification §4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdioState {
    /// No CMD5 yet: the I/O part answers nothing else.
    Idle,
    /// CMD5 seen; power-up may still be running (see [`SdioCard::ready`]).
    Init,
    /// The RCA is published, the card is not selected.
    Standby,
    /// Selected, the data lines free.
    Command,
    /// A CMD53 moves data.
    Transfer,
    /// Silent until a power cycle.
    Inactive,
}

/// Counters the tests inspect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SdioStats {
    /// CMD52s answered.
    pub direct: u32,
    /// CMD53s that started a data phase.
    pub extended: u32,
    /// CMD53s ended by an I/O abort (ASx) or by disabling the function.
    pub aborts: u32,
    /// I/O resets (RES).
    pub resets: u32,
}

/// A running CMD53.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extended {
    write: bool,
    function: u8,
    address: u32,
    increment: bool,
    /// Bytes left (`None`: until an I/O abort).
    remaining: Option<usize>,
}

/// The CCCR, FBR1 and function 1 registers: what an I/O reset restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IoRegisters {
    io_enable: u8,
    io_ready: u8,
    enable_polls_left: u32,
    int_enable: u8,
    bus_interface: u8,
    e4mi: bool,
    fn0_block_size: u16,
    empc: bool,
    bus_speed: u8,
    drive_strength: u8,
    fn1_block_size: u16,
    int_status: u8,
    scratch: u8,
    fifo: [u8; func1::FIFO_DEPTH],
    fifo_len: usize,
    /// CCCR INTERRUPT_EXT EAI.
    async_interrupt: bool,
}

impl IoRegisters {
    const POWER_ON: Self = Self {
        io_enable: 0,
        io_ready: 0,
        enable_polls_left: 0,
        int_enable: 0,
        bus_interface: 0,
        e4mi: false,
        fn0_block_size: 0,
        empc: false,
        bus_speed: 0,
        drive_strength: 0,
        fn1_block_size: 0,
        int_status: 0,
        scratch: 0,
        fifo: [0; func1::FIFO_DEPTH],
        fifo_len: 0,
        async_interrupt: false,
    };

    /// Function 1's own registers back to their reset values.
    fn reset_function(&mut self) {
        self.int_status = 0;
        self.scratch = 0;
        self.fifo_len = 0;
    }
}

/// Function 1's bit in the CCCR's per-function registers.
const FN1: u8 = 1 << 1;

/// An SDIO card with one function over a caller-provided RAM window.
#[derive(Debug)]
pub struct SdioCard<'a> {
    ram: &'a mut [u8],
    config: SdioConfig,
    state: SdioState,
    ready: bool,
    cmd5_polls: u32,
    rca: u16,
    illegal: bool,
    work: CardWork,
    regs: IoRegisters,
    cis: [u8; CIS_LEN],
    data: Option<Extended>,
    stats: SdioStats,
    /// The host's clock runs (as the host last reported it).
    clock: bool,
    /// The card answered S18A and waits for CMD11.
    s18a: bool,
    /// Where the card is in the CMD11 voltage switch.
    voltage_switch: VoltageSwitch,
    /// The card signals at 1.8 V (after CMD11, until a power cycle).
    signal_1v8: bool,
    /// Bytes of the tuning block (CMD19) still to send.
    tuning_left: usize,
}

impl<'a> SdioCard<'a> {
    /// A card just powered up, whose function 1 RAM window is `ram` (function addresses
    /// 0..`ram.len()`, at most 64 KiB of it).
    pub fn new(ram: &'a mut [u8], config: SdioConfig) -> Self {
        let mut cis = [0; CIS_LEN];
        build_cis(
            &mut cis,
            config.vendor,
            config.device,
            IO_OCR::VOLTAGE_WINDOW.raw(),
        );
        Self {
            ram,
            config,
            state: SdioState::Idle,
            ready: false,
            cmd5_polls: 0,
            rca: 0,
            illegal: false,
            work: CardWork::None,
            regs: IoRegisters::POWER_ON,
            cis,
            data: None,
            stats: SdioStats::default(),
            clock: true,
            s18a: false,
            voltage_switch: VoltageSwitch::Idle,
            signal_1v8: false,
            tuning_left: 0,
        }
    }

    /// Power off and on: every register to its power-on value, the card idle (also out of
    /// the inactive state). The RAM window keeps its contents.
    pub fn power_cycle(&mut self) {
        self.reset_io();
        self.s18a = false;
        self.voltage_switch = VoltageSwitch::Idle;
        self.signal_1v8 = false;
    }

    /// Whether the card signals at 1.8 V (UHS-I).
    pub fn signal_1v8(&self) -> bool {
        self.signal_1v8
    }

    /// Current state.
    pub fn state(&self) -> SdioState {
        self.state
    }

    /// Whether CMD5 power-up has finished (the R4 C bit).
    pub fn ready(&self) -> bool {
        self.ready
    }

    /// The RCA published so far (0 before CMD3).
    pub fn rca(&self) -> u16 {
        self.rca
    }

    /// Counters.
    pub fn stats(&self) -> SdioStats {
        self.stats
    }

    /// The RAM window.
    pub fn ram(&self) -> &[u8] {
        self.ram
    }

    /// The RAM window, for tests to preload.
    pub fn ram_mut(&mut self) -> &mut [u8] {
        self.ram
    }

    /// Function 1's pending interrupt causes (INT_STATUS).
    pub fn int_status(&self) -> u8 {
        self.regs.int_status
    }

    /// Function 1 raises its interrupt with cause bits `causes`, as a write to INT_TRIGGER
    /// does (for a board that models the device side).
    pub fn raise_interrupt(&mut self, causes: u8) {
        self.regs.int_status |= causes;
    }

    /// The data bus width CCCR BUS_INTERFACE selects (1 or 4).
    pub fn bus_width(&self) -> u8 {
        if self.regs.bus_interface & cccr::BUS_WIDTH_MASK == cccr::BUS_WIDTH_4BIT {
            4
        } else {
            1
        }
    }

    /// The fastest bus clock the card accepts now: 400 kHz until CMD3, then 25 MHz, or
    /// 50 MHz once BSS selects high speed.
    pub fn max_clock_hz(&self) -> u32 {
        match self.state {
            SdioState::Idle | SdioState::Init | SdioState::Inactive => 400_000,
            _ if self.regs.bus_speed == cccr::SPEED_SDR50 => 100_000_000,
            _ if self.regs.bus_speed == cccr::SPEED_EHS => 50_000_000,
            _ => 25_000_000,
        }
    }

    /// The busy work the last command started (power-up); reading it clears it.
    pub fn take_work(&mut self) -> CardWork {
        core::mem::take(&mut self.work)
    }

    /// Bytes left in the running CMD53 (0 if none, `usize::MAX` if open-ended).
    pub fn data_remaining(&self) -> usize {
        match self.data {
            None => 0,
            Some(x) => x.remaining.unwrap_or(usize::MAX),
        }
    }

    /// Whether the card signals its interrupt on DAT1: function 1's interrupt is pending,
    /// IENM and IEN1 are set, the function is ready, and DAT1 is not carrying 4-bit data;
    /// on a 4-bit bus with the clock stopped only with the asynchronous interrupt enabled
    /// (EAI), as the 4-bit interrupt period needs the clock otherwise.
    pub fn sdio_interrupt(&self) -> bool {
        let r = &self.regs;
        let enabled = r.int_enable & cccr::INT_MASTER != 0 && r.int_enable & FN1 != 0;
        let dat1_busy = self.state == SdioState::Transfer && self.bus_width() == 4;
        let signalled = self.clock || self.bus_width() == 1 || r.async_interrupt;
        enabled
            && r.io_ready & FN1 != 0
            && r.int_status != 0
            && !dat1_busy
            && signalled
            && self.state != SdioState::Inactive
    }

    /// The host started or stopped the clock; a stop and restart after CMD11 completes
    /// the voltage switch.
    pub fn clock_running(&mut self, running: bool) {
        self.clock = running;
        let (phase, switched) = self.voltage_switch.clock(running);
        self.voltage_switch = phase;
        self.signal_1v8 |= switched;
    }

    /// The level on CMD outside a command: low during the voltage switch.
    pub fn cmd_line(&self) -> bool {
        self.voltage_switch == VoltageSwitch::Idle
    }

    /// Whether the host enabled the asynchronous interrupt (CCCR EAI).
    pub fn async_interrupt_enabled(&self) -> bool {
        self.regs.async_interrupt
    }

    /// The levels on DAT3..DAT0 outside a data phase: all high but DAT1 while the card
    /// signals its interrupt.
    pub fn data_lines(&self) -> u8 {
        if self.voltage_switch != VoltageSwitch::Idle {
            0
        } else if self.sdio_interrupt() {
            0xF & !0x2
        } else {
            0xF
        }
    }

    /// Handles one command. `Err(NoResponse)` means the card stays silent.
    pub fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        self.work = CardWork::None;
        if self.state == SdioState::Inactive {
            return Err(NoResponse);
        }
        if self.voltage_switch != VoltageSwitch::Idle {
            // CMD is held low until the clock restarts: the command is lost.
            return Err(NoResponse);
        }
        // A tuning block the host did not read whole is over with the next command.
        self.tuning_left = 0;
        let arg = cmd.argument;
        match cmd.index {
            5 => self.io_send_op_cond(arg),
            // CMD11 after an S18A, before CMD3: the lines go low until the clock has stopped
            // and restarted (the host moves its I/O to 1.8 V meanwhile).
            11 if self.s18a && self.state == SdioState::Init && self.ready => {
                self.s18a = false;
                self.voltage_switch = VoltageSwitch::LinesLow;
                let status = self.card_status();
                Ok(Response::R1(status))
            }
            // CMD19 SEND_TUNING_BLOCK: the 4-bit tuning pattern, at SDR50.
            19 if matches!(self.state, SdioState::Command | SdioState::Transfer)
                && self.regs.bus_speed == cccr::SPEED_SDR50 =>
            {
                self.tuning_left = TUNING_BLOCK_4BIT.len();
                let status = self.card_status();
                Ok(Response::R1(status))
            }
            // The I/O part ignores CMD0 (it resets memory only), and an I/O-only card has no
            // memory commands: silent, nothing recorded.
            0 | 8 | 55 | 41 => Err(NoResponse),
            _ if self.state == SdioState::Idle => Err(NoResponse),
            3 if self.state == SdioState::Standby
                || (self.state == SdioState::Init && self.ready) =>
            {
                self.rca = self.config.rca;
                self.state = SdioState::Standby;
                let illegal = core::mem::take(&mut self.illegal);
                let r6 = R6::zeroed()
                    .with_illegal_command(illegal)
                    .try_with_rca(u32::from(self.rca))
                    .map_err(|_| NoResponse)?;
                Ok(Response::R1(r6.raw()))
            }
            7 => self.select(arg),
            15 if matches!(
                self.state,
                SdioState::Standby | SdioState::Command | SdioState::Transfer
            ) =>
            {
                if self.addressed(arg) {
                    self.state = SdioState::Inactive;
                    self.data = None;
                }
                Err(NoResponse)
            }
            52 => self.io_rw_direct(arg),
            53 if self.state == SdioState::Command => self.io_rw_extended(arg),
            _ => self.illegal(),
        }
    }

    fn illegal(&mut self) -> Result<Response, NoResponse> {
        self.illegal = true;
        Err(NoResponse)
    }

    fn addressed(&self, arg: u32) -> bool {
        self.rca != 0 && RCA_ARG::from_raw(arg).rca() == u32::from(self.rca)
    }

    /// CMD5: the R4 with the OCR, one function, no memory.
    fn io_send_op_cond(&mut self, arg: u32) -> Result<Response, NoResponse> {
        let host = IO_OCR::from_raw(arg);
        if matches!(self.state, SdioState::Idle | SdioState::Init) {
            self.state = SdioState::Init;
            if host.ocr() != 0 {
                if host.vdd_27_36() & IO_OCR::VOLTAGE_WINDOW.vdd_27_36() == 0 {
                    self.state = SdioState::Inactive;
                    return Err(NoResponse);
                }
                if !self.ready {
                    if self.cmd5_polls >= self.config.busy_polls {
                        self.ready = true;
                        self.work = CardWork::PowerUp;
                    } else {
                        self.cmd5_polls = self.cmd5_polls.saturating_add(1);
                    }
                }
            }
        }
        // S18A to a host asking for 1.8 V with a UHS-I card still at 3.3 V (a card already
        // at 1.8 V answers 0: SDIO 3.00 §3.1.2); CMD11 then switches.
        self.s18a = self.ready && host.s18() && self.config.uhs_sdr50 && !self.signal_1v8;
        let r4 = IO_OCR::VOLTAGE_WINDOW
            .with_const_functions::<1>()
            .with_ready(self.ready)
            .with_s18(self.s18a);
        Ok(Response::R3(r4.raw()))
    }

    /// CMD7: select by RCA, deselect by any other.
    fn select(&mut self, arg: u32) -> Result<Response, NoResponse> {
        let own = self.addressed(arg);
        match self.state {
            SdioState::Standby if own => {
                self.state = SdioState::Command;
                Ok(Response::R1b(self.card_status()))
            }
            SdioState::Standby => Err(NoResponse),
            SdioState::Command if own => Ok(Response::R1b(self.card_status())),
            SdioState::Command | SdioState::Transfer if !own => {
                self.state = SdioState::Standby;
                self.data = None;
                Err(NoResponse)
            }
            _ => self.illegal(),
        }
    }

    /// The R1 card status of an SDIO-only card: the error bits, the rest 0.
    fn card_status(&mut self) -> u32 {
        let illegal = core::mem::take(&mut self.illegal);
        CARD_STATUS::zeroed().with_illegal_command(illegal).raw()
    }

    fn io_state(&self) -> IoState {
        match self.state {
            SdioState::Command => IoState::Command,
            SdioState::Transfer => IoState::Transfer,
            _ => IoState::Disabled,
        }
    }

    /// The R5 word for `flags` (error bits) and `data`, with the pending ILLEGAL_COMMAND
    /// (which it clears) and the state after the command.
    fn r5(&mut self, flags: R5, data: u8) -> Response {
        let illegal = core::mem::take(&mut self.illegal);
        let word = R5::from_raw(flags.raw() | u32::from(data))
            .with_illegal_command(illegal)
            .with_io_current_state(self.io_state());
        Response::R1(word.raw())
    }

    /// Whether function 1 is enabled and ready.
    fn fn1_ready(&self) -> bool {
        self.regs.io_ready & FN1 != 0
    }

    /// The error (if any) of an access to `function`: FUNCTION_NUMBER for a function the
    /// card lacks, ERROR for function 1 while it is not ready.
    fn function_error(&self, function: u8) -> Option<R5> {
        match function {
            0 => None,
            1 if self.fn1_ready() => None,
            1 => Some(R5::zeroed().with_error(true)),
            _ => Some(R5::zeroed().with_function_number(true)),
        }
    }

    /// Whether `address` of `function` is implemented.
    fn mapped(&self, function: u8, address: u32) -> bool {
        if address >= SPACE_END {
            return false;
        }
        function == 0
            || (address as usize) < self.ram_end()
            || (func1::INT_TRIGGER..func1::CONTROL_END).contains(&address)
    }

    /// Whether the `len` addresses of `function` from `first` are all implemented.
    fn range_mapped(&self, function: u8, first: u32, len: usize) -> bool {
        let Some(end) = u32::try_from(len)
            .ok()
            .and_then(|l| first.checked_add(l))
            .filter(|&e| e <= SPACE_END)
        else {
            return false;
        };
        if function == 0 {
            return true;
        }
        let ram_end = u32::try_from(self.ram_end()).unwrap_or(func1::RAM_END);
        let mut at = first;
        while at < end {
            if at < ram_end {
                at = ram_end;
            } else if (func1::INT_TRIGGER..func1::CONTROL_END).contains(&at) {
                at = func1::CONTROL_END;
            } else {
                return false;
            }
        }
        true
    }

    fn ram_end(&self) -> usize {
        self.ram.len().min(func1::RAM_END as usize)
    }

    /// CMD52.
    fn io_rw_direct(&mut self, arg: u32) -> Result<Response, NoResponse> {
        let a = IO_RW_DIRECT_ARG::from_raw(arg);
        // Fields of at most 17 bits.
        let (function, address, byte) = (a.function() as u8, a.address(), a.data() as u8);
        match self.state {
            SdioState::Init if !self.ready => return self.illegal(),
            SdioState::Transfer if !(a.write() && function == 0 && address == cccr::IO_ABORT) => {
                return self.illegal();
            }
            _ => {}
        }
        self.stats.direct = self.stats.direct.saturating_add(1);
        if let Some(error) = self.function_error(function) {
            return Ok(self.r5(error, 0));
        }
        if !self.mapped(function, address) {
            return Ok(self.r5(R5::zeroed().with_out_of_range(true), 0));
        }
        let value = if a.write() {
            self.write_byte(function, address, byte);
            if a.read_after_write() {
                self.read_byte(function, address)
            } else {
                byte
            }
        } else {
            self.read_byte(function, address)
        };
        Ok(self.r5(R5::zeroed(), value))
    }

    /// CMD53: checks the argument and opens the data phase.
    fn io_rw_extended(&mut self, arg: u32) -> Result<Response, NoResponse> {
        let a = IO_RW_EXTENDED_ARG::from_raw(arg);
        // Fields of at most 17 bits.
        let (function, address, count) = (a.function() as u8, a.address(), a.count() as usize);
        if let Some(error) = self.function_error(function) {
            return Ok(self.r5(error, 0));
        }
        let remaining = if a.block_mode() {
            let size = usize::from(if function == 0 {
                self.regs.fn0_block_size
            } else {
                self.regs.fn1_block_size
            });
            if size == 0 || size > usize::from(MAX_BLOCK_SIZE) {
                return Ok(self.r5(R5::zeroed().with_error(true), 0));
            }
            (count != 0).then(|| count * size)
        } else {
            Some(if count == 0 { 512 } else { count })
        };
        let in_range = match (a.increment(), remaining) {
            (true, Some(len)) => self.range_mapped(function, address, len),
            _ => self.mapped(function, address),
        };
        if !in_range {
            return Ok(self.r5(R5::zeroed().with_out_of_range(true), 0));
        }
        self.data = Some(Extended {
            write: a.write(),
            function,
            address,
            increment: a.increment(),
            remaining,
        });
        self.state = SdioState::Transfer;
        self.stats.extended = self.stats.extended.saturating_add(1);
        Ok(self.r5(R5::zeroed(), 0))
    }

    /// Data phase, card to host: fills `buf` with the next bytes of the running CMD53.
    pub fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        if self.tuning_left > 0 {
            let sent = TUNING_BLOCK_4BIT.len() - self.tuning_left;
            let block = TUNING_BLOCK_4BIT.get(sent..).ok_or(DataError::NoTransfer)?;
            let part = block.get(..buf.len()).ok_or(DataError::Overrun)?;
            buf.copy_from_slice(part);
            self.tuning_left -= buf.len();
            return Ok(());
        }
        let mut x = self
            .data
            .filter(|x| !x.write)
            .ok_or(DataError::NoTransfer)?;
        if x.remaining.is_some_and(|left| buf.len() > left) {
            return Err(DataError::Overrun);
        }
        for b in buf.iter_mut() {
            if !self.mapped(x.function, x.address) {
                return self.stop_extended();
            }
            *b = self.read_byte(x.function, x.address);
            x.advance();
        }
        self.progress(x);
        Ok(())
    }

    /// Data phase, host to card: stores `data` as the next bytes of the running CMD53.
    pub fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        let mut x = self.data.filter(|x| x.write).ok_or(DataError::NoTransfer)?;
        if x.remaining.is_some_and(|left| data.len() > left) {
            return Err(DataError::Overrun);
        }
        for &b in data {
            if !self.mapped(x.function, x.address) {
                return self.stop_extended();
            }
            self.write_byte(x.function, x.address, b);
            // A byte written to IO_ABORT or IO_ENABLE may have ended the transfer.
            if self.data.is_none() {
                return Ok(());
            }
            x.advance();
        }
        self.progress(x);
        Ok(())
    }

    /// An open-ended CMD53 ran out of the function's space: the card stops.
    fn stop_extended(&mut self) -> Result<(), DataError> {
        self.end_extended();
        Err(DataError::Overrun)
    }

    /// Records how far the running CMD53 got; its last byte ends it.
    fn progress(&mut self, x: Extended) {
        if self.data.is_none() {
            return;
        }
        if x.remaining == Some(0) {
            self.end_extended();
        } else {
            self.data = Some(x);
        }
    }

    fn end_extended(&mut self) {
        self.data = None;
        if self.state == SdioState::Transfer {
            self.state = SdioState::Command;
        }
    }

    /// An I/O abort or a disable ends `function`'s running CMD53.
    fn abort(&mut self, function: u8) {
        if self.data.is_some_and(|x| x.function == function) {
            self.end_extended();
            self.stats.aborts = self.stats.aborts.saturating_add(1);
        }
    }

    /// RES or a power cycle: the I/O part back to its power-on state, waiting for CMD5.
    fn reset_io(&mut self) {
        self.state = SdioState::Idle;
        self.ready = false;
        self.cmd5_polls = 0;
        self.rca = 0;
        self.illegal = false;
        self.regs = IoRegisters::POWER_ON;
        self.data = None;
    }

    /// Reads a byte of an implemented address, with the read's side effects.
    fn read_byte(&mut self, function: u8, address: u32) -> u8 {
        if function == 0 {
            self.read_fn0(address)
        } else {
            self.read_fn1(address)
        }
    }

    /// Writes a byte to an implemented address, with the write's side effects.
    fn write_byte(&mut self, function: u8, address: u32, value: u8) {
        if function == 0 {
            self.write_fn0(address, value);
        } else {
            self.write_fn1(address, value);
        }
    }

    fn read_fn0(&mut self, address: u32) -> u8 {
        let r = &mut self.regs;
        match address {
            // SDIO 3.00, CCCR 3.00.
            cccr::REVISION => 0x43,
            // SD physical specification 3.00.
            cccr::SD_REVISION => 0x03,
            cccr::IO_ENABLE => r.io_enable,
            cccr::IO_READY => {
                if r.io_enable & FN1 != 0 && r.io_ready & FN1 == 0 {
                    if r.enable_polls_left == 0 {
                        r.io_ready |= FN1;
                    } else {
                        r.enable_polls_left -= 1;
                    }
                }
                r.io_ready
            }
            cccr::INT_ENABLE => r.int_enable,
            cccr::INT_PENDING => {
                if r.int_status != 0 {
                    FN1
                } else {
                    0
                }
            }
            cccr::BUS_INTERFACE => r.bus_interface,
            cccr::CAPABILITY => {
                cccr::CAP_SMB | cccr::CAP_S4MI | if r.e4mi { cccr::CAP_E4MI } else { 0 }
            }
            cccr::FN0_BLOCK_SIZE => r.fn0_block_size.to_le_bytes()[0],
            a if a == cccr::FN0_BLOCK_SIZE + 1 => r.fn0_block_size.to_le_bytes()[1],
            cccr::POWER_CONTROL => cccr::POWER_SMPC | if r.empc { cccr::POWER_EMPC } else { 0 },
            cccr::BUS_SPEED => {
                let shs = if self.config.high_speed {
                    cccr::SPEED_SHS
                } else {
                    0
                };
                shs | r.bus_speed
            }
            cccr::DRIVER_STRENGTH => r.drive_strength,
            cccr::UHS_SUPPORT => {
                if self.config.uhs_sdr50 {
                    cccr::UHS_SDR50
                } else {
                    0
                }
            }
            cccr::INTERRUPT_EXT => {
                let sai = if self.config.async_interrupt {
                    cccr::INT_EXT_SAI
                } else {
                    0
                };
                sai | if r.async_interrupt {
                    cccr::INT_EXT_EAI
                } else {
                    0
                }
            }
            a if (cccr::CIS_POINTER..cccr::CIS_POINTER + 3).contains(&a) => {
                pointer_byte(COMMON_CIS, a - cccr::CIS_POINTER)
            }
            a if (fbr1::CIS_POINTER..fbr1::CIS_POINTER + 3).contains(&a) => {
                pointer_byte(FUNC1_CIS, a - fbr1::CIS_POINTER)
            }
            fbr1::BLOCK_SIZE => r.fn1_block_size.to_le_bytes()[0],
            a if a == fbr1::BLOCK_SIZE + 1 => r.fn1_block_size.to_le_bytes()[1],
            a if (COMMON_CIS..CIS_AREA_END).contains(&a) => self
                .cis
                .get((a - COMMON_CIS) as usize)
                .copied()
                .unwrap_or(0),
            // IO_ABORT (write-only), UHS support, the suspend/resume
            // registers, FBR1's interface codes, power selection and CSA, the absent
            // functions' FBRs and the reserved areas all read 0.
            _ => 0,
        }
    }

    fn write_fn0(&mut self, address: u32, value: u8) {
        let r = &mut self.regs;
        match address {
            cccr::IO_ENABLE => {
                let was = r.io_enable & FN1 != 0;
                let now = value & FN1 != 0;
                r.io_enable = value & FN1;
                if now && !was {
                    r.enable_polls_left = self.config.enable_polls;
                    if r.enable_polls_left == 0 {
                        r.io_ready |= FN1;
                    }
                } else if !now && was {
                    r.io_ready &= !FN1;
                    r.reset_function();
                    self.abort(1);
                }
            }
            cccr::INT_ENABLE => r.int_enable = value & (cccr::INT_MASTER | FN1),
            cccr::IO_ABORT => {
                if value & cccr::ABORT_RES != 0 {
                    self.reset_io();
                    self.stats.resets = self.stats.resets.saturating_add(1);
                } else {
                    self.abort(value & cccr::ABORT_ASX);
                }
            }
            cccr::BUS_INTERFACE => {
                let width = match value & cccr::BUS_WIDTH_MASK {
                    w @ (0 | cccr::BUS_WIDTH_4BIT) => w,
                    // 01b (8-bit, S8B = 0) and 11b are not taken: the width stays.
                    _ => r.bus_interface & cccr::BUS_WIDTH_MASK,
                };
                r.bus_interface = width | (value & (cccr::BUS_ECSI | cccr::BUS_CD_DISABLE));
            }
            cccr::CAPABILITY => r.e4mi = value & cccr::CAP_E4MI != 0,
            cccr::FN0_BLOCK_SIZE => set_byte(&mut r.fn0_block_size, 0, value),
            a if a == cccr::FN0_BLOCK_SIZE + 1 => set_byte(&mut r.fn0_block_size, 1, value),
            cccr::POWER_CONTROL => r.empc = value & cccr::POWER_EMPC != 0,
            cccr::BUS_SPEED => {
                let bss = value & cccr::SPEED_BSS_MASK;
                // Default speed always; high speed if SHS; SDR50 at 1.8 V on a UHS-I card.
                let sdr50 = bss == cccr::SPEED_SDR50 && self.config.uhs_sdr50 && self.signal_1v8;
                if bss == 0 || (bss == cccr::SPEED_EHS && self.config.high_speed) || sdr50 {
                    r.bus_speed = bss;
                }
            }
            cccr::DRIVER_STRENGTH => r.drive_strength = value & cccr::DRIVE_DTS_MASK,
            cccr::INTERRUPT_EXT => {
                r.async_interrupt = self.config.async_interrupt && value & cccr::INT_EXT_EAI != 0;
            }
            fbr1::BLOCK_SIZE => set_byte(&mut r.fn1_block_size, 0, value),
            a if a == fbr1::BLOCK_SIZE + 1 => set_byte(&mut r.fn1_block_size, 1, value),
            // Read-only and reserved bytes.
            _ => {}
        }
    }

    fn read_fn1(&mut self, address: u32) -> u8 {
        if let Some(&b) = self
            .ram
            .get(address as usize)
            .filter(|_| address < func1::RAM_END)
        {
            return b;
        }
        let r = &mut self.regs;
        match address {
            func1::INT_STATUS => r.int_status,
            func1::SCRATCH => r.scratch,
            func1::ID => func1::ID_VALUE,
            func1::FIFO => {
                let len = r.fifo_len;
                if len == 0 {
                    return 0;
                }
                let head = r.fifo[0];
                r.fifo.copy_within(1..len, 0);
                r.fifo_len = len - 1;
                head
            }
            // The FIFO depth fits a byte.
            func1::FIFO_LEVEL => r.fifo_len as u8,
            // INT_TRIGGER reads 0.
            _ => 0,
        }
    }

    fn write_fn1(&mut self, address: u32, value: u8) {
        if address < func1::RAM_END {
            if let Some(b) = self.ram.get_mut(address as usize) {
                *b = value;
            }
            return;
        }
        let r = &mut self.regs;
        match address {
            func1::INT_TRIGGER => r.int_status |= value,
            func1::INT_STATUS => r.int_status &= !value,
            func1::SCRATCH => r.scratch = value,
            func1::FIFO => {
                if let Some(slot) = r.fifo.get_mut(r.fifo_len) {
                    *slot = value;
                    r.fifo_len += 1;
                }
            }
            // ID and FIFO_LEVEL are read-only.
            _ => {}
        }
    }
}

impl Extended {
    fn advance(&mut self) {
        if self.increment {
            self.address = self.address.saturating_add(1);
        }
        if let Some(left) = self.remaining.as_mut() {
            *left = left.saturating_sub(1);
        }
    }
}

/// Byte `index` (0 least significant) of a three-byte CIS pointer to `target`.
fn pointer_byte(target: u32, index: u32) -> u8 {
    target
        .to_le_bytes()
        .get(index as usize)
        .copied()
        .unwrap_or(0)
}

/// Sets byte `index` (0 least significant) of a 16-bit register.
fn set_byte(reg: &mut u16, index: usize, value: u8) {
    let mut bytes = reg.to_le_bytes();
    if let Some(b) = bytes.get_mut(index) {
        *b = value;
    }
    *reg = u16::from_le_bytes(bytes);
}

/// The SDIO card in a slot of the MSDC model. An SDIO card has no hardware reset line, so
/// [`CardSlot::hardware_reset`] keeps its default (nothing happens).
impl CardSlot for SdioCard<'_> {
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        SdioCard::command(self, cmd)
    }

    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        SdioCard::read_data(self, buf)
    }

    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        SdioCard::write_data(self, data)
    }

    fn bus_width(&self) -> Option<u8> {
        Some(SdioCard::bus_width(self))
    }

    fn max_clock_hz(&self) -> Option<u32> {
        Some(SdioCard::max_clock_hz(self))
    }

    fn take_work(&mut self) -> CardWork {
        SdioCard::take_work(self)
    }

    fn data_lines(&self) -> u8 {
        SdioCard::data_lines(self)
    }

    fn sdio_interrupt(&self) -> bool {
        SdioCard::sdio_interrupt(self)
    }

    fn clock_running(&mut self, running: bool) {
        SdioCard::clock_running(self, running);
    }

    fn cmd_line(&self) -> bool {
        SdioCard::cmd_line(self)
    }
}
