// SPDX-License-Identifier: GPL-2.0

//! Register map of the MediaTek MSDC controller, so that every bit position is named once.
//!
//! Each hardware register is one [`register!`] type, located in its window ([`MsdcBase`],
//! the device tree's `reg[0]`, or [`MsdcTop`], `reg[1]`), with one field per documented
//! field, declared as `HI:LO` exactly like the datasheet tables. Code elsewhere builds
//! register values through the generated getters and `with_*` setters instead of shifting
//! by hand, and reaches the hardware through [`Io`] of the window.
//!
//! Names follow the MediaTek datasheet spelling used by the upstream C driver; fields are
//! lower snake case, as in the kernel's `register!`. Registers that the upstream driver never
//! touches (`MSDC_TXDATA`, `MSDC_DMA_CA`, the debug and read-delay registers,
//! `MSDC_VERSION`) use the layout of the eMMC 5.0 generation, the one that has
//! `MSDC_PAD_TUNE0` at `0xF0`; older SoCs placed some of them elsewhere.
//!
//! `MSDC_INT` and `MSDC_INTEN` share one bit layout; [`InterruptSet`] names sets of its
//! bits for the request engine.

use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Sub};

use super::command::ResponseType;
use crate::registers::{FieldValue, Io, PartialFieldValue};

/// Byte offset of the CQHCI register block (the `cqhci` crate's `CqhciBlock` window) inside
/// the [`MsdcBase`] window: both live in the device tree's `reg[0]`.
pub const CQHCI_BLOCK_OFFSET: usize = 0x800;

/// Implements [`PartialFieldValue`] for an enum whose discriminants are the `WIDTH`-bit
/// encodings of a field and lists every variant; encodings without a variant are reserved.
macro_rules! discriminant_encoding {
    ($type:ident: $width:literal, [$($variant:ident),+ $(,)?]) => {
        impl PartialFieldValue for $type {
            const WIDTH: u32 = $width;

            fn into_bits(self) -> u64 {
                // Naming every variant here keeps the list complete.
                match self {
                    $(Self::$variant)|+ => self as u64,
                }
            }

            fn try_from_bits(bits: u64) -> Option<Self> {
                [$(Self::$variant),+]
                    .into_iter()
                    .find(|variant| *variant as u64 == bits)
            }
        }
    };
}

