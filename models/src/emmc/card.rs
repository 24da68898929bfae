// SPDX-License-Identifier: GPL-2.0
//! The eMMC card model: card states, identification, EXT_CSD and SWITCH, partitions, erase,
//! single/multi-block transfers and the command queue (CMD44..CMD48), over storage the caller
//! provides.
//!
//! The interface is the bus's: a command and its argument in, a response out, then a data
//! phase the host drives with [`Card::read_data`] or [`Card::write_data`]. Both the CQHCI model
//! and the MSDC model talk to the card this way.
//!
//! Behaviour (JESD84-B51; sections by title where the number is not cited):
//!
//! * States idle → ready → ident → stby → tran → data/rcv (device identification and data
//!   transfer modes, and the state transition table). The programming state is left at
//!   once: a write, an erase or a switch returns to tran immediately, and the busy time is
//!   charged by the latency model instead (see [`CardWork`]), so CMD13 after an R1b command
//!   finds the card in tran.
//! * Power-up (§6.4.3): CMD1 answers busy (OCR bit 31 clear) for
//!   [`CardConfig::busy_polls`] polls after CMD0, then ready with sector access mode
//!   (OCR 0xC0FF_8080); a CMD1 whose voltage window misses 2.7–3.6 V and 1.70–1.95 V puts
//!   the card in the inactive state. A CMD1 with argument 0 starts power-up too (§6.4.3:
//!   the host repeats CMD1 until ready).
//! * Illegal commands (undefined, in a class the CSD does not advertise, or not legal in
//!   the current state) get no response and set ILLEGAL_COMMAND, which the next answered
//!   command reports ("Error conditions: CRC and illegal command"; clear condition B).
//!   Status bits of type X (SWITCH_ERROR after CMD6, ADDRESS_OUT_OF_RANGE of a transfer
//!   that ran off the end) are reported by the next response, usually CMD13, and then
//!   cleared.
//! * CMD6 SWITCH ("Command sets and extended settings", §7.4) in all four access modes,
//!   with the writable fields the model implements validated (BUS_WIDTH and HS_TIMING as
//!   below, PARTITION_CONFIG access to existing
//!   partitions, ERASE_GROUP_DEF, POWER_CLASS, POWER_OFF_NOTIFICATION, CACHE_CTRL,
//!   FLUSH_CACHE, CMDQ_MODE_EN, and the boot/write-protect configuration bytes, which are
//!   stored but have no effect). Anything else, including every read-only property, sets
//!   SWITCH_ERROR.
//! * Partitions ("Access partitions", §7.4 PARTITION_CONFIG): the user area, two boot
//!   partitions backed by caller-provided storage (BOOT_SIZE_MULT from their size), and an
//!   RPMB partition of [`CardConfig::rpmb_size_mult`] × 128 KiB that can be selected but
//!   whose authenticated frames are not modelled: data and erase commands while it is
//!   selected answer ERROR and move no data.
//! * CMD23 (SET_BLOCK_COUNT, "Reliable write"): block count, reliable write (bit 31;
//!   enhanced reliable write, any count) counted in [`CardStats::reliable_writes`]; packed
//!   commands (bit 30) are refused as illegal since MAX_PACKED_WRITES/READS are 0.
//! * Erase ("Erase", "TRIM", "Discard"): CMD35/CMD36/CMD38 with erase (whole erase groups,
//!   from the CSD or, with ERASE_GROUP_DEF, HC_ERASE_GRP_SIZE), trim and discard (single
//!   sectors); erased memory reads 0x00 (ERASED_MEM_CONT = 0), and a discard also zeroes
//!   (the data of discarded sectors is undefined, zero is one allowed outcome). Secure
//!   erase and trim arguments answer ERASE_PARAM (SEC_ER_EN = 0). A command outside the
//!   sequence clears it with ERASE_RESET.
//! * Timings (§7.4 DEVICE_TYPE, HS_TIMING, BUS_WIDTH; "Bus timing specification in HS200
//!   mode", "HS400 timing mode selection"): [`CardConfig::timings`] chooses what DEVICE_TYPE,
//!   STROBE_SUPPORT and DRIVER_STRENGTH advertise ([`TimingSupport`]; the default card has
//!   high speed SDR only). HS_TIMING takes 0 and 2 only over an SDR bus (HS200 over 4 or 8
//!   lines, set before the timing), 1 at any width, 3 (HS400) only from high speed with
//!   8-bit DDR set, and a driver strength DRIVER_STRENGTH offers. BUS_WIDTH takes the DDR
//!   widths (5, 6) only in high speed timing, the enhanced strobe bit (0x86) only with
//!   STROBE_SUPPORT, and no width change in HS400. The maximum clock is 26, 52 and
//!   200 MHz (HS200, HS400). CMD21 SEND_TUNING_BLOCK ("Sampling Tuning Sequence for
//!   HS200") is legal in tran in HS200 only and sends one block of the tuning pattern
//!   ([`cards::TUNING_BLOCK_8BIT`] on 8 lines, [`cards::TUNING_BLOCK_4BIT`] on 4), which
//!   is over by the next command even if the host did not read it all. The
//!   card neither checks the I/O voltage (HS200 and HS400 need 1.8 V or 1.2 V VCCQ) nor
//!   samples anything: a wrong sample delay is the controller model's to punish.
//! * RST_n ("H/W reset operation", §7.4 RST_n_FUNCTION): [`Card::hardware_reset`] resets
//!   the card to pre-idle when RST_n_FUNCTION is 1; RST_n_FUNCTION is one-time
//!   programmable by CMD6 (0 to 1 or 2, once) and [`CardConfig::with_hardware_reset`]
//!   presets it. A hardware reset and a power cycle also clear the R/W/C_P bits of the
//!   write-protection bytes, which CMD0 keeps.
//! * CMD5 sleep/awake from stby ("Sleep (CMD5)"), CMD15 inactive.
//! * The command queue is optional ([`CardConfig::queue_depth`] 0: none): a card without it
//!   reports CMDQ_SUPPORT 0 and CMDQ_DEPTH 0, leaves class 11 out of the CSD's CCC, and
//!   answers a SWITCH that sets CMDQ_MODE_EN with SWITCH_ERROR, so CMD44..CMD48 and CMD13
//!   with SQS stay illegal.
//! * Not modelled: byte access mode (the card reports sector mode whatever its size),
//!   the I/O voltage, the timing of the bus (data moves as bytes whatever the timing, DDR
//!   or strobe), boot operation, bus testing (CMD14/CMD19), write protection (class 6),
//!   lock/unlock (class 7), application commands (class 8), general purpose and enhanced
//!   partitions, HPI, BKOPS, sanitize, RPMB frames, CRC checking of what the host sends.

