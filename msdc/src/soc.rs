// SPDX-License-Identifier: GPL-2.0

//! Per-SoC differences between MSDC controller generations.
//!
//! Each MediaTek SoC family wires the same MSDC block with small differences: divider
//! width, where the pad tuning register sits, which FIFO and tuning paths exist, whether a
//! second "top" register region must be mapped. The values follow the `mtk_mmc_compatible`
//! data of the Linux 7.3 C driver field for field, so a device tree that works there works
//! here. The kernel glue's OF table points at these constants, and the request engine reads
//! them through the `&'static` [`SocData`] it is built with.

use super::clock::DividerWidth;
use super::regs::{MSDC_PAD_TUNE, MSDC_PAD_TUNE0, MSDC_PAD_TUNE1};

/// Which of the two pad tuning registers a SoC has (`pad_tune_reg`): the delay lines are
/// the same, the register moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadTuneRegister {
    /// [`MSDC_PAD_TUNE`], on the 8-bit divider generation.
    PadTune,
    /// [`MSDC_PAD_TUNE0`], on the 12-bit divider generation.
    PadTune0,
}

impl PadTuneRegister {
    /// Byte offset of the register in the `MsdcBase` window, from its definition.
    pub const fn offset(self) -> usize {
        match self {
            Self::PadTune => MSDC_PAD_TUNE::OFFSET,
            Self::PadTune0 => MSDC_PAD_TUNE0::OFFSET,
        }
    }

    /// Byte offset of the second delay line's register, four bytes on (upstream's
    /// `TUNING_REG2_FIXED_OFFEST`), with the layout of [`MSDC_PAD_TUNE1`]: its `*2` delays
    /// extend the first register's above 31 cells when the tuning step is 64.
    pub const fn second_offset(self) -> usize {
        self.offset() + PAD_TUNE_SECOND_OFFSET
    }
}

/// Distance from a pad tune register to its second delay line's register.
const PAD_TUNE_SECOND_OFFSET: usize = MSDC_PAD_TUNE1::OFFSET - MSDC_PAD_TUNE0::OFFSET;

/// What distinguishes one MSDC generation from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocData {
    /// Width of the source clock divider: 8 bits (MT8135, MT8173, MT6795, MT7620) or 12.
    pub clock_divider: DividerWidth,
    /// SDIO interrupts can be lost: check the SDIO IRQ bit again after enabling it.
    pub recheck_sdio_irq: bool,
    /// HS400 needs command-line tuning through `PAD_CMD_TUNE` (MT8173 style).
    pub hs400_tune: bool,
    /// Tuning registers live in a second "top" region, `reg[1]`, which must exist. The
    /// delay lines are then `EMMC_TOP_CMD`/`EMMC_TOP_CONTROL` instead of the pad tune
    /// register, the data strobe delays `EMMC50_PAD_DS_TUNE` instead of `PAD_DS_TUNE`, and
    /// the enhanced receive path is enabled in `EMMC_TOP_CONTROL`, not in `SDC_ADV_CFG0`.
    pub needs_top_base: bool,
    /// The pad tuning register.
    pub pad_tune_reg: PadTuneRegister,
    /// The controller has the asynchronous FIFO and its response/CRC sampling options.
    pub async_fifo: bool,
    /// The data lines have their own delay line (else the data sample point follows a
    /// clock delay); with `async_fifo` the command and data lines are tuned together.
    pub data_tune: bool,
    /// The controller can check card busy on DAT0 by itself after a write.
    pub busy_check: bool,
    /// Stopping the clock needs the stop-delay fix in `PATCH_BIT1`.
    pub stop_clk_fix: bool,
    /// `PATCH_BIT1.STOP_DLY` written with the stop-clock fix (0 when there is none).
    pub stop_dly_sel: u8,
    /// `PATCH_BIT2.POP_EN_CNT` with the stop-clock fix (0: leave the hardware default).
    pub pop_en_cnt: u8,
    /// Enhanced receive path (`SDC_ADV_CFG0.SDC_RX_ENHANCE`).
    pub enhance_rx: bool,
    /// DMA descriptors carry address bits 35:32, so buffers may sit above 4 GiB.
    pub support_64g: bool,
    /// Card detect comes from the controller's own pin, not a GPIO.
    pub use_internal_cd: bool,
    /// The SoC has the new transmit path (`SDC_ADV_CFG0`/`EMMC50_CFG0` variants).
    pub support_new_tx: bool,
    /// The SoC has the new receive path (`MSDC_NEW_RX_CFG`).
    pub support_new_rx: bool,
    /// The SoC's power manager must be told when MSDC releases its resources.
    pub support_spm_res_release: bool,
}