/// Declares registers that share one field list, each at its own location, so that the
/// layouts cannot drift apart: the field list in braces, then `NAME @ Window + offset;` per
/// register, each with its own doc comment.
macro_rules! shared_layout {
    ($fields:tt) => {};
    ($fields:tt $(#[$attr:meta])* $name:ident @ $window:ident + $offset:literal; $($rest:tt)*) => {
        register! {
            $(#[$attr])*
            pub $name(u32) @ $window + $offset $fields
        }
        shared_layout!($fields $($rest)*);
    };
}

register! {
    /// `MSDC_CFG`: controller mode, reset, clock source divider and clock gating.
    pub MSDC_CFG(u32) @ MsdcBase + 0x00 {
        /// Card interface mode; 1 selects MMC/SD (the only mode this driver uses).
        0:0 mode => bool;
        /// Bus clock free-running enable; clearing it stops the card clock.
        1:1 ckpdn => bool;
        /// Controller soft reset; self-clearing when the reset is done.
        2:2 rst => bool;
        /// PIO mode; the driver always clears it to move data by DMA.
        3:3 pio => bool;
        /// Clock driving enable.
        4:4 ckdrven => bool;
        /// 1.8 V signalling enable.
        5:5 bv18sdt => bool;
        /// 1.8 V signalling pass status (read-only).
        6:6 bv18pss => bool;
        /// Card clock stable after a divider change (read-only).
        7:7 ckstb => bool;
        /// Clock divider on SoCs with an 8-bit divider.
        15:8 ckdiv;
        /// Clock mode on SoCs with an 8-bit divider (see the clock module).
        17:16 ckmod => ClockMode;
        /// HS400 clock at half the source rate, on SoCs with an 8-bit divider.
        18:18 hs400_ck_mode => bool;
        /// Clock divider on SoCs with a 12-bit divider.
        19:8 ckdiv_extra;
        /// Clock mode on SoCs with a 12-bit divider.
        21:20 ckmod_extra => ClockMode;
        /// HS400 clock at half the source rate, on SoCs with a 12-bit divider.
        22:22 hs400_ck_mode_extra => bool;
    }

    /// `MSDC_IOCON`: sampling edges and data-line delay selection.
    pub MSDC_IOCON(u32) @ MsdcBase + 0x04 {
        /// SDR104 clock source select.
        0:0 sdr104cks => bool;
        /// Command response sampling edge (1 = falling).
        1:1 rspl => bool;
        /// Read data sampling edge (1 = falling).
        2:2 dspl => bool;
        /// Per-line data delay select.
        3:3 ddlsel => bool;
        /// DDR50 clock delay.
        4:4 ddr50ckd => bool;
        /// Per-line read data sampling edge select.
        5:5 dsplsel => bool;
        /// Write data sampling edge.
        8:8 w_dspl => bool;
        /// DAT0 sampling edge.
        16:16 d0spl => bool;
        /// DAT1 sampling edge.
        17:17 d1spl => bool;
        /// DAT2 sampling edge.
        18:18 d2spl => bool;
        /// DAT3 sampling edge.
        19:19 d3spl => bool;
        /// DAT4 sampling edge.
        20:20 d4spl => bool;
        /// DAT5 sampling edge.
        21:21 d5spl => bool;
        /// DAT6 sampling edge.
        22:22 d6spl => bool;
        /// DAT7 sampling edge.
        23:23 d7spl => bool;
        /// RISC access size.
        25:24 riscsz;
    }

    /// `MSDC_PS`: pin status and the internal card-detect logic.
    pub MSDC_PS(u32) @ MsdcBase + 0x08 {
        /// Internal card-detect enable.
        0:0 cden => bool;
        /// Card-detect pin level (read-only).
        1:1 cdsts => bool;
        /// Card-detect debounce time.
        15:12 cddebounce;
        /// DAT7..DAT0 pin levels (read-only).
        23:16 dat;
        /// DAT0 pin level; low while the card signals busy (read-only).
        16:16 dat0 => bool;
        /// DAT1 pin level; low while an SDIO card signals an interrupt (read-only).
        17:17 data1 => bool;
        /// CMD pin level (read-only).
        24:24 cmd => bool;
        /// Write-protect pin level (read-only).
        31:31 wp => bool;
    }

    /// `MSDC_FIFOCS`: FIFO fill levels and FIFO clear.
    pub MSDC_FIFOCS(u32) @ MsdcBase + 0x14 {
        /// Bytes waiting in the receive FIFO (read-only).
        7:0 rxcnt;
        /// Bytes waiting in the transmit FIFO (read-only).
        23:16 txcnt;
        /// Clear both FIFOs; self-clearing.
        31:31 clr => bool;
    }

    /// `MSDC_TXDATA`: transmit FIFO data port (PIO only).
    pub MSDC_TXDATA(u32) @ MsdcBase + 0x18 {}

    /// `MSDC_RXDATA`: receive FIFO data port (PIO only).
    pub MSDC_RXDATA(u32) @ MsdcBase + 0x1C {}

    /// `SDC_CFG`: SD bus configuration and timeouts.
    pub SDC_CFG(u32) @ MsdcBase + 0x30 {
        /// Wake up on an SDIO interrupt.
        0:0 sdiointwkup => bool;
        /// Wake up on card insertion.
        1:1 inswkup => bool;
        /// Write data / busy timeout in units of 2^20 bus clocks, plus one.
        14:2 wrdtoc;
        /// Bus width.
        17:16 buswidth ?=> BusWidth;
        /// SDIO mode enable.
        19:19 sdio => bool;
        /// SDIO interrupt detection enable.
        20:20 sdioide => bool;
        /// SDIO interrupt detection at block gaps.
        21:21 intatgap => bool;
        /// Read data timeout in units of 2^20 bus clocks, plus one.
        31:24 dtoc;
    }

    /// `SDC_CMD`: writing it issues a command; the layout is built by the command module.
    pub SDC_CMD(u32) @ MsdcBase + 0x34 {
        /// Command index.
        5:0 opc;
        /// Break (abort) the ongoing stream transfer.
        6:6 brk => bool;
        /// Response type; R1b reads back as [`ResponseType::R1b`], whether its CRC is checked
        /// or not (the hardware checks it either way).
        9:7 rsptyp ?=> ResponseType;
        /// Data transfer type; `None` (0) for a command without data.
        12:11 dtype ?=> TransferMode;
        /// Data direction: 1 writes to the card.
        13:13 rw => bool;
        /// The command stops a data transfer (CMD12).
        14:14 stop => bool;
        /// The command is CMD40 (GO_IRQ_STATE): the response may come at any later time.
        15:15 goirq => bool;
        /// Block length in bytes.
        27:16 blklen;
        /// Automatic command; 3, CMD19, is vendor use only and reads back as `None`.
        29:28 autocmd ?=> AutoCommand;
        /// The command is CMD11 (voltage switch): the hardware runs the switch sequence.
        30:30 volswth => bool;
        /// Automatic CMD53 (vendor SDIO use only).
        31:31 acmd53 => bool;
    }

    /// `SDC_ARG`: command argument; write it before `SDC_CMD`.
    pub SDC_ARG(u32) @ MsdcBase + 0x38 {}

    /// `SDC_STS`: command and data state machine status.
    pub SDC_STS(u32) @ MsdcBase + 0x3C {
        /// The SD controller is busy (data transfer or R1b busy).
        0:0 sdcbusy => bool;
        /// The command line is busy.
        1:1 cmdbusy => bool;
        /// SPM resource release (MT8189).
        3:3 spm_resource_release => bool;
        /// Software reset complete.
        31:31 swr_compl => bool;
    }

    /// `SDC_RESP0`: response bits 39:8 of a short response, bits 31:0 of a long one.
    pub SDC_RESP0(u32) @ MsdcBase + 0x40 {}

    /// `SDC_RESP1`: long response bits 63:32.
    pub SDC_RESP1(u32) @ MsdcBase + 0x44 {}

    /// `SDC_RESP2`: long response bits 95:64.
    pub SDC_RESP2(u32) @ MsdcBase + 0x48 {}

    /// `SDC_RESP3`: long response bits 127:96.
    pub SDC_RESP3(u32) @ MsdcBase + 0x4C {}

    /// `SDC_BLK_NUM`: number of blocks of the next data transfer.
    pub SDC_BLK_NUM(u32) @ MsdcBase + 0x50 {}

    /// `SDC_ADV_CFG0`: advanced SD configuration.
    pub SDC_ADV_CFG0(u32) @ MsdcBase + 0x64 {
        /// Detect SDIO interrupts on DAT1.
        19:19 dat1_irq_trigger => bool;
        /// Enhanced receive path (SoCs without a top region).
        20:20 rx_enhance_en => bool;
        /// New transmit path enable; must be toggled 0 then 1 (MT8196).
        31:31 new_tx_en => bool;
    }

    /// `MSDC_NEW_RX_CFG`: new receive path configuration (MT8196).
    pub MSDC_NEW_RX_CFG(u32) @ MsdcBase + 0x68 {
        /// New receive path select; must be toggled 0 then 1.
        0:0 new_rx_path_sel => bool;
    }

    /// `EMMC_IOCON`: eMMC specific pad control.
    pub EMMC_IOCON(u32) @ MsdcBase + 0x7C {
        /// Drives the eMMC `RST_n` line low while set (card hardware reset).
        0:0 bootrst => bool;
    }

    /// `SDC_ACMD_RESP`: response of the automatic command (auto-CMD23 or auto-CMD12).
    pub SDC_ACMD_RESP(u32) @ MsdcBase + 0x80 {}

    /// `DMA_SA_H4BIT`: bits 35:32 of the DMA start address (36-bit DMA SoCs).
    pub DMA_SA_H4BIT(u32) @ MsdcBase + 0x8C {
        /// Start address bits 35:32.
        3:0 addr_high_4bit;
    }

    /// `MSDC_DMA_SA`: DMA start address bits 31:0 (the first GPD in descriptor mode).
    pub MSDC_DMA_SA(u32) @ MsdcBase + 0x90 {}

    /// `MSDC_DMA_CA`: address the DMA engine is currently working on (read-only).
    pub MSDC_DMA_CA(u32) @ MsdcBase + 0x94 {}

    /// `MSDC_DMA_CTRL`: DMA start/stop and mode.
    pub MSDC_DMA_CTRL(u32) @ MsdcBase + 0x98 {
        /// Start the DMA (write-only).
        0:0 start => bool;
        /// Stop the DMA; reads back 1 until stopped.
        1:1 stop => bool;
        /// Resume the DMA (write-only).
        2:2 resume => bool;
        /// DMA mode: 1 = descriptor (GPD/BD) mode, 0 = basic mode.
        8:8 mode => bool;
        /// Last buffer (basic mode).
        10:10 lastbuf => bool;
        /// Burst size as a power of two in bytes; 6 = 64 bytes ([`DMA_BURST_64B`]).
        14:12 brustsz;
    }

    /// `MSDC_DMA_CFG`: DMA configuration and status.
    pub MSDC_DMA_CFG(u32) @ MsdcBase + 0x9C {
        /// The DMA is active (read-only).
        0:0 sts => bool;
        /// Descriptor checksum checking enable.
        1:1 decsen => bool;
        /// AHB protection bit 2.
        9:9 ahbhprot2 => bool;
        /// Active enable.
        13:13 activeen => bool;
        /// Descriptor checksum span select (12 or 16 bytes); upstream leaves the reset
        /// value and checksums 16 bytes, which the hardware accepts.
        16:16 cs12b16b => bool;
    }

    /// `MSDC_DBG_SEL`: debug bus select.
    pub MSDC_DBG_SEL(u32) @ MsdcBase + 0xA0 {}

    /// `MSDC_DBG_OUT`: debug bus value (read-only).
    pub MSDC_DBG_OUT(u32) @ MsdcBase + 0xA4 {}

    /// `MSDC_DMA_LENGTH`: transfer length in basic DMA mode.
    pub MSDC_DMA_LENGTH(u32) @ MsdcBase + 0xA8 {}

    /// `MSDC_PATCH_BIT0` (`MSDC_PATCH_BIT` in the upstream driver): controller fix-ups.
    pub MSDC_PATCH_BIT0(u32) @ MsdcBase + 0xB0 {
        /// Odd-length support for the 8-bit data bus.
        1:1 oddsupp => bool;
        /// Disable the SD command register write monitor.
        2:2 dis_wrmon => bool;
        /// Read data select.
        3:3 rd_dat_sel => bool;
        /// Raise transfer done only after the GPD has been updated.
        6:6 descup_sel => bool;
        /// Internal data latch clock select (tuning).
        9:7 int_dat_latch_ck_sel;
        /// Clock generator delay stages.
        14:10 ckgen_msdc_dly_sel;
        /// I/O data sample select.
        16:16 iodssel => bool;
        /// I/O interrupt select.
        17:17 iointsel => bool;
        /// R1b busy detection delay in bus clocks.
        21:18 busydly;
        /// Write data output delay.
        25:22 wdod;
        /// Idle return select.
        26:26 idrtsel => bool;
        /// Command FIFO select.
        27:27 cmdfsel => bool;
        /// Interrupt delay select.
        28:28 intdlsel => bool;
        /// SPC push.
        29:29 spcpush => bool;
        /// CRC phase timeout for data writes.
        30:30 decrctmo => bool;
    }

    /// `MSDC_PATCH_BIT1`: turnaround times and clock feature enables.
    pub MSDC_PATCH_BIT1(u32) @ MsdcBase + 0xB4 {
        /// Write data to CRC status turnaround counter.
        2:0 wrdat_crc_tacntr;
        /// Command to response turnaround.
        5:3 cmdta;
        /// Controller-side R1b busy check; upstream sets it for command queueing and on
        /// SoCs without the `busy_check` property.
        7:7 busy_check_sel => bool;
        /// Stop-clock delay.
        11:8 stop_dly;
        /// DDR command fix.
        14:14 ddr_cmd_fix_sel => bool;
        /// Single AXI burst only.
        16:16 single_burst => bool;
        /// Reserved; upstream sets both bits at initialisation.
        18:17 rsvd20 => bool;
        /// Automatic sync state clear.
        19:19 auto_syncst_clr => bool;
        /// Mark FIFO pop watermark.
        20:20 mark_pop_water => bool;
        /// Low-power DCM enable.
        21:21 lp_dcm_en => bool;
        /// Reserved; upstream sets it at initialisation.
        22:22 rsvd3 => bool;
        /// Run the GDMA from HCLK.
        23:23 ahb_gdma_hclk => bool;
        /// Clock gating feature enables, set or cleared together (all set in practice).
        31:24 msdc_clk_enfeat => bool;
    }

    /// `MSDC_PATCH_BIT2`: response and CRC status paths.
    pub MSDC_PATCH_BIT2(u32) @ MsdcBase + 0xB8 {
        /// 36-bit DMA addressing enable.
        1:1 support_64g => bool;
        /// Command response timeout: 65 + 16 * value bus clocks.
        3:2 respwait;
        /// Command response path select (clear = async FIFO).
        15:15 cfgresp => bool;
        /// Response status enable delay select.
        18:16 respstsensel;
        /// FIFO pop enable count.
        23:20 pop_en_cnt;
        /// CRC status sampling edge.
        25:25 cfgcrcstsedge => bool;
        /// CRC status path select (set = async FIFO).
        28:28 cfgcrcsts => bool;
        /// CRC status enable delay select.
        31:29 crcstsensel;
    }

    /// `MSDC_PAD_TUNE1`: second delay line, used when the tuning step exceeds 32.
    pub MSDC_PAD_TUNE1(u32) @ MsdcBase + 0xF4 {
        /// Second read data delay.
        12:8 datrrdly2;
        /// Use the second read data delay.
        13:13 rd2_sel => bool;
        /// Second command response delay.
        20:16 cmdrdly2;
        /// Use the second command response delay.
        21:21 cmd2_sel => bool;
    }

    /// `MSDC_DAT_RDDLY0`: per-line read delays for DAT3..DAT0.
    pub MSDC_DAT_RDDLY0(u32) @ MsdcBase + 0xF8 {
        /// DAT3 read delay.
        4:0 d3;
        /// DAT2 read delay.
        12:8 d2;
        /// DAT1 read delay.
        20:16 d1;
        /// DAT0 read delay.
        28:24 d0;
    }

    /// `MSDC_DAT_RDDLY1`: per-line read delays for DAT7..DAT4.
    pub MSDC_DAT_RDDLY1(u32) @ MsdcBase + 0xFC {
        /// DAT7 read delay.
        4:0 d7;
        /// DAT6 read delay.
        12:8 d6;
        /// DAT5 read delay.
        20:16 d5;
        /// DAT4 read delay.
        28:24 d4;
    }

    /// `MSDC_HW_DBG`: hardware debug select (layout differs between generations).
    pub MSDC_HW_DBG(u32) @ MsdcBase + 0x110 {}

    /// `MSDC_VERSION`: IP version (read-only).
    pub MSDC_VERSION(u32) @ MsdcBase + 0x114 {}

    /// `PAD_DS_TUNE`: HS400 data strobe delays (SoCs without a top region).
    pub PAD_DS_TUNE(u32) @ MsdcBase + 0x188 {
        /// Use the data strobe delays.
        0:0 dly_sel => bool;
        /// Use the second data strobe delay.
        1:1 dly2_sel => bool;
        /// First data strobe delay.
        6:2 dly1;
        /// Second data strobe delay.
        11:7 dly2;
        /// Third data strobe delay.
        16:12 dly3;
    }

    /// `PAD_CMD_TUNE`: eMMC 5.0 command pad delays.
    pub PAD_CMD_TUNE(u32) @ MsdcBase + 0x18C {
        /// Select the eMMC 5.0 command pad tuning.
        0:0 dly3sel => bool;
        /// Command receive delay.
        5:1 rx_dly3;
        /// Command transmit delay.
        10:6 tx_dly;
    }

    /// `EMMC51_CFG0`: eMMC 5.1 command queue configuration.
    pub EMMC51_CFG0(u32) @ MsdcBase + 0x204 {
        /// Read data count for command queueing.
        21:12 cmdq_rdat_cnt;
    }

    /// `EMMC50_CFG0`: eMMC 5.0 configuration.
    pub EMMC50_CFG0(u32) @ MsdcBase + 0x208 {
        /// Latch the command pad on the internal clock.
        0:0 padcmd_latchck => bool;
        /// CRC status sampling edge.
        3:3 crcsts_edge => bool;
        /// CRC status select.
        4:4 cfcsts_sel => bool;
        /// Command response select.
        9:9 cmd_resp_sel => bool;
    }

    /// `EMMC50_CFG1`: eMMC 5.0 configuration, continued.
    pub EMMC50_CFG1(u32) @ MsdcBase + 0x20C {
        /// Data strobe configuration.
        28:28 ds_cfg => bool;
    }

    /// `EMMC50_CFG2`: AXI configuration.
    pub EMMC50_CFG2(u32) @ MsdcBase + 0x21C {
        /// AXI burst length; zero means single bursts only.
        27:24 axi_set_len;
    }

    /// `EMMC50_CFG3`: outstanding AXI transactions.
    pub EMMC50_CFG3(u32) @ MsdcBase + 0x220 {
        /// Outstanding write transactions.
        4:0 outs_wr;
    }

    /// `SDC_FIFO_CFG`: FIFO valid-signal selection.
    pub SDC_FIFO_CFG(u32) @ MsdcBase + 0x228 {
        /// Write valid select.
        24:24 wrvalidsel => bool;
        /// Read valid select.
        25:25 rdvalidsel => bool;
    }

    /// `CQHCI_SETTING`: command windows for the command queue engine.
    pub CQHCI_SETTING(u32) @ MsdcBase + 0x7FC {
        /// Read command window select.
        14:14 rd_cmd_wnd_sel => bool;
        /// Write command window select.
        15:15 wr_cmd_wnd_sel => bool;
    }

    /// `EMMC_TOP_CONTROL` (top region): data pad delays.
    pub EMMC_TOP_CONTROL(u32) @ MsdcTop + 0x00 {
        /// Receive delay select (clock tuning).
        0:0 pad_rxdly_sel => bool;
        /// Delay line enable.
        1:1 delay_en => bool;
        /// Second data read delay.
        6:2 pad_dat_rd_rxdly2;
        /// Data read delay.
        11:7 pad_dat_rd_rxdly;
        /// Use the second data read delay.
        12:12 pad_dat_rd_rxdly2_sel => bool;
        /// Use the data read delay.
        13:13 pad_dat_rd_rxdly_sel => bool;
        /// Data K value select.
        14:14 data_k_value_sel => bool;
        /// Enhanced receive path.
        15:15 sdc_rx_enh_en => bool;
    }

    /// `EMMC_TOP_CMD` (top region): command pad delays.
    pub EMMC_TOP_CMD(u32) @ MsdcTop + 0x04 {
        /// Second command receive delay.
        4:0 pad_cmd_rxdly2;
        /// Command receive delay.
        9:5 pad_cmd_rxdly;
        /// Use the second command receive delay.
        10:10 pad_cmd_rd_rxdly2_sel => bool;
        /// Use the command receive delay.
        11:11 pad_cmd_rd_rxdly_sel => bool;
        /// Command transmit delay.
        16:12 pad_cmd_tx_dly;
    }

    /// `EMMC50_PAD_DS_TUNE` (top region): HS400 data strobe delays.
    pub EMMC50_PAD_DS_TUNE(u32) @ MsdcTop + 0x0C {
        /// Third data strobe delay.
        4:0 pad_ds_dly3;
        /// First data strobe delay.
        14:10 pad_ds_dly1;
        /// Use the second data strobe delay.
        15:15 pad_ds_dly2_sel => bool;
        /// Use the data strobe delays.
        16:16 pad_ds_dly_sel => bool;
    }

    /// `LOOP_TEST_CONTROL` (top region): loopback clock muxes of the new transmit path.
    pub LOOP_TEST_CONTROL(u32) @ MsdcTop + 0x30 {
        /// Data strobe clock loop mux.
        0:0 test_loop_dsclk_mux_sel => bool;
        /// Latch loop mux.
        1:1 test_loop_latch_mux_sel => bool;
        /// Loop clock enable, for SDR50, SDR104, HS200 and HS400.
        20:20 loop_en_sel_clk => bool;
        /// HS400 command loop mux.
        31:31 test_hs400_cmd_loop_mux_sel => bool;
    }
}

shared_layout! {
    {
        /// SD/MMC interrupt (legacy).
        0:0 mmcirq => bool;
        /// Card-detect status changed.
        1:1 cdsc => bool;
        /// The automatic command got its response.
        3:3 acmdrdy => bool;
        /// The automatic command timed out.
        4:4 acmdtmo => bool;
        /// The automatic command's response failed its CRC.
        5:5 acmdcrcerr => bool;
        /// The DMA queue ran empty.
        6:6 dmaq_empty => bool;
        /// SDIO card interrupt.
        7:7 sdioirq => bool;
        /// The command got its response.
        8:8 cmdrdy => bool;
        /// The command timed out.
        9:9 cmdtmo => bool;
        /// The command's response failed its CRC.
        10:10 rspcrcerr => bool;
        /// Card status (read-only).
        11:11 csta => bool;
        /// The data transfer, including the DMA, completed.
        12:12 xfer_compl => bool;
        /// The data moved over the bus (the DMA may still be running).
        13:13 dxfer_done => bool;
        /// The data phase timed out.
        14:14 dattmo => bool;
        /// A data block failed its CRC.
        15:15 datcrcerr => bool;
        /// Automatic CMD19 done.
        16:16 acmd19_done => bool;
        /// A buffer descriptor failed its checksum.
        17:17 dma_bdcserr => bool;
        /// A general-purpose descriptor failed its checksum.
        18:18 dma_gpdcserr => bool;
        /// The DMA hit a protected address.
        19:19 dma_protect => bool;
        /// The command queue engine (CQHCI) raised an interrupt.
        28:28 cmdq => bool;
    }

    /// `MSDC_INT`: pending interrupt events, write 1 to clear.
    MSDC_INT @ MsdcBase + 0x0C;

    /// `MSDC_INTEN`: interrupt enables, one per event of [`MSDC_INT`].
    MSDC_INTEN @ MsdcBase + 0x10;
}

shared_layout! {
    {
        /// Write data delay.
        4:0 datwrdly;
        /// Read data delay.
        12:8 datrrdly;
        /// Use the read data delay.
        13:13 rd_sel => bool;
        /// Receive delay select (clock tuning instead of data tuning).
        15:15 rxdlysel => bool;
        /// Command response delay.
        20:16 cmdrdly;
        /// Use the command response delay.
        21:21 cmd_sel => bool;
        /// Internal command response delay.
        26:22 cmdrrdly;
        /// Clock transmit delay.
        31:27 clktdly;
    }

    /// `MSDC_PAD_TUNE`: pad delay tuning, at `0xEC` on SoCs with an 8-bit clock divider and
    /// no top region.
    MSDC_PAD_TUNE @ MsdcBase + 0xEC;

    /// `MSDC_PAD_TUNE0`: the same pad delay tuning, moved to `0xF0` on SoCs with a 12-bit
    /// clock divider and no top region. Which of the two a SoC has is per-SoC data.
    MSDC_PAD_TUNE0 @ MsdcBase + 0xF0;
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
    /// Whether data moves on both clock edges, which doubles the timeout counters.
    pub const fn is_double_data_rate(self) -> bool {
        matches!(self, Self::Ddr | Self::Hs400)
    }
}

impl FieldValue for ClockMode {
    const WIDTH: u32 = 2;

    fn into_bits(self) -> u64 {
        self as u64
    }

    fn from_bits(bits: u64) -> Self {
        match bits {
            0 => Self::Divided,
            1 => Self::Undivided,
            2 => Self::Ddr,
            _ => Self::Hs400,
        }
    }
}

/// Value of `SDC_CFG.BUSWIDTH`; the fourth encoding is reserved.
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
}

discriminant_encoding!(BusWidth: 2, [One, Four, Eight]);

/// `SDC_CMD.DTYPE`: how the data phase is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferMode {
    /// One block.
    SingleBlock = 1,
    /// Several blocks, ended by CMD12 or bounded by CMD23.
    MultiBlock = 2,
    /// An unframed MMC stream (CMD11/CMD20 of old MMC cards); not used by Linux.
    Stream = 3,
}

