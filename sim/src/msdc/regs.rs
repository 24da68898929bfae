// SPDX-License-Identifier: GPL-2.0
//! The MSDC base registers as the model knows them: one typed register per hardware
//! register of the base window, with the names and `HI:LO` fields of the MediaTek register
//! map that `drivers/mmc/host/mtk-sd.c` uses.
//!
//! These are the model's own definitions, independent of the driver's, so that a misread
//! field in the driver shows up against the model instead of being mirrored by it. Only the
//! window type, [`MsdcBase`], is shared with the driver: an offset has one definition on
//! each side, and a test that reaches both through the same window compares them.
//!
//! Field types carry the encodings the model decodes ([`ClockMode`], [`BusWidth`],
//! [`DataType`], [`ResponseType`], [`AutoCommand`]); the associated constants name the
//! groups of bits the model treats alike (the bits that exist, or that software can write).

use super::super::windows::{MsdcBase, MsdcTop};

/// Where the CQHCI block's registers start in the base window (mtk-sd.c maps the CQHCI
/// registers at `base + 0x800`).
pub const CQHCI_BASE: usize = 0x800;

/// Size of the CQHCI block's register file (CQVER at 0x00 to CQCRA at 0x5C).
pub const CQHCI_LEN: usize = 0x60;

/// Size of the modelled register window in bytes: the MSDC registers below [`CQHCI_BASE`],
/// then the CQHCI block's (on a controller that has one; without it those offsets are
/// unknown registers like any other).
pub const WINDOW: usize = CQHCI_BASE + CQHCI_LEN;

field_enum! {
    /// How `MSDC_CFG` derives the bus clock from the source clock (`CKMOD`).
    pub enum ClockMode: 2 bits {
        /// Divided by `CKDIV` (source/2 for 0, source/(4 × CKDIV) otherwise).
        Divided = 0,
        /// The source clock passes through undivided.
        Undivided = 1,
        /// Double data rate: divided by `CKDIV` and halved again.
        Ddr = 2,
        /// HS400: as DDR, or source/2 with `HS400_CK_MODE`.
        Hs400 = 3,
    }

    /// Data bus width of `SDC_CFG.BUSWIDTH` (encoding 3 is reserved).
    pub enum BusWidth: 2 bits, partial {
        /// DAT0 only.
        One = 0,
        /// DAT0..DAT3.
        Four = 1,
        /// DAT0..DAT7.
        Eight = 2,
    }

    /// Data phase of a command (`SDC_CMD.DTYPE`).
    pub enum DataType: 2 bits {
        /// No data phase.
        None = 0,
        /// One block.
        Single = 1,
        /// `SDC_BLK_NUM` blocks.
        Multiple = 2,
        /// A stream (MMC only).
        Stream = 3,
    }

    /// Response the controller expects (`SDC_CMD.RSPTYP`; codes 4 to 6 are undefined).
    pub enum ResponseType: 3 bits, partial {
        /// No response.
        None = 0,
        /// R1, R5, R6 or R7: 48 bits with CRC.
        R1 = 1,
        /// R2: 136 bits.
        R2 = 2,
        /// R3 or R4: 48 bits without CRC.
        R3 = 3,
        /// R1b: R1, then busy on DAT0.
        R1b = 7,
    }

    /// Command the controller sends on its own around a data command (`SDC_CMD.AUTOCMD`;
    /// code 3 is reserved).
    pub enum AutoCommand: 2 bits, partial {
        /// None.
        None = 0,
        /// CMD12 after the data.
        Cmd12 = 1,
        /// CMD23 with `SDC_BLK_NUM` before the command.
        Cmd23 = 2,
    }
}

impl BusWidth {
    /// The number of data lines.
    pub const fn lines(self) -> u8 {
        match self {
            Self::One => 1,
            Self::Four => 4,
            Self::Eight => 8,
        }
    }
}

