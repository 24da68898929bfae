// SPDX-License-Identifier: GPL-2.0
//! The card model's Extended CSD register: the 512 bytes CMD8 returns and CMD6 modifies.
//!
//! Field positions and meanings follow JESD84-B51 §7.4 (Extended CSD register). The values
//! describe an eMMC 5.1 device that supports what the card model implements: high speed
//! (26/52 MHz SDR) and, as [`TimingSupport`] chooses, DDR52, HS200, HS400 and HS400 with
//! enhanced strobe (DEVICE_TYPE, STROBE_SUPPORT, DRIVER_STRENGTH and the 200 MHz power
//! classes follow the choice); boot partitions and an RPMB partition of the configured
//! sizes; high-capacity erase groups of 512 KiB; erase, trim and discard; enhanced reliable
//! write; a write cache; the command queue. Features the model does not implement are
//! advertised as absent (partitioning, HPI, background operations, sanitize, secure
//! erase/trim, packed commands, data tags, context IDs, FFU), so a host never turns them on.

/// Byte indices (JESD84-B51 §7.4, Table "Extended CSD").
pub mod index {
    /// CMDQ_MODE_EN: bit 0 enables the command queue (R/W/E_P).
    pub const CMDQ_MODE_EN: usize = 15;
    /// FLUSH_CACHE: bit 0 flushes the cache, bit 1 is a barrier (W/E_P).
    pub const FLUSH_CACHE: usize = 32;
    /// CACHE_CTRL: bit 0 turns the cache on (R/W/E_P).
    pub const CACHE_CTRL: usize = 33;
    /// POWER_OFF_NOTIFICATION: 0 none, 1 powered on, 2 short, 3 long, 4 sleep (R/W/E_P).
    pub const POWER_OFF_NOTIFICATION: usize = 34;
    /// EXCEPTION_EVENTS_CTRL, two bytes (R/W/E_P).
    pub const EXCEPTION_EVENTS_CTRL: usize = 56;
    /// DATA_SECTOR_SIZE: 0 = 512 bytes (R).
    pub const DATA_SECTOR_SIZE: usize = 61;
    /// PARTITIONING_SUPPORT (R).
    pub const PARTITIONING_SUPPORT: usize = 160;
    /// HPI_MGMT (R/W/E_P).
    pub const HPI_MGMT: usize = 161;
    /// RST_n_FUNCTION (R/W, one-time programmable).
    pub const RST_N_FUNCTION: usize = 162;
    /// BKOPS_EN (R/W).
    pub const BKOPS_EN: usize = 163;
    /// WR_REL_PARAM: bit 0 HS_CTRL_REL, bit 2 EN_REL_WR, bit 4 EN_RPMB_REL_WR (R).
    pub const WR_REL_PARAM: usize = 166;
    /// WR_REL_SET (R/W when HS_CTRL_REL, else R).
    pub const WR_REL_SET: usize = 167;
    /// RPMB_SIZE_MULT: RPMB partition size in 128 KiB units (R).
    pub const RPMB_SIZE_MULT: usize = 168;
    /// USER_WP (R/W, R/W/C_P, R/W/E_P bits).
    pub const USER_WP: usize = 171;
    /// BOOT_WP (R/W, R/W/C_P bits).
    pub const BOOT_WP: usize = 173;
    /// ERASE_GROUP_DEF: bit 0 selects high-capacity erase groups (R/W/E_P).
    pub const ERASE_GROUP_DEF: usize = 175;
    /// BOOT_BUS_CONDITIONS (R/W/E).
    pub const BOOT_BUS_CONDITIONS: usize = 177;
    /// BOOT_CONFIG_PROT (R/W, R/W/C_P).
    pub const BOOT_CONFIG_PROT: usize = 178;
    /// PARTITION_CONFIG: bits 2:0 PARTITION_ACCESS (R/W/E_P), 5:3 BOOT_PARTITION_ENABLE and
    /// 6 BOOT_ACK (R/W/E).
    pub const PARTITION_CONFIG: usize = 179;
    /// ERASED_MEM_CONT: 0 = erased memory reads 0x00 (R).
    pub const ERASED_MEM_CONT: usize = 181;
    /// BUS_WIDTH: 0 1-bit, 1 4-bit, 2 8-bit, 5/6 DDR, bit 7 enhanced strobe (W/E_P).
    pub const BUS_WIDTH: usize = 183;
    /// STROBE_SUPPORT (R).
    pub const STROBE_SUPPORT: usize = 184;
    /// HS_TIMING: bits 3:0 timing interface (0 backward compatible, 1 HS, 2 HS200, 3 HS400),
    /// bits 7:4 driver strength (R/W/E_P).
    pub const HS_TIMING: usize = 185;
    /// POWER_CLASS (R/W/E_P).
    pub const POWER_CLASS: usize = 187;
    /// CMD_SET_REV (R).
    pub const CMD_SET_REV: usize = 189;
    /// CMD_SET (R/W/E_P).
    pub const CMD_SET: usize = 191;
    /// First byte of the read-only properties segment.
    pub const PROPERTIES_START: usize = 192;
    /// EXT_CSD_REV: 8 for eMMC 5.1.
    pub const EXT_CSD_REV: usize = 192;
    /// CSD_STRUCTURE: 2 = CSD version 1.2.
    pub const CSD_STRUCTURE: usize = 194;
    /// DEVICE_TYPE (Linux: CARD_TYPE): supported timing interfaces.
    pub const DEVICE_TYPE: usize = 196;
    /// DRIVER_STRENGTH: supported driver types (bit 0, type 0, is mandatory).
    pub const DRIVER_STRENGTH: usize = 197;
    /// OUT_OF_INTERRUPT_TIME (HPI), 10 ms units.
    pub const OUT_OF_INTERRUPT_TIME: usize = 198;
    /// PARTITION_SWITCH_TIME, 10 ms units.
    pub const PARTITION_SWITCH_TIME: usize = 199;
    /// PWR_CL_52_195: power class for 52 MHz at 1.95 V (bits 7:4 8-bit, 3:0 4-bit).
    pub const PWR_CL_52_195: usize = 200;
    /// PWR_CL_26_195.
    pub const PWR_CL_26_195: usize = 201;
    /// PWR_CL_52_360.
    pub const PWR_CL_52_360: usize = 202;
    /// PWR_CL_26_360.
    pub const PWR_CL_26_360: usize = 203;
    /// First of four SEC_COUNT bytes (little-endian sector count of the user area).
    pub const SEC_COUNT: usize = 212;
    /// S_A_TIMEOUT: sleep/awake timeout, 100 ns × 2^value.
    pub const S_A_TIMEOUT: usize = 217;
    /// S_C_VCCQ: sleep current (VCCQ).
    pub const S_C_VCCQ: usize = 219;
    /// S_C_VCC: sleep current (VCC).
    pub const S_C_VCC: usize = 220;
    /// HC_WP_GRP_SIZE: write protect group size in erase groups.
    pub const HC_WP_GRP_SIZE: usize = 221;
    /// REL_WR_SEC_C: reliable write sector count.
    pub const REL_WR_SEC_C: usize = 222;
    /// ERASE_TIMEOUT_MULT: 300 ms units per high-capacity erase group.
    pub const ERASE_TIMEOUT_MULT: usize = 223;
    /// HC_ERASE_GRP_SIZE: high-capacity erase group size in 512 KiB units.
    pub const HC_ERASE_GRP_SIZE: usize = 224;
    /// ACC_SIZE: super-page size, 512 B × 2^(value − 1).
    pub const ACC_SIZE: usize = 225;
    /// BOOT_SIZE_MULT: size of each boot partition in 128 KiB units.
    pub const BOOT_SIZE_MULT: usize = 226;
    /// BOOT_INFO: alternative boot, DDR boot, HS boot support.
    pub const BOOT_INFO: usize = 228;
    /// SEC_TRIM_MULT.
    pub const SEC_TRIM_MULT: usize = 229;
    /// SEC_ERASE_MULT.
    pub const SEC_ERASE_MULT: usize = 230;
    /// SEC_FEATURE_SUPPORT: bit 0 SEC_ER_EN, 2 SEC_BD_BLK_EN, 4 SEC_GB_CL_EN (trim),
    /// 6 SEC_SANITIZE.
    pub const SEC_FEATURE_SUPPORT: usize = 231;
    /// TRIM_MULT: 300 ms units per trimmed write block group.
    pub const TRIM_MULT: usize = 232;
    /// PWR_CL_200_130 (Linux calls 236 PWR_CL_200_195).
    pub const PWR_CL_200_130: usize = 236;
    /// PWR_CL_200_195 (Linux calls 237 PWR_CL_200_360).
    pub const PWR_CL_200_195: usize = 237;
    /// PWR_CL_DDR_52_195.
    pub const PWR_CL_DDR_52_195: usize = 238;
    /// PWR_CL_DDR_52_360.
    pub const PWR_CL_DDR_52_360: usize = 239;
    /// CACHE_FLUSH_POLICY.
    pub const CACHE_FLUSH_POLICY: usize = 240;
    /// INI_TIMEOUT_AP: initialisation timeout after partitioning, 100 ms units.
    pub const INI_TIMEOUT_AP: usize = 241;
    /// BKOPS_STATUS.
    pub const BKOPS_STATUS: usize = 246;
    /// POWER_OFF_LONG_TIME, 10 ms units.
    pub const POWER_OFF_LONG_TIME: usize = 247;
    /// GENERIC_CMD6_TIME, 10 ms units.
    pub const GENERIC_CMD6_TIME: usize = 248;
    /// First of four CACHE_SIZE bytes (in KiB).
    pub const CACHE_SIZE: usize = 249;
    /// PWR_CL_DDR_200_360.
    pub const PWR_CL_DDR_200_360: usize = 253;
    /// First of eight FIRMWARE_VERSION bytes.
    pub const FIRMWARE_VERSION: usize = 254;
    /// OPTIMAL_TRIM_UNIT_SIZE: 4 KiB × 2^(value − 1).
    pub const OPTIMAL_TRIM_UNIT_SIZE: usize = 264;
    /// OPTIMAL_WRITE_SIZE, 4 KiB units.
    pub const OPTIMAL_WRITE_SIZE: usize = 265;
    /// OPTIMAL_READ_SIZE, 4 KiB units.
    pub const OPTIMAL_READ_SIZE: usize = 266;
    /// PRE_EOL_INFO: 1 = normal.
    pub const PRE_EOL_INFO: usize = 267;
    /// DEVICE_LIFE_TIME_EST_TYP_A: 1 = 0–10 % used.
    pub const DEVICE_LIFE_TIME_EST_TYP_A: usize = 268;
    /// DEVICE_LIFE_TIME_EST_TYP_B.
    pub const DEVICE_LIFE_TIME_EST_TYP_B: usize = 269;
    /// CMDQ_DEPTH: queue depth minus one in bits 4:0.
    pub const CMDQ_DEPTH: usize = 307;
    /// CMDQ_SUPPORT: bit 0 set when the command queue is supported.
    pub const CMDQ_SUPPORT: usize = 308;
    /// BARRIER_SUPPORT.
    pub const BARRIER_SUPPORT: usize = 486;
    /// SUPPORTED_MODES: bit 0 FFU.
    pub const SUPPORTED_MODES: usize = 493;
    /// DATA_TAG_SUPPORT.
    pub const DATA_TAG_SUPPORT: usize = 499;
    /// MAX_PACKED_WRITES.
    pub const MAX_PACKED_WRITES: usize = 500;
    /// MAX_PACKED_READS.
    pub const MAX_PACKED_READS: usize = 501;
    /// BKOPS_SUPPORT.
    pub const BKOPS_SUPPORT: usize = 502;
    /// HPI_FEATURES.
    pub const HPI_FEATURES: usize = 503;
    /// S_CMD_SET: supported command sets (bit 0 standard).
    pub const S_CMD_SET: usize = 504;
}

