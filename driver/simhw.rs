// SPDX-License-Identifier: GPL-2.0

//! The simulated test board (`CONFIG_MMC_MTK_RUST_SIM`, never in production kernels):
//! two MSDC controllers modelled at register level by `sim`, one with an eMMC card (two
//! boot partitions, RPMB, a cache) and one with an SD card, their storage in memory.
//!
//! The board is a device tree overlay (`dts/msdc-sim.dtso`) with real MSDC nodes, fixed
//! clocks and supplies, so the driver probes them exactly as it probes hardware. The one
//! difference: when a node's register window belongs to a simulated controller,
//! [`claim`] hands the driver that controller instead of an MMIO mapping. Interrupts come
//! from the kernel's interrupt simulator, so the driver's handler runs in hard-IRQ
//! context as with a real interrupt line.
//!
//! Simulated controllers work next to the CPU: a register write that starts a command or
//! a DMA transfer queues the model's run in a work item; the run moves the data, and the
//! interrupt follows after the time the latency model gives the work. The line is
//! level-like: it is raised whenever `MSDC_INT & MSDC_INTEN` becomes non-zero.

mod ffi;

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::{
    alloc::VBox,
    impl_has_hr_timer, impl_has_work,
    init::InPlaceInit,
    new_work,
    prelude::*,
    sync::{new_spinlock_irq, Arc, ArcBorrow, SetOnce, SpinLockIrq},
    time::{
        hrtimer::{
            ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
            HrTimerRestart, RelativeMode,
        },
        Delta, Monotonic,
    },
    workqueue::{Work, WorkItem},
};

use crate::sim::{
    emmc::{
        card::{Card, CardConfig, DataError, ReadyOrder},
        command::{CardWork, Command, NoResponse, Response},
    },
    latency::Latency,
    memory::{BusFault, BusMemory},
    msdc::{
        controller::{ModelConfig, MsdcModel},
        slot::CardSlot,
    },
    sd::card::{SdCard, SdConfig},
};

/// Bytes of storage of each simulated card.
const CARD_BYTES: usize = 64 << 20;
/// Steps a model may take per run (a command, then its data phase).
const STEPS_PER_RUN: u32 = 4;
/// Bytes of each of the eMMC's two boot partitions (a multiple of 128 KiB).
const EMMC_BOOT_BYTES: usize = 4 << 20;
/// eMMC command queue depth the card advertises in EXT_CSD.
const EMMC_QUEUE_DEPTH: u8 = 32;

/// Zeroed card storage that lives as long as the kernel (the board is never removed).
fn storage<const BYTES: usize>() -> Result<&'static mut [u8]> {
    let bytes =
        <VBox<[u8; BYTES]> as InPlaceInit<_>>::init(pin_init::zeroed::<[u8; BYTES]>(), GFP_KERNEL)?;
    Ok(VBox::leak(bytes))
}

/// What sits in a simulated slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CardKind {
    Emmc,
    Sd,
}

/// One slot of the board: register window address, interrupt line, card.
struct SlotSpec {
    base: u64,
    hwirq: u32,
    card: CardKind,
}

/// The board as `dts/msdc-sim.dtso` describes it.
const SLOTS: [SlotSpec; 2] = [
    SlotSpec {
        base: 0x10_11f6_0000,
        hwirq: 0,
        card: CardKind::Emmc,
    },
    SlotSpec {
        base: 0x10_11f7_0000,
        hwirq: 1,
        card: CardKind::Sd,
    },
];

/// The overlay's board node, whose children are the devices.
const BOARD_PATH: &CStr = c"/msdc-sim-board";
/// The overlay's interrupt controller node.
const IRQ_NODE_PATH: &CStr = c"/msdc-sim-board/interrupt-controller";

