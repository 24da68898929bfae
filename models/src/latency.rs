// SPDX-License-Identifier: GPL-2.0
//! How long the work the MSDC model does would take on hardware.
//!
//! [`Latency`] holds the card's timing parameters; the MSDC model
//! (`msdc::MsdcModel::take_elapsed_ns`) adds up, per command and data phase, the bus time at
//! the clock and data width the controller is programmed with plus the card's internal
//! times. Bus time follows the SD/MMC bus protocol:
//!
//! * a command is 48 bits on CMD, followed by N_CR clocks until the response starts, a
//!   48-bit (R1, R1b, R3, R6, R7) or 136-bit (R2) response, and N_RC clocks before the next
//!   command may start (the "Timing values" tables of the bus timing chapters of JESD84-B51
//!   and the SD Physical Layer Simplified Specification: N_CR 2..64, N_RC ≥ 8, N_CC ≥ 8). A
//!   command without a response takes 48 + N_CC clocks; one whose response never comes
//!   takes 48 + 64 + N_RC (the host waits the longest N_CR);
//! * a data block of `len` bytes on `w` lines takes `len × 8 / w` clocks of data, a start
//!   bit, 16 CRC clocks (CRC16 on each line in parallel) and an end bit; a read block is
//!   preceded by the access time (first block) or N_AC ≥ 2 clocks (later blocks); a write
//!   block by N_WR = 2 clocks and followed by the CRC status token (start, 3 status bits,
//!   end) 2 clocks later (N_CRC), then programming busy. Double data rate halves the data
//!   clocks (not the CRC).
//!
//! The card's internal times (access, programming, erase, switch, power-up) cannot come from
//! the specifications, which only give upper bounds (timeouts); the generic defaults
//! ([`Latency::EMMC`], [`Latency::SD`]) are typical figures of current devices, and the card
//! profiles ([`Latency::EMMC_HS400_CQ`], [`Latency::SD_A2_SDR104`]) are fitted to published
//! figures of one device each; every field says where its number comes from.
//!
//! A read is the access time, then its blocks at the pace of the slower of the bus and the
//! card's internal read rate ([`Latency::read_block_ns`]): a long read is limited by
//! whichever is slower, a short one by the access time.
//!
//! A card with a command queue and [`Latency::queue_units`] ≥ 1 works on several queued
//! tasks at once: [`TaskTimer`] keeps, per queued task, when its access (the NAND read on
//! one of the card's parallel units) is done, so that the task becomes ready in the queue
//! status then, while bus transfers stay one at a time. All arithmetic saturates; nothing
//! here allocates or panics.

/// Bits of a command frame on CMD (start, direction, index, argument, CRC7, end).
pub const COMMAND_BITS: u64 = 48;
/// Bits of a short response (R1, R1b, R3, R6, R7).
pub const SHORT_RESPONSE_BITS: u64 = 48;
/// Bits of a long response (R2: CID, CSD).
pub const LONG_RESPONSE_BITS: u64 = 136;
/// The longest N_CR (command end to response start) a host waits before a response timeout.
pub const NCR_MAX_CLOCKS: u64 = 64;
/// Clocks a data block adds to its payload: start bit, CRC16, end bit.
pub const BLOCK_FRAME_CLOCKS: u64 = 1 + 16 + 1;
/// Clocks between read blocks after the first (N_AC minimum).
pub const READ_BLOCK_GAP_CLOCKS: u64 = 2;
/// Clocks a written block adds: N_WR (2) before it, N_CRC (2) and the 5-bit CRC status token
/// after it.
pub const WRITE_BLOCK_EXTRA_CLOCKS: u64 = 2 + 2 + 5;

/// The card's response to a command, as far as its length on the bus goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseLength {
    /// The command has no response (CMD0, CMD4, CMD7 deselect, CMD15).
    None,
    /// A 48-bit response.
    Short,
    /// A 136-bit response.
    Long,
    /// A response was expected but never came.
    Missing,
}