use super::super::cards::{
    self, erase_blocks, BlockData, CardCore, CardModel, EraseBoundError, EraseRange, Readout,
    TUNING_BLOCK_4BIT, TUNING_BLOCK_8BIT,
};
use super::command::{
    status, CardState, CardWork, Command, NoResponse, Response, SwitchAccess, DEVICE_STATUS, OCR,
    QUEUED_TASK_PARAMS, RCA_ARG, SET_BLOCK_COUNT_ARG, SWITCH_ARG, TASK_ARG,
};
use super::ext_csd::{
    byte, index, ExtCsd, Geometry, TimingSupport, BUS_WIDTH, EXT_CSD_LEN, FEATURE_ENABLE,
    FLUSH_CACHE, HC_ERASE_GROUP_SECTORS, HS_TIMING, PARTITION_CONFIG,
};
use crate::registers::FieldOverflow;

/// Size of a sector.
pub const SECTOR_SIZE: usize = cards::BLOCK_SIZE;

/// Unit of the boot and RPMB partition sizes (BOOT_SIZE_MULT, RPMB_SIZE_MULT).
pub const PARTITION_UNIT: usize = 128 * 1024;

const QUEUE_SLOTS: usize = 32;

/// The OCR of the card while it powers up: 2.7–3.6 V and 1.70–1.95 V, sector access mode
/// (10b); [`OCR::ready`] is set once power-up has finished.
const CARD_OCR: OCR = OCR::zeroed()
    .with_v170_195(true)
    .with_const_v27_36::<0x1FF>()
    .with_const_access_mode::<0b10>();
/// CURRENT_STATE of the sleep state (device status: 10 = slp).
const STATE_SLP: u32 = 10;

/// CSD command classes every card of the model implements: 0 basic, 2 block read, 4 block
/// write, 5 erase (bits of CCC, CSD bits 95:84).
const CSD_CCC: u32 = 0x035;
/// Class 11, the command queue (CMD44..CMD48), which only a card with one implements.
const CCC_COMMAND_QUEUE: u32 = 1 << 11;

/// How the card picks when queued tasks become ready for execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadyOrder {
    /// Every queued task is ready at the next status poll.
    Immediate,
    /// Each task becomes ready after a pseudo-random number (1..=4) of status polls, so
    /// tasks complete out of order; the seed makes runs repeatable.
    Shuffled(u32),
}

/// Device properties a test or the simulation glue may choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardConfig {
    /// Command queue depth (1..=32, CMDQ_DEPTH + 1); 0: the card has no command queue
    /// (CMDQ_SUPPORT 0).
    pub queue_depth: u8,
    /// When queued tasks become ready.
    pub order: ReadyOrder,
    /// CMD1 polls after CMD0 that answer busy before power-up completes.
    pub busy_polls: u8,
    /// RPMB partition size in 128 KiB units (RPMB_SIZE_MULT; 0: none).
    pub rpmb_size_mult: u8,
    /// Cache size in KiB (CACHE_SIZE; 0: no cache).
    pub cache_kib: u32,
    /// The timing interfaces the card offers beyond high speed SDR.
    pub timings: TimingSupport,
    /// RST_n_FUNCTION as the card leaves the factory: 0 RST_n temporarily disabled (the
    /// JEDEC default), 1 permanently enabled, 2 permanently disabled (other values: 0). A
    /// host may still program a 0 once with CMD6.
    pub rst_n_function: u8,
}

impl Default for CardConfig {
    /// 32 tasks ready at once, one busy CMD1 poll, a 4 MiB RPMB partition, a 64 KiB cache,
    /// high speed SDR only, RST_n temporarily disabled.
    fn default() -> Self {
        Self {
            queue_depth: 32,
            order: ReadyOrder::Immediate,
            busy_polls: 1,
            rpmb_size_mult: 32,
            cache_kib: 64,
            timings: TimingSupport::HighSpeed,
            rst_n_function: 0,
        }
    }
}

impl CardConfig {
    /// The default card, offering DDR52 and HS200 too ([`TimingSupport::Hs200`]).
    pub fn hs200() -> Self {
        Self::default().with_timings(TimingSupport::Hs200)
    }

    /// The default card, offering HS400 (and HS200, DDR52) without enhanced strobe.
    pub fn hs400() -> Self {
        Self::default().with_timings(TimingSupport::Hs400)
    }

    /// The default card, offering HS400 with enhanced strobe (and HS200, DDR52).
    pub fn hs400_enhanced_strobe() -> Self {
        Self::default().with_timings(TimingSupport::Hs400EnhancedStrobe)
    }

    /// This configuration with `timings`.
    pub const fn with_timings(self, timings: TimingSupport) -> Self {
        Self { timings, ..self }
    }

    /// This configuration with RST_n_FUNCTION preset to 1, RST_n permanently enabled, so
    /// that [`Card::hardware_reset`] resets the card from the start.
    pub const fn with_hardware_reset(self) -> Self {
        Self {
            rst_n_function: 1,
            ..self
        }
    }
}

/// Parameters of a queued task (from CMD44 and CMD45).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedTask {
    /// Read (CMD46) or write (CMD47) task.
    pub read: bool,
    /// Number of blocks.
    pub blocks: u16,
    /// First block address (set by CMD45).
    pub address: u32,
    /// Reliable write request.
    pub reliable_write: bool,
    /// Tag request.
    pub tag_request: bool,
    /// Context ID.
    pub context: u8,
    /// Forced programming.
    pub forced_programming: bool,
    /// High priority.
    pub priority: bool,
}

impl QueuedTask {
    /// Decodes a CMD44 argument ([`QUEUED_TASK_PARAMS`]): the task ID and the task.
    pub const fn from_cmd44(argument: u32) -> (u8, QueuedTask) {
        let a = QUEUED_TASK_PARAMS::from_raw(argument);
        // The casts keep fields of 5, 16 and 4 bits.
        (
            a.task_id() as u8,
            QueuedTask {
                read: a.data_direction(),
                blocks: a.num_blocks() as u16,
                address: 0,
                reliable_write: a.reliable_write(),
                tag_request: a.tag_request(),
                context: a.context_id() as u8,
                forced_programming: a.forced_programming(),
                priority: a.priority(),
            },
        )
    }

    /// The CMD44 argument for this task in queue slot `task_id`; a task ID or context ID
    /// wider than its field is refused.
    pub fn cmd44_argument(&self, task_id: u8) -> Result<QUEUED_TASK_PARAMS, FieldOverflow> {
        QUEUED_TASK_PARAMS::zeroed()
            .with_reliable_write(self.reliable_write)
            .with_data_direction(self.read)
            .with_tag_request(self.tag_request)
            .with_forced_programming(self.forced_programming)
            .with_priority(self.priority)
            .try_with_context_id(u32::from(self.context))?
            .try_with_task_id(u32::from(task_id))?
            .try_with_num_blocks(u32::from(self.blocks))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    task: QueuedTask,
    /// Status polls left before the task is ready; 0 = ready.
    polls_left: u8,
}

/// What the current data phase moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataPhase {
    None,
    /// The card sends blocks of the selected partition; `task` is the queued task being
    /// executed.
    Read {
        blocks: BlockData,
        task: Option<u8>,
    },
    /// The card receives blocks into the selected partition.
    Write {
        blocks: BlockData,
        task: Option<u8>,
        reliable: bool,
    },
    /// The card sends the Extended CSD.
    ExtCsd(Readout),
    /// The card sends the tuning block (CMD21): the 8-bit pattern if `wide`, else the
    /// 4-bit one.
    Tuning {
        readout: Readout,
        wide: bool,
    },
}

