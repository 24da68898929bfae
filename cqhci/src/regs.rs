// SPDX-License-Identifier: GPL-2.0
//! CQHCI registers: one typed register per register of the JESD84-B51 CQHCI block, with its
//! `HI:LO` fields, and the slot types that several of them share.
//!
//! Offsets are relative to the CQHCI block (on MediaTek MSDC: MSDC base + 0x800), which every
//! register names as its window, [`CqhciBlock`]. Register names are the specification's;
//! field names are its abbreviations where it has one.

use super::desc::TaskDescriptorSize;
use crate::registers::{FieldOverflow, FieldValue, Io, Register, Window};

register! {
    /// CQVER: the version of the CQHCI specification the block implements; 5.10 reads as
    /// major 5, minor 1, suffix 0.
    pub CQVER(u32) @ CqhciBlock + 0x00 {
        /// eMMC version suffix: the second digit after the point.
        3:0 emmc_ver_suffix;
        /// eMMC minor version number: the first digit after the point.
        7:4 emmc_ver_minor;
        /// eMMC major version number.
        11:8 emmc_ver_major;
    }

    /// CQCAP: capabilities.
    pub CQCAP(u32) @ CqhciBlock + 0x04 {
        /// Internal timer clock frequency value (ITCFVAL), in units of ITCFMUL; the timer
        /// clocks CQSSC1's idle timer and CQIC's timeout.
        9:0 itcfval;
        /// Internal timer clock frequency multiplier (ITCFMUL): 0 = 1 kHz, 1 = 10 kHz,
        /// 2 = 100 kHz, 3 = 1 MHz, 4 = 10 MHz.
        15:12 itcfmul;
        /// Crypto support (CS): the block can encrypt inline.
        28:28 cs => bool;
    }

    /// CQCFG: configuration. Only CQ_EN may change while CQ_EN is set.
    pub CQCFG(u32) @ CqhciBlock + 0x08 {
        /// Command queuing enable (CQ_EN): the block owns the bus.
        0:0 cq_en => bool;
        /// Crypto general enable (CR_GENERAL_EN). Never set: inline crypto is out of scope.
        1:1 cr_general_en => bool;
        /// Task descriptor size (TASK_DESC_SZ): 0 = 64 bits, 1 = 128 bits.
        8:8 task_desc_sz => TaskDescriptorSize;
        /// Direct command enable (DCMD_EN): slot 31 carries direct commands.
        12:12 dcmd_en => bool;
    }

    /// CQCTL: control.
    pub CQCTL(u32) @ CqhciBlock + 0x0C {
        /// Halt: write 1 to request a halt, which reads back 1 once the block has halted;
        /// write 0 to resume.
        0:0 halt => bool;
        /// Clear all tasks (CLR_ALL_TASKS): write 1 while halted; clears itself when done.
        8:8 clr_all_tasks => bool;
    }

    /// CQIS: interrupt status; writing 1 clears a bit. Its layout, which CQISTE and CQISGE
    /// share, is the [`Interrupts`] set.
    pub CQIS(u32) @ CqhciBlock + 0x10 {
        /// Halt complete (HAC).
        0:0 hac => bool;
        /// Task complete (TCC): CQTCN has new bits.
        1:1 tcc => bool;
        /// Response error detected (RED): CQTERRI names the command.
        2:2 red => bool;
        /// Task cleared (TCL): CLR_ALL_TASKS or CQTCLR finished.
        3:3 tcl => bool;
        /// General crypto error (GCE).
        4:4 gce => bool;
        /// Invalid crypto configuration error (ICCE): a task descriptor was refused, CQTDPE
        /// names it.
        5:5 icce => bool;
    }

    /// CQISTE: interrupt status enable; a disabled interrupt is not recorded in CQIS.
    pub CQISTE(u32) @ CqhciBlock + 0x14 {
        /// The interrupts CQIS records.
        5:0 enabled => Interrupts;
    }

    /// CQISGE: interrupt signal enable; a recorded interrupt raises the line only if enabled
    /// here.
    pub CQISGE(u32) @ CqhciBlock + 0x18 {
        /// The interrupts that raise the line.
        5:0 signalled => Interrupts;
    }

    /// CQIC: interrupt coalescing. Only completions of tasks whose descriptor has INT = 0 are
    /// counted and timed.
    pub CQIC(u32) @ CqhciBlock + 0x1C {
        /// Interrupt coalescing timeout value (ICTOVAL), in units of 1024 internal timer
        /// clocks; 0 stops the timer.
        6:0 ictoval;
        /// ICTOVAL write enable (ICTOVALWEN): a write changes ICTOVAL only with this set.
        7:7 ictovalwen => bool;
        /// Interrupt coalescing counter threshold (ICCTH): completions per interrupt; 0 stops
        /// the counter.
        12:8 iccth;
        /// ICCTH write enable (ICCTHWEN): a write changes ICCTH only with this set.
        15:15 iccthwen => bool;
        /// Counter and timer reset (ICCTR), write-only.
        16:16 icctr => bool;
        /// Interrupt coalescing status (ICSB), read-only: a counted completion is pending.
        20:20 icsb => bool;
        /// Interrupt coalescing enable (ICENDIS).
        31:31 icendis => bool;
    }

    /// CQTDLBA: task descriptor list base address, low half.
    pub CQTDLBA(u32) @ CqhciBlock + 0x20 {
        /// Bus address bits 31:0.
        31:0 tdlba;
    }

    /// CQTDLBAU: task descriptor list base address, high half.
    pub CQTDLBAU(u32) @ CqhciBlock + 0x24 {
        /// Bus address bits 63:32.
        31:0 tdlbau;
    }

    /// CQTDBR: task doorbell. Writing a slot's bit issues its task; the bit reads 1 until the
    /// task completes or is cleared.
    pub CQTDBR(u32) @ CqhciBlock + 0x28 {
        /// Doorbell (DBR), one bit per slot.
        31:0 dbr => TaskMask;
    }

    /// CQTCN: task completion notification. Writing a bit back clears it.
    pub CQTCN(u32) @ CqhciBlock + 0x2C {
        /// Completed slots (TCN).
        31:0 tcn => TaskMask;
    }

    /// CQDQS: device queue status, the card's last answer to the queue status poll.
    pub CQDQS(u32) @ CqhciBlock + 0x30 {
        /// Slots the card reported ready to run (DQS).
        31:0 dqs => TaskMask;
    }

    /// CQDPT: device pending tasks.
    pub CQDPT(u32) @ CqhciBlock + 0x34 {
        /// Slots queued in the card (DPT).
        31:0 dpt => TaskMask;
    }

    /// CQTCLR: task clear, acted on only while halted.
    pub CQTCLR(u32) @ CqhciBlock + 0x38 {
        /// Slots to clear (TCLR).
        31:0 tclr => TaskMask;
    }

    /// CQTDPE: task descriptor processing error (with ICCE).
    pub CQTDPE(u32) @ CqhciBlock + 0x3C {
        /// Slots whose task descriptor was refused (TDPE).
        31:0 tdpe => TaskMask;
    }

    /// CQSSC1: send-status configuration 1, how the block polls the queue with CMD13.
    pub CQSSC1(u32) @ CqhciBlock + 0x40 {
        /// Send-status command idle timer (CIT): internal timer clocks between two polls.
        15:0 cit;
        /// Send-status command block counter (CBC): blocks before the end of a transfer at
        /// which the next poll goes out.
        19:16 cbc;
    }

    /// CQSSC2: send-status configuration 2.
    pub CQSSC2(u32) @ CqhciBlock + 0x44 {
        /// The card's relative address, which the block puts in bits 31:16 of CMD13.
        15:0 rca;
    }

    /// CQCRDCT: the response to the last direct command.
    pub CQCRDCT(u32) @ CqhciBlock + 0x48 {
        /// Response bits 39:8 (the card status of an R1 or R1b).
        31:0 response;
    }

    /// CQRMEM: response mode error mask.
    pub CQRMEM(u32) @ CqhciBlock + 0x50 {
        /// The R1 card status bits that stop the block with RED.
        31:0 rmem;
    }

    /// CQTERRI: task error information, which command and which task failed.
    pub CQTERRI(u32) @ CqhciBlock + 0x54 {
        /// Response mode error command index (RMECI).
        5:0 rmeci;
        /// Response mode error task ID (RMETID).
        12:8 rmetid => Tag;
        /// Response mode error fields valid (RMEFV).
        15:15 rmefv => bool;
        /// Data transfer error command index (DTECI): 46 or 47.
        21:16 dteci;
        /// Data transfer error task ID (DTETID).
        28:24 dtetid => Tag;
        /// Data transfer error fields valid (DTEFV).
        31:31 dtefv => bool;
    }

    /// CQCRI: command response index.
    pub CQCRI(u32) @ CqhciBlock + 0x58 {
        /// Index of the last command whose response the block received.
        5:0 index;
    }

    /// CQCRA: command response argument.
    pub CQCRA(u32) @ CqhciBlock + 0x5C {
        /// Bits 39:8 of the last response the block received.
        31:0 argument;
    }
}

