// SPDX-License-Identifier: GPL-2.0
//! The SD card model: card states, identification, ACMD41 power-up, CMD6 switch function,
//! CMD11 voltage switch with its line sequence, CMD19 tuning and 512-byte block transfers
//! over caller-provided storage.
//!
//! Behaviour follows the SD Physical Layer Simplified Specification (v3.01 and later):
//!
//! * States idle → ready → ident → stby → tran → data/rcv (§4.3, Table 4-35). The
//!   programming state is not modelled: a write returns to tran at once.
//! * Illegal commands (not defined, or not legal in the current state) get no response and
//!   set ILLEGAL_COMMAND, which the next answered command reports and then clears
//!   (clear condition B, §4.10.1).
//! * OUT_OF_RANGE is set (and reported in that command's response) when a transfer starts
//!   beyond the capacity; a multiple block read or write that runs past the end stops the
//!   data and reports OUT_OF_RANGE with the next command (usually CMD12).
//! * ADDRESS_ERROR flags a misaligned address; with block addressing (SDHC/SDXC) every
//!   address is aligned, so it is raised only for a CMD16 block length that is not 512 on
//!   a transfer (the model refuses such a transfer with ADDRESS_ERROR instead of
//!   BLOCK_LEN_ERROR, which SDHC does not define for reads).
//! * Addressed commands with another card's RCA get no response and change nothing.
//! * Application commands: ACMD6 (bus width), ACMD13 (SD status, §4.10.2: bus width, speed
//!   class 10, AU 4 MiB, erase timing, A1 application performance class), ACMD22
//!   (well-written blocks), ACMD23 and ACMD42 (accepted, no effect), ACMD41, ACMD51.
//! * Erase (§4.3.5): CMD32/CMD33 set the first and last block, CMD38 (R1b) with argument 0
//!   erases them; erased blocks read 0x00 (SCR DATA_STAT_AFTER_ERASE = 0). Discard and FULE
//!   (arguments 1 and 2) are not advertised in the SD status and answer ERASE_PARAM. A
//!   command outside the sequence clears it and reports ERASE_RESET; CMD38 without both
//!   bounds reports ERASE_SEQ_ERROR.
//! * An SDHC card completes ACMD41 power-up only for a host that sent CMD8 and sets HCS;
//!   otherwise it stays busy forever (§4.2.3.1). An ACMD41 whose voltage window misses the
//!   card's puts it in the inactive state.
//! * CMD11 voltage switch (§4.2.4.2 "Timing to Switch Signal Voltage"), accepted in ready
//!   after an ACMD41 that granted S18A: after its R1 the card holds CMD and DAT3..DAT0 low
//!   ([`SdCard::data_lines`], [`SdCard::cmd_line`]; a host's card-busy check sees DAT0
//!   low), the host stops the clock ([`SdCard::clock_running`]), the card moves to 1.8 V,
//!   and when the clock runs again it releases the lines (high) and signals at 1.8 V
//!   ([`SdCard::signal_1v8`]). A command before that is lost and leaves the switch
//!   unfinished, the lines low, until [`SdCard::power_cycle`]. The card has no clock of its
//!   own to time the stop: the 5 ms minimum is not checked. A slot that never reports the
//!   clock cannot run the sequence; the card then switches as it answers CMD11.
//! * CMD19 SEND_TUNING_BLOCK (§4.2.4.5): in tran at 1.8 V signalling (SDR50, SDR104 and,
//!   since v3.01, DDR50 and the slower UHS-I modes); R1 and the 64-byte tuning block
//!   ([`cards::TUNING_BLOCK_4BIT`]). At 3.3 V it is an illegal command.
//! * The maximum clock follows the access mode CMD6 selects (see [`SdCard::max_clock_hz`]).
//! * Busy work (power-up, erase) is reported through [`SdCard::take_work`] for the latency
//!   model; the card itself leaves the programming state at once.
//! * Not modelled: SDSC byte addressing, CMD42 lock/unlock (class 7 is in the CSD, as on real
//!   cards, but CMD42 is refused), write protection, the programming state, SD function
//!   extensions (CMD48/49; the SCR does not advertise them), SDIO, SPI mode, CRC checking of
//!   what the host sends (the MSDC model injects CRC faults instead).

use super::super::cards::{
    self, erase_blocks, BlockData, CardCore, CardModel, EraseBoundError, EraseRange, Readout,
    VoltageSwitch, TUNING_BLOCK_4BIT,
};
// The SD specification places the RCA of an addressed command where JESD84-B51 does.
use super::super::emmc::command::RCA_ARG;
use super::super::emmc::{CardState, CardWork, Command, DataError, NoResponse, Response};

/// Bytes per block: SDHC/SDXC block addressing fixes memory access at 512 bytes.
pub const BLOCK_SIZE: usize = cards::BLOCK_SIZE;

