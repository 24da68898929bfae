// SPDX-License-Identifier: GPL-2.0

//! Binding to MSDC controllers described in the device tree: resources, clocks, the MMC
//! host and its interrupt.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::{
    clk::{Clk, OptionalClk},
    device::{Core, Device},
    irq::{self, IrqReturn},
    of, platform,
    prelude::*,
    sync::Arc,
    time::{Instant, Monotonic},
};

use crate::registers::Io;

use crate::{
    backend::{Access, RegisterWindow, REGISTER_WINDOW_SIZE, TOP_WINDOW_SIZE},
    cqhci::{self, regs::CQCAP},
    debugfs,
    dt::MediatekProperties,
    host::{Msdc, MsdcSlot, QueueChoice, SlotParts, DESCRIPTOR_AREA_LEN},
    kernel_mmc::{
        self, caps, pm_caps, vdd, DescriptorMemory, Host, HostAllocation, HostSettings, PinState,
        Pins, TransferLimits,
    },
    msdc::{
        controller::{CardDetect, HostSetup},
        cqe::{
            send_status_idle_timer, ENGINE_CONFIG, MAX_SEGMENT_BYTES, MAX_TASK_SEGMENTS,
            SEND_STATUS_IDLE_NS,
        },
        dma::{DmaAddressing, MAX_SEGMENTS},
        soc::{self, SocData},
    },
};

/// The MSDC platform driver.
pub(crate) struct MsdcDriver;

/// Declares the OF table from one list of (compatible, per-SoC data), and in KUnit builds
/// `COMPATIBLES`, the same entries as Rust can read them back.
macro_rules! compatibles {
    ($(($compatible:expr, $soc:expr)),* $(,)?) => {
        kernel::of_device_table!(
            OF_TABLE,
            <MsdcDriver as platform::Driver>::IdInfo,
            [$((of::DeviceId::new($compatible), &$soc)),*]
        );

        /// The compatibles [`OF_TABLE`] matches, each with the per-SoC data it selects.
        #[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
        pub(crate) const COMPATIBLES: &[(&CStr, &SocData)] = &[$(($compatible, &$soc)),*];
    };
}

compatibles![
    (c"mediatek,mt2701-mmc", soc::MT2701),
    (c"mediatek,mt2712-mmc", soc::MT2712),
    (c"mediatek,mt6779-mmc", soc::MT6779),
    (c"mediatek,mt6795-mmc", soc::MT6795),
    (c"mediatek,mt7620-mmc", soc::MT7620),
    (c"mediatek,mt7622-mmc", soc::MT7622),
    (c"mediatek,mt7986-mmc", soc::MT7986),
    (c"mediatek,mt7988-mmc", soc::MT7986),
    (c"mediatek,mt8135-mmc", soc::MT8135),
    (c"mediatek,mt8173-mmc", soc::MT8173),
    (c"mediatek,mt8183-mmc", soc::MT8183),
    (c"mediatek,mt8189-mmc", soc::MT8189),
    (c"mediatek,mt8196-mmc", soc::MT8196),
    (c"mediatek,mt8516-mmc", soc::MT8516),
];

/// Idle time before the controller may runtime-suspend, as upstream.
const AUTOSUSPEND_DELAY_MS: i32 = 50;

/// Largest request the DMA descriptors describe (upstream's limit as well).
/// TODO[MAX-REQ]: a larger limit, once the gain is measured on hardware.
const MAX_REQUEST_BYTES: u32 = 512 * 1024;

/// The largest request the host takes: upstream's 512 KiB, within what its descriptors
/// carry (`capacity` bytes). In test kernels with simulated controllers, a transfer size
/// sweep may set it with `mtk_sd_rust_sim.max_request_kib=`, up to that capacity and the
/// 65,535 blocks a CQHCI task counts.
fn request_limit(capacity: u32) -> u32 {
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    if let Some(bytes) = crate::kernel_mmc::simboard::request_limit_bytes() {
        return bytes.min(capacity).min(u32::from(u16::MAX) * 512) & !511;
    }
    MAX_REQUEST_BYTES.min(capacity)
}