/// Timing parameters of a card on the bus (see the module documentation for the bus
/// protocol arithmetic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Latency {
    /// Whether bus transfer time (command, response and data frames at the programmed bus
    /// clock and width) is charged at all. [`Latency::ZERO`] turns it off.
    pub bus: bool,
    /// N_CR: clocks from the end of a command to the start of its response (spec range
    /// 2..64 in the JESD84-B51 and SD "Timing values" tables).
    pub ncr_clocks: u32,
    /// N_RC/N_CC: clocks from the end of a response (or of a command without one) to the
    /// next command (spec minimum 8).
    pub nrc_clocks: u32,
    /// Access time before the first block of a read command (N_AC), in ns.
    pub read_access_ns: u64,
    /// Programming (busy) time per written block, in ns.
    pub program_block_ns: u64,
    /// Busy time after the last block of a write command, in ns.
    pub program_busy_ns: u64,
    /// Whether the legacy path sees [`Latency::program_busy_ns`] as the card does it:
    /// after the CRC status of the last block, with DAT0 held low, once the MSDC has
    /// raised XFER_COMPL (`models/README.md`, "Write busy after the transfer"). false
    /// (every constant here): the busy is charged to the data phase, before XFER_COMPL,
    /// so the host never finds the card busy. The CQHCI timed queue keeps its own
    /// accounting of the busy on a unit either way.
    pub busy_on_dat0: bool,
    /// Busy time of an erase, trim or discard command (CMD38), in ns, plus
    /// [`Latency::erase_block_ns`] per 512-byte block.
    pub erase_ns: u64,
    /// Erase time per 512-byte block, in ns.
    pub erase_block_ns: u64,
    /// Busy time of an EXT_CSD write (eMMC CMD6 SWITCH), in ns.
    pub switch_ns: u64,
    /// Busy time of an eMMC cache flush, in ns.
    pub flush_ns: u64,
    /// Power-up time from the first CMD1 (eMMC) or ACMD41 (SD) to ready, in ns; charged
    /// when the card reports ready.
    pub power_up_ns: u64,
    /// The card's internal read time per 512-byte block, in ns: a read's blocks follow the
    /// access at the pace of the slower of this and the bus (0: the bus alone).
    pub read_block_ns: u64,
    /// Parallel units (dies, planes, channels) that overlap the access times of queued
    /// read tasks (at most [`MAX_UNITS`]). 0: the untimed queue, where a task is ready
    /// when the card model's [`ReadyOrder`](super::emmc::ReadyOrder) says and its CMD46
    /// charges the whole access time (what the board glue's step-count tests rely on).
    pub queue_units: u8,
    /// Spread of a queued read's access time, in ns: a task's access takes
    /// [`Latency::read_access_ns`] − spread / 2 plus a deterministic amount in
    /// `0..=access_spread_ns` picked from the task's address ([`Latency::task_access_ns`]),
    /// so that tasks on different units finish out of order, repeatably.
    pub access_spread_ns: u64,
}

/// The most parallel units [`TaskTimer`] models.
pub const MAX_UNITS: usize = 16;
/// Task slots of an eMMC command queue (JESD84-B51: up to 32 tasks).
pub const TASK_SLOTS: usize = 32;

impl Latency {
    /// No time at all: every operation is instantaneous.
    pub const ZERO: Latency = Latency {
        bus: false,
        ncr_clocks: 0,
        nrc_clocks: 0,
        read_access_ns: 0,
        program_block_ns: 0,
        program_busy_ns: 0,
        busy_on_dat0: false,
        erase_ns: 0,
        erase_block_ns: 0,
        switch_ns: 0,
        flush_ns: 0,
        power_up_ns: 0,
        read_block_ns: 0,
        queue_units: 0,
        access_spread_ns: 0,
    };