/// Size of the Extended CSD.
pub const EXT_CSD_LEN: usize = 512;

register! {
    /// PARTITION_CONFIG (byte [`index::PARTITION_CONFIG`]).
    pub PARTITION_CONFIG(u32) {
        /// PARTITION_ACCESS: 0 user, 1 boot 1, 2 boot 2, 3 RPMB, 4..7 general purpose
        /// (R/W/E_P).
        2:0 partition_access;
        /// BOOT_PARTITION_ENABLE: 0 none, 1 boot 1, 2 boot 2, 7 user area (R/W/E).
        5:3 boot_partition_enable;
        /// BOOT_ACK (R/W/E).
        6:6 boot_ack => bool;
        /// Reserved.
        7:7 reserved => bool;
    }

    /// BUS_WIDTH (byte [`index::BUS_WIDTH`]).
    pub BUS_WIDTH(u32) {
        /// 0 1-bit, 1 4-bit, 2 8-bit, 5 4-bit DDR, 6 8-bit DDR.
        3:0 width;
        /// Enhanced strobe.
        7:7 enhanced_strobe => bool;
    }

    /// HS_TIMING (byte [`index::HS_TIMING`]).
    pub HS_TIMING(u32) {
        /// Timing interface: 0 backward compatible, 1 high speed, 2 HS200, 3 HS400.
        3:0 timing_interface;
        /// Driver strength.
        7:4 driver_strength;
    }

    /// CMDQ_DEPTH (byte [`index::CMDQ_DEPTH`]).
    pub CMDQ_DEPTH(u32) {
        /// Queue depth minus one.
        4:0 depth_minus_one;
    }

    /// FLUSH_CACHE (byte [`index::FLUSH_CACHE`]).
    pub FLUSH_CACHE(u32) {
        /// Flush the cache.
        0:0 flush => bool;
        /// Barrier (needs BARRIER_SUPPORT).
        1:1 barrier => bool;
    }

    /// SEC_FEATURE_SUPPORT (byte [`index::SEC_FEATURE_SUPPORT`]).
    pub SEC_FEATURE_SUPPORT(u32) {
        /// Secure erase and trim.
        0:0 sec_er_en => bool;
        /// Secure bad block management.
        2:2 sec_bd_blk_en => bool;
        /// Trim (garbage collection).
        4:4 sec_gb_cl_en => bool;
        /// Sanitize.
        6:6 sec_sanitize => bool;
    }

    /// A byte whose bit 0 turns a feature on: CMDQ_MODE_EN, CACHE_CTRL, ERASE_GROUP_DEF,
    /// CMDQ_SUPPORT.
    pub FEATURE_ENABLE(u32) {
        /// The feature is on (or, for a property, supported).
        0:0 enable => bool;
    }
}