register! {
    /// Controller configuration: mode, reset, PIO, clock divider and mode, clock stable.
    pub MSDC_CFG(u32) @ MsdcBase + 0x00 {
        /// MMC/SD mode (set) rather than MS.
        0:0 mode => bool;
        /// The clock runs free instead of being gated between commands.
        1:1 ckpdn => bool;
        /// Controller reset; self-clearing.
        2:2 rst => bool;
        /// PIO (set) instead of DMA.
        3:3 pio => bool;
        /// Clock drive enable.
        4:4 ckdrven => bool;
        /// 1.8 V signal detect.
        5:5 bv18sdt => bool;
        /// 1.8 V pass status (read only).
        6:6 bv18pss => bool;
        /// Clock stable (read only).
        7:7 ckstb => bool;
        /// Clock divider, 8-bit divider layout.
        15:8 ckdiv;
        /// Clock mode, 8-bit divider layout.
        17:16 ckmod => ClockMode;
        /// HS400 at source/2, 8-bit divider layout.
        18:18 hs400_ck_mode => bool;
        /// Clock divider, 12-bit divider layout.
        19:8 ckdiv_extra;
        /// Clock mode, 12-bit divider layout.
        21:20 ckmod_extra => ClockMode;
        /// HS400 at source/2, 12-bit divider layout.
        22:22 hs400_ck_mode_extra => bool;
    }

    /// I/O configuration (sampling edges); plain storage in the model.
    pub MSDC_IOCON(u32) @ MsdcBase + 0x04 {}

    /// Pin status: card detect configuration, and the line levels (read only).
    pub MSDC_PS(u32) @ MsdcBase + 0x08 {
        /// Card detect enable.
        0:0 cden => bool;
        /// Card detect status (read only; clear: a card is present).
        1:1 cdsts => bool;
        /// Card detect debounce.
        15:12 cddebounce;
        /// DAT0..DAT7 levels (read only).
        23:16 dat;
        /// CMD level (read only).
        24:24 cmd => bool;
        /// Write protect level (read only).
        31:31 wp => bool;
    }

    /// Interrupt status: events latch whatever `MSDC_INTEN` says; write 1 to clear.
    pub MSDC_INT(u32) @ MsdcBase + 0x0C {
        /// MMC interrupt.
        0:0 mmcirq => bool;
        /// Card detect state change.
        1:1 cdsc => bool;
        /// Auto command response received.
        3:3 acmdrdy => bool;
        /// Auto command timeout.
        4:4 acmdtmo => bool;
        /// Auto command response CRC error.
        5:5 acmdcrcerr => bool;
        /// DMA queue empty.
        6:6 dmaq_empty => bool;
        /// SDIO interrupt.
        7:7 sdioirq => bool;
        /// Command response received.
        8:8 cmdrdy => bool;
        /// Command timeout.
        9:9 cmdtmo => bool;
        /// Response CRC error.
        10:10 rspcrcerr => bool;
        /// Command status (read only).
        11:11 csta => bool;
        /// Transfer complete.
        12:12 xfer_compl => bool;
        /// Data transfer done.
        13:13 dxfer_done => bool;
        /// Data timeout.
        14:14 dattmo => bool;
        /// Data CRC error.
        15:15 datcrcerr => bool;
        /// Auto CMD19 done.
        16:16 acmd19_done => bool;
        /// BD checksum error.
        17:17 dma_bdcserr => bool;
        /// GPD checksum error.
        18:18 dma_gpdcserr => bool;
        /// DMA protection error (not raised by the model).
        19:19 dma_protect => bool;
        /// Command queue (CQHCI) interrupt.
        28:28 cmdq => bool;
    }

    /// Interrupt enable: one enable per `MSDC_INT` event, at the event's bit, for the events
    /// up to `DMA_PROTECT` (see [`MSDC_INTEN::IMPLEMENTED`]), and `CMDQ` with a CQHCI block.
    pub MSDC_INTEN(u32) @ MsdcBase + 0x10 {}

    /// FIFO control and status.
    pub MSDC_FIFOCS(u32) @ MsdcBase + 0x14 {
        /// Bytes in the receive FIFO (read only).
        7:0 rxcnt;
        /// Bytes in the transmit FIFO (read only).
        23:16 txcnt;
        /// Clear the FIFO; self-clearing.
        31:31 clr => bool;
    }

    /// SD bus configuration: bus width, data timeouts.
    pub SDC_CFG(u32) @ MsdcBase + 0x30 {
        /// SDIO interrupt wake-up.
        0:0 sdiointwkup => bool;
        /// Card insertion wake-up.
        1:1 inswkup => bool;
        /// Write data (busy) timeout; stored, not counted down by the model.
        14:2 wrdtoc;
        /// Data bus width.
        17:16 buswidth ?=> BusWidth;
        /// SDIO mode.
        19:19 sdio => bool;
        /// SDIO interrupt detection enable.
        20:20 sdioide => bool;
        /// Interrupt at block gap.
        21:21 intatgap => bool;
        /// Read data timeout; stored, not counted down by the model.
        31:24 dtoc;
    }

    /// Command register; writing it starts a command.
    pub SDC_CMD(u32) @ MsdcBase + 0x34 {
        /// Command index.
        5:0 opcode;
        /// Break (abort the current command; not modelled).
        6:6 brk => bool;
        /// Expected response: [`ResponseType`] codes.
        9:7 rsptyp;
        /// Data phase.
        12:11 dtype => DataType;
        /// Write (set) or read data phase.
        13:13 rw => bool;
        /// Stop transmission command.
        14:14 stop => bool;
        /// Go-IRQ command (not modelled).
        15:15 goirq => bool;
        /// Block length in bytes.
        27:16 blklen;
        /// Automatic command: [`AutoCommand`] codes.
        29:28 autocmd;
        /// Voltage switch command (CMD11).
        30:30 volswth => bool;
        /// Auto CMD53 (not modelled).
        31:31 acmd53 => bool;
    }

    /// Command argument.
    pub SDC_ARG(u32) @ MsdcBase + 0x38 {}

    /// Bus status.
    pub SDC_STS(u32) @ MsdcBase + 0x3C {
        /// The SD controller is busy: a command with data or busy in progress (read only).
        0:0 sdcbusy => bool;
        /// The command line is busy (read only).
        1:1 cmdbusy => bool;
        /// SPM resource release.
        3:3 spm_resource_release => bool;
        /// Software reset complete.
        31:31 swr_compl => bool;
    }

    /// Response word 0 (bits 31:0 of a short response, the least significant of an R2).
    pub SDC_RESP0(u32) @ MsdcBase + 0x40 {}

    /// Response word 1.
    pub SDC_RESP1(u32) @ MsdcBase + 0x44 {}

    /// Response word 2.
    pub SDC_RESP2(u32) @ MsdcBase + 0x48 {}

    /// Response word 3 (the most significant of an R2).
    pub SDC_RESP3(u32) @ MsdcBase + 0x4C {}

    /// Number of blocks of the data phase (and the auto-CMD23 argument).
    pub SDC_BLK_NUM(u32) @ MsdcBase + 0x50 {}

    /// Advanced configuration 0; plain storage in the model.
    pub SDC_ADV_CFG0(u32) @ MsdcBase + 0x64 {}

    /// New receive path configuration; plain storage in the model.
    pub MSDC_NEW_RX_CFG(u32) @ MsdcBase + 0x68 {}

    /// eMMC I/O configuration; plain storage in the model.
    pub EMMC_IOCON(u32) @ MsdcBase + 0x7C {}

    /// Response of the automatic command (auto-CMD23 or auto-CMD12).
    pub SDC_ACMD_RESP(u32) @ MsdcBase + 0x80 {}

    /// DMA start address, high bits (with 36-bit DMA).
    pub DMA_SA_H4BIT(u32) @ MsdcBase + 0x8C {
        /// Address bits 35:32.
        3:0 dma_addr_high_4bit;
    }

    /// DMA start address bits 31:0 (the first GPD in descriptor mode).
    pub MSDC_DMA_SA(u32) @ MsdcBase + 0x90 {}

    /// DMA control.
    pub MSDC_DMA_CTRL(u32) @ MsdcBase + 0x98 {
        /// Start the DMA (write only).
        0:0 start => bool;
        /// Stop the DMA (self-clearing).
        1:1 stop => bool;
        /// Resume (write only; not modelled).
        2:2 resume => bool;
        /// Descriptor mode (set) rather than basic.
        8:8 mode => bool;
        /// Last buffer (basic mode).
        10:10 lastbuf => bool;
        /// Burst size.
        14:12 brustsz;
    }

    /// DMA configuration.
    pub MSDC_DMA_CFG(u32) @ MsdcBase + 0x9C {
        /// The DMA is active (read only).
        0:0 sts => bool;
        /// Descriptor checksum check enable.
        1:1 decsen => bool;
        /// AHB HPROT2.
        9:9 ahbhprot2 => bool;
        /// Active enable.
        13:13 activeen => bool;
        /// Checksum over 16 bytes (set) rather than 12.
        16:16 cs12b16b => bool;
    }

    /// Patch bits; plain storage in the model.
    pub MSDC_PATCH_BIT(u32) @ MsdcBase + 0xB0 {}

    /// Patch bits 1; plain storage in the model.
    pub MSDC_PATCH_BIT1(u32) @ MsdcBase + 0xB4 {}

    /// Patch bits 2; plain storage, of which the model reads `SUPPORT_64G`.
    pub MSDC_PATCH_BIT2(u32) @ MsdcBase + 0xB8 {
        /// 36-bit descriptors and 24-bit BD lengths.
        1:1 support_64g => bool;
    }

    /// Pad tuning (older SoCs); plain storage in the model.
    pub MSDC_PAD_TUNE(u32) @ MsdcBase + 0xEC {}

    /// Pad tuning (SoCs with the eMMC 5.0 layout); plain storage in the model.
    pub MSDC_PAD_TUNE0(u32) @ MsdcBase + 0xF0 {}

    /// Second pad tuning register of the eMMC 5.0 layout; plain storage in the model.
    pub MSDC_PAD_TUNE1(u32) @ MsdcBase + 0xF4 {}

    /// Data strobe pad tuning; plain storage in the model.
    pub PAD_DS_TUNE(u32) @ MsdcBase + 0x188 {}

    /// Command pad tuning; plain storage in the model.
    pub PAD_CMD_TUNE(u32) @ MsdcBase + 0x18C {}

    /// eMMC 5.1 configuration 0; plain storage in the model.
    pub EMMC51_CFG0(u32) @ MsdcBase + 0x204 {}

    /// eMMC 5.0 configuration 0; plain storage in the model.
    pub EMMC50_CFG0(u32) @ MsdcBase + 0x208 {}

    /// eMMC 5.0 configuration 1; plain storage in the model.
    pub EMMC50_CFG1(u32) @ MsdcBase + 0x20C {}

    /// eMMC 5.0 configuration 2; plain storage in the model.
    pub EMMC50_CFG2(u32) @ MsdcBase + 0x21C {}

    /// eMMC 5.0 configuration 3; plain storage in the model.
    pub EMMC50_CFG3(u32) @ MsdcBase + 0x220 {}

    /// FIFO valid-signal selection (mtk-sd.c `SDC_FIFO_CFG`: write valid select bit 24,
    /// read valid select bit 25); plain storage in the model.
    pub SDC_FIFO_CFG(u32) @ MsdcBase + 0x228 {}
}