/// Length of the CMD6 switch function status and of the ACMD13 SD status (512 bits).
pub const SWITCH_STATUS_LEN: usize = 64;

/// RCA the card publishes with CMD3 unless [`SdConfig::rca`] says otherwise.
pub const DEFAULT_RCA: u16 = 0xB368;

/// Timing model: the number of ACMD41 polls (with a non-zero voltage window) that answer
/// busy (OCR bit 31 clear) before power-up completes. Real cards take up to one second;
/// the host must keep polling, so a driver that gives up after one poll fails here.
pub const ACMD41_BUSY_POLLS: u32 = 3;

register! {
    /// The card status an R1 or R1b response carries, as the SD specification names it
    /// (§4.10.1).
    pub CARD_STATUS(u32) {
        /// The argument was out of the allowed range.
        31:31 out_of_range => bool;
        /// A misaligned address.
        30:30 address_error => bool;
        /// The block length is not allowed.
        29:29 block_len_error => bool;
        /// An erase command arrived out of sequence.
        28:28 erase_seq_error => bool;
        /// An invalid selection of write blocks or erase function.
        27:27 erase_param => bool;
        /// Write-protect violation.
        26:26 wp_violation => bool;
        /// The card is locked.
        25:25 card_is_locked => bool;
        /// A lock/unlock command failed.
        24:24 lock_unlock_failed => bool;
        /// CRC check of the previous command failed.
        23:23 com_crc_error => bool;
        /// The previous command was not legal in the card state.
        22:22 illegal_command => bool;
        /// Internal ECC failure.
        21:21 card_ecc_failed => bool;
        /// Internal controller error.
        20:20 cc_error => bool;
        /// General error.
        19:19 error => bool;
        /// CSD overwrite.
        16:16 csd_overwrite => bool;
        /// Write-protected blocks were skipped by an erase.
        15:15 wp_erase_skip => bool;
        /// The command ran without internal ECC.
        14:14 card_ecc_disabled => bool;
        /// An erase sequence was cleared by a command outside it.
        13:13 erase_reset => bool;
        /// The state the card was in when it received the command.
        12:9 current_state ?=> CardState;
        /// The same bits as a number.
        12:9 current_state_code;
        /// The buffer is empty and the card accepts data.
        8:8 ready_for_data => bool;
        /// An extension function event.
        6:6 fx_event => bool;
        /// The card expects an application command.
        5:5 app_cmd => bool;
        /// Authentication sequence error.
        3:3 ake_seq_error => bool;
    }

    /// The OCR ACMD41 answers with, and the ACMD41 argument (§5.1, §4.2.3.1).
    pub OCR(u32) {
        /// 2.7–3.6 V, in 0.1 V steps.
        23:15 vdd_27_36;
        /// The argument's OCR bits: zero makes an ACMD41 an inquiry.
        23:0 ocr_bits;
        /// Switching to 1.8 V requested (argument, S18R) or accepted (response, S18A).
        24:24 s18 => bool;
        /// SDXC power control (argument).
        28:28 xpc => bool;
        /// Card capacity status (response) or host capacity support (argument, HCS).
        30:30 ccs => bool;
        /// Power-up has finished (clear while the card is busy).
        31:31 busy_done => bool;
    }

    /// The argument of CMD8 SEND_IF_COND, which the R7 echoes.
    pub SEND_IF_COND(u32) {
        /// Supply voltage: 0001b for 2.7–3.6 V.
        11:8 vhs;
        /// Check pattern.
        7:0 check_pattern;
    }

    /// The R6 response to CMD3: the published RCA and some card status bits.
    pub R6(u32) {
        /// The published RCA.
        31:16 rca;
        /// Card status bit 23.
        15:15 com_crc_error => bool;
        /// Card status bit 22.
        14:14 illegal_command => bool;
        /// Card status bit 19.
        13:13 error => bool;
        /// Card status bits 12:0.
        12:0 status;
    }

    /// The argument of ACMD6 SET_BUS_WIDTH.
    pub SET_BUS_WIDTH_ARG(u32) {
        /// 00b 1-bit, 10b 4-bit.
        1:0 bus_width;
    }

    /// The argument of CMD6 SWITCH_FUNC (§4.3.10): a function per group, 0xF keeps the
    /// current one.
    pub SWITCH_FUNC_ARG(u32) {
        /// Switch (set) or check.
        31:31 mode => bool;
        /// Function group 6.
        23:20 group6;
        /// Function group 5.
        19:16 group5;
        /// Function group 4 (current limit).
        15:12 group4;
        /// Function group 3 (driver strength).
        11:8 group3;
        /// Function group 2 (command system).
        7:4 group2;
        /// Function group 1 (access mode).
        3:0 group1;
    }
}

impl SEND_IF_COND {
    /// The fields the R7 echoes.
    pub const ECHOED: Self = Self::zeroed()
        .with_const_vhs::<0xF>()
        .with_const_check_pattern::<0xFF>();
}

