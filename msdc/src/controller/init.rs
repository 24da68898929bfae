// SPDX-License-Identifier: GPL-2.0

//! Hardware initialisation (`msdc_init_hw`): the controller brought to a known state, with
//! the SoC's patch bits and quirks, the default sample points and a card-safe clock.

use super::super::clock::{ClockPlan, Timing};
use super::super::dma::{self, DmaAddressing};
use super::super::regs::{
    InterruptSet, MsdcBase, MsdcRegs, EMMC50_CFG0, EMMC50_CFG2, MSDC_DMA_CFG, MSDC_INT, MSDC_INTEN,
    MSDC_IOCON, MSDC_PATCH_BIT0, MSDC_PATCH_BIT1, MSDC_PATCH_BIT2, SDC_ADV_CFG0, SDC_CFG,
    SDC_FIFO_CFG,
};
#[cfg(doc)]
use super::super::soc::SocData;
use super::super::timeout::{TimeoutRequest, INITIAL_DATA_TIMEOUT_COUNT, INITIAL_TIMEOUT_CLOCKS};
#[cfg(doc)]
use super::super::tuning::BoardTuning;
use super::bus::ClockRequest;
#[cfg(doc)]
use super::IDENTIFICATION_CLOCK_HZ;
use super::{modify_cfg, Controller, HwError};
use crate::mmc_request::RequestResult;
use crate::registers::Io;

/// `MSDC_PATCH_BIT0.BUSYDLY`: R1b busy detection delay in bus clocks (upstream's 15).
const R1B_BUSY_DELAY: u32 = 15;

/// `MSDC_PATCH_BIT2.RESPWAIT` with the async FIFO: 65 + 16 * 3 bus clocks.
const ASYNC_FIFO_RESPONSE_WAIT: u32 = 3;

/// `MSDC_PATCH_BIT2.RESPSTSENSEL`/`CRCSTSENSEL` with the async FIFO and no enhanced receive
/// path: 2T delay for the response and CRC status enables.
const ASYNC_FIFO_STATUS_DELAY: u32 = 2;

impl<R> Controller<R> {
    /// Brings the controller to a known state (`msdc_init_hw`): SD/MMC mode, reset, FIFO
    /// clear, every interrupt masked and cleared, the patch bits and quirks of the SoC,
    /// 36-bit DMA when configured, descriptor checksums on, the default data timeout, and
    /// the clock gated with a divider of at most [`IDENTIFICATION_CLOCK_HZ`] already stable.
    ///
    /// The card-detect mode and SDIO mode are programmed as last set (no internal card
    /// detect and no SDIO until [`Controller::set_card_detect`] and
    /// [`Controller::set_sdio_mode`]); the SDIO interrupt is off, as upstream leaves it. A
    /// request still in flight (the glue powers the card up under one only if something
    /// went wrong) is ended as [`Controller::abort`] ends it, and its token handed back with
    /// its result for the glue to complete: it is never dropped.
    ///
    /// The sample points go back to their defaults as upstream's: on SoCs with the new
    /// transmit and receive paths their enables go from 0 to 1 first (and the new path's
    /// loop clock is set for the legacy timing); the delay lines (the top region's
    /// `EMMC_TOP_CONTROL`/`EMMC_TOP_CMD` where the SoC has it, else the pad tune register
    /// and, with a 64-cell tuning step, its second one) and `MSDC_IOCON` are cleared, the
    /// enhanced receive path is enabled in `EMMC_TOP_CONTROL` on SoCs with a top region,
    /// then the delay lines are selected (data tuning: the command and data delays, and the
    /// second ones with a 64-cell step, with `DATA_K_VALUE_SEL` clear; else the clock delay)
    /// and read back as the default parameters, which are also the tuned ones until a
    /// tuning succeeds. A tuning in progress and the HS400 target are forgotten. A
    /// [`BoardTuning`] value that does not fit its field is refused first
    /// ([`HwError::BoardValue`]).
    ///
    /// It may run again on a controller in use, as the glue does on `MMC_POWER_UP` (as
    /// upstream's `msdc_set_ios` runs `msdc_init_hw`): the bus width and the card-detect and
    /// SDIO modes stay, pending events are dropped, and afterwards the clock is gated and
    /// forgotten, so the next [`Controller::set_clock`] programs any running rate it is asked
    /// for. Refused with [`HwError::Suspended`] while suspended.
    pub fn init_hardware(
        &mut self,
        r: &impl MsdcRegs,
    ) -> Result<Option<(R, RequestResult)>, HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.tuner.board().check().map_err(HwError::BoardValue)?;
        let soc = self.setup.soc;
        let aborted = self.abort(r);
        self.standing_interrupts = InterruptSet::empty();
        self.sdio_irq_enabled = false;
        self.clock = ClockPlan::Gated;
        self.clock_request = None;
        self.data_timeout = TimeoutRequest {
            ns: 0,
            clocks: INITIAL_TIMEOUT_CLOCKS,
        };