/// The CQHCI engine's configuration: upstream's integration ([`ENGINE_CONFIG`]), without
/// interrupt coalescing, which upstream never programs (`docs/performance.md`, "CQHCI
/// interrupt coalescing"). In test kernels with simulated
/// controllers `mtk_sd_rust_sim.cqe_coalescing=<ICCTH>,<ICTOVAL>` turns it on, for that
/// measurement.
fn engine_config() -> cqhci::Config {
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    if let Some((threshold, timeout)) = crate::kernel_mmc::simboard::cqe_coalescing() {
        return cqhci::Config {
            coalescing: Some(cqhci::Coalescing { threshold, timeout }),
            ..ENGINE_CONFIG
        };
    }
    ENGINE_CONFIG
}

/// The controller's clocks: on while the driver is bound, except while the device is
/// runtime-suspended.
struct Clocks {
    /// Feeds the bus clock divider.
    source: Clk,
    /// Register interface.
    hclk: Clk,
    /// Gates of the source and bus clocks, the SoC-level gates and the crypto engine.
    gates: KVec<OptionalClk>,
    /// The MSDC subsystem's gate (`sys_cg`): on from probe to remove, never gated by
    /// runtime PM, as upstream keeps it.
    sys_cg: OptionalClk,
    /// All of them are on (the PM core serialises the callbacks that change this).
    running: AtomicBool,
}

impl Clocks {
    /// Gates the driver turns on when present, besides the two required clocks.
    const OPTIONAL_GATES: [&'static CStr; 6] = [
        c"source_cg",
        c"bus_clk",
        c"pclk_cg",
        c"axi_cg",
        c"ahb_cg",
        c"crypto",
    ];

    fn get_and_enable(dev: &Device) -> Result<Self> {
        let source = Clk::get(dev, Some(c"source"))
            .inspect_err(|e| dev_err!(dev, "no \"source\" clock: {:?}\n", e))?;
        let hclk = Clk::get(dev, Some(c"hclk"))
            .inspect_err(|e| dev_err!(dev, "no \"hclk\" clock: {:?}\n", e))?;
        let mut gates = KVec::with_capacity(Self::OPTIONAL_GATES.len(), GFP_KERNEL)?;
        for name in Self::OPTIONAL_GATES {
            let gate = OptionalClk::get(dev, Some(name))
                .inspect_err(|e| dev_err!(dev, "clock \"{}\": {:?}\n", name, e))?;
            gates.push(gate, GFP_KERNEL)?;
        }
        let sys_cg = OptionalClk::get(dev, Some(c"sys_cg"))
            .inspect_err(|e| dev_err!(dev, "clock \"sys_cg\": {:?}\n", e))?;
        sys_cg
            .prepare_enable()
            .inspect_err(|e| dev_err!(dev, "cannot enable sys_cg: {:?}\n", e))?;
        // Dropped before `ungate` succeeds, `clocks` turns only `sys_cg` off.
        let clocks = Self {
            source,
            hclk,
            gates,
            sys_cg,
            running: AtomicBool::new(false),
        };
        clocks.ungate(dev)?;
        Ok(clocks)
    }

    /// Runtime suspend: turns every clock off, the register interface last.
    fn gate(&self) {
        if self.running.swap(false, Ordering::AcqRel) {
            for gate in self.gates.iter().rev() {
                gate.disable_unprepare();
            }
            self.source.disable_unprepare();
            self.hclk.disable_unprepare();
        }
    }

    /// Probe and runtime resume: turns the clocks on, the register interface first; on a
    /// failure the ones already on are turned off again.
    fn ungate(&self, dev: &Device) -> Result {
        if self.running.load(Ordering::Acquire) {
            return Ok(());
        }
        self.hclk
            .prepare_enable()
            .inspect_err(|e| dev_err!(dev, "cannot enable hclk: {:?}\n", e))?;
        if let Err(e) = self.source.prepare_enable() {
            dev_err!(dev, "cannot enable the source clock: {:?}\n", e);
            self.hclk.disable_unprepare();
            return Err(e);
        }
        for (on, gate) in self.gates.iter().enumerate() {
            if let Err(e) = gate.prepare_enable() {
                dev_err!(dev, "cannot enable a clock gate: {:?}\n", e);
                for earlier in self.gates.iter().take(on).rev() {
                    earlier.disable_unprepare();
                }
                self.source.disable_unprepare();
                self.hclk.disable_unprepare();
                return Err(e);
            }
        }
        self.running.store(true, Ordering::Release);
        Ok(())
    }
}