/// DEVICE_TYPE bits the model sets: high speed at 26 and 52 MHz, SDR only.
pub const DEVICE_TYPE_HS: u8 = 0x03;

register! {
    /// DEVICE_TYPE (byte [`index::DEVICE_TYPE`]; Linux: CARD_TYPE): the timing interfaces
    /// the device supports.
    pub DEVICE_TYPE(u32) {
        /// High speed at 26 MHz.
        0:0 hs_26 => bool;
        /// High speed at 52 MHz.
        1:1 hs_52 => bool;
        /// High speed DDR at 52 MHz, 1.8 V or 3 V I/O.
        2:2 ddr52_1v8 => bool;
        /// High speed DDR at 52 MHz, 1.2 V I/O.
        3:3 ddr52_1v2 => bool;
        /// HS200 SDR at 200 MHz, 1.8 V I/O.
        4:4 hs200_1v8 => bool;
        /// HS200 SDR at 200 MHz, 1.2 V I/O.
        5:5 hs200_1v2 => bool;
        /// HS400 DDR at 200 MHz, 1.8 V I/O.
        6:6 hs400_1v8 => bool;
        /// HS400 DDR at 200 MHz, 1.2 V I/O.
        7:7 hs400_1v2 => bool;
    }
}

/// The timing interfaces a card supports beyond high speed SDR, which decide its DEVICE_TYPE,
/// STROBE_SUPPORT and DRIVER_STRENGTH and which HS_TIMING and BUS_WIDTH values its CMD6
/// SWITCH accepts. Every fast choice includes the slower ones, as devices do: an HS400 device
/// also offers HS200 (the host tunes there) and DDR52 (the bus width HS400 uses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimingSupport {
    /// High speed SDR at 26/52 MHz only (DEVICE_TYPE 0x03).
    #[default]
    HighSpeed,
    /// Also DDR52 and HS200, both at 1.8 V I/O (DEVICE_TYPE 0x17).
    Hs200,
    /// Also HS400 at 1.8 V I/O (DEVICE_TYPE 0x57), without enhanced strobe.
    Hs400,
    /// HS400 with enhanced strobe (DEVICE_TYPE 0x57, STROBE_SUPPORT 1).
    Hs400EnhancedStrobe,
}

