// SPDX-License-Identifier: GPL-2.0

//! The MSDC side of the CQHCI command queue engine: the vendor hooks the `cqhci` engine calls
//! around its own register sequences (upstream's `msdc_cmdq_ops`), the send-status idle
//! timer, and the record of what the hooks did, which the [`Controller`] takes over.
//!
//! # How the glue uses it
//!
//! The CQHCI block sits inside the MSDC register window and drives the same bus, so the
//! engine's hooks program MSDC registers the [`Controller`] otherwise owns. For every engine
//! call that may run a hook (enable, a request that un-halts the block, off, disable,
//! recovery start and finish, resume) the glue, holding the controller's lock:
//!
//! 1. builds the hooks with [`Controller::cqe_hooks`], which borrows the controller, so
//!    nothing can change its state while the engine runs;
//! 2. passes them to the engine;
//! 3. turns them into a [`CqeAftermath`] with [`CqeHooks::finish`] and hands that to
//!    [`Controller::absorb_cqe`], which brings the controller's view of the hardware up to
//!    date (the data timeout the hooks wrote, a reset they did, a poll that timed out).
//!
//! The interrupt side is [`Controller::command_queue_event`], which decodes `MSDC_INT.CMDQ`
//! and the errors latched with it for [`Cqhci::irq`](crate::cqhci::Cqhci::irq).
//!
//! # Differences from upstream, all deliberate
//!
//! - Enabling keeps the standing card-detect and SDIO interrupts: upstream overwrites
//!   `MSDC_INTEN` with `CMDQ` alone, so card detect and SDIO interrupts are lost while the
//!   queue runs.
//! - Disabling acknowledges every event but card detect and SDIO, which stay pending for their
//!   consumers (upstream acknowledges them too).
//! - Disabling restores `MSDC_PATCH_BIT1.BUSY_CHECK_SEL` to what initialisation programs for
//!   the SoC instead of clearing it; on every SoC with a CQHCI block the two agree.
//! - A DMA that does not stop during recovery is recorded and the controller is reset anyway
//!   (upstream warns and skips the reset); every wait is bounded.
//! - The idle timer saturates at the width of `CQSSC1.CIT`: upstream writes a wider value
//!   into the whole register, spilling into `CBC`.

use core::cell::Cell;

use super::clock::TimeoutClock;
#[cfg(doc)]
use super::controller::Controller;
use super::controller::{halt_dma, reset_hardware, HwError, RESET_CLEARS};
use super::regs::{InterruptSet, MsdcBase, MSDC_INT, MSDC_INTEN, MSDC_PATCH_BIT1, SDC_CFG};
use super::timeout::{Counter, TimeoutCount, TimeoutRequest};
use crate::cqhci::regs::{CqhciBlock, CQCAP, CQCFG, CQSSC1};
use crate::cqhci::{CqhciHost, HostError};
use crate::registers::Io;

/// Upstream's send-status command idle timer: 2.35 µs between two queue status polls
/// (`msdc_cqe_cit_cal(host, 2350)` at probe).
pub const SEND_STATUS_IDLE_NS: u32 = 2350;

/// Transfer descriptors per task the MSDC's CQHCI block is given (the host's `max_segs`
/// with the command queue engine, as upstream declares it).
pub const MAX_TASK_SEGMENTS: u16 = 128;

/// Bytes one transfer descriptor describes (its 16-bit length field: 64 KiB).
pub const MAX_SEGMENT_BYTES: u32 = 64 * 1024;

/// How the MSDC's CQHCI block is integrated (mtk-sd.c's probe): 128-bit task descriptors,
/// 64-bit descriptor addresses with 16-byte transfer descriptors, direct commands in slot
/// 31, no interrupt coalescing (upstream never programs it; measured on the model, it
/// saves instructions per I/O but raises the 99th percentile at depth 32 and makes every
/// request wait its timeout at depth 1: `docs/performance.md`, "CQHCI interrupt
/// coalescing").
pub const ENGINE_CONFIG: crate::cqhci::Config = crate::cqhci::Config {
    task_descriptor: crate::cqhci::TaskDescriptorSize::Bits128,
    dma: crate::cqhci::DmaWidth::Bits64,
    short_transfer_descriptor: false,
    direct_commands: true,
    max_segments: MAX_TASK_SEGMENTS,
    coalescing: None,
};

/// Nanoseconds in a second.
const NS_PER_SECOND: u64 = 1_000_000_000;

/// The idle timer upstream falls back to when `CQCAP.ITCFMUL` holds a multiplier the
/// specification does not define.
const UNDEFINED_MULTIPLIER_CIT: u32 = 0x40;