/// A data phase request that the card cannot serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataError {
    /// No data phase is open in that direction.
    NoTransfer,
    /// More bytes than the transfer has left.
    Overrun,
}

/// Counters the tests inspect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CardStats {
    /// Commands received.
    pub commands: u32,
    /// Queued tasks executed to the end.
    pub tasks_completed: u32,
    /// Cache flushes (EXT_CSD FLUSH_CACHE writes).
    pub flushes: u32,
    /// Queue discards (CMD48).
    pub discards: u32,
    /// Reliable writes completed.
    pub reliable_writes: u32,
    /// Erase, trim and discard commands (CMD38) carried out.
    pub erases: u32,
    /// PARTITION_CONFIG writes that changed the partition selected for access.
    pub partition_switches: u32,
    /// Tuning blocks sent (CMD21).
    pub tuning_blocks: u32,
    /// RST_n pulses that reset the card.
    pub hardware_resets: u32,
}

/// An eMMC card.
#[derive(Debug)]
pub struct Card<'a> {
    user: &'a mut [u8],
    boot: [&'a mut [u8]; 2],
    config: CardConfig,
    state: CardState,
    rca: u16,
    ocr_polls: u8,
    core: CardCore,
    ext_csd: ExtCsd,
    block_count: Option<u32>,
    reliable: bool,
    data: DataPhase,
    queue: [Option<Entry>; QUEUE_SLOTS],
    /// The task whose CMD44 arrived and which waits for its CMD45.
    awaiting_address: Option<(u8, QueuedTask)>,
    rng: u32,
    stats: CardStats,
    asleep: bool,
}

impl<'a> Card<'a> {
    /// A card in the idle state whose user area is `storage` (a whole number of sectors),
    /// without boot partitions, with the other properties of [`CardConfig::default`].
    pub fn new(storage: &'a mut [u8], queue_depth: u8, order: ReadyOrder) -> Self {
        Self::with_config(
            storage,
            [&mut [], &mut []],
            CardConfig {
                queue_depth,
                order,
                ..CardConfig::default()
            },
        )
    }

