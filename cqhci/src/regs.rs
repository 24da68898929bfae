// SPDX-License-Identifier: GPL-2.0
//! CQHCI register map: every register offset and every bit field the engine uses, defined once.
//!
//! Offsets are relative to the CQHCI block (on MediaTek MSDC: MSDC base + 0x800). Names follow
//! the JESD84-B51 CQHCI chapter (CQVER, CQCAP, CQCFG, ...) without the `CQ` prefix.

/// A CQHCI register, identified by its offset from the start of the CQHCI block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// Version (CQVER).
    Ver,
    /// Capabilities (CQCAP).
    Cap,
    /// Configuration (CQCFG).
    Cfg,
    /// Control (CQCTL).
    Ctl,
    /// Interrupt status, write 1 to clear (CQIS).
    Is,
    /// Interrupt status enable (CQISTE).
    Iste,
    /// Interrupt signal enable (CQISGE).
    Isge,
    /// Interrupt coalescing (CQIC).
    Ic,
    /// Task descriptor list base address, low 32 bits (CQTDLBA).
    Tdlba,
    /// Task descriptor list base address, high 32 bits (CQTDLBAU).
    Tdlbau,
    /// Task doorbell (CQTDBR).
    Tdbr,
    /// Task completion notification, write back to clear (CQTCN).
    Tcn,
    /// Device queue status (CQDQS).
    Dqs,
    /// Device pending tasks (CQDPT).
    Dpt,
    /// Task clear (CQTCLR).
    Tclr,
    /// Task descriptor processing error (CQTDPE).
    Tdpe,
    /// Send status configuration 1 (CQSSC1).
    Ssc1,
    /// Send status configuration 2: the card's RCA (CQSSC2).
    Ssc2,
    /// Command response for a direct command task (CQCRDCT).
    Crdct,
    /// Response mode error mask (CQRMEM).
    Rmem,
    /// Task error information (CQTERRI).
    Terri,
    /// Command response index (CQCRI).
    Cri,
    /// Command response argument (CQCRA).
    Cra,
}

impl Reg {
    /// Every register, in offset order (what a register dump prints).
    pub const ALL: [Reg; 23] = [
        Reg::Ver,
        Reg::Cap,
        Reg::Cfg,
        Reg::Ctl,
        Reg::Is,
        Reg::Iste,
        Reg::Isge,
        Reg::Ic,
        Reg::Tdlba,
        Reg::Tdlbau,
        Reg::Tdbr,
        Reg::Tcn,
        Reg::Dqs,
        Reg::Dpt,
        Reg::Tclr,
        Reg::Tdpe,
        Reg::Ssc1,
        Reg::Ssc2,
        Reg::Crdct,
        Reg::Rmem,
        Reg::Terri,
        Reg::Cri,
        Reg::Cra,
    ];

    /// Byte offset of the register from the start of the CQHCI block.
    pub const fn offset(self) -> usize {
        match self {
            Reg::Ver => 0x00,
            Reg::Cap => 0x04,
            Reg::Cfg => 0x08,
            Reg::Ctl => 0x0C,
            Reg::Is => 0x10,
            Reg::Iste => 0x14,
            Reg::Isge => 0x18,
            Reg::Ic => 0x1C,
            Reg::Tdlba => 0x20,
            Reg::Tdlbau => 0x24,
            Reg::Tdbr => 0x28,
            Reg::Tcn => 0x2C,
            Reg::Dqs => 0x30,
            Reg::Dpt => 0x34,
            Reg::Tclr => 0x38,
            Reg::Tdpe => 0x3C,
            Reg::Ssc1 => 0x40,
            Reg::Ssc2 => 0x44,
            Reg::Crdct => 0x48,
            Reg::Rmem => 0x50,
            Reg::Terri => 0x54,
            Reg::Cri => 0x58,
            Reg::Cra => 0x5C,
        }
    }

    /// The register's name as the specification spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Reg::Ver => "CQVER",
            Reg::Cap => "CQCAP",
            Reg::Cfg => "CQCFG",
            Reg::Ctl => "CQCTL",
            Reg::Is => "CQIS",
            Reg::Iste => "CQISTE",
            Reg::Isge => "CQISGE",
            Reg::Ic => "CQIC",
            Reg::Tdlba => "CQTDLBA",
            Reg::Tdlbau => "CQTDLBAU",
            Reg::Tdbr => "CQTDBR",
            Reg::Tcn => "CQTCN",
            Reg::Dqs => "CQDQS",
            Reg::Dpt => "CQDPT",
            Reg::Tclr => "CQTCLR",
            Reg::Tdpe => "CQTDPE",
            Reg::Ssc1 => "CQSSC1",
            Reg::Ssc2 => "CQSSC2",
            Reg::Crdct => "CQCRDCT",
            Reg::Rmem => "CQRMEM",
            Reg::Terri => "CQTERRI",
            Reg::Cri => "CQCRI",
            Reg::Cra => "CQCRA",
        }
    }
}

