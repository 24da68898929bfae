// SPDX-License-Identifier: GPL-2.0
//! MSDC base register offsets and bit fields as the model knows them (from the MSDC
//! register map; independent of the driver's definitions).

/// Controller configuration: mode, reset, PIO, clock divider and mode, clock stable.
pub const MSDC_CFG: usize = 0x00;
/// I/O configuration (sampling edges); plain storage.
pub const MSDC_IOCON: usize = 0x04;
/// Pin status: card detect configuration (stored), line levels (read only, idle high).
pub const MSDC_PS: usize = 0x08;
/// Interrupt status, write 1 to clear.
pub const MSDC_INT: usize = 0x0C;
/// Interrupt enable.
pub const MSDC_INTEN: usize = 0x10;
/// FIFO control and status.
pub const MSDC_FIFOCS: usize = 0x14;
/// SD bus configuration: bus width, timeouts.
pub const SDC_CFG: usize = 0x30;
/// Command register; writing it starts a command.
pub const SDC_CMD: usize = 0x34;
/// Command argument.
pub const SDC_ARG: usize = 0x38;
/// Bus status: busy bits.
pub const SDC_STS: usize = 0x3C;
/// Response word 0 (least significant).
pub const SDC_RESP0: usize = 0x40;
/// Response word 1.
pub const SDC_RESP1: usize = 0x44;
/// Response word 2.
pub const SDC_RESP2: usize = 0x48;
/// Response word 3 (most significant of an R2).
pub const SDC_RESP3: usize = 0x4C;
/// Number of blocks of the data phase (and the auto-CMD23 argument).
pub const SDC_BLK_NUM: usize = 0x50;
/// Response of the automatic command.
pub const SDC_ACMD_RESP: usize = 0x80;
/// DMA start address bits 35:32.
pub const DMA_SA_H4BIT: usize = 0x8C;
/// DMA start address bits 31:0 (the first GPD in descriptor mode).
pub const MSDC_DMA_SA: usize = 0x90;
/// DMA control: start, stop, mode, burst size.
pub const MSDC_DMA_CTRL: usize = 0x98;
/// DMA configuration: status, descriptor checksum enable.
pub const MSDC_DMA_CFG: usize = 0x9C;
/// Patch bits (plain storage).
pub const MSDC_PATCH_BIT: usize = 0xB0;
/// Patch bits 1 (plain storage).
pub const MSDC_PATCH_BIT1: usize = 0xB4;
/// Patch bits 2 (plain storage; SUPPORT_64G selects 36-bit descriptors).
pub const MSDC_PATCH_BIT2: usize = 0xB8;
/// Size of the modelled register window in bytes (everything below the CQHCI block).
pub const WINDOW: usize = 0x800;

/// `MSDC_CFG` bits.
pub mod cfg {
    /// MMC/SD mode (1) rather than MS.
    pub const MODE: u32 = 1 << 0;
    /// Clock runs free (not powered down between commands).
    pub const CKPDN: u32 = 1 << 1;
    /// Controller reset; self-clearing.
    pub const RST: u32 = 1 << 2;
    /// PIO mode (1) instead of DMA.
    pub const PIO: u32 = 1 << 3;
    /// 1.8 V signal detect (plain storage).
    pub const BV18SDT: u32 = 1 << 5;
    /// 1.8 V pass status (read only; model reads 0).
    pub const BV18PSS: u32 = 1 << 6;
    /// Clock stable (read only).
    pub const CKSTB: u32 = 1 << 7;
    /// Clock divider and mode, 8-bit divider layout: CKDIV 15:8, CKMOD 17:16.
    pub const CLOCK_8BIT: u32 = 0x3_FF00;
    /// Clock divider and mode, 12-bit divider layout: CKDIV 19:8, CKMOD 21:20.
    pub const CLOCK_12BIT: u32 = 0x3F_FF00;
    /// HS400 clock mode bit (8-bit layout).
    pub const HS400_CK_MODE: u32 = 1 << 18;
    /// HS400 clock mode bit (12-bit layout).
    pub const HS400_CK_MODE_EXTRA: u32 = 1 << 22;
}

/// `MSDC_INT` / `MSDC_INTEN` bits.
pub mod int {
    /// Auto command response received.
    pub const ACMDRDY: u32 = 1 << 3;
    /// Auto command timeout.
    pub const ACMDTMO: u32 = 1 << 4;
    /// Auto command response CRC error.
    pub const ACMDCRCERR: u32 = 1 << 5;
    /// Command response received.
    pub const CMDRDY: u32 = 1 << 8;
    /// Command timeout.
    pub const CMDTMO: u32 = 1 << 9;
    /// Response CRC error.
    pub const RSPCRCERR: u32 = 1 << 10;
    /// Transfer complete.
    pub const XFER_COMPL: u32 = 1 << 12;
    /// Data timeout.
    pub const DATTMO: u32 = 1 << 14;
    /// Data CRC error.
    pub const DATCRCERR: u32 = 1 << 15;
    /// BD checksum error.
    pub const DMA_BDCSERR: u32 = 1 << 17;
    /// GPD checksum error.
    pub const DMA_GPDCSERR: u32 = 1 << 18;
    /// DMA protection error (not raised by the model).
    pub const DMA_PROTECT: u32 = 1 << 19;
    /// Bits that exist in `MSDC_INT` (write-1-to-clear ones; CSTA 11 is read only).
    pub const ALL: u32 = 0x100F_F7FB;
    /// Bits that exist in `MSDC_INTEN` (0..19 without 2; CMDQ 28 has no enable).
    pub const ENABLE_ALL: u32 = 0x000F_FFFB;
}