impl Drop for Clocks {
    fn drop(&mut self) {
        // Unbinding holds the device active, so they are on; gating turns off only what is.
        self.gate();
        self.sys_cg.disable_unprepare();
    }
}

/// The interrupt handler: everything happens in the slot.
struct MsdcIrq {
    msdc: Arc<Msdc>,
}

impl irq::Handler for MsdcIrq {
    fn handle(&self) -> IrqReturn {
        let polls = self.msdc.poll_reads();
        let entered = Instant::<Monotonic>::now();
        let kind = self.msdc.handle_interrupt();
        let ns = u64::try_from(entered.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let polls = self.msdc.poll_reads().wrapping_sub(polls);
        self.msdc.counters.interrupt_handled(kind, ns, polls);
        if kind.handled() {
            IrqReturn::Handled
        } else {
            IrqReturn::None
        }
    }
}

/// Stops the slot's watchdog after the host is gone and the interrupt freed.
struct Shutdown(Arc<Msdc>);

impl Drop for Shutdown {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}

/// A bound controller. Fields drop in order: the host leaves the MMC core (finishing its
/// requests), then its debugfs directory goes, the interrupt is freed, the watchdog stopped,
/// the clocks turned off and the device stops being a wake-up source.
#[pin_data]
pub(crate) struct MsdcData<'a> {
    _mmc: kernel_mmc::Registration<MsdcSlot>,
    _debugfs: Option<Pin<KBox<debugfs::HostDir>>>,
    #[pin]
    _irq: irq::Registration<'a, MsdcIrq>,
    _shutdown: Shutdown,
    /// The slot, for the power callbacks.
    msdc: Arc<Msdc>,
    clocks: Clocks,
    /// The device as a wake-up source, on a slot with an SDIO wake-up interrupt.
    _wakeup: Option<kernel_mmc::pm::WakeupSource>,
}

impl kernel_mmc::pm::PowerOps for MsdcDriver {
    fn runtime_suspend(this: Pin<&MsdcData<'_>>) -> Result {
        this.msdc.suspend()?;
        this.clocks.gate();
        Ok(())
    }

    fn runtime_resume(this: Pin<&MsdcData<'_>>) -> Result {
        this.clocks.ungate(this.msdc.device())?;
        this.msdc.resume()
    }

    fn system_resume(this: Pin<&MsdcData<'_>>) {
        this.msdc.system_resumed();
    }
}

/// The register windows: `reg[0]`, and `reg[1]` (the top window) on SoCs that need it,
/// refused without it as upstream does; simulated when the test-only simulation claims
/// the address.
fn register_window(pdev: &platform::Device<Core<'_>>, soc: &SocData) -> Result<RegisterWindow> {
    let dev = pdev.as_ref();
    let resource = pdev.resource_by_index(0).ok_or_else(|| {
        dev_err!(dev, "no register window in \"reg\"\n");
        EINVAL
    })?;
    if soc.needs_top_base && pdev.resource_by_index(1).is_none() {
        dev_err!(
            dev,
            "this SoC's pad controls are in a second register window, and \"reg\" has none\n"
        );
        return Err(EINVAL);
    }
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    if let Some(sim) = crate::kernel_mmc::simboard::SimulatedWindow::claim(resource.start()) {
        dev_info!(dev, "registers at {:#x} are simulated\n", resource.start());
        return Ok(RegisterWindow::new(Access::Simulated(sim)));
    }
    let _ = resource;
    let request = pdev.io_request_by_index(0).ok_or(EINVAL)?;
    let base = request
        .iomap_sized::<REGISTER_WINDOW_SIZE>()
        .inspect_err(|e| dev_err!(dev, "cannot map the registers: {:?}\n", e))?
        .into_devres()?;
    // Upstream 7.3 maps the top window only where the SoC needs it.
    let top = if soc.needs_top_base {
        let request = pdev.io_request_by_index(1).ok_or(EINVAL)?;
        Some(
            request
                .iomap_sized::<TOP_WINDOW_SIZE>()
                .inspect_err(|e| dev_err!(dev, "cannot map the top registers: {:?}\n", e))?
                .into_devres()?,
        )
    } else {
        None
    };
    Ok(RegisterWindow::new(Access::Mmio { base, top }))
}