    /// A typical eMMC 5.1 device.
    ///
    /// * N_CR 64 clocks: the specification maximum (JESD84-B51 "Timing values"), so command
    ///   latency is not underestimated; N_RC 8 clocks, the minimum.
    /// * Read access 100 µs: one NAND page read (t_R ≈ 50–90 µs for current MLC/TLC NAND)
    ///   plus controller overhead, in line with the roughly 10 000 random 4 KiB reads per
    ///   second eMMC 5.1 data sheets quote.
    /// * Programming 2 µs per block plus 100 µs after the last: a 4 KiB random write then
    ///   takes about 200 µs with the transfer at 52 MHz × 8 bit (≈ 5 000 IOPS, the range
    ///   eMMC 5.1 data sheets give with the cache on), and long sequential writes stay bus
    ///   bound at high speed (≈ 40 MB/s), as on real parts.
    /// * Erase 1 ms plus 100 ns per block: trim and discard only update the mapping
    ///   (JESD84-B51 bounds them by TRIM_MULT/ERASE_TIMEOUT_MULT × 300 ms per group).
    /// * Switch 500 µs, flush 1 ms: well inside GENERIC_CMD6_TIME (100 ms in the model's
    ///   EXT_CSD), typical of mode changes and of flushing a small cache.
    /// * Power-up 20 ms (JESD84-B51 §6.4.3 allows up to 1 s from the first CMD1).
    pub const EMMC: Latency = Latency {
        bus: true,
        ncr_clocks: 64,
        nrc_clocks: 8,
        read_access_ns: 100_000,
        program_block_ns: 2_000,
        program_busy_ns: 100_000,
        busy_on_dat0: false,
        erase_ns: 1_000_000,
        erase_block_ns: 100,
        switch_ns: 500_000,
        flush_ns: 1_000_000,
        power_up_ns: 20_000_000,
        read_block_ns: 0,
        queue_units: 0,
        access_spread_ns: 0,
    };

    /// A typical SDHC card of speed class 10 and application performance class A1.
    ///
    /// * N_CR 64 clocks (SD "Timing values" maximum), N_RC 8.
    /// * Read access 400 µs: application performance class A1 (SD 5.1) requires 1 500 random
    ///   4 KiB reads per second, 667 µs each, of which the transfer takes about 170 µs at
    ///   50 MHz × 4 bit.
    /// * Programming 20 µs per block plus 1 ms after the last: sequential writes then run
    ///   at about 12 MB/s at high speed (speed class 10 guarantees 10 MB/s), and a 4 KiB
    ///   random write takes about 1.3 ms (A1 requires 500 IOPS, 2 ms).
    /// * Erase 2 ms plus 100 ns per block (the card's SD status allows 1 s per AU).
    /// * Power-up 100 ms (SD §4.2.3 allows up to 1 s of ACMD41 polling).
    pub const SD: Latency = Latency {
        bus: true,
        ncr_clocks: 64,
        nrc_clocks: 8,
        read_access_ns: 400_000,
        program_block_ns: 20_000,
        program_busy_ns: 1_000_000,
        busy_on_dat0: false,
        erase_ns: 2_000_000,
        erase_block_ns: 100,
        switch_ns: 0,
        flush_ns: 0,
        power_up_ns: 100_000_000,
        read_block_ns: 0,
        queue_units: 0,
        access_spread_ns: 0,
    };