impl TimingSupport {
    /// The DEVICE_TYPE byte.
    pub const fn device_type(self) -> u8 {
        let hs = DEVICE_TYPE::zeroed().with_hs_26(true).with_hs_52(true);
        let hs200 = hs.with_ddr52_1v8(true).with_hs200_1v8(true);
        byte(match self {
            Self::HighSpeed => hs.raw(),
            Self::Hs200 => hs200.raw(),
            Self::Hs400 | Self::Hs400EnhancedStrobe => hs200.with_hs400_1v8(true).raw(),
        })
    }

    /// Whether the card offers DDR52 (BUS_WIDTH 5 and 6 in high speed timing).
    pub const fn ddr52(self) -> bool {
        DEVICE_TYPE::from_raw(self.device_type() as u32).ddr52_1v8()
    }

    /// Whether the card offers HS200 (HS_TIMING 2).
    pub const fn hs200(self) -> bool {
        DEVICE_TYPE::from_raw(self.device_type() as u32).hs200_1v8()
    }

    /// Whether the card offers HS400 (HS_TIMING 3).
    pub const fn hs400(self) -> bool {
        DEVICE_TYPE::from_raw(self.device_type() as u32).hs400_1v8()
    }

    /// STROBE_SUPPORT: whether BUS_WIDTH may set the enhanced strobe bit.
    pub const fn enhanced_strobe(self) -> bool {
        matches!(self, Self::Hs400EnhancedStrobe)
    }

