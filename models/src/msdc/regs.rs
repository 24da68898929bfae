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
    /// The command queue engine's command windows (upstream `CQHCI_SETTING`, just below
    /// the CQHCI block): `RD_CMD_WND_SEL` bit 14 and `WR_CMD_WND_SEL` bit 15, which
    /// enhanced strobe clears. Plain storage; the model's queue engine does not use them.
    pub CQHCI_SETTING(u32) @ MsdcBase + 0x7FC {}
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

    /// I/O configuration: the clock edges that sample the response, the read data and the
    /// write CRC status.
    pub MSDC_IOCON(u32) @ MsdcBase + 0x04 {
        /// SDR104 clock select (stored).
        0:0 sdr104cks => bool;
        /// The response is sampled on the falling edge (clear: rising).
        1:1 rspl => bool;
        /// Read data is sampled on the falling edge (clear: rising); not on SoCs with the
        /// new receive path ([`ModelConfig::new_rx`](super::ModelConfig::new_rx)).
        2:2 dspl => bool;
        /// Per-line data edges (`D0SPL`..`D7SPL`) instead of `DSPL` (stored, not modelled).
        3:3 ddlsel => bool;
        /// DDR50 clock delay (stored).
        4:4 ddr50ckd => bool;
        /// Data edge select (stored).
        5:5 dsplsel => bool;
        /// The write CRC status is sampled on the falling edge (clear: rising); not with
        /// the new receive path.
        8:8 w_dspl => bool;
        /// Per-line data edges `D0SPL`..`D7SPL` (stored, not modelled).
        23:16 dnspl;
        /// RISC size (stored).
        25:24 riscsz;
    }

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

    /// Advanced configuration 0.
    pub SDC_ADV_CFG0(u32) @ MsdcBase + 0x64 {
        /// DAT1 interrupt detection: mtk-sd.c sets it with SDIO mode and clears it when
        /// the host takes no SDIO cards; the model detects no SDIO interrupt without it.
        19:19 dat1_irq_trigger => bool;
        /// Receive enhancement (stored).
        20:20 rx_enhance_en => bool;
        /// The new transmit path (7.x SoCs; stored).
        31:31 new_tx_en => bool;
    }

    /// New receive path configuration (7.x SoCs).
    pub MSDC_NEW_RX_CFG(u32) @ MsdcBase + 0x68 {
        /// Select the new receive path (stored; the SoC's path is
        /// [`ModelConfig::new_rx`](super::ModelConfig::new_rx)).
        0:0 new_rx_path_sel => bool;
    }

    /// eMMC I/O configuration: the card's hardware reset line.
    pub EMMC_IOCON(u32) @ MsdcBase + 0x7C {
        /// Drive the eMMC hardware reset (`RST_n` asserted while set); mtk-sd.c's
        /// `msdc_hw_reset` sets bit 0, waits 10 µs and clears it, without naming it.
        0:0 hw_rst => bool;
    }

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

    /// Patch bits: of which the model reads the read data edge of the new receive path.
    pub MSDC_PATCH_BIT(u32) @ MsdcBase + 0xB0 {
        /// Read data sampled on the falling edge, on SoCs with the new receive path.
        3:3 rd_dat_sel => bool;
        /// Internal data latch clock selection (stored).
        9:7 int_dat_latch_ck_sel;
    }

    /// Patch bits 1; plain storage in the model.
    pub MSDC_PATCH_BIT1(u32) @ MsdcBase + 0xB4 {}

    /// Patch bits 2: the 36-bit DMA switch and the CRC status edge of the new receive path.
    pub MSDC_PATCH_BIT2(u32) @ MsdcBase + 0xB8 {
        /// 36-bit descriptors and 24-bit BD lengths.
        1:1 support_64g => bool;
        /// Write CRC status sampled on the falling edge, on SoCs with the new receive path.
        25:25 cfgcrcstsedge => bool;
        /// CRC status configuration (stored; mtk-sd.c clears it for HS400).
        28:28 cfgcrcsts => bool;
    }

    /// Pad tuning of the SoCs whose `pad_tune_reg` is 0xEC (MT8173, MT8135, MT6795,
    /// MT7620): the fields of [`PAD_TUNE_CELLS`]; the second cells are the next register.
    pub MSDC_PAD_TUNE(u32) @ MsdcBase + 0xEC {}

    /// Pad tuning of the SoCs whose `pad_tune_reg` is 0xF0 (MT8183 family and most others):
    /// the fields of [`PAD_TUNE_CELLS`] (or, on a 0xEC SoC, the second cells,
    /// [`PAD_TUNE2_CELLS`]).
    pub MSDC_PAD_TUNE0(u32) @ MsdcBase + 0xF0 {}

    /// The second delay cells of a 0xF0 SoC: the fields of [`PAD_TUNE2_CELLS`].
    pub MSDC_PAD_TUNE1(u32) @ MsdcBase + 0xF4 {}

    /// Data strobe pad tuning of SoCs without the top window (HS400 read data and CRC
    /// status).
    pub PAD_DS_TUNE(u32) @ MsdcBase + 0x188 {
        /// The strobe goes through the `DLY1` cells.
        0:0 dly_sel => bool;
        /// The strobe also goes through the `DLY2` cells (not modelled).
        1:1 dly2_sel => bool;
        /// First strobe delay, in cells.
        6:2 dly1;
        /// Second strobe delay (not modelled).
        11:7 dly2;
        /// Third strobe delay (from the device tree; not modelled).
        16:12 dly3;
    }

    /// Command pad tuning (HS400 command delay of `hs400_tune` SoCs; stored, not modelled).
    pub PAD_CMD_TUNE(u32) @ MsdcBase + 0x18C {
        /// HS400 response delay.
        5:1 rx_dly3;
    }

    /// eMMC 5.1 configuration 0; plain storage in the model.
    pub EMMC51_CFG0(u32) @ MsdcBase + 0x204 {}

    /// eMMC 5.0 configuration 0: of which the model reads whether the data strobe latches
    /// the response (enhanced strobe).
    pub EMMC50_CFG0(u32) @ MsdcBase + 0x208 {
        /// Latch the command pad with the strobe (stored).
        0:0 padcmd_latchck => bool;
        /// CRC status edge (stored).
        3:3 crcsts_edge => bool;
        /// CRC status select (stored).
        4:4 cfcsts_sel => bool;
        /// The data strobe samples the response (HS400 enhanced strobe).
        9:9 cmd_resp_sel => bool;
    }

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