    /// A card in the idle state with user area `storage` and boot partitions `boot`. Both
    /// boot partitions have the size of the smaller slice rounded down to 128 KiB (empty
    /// slices: no boot partitions).
    pub fn with_config(storage: &'a mut [u8], boot: [&'a mut [u8]; 2], config: CardConfig) -> Self {
        let rng = match config.order {
            ReadyOrder::Immediate => 0,
            ReadyOrder::Shuffled(seed) => seed | 1,
        };
        let mut card = Self {
            user: storage,
            boot,
            config,
            state: CardState::Idle,
            rca: 0,
            ocr_polls: 0,
            core: CardCore::new(EraseRange::new(35, 36, 38, status::ERASE_RESET)),
            ext_csd: ExtCsd::new(0, 1),
            block_count: None,
            reliable: false,
            data: DataPhase::None,
            queue: [None; QUEUE_SLOTS],
            awaiting_address: None,
            rng,
            stats: CardStats::default(),
            asleep: false,
        };
        card.ext_csd = ExtCsd::with_geometry(&card.geometry());
        let rst_n = if card.config.rst_n_function <= 2 {
            card.config.rst_n_function
        } else {
            0
        };
        card.ext_csd.set(index::RST_N_FUNCTION, rst_n);
        card
    }

    fn geometry(&self) -> Geometry {
        let boot_len = self.boot.iter().map(|b| b.len()).min().unwrap_or(0);
        Geometry {
            sectors: self.sectors(),
            boot_size_mult: u8::try_from(boot_len / PARTITION_UNIT).unwrap_or(u8::MAX),
            rpmb_size_mult: self.config.rpmb_size_mult,
            cache_kib: self.config.cache_kib,
            queue_depth: self.config.queue_depth,
            timings: self.config.timings,
        }
    }

    /// The user area.
    pub fn storage(&self) -> &[u8] {
        self.user
    }

    /// The user area, for a test to prepare.
    pub fn storage_mut(&mut self) -> &mut [u8] {
        self.user
    }

    /// Boot partition `n` (0 or 1) as the card uses it (empty without boot partitions).
    pub fn boot_storage(&self, n: usize) -> &[u8] {
        let len = self.boot_len();
        self.boot.get(n).and_then(|b| b.get(..len)).unwrap_or(&[])
    }

    /// Number of sectors of the user area.
    pub fn sectors(&self) -> u32 {
        u32::try_from(self.user.len() / SECTOR_SIZE).unwrap_or(u32::MAX)
    }

    /// The Extended CSD.
    pub fn ext_csd(&self) -> &ExtCsd {
        &self.ext_csd
    }

    /// The current state.
    pub fn state(&self) -> CardState {
        self.state
    }

    /// The relative card address (0 before CMD3).
    pub fn rca(&self) -> u16 {
        self.rca
    }

    /// Counters.
    pub fn stats(&self) -> CardStats {
        self.stats
    }

    /// Whether CMD5 put the card to sleep.
    pub fn asleep(&self) -> bool {
        self.asleep
    }

    /// Whether the card is in the inactive state (CMD15 or an unsupported voltage); only
    /// [`Card::power_cycle`] brings it back.
    pub fn inactive(&self) -> bool {
        self.core.inactive
    }

    /// The data bus width the card uses (EXT_CSD BUS_WIDTH: 1, 4 or 8).
    pub fn bus_width(&self) -> u8 {
        self.ext_csd.bus_width()
    }

    /// The fastest bus clock the card accepts now: 400 kHz in identification mode (idle,
    /// ready, ident; the open-drain clock f_OD), 26 MHz with backward-compatible timing,
    /// 52 MHz in high-speed mode (HS_TIMING = 1, SDR or DDR52) and 200 MHz in HS200 and
    /// HS400 (HS_TIMING = 2, 3).
    pub fn max_clock_hz(&self) -> u32 {
        if self.state.identifying() {
            return 400_000;
        }
        match self.ext_csd.timing() {
            0 => 26_000_000,
            1 => 52_000_000,
            _ => 200_000_000,
        }
    }

    /// The levels the card drives on DAT3..DAT0 outside a data phase: all high. The busy
    /// signal of an R1b command is charged by the latency model instead (see [`CardWork`]).
    pub fn data_lines(&self) -> u8 {
        0xF
    }

    /// The level on CMD outside a command: high (eMMC has no voltage switch sequence).
    pub fn cmd_line(&self) -> bool {
        true
    }

    /// The host started or stopped the clock: nothing for an eMMC device, whose state does
    /// not depend on the clock between commands.
    pub fn clock_running(&mut self, _running: bool) {}

    /// The host pulsed RST_n ("H/W reset operation"). With RST_n_FUNCTION = 1 (permanently
    /// enabled) the device goes to pre-idle, as after power-up: storage and the
    /// non-volatile and one-time-programmable EXT_CSD bytes are kept, the bits cleared by
    /// power failure and hardware reset (R/W/C_P: the power-on write protection of
    /// USER_WP, BOOT_WP and BOOT_CONFIG_PROT) are cleared, and every volatile setting
    /// (bus width, timing, partition access, command queue, cache) returns to its default.
    /// A sleeping device wakes. With RST_n_FUNCTION 0 (temporarily disabled, the
    /// default) or 2 (permanently disabled) the pulse is ignored. A device in the inactive
    /// state stays there: only a power cycle leaves it.
    pub fn hardware_reset(&mut self) {
        if self.ext_csd.rst_n_enabled() && !self.core.inactive {
            self.stats.hardware_resets = self.stats.hardware_resets.wrapping_add(1);
            self.power_on_reset();
        }
    }

    /// The busy work the last command started (see [`CardWork`]); reading it clears it.
    pub fn take_work(&mut self) -> CardWork {
        core::mem::take(&mut self.core.work)
    }

    /// Task IDs currently in the queue.
    pub fn queued_tasks(&self) -> u32 {
        let mut mask = 0u32;
        for (i, e) in self.queue.iter().enumerate() {
            if e.is_some() {
                mask |= 1u32 << (i & 31);
            }
        }
        mask
    }

    /// The parameters of queued task `task_id`.
    pub fn queued_task(&self, task_id: u8) -> Option<QueuedTask> {
        self.queue
            .get(usize::from(task_id))
            .copied()
            .flatten()
            .map(|e| e.task)
    }

    /// Bytes left in the current data phase.
    pub fn data_remaining(&self) -> usize {
        match self.data {
            DataPhase::None => 0,
            // An open-ended transfer has no count.
            DataPhase::Read { blocks, .. } | DataPhase::Write { blocks, .. } => {
                blocks.remaining().unwrap_or(0)
            }
            DataPhase::ExtCsd(readout) | DataPhase::Tuning { readout, .. } => readout.remaining(),
        }
    }

    /// The CSD's command classes (CCC): class 11 only with a command queue.
    fn command_classes(&self) -> u32 {
        if self.ext_csd.cmdq_supported() {
            CSD_CCC | CCC_COMMAND_QUEUE
        } else {
            CSD_CCC
        }
    }

    /// The CSD (§7.3), most significant word first: CSD_STRUCTURE 3 (version in EXT_CSD),
    /// SPEC_VERS 4, TAAC 35 ms, TRAN_SPEED 26 MHz, the command classes the card implements,
    /// 512-byte blocks, erase groups of 32 × 32 blocks (512 KiB, as HC_ERASE_GRP_SIZE),
    /// R2W_FACTOR 16. C_SIZE describes the user area up to 1 GiB and is 0xFFF above (the
    /// capacity is then in SEC_COUNT).
    pub fn csd(&self) -> [u32; 4] {
        // Capacity = (C_SIZE + 1) × 2^(C_SIZE_MULT + 2) × 2^READ_BL_LEN
        //          = (C_SIZE + 1) × 256 KiB.
        let units = self.sectors() / 512;
        let c_size = if units > 4096 {
            0xFFF
        } else {
            units.saturating_sub(1)
        };
        [
            0xD04F_0132,
            (self.command_classes() << 20) | (9 << 16) | (c_size >> 2),
            ((c_size & 3) << 30) | 0x3FFF_FFFF,
            0x1240_4001,
        ]
    }

    /// The CID (§7.2): manufacturer 0x7E (not assigned to a vendor Linux has quirks for),
    /// BGA device, product "SIMMC1", revision 1.0, serial 1, manufactured 01/2025.
    pub fn cid() -> [u32; 4] {
        [
            (0x7E << 24) | (0x01 << 16) | (u32::from(b'S')),
            u32::from_be_bytes(*b"IMMC"),
            (u32::from(b'1') << 24) | (0x10 << 16),
            (1 << 16) | (0x1C << 8) | 1,
        ]
    }

    fn next_random(&mut self) -> u32 {
        // xorshift32: deterministic and cheap; quality does not matter here.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x
    }

    fn boot_len(&self) -> usize {
        usize::from(self.ext_csd.get(index::BOOT_SIZE_MULT)) * PARTITION_UNIT
    }

    fn rpmb_selected(&self) -> bool {
        self.ext_csd.partition_access() == 3
    }

    /// The partition PARTITION_CONFIG selects (empty for RPMB).
    fn area(&self) -> &[u8] {
        let boot = self.boot_len();
        match self.ext_csd.partition_access() {
            0 => &*self.user,
            n @ (1 | 2) => self
                .boot
                .get(usize::from(n - 1))
                .and_then(|b| b.get(..boot))
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    fn area_mut(&mut self) -> &mut [u8] {
        let boot = self.boot_len();
        match self.ext_csd.partition_access() {
            0 => &mut *self.user,
            n @ (1 | 2) => match self.boot.get_mut(usize::from(n - 1)) {
                Some(b) => b.get_mut(..boot).unwrap_or(&mut []),
                None => &mut [],
            },
            _ => &mut [],
        }
    }

    fn area_sectors(&self) -> u32 {
        u32::try_from(self.area().len() / SECTOR_SIZE).unwrap_or(u32::MAX)
    }

    fn status(&mut self, now: u32) -> u32 {
        let mut s = DEVICE_STATUS::from_raw(self.core.pending | now).with_current_state(self.state);
        if matches!(
            self.state,
            CardState::Stby | CardState::Tran | CardState::Data | CardState::Rcv
        ) {
            s = s.with_ready_for_data(true);
        }
        self.core.pending = 0;
        s.raw()
    }

    fn r1(&mut self, now: u32) -> Result<Response, NoResponse> {
        Ok(Response::R1(self.status(now)))
    }

    fn r1b(&mut self, now: u32) -> Result<Response, NoResponse> {
        Ok(Response::R1b(self.status(now)))
    }

    /// An illegal command: no response, ILLEGAL_COMMAND for the next one ("Error conditions").
    fn illegal(&mut self) -> Result<Response, NoResponse> {
        self.core.pending |= status::ILLEGAL_COMMAND;
        Err(NoResponse)
    }

    fn addressed(&self, cmd: Command) -> bool {
        RCA_ARG::from_raw(cmd.argument).rca() == u32::from(self.rca)
    }

    fn queue_empty(&self) -> bool {
        self.queue.iter().all(Option::is_none) && self.awaiting_address.is_none()
    }

    /// Whether `blocks` sectors from `address` lie inside the selected partition.
    fn in_area(&self, address: u32, blocks: u32) -> bool {
        let end = || {
            let start = usize::try_from(address).ok()?.checked_mul(SECTOR_SIZE)?;
            let len = usize::try_from(blocks).ok()?.checked_mul(SECTOR_SIZE)?;
            start.checked_add(len)
        };
        end().is_some_and(|end| end <= self.area().len())
    }

    /// Sends a command to the card. GO_IDLE_STATE (0), GO_PRE_IDLE_STATE (0xF0F0_F0F0) and
    /// BOOT_INITIATION (0xFFFF_FFFA) all end in idle here; boot operation is not modelled.
    pub fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        self.stats.commands = self.stats.commands.wrapping_add(1);
        cards::command(self, cmd)
    }
}