    /// DRIVER_STRENGTH: type 0 (mandatory) on a high speed card; types 0 to 4 on the cards
    /// with HS200, where a host picks one for the 200 MHz timings.
    pub const fn driver_strengths(self) -> u8 {
        match self {
            Self::HighSpeed => 0x01,
            _ => 0x1F,
        }
    }
}

/// High-capacity erase group size in 512-byte sectors for HC_ERASE_GRP_SIZE = 1 (512 KiB).
pub const HC_ERASE_GROUP_SECTORS: u32 = 1024;

/// The properties segment's single-byte fields (JESD84-B51 §7.4, read-only) that do not
/// depend on the device's geometry: byte index and value.
const PROPERTIES: [(usize, u8); 28] = [
    (index::EXT_CSD_REV, 8),
    (index::CSD_STRUCTURE, 2),
    (index::DEVICE_TYPE, DEVICE_TYPE_HS),
    (index::DRIVER_STRENGTH, 0x01),
    (index::PARTITION_SWITCH_TIME, 1),
    // Power class 1 for 4- and 8-bit at 52 MHz, so a host exercises POWER_CLASS.
    (index::PWR_CL_52_195, 0x11),
    (index::PWR_CL_52_360, 0x11),
    // 100 ns × 2^17 ≈ 13 ms sleep/awake timeout.
    (index::S_A_TIMEOUT, 0x11),
    (index::S_C_VCCQ, 0x07),
    (index::S_C_VCC, 0x07),
    (index::HC_WP_GRP_SIZE, 1),
    (index::REL_WR_SEC_C, 1),
    (index::ERASE_TIMEOUT_MULT, 1),
    (index::HC_ERASE_GRP_SIZE, 1),
    (index::ACC_SIZE, 6),
    // Enhanced reliable write (any block count); WR_REL_SET is fixed.
    (index::WR_REL_PARAM, 0x04),
    // Trim supported; secure erase/trim (obsolete since v4.51) and sanitize are not.
    (
        index::SEC_FEATURE_SUPPORT,
        byte(SEC_FEATURE_SUPPORT::zeroed().with_sec_gb_cl_en(true).raw()),
    ),
    (index::TRIM_MULT, 1),
    (index::INI_TIMEOUT_AP, 10),
    (index::POWER_OFF_LONG_TIME, 100),
    (index::GENERIC_CMD6_TIME, 10),
    (index::OPTIMAL_TRIM_UNIT_SIZE, 1),
    (index::OPTIMAL_WRITE_SIZE, 4),
    (index::OPTIMAL_READ_SIZE, 4),
    (index::PRE_EOL_INFO, 1),
    (index::DEVICE_LIFE_TIME_EST_TYP_A, 1),
    (index::DEVICE_LIFE_TIME_EST_TYP_B, 1),
    (index::S_CMD_SET, 0x01),
];

