// SPDX-License-Identifier: GPL-2.0

//! Register map of the MediaTek MSDC controller, so that every bit position is named once.
//!
//! Each hardware register is a `u32` newtype carrying its offset and region, with one
//! [`Field`] constant per documented field, declared as `HI:LO` exactly like the datasheet
//! tables. Code elsewhere builds register values through [`RegisterWord::with`] and
//! [`RegisterWord::get`] instead of shifting by hand.
//!
//! Names follow the MediaTek datasheet spelling used by the upstream C driver. Registers that
//! the upstream driver never touches (`MSDC_TXDATA`, `MSDC_DMA_CA`, the debug and read-delay
//! registers, `MSDC_VERSION`) use the layout of the eMMC 5.0 generation, the one that has
//! `MSDC_PAD_TUNE0` at `0xF0`; older SoCs placed some of them elsewhere.
//!
//! The interrupt registers `MSDC_INT` and `MSDC_INTEN` share one bit layout, [`InterruptSet`].

use core::fmt;
use core::marker::PhantomData;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Sub};

/// Register window a register lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The main MSDC register block (device tree `reg[0]`).
    Base,
    /// The optional "top" pad-control block (device tree `reg[1]`), present on newer SoCs.
    Top,
}

/// Offset of the CQHCI register block inside the [`Region::Base`] window.
pub const CQHCI_BASE: usize = 0x800;

/// A value did not fit in the bit range of a [`Field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldOverflow {
    /// The rejected value.
    pub value: u32,
    /// The largest value the field can hold.
    pub max: u32,
}

impl fmt::Display for FieldOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value {:#x} exceeds field maximum {:#x}",
            self.value, self.max
        )
    }
}

/// An inclusive bit range `HI:LO` of a 32-bit word of type `W`.
///
/// The type parameter ties a field to the register (or descriptor word) it belongs to, so a
/// field of one register cannot be applied to another by mistake.
pub struct Field<W> {
    high: u32,
    low: u32,
    word: PhantomData<fn() -> W>,
}

impl<W> Clone for Field<W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W> Copy for Field<W> {}

impl<W> PartialEq for Field<W> {
    fn eq(&self, other: &Self) -> bool {
        self.high == other.high && self.low == other.low
    }
}

impl<W> Eq for Field<W> {}

impl<W> fmt::Debug for Field<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field({}:{})", self.high, self.low)
    }
}

impl<W> Field<W> {
    /// Declares the field `high:low`.
    ///
    /// Fields are declared in constants, so a malformed range fails the build rather than
    /// the running kernel.
    pub const fn new(high: u32, low: u32) -> Self {
        assert!(
            low <= high && high < 32,
            "a field is HI:LO inside a 32-bit word"
        );
        Self {
            high,
            low,
            word: PhantomData,
        }
    }

    /// Position of the most significant bit.
    pub const fn high_bit(self) -> u32 {
        self.high
    }

    /// Position of the least significant bit (the shift).
    pub const fn low_bit(self) -> u32 {
        self.low
    }

    /// Number of bits in the field.
    pub const fn width(self) -> u32 {
        self.high - self.low + 1
    }

    /// Largest value the field can hold.
    pub const fn max_value(self) -> u32 {
        u32::MAX >> (32 - self.width())
    }

    /// The field's bits in place within the word.
    pub const fn mask(self) -> u32 {
        self.max_value() << self.low
    }

    /// Reads the field out of a raw word.
    pub const fn extract(self, word: u32) -> u32 {
        (word & self.mask()) >> self.low
    }

    /// Places `value` at the field's position, refusing values wider than the field.
    pub const fn prepare(self, value: u32) -> Result<u32, FieldOverflow> {
        if value > self.max_value() {
            Err(FieldOverflow {
                value,
                max: self.max_value(),
            })
        } else {
            Ok(value << self.low)
        }
    }

    /// Returns `word` with the field replaced by `value`.
    pub const fn replace(self, word: u32, value: u32) -> Result<u32, FieldOverflow> {
        match self.prepare(value) {
            Ok(bits) => Ok((word & !self.mask()) | bits),
            Err(e) => Err(e),
        }
    }
}

/// A 32-bit word with named fields: a register value or a DMA descriptor word.
pub trait RegisterWord: Copy {
    /// Wraps a raw value, e.g. one just read from the hardware.
    fn from_raw(raw: u32) -> Self;

    /// The raw value, e.g. to write to the hardware.
    fn raw(self) -> u32;

    /// Reads one field.
    fn get(self, field: Field<Self>) -> u32 {
        field.extract(self.raw())
    }