/// The largest `CQSSC1.CIT`: the field, all ones.
const CIT_MAX: u32 = CQSSC1::from_raw(u32::MAX).cit();

/// The write data and R1b busy timeout while the queue owns the bus (upstream's 20 s).
const BUSY_TIMEOUT: TimeoutRequest = TimeoutRequest::from_millis(20_000);

/// The read data timeout while the queue owns the bus (upstream's 1 s).
pub(super) const READ_TIMEOUT: TimeoutRequest = TimeoutRequest::from_millis(1_000);

/// The send-status idle timer (`CQSSC1`) for `timer_ns` nanoseconds (`msdc_cqe_cit_cal`).
///
/// On MediaTek the block's internal timer runs on the MSDC bus clock `hclk_hz`, scaled by
/// `CQCAP.ITCFMUL`: 0 divides it by 1000, 1 by 100, 2 by 10, 3 keeps it, 4 multiplies it by
/// 10; any other multiplier gives upstream's fixed 0x40. The clock count rounds down, as
/// upstream's, and saturates at the `CIT` field; `CBC` stays 0, as upstream writes the whole
/// register.
pub fn send_status_idle_timer(hclk_hz: u32, cap: CQCAP, timer_ns: u32) -> CQSSC1 {
    let hclk = u64::from(hclk_hz);
    let timer_hz = match cap.itcfmul() {
        0 => hclk / 1000,
        1 => hclk / 100,
        2 => hclk / 10,
        3 => hclk,
        // At most ten times `u32::MAX`: no overflow.
        4 => hclk * 10,
        _ => return CQSSC1::zeroed().with_const_cit::<UNDEFINED_MULTIPLIER_CIT>(),
    };
    // A product past `u64::MAX` means far more clocks than the field holds.
    let clocks = timer_hz
        .checked_mul(u64::from(timer_ns))
        .map_or(u64::MAX, |product| product / NS_PER_SECOND);
    let cit = u32::try_from(clocks).map_or(CIT_MAX, |clocks| clocks.min(CIT_MAX));
    CQSSC1::zeroed()
        .try_with_cit(cit)
        .unwrap_or(CQSSC1::zeroed().with_const_cit::<CIT_MAX>())
}

/// What [`Controller::command_queue_event`] found latched with `MSDC_INT.CMDQ`: the errors
/// the MSDC itself detected on the queue's commands and data, for
/// [`Cqhci::irq`](crate::cqhci::Cqhci::irq).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CqeEvent {
    /// The command error (`cmd_error`): a response CRC error, else a command timeout.
    pub cmd_error: Option<HostError>,
    /// The data error (`data_error`): a data CRC error, else a data timeout.
    pub data_error: Option<HostError>,
}

/// Whether the hooks reset the controller, and how it went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum HookReset {
    /// No reset was asked for.
    #[default]
    NotRun,
    /// The controller was reset.
    Done,
    /// A reset was started but a poll timed out: it must be retried.
    Failed,
}

/// What the hooks did to the MSDC registers, for [`Controller::absorb_cqe`].
#[must_use = "the controller must absorb what the hooks did (Controller::absorb_cqe)"]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CqeAftermath {
    /// The last bounded poll of a hook that timed out (the DMA stop or the reset).
    pub fault: Option<HwError>,
    /// `SDC_CFG.DTOC` and `WRDTOC` now hold the queue's timeouts.
    pub(super) timeouts_written: bool,
    /// The reset recovery asked for.
    pub(super) reset: HookReset,
    /// Recovery's DMA stop did not take effect within its bound: no DMA may start until
    /// it has ([`Controller::dma_stop_pending`]).
    pub(super) dma_stop_pending: bool,
}

/// The MSDC's hooks for the CQHCI engine (`msdc_cmdq_ops`), built by
/// [`Controller::cqe_hooks`] for one engine call (see the module documentation).
///
/// `base` is the MSDC register window; the CQHCI registers come with each hook call.
#[derive(Debug)]
pub struct CqeHooks<'a, B: Io<MsdcBase>> {
    base: &'a B,
    /// Built while the controller was runtime suspended: every hook does nothing, so no
    /// register is touched with the clocks gated.
    inert: bool,
    /// The card-detect and SDIO interrupts the controller keeps enabled.
    standing: InterruptSet,
    /// `BUSY_CHECK_SEL` as initialisation programs it, restored on disable.
    legacy_busy_check: bool,
    busy_timeout: TimeoutCount,
    read_timeout: TimeoutCount,
    idle_timer: CQSSC1,
    timeouts_written: Cell<bool>,
    reset: Cell<HookReset>,
    dma_stop_failed: Cell<bool>,
    fault: Cell<Option<HwError>>,
}