impl CQVER {
    /// The version after the point as C prints it ("CQHCI version %u.%02u"): 5.10 gives 10.
    pub const fn printed_minor(self) -> u32 {
        self.emmc_ver_minor() * 10 + self.emmc_ver_suffix()
    }
}

impl CQIC {
    /// The value that enables coalescing and writes both the counter threshold and the
    /// timeout; a value wider than its field is refused.
    pub fn program(threshold: u8, timeout: u8) -> Result<Self, FieldOverflow> {
        Self::zeroed()
            .with_icendis(true)
            .with_iccthwen(true)
            .try_with_iccth(u32::from(threshold))?
            .with_ictovalwen(true)
            .try_with_ictoval(u32::from(timeout))
    }

    /// The value that resets the counter and the timer and keeps coalescing enabled.
    pub const fn reset_counter() -> Self {
        Self::zeroed().with_icendis(true).with_icctr(true)
    }
}

/// A set of CQHCI interrupts, in the layout that CQIS, CQISTE and CQISGE share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interrupts(CQIS);

impl Interrupts {
    /// No interrupt.
    pub const EMPTY: Self = Self(CQIS::zeroed());
    /// Halt complete.
    pub const HAC: Self = Self(CQIS::zeroed().with_hac(true));
    /// Task complete.
    pub const TCC: Self = Self(CQIS::zeroed().with_tcc(true));
    /// Response error detected.
    pub const RED: Self = Self(CQIS::zeroed().with_red(true));
    /// Task cleared.
    pub const TCL: Self = Self(CQIS::zeroed().with_tcl(true));
    /// General crypto error.
    pub const GCE: Self = Self(CQIS::zeroed().with_gce(true));
    /// Invalid crypto configuration error (a task descriptor error; see CQTDPE).
    pub const ICCE: Self = Self(CQIS::zeroed().with_icce(true));
    /// The interrupts enabled during normal operation.
    pub const OPERATIONAL: Self = Self::TCC
        .union(Self::RED)
        .union(Self::GCE)
        .union(Self::ICCE);
    /// The interrupts that report an error.
    pub const ERRORS: Self = Self::RED.union(Self::GCE).union(Self::ICCE);