    /// Whether any bit of the field is set; meant for single-bit flags.
    fn is_set(self, field: Field<Self>) -> bool {
        self.get(field) != 0
    }

    /// Returns a copy with the field replaced by `value`.
    fn with(self, field: Field<Self>, value: u32) -> Result<Self, FieldOverflow> {
        field.replace(self.raw(), value).map(Self::from_raw)
    }

    /// Returns a copy with every bit of the field set (`true`) or cleared (`false`).
    fn with_flag(self, field: Field<Self>, set: bool) -> Self {
        let raw = if set {
            self.raw() | field.mask()
        } else {
            self.raw() & !field.mask()
        };
        Self::from_raw(raw)
    }
}

/// A hardware register: a [`RegisterWord`] with a fixed location.
pub trait Register: RegisterWord {
    /// Byte offset from the start of [`Register::REGION`].
    const OFFSET: usize;
    /// Register window holding the register.
    const REGION: Region;
}

/// Declares register newtypes with their location and `HI:LO` fields.
macro_rules! registers {
    ($(
        $(#[$meta:meta])*
        $name:ident @ $region:ident + $offset:literal {
            $(
                $(#[$field_meta:meta])*
                $hi:literal : $lo:literal $field:ident;
            )*
        }
    )*) => {$(
        $(#[$meta])*
        #[expect(non_camel_case_types, reason = "datasheet register names")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name(u32);

        impl $name {
            /// Byte offset of the register from the start of its region.
            pub const OFFSET: usize = $offset;
            /// Register window holding the register.
            pub const REGION: Region = Region::$region;

            /// Wraps a raw value read from the hardware.
            pub const fn from_raw(raw: u32) -> Self {
                Self(raw)
            }

            /// The raw value to write to the hardware.
            pub const fn raw(self) -> u32 {
                self.0
            }

            $(
                $(#[$field_meta])*
                #[doc = ""]
                #[doc = concat!("Bits `", stringify!($hi), ":", stringify!($lo), "`.")]
                pub const $field: Field<Self> = Field::new($hi, $lo);
            )*
        }

        impl RegisterWord for $name {
            fn from_raw(raw: u32) -> Self {
                Self(raw)
            }

            fn raw(self) -> u32 {
                self.0
            }
        }

        impl Register for $name {
            const OFFSET: usize = $offset;
            const REGION: Region = Region::$region;
        }
    )*};
}

registers! {
    /// `MSDC_CFG`: controller mode, reset, clock source divider and clock gating.
    MSDC_CFG @ Base + 0x00 {
        /// Card interface mode; 1 selects MMC/SD (the only mode this driver uses).
        0:0 MODE;
        /// Bus clock free-running enable; clearing it stops the card clock.
        1:1 CKPDN;
        /// Controller soft reset; self-clearing when the reset is done.
        2:2 RST;
        /// PIO mode; the driver always clears it to move data by DMA.
        3:3 PIO;
        /// Clock driving enable.
        4:4 CKDRVEN;
        /// 1.8 V signalling enable.
        5:5 BV18SDT;
        /// 1.8 V signalling pass status (read-only).
        6:6 BV18PSS;
        /// Card clock stable after a divider change (read-only).
        7:7 CKSTB;
        /// Clock divider on SoCs with an 8-bit divider.
        15:8 CKDIV;
        /// Clock mode on SoCs with an 8-bit divider (see the clock module).
        17:16 CKMOD;
        /// HS400 clock at half the source rate, on SoCs with an 8-bit divider.
        18:18 HS400_CK_MODE;
        /// Clock divider on SoCs with a 12-bit divider.
        19:8 CKDIV_EXTRA;
        /// Clock mode on SoCs with a 12-bit divider.
        21:20 CKMOD_EXTRA;
        /// HS400 clock at half the source rate, on SoCs with a 12-bit divider.
        22:22 HS400_CK_MODE_EXTRA;
    }

    /// `MSDC_IOCON`: sampling edges and data-line delay selection.
    MSDC_IOCON @ Base + 0x04 {
        /// SDR104 clock source select.
        0:0 SDR104CKS;
        /// Command response sampling edge (1 = falling).
        1:1 RSPL;
        /// Read data sampling edge (1 = falling).
        2:2 DSPL;
        /// Per-line data delay select.
        3:3 DDLSEL;
        /// DDR50 clock delay.
        4:4 DDR50CKD;
        /// Per-line read data sampling edge select.
        5:5 DSPLSEL;
        /// Write data sampling edge.
        8:8 W_DSPL;
        /// DAT0 sampling edge.
        16:16 D0SPL;
        /// DAT1 sampling edge.
        17:17 D1SPL;
        /// DAT2 sampling edge.
        18:18 D2SPL;
        /// DAT3 sampling edge.
        19:19 D3SPL;
        /// DAT4 sampling edge.
        20:20 D4SPL;
        /// DAT5 sampling edge.
        21:21 D5SPL;
        /// DAT6 sampling edge.
        22:22 D6SPL;
        /// DAT7 sampling edge.
        23:23 D7SPL;
        /// RISC access size.
        25:24 RISCSZ;
    }

    /// `MSDC_PS`: pin status and the internal card-detect logic.
    MSDC_PS @ Base + 0x08 {
        /// Internal card-detect enable.
        0:0 CDEN;
        /// Card-detect pin level (read-only).
        1:1 CDSTS;
        /// Card-detect debounce time.
        15:12 CDDEBOUNCE;
        /// DAT7..DAT0 pin levels (read-only).
        23:16 DAT;
        /// DAT0 pin level; low while the card signals busy (read-only).
        16:16 DAT0;
        /// DAT1 pin level; low while an SDIO card signals an interrupt (read-only).
        17:17 DATA1;
        /// CMD pin level (read-only).
        24:24 CMD;
        /// Write-protect pin level (read-only).
        31:31 WP;
    }

    /// `MSDC_INT`: pending interrupt events, write 1 to clear; bits are [`InterruptSet`].
    MSDC_INT @ Base + 0x0C {}

    /// `MSDC_INTEN`: interrupt enables; bits are [`InterruptSet`].
    MSDC_INTEN @ Base + 0x10 {}

    /// `MSDC_FIFOCS`: FIFO fill levels and FIFO clear.
    MSDC_FIFOCS @ Base + 0x14 {
        /// Bytes waiting in the receive FIFO (read-only).
        7:0 RXCNT;
        /// Bytes waiting in the transmit FIFO (read-only).
        23:16 TXCNT;
        /// Clear both FIFOs; self-clearing.
        31:31 CLR;
    }

    /// `MSDC_TXDATA`: transmit FIFO data port (PIO only).
    MSDC_TXDATA @ Base + 0x18 {}

    /// `MSDC_RXDATA`: receive FIFO data port (PIO only).
    MSDC_RXDATA @ Base + 0x1C {}

    /// `SDC_CFG`: SD bus configuration and timeouts.
    SDC_CFG @ Base + 0x30 {
        /// Wake up on an SDIO interrupt.
        0:0 SDIOINTWKUP;
        /// Wake up on card insertion.
        1:1 INSWKUP;
        /// Write data / busy timeout in units of 2^20 bus clocks, plus one.
        14:2 WRDTOC;
        /// Bus width (see [`BusWidth`]).
        17:16 BUSWIDTH;
        /// SDIO mode enable.
        19:19 SDIO;
        /// SDIO interrupt detection enable.
        20:20 SDIOIDE;
        /// SDIO interrupt detection at block gaps.
        21:21 INTATGAP;
        /// Read data timeout in units of 2^20 bus clocks, plus one.
        31:24 DTOC;
    }

    /// `SDC_CMD`: writing it issues a command; the layout is built by the command module.
    SDC_CMD @ Base + 0x34 {
        /// Command index.
        5:0 OPC;
        /// Break (abort) the ongoing stream transfer.
        6:6 BRK;
        /// Response type code (see `command::ResponseType`).
        9:7 RSPTYP;
        /// Data transfer type: 0 none, 1 single block, 2 multiple blocks, 3 stream.
        12:11 DTYPE;
        /// Data direction: 1 writes to the card.
        13:13 RW;
        /// The command stops a data transfer (CMD12).
        14:14 STOP;
        /// The command is CMD40 (GO_IRQ_STATE): the response may come at any later time.
        15:15 GOIRQ;
        /// Block length in bytes.
        27:16 BLKLEN;
        /// Automatic command: 0 none, 1 CMD12 after, 2 CMD23 before, 3 CMD19 (vendor use).
        29:28 AUTOCMD;
        /// The command is CMD11 (voltage switch): the hardware runs the switch sequence.
        30:30 VOLSWTH;
        /// Automatic CMD53 (vendor SDIO use only).
        31:31 ACMD53;
    }

    /// `SDC_ARG`: command argument; write it before `SDC_CMD`.
    SDC_ARG @ Base + 0x38 {}

    /// `SDC_STS`: command and data state machine status.
    SDC_STS @ Base + 0x3C {
        /// The SD controller is busy (data transfer or R1b busy).
        0:0 SDCBUSY;
        /// The command line is busy.
        1:1 CMDBUSY;
        /// SPM resource release (MT8189).
        3:3 SPM_RESOURCE_RELEASE;
        /// Software reset complete.
        31:31 SWR_COMPL;
    }

    /// `SDC_RESP0`: response bits 39:8 of a short response, bits 31:0 of a long one.
    SDC_RESP0 @ Base + 0x40 {}

    /// `SDC_RESP1`: long response bits 63:32.
    SDC_RESP1 @ Base + 0x44 {}

    /// `SDC_RESP2`: long response bits 95:64.
    SDC_RESP2 @ Base + 0x48 {}

    /// `SDC_RESP3`: long response bits 127:96.
    SDC_RESP3 @ Base + 0x4C {}

    /// `SDC_BLK_NUM`: number of blocks of the next data transfer.
    SDC_BLK_NUM @ Base + 0x50 {}

    /// `SDC_ADV_CFG0`: advanced SD configuration.
    SDC_ADV_CFG0 @ Base + 0x64 {
        /// Detect SDIO interrupts on DAT1.
        19:19 DAT1_IRQ_TRIGGER;
        /// Enhanced receive path (SoCs without a top region).
        20:20 RX_ENHANCE_EN;
        /// New transmit path enable; must be toggled 0 then 1 (MT8196).
        31:31 NEW_TX_EN;
    }

    /// `MSDC_NEW_RX_CFG`: new receive path configuration (MT8196).
    MSDC_NEW_RX_CFG @ Base + 0x68 {
        /// New receive path select; must be toggled 0 then 1.
        0:0 NEW_RX_PATH_SEL;
    }

    /// `EMMC_IOCON`: eMMC specific pad control.
    EMMC_IOCON @ Base + 0x7C {
        /// Drives the eMMC `RST_n` line low while set (card hardware reset).
        0:0 BOOTRST;
    }

    /// `SDC_ACMD_RESP`: response of the automatic command (auto-CMD23 or auto-CMD12).
    SDC_ACMD_RESP @ Base + 0x80 {}

    /// `DMA_SA_H4BIT`: bits 35:32 of the DMA start address (36-bit DMA SoCs).
    DMA_SA_H4BIT @ Base + 0x8C {
        /// Start address bits 35:32.
        3:0 ADDR_HIGH_4BIT;
    }

    /// `MSDC_DMA_SA`: DMA start address bits 31:0 (the first GPD in descriptor mode).
    MSDC_DMA_SA @ Base + 0x90 {}

    /// `MSDC_DMA_CA`: address the DMA engine is currently working on (read-only).
    MSDC_DMA_CA @ Base + 0x94 {}

    /// `MSDC_DMA_CTRL`: DMA start/stop and mode.
    MSDC_DMA_CTRL @ Base + 0x98 {
        /// Start the DMA (write-only).
        0:0 START;
        /// Stop the DMA; reads back 1 until stopped.
        1:1 STOP;
        /// Resume the DMA (write-only).
        2:2 RESUME;
        /// DMA mode: 1 = descriptor (GPD/BD) mode, 0 = basic mode.
        8:8 MODE;
        /// Last buffer (basic mode).
        10:10 LASTBUF;
        /// Burst size as a power of two in bytes; 6 = 64 bytes ([`DMA_BURST_64B`]).
        14:12 BRUSTSZ;
    }

    /// `MSDC_DMA_CFG`: DMA configuration and status.
    MSDC_DMA_CFG @ Base + 0x9C {
        /// The DMA is active (read-only).
        0:0 STS;
        /// Descriptor checksum checking enable.
        1:1 DECSEN;
        /// AHB protection bit 2.
        9:9 AHBHPROT2;
        /// Active enable.
        13:13 ACTIVEEN;
        /// Descriptor checksum span select (12 or 16 bytes); upstream leaves the reset
        /// value and checksums 16 bytes, which the hardware accepts.
        16:16 CS12B16B;
    }

    /// `MSDC_DBG_SEL`: debug bus select.
    MSDC_DBG_SEL @ Base + 0xA0 {}

    /// `MSDC_DBG_OUT`: debug bus value (read-only).
    MSDC_DBG_OUT @ Base + 0xA4 {}

    /// `MSDC_DMA_LENGTH`: transfer length in basic DMA mode.
    MSDC_DMA_LENGTH @ Base + 0xA8 {}

    /// `MSDC_PATCH_BIT0` (`MSDC_PATCH_BIT` in the upstream driver): controller fix-ups.
    MSDC_PATCH_BIT0 @ Base + 0xB0 {
        /// Odd-length support for the 8-bit data bus.
        1:1 ODDSUPP;
        /// Disable the SD command register write monitor.
        2:2 DIS_WRMON;
        /// Read data select.
        3:3 RD_DAT_SEL;
        /// Raise transfer done only after the GPD has been updated.
        6:6 DESCUP_SEL;
        /// Internal data latch clock select (tuning).
        9:7 INT_DAT_LATCH_CK_SEL;
        /// Clock generator delay stages.
        14:10 CKGEN_MSDC_DLY_SEL;
        /// I/O data sample select.
        16:16 IODSSEL;
        /// I/O interrupt select.
        17:17 IOINTSEL;
        /// R1b busy detection delay in bus clocks.
        21:18 BUSYDLY;
        /// Write data output delay.
        25:22 WDOD;
        /// Idle return select.
        26:26 IDRTSEL;
        /// Command FIFO select.
        27:27 CMDFSEL;
        /// Interrupt delay select.
        28:28 INTDLSEL;
        /// SPC push.
        29:29 SPCPUSH;
        /// CRC phase timeout for data writes.
        30:30 DECRCTMO;
    }

    /// `MSDC_PATCH_BIT1`: turnaround times and clock feature enables.
    MSDC_PATCH_BIT1 @ Base + 0xB4 {
        /// Write data to CRC status turnaround counter.
        2:0 WRDAT_CRC_TACNTR;
        /// Command to response turnaround.
        5:3 CMDTA;
        /// Controller-side R1b busy check; upstream sets it for command queueing and on
        /// SoCs without the `busy_check` property.
        7:7 BUSY_CHECK_SEL;
        /// Stop-clock delay.
        11:8 STOP_DLY;
        /// DDR command fix.
        14:14 DDR_CMD_FIX_SEL;
        /// Single AXI burst only.
        16:16 SINGLE_BURST;
        /// Reserved; upstream sets both bits at initialisation.
        18:17 RSVD20;
        /// Automatic sync state clear.
        19:19 AUTO_SYNCST_CLR;
        /// Mark FIFO pop watermark.
        20:20 MARK_POP_WATER;
        /// Low-power DCM enable.
        21:21 LP_DCM_EN;
        /// Reserved; upstream sets it at initialisation.
        22:22 RSVD3;
        /// Run the GDMA from HCLK.
        23:23 AHB_GDMA_HCLK;
        /// Clock gating feature enables (all set in practice).
        31:24 MSDC_CLK_ENFEAT;
    }

    /// `MSDC_PATCH_BIT2`: response and CRC status paths.
    MSDC_PATCH_BIT2 @ Base + 0xB8 {
        /// 36-bit DMA addressing enable.
        1:1 SUPPORT_64G;
        /// Command response timeout: 65 + 16 * value bus clocks.
        3:2 RESPWAIT;
        /// Command response path select (clear = async FIFO).
        15:15 CFGRESP;
        /// Response status enable delay select.
        18:16 RESPSTSENSEL;
        /// FIFO pop enable count.
        23:20 POP_EN_CNT;
        /// CRC status sampling edge.
        25:25 CFGCRCSTSEDGE;
        /// CRC status path select (set = async FIFO).
        28:28 CFGCRCSTS;
        /// CRC status enable delay select.
        31:29 CRCSTSENSEL;
    }

    /// `MSDC_PAD_TUNE`: pad delay tuning; SoCs without a top region keep this layout at
    /// `0xEC` (`MSDC_PAD_TUNE`) or at [`MSDC_PAD_TUNE::TUNE0_OFFSET`] (`MSDC_PAD_TUNE0`).
    MSDC_PAD_TUNE @ Base + 0xEC {
        /// Write data delay.
        4:0 DATWRDLY;
        /// Read data delay.
        12:8 DATRRDLY;
        /// Use the read data delay.
        13:13 RD_SEL;
        /// Receive delay select (clock tuning instead of data tuning).
        15:15 RXDLYSEL;
        /// Command response delay.
        20:16 CMDRDLY;
        /// Use the command response delay.
        21:21 CMD_SEL;
        /// Internal command response delay.
        26:22 CMDRRDLY;
        /// Clock transmit delay.
        31:27 CLKTDLY;
    }

    /// `MSDC_PAD_TUNE1`: second delay line, used when the tuning step exceeds 32.
    MSDC_PAD_TUNE1 @ Base + 0xF4 {
        /// Second read data delay.
        12:8 DATRRDLY2;
        /// Use the second read data delay.
        13:13 RD2_SEL;
        /// Second command response delay.
        20:16 CMDRDLY2;
        /// Use the second command response delay.
        21:21 CMD2_SEL;
    }

    /// `MSDC_DAT_RDDLY0`: per-line read delays for DAT3..DAT0.
    MSDC_DAT_RDDLY0 @ Base + 0xF8 {
        /// DAT3 read delay.
        4:0 D3;
        /// DAT2 read delay.
        12:8 D2;
        /// DAT1 read delay.
        20:16 D1;
        /// DAT0 read delay.
        28:24 D0;
    }

    /// `MSDC_DAT_RDDLY1`: per-line read delays for DAT7..DAT4.
    MSDC_DAT_RDDLY1 @ Base + 0xFC {
        /// DAT7 read delay.
        4:0 D7;
        /// DAT6 read delay.
        12:8 D6;
        /// DAT5 read delay.
        20:16 D5;
        /// DAT4 read delay.
        28:24 D4;
    }

    /// `MSDC_HW_DBG`: hardware debug select (layout differs between generations).
    MSDC_HW_DBG @ Base + 0x110 {}

    /// `MSDC_VERSION`: IP version (read-only).
    MSDC_VERSION @ Base + 0x114 {}

    /// `PAD_DS_TUNE`: HS400 data strobe delays (SoCs without a top region).
    PAD_DS_TUNE @ Base + 0x188 {
        /// Use the data strobe delays.
        0:0 DLY_SEL;
        /// Use the second data strobe delay.
        1:1 DLY2_SEL;
        /// First data strobe delay.
        6:2 DLY1;
        /// Second data strobe delay.
        11:7 DLY2;
        /// Third data strobe delay.
        16:12 DLY3;
    }

    /// `PAD_CMD_TUNE`: eMMC 5.0 command pad delays.
    PAD_CMD_TUNE @ Base + 0x18C {
        /// Select the eMMC 5.0 command pad tuning.
        0:0 DLY3SEL;
        /// Command receive delay.
        5:1 RX_DLY3;
        /// Command transmit delay.
        10:6 TX_DLY;
    }

    /// `EMMC51_CFG0`: eMMC 5.1 command queue configuration.
    EMMC51_CFG0 @ Base + 0x204 {
        /// Read data count for command queueing.
        21:12 CMDQ_RDAT_CNT;
    }

    /// `EMMC50_CFG0`: eMMC 5.0 configuration.
    EMMC50_CFG0 @ Base + 0x208 {
        /// Latch the command pad on the internal clock.
        0:0 PADCMD_LATCHCK;
        /// CRC status sampling edge.
        3:3 CRCSTS_EDGE;
        /// CRC status select.
        4:4 CFCSTS_SEL;
        /// Command response select.
        9:9 CMD_RESP_SEL;
    }

    /// `EMMC50_CFG1`: eMMC 5.0 configuration, continued.
    EMMC50_CFG1 @ Base + 0x20C {
        /// Data strobe configuration.
        28:28 DS_CFG;
    }

    /// `EMMC50_CFG2`: AXI configuration.
    EMMC50_CFG2 @ Base + 0x21C {
        /// AXI burst length; zero means single bursts only.
        27:24 AXI_SET_LEN;
    }

    /// `EMMC50_CFG3`: outstanding AXI transactions.
    EMMC50_CFG3 @ Base + 0x220 {
        /// Outstanding write transactions.
        4:0 OUTS_WR;
    }

    /// `SDC_FIFO_CFG`: FIFO valid-signal selection.
    SDC_FIFO_CFG @ Base + 0x228 {
        /// Write valid select.
        24:24 WRVALIDSEL;
        /// Read valid select.
        25:25 RDVALIDSEL;
    }

    /// `CQHCI_SETTING`: command windows for the command queue engine.
    CQHCI_SETTING @ Base + 0x7FC {
        /// Read command window select.
        14:14 RD_CMD_WND_SEL;
        /// Write command window select.
        15:15 WR_CMD_WND_SEL;
    }

    /// `EMMC_TOP_CONTROL` (top region): data pad delays.
    EMMC_TOP_CONTROL @ Top + 0x00 {
        /// Receive delay select (clock tuning).
        0:0 PAD_RXDLY_SEL;
        /// Delay line enable.
        1:1 DELAY_EN;
        /// Second data read delay.
        6:2 PAD_DAT_RD_RXDLY2;
        /// Data read delay.
        11:7 PAD_DAT_RD_RXDLY;
        /// Use the second data read delay.
        12:12 PAD_DAT_RD_RXDLY2_SEL;
        /// Use the data read delay.
        13:13 PAD_DAT_RD_RXDLY_SEL;
        /// Data K value select.
        14:14 DATA_K_VALUE_SEL;
        /// Enhanced receive path.
        15:15 SDC_RX_ENH_EN;
    }

    /// `EMMC_TOP_CMD` (top region): command pad delays.
    EMMC_TOP_CMD @ Top + 0x04 {
        /// Second command receive delay.
        4:0 PAD_CMD_RXDLY2;
        /// Command receive delay.
        9:5 PAD_CMD_RXDLY;
        /// Use the second command receive delay.
        10:10 PAD_CMD_RD_RXDLY2_SEL;
        /// Use the command receive delay.
        11:11 PAD_CMD_RD_RXDLY_SEL;
        /// Command transmit delay.
        16:12 PAD_CMD_TX_DLY;
    }

    /// `EMMC50_PAD_DS_TUNE` (top region): HS400 data strobe delays.
    EMMC50_PAD_DS_TUNE @ Top + 0x0C {
        /// Third data strobe delay.
        4:0 PAD_DS_DLY3;
        /// First data strobe delay.
        14:10 PAD_DS_DLY1;
        /// Use the second data strobe delay.
        15:15 PAD_DS_DLY2_SEL;
        /// Use the data strobe delays.
        16:16 PAD_DS_DLY_SEL;
    }

    /// `LOOP_TEST_CONTROL` (top region): loopback clock muxes of the new transmit path.
    LOOP_TEST_CONTROL @ Top + 0x30 {
        /// Data strobe clock loop mux.
        0:0 TEST_LOOP_DSCLK_MUX_SEL;
        /// Latch loop mux.
        1:1 TEST_LOOP_LATCH_MUX_SEL;
        /// Loop clock enable, for SDR50, SDR104, HS200 and HS400.
        20:20 LOOP_EN_SEL_CLK;
        /// HS400 command loop mux.
        31:31 TEST_HS400_CMD_LOOP_MUX_SEL;
    }
}

impl MSDC_PAD_TUNE {
    /// Where SoCs with a 12-bit divider keep this layout (`MSDC_PAD_TUNE0`).
    pub const TUNE0_OFFSET: usize = 0xF0;
}

/// `MSDC_DMA_CTRL.BRUSTSZ` value for 64-byte bursts.
pub const DMA_BURST_64B: u32 = 6;

/// Value of `MSDC_CFG.CKMOD`/`CKMOD_EXTRA`: how the card clock derives from the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockMode {
    /// Divided single data rate clock.
    Divided = 0,
    /// The source clock undivided.
    Undivided = 1,
    /// Divided double data rate clock (DDR50, DDR52).
    Ddr = 2,
    /// HS400 double data rate clock.
    Hs400 = 3,
}

impl ClockMode {
    /// The `CKMOD` field value.
    pub const fn field_value(self) -> u32 {
        self as u32
    }

    /// Decodes a `CKMOD` field value.
    pub const fn from_field(value: u32) -> Option<Self> {
        match value {
            0 => Some(Self::Divided),
            1 => Some(Self::Undivided),
            2 => Some(Self::Ddr),
            3 => Some(Self::Hs400),
            _ => None,
        }
    }

    /// Whether data moves on both clock edges, which doubles the timeout counters.
    pub const fn is_double_data_rate(self) -> bool {
        matches!(self, Self::Ddr | Self::Hs400)
    }
}

/// Value of `SDC_CFG.BUSWIDTH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusWidth {
    /// One data line.
    One = 0,
    /// Four data lines.
    Four = 1,
    /// Eight data lines.
    Eight = 2,
}

impl BusWidth {
    /// Maps the MMC core's `MMC_BUS_WIDTH_*` value (0, 2, 3); anything else is one line, as
    /// every card supports it.
    pub const fn from_mmc(bus_width: u32) -> Self {
        match bus_width {
            2 => Self::Four,
            3 => Self::Eight,
            _ => Self::One,
        }
    }

    /// The `BUSWIDTH` field value.
    pub const fn field_value(self) -> u32 {
        self as u32
    }
}

/// Bits of `MSDC_INT` (pending, write 1 to clear) and `MSDC_INTEN` (enables).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct InterruptSet(u32);

impl InterruptSet {
    /// SD/MMC interrupt (legacy).
    pub const MMCIRQ: Self = Self(1 << 0);
    /// Card-detect status changed.
    pub const CDSC: Self = Self(1 << 1);
    /// The automatic command got its response.
    pub const ACMDRDY: Self = Self(1 << 3);
    /// The automatic command timed out.
    pub const ACMDTMO: Self = Self(1 << 4);
    /// The automatic command's response failed its CRC.
    pub const ACMDCRCERR: Self = Self(1 << 5);
    /// The DMA queue ran empty.
    pub const DMAQ_EMPTY: Self = Self(1 << 6);
    /// SDIO card interrupt.
    pub const SDIOIRQ: Self = Self(1 << 7);
    /// The command got its response.
    pub const CMDRDY: Self = Self(1 << 8);
    /// The command timed out.
    pub const CMDTMO: Self = Self(1 << 9);
    /// The command's response failed its CRC.
    pub const RSPCRCERR: Self = Self(1 << 10);
    /// Card status (read-only).
    pub const CSTA: Self = Self(1 << 11);
    /// The data transfer, including the DMA, completed.
    pub const XFER_COMPL: Self = Self(1 << 12);
    /// The data moved over the bus (the DMA may still be running).
    pub const DXFER_DONE: Self = Self(1 << 13);
    /// The data phase timed out.
    pub const DATTMO: Self = Self(1 << 14);
    /// A data block failed its CRC.
    pub const DATCRCERR: Self = Self(1 << 15);
    /// Automatic CMD19 done.
    pub const ACMD19_DONE: Self = Self(1 << 16);
    /// A buffer descriptor failed its checksum.
    pub const DMA_BDCSERR: Self = Self(1 << 17);
    /// A general-purpose descriptor failed its checksum.
    pub const DMA_GPDCSERR: Self = Self(1 << 18);
    /// The DMA hit a protected address.
    pub const DMA_PROTECT: Self = Self(1 << 19);
    /// The command queue engine (CQHCI) raised an interrupt.
    pub const CMDQ: Self = Self(1 << 28);

    /// Every bit defined above.
    pub const ALL: Self = Self(
        Self::MMCIRQ.0
            | Self::CDSC.0
            | Self::ACMDRDY.0
            | Self::ACMDTMO.0
            | Self::ACMDCRCERR.0
            | Self::DMAQ_EMPTY.0
            | Self::SDIOIRQ.0
            | Self::CMDRDY.0
            | Self::CMDTMO.0
            | Self::RSPCRCERR.0
            | Self::CSTA.0
            | Self::XFER_COMPL.0
            | Self::DXFER_DONE.0
            | Self::DATTMO.0
            | Self::DATCRCERR.0
            | Self::ACMD19_DONE.0
            | Self::DMA_BDCSERR.0
            | Self::DMA_GPDCSERR.0
            | Self::DMA_PROTECT.0
            | Self::CMDQ.0,
    );

    /// No bit set.
    pub const fn empty() -> Self {
        Self(0)
    }

    /// Keeps every bit of a raw register value, including undefined ones.
    pub const fn from_bits_retain(bits: u32) -> Self {
        Self(bits)
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every bit of `other` is set here.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any bit of `other` is set here.
    pub const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// Bits set in either.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Bits set in both.
    pub const fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// Bits set here but not in `other`.
    pub const fn difference(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// The events of a raw `MSDC_INT` read that are enabled in a raw `MSDC_INTEN` read; the
    /// interrupt handler acknowledges exactly these.
    pub const fn pending_enabled(int: MSDC_INT, inten: MSDC_INTEN) -> Self {
        Self(int.raw() & inten.raw())
    }

    /// The `MSDC_INTEN` value enabling exactly these interrupts.
    pub const fn as_enable(self) -> MSDC_INTEN {
        MSDC_INTEN::from_raw(self.0)
    }

    /// The `MSDC_INT` value that acknowledges exactly these events.
    pub const fn as_acknowledge(self) -> MSDC_INT {
        MSDC_INT::from_raw(self.0)
    }
}

impl fmt::Debug for InterruptSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InterruptSet({:#010x})", self.0)
    }
}

impl BitOr for InterruptSet {
    type Output = Self;

    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

impl BitOrAssign for InterruptSet {
    fn bitor_assign(&mut self, rhs: Self) {
        *self = self.union(rhs);
    }
}

impl BitAnd for InterruptSet {
    type Output = Self;

    fn bitand(self, rhs: Self) -> Self {
        self.intersection(rhs)
    }
}

impl BitAndAssign for InterruptSet {
    fn bitand_assign(&mut self, rhs: Self) {
        *self = self.intersection(rhs);
    }
}

impl Sub for InterruptSet {
    type Output = Self;

    fn sub(self, rhs: Self) -> Self {
        self.difference(rhs)
    }
}

/// The main MSDC register window (device tree `reg` index 0).
pub struct MsdcBase;

impl crate::registers::Window for MsdcBase {
    const NAME: &'static str = "msdc";
}

/// The optional "top" pad-control window (device tree `reg` index 1) of newer SoCs.
pub struct MsdcTop;

impl crate::registers::Window for MsdcTop {
    const NAME: &'static str = "top";
}