impl<'a, B: Io<MsdcBase>> CqeHooks<'a, B> {
    /// Hooks on `base` that keep `standing` enabled, restore `legacy_busy_check` and program
    /// the queue's timeouts for `clock` (none while gated) and `idle_timer`; hooks that do
    /// nothing if `inert` (a suspended controller).
    pub(super) fn new(
        base: &'a B,
        inert: bool,
        standing: InterruptSet,
        legacy_busy_check: bool,
        clock: Option<TimeoutClock>,
        idle_timer: CQSSC1,
    ) -> Self {
        Self {
            base,
            inert,
            standing,
            legacy_busy_check,
            busy_timeout: Counter::Busy.count(clock, BUSY_TIMEOUT),
            read_timeout: Counter::Data.count(clock, READ_TIMEOUT),
            idle_timer,
            timeouts_written: Cell::new(false),
            reset: Cell::new(HookReset::NotRun),
            dma_stop_failed: Cell::new(false),
            fault: Cell::new(None),
        }
    }

    /// Ends the hooks' engine call: what they did, for [`Controller::absorb_cqe`].
    pub fn finish(self) -> CqeAftermath {
        CqeAftermath {
            fault: self.fault.get(),
            timeouts_written: self.timeouts_written.get(),
            reset: self.reset.get(),
            dma_stop_pending: self.dma_stop_failed.get(),
        }
    }

    /// Recovery's part of disabling: stops the DMA and resets the controller, recording a
    /// poll that times out.
    ///
    /// The DMA stop's wait keeps upstream's bound (20 ms per register): the engine calls
    /// this hook only from `cqe_recovery_start`, in process context (the MMC core's
    /// recovery), never from the interrupt handler.
    fn stop_data_path(&self) {
        if let Err(e) = halt_dma(self.base) {
            self.fault.set(Some(e));
            self.dma_stop_failed.set(true);
        }
        // Reset even after a DMA that did not stop: the reset stops it too.
        match reset_hardware(self.base) {
            Ok(()) => self.reset.set(HookReset::Done),
            Err(e) => {
                self.fault.set(Some(e));
                self.reset.set(HookReset::Failed);
            }
        }
    }
}

impl<B: Io<MsdcBase>> CqhciHost for CqeHooks<'_, B> {
    /// `msdc_cqe_enable`: the CMDQ interrupt (with the standing ones), busy checking, the
    /// queue's 20 s busy and 1 s read timeouts, and the send-status idle timer.
    fn enable(&self, regs: &impl Io<CqhciBlock>) {
        if self.inert {
            return;
        }
        let base = self.base;
        base.write((InterruptSet::CMDQ | self.standing).as_enable());
        base.update::<MSDC_PATCH_BIT1>(|patch| patch.with_busy_check_sel(true));
        base.update::<SDC_CFG>(|cfg| {
            let cfg = Counter::Busy.apply(cfg, self.busy_timeout);
            Counter::Data.apply(cfg, self.read_timeout)
        });
        self.timeouts_written.set(true);
        regs.write(self.idle_timer);
    }

    /// `msdc_cqe_disable`: masks the CMDQ interrupt, restores busy checking, acknowledges
    /// every event but card detect and SDIO, and for `recovery` stops the DMA and resets the
    /// controller.
    fn disable(&self, _regs: &impl Io<CqhciBlock>, recovery: bool) {
        if self.inert {
            return;
        }
        let base = self.base;
        base.update::<MSDC_INTEN>(|inten| inten.with_cmdq(false));
        base.update::<MSDC_PATCH_BIT1>(|patch| patch.with_busy_check_sel(self.legacy_busy_check));
        // Only what was read as pending, so an event arriving meanwhile is not lost.
        let pending = InterruptSet::from_bits_retain(base.read::<MSDC_INT>().raw());
        base.write((pending & RESET_CLEARS).as_acknowledge());
        if recovery {
            self.stop_data_path();
        }
    }

    /// `msdc_cqe_pre_enable`: sets `CQCFG.CQ_EN` before a request un-halts the block.
    fn pre_enable(&self, regs: &impl Io<CqhciBlock>) {
        if self.inert {
            return;
        }
        regs.update::<CQCFG>(|cfg| cfg.with_cq_en(true));
    }

    /// `msdc_cqe_post_disable`: clears `CQCFG.CQ_EN` once `cqe_off` has halted the block,
    /// which hands the bus back to the legacy path.
    fn post_disable(&self, regs: &impl Io<CqhciBlock>) {
        if self.inert {
            return;
        }
        regs.update::<CQCFG>(|cfg| cfg.with_cq_en(false));
    }
}