impl R6 {
    /// The card status bits R6 carries at their own positions (12:0).
    pub const SAME_POSITION: Self = Self::zeroed().with_const_status::<0x1FFF>();
}

/// OCR voltage window the card supports: 2.7–3.6 V (bits 23:15).
pub const OCR_VOLTAGE_WINDOW: u32 = OCR::zeroed().with_const_vdd_27_36::<0x1FF>().raw();

/// R1 card status bits as the SD specification names them, one [`CARD_STATUS`] field each.
pub mod status {
    use super::CARD_STATUS;

    /// The argument was out of the allowed range.
    pub const OUT_OF_RANGE: u32 = CARD_STATUS::zeroed().with_out_of_range(true).raw();
    /// A misaligned address.
    pub const ADDRESS_ERROR: u32 = CARD_STATUS::zeroed().with_address_error(true).raw();
    /// The block length is not allowed.
    pub const BLOCK_LEN_ERROR: u32 = CARD_STATUS::zeroed().with_block_len_error(true).raw();
    /// An erase command arrived out of sequence.
    pub const ERASE_SEQ_ERROR: u32 = CARD_STATUS::zeroed().with_erase_seq_error(true).raw();
    /// An invalid selection of write blocks or erase function.
    pub const ERASE_PARAM: u32 = CARD_STATUS::zeroed().with_erase_param(true).raw();
    /// CRC check of the previous command failed.
    pub const COM_CRC_ERROR: u32 = CARD_STATUS::zeroed().with_com_crc_error(true).raw();
    /// The previous command was not legal in the card state.
    pub const ILLEGAL_COMMAND: u32 = CARD_STATUS::zeroed().with_illegal_command(true).raw();
    /// General error.
    pub const ERROR: u32 = CARD_STATUS::zeroed().with_error(true).raw();
    /// An erase sequence was cleared by a command outside it.
    pub const ERASE_RESET: u32 = CARD_STATUS::zeroed().with_erase_reset(true).raw();
    /// The buffer is empty and the card accepts data.
    pub const READY_FOR_DATA: u32 = CARD_STATUS::zeroed().with_ready_for_data(true).raw();
    /// The card expects an application command.
    pub const APP_CMD: u32 = CARD_STATUS::zeroed().with_app_cmd(true).raw();
    /// Position of CURRENT_STATE (the lowest bit of [`CARD_STATUS::current_state`]), for
    /// code that shifts by hand.
    pub const STATE_SHIFT: u32 = CARD_STATUS::zeroed()
        .with_const_current_state_code::<1>()
        .raw()
        .trailing_zeros();
}

/// Card properties a test may vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdConfig {
    /// RCA published by CMD3.
    pub rca: u16,
    /// The card accepts S18R and switches to 1.8 V signalling with CMD11 (UHS-I).
    pub uhs: bool,
    /// ACMD41 polls that answer busy, see [`ACMD41_BUSY_POLLS`].
    pub busy_polls: u32,
}

impl Default for SdConfig {
    fn default() -> Self {
        Self {
            rca: DEFAULT_RCA,
            uhs: true,
            busy_polls: ACMD41_BUSY_POLLS,
        }
    }
}

/// What the open data phase transfers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataPhase {
    None,
    /// Blocks from storage (open-ended for a CMD18 without CMD23).
    Read(BlockData),
    /// Blocks to storage (open-ended for a CMD25 without CMD23).
    Write(BlockData),
    /// The register buffer (SCR, switch status, SD status), sent from its start.
    Register(Readout),
    /// The tuning block (CMD19).
    Tuning(Readout),
}

/// An SD memory card (SDHC/SDXC) over caller-provided storage.
#[derive(Debug)]
pub struct SdCard<'a> {
    storage: &'a mut [u8],
    config: SdConfig,
    state: CardState,
    rca: u16,
    app_cmd: bool,
    core: CardCore,
    cmd8_seen: bool,
    acmd41_polls: u32,
    s18a: bool,
    signal_1v8: bool,
    bus_width: u8,
    access_mode: u8,
    block_count: Option<u32>,
    block_len: u32,
    data: DataPhase,
    register: [u8; SWITCH_STATUS_LEN],
    /// Blocks written by the last write command (for ACMD22).
    written_blocks: u32,
    /// The CMD11 line sequence.
    voltage_switch: VoltageSwitch,
    /// The slot has reported the clock (see [`SdCard::clock_running`]).
    clock_reported: bool,
}

impl<'a> SdCard<'a> {
    /// A card in the idle state over `storage` (whole 512-byte blocks are addressable).
    pub fn new(storage: &'a mut [u8], config: SdConfig) -> Self {
        Self {
            storage,
            config,
            state: CardState::Idle,
            rca: 0,
            app_cmd: false,
            core: CardCore::new(EraseRange::new(32, 33, 38, status::ERASE_RESET)),
            cmd8_seen: false,
            acmd41_polls: 0,
            s18a: false,
            signal_1v8: false,
            bus_width: 1,
            access_mode: 0,
            block_count: None,
            block_len: BLOCK_SIZE as u32,
            data: DataPhase::None,
            register: [0; SWITCH_STATUS_LEN],
            written_blocks: 0,
            voltage_switch: VoltageSwitch::Idle,
            clock_reported: false,
        }
    }