    /// Card profile: an eMMC 5.1 at HS400 (200 MHz, 8 bit, DDR: 276 clocks, 1.38 µs, per
    /// 512-byte block read, ≈ 371 MB/s) with command queueing, fitted to Samsung's 64 GB
    /// eMMC 5.1 (Samsung's announcement of its first eMMC 5.1 parts, February 2015):
    /// 250 MB/s sequential read, 125 MB/s sequential write, 11 000 random 4 KiB read IOPS
    /// (with the command queue: QD32) and 13 000 random write IOPS. The fitting (card side;
    /// see `models/README.md`, "Card profiles"):
    ///
    /// * `read_block_ns` 2 048: 512 B at 250 MB/s (the bus alone would take 1 380 ns), so
    ///   a 4 KiB read's data takes 16.4 µs.
    /// * `read_access_ns` 182 µs: Samsung gives no QD1 figure, so QD1 is assumed at 5 000
    ///   IOPS, the middle of what third-party measurements of HS400 eMMC report: 200 µs per
    ///   read = access + 16.4 µs + CMD23 and CMD18 (1.7 µs). An assumption:
    ///   TODO[PERF-MODEL] (`docs/todo.md`).
    /// * `queue_units` 2: at QD32 the units overlap their accesses and the bus (≈ 20 µs a
    ///   task with CMD44, CMD45, CMD13 and CMD46) is not the limit, so IOPS = U / access
    ///   and U = 11 000 × 182 µs = 2.0.
    /// * `access_spread_ns` 24 µs: queued reads take 170..194 µs (assumed), so that tasks
    ///   on different units finish out of order.
    /// * `program_block_ns` 2 681: 512 B at 125 MB/s is 4 096 ns, of which the bus takes
    ///   1 415 (283 clocks).
    /// * `program_busy_ns` 119 µs: the 13 000 random write IOPS, read as the QD32 figure
    ///   like the reads', are the two units' work: 2 / 13 000 = 154 µs a unit per 4 KiB
    ///   write, its transfer (32.8 µs with the blocks' programming, and 1.7 µs of
    ///   commands: a write's data goes to the card only when a unit is free) and then its
    ///   busy. One at a time a write takes 153.5 µs.
    /// * The rest as [`Latency::EMMC`].
    pub const EMMC_HS400_CQ: Latency = Latency {
        read_access_ns: 182_000,
        read_block_ns: 2_048,
        program_block_ns: 2_681,
        program_busy_ns: 119_000,
        queue_units: 2,
        access_spread_ns: 24_000,
        ..Self::EMMC
    };

    /// Card profile: a MicroSD card of application performance class A2 at SDR104
    /// (200 MHz × 4 bit: 1 044 clocks, 5.22 µs, per 512-byte block, ≈ 98 MB/s), fitted to
    /// the SanDisk Extreme A2 that the HSQ patch for mtk-sd measured in an MT8195
    /// Chromebook (Acer Spin 513, fio bs=4k, without HSQ, so one request at a time on the
    /// card): 1 643 random 4 KiB read IOPS and 74.4 MiB/s sequential read. Fitted to the
    /// driver's legacy path in `make perf` (`models/README.md`, "Card profiles"), whose host
    /// side took 59.4 µs per 4 KiB random read at depth 32 (no wake-up: the CPU's idle gap
    /// is shorter than the residency of the state whose exit the board charges,
    /// `models::idle`) and 229.7 µs per 512 KiB read at depth 1 (the board's 95 µs wake-up
    /// included):
    ///
    /// * 74.4 MiB/s (78.0 MB/s) is below the bus's 98 MB/s: the card's internal read rate
    ///   limits a long read: 6.72 ms per 512 KiB = access + 1 024 × `read_block_ns` +
    ///   CMD23 and CMD18 (1.7 µs) + host.
    /// * 1 / 1 643 = 608.6 µs = access + 8 × `read_block_ns` + 1.7 µs + host.
    /// * Both together: `read_block_ns` 5 848 ns, `read_access_ns` 500.7 µs.
    /// * Writes, erase and power-up as [`Latency::SD`] (not measured).
    ///
    /// A fit to one measured host side: TODO[PERF-MODEL] (`docs/todo.md`).
    pub const SD_A2_SDR104: Latency = Latency {
        read_access_ns: 500_700,
        read_block_ns: 5_848,
        ..Self::SD
    };

    /// The same card with no time of its own (no access, programming or busy, a card as
    /// fast as the bus): what remains of a charge is the bus's.
    pub const fn bus_only(&self) -> Latency {
        Latency {
            read_access_ns: 0,
            read_block_ns: 0,
            program_block_ns: 0,
            program_busy_ns: 0,
            access_spread_ns: 0,
            ..*self
        }
    }

    /// Nanoseconds `clocks` bus clocks take at `hz` (rounded up; 0 without a clock).
    pub const fn clocks_ns(clocks: u64, hz: u32) -> u64 {
        if hz == 0 {
            return 0;
        }
        let hz = hz as u64;
        clocks.saturating_mul(1_000_000_000).div_ceil(hz)
    }