/// Everything off: the starting point each SoC below overrides.
const BASELINE: SocData = SocData {
    clock_divider: DividerWidth::Bits12,
    recheck_sdio_irq: false,
    hs400_tune: false,
    needs_top_base: false,
    pad_tune_reg: PadTuneRegister::PadTune0,
    async_fifo: false,
    data_tune: false,
    busy_check: false,
    stop_clk_fix: false,
    stop_dly_sel: 0,
    pop_en_cnt: 0,
    enhance_rx: false,
    support_64g: false,
    use_internal_cd: false,
    support_new_tx: false,
    support_new_rx: false,
    support_spm_res_release: false,
};

/// The 8-bit divider generation with the old pad tuning register.
const LEGACY_8BIT: SocData = SocData {
    clock_divider: DividerWidth::Bits8,
    pad_tune_reg: PadTuneRegister::PadTune,
    ..BASELINE
};

/// The common 12-bit generation: async FIFO, data tuning, busy check and stop fix.
const MODERN_12BIT: SocData = SocData {
    async_fifo: true,
    data_tune: true,
    busy_check: true,
    stop_clk_fix: true,
    stop_dly_sel: 3,
    ..BASELINE
};

/// MT2701 and MT7623.
pub const MT2701: SocData = SocData {
    recheck_sdio_irq: true,
    async_fifo: true,
    data_tune: true,
    ..BASELINE
};

/// MT2712.
pub const MT2712: SocData = SocData {
    enhance_rx: true,
    support_64g: true,
    ..MODERN_12BIT
};

/// MT6779.
pub const MT6779: SocData = MT2712;

/// MT6795.
pub const MT6795: SocData = SocData {
    hs400_tune: true,
    ..LEGACY_8BIT
};

/// MT7620 (MIPS): internal card detect.
pub const MT7620: SocData = SocData {
    recheck_sdio_irq: true,
    use_internal_cd: true,
    ..LEGACY_8BIT
};

/// MT7622.
pub const MT7622: SocData = SocData {
    recheck_sdio_irq: true,
    enhance_rx: true,
    ..MODERN_12BIT
};

/// MT7986 and MT7988.
pub const MT7986: SocData = SocData {
    recheck_sdio_irq: true,
    needs_top_base: true,
    enhance_rx: true,
    support_64g: true,
    ..MODERN_12BIT
};

/// MT8135.
pub const MT8135: SocData = SocData {
    recheck_sdio_irq: true,
    ..LEGACY_8BIT
};

/// MT8173.
pub const MT8173: SocData = SocData {
    recheck_sdio_irq: true,
    hs400_tune: true,
    ..LEGACY_8BIT
};

/// MT8183, and through DT fallback MT6893, MT8186, MT8188, MT8192, MT8195, MT8365.
pub const MT8183: SocData = SocData {
    needs_top_base: true,
    enhance_rx: true,
    support_64g: true,
    ..MODERN_12BIT
};

/// MT8189: no separate data tuning, pop enable count 8, SPM resource release.
pub const MT8189: SocData = SocData {
    data_tune: false,
    pop_en_cnt: 8,
    support_spm_res_release: true,
    ..MT8183
};

/// MT8196: new TX and RX paths, stop delay 1, pop enable count 2.
pub const MT8196: SocData = SocData {
    stop_dly_sel: 1,
    pop_en_cnt: 2,
    support_new_tx: true,
    support_new_rx: true,
    ..MT8183
};

/// MT8516.
pub const MT8516: SocData = SocData {
    recheck_sdio_irq: true,
    ..MODERN_12BIT
};