    /// Power off and on: the card is back in idle at 3.3 V signalling (the only way out of
    /// 1.8 V, of a voltage switch that failed and of the inactive state); storage is kept.
    pub fn power_cycle(&mut self) {
        self.reset();
        self.core.inactive = false;
        self.signal_1v8 = false;
        self.voltage_switch = VoltageSwitch::Idle;
    }

    /// The levels the card drives on DAT3..DAT0 (bit n = DATn high) outside a data phase:
    /// all low from its CMD11 response until the clock restarts after the stop of the
    /// voltage switch (what a host's card-busy check, DAT0 low, sees), otherwise high.
    pub fn data_lines(&self) -> u8 {
        if self.voltage_switch == VoltageSwitch::Idle {
            0xF
        } else {
            0x0
        }
    }

    /// The level the card drives on CMD outside a command: low during the voltage switch,
    /// like the DAT lines, otherwise high.
    pub fn cmd_line(&self) -> bool {
        self.voltage_switch == VoltageSwitch::Idle
    }

    /// The host stopped (`false`) or started (`true`) the card clock. In a voltage switch a
    /// stop lets the card move its I/O to 1.8 V, and the next start ends the switch: the
    /// card releases CMD and DAT3..DAT0 (high) and signals at 1.8 V. A start without a stop
    /// before it changes nothing (the card waits for the stop). The first report also tells
    /// the card that its slot reports the clock, so that later voltage switches follow the
    /// line sequence (see [`SdCard::signal_1v8`]).
    pub fn clock_running(&mut self, running: bool) {
        self.clock_reported = true;
        let (phase, switched) = self.voltage_switch.clock(running);
        self.voltage_switch = phase;
        self.signal_1v8 |= switched;
    }

    /// RST_n: an SD card has no hardware reset line, so nothing happens.
    pub fn hardware_reset(&mut self) {}

    /// The busy work the last command started (power-up, erase); reading it clears it.
    pub fn take_work(&mut self) -> CardWork {
        core::mem::take(&mut self.core.work)
    }

    /// The storage.
    pub fn storage(&self) -> &[u8] {
        self.storage
    }

    /// The storage, for tests to preload.
    pub fn storage_mut(&mut self) -> &mut [u8] {
        self.storage
    }

    /// Capacity in 512-byte blocks.
    pub fn blocks(&self) -> u32 {
        u32::try_from(self.storage.len() / BLOCK_SIZE).unwrap_or(u32::MAX)
    }

    /// Current state.
    pub fn state(&self) -> CardState {
        self.state
    }

    /// The RCA published so far (0 before CMD3).
    pub fn rca(&self) -> u16 {
        self.rca
    }

    /// Data bus width set by ACMD6 (1 or 4).
    pub fn bus_width(&self) -> u8 {
        self.bus_width
    }

    /// Whether CMD11 switched the card to 1.8 V signalling. With a slot that reports the
    /// clock (it called [`SdCard::clock_running`] before CMD11) that is once the line
    /// sequence has ended; with one that never does, the card cannot follow the sequence
    /// and switches as it answers CMD11, its lines staying high.
    pub fn signal_1v8(&self) -> bool {
        self.signal_1v8
    }

    /// Function group 1 (access mode) selected by CMD6: 0 SDR12, 1 SDR25/HS, 2 SDR50,
    /// 3 SDR104, 4 DDR50.
    pub fn access_mode(&self) -> u8 {
        self.access_mode
    }

    /// The fastest bus clock the card accepts now: 400 kHz in identification mode
    /// (idle, ready, ident; §4.2), then 25 MHz (default speed), 50 MHz (high speed / SDR25,
    /// DDR50), 100 MHz (SDR50) or 208 MHz (SDR104) after CMD6.
    pub fn max_clock_hz(&self) -> u32 {
        if self.state.identifying() {
            return 400_000;
        }
        match self.access_mode {
            0 => 25_000_000,
            1 | 4 => 50_000_000,
            2 => 100_000_000,
            _ => 208_000_000,
        }
    }

    /// Bytes left in the open data phase (0 if none, `usize::MAX` if open-ended).
    pub fn data_remaining(&self) -> usize {
        match self.data {
            DataPhase::None => 0,
            DataPhase::Read(blocks) | DataPhase::Write(blocks) => {
                blocks.remaining().unwrap_or(usize::MAX)
            }
            DataPhase::Register(readout) | DataPhase::Tuning(readout) => readout.remaining(),
        }
    }