    /// Bus clocks of one command exchange with a response of length `response`.
    pub const fn command_clocks(&self, response: ResponseLength) -> u64 {
        let ncr = self.ncr_clocks as u64;
        let nrc = self.nrc_clocks as u64;
        COMMAND_BITS
            + match response {
                ResponseLength::None => nrc,
                ResponseLength::Short => ncr + SHORT_RESPONSE_BITS + nrc,
                ResponseLength::Long => ncr + LONG_RESPONSE_BITS + nrc,
                ResponseLength::Missing => NCR_MAX_CLOCKS + nrc,
            }
    }

    /// Time of one command exchange at bus clock `hz`.
    pub const fn command_ns(&self, response: ResponseLength, hz: u32) -> u64 {
        if !self.bus {
            return 0;
        }
        Self::clocks_ns(self.command_clocks(response), hz)
    }

    /// Bus clocks of `blocks` data blocks of `block_len` bytes on `width` lines (1, 4 or
    /// 8), at double data rate if `ddr`, read or written.
    pub const fn data_clocks(
        block_len: u32,
        blocks: u64,
        width: u8,
        ddr: bool,
        write: bool,
    ) -> u64 {
        let width = if width == 0 { 1 } else { width as u64 };
        let mut payload = (block_len as u64 * 8).div_ceil(width);
        if ddr {
            payload = payload.div_ceil(2);
        }
        let extra = if write {
            WRITE_BLOCK_EXTRA_CLOCKS
        } else {
            READ_BLOCK_GAP_CLOCKS
        };
        blocks.saturating_mul(payload + BLOCK_FRAME_CLOCKS + extra)
    }

    /// Time of a read of `blocks` blocks: access time, then the blocks at the pace of the
    /// slower of the bus and the card ([`Latency::read_data_ns`]).
    pub const fn read_ns(&self, block_len: u32, blocks: u64, width: u8, ddr: bool, hz: u32) -> u64 {
        if blocks == 0 {
            return 0;
        }
        self.read_access_ns
            .saturating_add(self.read_data_ns(block_len, blocks, width, ddr, hz))
    }

    /// Time the blocks of a read take after the access: the bus time or the card's
    /// internal read time ([`Latency::read_block_ns`] per 512 bytes), whichever is longer
    /// (the bus waits for the card, or the card for the bus).
    pub const fn read_data_ns(
        &self,
        block_len: u32,
        blocks: u64,
        width: u8,
        ddr: bool,
        hz: u32,
    ) -> u64 {
        let bus = self.data_bus_ns(block_len, blocks, width, ddr, hz, false);
        let card = self
            .read_block_ns
            .saturating_mul(Self::sectors(block_len, blocks));
        if card > bus {
            card
        } else {
            bus
        }
    }

    /// Time of a write's blocks on the bus and their per-block programming, without the
    /// busy time after the last block.
    pub const fn write_data_ns(
        &self,
        block_len: u32,
        blocks: u64,
        width: u8,
        ddr: bool,
        hz: u32,
    ) -> u64 {
        let bus = self.data_bus_ns(block_len, blocks, width, ddr, hz, true);
        bus.saturating_add(
            self.program_block_ns
                .saturating_mul(Self::sectors(block_len, blocks)),
        )
    }

    /// Bus time of `blocks` data blocks (0 with bus time off).
    const fn data_bus_ns(
        &self,
        block_len: u32,
        blocks: u64,
        width: u8,
        ddr: bool,
        hz: u32,
        write: bool,
    ) -> u64 {
        if !self.bus {
            return 0;
        }
        Self::clocks_ns(Self::data_clocks(block_len, blocks, width, ddr, write), hz)
    }

    /// 512-byte sectors in `blocks` blocks of `block_len` bytes (rounded up).
    const fn sectors(block_len: u32, blocks: u64) -> u64 {
        (block_len as u64).saturating_mul(blocks).div_ceil(512)
    }

    /// Access time of a queued read task at `address`: within
    /// [`Latency::access_spread_ns`] centred on [`Latency::read_access_ns`], the share
    /// picked deterministically from the address.
    pub const fn task_access_ns(&self, address: u32) -> u64 {
        if self.access_spread_ns == 0 {
            return self.read_access_ns;
        }
        // A multiplicative hash (Knuth's 2^32 / φ): neighbouring addresses land far apart.
        let h = (address as u64).wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF;
        let share = h % self.access_spread_ns.saturating_add(1);
        self.read_access_ns
            .saturating_sub(self.access_spread_ns / 2)
            .saturating_add(share)
    }