/// The eMMC card to the steps every command starts with ([`cards::command`]).
impl CardModel for Card<'_> {
    fn core(&mut self) -> &mut CardCore {
        &mut self.core
    }

    fn handle(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.asleep {
            // In the sleep state only CMD0 and CMD5 (awake) are accepted ("Sleep (CMD5)").
            if cmd.index == 5 && self.addressed(cmd) && !RCA_ARG::from_raw(cmd.argument).sleep() {
                self.asleep = false;
                let s = DEVICE_STATUS::from_raw(self.core.pending)
                    .with_const_current_state_code::<STATE_SLP>();
                self.core.pending = 0;
                return Ok(Response::R1b(s.raw()));
            }
            return Err(NoResponse);
        }
        if matches!(self.data, DataPhase::Tuning { .. }) && cmd.index != 12 {
            // The device sends the tuning block whole on its own; a host that failed its CRC
            // and read no further finds it back in tran at the next command.
            self.finish_data(None);
        }
        match cmd.index {
            1 => self.send_op_cond(cmd),
            2 => {
                if self.state != CardState::Ready {
                    return self.illegal();
                }
                self.state = CardState::Ident;
                self.core.pending = 0;
                Ok(Response::R2(Self::cid()))
            }
            3 => {
                if self.state != CardState::Ident {
                    return self.illegal();
                }
                // A 16-bit field.
                let rca = RCA_ARG::from_raw(cmd.argument).rca() as u16;
                if rca == 0 {
                    return self.illegal();
                }
                let r = self.r1(0);
                self.rca = rca;
                self.state = CardState::Stby;
                r
            }
            5 => {
                if self.state != CardState::Stby || !RCA_ARG::from_raw(cmd.argument).sleep() {
                    return self.illegal();
                }
                if !self.addressed(cmd) {
                    return Err(NoResponse);
                }
                let r = self.r1b(0);
                self.asleep = true;
                r
            }
            6 => self.switch(cmd),
            7 => self.select(cmd),
            8 => {
                if self.state != CardState::Tran {
                    return self.illegal();
                }
                let r = self.r1(0);
                self.state = CardState::Data;
                self.data = DataPhase::ExtCsd(Readout::new(EXT_CSD_LEN));
                r
            }
            9 | 10 => {
                if self.state != CardState::Stby {
                    return self.illegal();
                }
                let (addressed, csd) = (self.addressed(cmd), self.csd());
                self.core
                    .send_csd_or_cid(cmd.index, addressed, csd, Self::cid())
            }
            12 => self.stop(),
            13 => {
                if self.state.identifying() {
                    return self.illegal();
                }
                if !self.addressed(cmd) {
                    return Err(NoResponse);
                }
                if RCA_ARG::from_raw(cmd.argument).sqs() {
                    if !self.ext_csd.cmdq_enabled() {
                        return self.illegal();
                    }
                    return Ok(Response::QueueStatus(self.poll_queue()));
                }
                self.r1(0)
            }
            15 => {
                if self.state.identifying() {
                    return self.illegal();
                }
                if self.addressed(cmd) {
                    self.core.inactive = true;
                }
                Err(NoResponse)
            }
            16 => {
                if self.state != CardState::Tran {
                    return self.illegal();
                }
                // Sector mode: the block length is fixed at 512 bytes.
                if cmd.argument as usize != SECTOR_SIZE {
                    return self.r1(status::BLOCK_LEN_ERROR);
                }
                self.r1(0)
            }
            17 | 18 | 24 | 25 => self.legacy_transfer(cmd),
            21 => self.send_tuning_block(),
            23 => {
                if self.state != CardState::Tran || !self.queue_empty() {
                    return self.illegal();
                }
                let arg = SET_BLOCK_COUNT_ARG::from_raw(cmd.argument);
                if arg.packed() {
                    // Packed commands: MAX_PACKED_WRITES/READS are 0.
                    return self.illegal();
                }
                let count = arg.blocks();
                self.block_count = if count == 0 { None } else { Some(count) };
                self.reliable = arg.reliable_write();
                self.r1(0)
            }
            35 | 36 => self.erase_bound(cmd),
            38 => self.erase(cmd),
            44 => self.queue_params(cmd),
            45 => self.queue_address(cmd),
            46 | 47 => self.execute(cmd),
            48 => self.task_management(cmd),
            _ => self.illegal(),
        }
    }

    /// CMD0: back to idle with the power-up register values; storage and the non-volatile
    /// EXT_CSD configuration bytes are kept.
    fn reset(&mut self) {
        let kept = [
            index::RST_N_FUNCTION,
            index::USER_WP,
            index::BOOT_WP,
            index::BOOT_BUS_CONDITIONS,
            index::BOOT_CONFIG_PROT,
        ]
        .map(|i| (i, self.ext_csd.get(i)));
        // BOOT_ACK and BOOT_PARTITION_ENABLE are non-volatile; PARTITION_ACCESS is not.
        let boot_config =
            byte(self.ext_csd.partition_config().raw() & PARTITION_CONFIG::NON_VOLATILE.raw());
        self.ext_csd = ExtCsd::with_geometry(&self.geometry());
        for (i, v) in kept {
            self.ext_csd.set(i, v);
        }
        self.ext_csd.set(index::PARTITION_CONFIG, boot_config);
        self.state = CardState::Idle;
        self.rca = 0;
        self.ocr_polls = 0;
        self.core.pending = 0;
        self.block_count = None;
        self.reliable = false;
        self.data = DataPhase::None;
        self.queue = [None; QUEUE_SLOTS];
        self.awaiting_address = None;
        self.core.erase.clear();
        self.asleep = false;
    }
}