    /// The interrupts a CQIS value reports.
    pub const fn from_status(status: CQIS) -> Self {
        Self(status)
    }

    /// The set as a CQIS value (e.g. to clear these bits).
    pub const fn status(self) -> CQIS {
        self.0
    }

    /// The set's bits in the shared layout.
    pub const fn bits(self) -> u32 {
        self.0.raw()
    }

    /// Whether every interrupt of `other` is in the set.
    pub const fn contains(self, other: Self) -> bool {
        self.bits() & other.bits() == other.bits()
    }

    /// Whether any interrupt of `other` is in the set.
    pub const fn intersects(self, other: Self) -> bool {
        self.bits() & other.bits() != 0
    }

    /// The interrupts of both sets.
    pub const fn union(self, other: Self) -> Self {
        Self(CQIS::from_raw(self.bits() | other.bits()))
    }
}

impl FieldValue for Interrupts {
    /// CQIS defines bits 5:0.
    const WIDTH: u32 = 6;

    fn into_bits(self) -> u64 {
        u64::from(self.bits())
    }

    fn from_bits(bits: u64) -> Self {
        // `bits` has at most WIDTH bits, so it fits in a register.
        Self(CQIS::from_raw(bits as u32))
    }
}

/// A slot of the task descriptor list: a number below 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tag(u8);

impl Tag {
    /// Number of slots in the task descriptor list.
    pub const COUNT: usize = 32;
    /// The slot that carries direct commands when DCMD is enabled.
    pub const DCMD: Tag = Tag(31);

    /// The tag `n`, if `n` is below 32.
    pub const fn new(n: u32) -> Option<Tag> {
        if n < Self::COUNT as u32 {
            Some(Tag(n as u8))
        } else {
            None
        }
    }