    /// Time of a write of `blocks` blocks of `block_len` bytes up to XFER_COMPL: the blocks
    /// on the bus, the programming time of each 512-byte block and the final busy (unless
    /// the card shows that on DAT0 after the transfer, [`Latency::busy_on_dat0`]).
    pub const fn write_ns(
        &self,
        block_len: u32,
        blocks: u64,
        width: u8,
        ddr: bool,
        hz: u32,
    ) -> u64 {
        if blocks == 0 {
            return 0;
        }
        self.write_data_ns(block_len, blocks, width, ddr, hz)
            .saturating_add(if self.busy_on_dat0 {
                0
            } else {
                self.program_busy_ns
            })
    }

    /// The busy a write leaves on DAT0 after its transfer: [`Latency::program_busy_ns`]
    /// with [`Latency::busy_on_dat0`], 0 without (then [`Latency::write_ns`] has it).
    pub const fn dat0_busy_ns(&self) -> u64 {
        if self.busy_on_dat0 {
            self.program_busy_ns
        } else {
            0
        }
    }

    /// Busy time of an erase of `blocks` 512-byte blocks.
    pub const fn erase_time_ns(&self, blocks: u64) -> u64 {
        self.erase_ns
            .saturating_add(self.erase_block_ns.saturating_mul(blocks))
    }
}

/// A queued task as [`TaskTimer`] tracks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TimedTask {
    read: bool,
    /// 512-byte blocks of the task.
    blocks: u16,
    /// When the task's access is done and it shows ready in the queue status (ns of the
    /// model clock).
    ready_at: u64,
}

/// When queued tasks of a command-queueing eMMC become ready, on the MSDC model's clock
/// (ns): the card's [`Latency::queue_units`] parallel units overlap the access times of
/// queued reads, the bus moves one task's data at a time.
///
/// * A read queued (CMD45) at `t` starts its access on the unit that frees up first
///   (lowest index on a tie) at `max(t, free)`, takes [`Latency::task_access_ns`] and is
///   ready when that is done; the unit is busy until then.
/// * A write is ready when a unit is free (the card has no room for its data before,
///   so queued writes cannot outrun the programming); after its transfer the programming busy ([`Latency::program_busy_ns`]) occupies the unit that
///   frees up first, so reads queued after it wait for that unit; the per-block
///   programming ([`Latency::program_block_ns`]) stays on the bus, as for a legacy write.
/// * CMD46/47 of a task charges whatever remains of its access ([`TaskTimer::execute`]),
///   0 when the host waited for the queue status to show it ready.
///
/// Nothing is random: the same commands at the same times give the same readiness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskTimer {
    tasks: [Option<TimedTask>; TASK_SLOTS],
    /// When each unit is free.
    units: [u64; MAX_UNITS],
    /// The task of the last CMD44, waiting for its CMD45: (task ID, read, blocks).
    awaiting: Option<(u8, bool, u16)>,
    /// The units the card has (its `queue_units`, at least 1), from the last CMD45.
    unit_count: usize,
}

impl Default for TaskTimer {
    fn default() -> Self {
        Self::new()
    }
}

impl TaskTimer {
    /// No task queued, every unit free.
    pub const fn new() -> Self {
        Self {
            tasks: [None; TASK_SLOTS],
            units: [0; MAX_UNITS],
            awaiting: None,
            unit_count: 1,
        }
    }

    /// When the first of the card's units is free: a write's data can go to the card no
    /// earlier (its programming needs the unit; the card has no room for more).
    fn earliest_free(&self) -> u64 {
        self.units
            .iter()
            .take(self.unit_count)
            .copied()
            .min()
            .unwrap_or(0)
    }

    /// When task `t` is ready: a read when its access is done, a write when a unit is free.
    fn ready_time(&self, t: &TimedTask) -> u64 {
        if t.read {
            t.ready_at
        } else {
            t.ready_at.max(self.earliest_free())
        }
    }