impl MSDC_PS {
    /// The fields software can write: card detect enable and debounce.
    pub const WRITABLE: Self = Self::zeroed()
        .with_cden(true)
        .with_const_cddebounce::<0xF>();

    /// Every data line and the command line high: the idle bus.
    pub const LINES_IDLE: Self = Self::zeroed().with_const_dat::<0xFF>().with_cmd(true);
}

impl MSDC_INTEN {
    /// The enables that exist: one for every `MSDC_INT` event from `MMCIRQ` to
    /// `DMA_PROTECT` (`CMDQ` has one only with a CQHCI block, [`MSDC_INTEN::WITH_CQHCI`]).
    pub const IMPLEMENTED: Self = Self::from_raw(
        MSDC_INT::zeroed()
            .with_mmcirq(true)
            .with_cdsc(true)
            .with_acmdrdy(true)
            .with_acmdtmo(true)
            .with_acmdcrcerr(true)
            .with_dmaq_empty(true)
            .with_sdioirq(true)
            .with_cmdrdy(true)
            .with_cmdtmo(true)
            .with_rspcrcerr(true)
            .with_csta(true)
            .with_xfer_compl(true)
            .with_dxfer_done(true)
            .with_dattmo(true)
            .with_datcrcerr(true)
            .with_acmd19_done(true)
            .with_dma_bdcserr(true)
            .with_dma_gpdcserr(true)
            .with_dma_protect(true)
            .raw(),
    );