// 0 is a command without data: it reads back as `None`.
discriminant_encoding!(TransferMode: 2, [SingleBlock, MultiBlock, Stream]);

/// `SDC_CMD.AUTOCMD`: a command the controller sends by itself around the data phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoCommand {
    /// No automatic command.
    None = 0,
    /// CMD12 after the data, ending an open-ended multiple block transfer.
    Cmd12 = 1,
    /// CMD23 before the command, with the block count taken from `SDC_BLK_NUM`.
    Cmd23 = 2,
}

// 3, the vendor's automatic CMD19, reads back as `None`.
discriminant_encoding!(AutoCommand: 2, [None, Cmd12, Cmd23]);

/// A set of `MSDC_INT` events (pending, write 1 to clear) or `MSDC_INTEN` enables, which
/// share one layout. The constants take their bits from the register's fields.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct InterruptSet(u32);

/// The event of `set_one` alone; `set_one` sets one field of a clear `MSDC_INT`.
const fn event(set_one: MSDC_INT) -> InterruptSet {
    InterruptSet(set_one.raw())
}

/// No event, the start of every single-event constant.
const NO_EVENT: MSDC_INT = MSDC_INT::zeroed();

impl InterruptSet {
    /// [`MSDC_INT::mmcirq`]: SD/MMC interrupt (legacy).
    pub const MMCIRQ: Self = event(NO_EVENT.with_mmcirq(true));
    /// [`MSDC_INT::cdsc`]: card-detect status changed.
    pub const CDSC: Self = event(NO_EVENT.with_cdsc(true));
    /// [`MSDC_INT::acmdrdy`]: the automatic command got its response.
    pub const ACMDRDY: Self = event(NO_EVENT.with_acmdrdy(true));
    /// [`MSDC_INT::acmdtmo`]: the automatic command timed out.
    pub const ACMDTMO: Self = event(NO_EVENT.with_acmdtmo(true));
    /// [`MSDC_INT::acmdcrcerr`]: the automatic command's response failed its CRC.
    pub const ACMDCRCERR: Self = event(NO_EVENT.with_acmdcrcerr(true));
    /// [`MSDC_INT::dmaq_empty`]: the DMA queue ran empty.
    pub const DMAQ_EMPTY: Self = event(NO_EVENT.with_dmaq_empty(true));
    /// [`MSDC_INT::sdioirq`]: SDIO card interrupt.
    pub const SDIOIRQ: Self = event(NO_EVENT.with_sdioirq(true));
    /// [`MSDC_INT::cmdrdy`]: the command got its response.
    pub const CMDRDY: Self = event(NO_EVENT.with_cmdrdy(true));
    /// [`MSDC_INT::cmdtmo`]: the command timed out.
    pub const CMDTMO: Self = event(NO_EVENT.with_cmdtmo(true));
    /// [`MSDC_INT::rspcrcerr`]: the command's response failed its CRC.
    pub const RSPCRCERR: Self = event(NO_EVENT.with_rspcrcerr(true));
    /// [`MSDC_INT::csta`]: card status (read-only).
    pub const CSTA: Self = event(NO_EVENT.with_csta(true));
    /// [`MSDC_INT::xfer_compl`]: the data transfer, including the DMA, completed.
    pub const XFER_COMPL: Self = event(NO_EVENT.with_xfer_compl(true));
    /// [`MSDC_INT::dxfer_done`]: the data moved over the bus (the DMA may still run).
    pub const DXFER_DONE: Self = event(NO_EVENT.with_dxfer_done(true));
    /// [`MSDC_INT::dattmo`]: the data phase timed out.
    pub const DATTMO: Self = event(NO_EVENT.with_dattmo(true));
    /// [`MSDC_INT::datcrcerr`]: a data block failed its CRC.
    pub const DATCRCERR: Self = event(NO_EVENT.with_datcrcerr(true));
    /// [`MSDC_INT::acmd19_done`]: automatic CMD19 done.
    pub const ACMD19_DONE: Self = event(NO_EVENT.with_acmd19_done(true));
    /// [`MSDC_INT::dma_bdcserr`]: a buffer descriptor failed its checksum.
    pub const DMA_BDCSERR: Self = event(NO_EVENT.with_dma_bdcserr(true));
    /// [`MSDC_INT::dma_gpdcserr`]: a general-purpose descriptor failed its checksum.
    pub const DMA_GPDCSERR: Self = event(NO_EVENT.with_dma_gpdcserr(true));
    /// [`MSDC_INT::dma_protect`]: the DMA hit a protected address.
    pub const DMA_PROTECT: Self = event(NO_EVENT.with_dma_protect(true));
    /// [`MSDC_INT::cmdq`]: the command queue engine (CQHCI) raised an interrupt.
    pub const CMDQ: Self = event(NO_EVENT.with_cmdq(true));