        self.tuner.enable_new_paths(r, soc);
        modify_cfg(r, |cfg| {
            cfg.with_mode(true).with_pio(false).with_ckpdn(false)
        });
        self.reset_controller(r)?;
        r.write(MSDC_INTEN::zeroed());
        acknowledge_all(r);

        self.program_card_detect(r);
        self.tuner.clear_delay_lines(r, soc);
        r.write(MSDC_IOCON::zeroed());
        self.program_patch_bits(r)?;
        self.tuner.select_delay_lines(r, soc);
        self.program_sdio_mode(r, self.sdio_mode);
        r.update::<SDC_CFG>(|cfg| cfg.with_const_dtoc::<INITIAL_DATA_TIMEOUT_COUNT>());
        r.update::<MSDC_DMA_CFG>(dma::checksum_checking);
        self.program_identification_clock(r)?;
        // The clock is gated: what a request for no clock would leave.
        self.clock_request = Some(ClockRequest {
            hz: 0,
            timing: Timing::Legacy,
        });
        Ok(aborted)
    }

    /// The patch bits of `msdc_init_hw` (Linux 7.x), by SoC quirk. A [`SocData`] patch
    /// value wider than its field stops the initialisation after `MSDC_PATCH_BIT0`.
    fn program_patch_bits(&self, r: &impl MsdcRegs) -> Result<(), HwError> {
        let soc = self.setup.soc;

        r.write(
            MSDC_PATCH_BIT0::zeroed()
                .with_oddsupp(true)
                .with_dis_wrmon(true)
                .with_descup_sel(true)
                .with_decrctmo(true)
                .with_const_busydly::<R1B_BUSY_DELAY>()
                .with_const_ckgen_msdc_dly_sel::<1>(),
        );

        let single_burst = r.read::<EMMC50_CFG2>().axi_set_len() == 0;
        let mut patch1 = MSDC_PATCH_BIT1::zeroed()
            .with_ddr_cmd_fix_sel(true)
            .with_single_burst(single_burst)
            .with_rsvd20(true)
            .with_auto_syncst_clr(true)
            .with_mark_pop_water(true)
            .with_lp_dcm_en(true)
            .with_rsvd3(true)
            .with_ahb_gdma_hclk(true)
            .with_msdc_clk_enfeat(true)
            .with_busy_check_sel(!soc.busy_check)
            .with_const_wrdat_crc_tacntr::<1>()
            .with_const_cmdta::<1>();

        let mut patch2 = r.read::<MSDC_PATCH_BIT2>();
        if soc.stop_clk_fix {
            if soc.stop_dly_sel != 0 {
                patch1 = patch1
                    .try_with_stop_dly(u32::from(soc.stop_dly_sel))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            if soc.pop_en_cnt != 0 {
                patch2 = patch2
                    .try_with_pop_en_cnt(u32::from(soc.pop_en_cnt))
                    .map_err(HwError::PatchOutOfRange)?;
            }
            r.update::<SDC_FIFO_CFG>(|fifo| fifo.with_wrvalidsel(false).with_rdvalidsel(false));
        }
        if soc.async_fifo {
            patch2 = patch2
                .with_const_respwait::<ASYNC_FIFO_RESPONSE_WAIT>()
                .with_cfgresp(false)
                .with_cfgcrcsts(true);
            if !soc.enhance_rx {
                patch2 = patch2
                    .with_const_respstsensel::<ASYNC_FIFO_STATUS_DELAY>()
                    .with_const_crcstsensel::<ASYNC_FIFO_STATUS_DELAY>();
            } else if soc.needs_top_base {
                self.tuner.enable_top_rx_enhance(r);
            } else {
                r.update::<SDC_ADV_CFG0>(|adv| adv.with_rx_enhance_en(true));
            }
        }
        patch2 = patch2.with_support_64g(self.setup.addressing == DmaAddressing::Bits36);
        r.write(patch1);
        r.write(patch2);
        r.update::<EMMC50_CFG0>(|cfg0| cfg0.with_cfcsts_sel(true));
        Ok(())
    }
}

/// W1C of every pending event.
fn acknowledge_all(r: &impl Io<MsdcBase>) {
    let pending = r.read::<MSDC_INT>();
    r.write(pending);
}