    /// Whether the card was put in the inactive state (unsupported voltage); it answers
    /// nothing until power cycled (a new model).
    pub fn inactive(&self) -> bool {
        self.core.inactive
    }

    fn status(&self, state: CardState) -> u32 {
        let mut s = CARD_STATUS::from_raw(self.core.pending).with_current_state(state);
        if matches!(state, CardState::Tran | CardState::Rcv) || self.data == DataPhase::None {
            s = s.with_ready_for_data(true);
        }
        if self.app_cmd {
            s = s.with_app_cmd(true);
        }
        s.raw()
    }

    /// R1 for a command received in `state`; reported errors are cleared.
    fn r1(&mut self, state: CardState, extra: u32) -> Response {
        Response::R1(self.status_taken(state) | extra)
    }

    fn illegal(&mut self) -> Result<Response, NoResponse> {
        self.core.pending |= status::ILLEGAL_COMMAND;
        self.app_cmd = false;
        Err(NoResponse)
    }

    fn addressed(&self, arg: u32) -> bool {
        RCA_ARG::from_raw(arg).rca() == u32::from(self.rca) && self.rca != 0
    }

    /// Handles one command. `Err(NoResponse)` means the card stays silent (illegal
    /// command, another card's RCA, or the inactive state): the host sees a timeout.
    pub fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        cards::command(self, cmd)
    }
}

/// The SD card to the steps every command starts with ([`cards::command`]).
impl CardModel for SdCard<'_> {
    fn core(&mut self) -> &mut CardCore {
        &mut self.core
    }

    fn handle(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.voltage_switch != VoltageSwitch::Idle {
            // The card holds CMD low until the clock restarts after a stop: a command sent
            // before then is lost, and the switch stays unfinished until a power cycle.
            return Err(NoResponse);
        }
        if matches!(self.data, DataPhase::Tuning(_)) && cmd.index != 12 {
            // The card sends the tuning block whole on its own; a host that failed its CRC
            // and read no further finds the card back in tran at the next command.
            self.end_data();
        }
        if self.app_cmd && cmd.index != 55 {
            let handled = self.app_command(cmd);
            self.app_cmd = false;
            if let Some(result) = handled {
                return result;
            }
            // Not an application command: the card treats it as a regular one (§4.3.9.1).
        }
        self.regular_command(cmd)
    }

    /// CMD0: back to idle; the signalling level stays.
    fn reset(&mut self) {
        self.state = CardState::Idle;
        self.rca = 0;
        self.app_cmd = false;
        self.core.pending = 0;
        self.cmd8_seen = false;
        self.acmd41_polls = 0;
        self.s18a = false;
        self.bus_width = 1;
        self.access_mode = 0;
        self.block_count = None;
        self.block_len = BLOCK_SIZE as u32;
        self.data = DataPhase::None;
        self.core.erase.clear();
        // The signalling level survives CMD0 (§4.2.4.2): only a power cycle resets it.
    }
}