    /// Every bit defined above.
    pub const ALL: Self = Self::MMCIRQ
        .union(Self::CDSC)
        .union(Self::ACMDRDY)
        .union(Self::ACMDTMO)
        .union(Self::ACMDCRCERR)
        .union(Self::DMAQ_EMPTY)
        .union(Self::SDIOIRQ)
        .union(Self::CMDRDY)
        .union(Self::CMDTMO)
        .union(Self::RSPCRCERR)
        .union(Self::CSTA)
        .union(Self::XFER_COMPL)
        .union(Self::DXFER_DONE)
        .union(Self::DATTMO)
        .union(Self::DATCRCERR)
        .union(Self::ACMD19_DONE)
        .union(Self::DMA_BDCSERR)
        .union(Self::DMA_GPDCSERR)
        .union(Self::DMA_PROTECT)
        .union(Self::CMDQ);

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

    /// The events of an `MSDC_INT` read that are enabled in an `MSDC_INTEN` read; the
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

/// Access to both windows of one controller, for the code that may reach the top window.
///
/// The glue implements it for every controller, also on SoCs without a top region: the
/// controller touches [`MsdcTop`] only when the SoC's
/// [`needs_top_base`](super::soc::SocData::needs_top_base) says the window exists (Linux
/// 7.3 maps `reg[1]` only then, and refuses a device tree without it).
pub trait MsdcRegs: Io<MsdcBase> + Io<MsdcTop> {}

impl<T: Io<MsdcBase> + Io<MsdcTop> + ?Sized> MsdcRegs for T {}