    /// The unit that is free first among the `latency`'s units.
    fn first_free_unit(&self, latency: &Latency) -> Option<usize> {
        let n = usize::from(latency.queue_units).clamp(1, MAX_UNITS);
        let mut best: Option<(usize, u64)> = None;
        for (i, &free) in self.units.iter().take(n).enumerate() {
            if best.is_none_or(|(_, b)| free < b) {
                best = Some((i, free));
            }
        }
        best.map(|(i, _)| i)
    }

    /// CMD44 for task `task_id` of `blocks` 512-byte blocks (a read if `read`) was
    /// accepted.
    pub fn parameters(&mut self, task_id: u8, read: bool, blocks: u16) {
        self.awaiting = Some((task_id, read, blocks));
    }

    /// CMD45 with the task's `address` was accepted at `now`: the task is in the queue and
    /// a read's access is scheduled.
    pub fn queued(&mut self, latency: &Latency, address: u32, now: u64) {
        let Some((task_id, read, blocks)) = self.awaiting.take() else {
            return;
        };
        self.unit_count = usize::from(latency.queue_units).clamp(1, MAX_UNITS);
        let ready_at = if read {
            match self.first_free_unit(latency) {
                Some(u) => {
                    let free = self.units.get(u).copied().unwrap_or(0);
                    let done = now
                        .max(free)
                        .saturating_add(latency.task_access_ns(address));
                    if let Some(slot) = self.units.get_mut(u) {
                        *slot = done;
                    }
                    done
                }
                None => now,
            }
        } else {
            now
        };
        if let Some(t) = self.tasks.get_mut(usize::from(task_id)) {
            *t = Some(TimedTask {
                read,
                blocks,
                ready_at,
            });
        }
    }

    /// The tasks among `mask` that are ready at `now` (bit n: task n); tasks the timer
    /// does not know (queued before it was watching) count as ready.
    pub fn ready_mask(&self, mask: u32, now: u64) -> u32 {
        let mut ready = 0;
        for (i, t) in self.tasks.iter().enumerate() {
            let bit = 1u32 << (i & 31);
            if mask & bit != 0 && t.is_none_or(|t| self.ready_time(&t) <= now) {
                ready |= bit;
            }
        }
        ready
    }

    /// The earliest time after `now` at which one of the tasks in `mask` becomes ready.
    pub fn next_ready(&self, mask: u32, now: u64) -> Option<u64> {
        self.tasks
            .iter()
            .enumerate()
            .filter(|&(i, _)| mask & (1u32 << (i & 31)) != 0)
            .filter_map(|(_, t)| t.map(|t| self.ready_time(&t)))
            .filter(|&at| at > now)
            .min()
    }

    /// CMD46/47 of task `task_id` at `now`: the task leaves the queue; returns the access
    /// time that remains (a write: until a unit is free; 0 for a task already ready) and,
    /// for a write, its blocks.
    pub fn execute(&mut self, task_id: u8, now: u64) -> (u64, Option<u16>) {
        let task = self
            .tasks
            .get_mut(usize::from(task_id))
            .and_then(Option::take);
        task.map_or((0, None), |t| {
            (
                self.ready_time(&t).saturating_sub(now),
                (!t.read).then_some(t.blocks),
            )
        })
    }

    /// A write's transfer ended at `now`: its programming busy occupies a unit.
    pub fn programming(&mut self, latency: &Latency, now: u64) {
        if let Some(u) = self.first_free_unit(latency) {
            if let Some(free) = self.units.get_mut(u) {
                *free = now.max(*free).saturating_add(latency.program_busy_ns);
            }
        }
    }

    /// Every task leaves the queue (a discard, or the queue disabled); the units finish
    /// what they started.
    pub fn clear(&mut self) {
        self.tasks = [None; TASK_SLOTS];
        self.awaiting = None;
    }

    /// Task `task_id` leaves the queue (a discard of one task).
    pub fn discard(&mut self, task_id: u8) {
        if let Some(t) = self.tasks.get_mut(usize::from(task_id)) {
            *t = None;
        }
    }
}

impl Default for Latency {
    /// [`Latency::EMMC`].
    fn default() -> Self {
        Self::EMMC
    }
}