impl SdCard<'_> {
    fn regular_command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        let state = self.state;
        let arg = cmd.argument;
        match (cmd.index, state) {
            (8, CardState::Idle) => {
                // VHS 0001b: 2.7–3.6 V. Any other voltage: the card does not answer.
                if SEND_IF_COND::from_raw(arg).vhs() != 1 {
                    return Err(NoResponse);
                }
                self.cmd8_seen = true;
                self.core.pending = 0;
                Ok(Response::R1(arg & SEND_IF_COND::ECHOED.raw()))
            }
            (55, CardState::Idle) => {
                self.app_cmd = true;
                Ok(self.r1(state, 0))
            }
            (55, _) if !matches!(state, CardState::Ready | CardState::Ident) => {
                if !self.addressed(arg) {
                    return Err(NoResponse);
                }
                self.app_cmd = true;
                Ok(self.r1(state, 0))
            }
            (11, CardState::Ready) if self.s18a && !self.signal_1v8 => {
                let r = self.r1(state, 0);
                if self.clock_reported {
                    self.voltage_switch = VoltageSwitch::LinesLow;
                } else {
                    self.signal_1v8 = true;
                }
                Ok(r)
            }
            (2, CardState::Ready) => {
                self.state = CardState::Ident;
                Ok(Response::R2(Self::cid()))
            }
            (3, CardState::Ident | CardState::Stby) => {
                self.rca = self.config.rca;
                self.state = CardState::Stby;
                let s = CARD_STATUS::from_raw(self.status_taken(state));
                // An RCA always fits its 16-bit field.
                let r6 = R6::from_raw(s.raw() & R6::SAME_POSITION.raw())
                    .with_com_crc_error(s.com_crc_error())
                    .with_illegal_command(s.illegal_command())
                    .with_error(s.error())
                    .try_with_rca(u32::from(self.rca))
                    .map_err(|_| NoResponse)?;
                Ok(Response::R1(r6.raw()))
            }
            (9 | 10, CardState::Stby) => {
                let (addressed, csd) = (self.addressed(arg), self.csd());
                self.core
                    .send_csd_or_cid(cmd.index, addressed, csd, Self::cid())
            }
            (7, CardState::Stby) => {
                if !self.addressed(arg) {
                    return Err(NoResponse);
                }
                self.state = CardState::Tran;
                Ok(Response::R1b(self.status_taken(state)))
            }
            (7, CardState::Tran | CardState::Data) => {
                if self.addressed(arg) {
                    return self.illegal();
                }
                // Deselected by another card's (or the null) RCA: no response.
                self.state = CardState::Stby;
                self.data = DataPhase::None;
                Err(NoResponse)
            }
            (13, CardState::Stby | CardState::Tran | CardState::Data | CardState::Rcv) => {
                if !self.addressed(arg) {
                    return Err(NoResponse);
                }
                Ok(self.r1(state, 0))
            }
            (15, s) if !s.identifying() => {
                if !self.addressed(arg) {
                    return Err(NoResponse);
                }
                self.state = CardState::Dis;
                self.core.inactive = true;
                Err(NoResponse)
            }
            (12, CardState::Data | CardState::Rcv) => {
                self.data = DataPhase::None;
                self.block_count = None;
                self.state = CardState::Tran;
                Ok(Response::R1b(self.status_taken(state)))
            }
            (16, CardState::Tran) => {
                if arg == 0 || arg > BLOCK_SIZE as u32 {
                    self.core.pending |= status::BLOCK_LEN_ERROR;
                } else {
                    self.block_len = arg;
                }
                Ok(self.r1(state, 0))
            }
            (23, CardState::Tran) => {
                if arg == 0 {
                    return Ok(self.r1(state, status::OUT_OF_RANGE));
                }
                self.block_count = Some(arg);
                Ok(self.r1(state, 0))
            }
            (17 | 18 | 24 | 25, CardState::Tran) => self.block_transfer(cmd),
            (32 | 33, CardState::Tran) => Ok(self.erase_bound(cmd)),
            (38, CardState::Tran) => Ok(self.erase(arg)),
            // CMD19 SEND_TUNING_BLOCK: in the transfer state of 1.8 V signalling (§4.2.4.5;
            // since v3.01 that includes DDR50, which a host may tune too).
            (19, CardState::Tran) if self.signal_1v8 => {
                self.data = DataPhase::Tuning(Readout::new(TUNING_BLOCK_4BIT.len()));
                self.state = CardState::Data;
                Ok(self.r1(state, 0))
            }
            (6, CardState::Tran) => {
                self.switch_function(arg);
                self.start_register(SWITCH_STATUS_LEN);
                Ok(self.r1(state, 0))
            }
            _ => self.illegal(),
        }
    }

    fn status_taken(&mut self, state: CardState) -> u32 {
        let s = self.status(state);
        self.core.pending = 0;
        s
    }

    /// `Some` if `cmd` is an application command the card knows in the current state.
    fn app_command(&mut self, cmd: Command) -> Option<Result<Response, NoResponse>> {
        let state = self.state;
        let arg = cmd.argument;
        match (cmd.index, state) {
            (41, CardState::Idle) => Some(self.acmd41(arg)),
            (6, CardState::Tran) => {
                match SET_BUS_WIDTH_ARG::from_raw(arg).bus_width() {
                    0 => self.bus_width = 1,
                    2 => self.bus_width = 4,
                    _ => {
                        self.core.pending |= status::ERROR;
                    }
                }
                Some(Ok(self.r1(state, 0)))
            }
            (51, CardState::Tran) => {
                self.register = [0; SWITCH_STATUS_LEN];
                // SCR: structure 0, SD_SPEC 2 + SD_SPEC3, 1- and 4-bit bus, CMD23 support.
                let scr = [0x02, 0x05, 0x80, 0x02, 0, 0, 0, 0];
                if let Some(dst) = self.register.get_mut(..scr.len()) {
                    dst.copy_from_slice(&scr);
                }
                self.start_register(scr.len());
                Some(Ok(self.r1(state, 0)))
            }
            (13, CardState::Tran) => {
                self.register = self.sd_status();
                self.start_register(SWITCH_STATUS_LEN);
                Some(Ok(self.r1(state, 0)))
            }
            (22, CardState::Tran) => {
                // SEND_NUM_WR_BLOCKS: 32 bits, big-endian, of well-written blocks.
                self.register = [0; SWITCH_STATUS_LEN];
                let count = self.written_blocks.to_be_bytes();
                if let Some(dst) = self.register.get_mut(..count.len()) {
                    dst.copy_from_slice(&count);
                }
                self.start_register(count.len());
                Some(Ok(self.r1(state, 0)))
            }
            (42 | 23, CardState::Tran) => Some(Ok(self.r1(state, 0))),
            _ => None,
        }
    }

    fn acmd41(&mut self, arg: u32) -> Result<Response, NoResponse> {
        let host = OCR::from_raw(arg);
        let mut ocr = OCR::from_raw(OCR_VOLTAGE_WINDOW);
        if host.ocr_bits() == 0 {
            // Inquiry: report the OCR without starting initialisation.
            return Ok(Response::R3(ocr.raw()));
        }
        if host.vdd_27_36() & ocr.vdd_27_36() == 0 {
            self.core.inactive = true;
            return Err(NoResponse);
        }
        // A high capacity card completes power-up only for a host that sent CMD8 and sets
        // HCS; otherwise it stays busy forever (§4.2.3.1).
        let hcs = host.ccs() && self.cmd8_seen;
        if hcs && self.acmd41_polls >= self.config.busy_polls {
            ocr = ocr.with_busy_done(true).with_ccs(true);
            self.core.work = CardWork::PowerUp;
            if host.s18() && self.config.uhs && !self.signal_1v8 {
                self.s18a = true;
                ocr = ocr.with_s18(true);
            }
            self.state = CardState::Ready;
        } else {
            self.acmd41_polls = self.acmd41_polls.saturating_add(1);
        }
        Ok(Response::R3(ocr.raw()))
    }

    fn start_register(&mut self, len: usize) {
        self.data = DataPhase::Register(Readout::new(len));
        self.state = CardState::Data;
    }

    fn block_transfer(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        let state = self.state;
        let start = cmd.argument;
        if start >= self.blocks() {
            return Ok(self.r1(state, status::OUT_OF_RANGE));
        }
        if self.block_len != BLOCK_SIZE as u32 {
            return Ok(self.r1(state, status::ADDRESS_ERROR));
        }
        let multi = matches!(cmd.index, 18 | 25);
        let count = if multi {
            self.block_count.take()
        } else {
            Some(1)
        };
        let blocks = BlockData::new(start, count);
        if matches!(cmd.index, 17 | 18) {
            self.data = DataPhase::Read(blocks);
            self.state = CardState::Data;
        } else {
            self.data = DataPhase::Write(blocks);
            self.state = CardState::Rcv;
            self.written_blocks = 0;
        }
        Ok(self.r1(state, 0))
    }

    /// CMD6: fills the 64-byte switch status and, in switch mode, selects the functions.
    fn switch_function(&mut self, arg: u32) {
        let arg = SWITCH_FUNC_ARG::from_raw(arg);
        let switch = arg.mode();
        let uhs = self.signal_1v8;
        let group1_support: u8 = if uhs { 0x1F } else { 0x03 };
        let requests = [
            arg.group1(),
            arg.group2(),
            arg.group3(),
            arg.group4(),
            arg.group5(),
            arg.group6(),
        ];
        let mut results = [0u8; 6];
        let mut error = false;
        for (group, (result, &requested)) in results.iter_mut().zip(&requests).enumerate() {
            // Fields of 4 bits.
            let requested = requested as u8;
            let current = if group == 0 { self.access_mode } else { 0 };
            let support = if group == 0 { group1_support } else { 0x01 };
            *result = if requested == 0xF {
                current
            } else if requested < 8 && support & (1 << requested) != 0 {
                requested
            } else {
                error = true;
                0xF
            };
        }
        if switch && !error {
            self.access_mode = results[0];
        }
        let mut reg = [0u8; SWITCH_STATUS_LEN];
        // Maximum current: 200 mA.
        reg[1] = 200;
        // Support bits, groups 6..1 at bytes 2..13 (bit 15 of each field is set).
        for group in 0..6usize {
            let at = 2 + 2 * (5 - group);
            if let Some(field) = reg.get_mut(at..at + 2) {
                field[0] = 0x80;
                field[1] = if group == 0 { group1_support } else { 0x01 };
            }
        }
        // Function selection: byte 14 = g6|g5, 15 = g4|g3, 16 = g2|g1.
        reg[14] = (results[5] << 4) | results[4];
        reg[15] = (results[3] << 4) | results[2];
        reg[16] = (results[1] << 4) | results[0];
        // Data structure version 1: busy status (bytes 18..29) present, all zero.
        reg[17] = 1;
        self.register = reg;
    }

    /// The CID (§5.2): manufacturer 0x7E (not assigned to a vendor Linux has quirks for),
    /// OEM "SM", product "SIM01", revision 1.0, manufactured 01/2026.
    pub fn cid() -> [u32; 4] {
        let psn: u32 = 0x1234_5678;
        [
            (0x7E << 24) | (u32::from(b'S') << 16) | (u32::from(b'M') << 8) | u32::from(b'S'),
            u32::from_be_bytes(*b"IM01"),
            (0x10 << 24) | (psn >> 8),
            ((psn & 0xFF) << 24) | (0x1A1 << 8) | 1,
        ]
    }

    /// CSD version 2.0 (§5.3.3), most significant word first: TAAC 1 ms, TRAN_SPEED 25 MHz
    /// (50 MHz once high speed is selected), command classes 0, 2, 4, 5, 7, 8, 10, 512-byte
    /// blocks, ERASE_BLK_EN, R2W_FACTOR 4, C_SIZE from the storage in 512 KiB units.
    pub fn csd(&self) -> [u32; 4] {
        // C_SIZE counts 512 KiB units, minus one.
        let c_size = (self.blocks() / 1024).saturating_sub(1) & 0x3F_FFFF;
        let tran_speed = if self.access_mode == 0 { 0x32 } else { 0x5A };
        [
            (1 << 30) | (0x0E << 16) | tran_speed,
            (0x5B5 << 20) | (9 << 16) | (c_size >> 16),
            ((c_size & 0xFFFF) << 16) | (1 << 14) | (0x7F << 7),
            (2 << 26) | (9 << 22) | 1,
        ]
    }

    /// The 512-bit SD status (§4.10.2), most significant byte first.
    fn sd_status(&self) -> [u8; SWITCH_STATUS_LEN] {
        let mut reg = [0u8; SWITCH_STATUS_LEN];
        // DAT_BUS_WIDTH (511:510): 10b 4-bit, 00b 1-bit; SECURED_MODE 0; SD_CARD_TYPE 0
        // (regular read/write card).
        reg[0] = if self.bus_width == 4 { 0x80 } else { 0 };
        // SPEED_CLASS (447:440): 4 = class 10.
        reg[8] = 4;
        // AU_SIZE (431:428): 9 = 4 MiB.
        reg[10] = 0x90;
        // ERASE_SIZE (423:408) = 1 AU, ERASE_TIMEOUT (407:402) = 1 s, ERASE_OFFSET
        // (401:400) = 1 s: erasing n AUs takes at most n + 1 seconds.
        reg[12] = 1;
        reg[13] = (1 << 2) | 1;
        // UHS_SPEED_GRADE (399:396) 1 and UHS_AU_SIZE (395:392) 4 MiB on a UHS-I card.
        if self.config.uhs {
            reg[14] = 0x19;
        }
        // APP_PERF_CLASS (339:336): 1 = A1. DISCARD_SUPPORT (313) and FULE_SUPPORT (312)
        // stay 0.
        reg[21] = 1;
        reg
    }

    /// CMD32/CMD33: the first and last write block of an erase.
    fn erase_bound(&mut self, cmd: Command) -> Response {
        let state = self.state;
        let blocks = self.blocks();
        match self.core.erase.set(cmd.index, cmd.argument, blocks) {
            Ok(()) => self.r1(state, 0),
            Err(EraseBoundError::OutOfRange) => self.r1(state, status::OUT_OF_RANGE),
            Err(EraseBoundError::Sequence) => self.r1(state, status::ERASE_SEQ_ERROR),
        }
    }

    /// CMD38: erases the blocks CMD32/CMD33 selected (function 0 only).
    fn erase(&mut self, function: u32) -> Response {
        let state = self.state;
        let Some((start, end)) = self.core.erase.take() else {
            return Response::R1b(self.status_taken(state) | status::ERASE_SEQ_ERROR);
        };
        if function != 0 || end < start {
            return Response::R1b(self.status_taken(state) | status::ERASE_PARAM);
        }
        let s = self.status_taken(state);
        self.core.work = erase_blocks(self.storage, start, end);
        Response::R1b(s)
    }

    fn end_data(&mut self) {
        self.data = DataPhase::None;
        self.state = CardState::Tran;
    }

    /// Data phase, card to host: fills `buf` with the next bytes of the transfer. A
    /// multiple block read that runs past the last block stops there (OUT_OF_RANGE next).
    pub fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        let done = match &mut self.data {
            DataPhase::Read(blocks) => blocks
                .read(self.storage, buf)
                .map_err(|e| e.report(&mut self.core.pending, status::OUT_OF_RANGE))?,
            DataPhase::Register(readout) => readout.read(&self.register, buf)?,
            DataPhase::Tuning(readout) => readout.read(&TUNING_BLOCK_4BIT, buf)?,
            _ => return Err(DataError::NoTransfer),
        };
        if done {
            self.end_data();
        }
        Ok(())
    }

    /// Data phase, host to card: stores `data` as the next bytes of the transfer.
    pub fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        let DataPhase::Write(blocks) = &mut self.data else {
            return Err(DataError::NoTransfer);
        };
        let start = blocks.offset();
        let done = blocks
            .write(self.storage, data)
            .map_err(|e| e.report(&mut self.core.pending, status::OUT_OF_RANGE))?;
        // A block counts once its last byte has arrived.
        let blocks_done = blocks.offset() / BLOCK_SIZE - start / BLOCK_SIZE;
        self.written_blocks = self
            .written_blocks
            .saturating_add(u32::try_from(blocks_done).unwrap_or(u32::MAX));
        if done {
            self.end_data();
        }
        Ok(())
    }
}
