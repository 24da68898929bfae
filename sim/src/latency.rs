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
//! the specifications, which only give upper bounds (timeouts); the defaults are typical
//! figures of current devices, and each field says where its number comes from. All
//! arithmetic saturates; nothing here allocates or panics.

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
}

impl Latency {
    /// No time at all: every operation is instantaneous.
    pub const ZERO: Latency = Latency {
        bus: false,
        ncr_clocks: 0,
        nrc_clocks: 0,
        read_access_ns: 0,
        program_block_ns: 0,
        program_busy_ns: 0,
        erase_ns: 0,
        erase_block_ns: 0,
        switch_ns: 0,
        flush_ns: 0,
        power_up_ns: 0,
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
        erase_ns: 1_000_000,
        erase_block_ns: 100,
        switch_ns: 500_000,
        flush_ns: 1_000_000,
        power_up_ns: 20_000_000,
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
        erase_ns: 2_000_000,
        erase_block_ns: 100,
        switch_ns: 0,
        flush_ns: 0,
        power_up_ns: 100_000_000,
    };

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

    /// Time of a read of `blocks` blocks: access time, then the blocks on the bus.
    pub const fn read_ns(&self, block_len: u32, blocks: u64, width: u8, ddr: bool, hz: u32) -> u64 {
        if blocks == 0 {
            return 0;
        }
        let bus = if self.bus {
            Self::clocks_ns(Self::data_clocks(block_len, blocks, width, ddr, false), hz)
        } else {
            0
        };
        self.read_access_ns.saturating_add(bus)
    }

    /// Time of a write of `blocks` blocks of `block_len` bytes: the blocks on the bus, the
    /// programming time of each 512-byte block and the final busy.
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
        let bus = if self.bus {
            Self::clocks_ns(Self::data_clocks(block_len, blocks, width, ddr, true), hz)
        } else {
            0
        };
        let sectors = (block_len as u64 * blocks).div_ceil(512);
        bus.saturating_add(self.program_block_ns.saturating_mul(sectors))
            .saturating_add(self.program_busy_ns)
    }

    /// Busy time of an erase of `blocks` 512-byte blocks.
    pub const fn erase_time_ns(&self, blocks: u64) -> u64 {
        self.erase_ns
            .saturating_add(self.erase_block_ns.saturating_mul(blocks))
    }
}

impl Default for Latency {
    /// [`Latency::EMMC`].
    fn default() -> Self {
        Self::EMMC
    }
}