/// The device-specific numbers the register is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// User area size in 512-byte sectors (SEC_COUNT).
    pub sectors: u32,
    /// Boot partition size in 128 KiB units (0: no boot partitions).
    pub boot_size_mult: u8,
    /// RPMB partition size in 128 KiB units (0: none).
    pub rpmb_size_mult: u8,
    /// Cache size in KiB (0: no cache).
    pub cache_kib: u32,
    /// Command queue depth (1..=32; 0: no command queue, CMDQ_SUPPORT 0).
    pub queue_depth: u8,
    /// The timing interfaces beyond high speed SDR.
    pub timings: TimingSupport,
}

/// The Extended CSD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtCsd {
    bytes: [u8; EXT_CSD_LEN],
}

impl ExtCsd {
    /// The register of a 5.1 card with `sectors` 512-byte sectors, a 64 KiB cache, a command
    /// queue of `queue_depth` (1..=32) tasks (0: none), and neither boot nor RPMB partitions.
    pub fn new(sectors: u32, queue_depth: u8) -> Self {
        Self::with_geometry(&Geometry {
            sectors,
            boot_size_mult: 0,
            rpmb_size_mult: 0,
            cache_kib: 64,
            queue_depth,
            timings: TimingSupport::HighSpeed,
        })
    }