/// A card model in a slot.
#[allow(
    clippy::large_enum_variant,
    reason = "one per simulated slot, inside its heap-allocated controller"
)]
enum SimCard {
    Emmc(Card<'static>),
    Sd(SdCard<'static>),
}

impl CardSlot for SimCard {
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        match self {
            Self::Emmc(card) => card.command(cmd),
            Self::Sd(card) => card.command(cmd),
        }
    }

    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        match self {
            Self::Emmc(card) => CardSlot::read_data(card, buf),
            Self::Sd(card) => CardSlot::read_data(card, buf),
        }
    }

    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        match self {
            Self::Emmc(card) => CardSlot::write_data(card, data),
            Self::Sd(card) => CardSlot::write_data(card, data),
        }
    }

    fn bus_width(&self) -> Option<u8> {
        match self {
            Self::Emmc(card) => CardSlot::bus_width(card),
            Self::Sd(card) => CardSlot::bus_width(card),
        }
    }

    fn max_clock_hz(&self) -> Option<u32> {
        match self {
            Self::Emmc(card) => CardSlot::max_clock_hz(card),
            Self::Sd(card) => CardSlot::max_clock_hz(card),
        }
    }

    fn take_work(&mut self) -> CardWork {
        match self {
            Self::Emmc(card) => CardSlot::take_work(card),
            Self::Sd(card) => CardSlot::take_work(card),
        }
    }
}

/// RAM as the simulated DMA engines see it: by physical address (no IOMMU).
struct SystemRam;

impl BusMemory for SystemRam {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), BusFault> {
        ffi::ram_read(address, buf).map_err(|_| BusFault { address })
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), BusFault> {
        ffi::ram_write(address, data).map_err(|_| BusFault { address })
    }
}

struct SimState {
    model: MsdcModel,
    card: SimCard,
    /// The interrupt waiting for the simulated time of the work that raised it.
    irq_timer: Option<ArcHrTimerHandle<SimulatedMsdc>>,
}

/// A simulated MSDC controller with its card, as the driver's register backend.
///
/// Register reads and writes act on the model's register file at once. The work a write
/// starts (a command, a DMA transfer) runs afterwards in a work item, as hardware runs
/// next to the CPU; when it finishes, the interrupt is raised after the time the latency
/// model says the work takes on a real bus and card (`sim::latency`).
#[pin_data]
pub(crate) struct SimulatedMsdc {
    base: u64,
    hwirq: u32,
    claimed: AtomicBool,
    #[pin]
    state: SpinLockIrq<SimState>,
    #[pin]
    work: Work<SimulatedMsdc>,
    #[pin]
    timer: HrTimer<SimulatedMsdc>,
}