/// The SDIO wake-up interrupt ("sdio_wakeup"), as upstream takes it: on a slot with SDIO
/// interrupts whose device tree keeps the card powered and lets it wake the system, with
/// the "state_eint" pin state that turns DAT1 into its line; the device becomes a wake-up
/// source while the driver is bound.
fn sdio_wake_irq(
    pdev: &platform::Device<Core<'_>>,
    host: &Host,
    pins: &Pins,
) -> Result<Option<(u32, kernel_mmc::pm::WakeupSource)>> {
    let wanted = pm_caps::KEEP_POWER | pm_caps::WAKE_SDIO_IRQ;
    if host.caps() & caps::SDIO_IRQ == 0 || host.pm_caps() & wanted != wanted {
        return Ok(None);
    }
    let Ok(irq) = pdev.optional_irq_by_name(c"sdio_wakeup") else {
        return Ok(None);
    };
    let dev = pdev.as_ref();
    if !pins.has(PinState::Eint) {
        dev_err!(
            dev,
            "an \"sdio_wakeup\" interrupt but no \"state_eint\" pin state: not used\n"
        );
        return Ok(None);
    }
    let wakeup = kernel_mmc::pm::WakeupSource::init(dev)
        .inspect_err(|e| dev_err!(dev, "cannot make the device a wake-up source: {:?}\n", e))?;
    dev_dbg!(dev, "SDIO wake-up interrupt {}\n", irq.irq());
    Ok(Some((irq.irq(), wakeup)))
}

/// Adds the host to the MMC core with the slot's queue engine: the driver's (`queued`),
/// none, or in test kernels one of the kernel's C engines, installed by the registration.
fn add_host(
    host: HostAllocation,
    settings: &HostSettings,
    slot: MsdcSlot,
    queued: bool,
) -> Result<kernel_mmc::Registration<MsdcSlot>> {
    #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
    {
        let msdc = slot.msdc.clone();
        if let Some(c) = msdc.c_engine() {
            return kernel_mmc::Registration::add_with_c_engine(
                host,
                settings,
                Ok::<_, Error>(slot),
                c.engine(),
            );
        }
    }
    if queued {
        kernel_mmc::Registration::add_with_queue(host, settings, Ok::<_, Error>(slot))
    } else {
        kernel_mmc::Registration::add(host, settings, Ok::<_, Error>(slot))
    }
}

/// The kernel's C queue engines in the Rust engines' place (test kernels only).
#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
mod c_engines {
    use kernel::{device::Device, prelude::*};

    use crate::{
        cqhci::regs::CQSSC1,
        host::QueueChoice,
        kernel_mmc::{CEngine, CEngineKind},
    };

    /// With `mtk_sd_rust_sim.engine=c`, the queue the probe chose on the C engine of its
    /// kind: `cqhci` for the CQHCI engine (the same idle timer; it allocates its own
    /// descriptors), `mmc_hsq` for the software queue. Capabilities, depth and transfer
    /// limits stay as the probe set them for the Rust engine.
    pub(super) fn in_place_of_rust(dev: &Device, queue: QueueChoice) -> QueueChoice {
        if !crate::kernel_mmc::simboard::c_engines() {
            return queue;
        }
        let (kind, idle_timer) = match queue {
            QueueChoice::Hardware { idle_timer, .. } => (CEngineKind::Cqhci, idle_timer),
            QueueChoice::Software => (CEngineKind::Hsq, CQSSC1::zeroed()),
            other => return other,
        };
        let engine = CEngine::new(kind);
        dev_info!(dev, "queue engine: the kernel's C {}\n", engine.name());
        QueueChoice::C { engine, idle_timer }
    }
}