    /// The register after power-up (or CMD0) of a device with geometry `g`.
    pub fn with_geometry(g: &Geometry) -> Self {
        let mut ext_csd = Self {
            bytes: [0u8; EXT_CSD_LEN],
        };
        for (i, v) in PROPERTIES {
            ext_csd.set(i, v);
        }
        let mut set_bytes = |at: usize, values: &[u8]| {
            if let Some(field) = ext_csd.bytes.get_mut(at..at + values.len()) {
                field.copy_from_slice(values);
            }
        };
        set_bytes(index::SEC_COUNT, &g.sectors.to_le_bytes());
        set_bytes(index::CACHE_SIZE, &g.cache_kib.to_le_bytes());
        set_bytes(index::FIRMWARE_VERSION, b"SIM5.1\0\0");
        set_bytes(index::BOOT_SIZE_MULT, &[g.boot_size_mult]);
        set_bytes(index::RPMB_SIZE_MULT, &[g.rpmb_size_mult]);
        // The command queue is optional in 5.1 (CMDQ_SUPPORT); CMDQ_DEPTH only means
        // something with it and stays 0 without.
        let (support, depth) = match g.queue_depth {
            0 => (FEATURE_ENABLE::zeroed(), 0),
            n => (FEATURE_ENABLE::zeroed().with_enable(true), n.min(32) - 1),
        };
        set_bytes(index::CMDQ_SUPPORT, &[byte(support.raw())]);
        set_bytes(index::CMDQ_DEPTH, &[depth]);
        let t = g.timings;
        set_bytes(index::DEVICE_TYPE, &[t.device_type()]);
        set_bytes(index::DRIVER_STRENGTH, &[t.driver_strengths()]);
        set_bytes(index::STROBE_SUPPORT, &[u8::from(t.enhanced_strobe())]);
        if t.hs200() {
            // Power class 1 at 200 MHz too (4- and 8-bit, SDR and, with HS400, DDR), so a
            // host selects POWER_CLASS in the fast timings as it does at 52 MHz.
            for i in [index::PWR_CL_200_130, index::PWR_CL_200_195] {
                set_bytes(i, &[0x11]);
            }
            set_bytes(index::PWR_CL_DDR_52_195, &[0x11]);
            set_bytes(index::PWR_CL_DDR_52_360, &[0x11]);
        }
        if t.hs400() {
            set_bytes(index::PWR_CL_DDR_200_360, &[0x11]);
        }
        ext_csd
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

    /// Byte `i` widened to a word, to decode with the field definitions above.
    pub fn word(&self, i: usize) -> u32 {
        u32::from(self.get(i))
    }

    /// Whether the device has a command queue (CMDQ_SUPPORT).
    pub fn cmdq_supported(&self) -> bool {
        FEATURE_ENABLE::from_raw(self.word(index::CMDQ_SUPPORT)).enable()
    }

    /// Whether the host has enabled the command queue.
    pub fn cmdq_enabled(&self) -> bool {
        FEATURE_ENABLE::from_raw(self.word(index::CMDQ_MODE_EN)).enable()
    }

    /// The queue depth the card advertises (1..=32; meaningless without
    /// [`cmdq_supported`](Self::cmdq_supported)).
    pub fn cmdq_depth(&self) -> u32 {
        CMDQ_DEPTH::from_raw(self.word(index::CMDQ_DEPTH)).depth_minus_one() + 1
    }

    /// PARTITION_CONFIG.
    pub fn partition_config(&self) -> PARTITION_CONFIG {
        PARTITION_CONFIG::from_raw(self.word(index::PARTITION_CONFIG))
    }

    /// The partition PARTITION_CONFIG selects for access: 0 user, 1 boot 1, 2 boot 2, 3 RPMB.
    pub fn partition_access(&self) -> u8 {
        byte(self.partition_config().partition_access())
    }

    /// The data bus width BUS_WIDTH selects (1, 4 or 8 lines).
    pub fn bus_width(&self) -> u8 {
        match BUS_WIDTH::from_raw(self.word(index::BUS_WIDTH)).width() {
            1 | 5 => 4,
            2 | 6 => 8,
            _ => 1,
        }
    }

    /// The timing interface HS_TIMING selects (0 backward compatible, 1 high speed, 2 HS200,
    /// 3 HS400).
    pub fn timing(&self) -> u8 {
        byte(HS_TIMING::from_raw(self.word(index::HS_TIMING)).timing_interface())
    }

    /// Whether BUS_WIDTH selects a DDR bus (4- or 8-bit DDR, as DDR52 and HS400 use).
    pub fn ddr(&self) -> bool {
        matches!(
            BUS_WIDTH::from_raw(self.word(index::BUS_WIDTH)).width(),
            5 | 6
        )
    }

    /// Whether BUS_WIDTH has the enhanced strobe bit set (HS400 with enhanced strobe).
    pub fn enhanced_strobe(&self) -> bool {
        BUS_WIDTH::from_raw(self.word(index::BUS_WIDTH)).enhanced_strobe()
    }

    /// The timing interfaces DEVICE_TYPE and STROBE_SUPPORT advertise.
    pub fn timing_support(&self) -> TimingSupport {
        let t = DEVICE_TYPE::from_raw(self.word(index::DEVICE_TYPE));
        match (t.hs400_1v8(), t.hs200_1v8()) {
            (true, _) if self.get(index::STROBE_SUPPORT) & 1 != 0 => {
                TimingSupport::Hs400EnhancedStrobe
            }
            (true, _) => TimingSupport::Hs400,
            (false, true) => TimingSupport::Hs200,
            (false, false) => TimingSupport::HighSpeed,
        }
    }

    /// Whether RST_n_FUNCTION has the RST_n signal permanently enabled (RST_n_ENABLE 0x1).
    pub fn rst_n_enabled(&self) -> bool {
        self.get(index::RST_N_FUNCTION) & 0x3 == 0x1
    }

    /// Whether ERASE_GROUP_DEF selects high-capacity erase groups.
    pub fn hc_erase_groups(&self) -> bool {
        FEATURE_ENABLE::from_raw(self.word(index::ERASE_GROUP_DEF)).enable()
    }

    /// Whether the cache is on (CACHE_CTRL bit 0).
    pub fn cache_enabled(&self) -> bool {
        FEATURE_ENABLE::from_raw(self.word(index::CACHE_CTRL)).enable()
    }

    /// Whether trim is supported (SEC_FEATURE_SUPPORT.SEC_GB_CL_EN).
    pub fn trim_supported(&self) -> bool {
        SEC_FEATURE_SUPPORT::from_raw(self.word(index::SEC_FEATURE_SUPPORT)).sec_gb_cl_en()
    }

    /// CACHE_SIZE in KiB.
    pub fn cache_kib(&self) -> u32 {
        u32::from_le_bytes([
            self.get(index::CACHE_SIZE),
            self.get(index::CACHE_SIZE + 1),
            self.get(index::CACHE_SIZE + 2),
            self.get(index::CACHE_SIZE + 3),
        ])
    }
}

impl PARTITION_CONFIG {
    /// The non-volatile fields, which CMD0 keeps: BOOT_PARTITION_ENABLE and BOOT_ACK.
    pub const NON_VOLATILE: Self = Self::zeroed()
        .with_const_boot_partition_enable::<0b111>()
        .with_boot_ack(true);
}

/// The byte a field word of a byte holds.
pub const fn byte(word: u32) -> u8 {
    // The words above describe single bytes: their fields end at bit 7.
    let [low, ..] = word.to_le_bytes();
    low
}
