// SPDX-License-Identifier: GPL-2.0
//! The card model's Extended CSD register: the 512 bytes CMD8 returns and CMD6 modifies.

/// Byte indices the model gives meaning to (JESD84-B51 §7.4).
pub mod index {
    /// CMDQ_MODE_EN: bit 0 enables the command queue (R/W).
    pub const CMDQ_MODE_EN: usize = 15;
    /// FLUSH_CACHE: writing 1 flushes the cache (W/E_P).
    pub const FLUSH_CACHE: usize = 32;
    /// CACHE_CTRL: bit 0 turns the cache on.
    pub const CACHE_CTRL: usize = 33;
    /// BUS_WIDTH.
    pub const BUS_WIDTH: usize = 183;
    /// HS_TIMING.
    pub const HS_TIMING: usize = 185;
    /// EXT_CSD_REV: 8 for eMMC 5.1.
    pub const EXT_CSD_REV: usize = 192;
    /// First of four SEC_COUNT bytes (little-endian sector count).
    pub const SEC_COUNT: usize = 212;
    /// First of four CACHE_SIZE bytes (in KiB).
    pub const CACHE_SIZE: usize = 249;
    /// CMDQ_DEPTH: queue depth minus one in bits 4:0.
    pub const CMDQ_DEPTH: usize = 307;
    /// CMDQ_SUPPORT: bit 0 set when the command queue is supported.
    pub const CMDQ_SUPPORT: usize = 308;
    /// First byte of the read-only properties segment.
    pub const PROPERTIES_START: usize = 192;
}

/// Size of the Extended CSD.
pub const EXT_CSD_LEN: usize = 512;

/// The Extended CSD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtCsd {
    bytes: [u8; EXT_CSD_LEN],
}

impl ExtCsd {
    /// The register of a 5.1 card with `sectors` 512-byte sectors and a command queue of
    /// `queue_depth` (1..=32) tasks.
    pub fn new(sectors: u32, queue_depth: u8) -> Self {
        let mut bytes = [0u8; EXT_CSD_LEN];
        let mut set = |i: usize, v: u8| {
            if let Some(b) = bytes.get_mut(i) {
                *b = v;
            }
        };
        set(index::EXT_CSD_REV, 8);
        for (n, b) in sectors.to_le_bytes().iter().enumerate() {
            set(index::SEC_COUNT + n, *b);
        }
        set(index::CACHE_SIZE, 64);
        set(index::CMDQ_SUPPORT, 1);
        set(index::CMDQ_DEPTH, queue_depth.clamp(1, 32) - 1);
        Self { bytes }
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8; EXT_CSD_LEN] {
        &self.bytes
    }

    /// One byte (0 past the end).
    pub fn get(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// Stores one byte; returns false past the end.
    pub fn set(&mut self, i: usize, value: u8) -> bool {
        match self.bytes.get_mut(i) {
            Some(b) => {
                *b = value;
                true
            }
            None => false,
        }
    }

    /// Whether the host has enabled the command queue.
    pub fn cmdq_enabled(&self) -> bool {
        self.get(index::CMDQ_MODE_EN) & 1 != 0
    }

    /// The queue depth the card advertises (1..=32).
    pub fn cmdq_depth(&self) -> u32 {
        u32::from(self.get(index::CMDQ_DEPTH) & 0x1F) + 1
    }
}