    /// The slot number.
    pub const fn number(self) -> u32 {
        self.0 as u32
    }

    /// The slot number as an index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// This slot alone, as a set.
    pub const fn mask(self) -> TaskMask {
        TaskMask(1 << self.0)
    }
}

impl FieldValue for Tag {
    /// Five bits number the 32 slots.
    const WIDTH: u32 = 5;

    fn into_bits(self) -> u64 {
        u64::from(self.0)
    }

    fn from_bits(bits: u64) -> Self {
        // `bits` has at most five bits: a slot number.
        Tag(bits as u8)
    }
}

/// A set of slots: the layout of CQTDBR, CQTCN, CQDQS, CQDPT, CQTCLR and CQTDPE, where bit
/// `n` stands for slot `n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskMask(u32);

impl TaskMask {
    /// No slot.
    pub const EMPTY: TaskMask = TaskMask(0);
    /// Every slot.
    pub const ALL: TaskMask = TaskMask(u32::MAX);

    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// The raw register value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether `tag` is in the set.
    pub const fn contains(self, tag: Tag) -> bool {
        self.0 & tag.mask().0 != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of slots in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The set with `tag` added.
    pub const fn with(self, tag: Tag) -> Self {
        Self(self.0 | tag.mask().0)
    }

    /// The set with `tag` removed.
    pub const fn without(self, tag: Tag) -> Self {
        Self(self.0 & !tag.mask().0)
    }

    /// The slots in the set, lowest first.
    pub fn iter(self) -> TaskMaskIter {
        TaskMaskIter(self.0)
    }
}

impl FieldValue for TaskMask {
    /// One bit per slot.
    const WIDTH: u32 = 32;

    fn into_bits(self) -> u64 {
        u64::from(self.0)
    }

    fn from_bits(bits: u64) -> Self {
        // `bits` has at most 32 bits.
        Self(bits as u32)
    }
}

/// Iterator over the slots of a [`TaskMask`], lowest first.
#[derive(Clone, Debug)]
pub struct TaskMaskIter(u32);

impl Iterator for TaskMaskIter {
    type Item = Tag;

    fn next(&mut self) -> Option<Tag> {
        if self.0 == 0 {
            return None;
        }
        let n = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Tag::new(n)
    }
}

/// Declares [`RegisterDump`] from one list of its registers.
macro_rules! register_dump {
    ($($field:ident: $reg:ident,)*) => {
        /// Every CQHCI register, read once for a dump (C's `cqhci_dumpregs`).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct RegisterDump {
            $(
                #[doc = concat!("`", stringify!($reg), "`.")]
                pub $field: $reg,
            )*
        }

        impl RegisterDump {
            /// Number of registers in a dump.
            pub const COUNT: usize = [$(stringify!($reg)),*].len();

            /// Reads every register, in offset order.
            pub fn read(regs: &impl Io<CqhciBlock>) -> Self {
                Self {
                    $($field: regs.read::<$reg>(),)*
                }
            }

            /// Each register's name, offset and value, in offset order, for a log.
            pub fn entries(&self) -> [(&'static str, usize, u32); Self::COUNT] {
                [$((<$reg as Register>::NAME, <$reg as Register>::OFFSET, self.$field.raw()),)*]
            }
        }
    };
}

register_dump! {
    cqver: CQVER,
    cqcap: CQCAP,
    cqcfg: CQCFG,
    cqctl: CQCTL,
    cqis: CQIS,
    cqiste: CQISTE,
    cqisge: CQISGE,
    cqic: CQIC,
    cqtdlba: CQTDLBA,
    cqtdlbau: CQTDLBAU,
    cqtdbr: CQTDBR,
    cqtcn: CQTCN,
    cqdqs: CQDQS,
    cqdpt: CQDPT,
    cqtclr: CQTCLR,
    cqtdpe: CQTDPE,
    cqssc1: CQSSC1,
    cqssc2: CQSSC2,
    cqcrdct: CQCRDCT,
    cqrmem: CQRMEM,
    cqterri: CQTERRI,
    cqcri: CQCRI,
    cqcra: CQCRA,
}

/// The CQHCI register block, wherever the host controller places it (MSDC: base + 0x800).
pub struct CqhciBlock;

impl Window for CqhciBlock {
    const NAME: &'static str = "cqhci";
}