impl platform::Driver for MsdcDriver {
    type IdInfo = &'static SocData;
    type Data<'bound> = MsdcData<'bound>;
    const OF_ID_TABLE: Option<of::IdTable<Self::IdInfo>> = Some(&OF_TABLE);

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<MsdcData<'bound>, Error> + 'bound {
        pin_init::pin_init_scope(move || {
            let dev = pdev.as_ref();
            let Some(soc) = info.copied() else {
                dev_err!(
                    dev,
                    "no per-SoC data: the device matched no known compatible\n"
                );
                return Err(ENODEV);
            };
            let props = MediatekProperties::read(dev)?;
            let clocks = Clocks::get_and_enable(dev)?;
            let source_hz = u32::try_from(clocks.source.rate().as_hz()).unwrap_or(u32::MAX);
            if source_hz == 0 {
                dev_err!(dev, "the source clock runs at 0 Hz\n");
                return Err(EINVAL);
            }
            let regs = register_window(pdev, soc)?;
            if kernel_mmc::pulse_optional_reset(dev, c"hrst")
                .inspect_err(|e| dev_err!(dev, "reset \"hrst\": {:?}\n", e))?
            {
                dev_dbg!(dev, "controller reset through \"hrst\"\n");
            }
            let pins = Pins::get(dev).inspect_err(|e| dev_err!(dev, "pin states: {:?}\n", e))?;
            if !pins.has(PinState::Default) {
                dev_info!(
                    dev,
                    "no \"default\" pin state: pads stay as the firmware set them\n"
                );
            }
            let addressing = DmaAddressing::from_support_64g(soc.support_64g);
            kernel_mmc::set_dma_mask(pdev, addressing.address_bits())
                .inspect_err(|e| dev_err!(dev, "DMA mask: {:?}\n", e))?;
            let descriptors = DescriptorMemory::new(dev, DESCRIPTOR_AREA_LEN)
                .inspect_err(|e| dev_err!(dev, "no memory for DMA descriptors: {:?}\n", e))?;

            let mut host = HostAllocation::for_registration(dev)?;
            host.parse_device_tree()
                .inspect_err(|e| dev_err!(dev, "MMC properties: {:?}\n", e))?;
            host.get_regulators().inspect_err(|e| {
                if *e != EPROBE_DEFER {
                    dev_err!(dev, "card supplies: {:?}\n", e);
                }
            })?;
            host.add_caps(caps::CMD23, 0);
            // Only the fast timings the controller can tune on this SoC reach the core.
            let tunable = soc.tunable_timings();
            let untunable = |can: bool, bits: u32| if can { 0 } else { bits };
            host.remove_caps(
                untunable(tunable.sdr104, caps::UHS_SDR104)
                    | untunable(tunable.sdr50, caps::UHS_SDR50)
                    | untunable(tunable.ddr50, caps::UHS_DDR50),
                untunable(tunable.hs200, caps::HS200)
                    | untunable(tunable.hs400, caps::HS400)
                    | untunable(tunable.hs400_enhanced_strobe, caps::HS400_ES),
            );
            if host.caps() & caps::SDIO_IRQ != 0 {
                // The interrupt handler signals SDIO interrupts itself (sdio_signal_irq).
                host.add_caps(0, caps::SDIO_IRQ_NOTHREAD);
            }
            // The queue: CQHCI where the device tree says the block may be used, the host
            // software queue for slots that never hold SDIO, else one request at a time.
            let hardware_queue = props.supports_cqe;
            let software_queue = !hardware_queue && host.host().caps2() & caps::NO_SDIO != 0;
            let (max_segments, max_segment_size) = if hardware_queue {
                // What one CQHCI task's transfer descriptors carry.
                (MAX_TASK_SEGMENTS, MAX_SEGMENT_BYTES)
            } else {
                (MAX_SEGMENTS as u16, addressing.max_segment_len())
            };
            let max_request =
                request_limit(u32::from(max_segments).saturating_mul(max_segment_size));
            host.set_limits(&TransferLimits {
                max_segments,
                max_segment_size,
                max_block_size: 2048,
                max_block_count: max_request / 512,
                max_request_size: max_request,
                max_busy_timeout_ms: 0,
            });
            // The block layer's depth for the hardware queue; the software queue publishes
            // its own (`hsq_depth`).
            let mut cqe_queue_depth = 0;
            let queue = if hardware_queue {
                host.add_caps(0, caps::CQE | caps::CQE_DCMD);
                let config = engine_config();
                let engine = cqhci::Cqhci::new(config).map_err(|e| {
                    dev_err!(dev, "CQHCI configuration: {:?}\n", e);
                    EINVAL
                })?;
                if let Some(c) = config.coalescing {
                    dev_info!(
                        dev,
                        "CQHCI interrupt coalescing: threshold {}, timeout {} x 1024 timer clocks\n",
                        c.threshold,
                        c.timeout
                    );
                }
                let layout = engine.layout();
                cqe_queue_depth = engine.queue_depth();
                let memory =
                    DescriptorMemory::new(dev, layout.tdl_len() + layout.transfer_area_len())
                        .inspect_err(|e| {
                            dev_err!(dev, "no memory for CQHCI descriptors: {:?}\n", e)
                        })?;
                let hclk_hz = u32::try_from(clocks.hclk.rate().as_hz()).unwrap_or(u32::MAX);
                let cap = Io::<cqhci::CqhciBlock>::read::<CQCAP>(&regs);
                QueueChoice::Hardware {
                    config,
                    memory,
                    idle_timer: send_status_idle_timer(hclk_hz, cap, SEND_STATUS_IDLE_NS),
                }
            } else if software_queue {
                QueueChoice::Software
            } else {
                QueueChoice::OneAtATime
            };
            #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
            let queue = c_engines::in_place_of_rust(dev, queue);
            let queued = !matches!(queue, QueueChoice::OneAtATime);
            let (sdio_wake_irq, wakeup) = sdio_wake_irq(pdev, host.host(), &pins)?.unzip();
            let card_detect = CardDetect::for_slot(
                host.caps() & caps::NONREMOVABLE != 0,
                host.host().gpio_card_detect().is_some(),
                host.caps() & caps::NEEDS_POLL != 0,
                host.host().caps2() & caps::CD_ACTIVE_HIGH != 0,
                soc,
            );
            if card_detect == CardDetect::Polled && host.caps() & caps::NEEDS_POLL == 0 {
                // A removable slot with no card-detect line at all (no GPIO, none in the
                // controller, no `broken-cd`): without polling the core would never see
                // the card go, and keep failing its I/O (sdhci polls such slots too).
                dev_info!(dev, "no card-detect line: the MMC core polls the slot\n");
                host.add_caps(caps::NEEDS_POLL, 0);
            }
            // The MMC core holds the device active while it uses the host.
            kernel_mmc::pm::enable_autosuspend(dev, AUTOSUSPEND_DELAY_MS)
                .inspect_err(|e| dev_err!(dev, "runtime PM: {:?}\n", e))?;
            let settings = HostSettings {
                min_frequency: soc.clock_divider.minimum_clock_hz(source_hz),
                max_frequency: source_hz,
                ocr_avail: vdd::VDD_32_33 | vdd::VDD_33_34,
                caps: 0,
                caps2: 0,
                queue_depth: cqe_queue_depth,
            };
            let setup = HostSetup {
                soc,
                source_hz,
                addressing,
                // Set per request from the card type (eMMC only).
                auto_cmd23: false,
                board: props.board_tuning(host.host().caps2() & caps::NO_MMC != 0),
            };
            let msdc = Msdc::new(
                SlotParts {
                    dev: dev.into(),
                    host: host.host_ref(),
                    regs,
                    pins,
                    descriptors,
                    card_detect,
                    sdio_wake_irq,
                },
                setup,
                queue,
            )?;
            dev_info!(
                dev,
                "mmc{}: MSDC, source clock {} Hz, {}-bit divider, {}-bit DMA, card detect {:?}{}\n",
                host.index(),
                source_hz,
                soc.clock_divider.bits(),
                addressing.address_bits(),
                card_detect,
                props.summary()
            );
            let irq_handler = MsdcIrq { msdc: msdc.clone() };
            let slot = MsdcSlot { msdc: msdc.clone() };
            // Statistics are a debugging aid: a host without them still works.
            let host_dir = debugfs::host_dir(host.index(), msdc.clone())
                .inspect_err(|e| dev_warn!(dev, "no debugfs directory: {:?}\n", e))
                .ok();
            Ok(try_pin_init!(MsdcData {
                _wakeup: wakeup,
                clocks,
                _shutdown: Shutdown(msdc.clone()),
                msdc,
                // SAFETY: the registration lives in the driver data, which the platform
                // core drops on unbind; it is never leaked.
                _irq <- unsafe {
                    pdev.request_irq_by_index(
                        irq::Flags::TRIGGER_NONE,
                        0,
                        c"mtk_sd_rust",
                        Ok::<_, Error>(irq_handler),
                    )
                },
                _debugfs: host_dir,
                // Last: the core starts sending commands from here on.
                _mmc: add_host(host, &settings, slot, queued)
                    .inspect_err(|e| dev_err!(dev, "cannot add the MMC host: {:?}\n", e))?,
            }? Error))
        })
    }
}