/// 32-bit access to the CQHCI register block.
///
/// The kernel glue implements this over its MMIO mapping; tests implement it over the model.
/// A write to [`Reg::Tdbr`] must be ordered after every earlier write to descriptor memory
/// (a non-relaxed `writel`, or a write barrier before a relaxed one), because the controller
/// fetches the descriptors as soon as the doorbell rings.
pub trait CqhciRegisters {
    /// Reads a register.
    fn read(&self, reg: Reg) -> u32;
    /// Writes a register.
    fn write(&mut self, reg: Reg, value: u32);
}

/// Defines a register value type made of single-bit flags.
macro_rules! flag_register {
    (
        $(#[$meta:meta])*
        $name:ident { $($(#[$flag_meta:meta])* $flag:ident = $bit:expr;)* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name(u32);

        impl $name {
            $($(#[$flag_meta])* pub const $flag: Self = Self(1 << $bit);)*

            /// No flag set.
            pub const EMPTY: Self = Self(0);

            /// Wraps a raw register value.
            pub const fn from_bits(bits: u32) -> Self {
                Self(bits)
            }

            /// The raw register value.
            pub const fn bits(self) -> u32 {
                self.0
            }

            /// Whether every flag of `other` is set.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set.
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// The flags of both.
            pub const fn union(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }

            /// These flags less those of `other`.
            pub const fn without(self, other: Self) -> Self {
                Self(self.0 & !other.0)
            }

            /// These flags with those of `other` set or cleared.
            pub const fn with(self, other: Self, set: bool) -> Self {
                if set {
                    self.union(other)
                } else {
                    self.without(other)
                }
            }
        }
    };
}

flag_register! {
    /// CQCFG: configuration. Only ENABLE may change while ENABLE is set.
    Cfg {
        /// CQ Enable.
        ENABLE = 0;
        /// Crypto General Enable. Never set: inline crypto is out of scope.
        CRYPTO_GENERAL_ENABLE = 1;
        /// Task descriptor size: 1 = 128 bits, 0 = 64 bits.
        TASK_DESC_128 = 8;
        /// Direct command (DCMD) enable: slot 31 carries direct commands.
        DCMD = 12;
    }
}

flag_register! {
    /// CQCTL: control.
    Ctl {
        /// Halt request; reads back 1 once the controller has halted.
        HALT = 0;
        /// Clear all tasks; self-clears when done (only acted on while halted).
        CLEAR_ALL_TASKS = 8;
    }
}

flag_register! {
    /// CQIS / CQISTE / CQISGE: interrupt status, status enable and signal enable share one layout.
    Interrupts {
        /// Halt complete.
        HAC = 0;
        /// Task complete.
        TCC = 1;
        /// Response error detected.
        RED = 2;
        /// Task cleared.
        TCL = 3;
        /// General crypto error.
        GCE = 4;
        /// Invalid crypto configuration error (task descriptor error; see CQTDPE).
        ICCE = 5;
    }
}

impl Interrupts {
    /// The interrupts enabled during normal operation.
    pub const OPERATIONAL: Self = Self::TCC
        .union(Self::RED)
        .union(Self::GCE)
        .union(Self::ICCE);
    /// The interrupts that report an error.
    pub const ERRORS: Self = Self::RED.union(Self::GCE).union(Self::ICCE);
}

/// CQVER: version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version(u32);

impl Version {
    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// Major version, bits 11:8.
    pub const fn major(self) -> u32 {
        (self.0 >> 8) & 0xF
    }

    /// Minor version as printed after the point (`minor1 * 10 + minor2`): 5.10 is `(5, 10)`.
    pub const fn minor(self) -> u32 {
        ((self.0 >> 4) & 0xF) * 10 + (self.0 & 0xF)
    }
}

/// CQCAP: capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities(u32);

impl Capabilities {
    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// Internal timer clock frequency value (ITCFVAL), bits 9:0.
    pub const fn timer_clock_value(self) -> u32 {
        self.0 & 0x3FF
    }

    /// Internal timer clock frequency multiplier (ITCFMUL), bits 15:12.
    pub const fn timer_clock_multiplier(self) -> u32 {
        (self.0 >> 12) & 0xF
    }

    /// Crypto support (CS), bit 28.
    pub const fn crypto_support(self) -> bool {
        self.0 & (1 << 28) != 0
    }
}

/// CQIC: interrupt coalescing.
///
/// Only task descriptors with INT = 0 are counted; the counter and timer are reset by writing
/// [`InterruptCoalescing::RESET`] together with [`InterruptCoalescing::ENABLE`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterruptCoalescing(u32);

impl InterruptCoalescing {
    /// Coalescing enable, bit 31.
    pub const ENABLE: u32 = 1 << 31;
    /// Coalescing status (at least one INT = 0 task counted), bit 20, read-only.
    pub const STATUS: u32 = 1 << 20;
    /// Counter and timer reset, bit 16, write-only.
    pub const RESET: u32 = 1 << 16;
    /// Threshold write enable, bit 15.
    pub const THRESHOLD_WRITE: u32 = 1 << 15;
    /// Timeout write enable, bit 7.
    pub const TIMEOUT_WRITE: u32 = 1 << 7;
    /// Largest counter threshold (ICCTH is 5 bits).
    pub const MAX_THRESHOLD: u8 = 31;
    /// Largest timeout value (ICTOVAL is 7 bits, in units of 1024 timer clocks).
    pub const MAX_TIMEOUT: u8 = 127;

    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// The raw register value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The value that enables coalescing and writes both the threshold and the timeout.
    /// Out-of-range values are truncated to their field width; callers validate first.
    pub const fn program(threshold: u8, timeout: u8) -> Self {
        let mut bits = Self::ENABLE;
        bits |= Self::THRESHOLD_WRITE;
        bits |= (threshold as u32 & 0x1F) << 8;
        bits |= Self::TIMEOUT_WRITE;
        bits |= timeout as u32 & 0x7F;
        Self(bits)
    }

    /// The value that resets the counter and timer and keeps coalescing enabled.
    pub const fn reset_counter() -> Self {
        let mut bits = Self::ENABLE;
        bits |= Self::RESET;
        Self(bits)
    }

    /// Whether coalescing is enabled.
    pub const fn enabled(self) -> bool {
        self.0 & Self::ENABLE != 0
    }

    /// Counter threshold (ICCTH), bits 12:8.
    pub const fn threshold(self) -> u8 {
        ((self.0 >> 8) & 0x1F) as u8
    }

    /// Timeout value (ICTOVAL), bits 6:0.
    pub const fn timeout(self) -> u8 {
        (self.0 & 0x7F) as u8
    }
}

/// CQSSC1: send-status configuration 1 (how the controller polls CMD13 queue status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendStatusConfig1(u32);

impl SendStatusConfig1 {
    /// Builds the register from the block counter (CBC, 4 bits) and the idle timer (CIT).
    pub const fn new(block_counter: u8, idle_timer: u16) -> Self {
        let mut bits = (block_counter as u32 & 0xF) << 16;
        bits |= idle_timer as u32;
        Self(bits)
    }

    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// The raw register value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Send-status command block counter (CBC), bits 19:16.
    pub const fn block_counter(self) -> u8 {
        ((self.0 >> 16) & 0xF) as u8
    }

    /// Send-status command idle timer (CIT), bits 15:0.
    pub const fn idle_timer(self) -> u16 {
        (self.0 & 0xFFFF) as u16
    }
}

/// CQSSC2: the relative card address the controller puts into CMD13, bits 15:0.
pub const fn send_status_rca(rca: u16) -> u32 {
    rca as u32
}

/// CQTERRI: which command and which task failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskErrorInfo(u32);

impl TaskErrorInfo {
    /// Wraps a raw register value.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// The raw register value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Response mode error: the command index, bits 5:0.
    pub const fn command_index(self) -> u8 {
        (self.0 & 0x3F) as u8
    }

    /// Response mode error: the task, bits 12:8.
    pub const fn command_task(self) -> Tag {
        Tag(((self.0 >> 8) & 0x1F) as u8)
    }

    /// Response mode error fields valid, bit 15.
    pub const fn command_valid(self) -> bool {
        self.0 & (1 << 15) != 0
    }

    /// Data transfer error: the command index, bits 21:16.
    pub const fn data_index(self) -> u8 {
        ((self.0 >> 16) & 0x3F) as u8
    }

    /// Data transfer error: the task, bits 28:24.
    pub const fn data_task(self) -> Tag {
        Tag(((self.0 >> 24) & 0x1F) as u8)
    }

    /// Data transfer error fields valid, bit 31.
    pub const fn data_valid(self) -> bool {
        self.0 & (1 << 31) != 0
    }
}

/// CQCRI: index of the last command response the controller received, bits 5:0.
pub const fn response_index(cri: u32) -> u8 {
    (cri & 0x3F) as u8
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
        if n < 32 {
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

    /// This slot's bit in CQTDBR, CQTCN, CQDQS, CQDPT, CQTCLR and CQTDPE.
    pub const fn mask(self) -> TaskMask {
        TaskMask(1 << self.0)
    }
}

/// A set of slots: the layout of CQTDBR, CQTCN, CQDQS, CQDPT, CQTCLR and CQTDPE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskMask(u32);

impl TaskMask {
    /// No slot.
    pub const EMPTY: TaskMask = TaskMask(0);

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
        self.0 & (1 << tag.0) != 0
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
        Self(self.0 | (1 << tag.0))
    }

    /// The set with `tag` removed.
    pub const fn without(self, tag: Tag) -> Self {
        Self(self.0 & !(1 << tag.0))
    }

    /// The slots in the set, lowest first.
    pub fn iter(self) -> TaskMaskIter {
        TaskMaskIter(self.0)
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

/// The CQHCI register block, wherever the host controller places it (MSDC: base + 0x800).
pub struct CqhciBlock;

impl crate::registers::Window for CqhciBlock {
    const NAME: &'static str = "cqhci";
}