register! {
    /// The fields of a pad tune register (`MSDC_PAD_TUNE` or `MSDC_PAD_TUNE0`, whichever
    /// the SoC has): the first delay cells of the read data and the response, as
    /// `msdc_set_data_delay` and `msdc_set_cmd_delay` program them below 32.
    pub PAD_TUNE_CELLS(u32) {
        /// Write data delay (stored).
        4:0 datwrdly;
        /// Read data (and CRC status) delay, in cells.
        12:8 datrrdly;
        /// The read data goes through the `DATRRDLY` cells.
        13:13 rd_sel => bool;
        /// Clock tuning (SoCs without `data_tune`): both lines go through their first cells.
        15:15 rxdlysel => bool;
        /// Response delay, in cells.
        20:16 cmdrdly;
        /// The response goes through the `CMDRDLY` cells.
        21:21 cmd_sel => bool;
        /// Internal response delay (stored, not modelled).
        26:22 cmdrrdly;
        /// Clock delay (stored).
        31:27 clktdly;
    }

    /// The fields of the register after the pad tune register (`+4`): the second delay
    /// cells, which `msdc_set_*_delay` fill with the delay above 31.
    pub PAD_TUNE2_CELLS(u32) {
        /// Second read data delay, in cells.
        12:8 datrrdly2;
        /// The read data also goes through the `DATRRDLY2` cells.
        13:13 rd2_sel => bool;
        /// Second response delay, in cells.
        20:16 cmdrdly2;
        /// The response also goes through the `CMDRDLY2` cells.
        21:21 cmd2_sel => bool;
    }
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
    pub EMMC_TOP_CONTROL(u32) @ MsdcTop + 0x00 {
        /// Clock tuning (SoCs without `data_tune`): both lines go through their first cells.
        0:0 pad_rxdly_sel => bool;
        /// Second read data delay, in cells.
        6:2 pad_dat_rd_rxdly2;
        /// First read data delay, in cells.
        11:7 pad_dat_rd_rxdly;
        /// The read data also goes through the `PAD_DAT_RD_RXDLY2` cells.
        12:12 pad_dat_rd_rxdly2_sel => bool;
        /// The read data goes through the `PAD_DAT_RD_RXDLY` cells.
        13:13 pad_dat_rd_rxdly_sel => bool;
        /// Data K value select (stored; mtk-sd.c clears it).
        14:14 data_k_value_sel => bool;
        /// Receive enhancement (stored).
        15:15 sdc_rx_enh_en => bool;
    }
}

register! {
    /// Pad control of the command line: the response sample delays (`EMMC_TOP_CMD`).
    pub EMMC_TOP_CMD(u32) @ MsdcTop + 0x04 {
        /// Second response delay, in cells.
        4:0 pad_cmd_rxdly2;
        /// First response delay, in cells.
        9:5 pad_cmd_rxdly;
        /// The response also goes through the `PAD_CMD_RXDLY2` cells.
        10:10 pad_cmd_rd_rxdly2_sel => bool;
        /// The response goes through the `PAD_CMD_RXDLY` cells.
        11:11 pad_cmd_rd_rxdly_sel => bool;
        /// Command transmit delay (stored).
        16:12 pad_cmd_tx_dly;
    }
}

register! {
    /// The HS400 data-strobe delays (`EMMC50_PAD_DS_TUNE`), in the top window's layout.
    pub EMMC50_PAD_DS_TUNE(u32) @ MsdcTop + 0x0C {
        /// Third strobe delay (from the device tree; not modelled).
        4:0 pad_ds_dly3;
        /// First strobe delay, in cells.
        14:10 pad_ds_dly1;
        /// The strobe also goes through the second cells (not modelled).
        15:15 pad_ds_dly2_sel => bool;
        /// The strobe goes through the `PAD_DS_DLY1` cells.
        16:16 pad_ds_dly_sel => bool;
    }
}

register! {
    /// The new TX path's loop and latch selection (`LOOP_TEST_CONTROL`, 7.x SoCs; stored).
    pub LOOP_TEST_CONTROL(u32) @ MsdcTop + 0x30 {
        /// Data strobe clock loop mux.
        0:0 test_loop_dsclk_mux_sel => bool;
        /// Latch loop mux.
        1:1 test_loop_latch_mux_sel => bool;
        /// Loop enable from the clock.
        20:20 loop_en_sel_clk => bool;
        /// HS400 command loop mux.
        31:31 test_hs400_cmd_loop_mux_sel => bool;
    }
}