impl Card<'_> {
    /// Power off and on: as a hardware reset, and the inactive state is left.
    pub fn power_cycle(&mut self) {
        self.core.inactive = false;
        self.power_on_reset();
    }

    /// The device as after power-up: CMD0's reset, and the R/W/C_P bits (cleared by power
    /// failure and hardware reset, not by CMD0) cleared.
    fn power_on_reset(&mut self) {
        self.reset();
        for (i, power_on_bits) in [
            // US_PWR_WP_EN (bit 0), US_PWR_WP_DIS (bit 3).
            (index::USER_WP, 0x09),
            // B_PWR_WP_EN (0), B_PWR_WP_SEC_SEL (1), B_PWR_WP_DIS (6), B_SEC_WP_SEL (7).
            (index::BOOT_WP, 0xC3),
            // PWR_BOOT_CONFIG_PROT (bit 0).
            (index::BOOT_CONFIG_PROT, 0x01),
        ] {
            let kept = self.ext_csd.get(i) & !power_on_bits;
            self.ext_csd.set(i, kept);
        }
    }

    /// CMD21 SEND_TUNING_BLOCK: legal only in the transfer state with HS200 selected
    /// (HS_TIMING = 2; not in HS400, which is tuned in HS200 before the switch), then R1
    /// and one block of the tuning pattern for the bus width (128 bytes on 8 lines, 64 on
    /// 4; HS200 has no 1-bit bus).
    fn send_tuning_block(&mut self) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.queue_empty() || self.ext_csd.timing() != 2 {
            return self.illegal();
        }
        let r = self.r1(0);
        let wide = self.ext_csd.bus_width() == 8;
        let len = if wide {
            TUNING_BLOCK_8BIT.len()
        } else {
            TUNING_BLOCK_4BIT.len()
        };
        self.state = CardState::Data;
        self.data = DataPhase::Tuning {
            readout: Readout::new(len),
            wide,
        };
        self.stats.tuning_blocks = self.stats.tuning_blocks.wrapping_add(1);
        r
    }

    fn send_op_cond(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Idle {
            return self.illegal();
        }
        let host = OCR::from_raw(cmd.argument);
        let common =
            (host.v170_195() && CARD_OCR.v170_195()) || host.v27_36() & CARD_OCR.v27_36() != 0;
        if host.voltage_window() != 0 && !common {
            // No common voltage: inactive (§6.4.3).
            self.core.inactive = true;
            return Err(NoResponse);
        }
        let mut ocr = CARD_OCR;
        if self.ocr_polls >= self.config.busy_polls {
            ocr = ocr.with_ready(true);
            self.state = CardState::Ready;
            self.core.work = CardWork::PowerUp;
        } else {
            self.ocr_polls = self.ocr_polls.saturating_add(1);
        }
        self.core.pending = 0;
        Ok(Response::R3(ocr.raw()))
    }

    fn select(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if !self.addressed(cmd) || RCA_ARG::from_raw(cmd.argument).rca() == 0 {
            // Another card's (or the null) RCA deselects this one, without a response.
            match self.state {
                CardState::Tran | CardState::Data => {
                    self.state = CardState::Stby;
                    self.data = DataPhase::None;
                }
                s if s.identifying() => return self.illegal(),
                _ => {}
            }
            return Err(NoResponse);
        }
        match self.state {
            // R1 from stand-by to transfer (R1b only from disconnect to programming).
            CardState::Stby => {
                let r = self.r1(0);
                self.state = CardState::Tran;
                r
            }
            _ => self.illegal(),
        }
    }

    /// CMD6 SWITCH. The response reflects the state at reception; a failed switch sets
    /// SWITCH_ERROR for the next response (device status type X).
    fn switch(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran {
            return self.illegal();
        }
        let arg = SWITCH_ARG::from_raw(cmd.argument);
        let access = arg.access();
        // Fields of 8 bits.
        let field = arg.index() as usize;
        let value = byte(arg.value());
        if field == index::FLUSH_CACHE && access == SwitchAccess::WriteByte && !self.queue_empty() {
            // In queue mode a flush is only legal on an empty queue (hosts send it as a
            // barrier direct command for that reason).
            return self.illegal();
        }
        let r = self.r1b(0);
        let ok = match access {
            // Command set change: only the standard set (0) exists.
            SwitchAccess::CommandSet => arg.cmd_set() == 0,
            _ => {
                let old = self.ext_csd.get(field);
                let new = match access {
                    SwitchAccess::SetBits => old | value,
                    SwitchAccess::ClearBits => old & !value,
                    _ => value,
                };
                self.write_field(field, new)
            }
        };
        if !ok {
            self.core.pending |= status::SWITCH_ERROR;
        }
        r
    }

    /// Validates and applies one EXT_CSD write; false for SWITCH_ERROR.
    fn write_field(&mut self, byte: usize, new: u8) -> bool {
        let valid = match byte {
            index::CMDQ_MODE_EN => {
                new <= 1 && self.queue_empty() && (new == 0 || self.ext_csd.cmdq_supported())
            }
            index::FLUSH_CACHE => {
                // Bit 1 (barrier) needs BARRIER_SUPPORT, which is 0; the others are reserved.
                let flush = FLUSH_CACHE::from_raw(u32::from(new));
                if flush != FLUSH_CACHE::zeroed().with_flush(flush.flush()) {
                    return false;
                }
                if flush.flush() {
                    self.stats.flushes = self.stats.flushes.wrapping_add(1);
                    self.core.work = CardWork::Flush;
                }
                // W/E_P: reads back 0.
                return true;
            }
            index::CACHE_CTRL => new <= 1 && (new == 0 || self.ext_csd.cache_kib() > 0),
            index::POWER_OFF_NOTIFICATION => new <= 4,
            // EXCEPTION_EVENTS_CTRL, both bytes.
            index::EXCEPTION_EVENTS_CTRL | 57 => true,
            index::RST_N_FUNCTION => {
                // One-time programmable: 0 → 1 or 2 once.
                let old = self.ext_csd.get(byte);
                new <= 2 && (old == 0 || old == new)
            }
            index::USER_WP
            | index::BOOT_WP
            | index::BOOT_BUS_CONDITIONS
            | index::BOOT_CONFIG_PROT => true,
            index::ERASE_GROUP_DEF => new <= 1,
            index::PARTITION_CONFIG => {
                let config = PARTITION_CONFIG::from_raw(u32::from(new));
                let access_ok = match config.partition_access() {
                    0 => true,
                    1 | 2 => self.boot_len() > 0,
                    3 => self.config.rpmb_size_mult > 0,
                    // General purpose partitions are not configured (PARTITIONING_SUPPORT 0).
                    _ => false,
                };
                let boot_enable_ok = matches!(config.boot_partition_enable(), 0 | 1 | 2 | 7);
                let ok = access_ok && boot_enable_ok && !config.reserved();
                if ok && config.partition_access() != u32::from(self.ext_csd.partition_access()) {
                    self.stats.partition_switches = self.stats.partition_switches.wrapping_add(1);
                }
                ok
            }
            index::BUS_WIDTH => self.bus_width_allowed(new),
            index::HS_TIMING => self.timing_allowed(new),
            index::POWER_CLASS => new <= 0x0F,
            index::CMD_SET => new == 0,
            _ => false,
        };
        if valid {
            self.ext_csd.set(byte, new);
            self.core.work = CardWork::Switch;
        }
        valid
    }

    /// Whether BUS_WIDTH may take `new` now. SDR widths (1, 4, 8 bits) outside HS400, and
    /// not 1-bit in HS200 (which needs a 4- or 8-bit bus); DDR widths (4-bit 5, 8-bit 6)
    /// only on a card with DDR52 and in high speed timing, from where the host goes on to
    /// HS400 or stays in DDR52; the enhanced strobe bit only with 8-bit DDR and
    /// STROBE_SUPPORT. HS400 changes its width only through high speed (JESD84-B51 "HS400
    /// timing mode selection": HS_TIMING 1, then BUS_WIDTH, then HS_TIMING 3).
    fn bus_width_allowed(&self, new: u8) -> bool {
        let value = BUS_WIDTH::from_raw(u32::from(new));
        let support = self.config.timings;
        let timing = self.ext_csd.timing();
        // Bits 6:4 are reserved.
        let defined = BUS_WIDTH::zeroed()
            .with_enhanced_strobe(true)
            .with_const_width::<0xF>();
        if value.raw() & !defined.raw() != 0 {
            return false;
        }
        if value.enhanced_strobe() && !(support.enhanced_strobe() && value.width() == 6) {
            return false;
        }
        match value.width() {
            0 => timing <= 1,
            1 | 2 => timing <= 2,
            5 | 6 => support.ddr52() && timing == 1,
            _ => false,
        }
    }

    /// Whether HS_TIMING may take `new` now: a driver strength DRIVER_STRENGTH offers and
    /// a timing interface the card supports whose bus conditions hold. Backward compatible
    /// and HS200 need an SDR bus (HS200 one of 4 or 8 bits, JESD84-B51 "HS200 timing mode
    /// selection": the width is set first); high speed goes with any width (it is the
    /// step between HS200 and HS400 both ways); HS400 needs 8-bit DDR set from high speed
    /// ("HS400 timing mode selection").
    fn timing_allowed(&self, new: u8) -> bool {
        let value = HS_TIMING::from_raw(u32::from(new));
        let support = self.config.timings;
        let strengths = u32::from(support.driver_strengths());
        // DRIVER_STRENGTH bit n offers type n (a 4-bit field: the shift stays in range).
        let strength_ok = strengths & (1 << value.driver_strength()) != 0;
        let width = BUS_WIDTH::from_raw(self.ext_csd.word(index::BUS_WIDTH)).width();
        let ddr = self.ext_csd.ddr();
        strength_ok
            && match value.timing_interface() {
                0 => !ddr,
                1 => true,
                2 => support.hs200() && matches!(width, 1 | 2),
                3 => support.hs400() && width == 6 && self.ext_csd.timing() == 1,
                _ => false,
            }
    }

    fn stop(&mut self) -> Result<Response, NoResponse> {
        match self.data {
            DataPhase::None => self.illegal(),
            DataPhase::Read { task, .. } | DataPhase::Write { task, .. } => {
                // An aborted queued task leaves the queue.
                if let Some(id) = task {
                    if let Some(e) = self.queue.get_mut(usize::from(id)) {
                        *e = None;
                    }
                }
                let write = matches!(self.data, DataPhase::Write { .. });
                self.data = DataPhase::None;
                self.block_count = None;
                // R1 to stop a read, R1b to stop a write (busy while programming).
                let r = if write { self.r1b(0) } else { self.r1(0) };
                self.state = CardState::Tran;
                r
            }
            DataPhase::ExtCsd(_) | DataPhase::Tuning { .. } => {
                self.data = DataPhase::None;
                let r = self.r1(0);
                self.state = CardState::Tran;
                r
            }
        }
    }

    /// Checks shared by CMD17/18/24/25: the card must be in tran with an empty queue, and
    /// the partition must hold data. `Err` carries the response to give.
    fn transfer_start(&mut self, cmd: Command) -> Result<u32, Result<Response, NoResponse>> {
        if self.state != CardState::Tran || !self.queue_empty() {
            return Err(self.illegal());
        }
        if self.rpmb_selected() {
            // RPMB frames are not modelled.
            self.block_count = None;
            return Err(self.r1(status::ERROR));
        }
        let multi = matches!(cmd.index, 18 | 25);
        let preset = self.block_count.take();
        if cmd.argument >= self.area_sectors() {
            return Err(self.r1(status::ADDRESS_OUT_OF_RANGE));
        }
        Ok(if multi { preset.unwrap_or(0) } else { 1 })
    }

    /// CMD17/18 (read) and CMD24/25 (write): one block, the count CMD23 set, or open-ended.
    fn legacy_transfer(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        let write = matches!(cmd.index, 24 | 25);
        // A reliable-write request has no meaning for a read.
        let reliable = core::mem::take(&mut self.reliable) && cmd.index == 25;
        let count = match self.transfer_start(cmd) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let r = self.r1(0);
        let blocks = BlockData::new(cmd.argument, (count != 0).then_some(count));
        if write {
            self.state = CardState::Rcv;
            self.data = DataPhase::Write {
                blocks,
                task: None,
                reliable: reliable && count != 0,
            };
        } else {
            self.state = CardState::Data;
            self.data = DataPhase::Read { blocks, task: None };
        }
        r
    }

    /// CMD35/CMD36: the first and last write block (sector address) of an erase.
    fn erase_bound(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.queue_empty() {
            return self.illegal();
        }
        if self.rpmb_selected() {
            return self.r1(status::ERROR);
        }
        let blocks = self.area_sectors();
        match self.core.erase.set(cmd.index, cmd.argument, blocks) {
            Ok(()) => self.r1(0),
            Err(EraseBoundError::OutOfRange) => self.r1(status::ADDRESS_OUT_OF_RANGE),
            Err(EraseBoundError::Sequence) => self.r1(status::ERASE_SEQ_ERROR),
        }
    }

    /// CMD38: erase (0), trim (1) or discard (3) the range CMD35/CMD36 set.
    fn erase(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.queue_empty() {
            return self.illegal();
        }
        let Some((start, end)) = self.core.erase.take() else {
            return self.r1b(status::ERASE_SEQ_ERROR);
        };
        let trim_supported = self.ext_csd.trim_supported();
        let whole_groups = match cmd.argument {
            0 => true,
            1 if trim_supported => false,
            3 => false,
            _ => return self.r1b(status::ERASE_PARAM),
        };
        if end < start {
            return self.r1b(status::ERASE_PARAM);
        }
        let (first, last) = if whole_groups {
            // With ERASE_GROUP_DEF the group is HC_ERASE_GRP_SIZE × 512 KiB, otherwise the
            // CSD's (ERASE_GRP_SIZE + 1) × (ERASE_GRP_MULT + 1) blocks: 1024 sectors both ways.
            let g = if self.ext_csd.hc_erase_groups() {
                u32::from(self.ext_csd.get(index::HC_ERASE_GRP_SIZE)).max(1)
                    * HC_ERASE_GROUP_SECTORS
            } else {
                32 * 32
            };
            (
                start / g * g,
                (end / g)
                    .saturating_add(1)
                    .saturating_mul(g)
                    .saturating_sub(1)
                    .min(self.area_sectors().saturating_sub(1)),
            )
        } else {
            (start, end)
        };
        let r = self.r1b(0);
        self.core.work = erase_blocks(self.area_mut(), first, last);
        self.stats.erases = self.stats.erases.wrapping_add(1);
        r
    }

    fn queue_params(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let (task_id, task) = QueuedTask::from_cmd44(cmd.argument);
        let depth = self.ext_csd.cmdq_depth();
        let occupied = self
            .queue
            .get(usize::from(task_id))
            .is_some_and(Option::is_some);
        if u32::from(task_id) >= depth || occupied || task.blocks == 0 {
            self.awaiting_address = None;
            return self.r1(status::ERROR);
        }
        self.awaiting_address = Some((task_id, task));
        self.r1(0)
    }

    fn queue_address(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let Some((task_id, mut task)) = self.awaiting_address.take() else {
            return self.illegal();
        };
        if !self.in_area(cmd.argument, u32::from(task.blocks)) {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        }
        task.address = cmd.argument;
        let polls_left = match self.config.order {
            ReadyOrder::Immediate => 1,
            ReadyOrder::Shuffled(_) => (self.next_random() % 4) as u8 + 1,
        };
        if let Some(e) = self.queue.get_mut(usize::from(task_id)) {
            *e = Some(Entry { task, polls_left });
        }
        self.r1(0)
    }

    /// One CMD13 queue-status poll: tasks age by one poll; returns the ready mask.
    fn poll_queue(&mut self) -> u32 {
        let mut ready = 0u32;
        for (i, e) in self.queue.iter_mut().enumerate() {
            if let Some(entry) = e {
                entry.polls_left = entry.polls_left.saturating_sub(1);
                if entry.polls_left == 0 {
                    ready |= 1u32 << (i & 31);
                }
            }
        }
        ready
    }

    fn execute(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        // A 5-bit field.
        let task_id = TASK_ARG::from_raw(cmd.argument).task_id() as u8;
        let Some(entry) = self.queue.get(usize::from(task_id)).copied().flatten() else {
            return self.r1(status::ERROR);
        };
        let read = cmd.index == 46;
        if entry.polls_left != 0 || entry.task.read != read {
            return self.r1(status::ERROR);
        }
        let count = u32::from(entry.task.blocks);
        if !self.in_area(entry.task.address, count) {
            return self.r1(status::ADDRESS_OUT_OF_RANGE);
        }
        let r = self.r1(0);
        let blocks = BlockData::new(entry.task.address, Some(count));
        let task = Some(task_id);
        if read {
            self.state = CardState::Data;
            self.data = DataPhase::Read { blocks, task };
        } else {
            self.state = CardState::Rcv;
            self.data = DataPhase::Write {
                blocks,
                task,
                reliable: entry.task.reliable_write,
            };
        }
        r
    }

    fn task_management(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.state != CardState::Tran || !self.ext_csd.cmdq_enabled() {
            return self.illegal();
        }
        let arg = TASK_ARG::from_raw(cmd.argument);
        match arg.tm_op_code() {
            1 => {
                self.queue = [None; QUEUE_SLOTS];
                self.awaiting_address = None;
            }
            2 => {
                let task_id = usize::try_from(arg.task_id()).unwrap_or(0);
                if let Some(e) = self.queue.get_mut(task_id) {
                    *e = None;
                }
            }
            _ => return self.r1b(status::ERROR),
        }
        self.stats.discards = self.stats.discards.wrapping_add(1);
        self.r1b(0)
    }

    fn finish_data(&mut self, task: Option<u8>) {
        if let Some(id) = task {
            if let Some(e) = self.queue.get_mut(usize::from(id)) {
                *e = None;
            }
            self.stats.tasks_completed = self.stats.tasks_completed.wrapping_add(1);
        }
        self.data = DataPhase::None;
        self.state = CardState::Tran;
    }

    /// Data phase, card to host: fills `buf` with the next bytes of the transfer. A
    /// multiple block read that runs past the end of the partition stops there and reports
    /// ADDRESS_OUT_OF_RANGE with the next response.
    pub fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        match self.data {
            DataPhase::Read { mut blocks, task } => {
                let done = blocks
                    .read(self.area(), buf)
                    .map_err(|e| e.report(&mut self.core.pending, status::ADDRESS_OUT_OF_RANGE))?;
                if done {
                    self.finish_data(task);
                } else {
                    self.data = DataPhase::Read { blocks, task };
                }
            }
            DataPhase::ExtCsd(mut readout) => {
                if readout.read(self.ext_csd.bytes(), buf)? {
                    self.finish_data(None);
                } else {
                    self.data = DataPhase::ExtCsd(readout);
                }
            }
            DataPhase::Tuning { mut readout, wide } => {
                let pattern: &[u8] = if wide {
                    &TUNING_BLOCK_8BIT
                } else {
                    &TUNING_BLOCK_4BIT
                };
                if readout.read(pattern, buf)? {
                    self.finish_data(None);
                } else {
                    self.data = DataPhase::Tuning { readout, wide };
                }
            }
            _ => return Err(DataError::NoTransfer),
        }
        Ok(())
    }

    /// Data phase, host to card: stores `data` as the next bytes of the transfer. A write
    /// that runs past the end of the partition stops there (ADDRESS_OUT_OF_RANGE next).
    pub fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        let DataPhase::Write {
            mut blocks,
            task,
            reliable,
        } = self.data
        else {
            return Err(DataError::NoTransfer);
        };
        let done = blocks
            .write(self.area_mut(), data)
            .map_err(|e| e.report(&mut self.core.pending, status::ADDRESS_OUT_OF_RANGE))?;
        if !done {
            self.data = DataPhase::Write {
                blocks,
                task,
                reliable,
            };
            return Ok(());
        }
        if reliable {
            self.stats.reliable_writes = self.stats.reliable_writes.wrapping_add(1);
        }
        self.finish_data(task);
        Ok(())
    }

    /// Runs the identification sequence (CMD0, CMD1, CMD2, CMD3, CMD7) and, if
    /// `command_queue`, enables the queue with CMD6: the card ends in the transfer state
    /// (1-bit bus, backward-compatible timing).
    pub fn initialize(&mut self, rca: u16, command_queue: bool) -> Result<(), NoResponse> {
        self.command(Command::new(0, 0))?;
        let mut ready = false;
        for _ in 0..=u32::from(self.config.busy_polls) {
            if let Response::R3(ocr) = self.command(Command::new(1, CARD_OCR.raw()))? {
                if OCR::from_raw(ocr).ready() {
                    ready = true;
                    break;
                }
            }
        }
        if !ready {
            return Err(NoResponse);
        }
        self.command(Command::new(2, 0))?;
        // An RCA always fits its 16-bit field.
        let arg = RCA_ARG::zeroed()
            .try_with_rca(u32::from(rca))
            .map_err(|_| NoResponse)?
            .raw();
        check(self.command(Command::new(3, arg))?)?;
        check(self.command(Command::new(7, arg))?)?;
        if command_queue {
            let enable_queue = SWITCH_ARG::zeroed()
                .with_access(SwitchAccess::WriteByte)
                .with_const_index::<{ index::CMDQ_MODE_EN as u32 }>()
                .with_const_value::<{ FEATURE_ENABLE::zeroed().with_enable(true).raw() }>();
            check(self.command(Command::new(6, enable_queue.raw()))?)?;
            check(self.command(Command::new(13, arg))?)?;
        }
        Ok(())
    }
}

fn check(response: Response) -> Result<(), NoResponse> {
    if response.value() & DEVICE_STATUS::ERRORS.raw() != 0 {
        Err(NoResponse)
    } else {
        Ok(())
    }
}