/// `MSDC_FIFOCS` bits.
pub mod fifocs {
    /// Clear the FIFO; self-clearing.
    pub const CLR: u32 = 1 << 31;
}

/// `SDC_CFG` fields.
pub mod sdc_cfg {
    /// Bus width shift (2 bits: 0 1-bit, 1 4-bit, 2 8-bit).
    pub const BUSWIDTH_SHIFT: u32 = 16;
    /// Write data timeout (busy) field, bits 14:2.
    pub const WRDTOC_SHIFT: u32 = 2;
    /// Read data timeout field shift, bits 31:24.
    pub const DTOC_SHIFT: u32 = 24;
}

/// `SDC_CMD` fields.
pub mod cmd {
    /// Opcode mask (5:0).
    pub const OPCODE: u32 = 0x3F;
    /// Response type shift (9:7).
    pub const RSPTYP_SHIFT: u32 = 7;
    /// Data type shift (12:11): 0 none, 1 single, 2 multiple, 3 stream.
    pub const DTYPE_SHIFT: u32 = 11;
    /// Write direction.
    pub const RW: u32 = 1 << 13;
    /// Stop transmission command.
    pub const STOP: u32 = 1 << 14;
    /// Go-IRQ command.
    pub const GOIRQ: u32 = 1 << 15;
    /// Block length shift (27:16).
    pub const BLKLEN_SHIFT: u32 = 16;
    /// Auto command shift (29:28): 0 none, 1 CMD12, 2 CMD23.
    pub const AUTOCMD_SHIFT: u32 = 28;
    /// Voltage switch command.
    pub const VOLSWTH: u32 = 1 << 30;
}

/// `SDC_STS` bits.
pub mod sts {
    /// SD controller busy (command with data or busy in progress).
    pub const SDCBUSY: u32 = 1 << 0;
    /// Command line busy.
    pub const CMDBUSY: u32 = 1 << 1;
}

/// `MSDC_DMA_CTRL` bits.
pub mod dma_ctrl {
    /// Start the DMA (write only).
    pub const START: u32 = 1 << 0;
    /// Stop the DMA (self-clearing).
    pub const STOP: u32 = 1 << 1;
    /// Resume (write only; not modelled).
    pub const RESUME: u32 = 1 << 2;
    /// Descriptor mode (1) rather than basic.
    pub const MODE: u32 = 1 << 8;
}

/// `MSDC_DMA_CFG` bits.
pub mod dma_cfg {
    /// DMA active (read only).
    pub const STS: u32 = 1 << 0;
    /// Descriptor checksum check enable.
    pub const DECSEN: u32 = 1 << 1;
}

/// `MSDC_PATCH_BIT2` bits the model reads.
pub mod patch2 {
    /// 36-bit descriptors and 24-bit BD lengths.
    pub const SUPPORT_64G: u32 = 1 << 1;
}

/// GPD (general purpose descriptor) layout: 7 words; `info` bits.
pub mod gpd {
    /// Size in bytes.
    pub const SIZE: usize = 28;
    /// Hardware owns the descriptor.
    pub const HWO: u32 = 1 << 0;
    /// The GPD points at a BD chain.
    pub const BDP: u32 = 1 << 1;
    /// Next pointer bits 35:32 shift (27:24).
    pub const NEXT_H4_SHIFT: u32 = 24;
    /// Data pointer bits 35:32 shift (31:28).
    pub const PTR_H4_SHIFT: u32 = 28;
}

/// BD (buffer descriptor) layout: 4 words; `info` bits.
pub mod bd {
    /// Size in bytes.
    pub const SIZE: usize = 16;
    /// End of list.
    pub const EOL: u32 = 1 << 0;
    /// Next pointer bits 35:32 shift (27:24).
    pub const NEXT_H4_SHIFT: u32 = 24;
    /// Buffer pointer bits 35:32 shift (31:28).
    pub const PTR_H4_SHIFT: u32 = 28;
    /// Buffer length mask without 64G support.
    pub const BUFLEN: u32 = 0xFFFF;
    /// Buffer length mask with 64G support.
    pub const BUFLEN_EXT: u32 = 0xFF_FFFF;
}

/// Bytes covered by the descriptor checksum (GPD and BD alike).
pub const CHECKSUM_SPAN: usize = 16;