    /// The enables of a controller with a CQHCI block: [`MSDC_INTEN::IMPLEMENTED`] and
    /// `CMDQ` (mtk-sd.c's `msdc_cqe_enable` writes `MSDC_INT_CMDQ` to `MSDC_INTEN`).
    pub const WITH_CQHCI: Self =
        Self::from_raw(Self::IMPLEMENTED.raw() | MSDC_INT::zeroed().with_cmdq(true).raw());
}

impl SDC_CMD {
    /// The bits the model does not implement: BRK, GOIRQ and ACMD53.
    pub const UNMODELLED: Self = Self::zeroed()
        .with_brk(true)
        .with_goirq(true)
        .with_acmd53(true);
}

impl DMA_SA_H4BIT {
    /// The bits that exist.
    pub const IMPLEMENTED: Self = Self::zeroed().with_const_dma_addr_high_4bit::<0xF>();
}

/// Where the "top" window (device tree `reg[1]`, SoCs with `needs_top_base`) starts in the
/// model's register space: after the base window, which it does not overlap.
pub const TOP_BASE: usize = 0x1000;

/// Size of the modelled top window in bytes.
pub const TOP_LEN: usize = 0x100;

register! {
    /// Pad control of the data lines: the read-data sample delays (upstream
    /// `EMMC_TOP_CONTROL`).
    pub EMMC_TOP_CONTROL(u32) @ MsdcTop + 0x00 {}
}

register! {
    /// Pad control of the command line: the response sample delays (`EMMC_TOP_CMD`).
    pub EMMC_TOP_CMD(u32) @ MsdcTop + 0x04 {}
}

register! {
    /// The HS400 data-strobe delays (`EMMC50_PAD_DS_TUNE`).
    pub EMMC50_PAD_DS_TUNE(u32) @ MsdcTop + 0x0C {}
}

register! {
    /// The new TX path's loop and latch selection (`LOOP_TEST_CONTROL`, 7.x SoCs).
    pub LOOP_TEST_CONTROL(u32) @ MsdcTop + 0x30 {}
}