impl_has_work! {
    impl HasWork<Self> for SimulatedMsdc { self.work }
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for SimulatedMsdc {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
}

/// Simulated work shorter than this raises its interrupt at once (timer overhead).
const MIN_LATENCY_NS: u64 = 1_000;

impl SimulatedMsdc {
    fn new(spec: &SlotSpec) -> Result<Arc<Self>> {
        let card = match spec.card {
            CardKind::Emmc => SimCard::Emmc(Card::with_config(
                storage::<CARD_BYTES>()?,
                [storage::<EMMC_BOOT_BYTES>()?, storage::<EMMC_BOOT_BYTES>()?],
                CardConfig {
                    queue_depth: EMMC_QUEUE_DEPTH,
                    order: ReadyOrder::Immediate,
                    ..CardConfig::default()
                },
            )),
            CardKind::Sd => SimCard::Sd(SdCard::new(storage::<CARD_BYTES>()?, SdConfig::default())),
        };
        // MT8192 (the overlay's compatible): 12-bit divider, 36-bit DMA, a 200 MHz
        // source clock as the overlay's fixed clock says.
        let config = ModelConfig {
            support_64g: true,
            divider_12bit: true,
            source_hz: 200_000_000,
            latency: match spec.card {
                CardKind::Emmc => Latency::EMMC,
                CardKind::Sd => Latency::SD,
            },
        };
        Arc::pin_init(
            pin_init!(Self {
                base: spec.base,
                hwirq: spec.hwirq,
                claimed: AtomicBool::new(false),
                state <- new_spinlock_irq!(SimState {
                    model: MsdcModel::new(config),
                    card,
                    irq_timer: None,
                }),
                work <- new_work!("SimulatedMsdc::work"),
                timer <- HrTimer::new(),
            }),
            GFP_KERNEL,
        )
    }

    /// A register read.
    pub(crate) fn read(&self, offset: usize) -> u32 {
        self.state.lock().model.read(offset)
    }

    /// A register write. The interrupt line follows `MSDC_INT & MSDC_INTEN` (enabling an
    /// interrupt that is already latched raises it); work the write started is queued.
    pub(crate) fn write(self: &Arc<Self>, offset: usize, value: u32) {
        let pending = {
            let mut state = self.state.lock();
            state.model.write(offset, value);
            state.model.interrupt_pending()
        };
        if pending {
            self.raise();
        }
        // Already queued is fine: the queued run picks this write's work up too.
        let _ = ffi::default_queue().enqueue(self.clone());
    }

    fn raise(&self) {
        if let Some(board) = BOARD.as_ref() {
            if let Some(irqs) = board.irqs.as_ref() {
                irqs.raise(self.hwirq);
            }
        }
    }

    /// Runs what the registers started, then raises the interrupt when its time is up.
    fn run_model(self: Arc<Self>) {
        let (pending, elapsed_ns) = {
            let mut state = self.state.lock();
            let state = &mut *state;
            if state
                .model
                .run(&mut state.card, &mut SystemRam, STEPS_PER_RUN)
                == 0
            {
                return;
            }
            (
                state.model.interrupt_pending(),
                state.model.take_elapsed_ns(),
            )
        };
        if !pending {
            return;
        }
        if elapsed_ns < MIN_LATENCY_NS {
            self.raise();
            return;
        }
        // All handles name the one timer: retire the old one before starting it again. It
        // has fired by now (its work ran first); if not, the new expiry raises the line.
        let previous = self.state.lock().irq_timer.take();
        drop(previous);
        let delay = Delta::from_nanos(i64::try_from(elapsed_ns).unwrap_or(i64::MAX));
        let handle = self.clone().start(delay);
        self.state.lock().irq_timer = Some(handle);
    }
}

impl WorkItem for SimulatedMsdc {
    type Pointer = Arc<SimulatedMsdc>;

    fn run(this: Arc<Self>) {
        this.run_model();
    }
}

impl HrTimerCallback for SimulatedMsdc {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        if this.state.lock().model.interrupt_pending() {
            this.raise();
        }
        HrTimerRestart::NoRestart
    }
}

struct Board {
    slots: KVec<Arc<SimulatedMsdc>>,
    irqs: SetOnce<ffi::SimIrqDomain>,
}

static BOARD: SetOnce<Board> = SetOnce::new();

/// The simulated controller whose register window starts at `base`, if any; each is
/// handed out once (to the device probing that window).
pub(crate) fn claim(base: u64) -> Option<Arc<SimulatedMsdc>> {
    let board = BOARD.as_ref()?;
    let slot = board.slots.iter().find(|s| s.base == base)?;
    (!slot.claimed.swap(true, Ordering::AcqRel)).then(|| slot.clone())
}

/// Builds the board: card models, the overlay, the interrupt domain, then the devices
/// (which the MSDC driver, registered before, probes).
pub(crate) fn install() -> Result {
    let mut slots = KVec::with_capacity(SLOTS.len(), GFP_KERNEL)?;
    for spec in &SLOTS {
        slots.push(SimulatedMsdc::new(spec)?, GFP_KERNEL)?;
    }
    if !BOARD.populate(Board {
        slots,
        irqs: SetOnce::new(),
    }) {
        pr_err!("mtk_sd_rust: the simulated board is already installed\n");
        return Err(EBUSY);
    }
    let board = BOARD.as_ref().ok_or(EINVAL)?;
    ffi::apply_overlay().inspect_err(|e| pr_err!("mtk_sd_rust: board overlay: {:?}\n", e))?;
    let irq_node = ffi::Node::find(IRQ_NODE_PATH).ok_or(ENOENT)?;
    let irqs = ffi::SimIrqDomain::new(&irq_node, SLOTS.len() as u32)?;
    irq_node.mark_initialized();
    board.irqs.populate(irqs);
    let board_node = ffi::Node::find(BOARD_PATH).ok_or(ENOENT)?;
    board_node
        .populate_children()
        .inspect_err(|e| pr_err!("mtk_sd_rust: board devices: {:?}\n", e))?;
    pr_info!(
        "mtk_sd_rust: simulated board: eMMC and SD slots, {} MiB each\n",
        CARD_BYTES >> 20
    );
    Ok(())
}
