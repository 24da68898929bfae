// SPDX-License-Identifier: GPL-2.0

//! The simulated test board (`CONFIG_MMC_MTK_RUST_SIM`, never in production kernels):
//! six MSDC controllers modelled at register level by `models`, their storage in memory. The
//! first five serve a memory card each, one for each way the MMC core may queue requests:
//!
//! * the CQHCI block and an eMMC card that supports command queueing: CQHCI;
//! * no CQHCI block, the same kind of eMMC, a slot that never holds SDIO: HSQ;
//! * no CQHCI block, an SD card, a slot that never holds SDIO: HSQ;
//! * the CQHCI block and an eMMC card without a command queue (EXT_CSD CMDQ_SUPPORT 0): the
//!   core never enables the queue, the CQHCI engine refuses to start, and the core sends
//!   one request at a time;
//! * no CQHCI block and an SD card in a slot that may hold SDIO: one request at a time
//!   (the core probes for SDIO first; the SD card does not answer CMD5).
//!
//! The sixth holds an SDIO card with one function, which the board's test function
//! driver moves data and interrupts through.
//!
//! The first three cards have 64 MiB; the two eMMC among them have two boot partitions.
//! The last two have 16 MiB, enough for the end-to-end test's jobs, and the eMMC among
//! them no boot partitions. Each eMMC has RPMB and a cache.
//!
//! The board is a device tree overlay (`dts/msdc-sim.dtso`) with real MSDC nodes, clocks,
//! power domains and supplies, so the driver probes them exactly as it probes hardware.
//! The one difference: when a node's register window belongs to a simulated controller,
//! [`claim`] hands the driver that controller instead of an MMIO mapping (through the C
//! functions of [`exports`], so that the driver reaches the board whether it is built in
//! or loaded as a module; the board itself is always built in). Interrupts come
//! from the kernel's interrupt simulator, so the driver's handler runs in hard-IRQ
//! context as with a real interrupt line.
//!
//! Each slot's seven clocks ("source" for the card clock divider, "hclk" for the
//! registers, and the gates "source_cg", "sys_cg", "pclk_cg", "axi_cg" and "ahb_cg" of
//! the binding) are gate clocks of the common clock framework, and each slot has a
//! generic PM domain; the board serves both through the overlay's provider nodes, so the
//! driver gates and powers the controller with the kernel's clock and runtime PM calls
//! and knows nothing of the simulation. The gates and the domain switch the model's clocks and power: a slot
//! starts unpowered with its clocks stopped, power-off resets the model's registers and
//! forgets the work it had pending, and a register access without power or clocks is a
//! violation the model records.
//!
//! Simulated controllers work next to the CPU: every register write queues the model's
//! run in a work item; the run executes what the registers started (a command, a DMA
//! transfer, CQHCI tasks) for at most [`STEPS_PER_RUN`] steps, or up to the step that
//! raises the interrupt line (hardware signals an event when it happens: a completion
//! is not held back by the tasks after it), and the interrupt follows
//! after the time the latency model gives that work, counted from the start of the run
//! (the guest time the model itself takes, copying data mostly, is part of it; work
//! that a woken thread issued may start later, [`wake_up`]). A run that stops at its
//! step limit is resumed when that time is up, so the CQHCI block, which works through its tasks
//! (CMD44/45, CMD13 polls, CMD46/47 with data) with no register write in between, keeps
//! going without ever holding the worker for long; so is a run that stopped at the line
//! with CQHCI tasks left. The CQHCI block's interrupt coalescing timer
//! runs on the model clock: while it runs with nothing else to do, the timer expires at its
//! deadline and the run then raises the interrupt. The models never wait without
//! working: a CQHCI block whose card has no task ready polls at its send-status idle timer
//! and charges the wait as simulated time, so its runs use their steps and are resumed
//! after that time (`slot/tests/controller/cqe.rs` runs the models this way on the host).
//! A halt or CLEAR ALL TASKS of the
//! CQHCI block completes when the driver next reads the block, as hardware completes it
//! within the microseconds a driver busy-waits for it with its lock held (when the worker
//! cannot run). The line is raised whenever `MSDC_INT & MSDC_INTEN` (with `CMDQ` for the
//! CQHCI block) becomes non-zero, after a run or a register access; the interrupt
//! simulator is edge-triggered, and with more than one CPU every raise is made on CPU 0
//! (its delivery loop is not safe against raises from another CPU) while a replayed
//! interrupt may still run the handler elsewhere, where a raise meanwhile is dropped; the
//! single-CPU test machine drops none (a raise from the handler's own register accesses
//! runs it again). Each kind of protocol violation a
//! model records is reported once, with `pr_err`, when its first one is seen (after a run,
//! a register access, or a clock or power switch), for the end-to-end check to find (a
//! driver that misuses the hardware one new way after another is not hidden behind its
//! first mistake).

mod describe;
#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
mod engine_choice;
mod exports;
mod faults;
mod ffi;
mod sdio_function;

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use kernel::{
    alloc::VBox,
    debugfs::{Dir, Scope},
    impl_has_delayed_work, impl_has_hr_timer, impl_has_work,
    init::InPlaceInit,
    new_delayed_work, new_work,
    prelude::*,
    str::CString,
    sync::{new_spinlock_irq, Arc, ArcBorrow, SetOnce, SpinLockIrq},
    time::{
        hrtimer::{
            ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
            HrTimerRestart, RelativeMode,
        },
        msecs_to_jiffies, Delta, Instant, Monotonic,
    },
    workqueue::{DelayedWork, Work, WorkItem},
};

use crate::models::{
    cqhci::{regs::CQIS, ModelConfig as CqhciConfig, Violation as CqhciViolation},
    emmc::ext_csd::TimingSupport,
    emmc::{
        card::{Card, CardConfig, DataError, ReadyOrder},
        command::{CardWork, Command, NoResponse, Response},
    },
    idle::WakeUp,
    latency::Latency,
    memory::{BusFault, BusMemory},
    msdc::{
        controller::{ModelClock, ModelConfig, MsdcModel, SampleWindows},
        regs::{
            CQHCI_BASE, CQHCI_LEN, MSDC_CFG, MSDC_DMA_CTRL, MSDC_INT, MSDC_PS, SDC_CMD, SDC_STS,
        },
        slot::{CardSlot, Socket},
        Violation as MsdcViolation, MAX_VIOLATIONS,
    },
    report::FirstOfKind,
    sd::card::{SdCard, SdConfig},
    sdio::{SdioCard, SdioConfig},
};

// `self::`: a bare `ffi` also names the kernel's `ffi` crate.
use self::{faults::Withheld, ffi::SlotPower};

/// Bytes of storage of the cards of the queueing slots (CQHCI and HSQ).
const CARD_BYTES: usize = 64 << 20;
/// Bytes of storage of the cards served one request at a time: as large as the end-to-end
/// test's jobs in full mode (16 MiB each, all on the same region), to keep memory and
/// boot time down.
const SMALL_CARD_BYTES: usize = 16 << 20;
/// Steps a model may take per run. A command and its data phase take one each; a CQHCI
/// task two (CMD44/45, then CMD46/47 with all its data) and a CMD13 poll, which covers
/// every task queued by then, so a run moves three or four tasks before the worker is
/// given back and the simulated time elapses.
const STEPS_PER_RUN: u32 = 8;
/// Bytes of each of the two boot partitions of the eMMC with a command queue (a multiple
/// of 128 KiB).
const EMMC_BOOT_BYTES: usize = 4 << 20;
/// eMMC command queue depth the card advertises in EXT_CSD.
const EMMC_QUEUE_DEPTH: u8 = 32;
/// Kinds of violations reported per model; a driver that runs into more has bigger
/// problems than the log shows.
const REPORTED_KINDS: usize = 8;
/// Rate of each slot's "source" clock, which feeds the card clock divider: MT8192's MSDC
/// source clock (MSDCPLL), 400 MHz, so that HS200 and SDR104 run at 200 MHz (half of it)
/// and HS400 at 200 MHz DDR.
const SOURCE_HZ: u32 = 400_000_000;
/// Bytes of the SDIO card's function 1 RAM (the most its 16-bit window addresses).
const SDIO_RAM_BYTES: usize = 64 << 10;
/// Rate of each slot's "hclk", the register (bus) clock, from which the driver derives the
/// CQHCI send-status idle timer (`CQSSC1`).
const HCLK_HZ: u32 = 273_000_000;

/// One of a slot's clock gates.
struct GateSpec {
    /// The model's clock it is one of the gates of: the model's clock runs while all of
    /// its gates are open.
    clock: ModelClock,
    /// Its name after the slot's (`sim-msdc-<window>-<suffix>`), as the MSDC binding names
    /// the clock.
    suffix: &'static str,
    /// Its fixed rate.
    hz: u32,
}

/// Each slot's clock gates, MT8192's seven in the binding's order, which is the order of
/// the provider's cells: slot `n`'s are cells `GATES.len() * n + i` (`dts/msdc-sim.dtso`
/// says the same). The source clock and its gate feed the card clock divider; the register
/// clock, the MSDC subsystem's gate and the peripheral, AXI and AHB bus gates all carry the
/// register interface (and the DMA's bus access).
const GATES: [GateSpec; 7] = [
    GateSpec {
        clock: ModelClock::Source,
        suffix: "source",
        hz: SOURCE_HZ,
    },
    GateSpec {
        clock: ModelClock::Register,
        suffix: "hclk",
        hz: HCLK_HZ,
    },
    GateSpec {
        clock: ModelClock::Source,
        suffix: "source_cg",
        hz: SOURCE_HZ,
    },
    GateSpec {
        clock: ModelClock::Register,
        suffix: "sys_cg",
        hz: HCLK_HZ,
    },
    GateSpec {
        clock: ModelClock::Register,
        suffix: "pclk_cg",
        hz: HCLK_HZ,
    },
    GateSpec {
        clock: ModelClock::Register,
        suffix: "axi_cg",
        hz: HCLK_HZ,
    },
    GateSpec {
        clock: ModelClock::Register,
        suffix: "ahb_cg",
        hz: HCLK_HZ,
    },
];

/// The gates of the model's `clock`, as a mask of [`GATES`] indices.
const fn gates_of(clock: ModelClock) -> u8 {
    let mut mask = 0;
    let mut i = 0;
    while i < GATES.len() {
        if GATES[i].clock as u8 == clock as u8 {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

/// Zeroed card storage that lives as long as the kernel (the board is never removed).
fn storage<const BYTES: usize>() -> Result<&'static mut [u8]> {
    let bytes =
        <VBox<[u8; BYTES]> as InPlaceInit<_>>::init(pin_init::zeroed::<[u8; BYTES]>(), GFP_KERNEL)?;
    Ok(VBox::leak(bytes))
}

/// What sits in a simulated slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CardKind {
    /// eMMC 5.1 with a command queue of [`EMMC_QUEUE_DEPTH`], two boot partitions, and
    /// the fast timings `timings`.
    Emmc(TimingSupport),
    /// eMMC 5.1 without a command queue (CMDQ_SUPPORT 0) or boot partitions.
    EmmcWithoutQueue(TimingSupport),
    /// SDHC card with UHS-I (1.8 V signalling, up to SDR104).
    Sd,
    /// SDIO card with one function (models::sdio), no memory, UHS-I SDR50 and the
    /// asynchronous interrupt.
    Sdio,
}

/// One slot of the board: register window address, interrupt line, card, the card's user
/// area, whether the controller has the CQHCI block (at base + 0x800, as the node's
/// `supports-cqe` promises), and the delays at which the slot's lines sample correctly
/// above 52 MHz (the board's traces and the card's timing: what tuning must find).
struct SlotSpec {
    base: u64,
    hwirq: u32,
    /// The interrupt line of the slot's SDIO wake-up pin (DAT1 as a GPIO interrupt,
    /// "sdio_wakeup"), if it has one.
    wake_hwirq: Option<u32>,
    card: CardKind,
    /// Allocates the card's storage (user area, or the SDIO function's RAM).
    user_area: fn() -> Result<&'static mut [u8]>,
    cqhci: bool,
    sampling: SampleWindows,
}

/// No delay samples correctly on this edge.
const NONE: u64 = 0;

/// The board as `dts/msdc-sim.dtso` describes it, one slot per way the core ends up
/// serving a card, each with its own fast timing and sample windows (delay cells 0..62 of
/// the top window's cascaded delay lines; bit n: cell n works):
///
/// | slot | card | queue | timing | windows |
/// |---|---|---|---|---|
/// | 0 | eMMC, CQ | CQHCI | HS400 | rising 6–19 (cmd and data), strobe `DLY1` 9–14 |
/// | 1 | eMMC, CQ | HSQ | HS200 | rising 27–31 and 0–3: wraps around the 32-cell sweep |
/// | 2 | SD | HSQ | SDR104 | rising 26–39 (across both delay lines), falling 40–45 |
/// | 3 | eMMC, no CQ | one at a time | HS400 enhanced strobe | strobe `DLY1` 4–13 |
/// | 4 | SD | one at a time | SDR50 | rising 45–46 only: a narrow window |
/// | 5 | SDIO (UHS-I, asynchronous interrupt) | one at a time | SDR50 | rising 12–31 |
const SLOTS: [SlotSpec; 6] = [
    SlotSpec {
        base: 0x10_11f6_0000,
        hwirq: 0,
        wake_hwirq: None,
        card: CardKind::Emmc(TimingSupport::Hs400),
        user_area: storage::<CARD_BYTES>,
        cqhci: true,
        sampling: SampleWindows {
            cmd: [SampleWindows::span(6, 14), NONE],
            data: [SampleWindows::span(6, 14), NONE],
            strobe: SampleWindows::strobe_span(9, 6),
        },
    },
    SlotSpec {
        base: 0x10_11f7_0000,
        hwirq: 1,
        wake_hwirq: None,
        card: CardKind::Emmc(TimingSupport::Hs200),
        user_area: storage::<CARD_BYTES>,
        cqhci: false,
        sampling: SampleWindows {
            cmd: [SampleWindows::span(27, 5) | SampleWindows::span(0, 4), NONE],
            data: [SampleWindows::span(27, 5) | SampleWindows::span(0, 4), NONE],
            strobe: 0,
        },
    },
    SlotSpec {
        base: 0x10_11f8_0000,
        hwirq: 2,
        wake_hwirq: None,
        card: CardKind::Sd,
        user_area: storage::<CARD_BYTES>,
        cqhci: false,
        sampling: SampleWindows {
            cmd: [SampleWindows::span(26, 14), SampleWindows::span(40, 6)],
            data: [SampleWindows::span(26, 14), SampleWindows::span(40, 6)],
            strobe: 0,
        },
    },
    SlotSpec {
        base: 0x10_11f9_0000,
        hwirq: 3,
        wake_hwirq: None,
        card: CardKind::EmmcWithoutQueue(TimingSupport::Hs400EnhancedStrobe),
        user_area: storage::<SMALL_CARD_BYTES>,
        cqhci: true,
        sampling: SampleWindows {
            cmd: [NONE, NONE],
            data: [NONE, NONE],
            strobe: SampleWindows::strobe_span(4, 10),
        },
    },
    SlotSpec {
        base: 0x10_11fa_0000,
        hwirq: 4,
        wake_hwirq: None,
        card: CardKind::Sd,
        user_area: storage::<SMALL_CARD_BYTES>,
        cqhci: false,
        sampling: SampleWindows {
            cmd: [SampleWindows::span(45, 2), NONE],
            data: [SampleWindows::span(45, 2), NONE],
            strobe: 0,
        },
    },
    SlotSpec {
        base: 0x10_11fb_0000,
        hwirq: 5,
        wake_hwirq: Some(6),
        card: CardKind::Sdio,
        user_area: storage::<SDIO_RAM_BYTES>,
        cqhci: false,
        sampling: SampleWindows {
            cmd: [SampleWindows::span(12, 20), NONE],
            data: [SampleWindows::span(12, 20), NONE],
            strobe: 0,
        },
    },
];

/// The overlay's board node, whose children are the devices.
const BOARD_PATH: &CStr = c"/msdc-sim-board";
/// The overlay's MSDC nodes, one per entry of [`SLOTS`].
const SLOT_PATHS: [&CStr; SLOTS.len()] = [
    c"/msdc-sim-board/msdc-slot0/mmc@1011f60000",
    c"/msdc-sim-board/msdc-slot1/mmc@1011f70000",
    c"/msdc-sim-board/msdc-slot2/mmc@1011f80000",
    c"/msdc-sim-board/msdc-slot3/mmc@1011f90000",
    c"/msdc-sim-board/msdc-slot4/mmc@1011fa0000",
    c"/msdc-sim-board/msdc-slot5/mmc@1011fb0000",
];
/// The overlay's interrupt controller node.
const IRQ_NODE_PATH: &CStr = c"/msdc-sim-board/interrupt-controller";
/// The overlay's clock provider node (the slots' clock gates).
const CLOCK_NODE_PATH: &CStr = c"/msdc-sim-board/clock-controller";
/// The power domain provider node (one domain per slot) of an overlay whose SoC gives
/// its MSDC nodes power domains; the board's overlay has none (see
/// [`serve_clocks_and_power`]).
const POWER_NODE_PATH: &CStr = c"/msdc-sim-board/power-controller";

/// A card model in a slot.
#[allow(
    clippy::large_enum_variant,
    reason = "one per simulated slot, inside its heap-allocated controller"
)]
enum SimCard {
    Emmc(Card<'static>),
    Sd(SdCard<'static>),
    Sdio(SdioCard<'static>),
}

/// Forwards `CardSlot` methods to the card in the slot: `mut` ones take `&mut self`,
/// `ref` ones `&self`.
macro_rules! forward_to_card {
    (@arms $self:ident, $name:ident $(, $arg:ident)*) => {
        match $self {
            Self::Emmc(card) => CardSlot::$name(card $(, $arg)*),
            Self::Sd(card) => CardSlot::$name(card $(, $arg)*),
            Self::Sdio(card) => CardSlot::$name(card $(, $arg)*),
        }
    };
    (
        mut { $(fn $m:ident($($ma:ident: $mt:ty),*) $(-> $mr:ty)?;)* }
        ref { $(fn $r:ident($($ra:ident: $rt:ty),*) $(-> $rr:ty)?;)* }
    ) => {
        $(fn $m(&mut self $(, $ma: $mt)*) $(-> $mr)? {
            forward_to_card!(@arms self, $m $(, $ma)*)
        })*
        $(fn $r(&self $(, $ra: $rt)*) $(-> $rr)? {
            forward_to_card!(@arms self, $r $(, $ra)*)
        })*
    };
}

impl SimCard {
    /// How many RST_n pulses reset the card: eMMC only (SD and SDIO cards have no RST_n).
    fn hardware_resets(&self) -> Option<u32> {
        match self {
            Self::Emmc(card) => Some(card.stats().hardware_resets),
            Self::Sd(_) | Self::Sdio(_) => None,
        }
    }

    /// Takes the card's supply away and gives it back: power-on state, storage kept.
    fn power_cycle(&mut self) {
        match self {
            Self::Emmc(card) => card.power_cycle(),
            Self::Sd(card) => card.power_cycle(),
            Self::Sdio(card) => card.power_cycle(),
        }
    }
}

impl CardSlot for SimCard {
    forward_to_card! {
        mut {
            fn command(cmd: Command) -> Result<Response, NoResponse>;
            fn read_data(buf: &mut [u8]) -> Result<(), DataError>;
            fn write_data(data: &[u8]) -> Result<(), DataError>;
            fn take_work() -> CardWork;
            fn clock_running(running: bool);
            fn hardware_reset();
        }
        ref {
            fn bus_width() -> Option<u8>;
            fn max_clock_hz() -> Option<u32>;
            fn data_lines() -> u8;
            fn cmd_line() -> bool;
            fn sdio_interrupt() -> bool;
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
    /// The card, in its socket: taken out and put back through debugfs (`card`) on the
    /// removable slots.
    card: Socket<SimCard>,
    /// The interrupt waiting for the simulated time of the work that raised it, and the
    /// resumption of a run that stopped at its step limit.
    irq_timer: Option<ArcHrTimerHandle<SimulatedMsdc>>,
    /// The last run stopped at [`STEPS_PER_RUN`] and may have left work, or work arrived
    /// while the hardware was still busy: the timer's expiry queues the next run.
    resume: bool,
    /// The simulated hardware is busy until then with the work it has already run: the
    /// next run waits for it, so the model's work adds up in simulated time instead of
    /// overlapping whenever a register write queues a run early.
    busy_until: Option<Instant<Monotonic>>,
    /// The kinds of the controller model's violations reported so far.
    msdc_reported: FirstOfKind<MsdcViolation, REPORTED_KINDS>,
    /// The kinds of the CQHCI block's violations reported so far.
    cqhci_reported: FirstOfKind<CqhciViolation, REPORTED_KINDS>,
    /// The models' violation counts when [`SimState::unreported_violations`] last looked:
    /// unchanged counts mean nothing new, which keeps the check cheap on every register
    /// access.
    checked_violations: (u32, u32),
    /// The slot's open clock gates, a mask of [`GATES`] indices.
    open_gates: u8,
    /// The card held its interrupt while the controller could not see it: the wake-up
    /// line was raised for this assertion.
    wake_raised: bool,
    /// The faults debugfs asked for (`inject`), armed before each run.
    faults: faults::FaultPlan,
    /// The slot's interrupt signalled work the hardware finished; the driver has issued
    /// nothing since.
    completion_signalled: bool,
    /// When the last register write that found the hardware idle was made: the host's
    /// issue of the work the next run starts.
    issued_at: Option<Instant<Monotonic>>,
    /// A register write found the hardware idle and no run has started work since.
    start_pending: bool,
    /// The gap from the issue of the work the interrupt last signalled finished to that
    /// interrupt, ns: how long a thread waiting for the completion left its CPU idle.
    idle_gap_ns: u64,
    /// A register write from outside the slot's interrupt handler found the hardware idle:
    /// what the next run starts, a thread issued.
    thread_issue: bool,
    /// Raises of the line so far (counted with more than one CPU: the next run raises the
    /// line again while the handler has not seen them, [`SimulatedMsdc::raise`]; why
    /// interrupts were lost without it is TODO[LOST-IRQ-UP])...
    raises: u32,
    /// ...and the count when the slot's handler last read the interrupt status.
    raises_seen: u32,
    /// Raises in a row that the handler did not see (bounded by [`MAX_RERAISES`]).
    unseen_reraises: u32,
}

/// How many times in a row a run raises again an interrupt the handler has not seen before
/// it leaves the interrupt to the driver's request watchdog: an interrupt disabled at the
/// interrupt controller (the kernel's `disable_irq`) with the status still set is never
/// seen, and must not keep the board's work queue busy.
const MAX_RERAISES: u32 = 1_000;

/// Violations of a kind not reported before that a run found, each with its model's count
/// of violations so far.
#[derive(Default)]
struct NewViolations {
    /// The controller model's: it keeps its first [`MAX_VIOLATIONS`] and its last.
    msdc: [Option<(u32, MsdcViolation)>; MAX_VIOLATIONS + 1],
    /// The CQHCI block's: it keeps only its last.
    cqhci: Option<(u32, CqhciViolation)>,
}

impl SimState {
    /// Lets the CQHCI block carry out a pending halt or CLEAR ALL TASKS while the driver
    /// polls its registers for it. Hardware finishes either within microseconds, and
    /// drivers busy-wait for that with their IRQ-safe lock held (upstream's `cqhci_off`
    /// polls for 100 µs), when the worker cannot run. Such a step takes no bus time and
    /// runs no task (`CqhciModel::control_pending`); returns whether it was taken.
    fn settle_cqhci_control(&mut self) -> bool {
        let pending = self.model.cqhci().is_some_and(|c| c.control_pending());
        // A legacy command or data phase in progress would be the model's next step.
        pending && !self.model.busy() && self.model.step(&mut self.card, &mut SystemRam)
    }

    /// The violation counts of the controller model and of its CQHCI block.
    fn violation_counts(&self) -> (u32, u32) {
        (
            self.model.violations().0,
            self.model.cqhci().map_or(0, |c| c.violations().0),
        )
    }

    /// The models' violations of kinds not reported before (so that a misbehaving driver
    /// gets one line per kind and slot, not one per run), if any were recorded since the
    /// last look.
    fn unreported_violations(&mut self) -> Option<NewViolations> {
        let counts = self.violation_counts();
        if counts == self.checked_violations {
            return None;
        }
        self.checked_violations = counts;
        let mut new = NewViolations::default();
        let (count, list) = self.model.violations();
        let mut slots = new.msdc.iter_mut();
        // The kept first ones, then the last (a kind first seen past the kept ones).
        for v in list.iter().copied().flatten() {
            if self.msdc_reported.first(&v) {
                if let Some(slot) = slots.next() {
                    *slot = Some((count, v));
                }
            }
        }
        if let Some(v) = self.model.last_violation() {
            if self.msdc_reported.first(&v) {
                if let Some(slot) = slots.next() {
                    *slot = Some((count, v));
                }
            }
        }
        if let Some((count, Some(last))) = self.model.cqhci().map(|c| c.violations()) {
            if self.cqhci_reported.first(&last) {
                new.cqhci = Some((count, last));
            }
        }
        Some(new)
    }
}

/// A simulated MSDC controller with its card, as the driver's register backend.
///
/// Register reads and writes act on the model's register file at once. The work a write
/// starts (a command, a DMA transfer, CQHCI tasks) runs afterwards in a work item, as
/// hardware runs next to the CPU; the interrupt is raised after the time the latency model
/// says the work takes on a real bus and card (`models::latency`), and work left over when a
/// run reaches its step limit resumes at that time.
///
/// Lock order: the driver calls [`read`](Self::read) and [`write`](Self::write) with its
/// own IRQ-safe lock held, and the clock framework switches the gates under its enable
/// spinlock and genpd the power under the domain's lock, so `state` nests inside all of
/// these and nothing here takes any of them; the interrupt is raised, the work queued and
/// the timer cancelled only after `state` is released.
#[pin_data]
pub(crate) struct SimulatedMsdc {
    base: u64,
    hwirq: u32,
    wake_hwirq: Option<u32>,
    /// Times the wake-up line was raised (the card interrupted a suspended controller).
    wakeups: AtomicU64,
    claimed: AtomicBool,
    /// Guest time spent inside the models (register accesses and runs), in ns: the
    /// simulated hardware's own cost, which `make perf` takes out of the driver's.
    model_ns: AtomicU64,
    /// When the models were built: the models' clocks follow the guest's from then on.
    built: Instant<Monotonic>,
    /// The slot's sampling windows as the board was built with them.
    sampling: SampleWindows,
    /// Delay cells the windows have drifted by since (debugfs `drift`).
    drift: AtomicU64,
    /// The slot's card can be taken out (an SD socket; the device tree's node is not
    /// `non-removable`).
    removable: bool,
    /// The host wake-up cost the board added to the slot's work so far, ns.
    wake_ns: AtomicU64,
    /// The lag from a register write that started work on idle hardware to the run that
    /// started it, summed, ns: the simulated hardware starts in a work item, not at the
    /// write.
    start_lag_ns: AtomicU64,
    /// The starts summed in `start_lag_ns`.
    starts: AtomicU64,
    /// The longest of those lags, ns.
    start_lag_max_ns: AtomicU64,
    /// Raises of the slot's interrupt line (not the wake-up line), by its runs and timer
    /// and by register accesses that find an interrupt pending (the handler's
    /// acknowledgement of `MSDC_INT` while `CQIS` still holds a completion is one): `make
    /// perf`'s raises per I/O.
    raised: AtomicU64,
    #[pin]
    state: SpinLockIrq<SimState>,
    #[pin]
    work: Work<SimulatedMsdc, RUN_WORK>,
    #[pin]
    timer: HrTimer<SimulatedMsdc>,
    /// Raises the line of an interrupt made late (`late_irq`).
    #[pin]
    late_irq: DelayedWork<SimulatedMsdc, LATE_IRQ_WORK>,
}

/// The work item ID of [`SimulatedMsdc::work`], which runs the models.
const RUN_WORK: u64 = 0;

/// The work item ID of [`SimulatedMsdc::late_irq`].
const LATE_IRQ_WORK: u64 = 1;

impl_has_delayed_work! {
    impl HasDelayedWork<Self, LATE_IRQ_WORK> for SimulatedMsdc { self.late_irq }
}

impl_has_work! {
    impl HasWork<Self, RUN_WORK> for SimulatedMsdc { self.work }
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for SimulatedMsdc {
        mode: RelativeMode<Monotonic>, field: self.timer
    }
}

/// Simulated work shorter than this raises its interrupt at once (timer overhead). A run
/// resumes after at least this long, so a model that charges no time for its steps still
/// gives the CPU back between runs.
const MIN_LATENCY_NS: u64 = 1_000;

impl SimulatedMsdc {
    fn new(spec: &SlotSpec) -> Result<Arc<Self>> {
        let user = (spec.user_area)()?;
        let card = match spec.card {
            CardKind::Emmc(timings) => SimCard::Emmc(Card::with_config(
                user,
                [storage::<EMMC_BOOT_BYTES>()?, storage::<EMMC_BOOT_BYTES>()?],
                CardConfig {
                    queue_depth: EMMC_QUEUE_DEPTH,
                    order: ReadyOrder::Immediate,
                    ..CardConfig::default()
                }
                .with_timings(timings)
                .with_hardware_reset(),
            )),
            CardKind::EmmcWithoutQueue(timings) => SimCard::Emmc(Card::with_config(
                user,
                [&mut [], &mut []],
                CardConfig {
                    queue_depth: 0,
                    ..CardConfig::default()
                }
                .with_timings(timings)
                .with_hardware_reset(),
            )),
            CardKind::Sd => SimCard::Sd(SdCard::new(user, SdConfig::default())),
            CardKind::Sdio => SimCard::Sdio(SdioCard::new(
                user,
                SdioConfig {
                    uhs_sdr50: true,
                    ..SdioConfig::default()
                },
            )),
        };
        // MT8192 (the overlay's compatible): 12-bit divider, 36-bit DMA, the source clock
        // its gate serves; the CQHCI block as MediaTek integrates it (64-bit descriptors).
        let config = ModelConfig {
            support_64g: true,
            divider_12bit: true,
            source_hz: SOURCE_HZ,
            // The card profiles of models/README.md: an eMMC 5.1 at HS400 that overlaps its
            // queued tasks, a MicroSD A2 card; the SDIO card as a generic SD card.
            latency: match spec.card {
                CardKind::Emmc(_) | CardKind::EmmcWithoutQueue(_) => Latency::EMMC_HS400_CQ,
                CardKind::Sd => Latency::SD_A2_SDR104,
                CardKind::Sdio => Latency::SD,
            },
            sampling: spec.sampling,
            // MT8183's layout: the pad controls in the top window (`reg[1]`).
            top_region: true,
            ..ModelConfig::default()
        };
        let mut model = if spec.cqhci {
            MsdcModel::with_cqhci(config, CqhciConfig::MEDIATEK)
        } else {
            MsdcModel::new(config)
        };
        // As the slot's clock gates and power start: stopped and off, until the driver
        // enables the gates and the board powers the slot (or, with power domains, genpd
        // powers the domain on when the device attaches).
        for gate in &GATES {
            model.set_clock(gate.clock, false);
        }
        model.power_off();
        Arc::pin_init(
            pin_init!(Self {
                base: spec.base,
                built: Instant::<Monotonic>::now(),
                sampling: spec.sampling,
                drift: AtomicU64::new(0),
                removable: matches!(spec.card, CardKind::Sd),
                wake_ns: AtomicU64::new(0),
                start_lag_ns: AtomicU64::new(0),
                starts: AtomicU64::new(0),
                start_lag_max_ns: AtomicU64::new(0),
                raised: AtomicU64::new(0),
                hwirq: spec.hwirq,
                wake_hwirq: spec.wake_hwirq,
                wakeups: AtomicU64::new(0),
                claimed: AtomicBool::new(false),
                model_ns: AtomicU64::new(0),
                state <- new_spinlock_irq!(SimState {
                    model,
                    card: Socket::new(card),
                    irq_timer: None,
                    resume: false,
                    busy_until: None,
                    msdc_reported: FirstOfKind::new(),
                    cqhci_reported: FirstOfKind::new(),
                    checked_violations: (0, 0),
                    open_gates: 0,
                    wake_raised: false,
                    faults: faults::FaultPlan::default(),
                    completion_signalled: false,
                    issued_at: None,
                    start_pending: false,
                    idle_gap_ns: 0,
                    thread_issue: false,
                    raises: 0,
                    raises_seen: 0,
                    unseen_reraises: 0,
                }),
                work <- new_work!("SimulatedMsdc::work"),
                timer <- HrTimer::new(),
                late_irq <- new_delayed_work!("SimulatedMsdc::late_irq"),
            }),
            GFP_KERNEL,
        )
    }

    /// A register read. A read of the CQHCI block while a halt or clear is pending lets
    /// the block carry it out first (see [`SimState::settle_cqhci_control`]) and raises
    /// the interrupt that may signal.
    pub(crate) fn read(self: &Arc<Self>, offset: usize) -> u32 {
        let (value, pending, violations) = self.timed(|| self.read_model(offset));
        if pending {
            self.as_arc_borrow().raise();
        }
        self.report(violations);
        value
    }

    /// Moves the model's clock on to the guest's time since the model was built.
    fn advance_model(&self, model: &mut MsdcModel) {
        let since_built = (Instant::<Monotonic>::now() - self.built).as_nanos();
        model.advance_to(u64::try_from(since_built).unwrap_or(0));
    }

    /// Runs `f`, the models' work, adding the guest time it takes to [`Self::model_ns`].
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::<Monotonic>::now();
        let result = f();
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(0);
        self.model_ns.fetch_add(ns, Ordering::Relaxed);
        result
    }

    /// The read on the model: the value, whether a halt or clear carried out for it
    /// raises the interrupt, and the violations of new kinds it recorded.
    fn read_model(&self, offset: usize) -> (u32, bool, Option<NewViolations>) {
        let status = offset == MSDC_INT::OFFSET || offset == CQHCI_BASE + CQIS::OFFSET;
        let seen = status && self.handler_running();
        let mut state = self.state.lock();
        if seen {
            // The handler looks at what raised its interrupt: every raise so far reached it.
            state.raises_seen = state.raises;
            state.unseen_reraises = 0;
        }
        if offset == SDC_STS::OFFSET
            || offset == MSDC_PS::OFFSET
            || offset == MSDC_CFG::OFFSET
            || offset == MSDC_DMA_CTRL::OFFSET
        {
            // The card's busy on DAT0 ends, the card clock settles (`MSDC_CFG.CKSTB`) and a
            // slow DMA stop clears (`MSDC_DMA_CTRL.STOP`) in guest time, also while a driver
            // polls for it with interrupts off, when no run can move the model's clock on.
            self.advance_model(&mut state.model);
        }
        let settled =
            (CQHCI_BASE..CQHCI_BASE + CQHCI_LEN).contains(&offset) && state.settle_cqhci_control();
        let value = state.model.read(offset);
        (
            value,
            settled && state.model.interrupt_pending(),
            state.unreported_violations(),
        )
    }

    /// A register write. The interrupt line follows `MSDC_INT & MSDC_INTEN` (enabling an
    /// interrupt that is already latched raises it); work the write started is queued.
    pub(crate) fn write(self: &Arc<Self>, offset: usize, value: u32) {
        let from_handler = self.handler_running();
        let (pending, violations) = self.timed(|| {
            let mut state = self.state.lock();
            let idle = !state.model.busy() && state.model.cqhci().is_none_or(|c| c.is_idle());
            if idle {
                state.thread_issue = !from_handler;
                state.issued_at = Some(Instant::<Monotonic>::now());
                state.start_pending = true;
            }
            if offset == SDC_CMD::OFFSET {
                // Whether the card clock settled since its last change is judged in guest
                // time.
                self.advance_model(&mut state.model);
            }
            state.model.write(offset, value);
            (
                state.model.interrupt_pending(),
                state.unreported_violations(),
            )
        });
        if pending {
            self.as_arc_borrow().raise();
        }
        self.report(violations);
        // Already queued is fine: the queued run picks this write's work up too.
        let _ = ffi::default_queue().enqueue::<_, RUN_WORK>(self.clone());
    }

    /// Whether the slot's interrupt line is disabled at the interrupt core.
    fn line_disabled(&self) -> bool {
        board_irqs().is_some_and(|irqs| irqs.line_disabled(self.hwirq))
    }

    /// Whether the slot's interrupt handler runs now, on any CPU.
    fn handler_running(&self) -> bool {
        board_irqs().is_some_and(|irqs| irqs.handler_running(self.hwirq))
    }

    /// Raises the slot's interrupt. The MSDC's line is level-triggered (it stays asserted
    /// while `MSDC_INT & MSDC_INTEN` is non-zero); the simulator's is an event, delivered
    /// later from an irq_work (on CPU 0 with more than one CPU, [`ffi::SimIrqDomain::raise`]),
    /// which the kernel drops (`handle_simple_irq`) when it arrives while the slot's handler
    /// runs on another CPU (the interrupt core replays an interrupt that came while the
    /// line was disabled from a tasklet, on any CPU). So with more than one CPU a
    /// raise counts itself and asks the next run to check: the run raises the line once
    /// more while the interrupt is still pending and the handler has not read the status
    /// since (reading `MSDC_INT` or `CQIS` in the handler sees every raise before it), as
    /// a level would stay asserted until the handler cleared it. With one CPU no event is
    /// dropped (a raise from inside the handler is delivered when it returns), so nothing
    /// is asked of the run, which keeps the one-vCPU performance kernel's work what it was.
    fn raise(self: ArcBorrow<'_, Self>) {
        let Some(irqs) = board_irqs() else {
            return;
        };
        self.raised.fetch_add(1, Ordering::Relaxed);
        if kernel::cpu::nr_cpu_ids() > 1 {
            let mut state = self.state.lock();
            state.raises = state.raises.wrapping_add(1);
            drop(state);
            // Already queued is fine: that run looks again.
            let _ = ffi::default_queue().enqueue::<_, RUN_WORK>(Arc::from(self));
        }
        irqs.raise(self.hwirq);
    }

    /// Raises the slot's line `ms` ms from now, for an interrupt the fault plan made late
    /// (`late_irq`): from a delayed work item, whatever `MSDC_INT` holds by then. One late
    /// raise is queued at a time; another asked for meanwhile is lost.
    fn raise_late(self: Arc<Self>, ms: u32) {
        let _ =
            ffi::default_queue().enqueue_delayed::<_, LATE_IRQ_WORK>(self, msecs_to_jiffies(ms));
    }

    fn raise_line(hwirq: u32) {
        if let Some(irqs) = board_irqs() {
            irqs.raise(hwirq);
        }
    }

    /// With the state locked: whether the card's interrupt now needs the wake-up line,
    /// which the board raises once per assertion. On a board the pad is DAT1 muxed to a
    /// GPIO interrupt (the driver's "state_eint") while the controller sleeps; here the
    /// line fires when the card holds its interrupt while the controller's source clock is
    /// stopped or its power is off (the controller cannot see it then). Whether anything
    /// listens is the kernel's: the PM core enables the dedicated wake-up interrupt only
    /// while the device is runtime suspended.
    fn wake_needed(&self, state: &mut SimState) -> bool {
        if self.wake_hwirq.is_none() {
            return false;
        }
        // Pass the clock's state on to the card first: without the clock, a 4-bit card
        // signals only with its asynchronous interrupt enabled.
        let SimState { model, card, .. } = state;
        model.sync_card(card);
        let asleep = !state.model.is_powered() || !state.model.clock_running(ModelClock::Source);
        let asserted = state.card.sdio_interrupt();
        let raise = asleep && asserted && !state.wake_raised;
        state.wake_raised = asserted && (state.wake_raised || raise);
        raise
    }

    fn raise_wake(&self) {
        if let Some(line) = self.wake_hwirq {
            self.wakeups.fetch_add(1, Ordering::Relaxed);
            Self::raise_line(line);
        }
    }

    /// Prints the violations of new kinds a run, a register access or a clock or power
    /// switch found (outside the state lock: printing is slow).
    fn report(&self, new: Option<NewViolations>) {
        let Some(new) = new else {
            return;
        };
        for (count, v) in new.msdc.into_iter().flatten() {
            pr_err!(
                "simulated controller {:#x}: {} model violation(s), new kind: {:?}\n",
                self.base,
                count,
                v
            );
        }
        if let Some((count, v)) = new.cqhci {
            pr_err!(
                "simulated controller {:#x}: {} CQHCI model violation(s), new kind: {:?}\n",
                self.base,
                count,
                v
            );
        }
    }

    /// Runs what the registers started, then raises the interrupt when its time is up; a
    /// run that stopped at its step limit is resumed at that time too.
    fn run_model(self: Arc<Self>) {
        let reraise = {
            let mut state = self.state.lock();
            // A disabled line's raise is the interrupt core's to keep pending and replay.
            let unseen = state.model.interrupt_pending()
                && state.raises_seen != state.raises
                && state.unseen_reraises < MAX_RERAISES
                && !self.line_disabled();
            if unseen {
                state.unseen_reraises += 1;
            }
            unseen
        };
        if reraise {
            self.as_arc_borrow().raise();
        }
        let outcome = {
            let mut state = self.state.lock();
            let state = &mut *state;
            if state
                .busy_until
                .is_some_and(|until| (until - Instant::<Monotonic>::now()).as_nanos() > 0)
            {
                // The timer armed for the end of the busy time runs the model then.
                state.resume = true;
                return;
            }
            state.busy_until = None;
            // Time passes for the card between runs too (its queued accesses go on).
            self.advance_model(&mut state.model);
            state.faults.arm(&mut state.model);
            let pending_before = state.model.interrupt_pending();
            let run_start = Instant::<Monotonic>::now();
            // The run ends at the step that raises the line: hardware signals an event when
            // it happens, not after the work that follows it.
            let (ran, signalled) = self.timed(|| {
                state
                    .model
                    .run_to_interrupt(&mut state.card, &mut SystemRam, STEPS_PER_RUN)
            });
            // The hardware's time runs from the start of its work: the guest time the
            // model took to do it (copying the data, mostly) is part of it, not added.
            let run_ns = u64::try_from(run_start.elapsed().as_nanos()).unwrap_or(0);
            // Work may be left after a run that stopped at its step limit, or at the line
            // with CQHCI tasks still in the block (if the interrupt is lost, nothing else
            // runs them).
            state.resume = ran == STEPS_PER_RUN
                || (signalled && state.model.cqhci().is_some_and(|c| c.tasks_in_progress()));
            let pending = state.model.interrupt_pending();
            let mut elapsed_ns = state.model.take_elapsed_ns().saturating_sub(run_ns);
            if ran > 0 && state.start_pending {
                if let Some(at) = state.issued_at {
                    let lag = u64::try_from((run_start - at).as_nanos()).unwrap_or(0);
                    self.start_lag_ns.fetch_add(lag, Ordering::Relaxed);
                    self.starts.fetch_add(1, Ordering::Relaxed);
                    self.start_lag_max_ns.fetch_max(lag, Ordering::Relaxed);
                }
                state.start_pending = false;
            }
            if ran > 0 {
                // Work a thread issued after the interrupt that woke it: it started that
                // much later on a real SoC if the thread's CPU idled long enough to enter
                // the state whose exit the wake-up costs.
                if state.thread_issue && state.completion_signalled {
                    let wake = wake_up().charge_ns(state.idle_gap_ns);
                    elapsed_ns = elapsed_ns.saturating_add(wake);
                    self.wake_ns.fetch_add(wake, Ordering::Relaxed);
                }
                state.completion_signalled = false;
                state.thread_issue = false;
                if pending {
                    // The interrupt comes `elapsed_ns` from now.
                    let waited = state
                        .issued_at
                        .map_or(0, |at| u64::try_from(at.elapsed().as_nanos()).unwrap_or(0));
                    state.idle_gap_ns = waited.saturating_add(elapsed_ns);
                }
            }
            state.completion_signalled |= pending;
            // The CQHCI block's coalescing timer runs with no work to step the block: when
            // it runs out (ns from now, after this run's time), a run raises its interrupt.
            let coalescing_ns = if pending {
                None
            } else {
                state
                    .model
                    .cqhci()
                    .and_then(|c| c.coalescing_deadline_ns())
                    .map(|deadline| {
                        deadline
                            .saturating_sub(state.model.now_ns())
                            .saturating_add(elapsed_ns)
                    })
            };
            if ran > 0 && coalescing_ns.is_some() {
                // The run at the end of this one's time arms the timer for the deadline.
                state.resume = true;
            }
            // Raised now (below) unless lost: the timer raises the others.
            let raised_now = ran > 0 && pending && elapsed_ns < MIN_LATENCY_NS && !state.resume;
            let withheld = if raised_now {
                state.faults.withhold_interrupt()
            } else {
                None
            };
            (
                ran,
                pending && withheld.is_none(),
                // An event of the lines (the SDIO card's interrupt, the CQHCI block's
                // coalescing timer) latched by a run that had no work: raised at once, there
                // is no bus time to wait for.
                ran == 0 && pending && !pending_before,
                elapsed_ns,
                state.unreported_violations(),
                withheld,
                state.resume,
                coalescing_ns,
            )
        };
        let (ran, pending, line_event, elapsed_ns, violations, withheld, resume, coalescing_ns) =
            outcome;
        self.report(violations);
        if let Some(Withheld::Late(ms)) = withheld {
            self.clone().raise_late(ms);
        }
        if ran == 0 {
            if line_event {
                self.as_arc_borrow().raise();
            }
            if let Some(ns) = coalescing_ns {
                // Nothing else to run until the coalescing timer runs out.
                self.state.lock().resume = true;
                self.arm(ns, false);
            }
            return;
        }
        if elapsed_ns < MIN_LATENCY_NS && !resume {
            if pending {
                self.as_arc_borrow().raise();
            }
            return;
        }
        self.arm(elapsed_ns, true);
    }

    /// Starts the slot's timer `delay_ns` from now (at least [`MIN_LATENCY_NS`]): its expiry
    /// raises a pending interrupt and queues a run if the state's `resume` asks for one. With
    /// `busy`, the hardware is busy until then with the work of the run that arms it.
    fn arm(self: &Arc<Self>, delay_ns: u64, busy: bool) {
        // All handles name the one timer: retire the old one before starting it again. It
        // has usually fired by now (its work ran first). If not, this run did that work:
        // the new expiry raises the line instead, and resumes the model only if this run
        // left work (`resume` was just set from it).
        let delay = delay_ns.max(MIN_LATENCY_NS);
        let delay = Delta::from_nanos(i64::try_from(delay).unwrap_or(i64::MAX));
        // The busy time ends no later than the timer expires, and is recorded before the
        // timer can fire, so the run its expiry queues never finds the hardware busy.
        let previous = {
            let mut state = self.state.lock();
            if !state.model.is_powered() {
                // Powered off since the run: its work is gone.
                return;
            }
            if busy {
                state.busy_until = Some(Instant::<Monotonic>::now() + delay);
            }
            state.irq_timer.take()
        };
        drop(previous);
        let handle = self.clone().start(delay);
        let stale = {
            let mut state = self.state.lock();
            // A power-off in between found no timer to cancel: cancel this one.
            if state.model.is_powered() {
                state.irq_timer = Some(handle);
                None
            } else {
                Some(handle)
            }
        };
        drop(stale);
    }

    /// Moves the slot's sampling windows `cells` delay cells up from where the board built
    /// them (wrapping past the last cell), as temperature or voltage drift moves a real
    /// board's: a sample point tuned before may now fail, and the MMC core re-tunes after
    /// the CRC errors.
    fn drift_windows(&self, cells: u32) {
        let w = self.sampling;
        let windows = SampleWindows {
            cmd: w.cmd.map(|m| m.rotate_left(cells)),
            data: w.data.map(|m| m.rotate_left(cells)),
            strobe: w.strobe.rotate_left(cells),
        };
        self.state.lock().model.set_sampling(windows);
        self.drift.store(u64::from(cells), Ordering::Relaxed);
    }

    /// Takes the card out of its socket or puts it back (power-cycled, what it stores
    /// kept), for debugfs `card`: `remove` or `insert`. EINVAL on a slot whose card is
    /// soldered or held by the device tree as non-removable, or for another word.
    fn set_card(&self, word: &str) -> Result {
        if !self.removable {
            return Err(EINVAL);
        }
        let mut state = self.state.lock();
        match word {
            "remove" => state.card.remove(),
            "insert" => state.card.insert(SimCard::power_cycle),
            _ => return Err(EINVAL),
        }
        Ok(())
    }

    /// Violations the slot's models recorded: the controller's and its CQHCI block's.
    fn violations(&self) -> u32 {
        let (msdc, cqhci) = self.state.lock().violation_counts();
        msdc.saturating_add(cqhci)
    }

    /// Times the slot was powered off.
    fn power_offs(&self) -> u32 {
        self.state.lock().model.power_offs()
    }

    /// Times the slot's register clock (`hclk`) was gated: a runtime suspend, whatever the
    /// driver.
    fn clock_gatings(&self) -> u32 {
        self.state.lock().model.register_clock_gatings()
    }
}

/// The slot's clock gates and power domain switch the model's clocks and power.
impl SlotPower for SimulatedMsdc {
    fn set_clock(&self, gate: usize, running: bool) {
        let Some(spec) = GATES.get(gate) else {
            return;
        };
        let violations = self.timed(|| {
            let mut state = self.state.lock();
            let bit = 1u8 << gate;
            state.open_gates = if running {
                state.open_gates | bit
            } else {
                state.open_gates & !bit
            };
            // A clock that starts again settles from now (guest time) on.
            self.advance_model(&mut state.model);
            let group = gates_of(spec.clock);
            let clock_runs = state.open_gates & group == group;
            if clock_runs != state.model.clock_running(spec.clock) {
                state.model.set_clock(spec.clock, clock_runs);
            }
            let wake = self.wake_needed(&mut state);
            (wake, state.unreported_violations())
        });
        let (wake, violations) = violations;
        if wake {
            self.raise_wake();
        }
        self.report(violations);
    }

    fn clock_running(&self, gate: usize) -> bool {
        gate < GATES.len() && self.state.lock().open_gates & (1 << gate) != 0
    }

    /// Powering off resets the model's registers and forgets the work it had pending: the
    /// resumption of a run, the busy time, the interrupt timer.
    fn set_power(&self, on: bool) {
        let (timer, violations) = self.timed(|| {
            let mut state = self.state.lock();
            if on {
                state.model.power_on();
                return (None, state.unreported_violations());
            }
            state.model.power_off();
            state.resume = false;
            state.busy_until = None;
            (state.irq_timer.take(), state.unreported_violations())
        });
        // Cancels the timer, waiting for its callback if it runs; that takes `state`,
        // hence only now.
        drop(timer);
        self.report(violations);
    }
}

impl WorkItem<RUN_WORK> for SimulatedMsdc {
    type Pointer = Arc<SimulatedMsdc>;

    fn run(this: Arc<Self>) {
        this.run_model();
    }
}

impl WorkItem<LATE_IRQ_WORK> for SimulatedMsdc {
    type Pointer = Arc<SimulatedMsdc>;

    /// The late interrupt's time is up: the line rises unless the slot lost its power
    /// meanwhile (its interrupt sources with it).
    fn run(this: Arc<Self>) {
        if this.state.lock().model.is_powered() {
            this.as_arc_borrow().raise();
        }
    }
}

impl HrTimerCallback for SimulatedMsdc {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        let (pending, resume, withheld) = {
            let mut state = this.state.lock();
            let pending = state.model.interrupt_pending();
            let withheld = if pending {
                state.faults.withhold_interrupt()
            } else {
                None
            };
            (
                pending && withheld.is_none(),
                core::mem::take(&mut state.resume),
                withheld,
            )
        };
        if pending {
            this.raise();
        }
        if let Some(Withheld::Late(ms)) = withheld {
            Arc::from(this).raise_late(ms);
        }
        if resume {
            // Already queued is fine: the queued run goes on where the last one stopped.
            let _ = ffi::default_queue().enqueue::<_, RUN_WORK>(Arc::from(this));
        }
        HrTimerRestart::NoRestart
    }
}

struct Board {
    slots: KVec<Arc<SimulatedMsdc>>,
    irqs: SetOnce<ffi::SimIrqDomain>,
}

static BOARD: SetOnce<Board> = SetOnce::new();

/// The board's interrupt simulator, once the board is set up.
fn board_irqs() -> Option<&'static ffi::SimIrqDomain> {
    BOARD.as_ref().and_then(|board| board.irqs.as_ref())
}

/// A slot's debugfs directory with its files.
type SlotDir = Pin<KBox<Scope<Arc<SimulatedMsdc>>>>;

/// `/sys/kernel/debug/mtk_sd_rust_sim/<window address>/` of every slot.
static SLOT_DIRS: SetOnce<KVec<SlotDir>> = SetOnce::new();

/// Publishes in debugfs, per slot, [`SimulatedMsdc::model_ns`] (`model_ns`), the models'
/// violation count (`violations`), how often the slot was powered off (`power_offs`, 0
/// without power domains) and how often its register clock was gated (`clock_gatings`),
/// the RST_n pulses that reset an eMMC slot's card (`card_resets`, `none` on the other slots),
/// which the end-to-end run prints (aids: the board works without them), and the fault
/// injection file (`inject`, see [`faults`]) its fault matrix writes, where the simulated
/// hardware's time went (`hardware_ns`: bus frames, the card's own work, the CQHCI block's
/// waits for queued tasks, and the host wake-up cost the board added), the lag from a
/// register write that started work to the run that started it (`start_lag_ns`: total,
/// count and longest, ns), and the sampling
/// windows' drift in delay cells (`drift`, see [`SimulatedMsdc::drift_windows`]), the
/// tuning block commands the controller sent, the CRC errors its sample point outside
/// the windows caused and that sample point (`tuning`: `commands=<N> sampling_errors=<N>
/// cmd=<edge>:<delay> data=<edge>:<delay>`, `none` at a timing the windows do not
/// decide, whichever driver tunes), and the
/// card's socket on the removable slots (`card`, see [`SimulatedMsdc::set_card`]).
fn publish_debugfs(slots: &[Arc<SimulatedMsdc>]) -> Result<Dir> {
    let root = Dir::new(c"mtk_sd_rust_sim");
    let mut files = KVec::with_capacity(slots.len(), GFP_KERNEL)?;
    for slot in slots {
        let name = CString::try_from_fmt(fmt!("{:x}", slot.base))?;
        let scope = KBox::pin_init(
            root.scope(
                Ok::<_, Error>(slot.clone()),
                &name,
                |slot: &Arc<SimulatedMsdc>, dir| {
                    dir.read_only_file(c"model_ns", &slot.model_ns);
                    dir.read_only_file(c"raised", &slot.raised);
                    dir.read_callback_file(c"violations", slot, &|slot, f| {
                        writeln!(f, "{}", slot.violations())
                    });
                    dir.read_callback_file(c"power_offs", slot, &|slot, f| {
                        writeln!(f, "{}", slot.power_offs())
                    });
                    dir.read_callback_file(c"clock_gatings", slot, &|slot, f| {
                        writeln!(f, "{}", slot.clock_gatings())
                    });
                    dir.read_callback_file(c"tuning", slot, &|slot, f| {
                        let state = slot.state.lock();
                        write!(
                            f,
                            "commands={} sampling_errors={}",
                            state.model.tuning_commands(),
                            state.model.sampling_errors()
                        )?;
                        // Where the host samples, at a timing the windows decide.
                        let edge = |falling| if falling { "falling" } else { "rising" };
                        match state.model.sample_points() {
                            Some(p) => writeln!(
                                f,
                                " cmd={}:{} data={}:{}",
                                edge(p.cmd.falling),
                                p.cmd.delay,
                                edge(p.data.falling),
                                p.data.delay
                            ),
                            None => writeln!(f, " cmd=none data=none"),
                        }
                    });
                    dir.read_callback_file(c"card_resets", slot, &|slot, f| match slot
                        .state
                        .lock()
                        .card
                        .card()
                        .hardware_resets()
                    {
                        Some(n) => writeln!(f, "{n}"),
                        None => writeln!(f, "none"),
                    });
                    dir.read_callback_file(c"hardware_ns", slot, &|slot, f| {
                        let split = slot.state.lock().model.time_split();
                        writeln!(
                            f,
                            "bus={} card={} wait={} wake={}",
                            split.bus_ns,
                            split.card_ns,
                            split.wait_ns,
                            slot.wake_ns.load(Ordering::Relaxed)
                        )
                    });
                    dir.read_callback_file(c"start_lag_ns", slot, &|slot, f| {
                        writeln!(
                            f,
                            "total={} starts={} max={}",
                            slot.start_lag_ns.load(Ordering::Relaxed),
                            slot.starts.load(Ordering::Relaxed),
                            slot.start_lag_max_ns.load(Ordering::Relaxed)
                        )
                    });
                    dir.read_write_callback_file(
                        c"drift",
                        slot,
                        &|slot, f| writeln!(f, "{}", slot.drift.load(Ordering::Relaxed)),
                        &|slot, reader| {
                            let mut buf = [0u8; 64];
                            let text = faults::read_text(reader, &mut buf)?;
                            let cells = text.trim().parse::<u32>().map_err(|_| EINVAL)?;
                            slot.drift_windows(cells);
                            Ok(())
                        },
                    );
                    dir.read_write_callback_file(
                        c"card",
                        slot,
                        &|slot, f| {
                            let inserted = slot.state.lock().card.is_inserted();
                            writeln!(f, "{}", if inserted { "inserted" } else { "removed" })
                        },
                        &|slot, reader| {
                            let mut buf = [0u8; 64];
                            slot.set_card(faults::read_text(reader, &mut buf)?.trim())
                        },
                    );
                    dir.read_write_callback_file(
                        c"inject",
                        slot,
                        &|slot, f| {
                            let state = slot.state.lock();
                            state.faults.show(&state.model, f)
                        },
                        &|slot, reader| {
                            let mut buf = [0u8; 64];
                            let text = faults::read_text(reader, &mut buf)?;
                            let state = &mut *slot.state.lock();
                            state.faults.set(text, &mut state.model)
                        },
                    );
                },
            ),
            GFP_KERNEL,
        )?;
        files.push(scope, GFP_KERNEL)?;
    }
    SLOT_DIRS.populate(files);
    describe::publish(&root)?;
    Ok(root)
}

/// The test function driver of the SDIO slot's card, registered for good.
static SDIO_FUNCTION: SetOnce<sdio_function::SdioFunctionDriver> = SetOnce::new();

/// Serves the slots' clock gates (and power domains, if the overlay has a power domain
/// provider) at the overlay's provider nodes, and marks those nodes set up, so that the
/// devices created afterwards find their clocks and domains at once (fw_devlink waits for
/// nothing). Gates and domains live as long as the kernel, as the board does (built in,
/// never removed).
///
/// The overlay has no power domain provider: none of MediaTek's SoCs gives its MSDC
/// nodes a `power-domains` (their device trees in the 7.3 tree, `mt8173.dtsi` to
/// `mt8195.dtsi`), so the controllers stay powered while the system runs and a runtime
/// suspend only gates their clocks, which is what upstream's runtime PM relies on (it
/// programs its CQHCI block again only after a system sleep, `msdc_suspend()` calling
/// `cqhci_suspend()`). A board whose SoC had one would add the provider node (one cell
/// per slot) and the slots' `power-domains`; powering such a domain off resets the
/// slot's model.
fn serve_clocks_and_power(slots: &'static [Arc<SimulatedMsdc>]) -> Result {
    let clock_node = find_node(CLOCK_NODE_PATH)?;
    let mut clocks = ffi::ClockProvider::with_capacity(slots.len() * GATES.len())?;
    for slot in slots {
        for (index, gate) in GATES.iter().enumerate() {
            let name = CString::try_from_fmt(fmt!("sim-msdc-{:x}-{}", slot.base, gate.suffix))?;
            clocks.add(&clock_node, &name, gate.hz, index, &**slot)?;
        }
    }
    clocks.serve(&clock_node)?;
    clock_node.mark_initialized();
    let Some(power_node) = ffi::Node::find(POWER_NODE_PATH) else {
        // No power domains: the slots are powered for good.
        for slot in slots {
            slot.set_power(true);
        }
        return Ok(());
    };
    #[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
    {
        let mut domains = ffi::PowerDomains::with_capacity(slots.len())?;
        for slot in slots {
            let name = CString::try_from_fmt(fmt!("sim-msdc-{:x}", slot.base))?;
            domains.add(name, &**slot)?;
        }
        domains.serve(&power_node)?;
    }
    // Without generic PM domains (a kernel without PM) the devices ignore their
    // `power-domains`, and the slots are powered for good.
    #[cfg(not(CONFIG_PM_GENERIC_DOMAINS_OF))]
    for slot in slots {
        slot.set_power(true);
    }
    power_node.mark_initialized();
    Ok(())
}

/// Claims the simulated controller whose register window starts at `base`, if any and if
/// no other device holds it: the index of its slot, which [`slot`] serves until
/// [`release`]. The probe of that window claims it again after a deferral or an unbind.
pub(crate) fn claim(base: u64) -> Option<usize> {
    let board = BOARD.as_ref()?;
    let index = board.slots.iter().position(|s| s.base == base)?;
    (!board.slots[index].claimed.swap(true, Ordering::AcqRel)).then_some(index)
}

/// The index of the slot whose register window starts at `base`, claimed or not: the
/// position of its node in the overlay, by which the kernel command line names slots.
pub(crate) fn slot_index(base: u64) -> Option<usize> {
    BOARD.as_ref()?.slots.iter().position(|s| s.base == base)
}

/// The claimed slot `index`; `None` for an index [`claim`] never handed out or a slot
/// released since (a driver bug the caller reports).
pub(crate) fn slot(index: usize) -> Option<&'static Arc<SimulatedMsdc>> {
    let slot = BOARD.as_ref()?.slots.get(index)?;
    slot.claimed.load(Ordering::Acquire).then_some(slot)
}

/// Frees slot `index` for the next probe of its window.
pub(crate) fn release(index: usize) {
    if let Some(slot) = BOARD.as_ref().and_then(|board| board.slots.get(index)) {
        slot.claimed.store(false, Ordering::Release);
    }
}

/// What a thread that a completion woke pays before the work it issues starts
/// (`models::idle`): by default MT8195's `cpu-retention-l` ([`WakeUp::DEFAULT`]: exit
/// 95 µs, charged for a gap of at least its 580 µs target residency). The thread runs on a
/// CPU other than the one that took the interrupt, which its wait left idle; the guest's
/// one vCPU has no idle states, so the board adds the exit latency. A model input, not a
/// measured cost: TODO[PERF-MODEL] (`docs/todo.md`).
///
/// `mtk_sd_rust_sim.wake_ns=N` on the kernel command line (`make perf-wake` runs 0, 20 and
/// 95 µs) sets the exit latency, its residency by MT8195's rule
/// ([`WakeUp::mt8195_little`]) unless `mtk_sd_rust_sim.wake_residency_ns=N` sets it. Read
/// once.
fn wake_up() -> WakeUp {
    static EXIT_NS: AtomicU64 = AtomicU64::new(u64::MAX);
    static RESIDENCY_NS: AtomicU64 = AtomicU64::new(u64::MAX);
    let (exit, residency) = (
        EXIT_NS.load(Ordering::Relaxed),
        RESIDENCY_NS.load(Ordering::Relaxed),
    );
    if exit != u64::MAX && residency != u64::MAX {
        return WakeUp {
            exit_latency_ns: exit,
            min_residency_ns: residency,
        };
    }
    let value = |name: &str| {
        ffi::command_line_value(name)
            .and_then(|v| core::str::from_utf8(v).ok()?.parse::<u64>().ok())
    };
    let mut wake = value("mtk_sd_rust_sim.wake_ns").map_or(WakeUp::DEFAULT, WakeUp::mt8195_little);
    if let Some(residency) = value("mtk_sd_rust_sim.wake_residency_ns") {
        wake.min_residency_ns = residency;
    }
    RESIDENCY_NS.store(wake.min_residency_ns, Ordering::Relaxed);
    EXIT_NS.store(wake.exit_latency_ns, Ordering::Relaxed);
    wake
}

/// The request size limit `make perf`'s transfer size sweep asks for
/// (`mtk_sd_rust_sim.max_request_kib=N` or `=max` on the kernel command line, test kernels
/// only), in bytes; the probe keeps it within what the descriptors carry.
pub(crate) fn request_limit_bytes() -> Option<u32> {
    match ffi::command_line_value("mtk_sd_rust_sim.max_request_kib")? {
        // The most the descriptors carry (the probe clamps).
        b"max" => Some(u32::MAX),
        kib => {
            let kib = core::str::from_utf8(kib).ok()?.parse::<u32>().ok()?;
            kib.checked_mul(1024).filter(|&bytes| bytes >= 4096)
        }
    }
}

/// The iterations of the driver-path calibration loop `make perf-cost-cal` asks for
/// (`mtk_sd_rust_sim.cost_loop=N` on the kernel command line, test kernels only): the driver
/// runs a loop of two instructions N times per request it is handed, so that insncount's
/// `driver` bucket must grow by 2N instructions per I/O. 0, the default, runs no loop; a
/// value that is not a number is reported and runs none.
pub(crate) fn cost_loop() -> u32 {
    let Some(value) = ffi::command_line_value("mtk_sd_rust_sim.cost_loop") else {
        return 0;
    };
    match core::str::from_utf8(value)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        Some(n) => n,
        None => {
            pr_err!("mtk_sd_rust_sim.cost_loop= takes a number of iterations: no loop\n");
            0
        }
    }
}

/// Interrupt coalescing for the driver's CQHCI engine, from
/// `mtk_sd_rust_sim.cqe_coalescing=<ICCTH>,<ICTOVAL>` on the kernel command line (test
/// kernels only; `make perf`'s coalescing measurement, `PERF_COALESCING`): the counter
/// threshold (0..=31, 0 leaves the timer alone) and the timeout in the register's units of
/// 1024 internal timer clocks (1..=127; 5.12 µs each at the model's 200 MHz timer). `None`,
/// the default, leaves coalescing off; a value out of range is reported and leaves it off.
pub(crate) fn cqe_coalescing() -> Option<(u8, u8)> {
    let value = ffi::command_line_value("mtk_sd_rust_sim.cqe_coalescing")?;
    let parsed = core::str::from_utf8(value).ok().and_then(|v| {
        let (threshold, timeout) = v.split_once(',')?;
        let threshold = threshold.parse::<u8>().ok().filter(|&t| t <= 31)?;
        let timeout = timeout
            .parse::<u8>()
            .ok()
            .filter(|&t| (1..=127).contains(&t))?;
        Some((threshold, timeout))
    });
    if parsed.is_none() {
        pr_err!("mtk_sd_rust_sim.cqe_coalescing= takes <0-31>,<1-127>: coalescing off\n");
    }
    parsed
}

/// The queue the board's slots may use at most, from `mtk_sd_rust_sim.queue=` on the kernel
/// command line (test kernels only; `make perf` measures each disk in every mode its slot
/// allows this way, on one kernel image): `cqe` (as the overlay says, the default), `hsq`
/// (no slot says `supports-cqe`), `legacy` (no slot says `supports-cqe` or `no-sdio`, so
/// every slot serves one request at a time).
fn limit_queues() -> Result {
    let (no_cqe, no_hsq) = match ffi::command_line_value("mtk_sd_rust_sim.queue") {
        None | Some(b"cqe") => return Ok(()),
        Some(b"hsq") => (true, false),
        Some(b"legacy") => (true, true),
        Some(_) => {
            pr_err!("mtk_sd_rust_sim.queue= takes cqe, hsq or legacy\n");
            return Err(EINVAL);
        }
    };
    for path in SLOT_PATHS {
        let node = find_node(path)?;
        if no_cqe {
            node.remove_property(c"supports-cqe")?;
        }
        if no_hsq {
            node.remove_property(c"no-sdio")?;
        }
    }
    pr_info!(
        "simulated board: queues limited to {}\n",
        if no_hsq { "legacy" } else { "hsq" }
    );
    Ok(())
}

/// The board's SDIO slot (the one with a wake-up line).
fn sdio_slot() -> Option<&'static Arc<SimulatedMsdc>> {
    BOARD
        .as_ref()?
        .slots
        .iter()
        .find(|slot| slot.wake_hwirq.is_some())
}

/// Whether the SDIO slot's controller is asleep: its source clock stopped or its power
/// off (runtime suspended), so that only the wake-up line can tell it of the card's
/// interrupt.
pub(crate) fn sdio_controller_asleep() -> bool {
    sdio_slot().is_some_and(|slot| {
        let state = slot.state.lock();
        !state.model.is_powered() || !state.model.clock_running(ModelClock::Source)
    })
}

/// The SDIO card's function raises its interrupt with `causes` on its own, as a Wi-Fi
/// chip does when a frame arrives (the test function driver's stand-in for that event):
/// the controller sees it if it runs, else the wake-up line fires. `false` without an SDIO
/// slot.
pub(crate) fn raise_sdio_card_interrupt(causes: u8) -> bool {
    let Some(slot) = sdio_slot() else {
        return false;
    };
    let (pending, wake) = {
        let mut state = slot.state.lock();
        if let SimCard::Sdio(card) = state.card.card_mut() {
            card.raise_interrupt(causes);
        }
        let wake = slot.wake_needed(&mut state);
        (state.model.interrupt_pending(), wake)
    };
    if wake {
        slot.raise_wake();
    }
    if pending {
        slot.as_arc_borrow().raise();
    }
    true
}

/// Whether the SDIO slot's wake-up line is enabled at the interrupt core, which the PM
/// core does once the controller's runtime-suspend callback has returned.
pub(crate) fn sdio_wake_line_armed() -> bool {
    sdio_slot().is_some_and(|slot| {
        slot.wake_hwirq
            .is_some_and(|line| board_irqs().is_some_and(|irqs| !irqs.line_disabled(line)))
    })
}

/// Times the SDIO slot's wake-up line fired.
pub(crate) fn sdio_wakeups() -> u64 {
    sdio_slot().map_or(0, |slot| slot.wakeups.load(Ordering::Relaxed))
}

/// The overlay's node at `path`; its absence is reported (the overlay and this file
/// disagree).
fn find_node(path: &CStr) -> Result<ffi::Node> {
    ffi::Node::find(path).ok_or_else(|| {
        pr_err!(
            "simulated board: no device tree node {}\n",
            path.to_str().unwrap_or("?")
        );
        ENOENT
    })
}

/// Builds the board: card models, the overlay, the interrupt domain, the clock gates and
/// power domains, then the devices (which the MSDC driver, registered before, probes).
pub(crate) fn install() -> Result {
    let mut slots = KVec::with_capacity(SLOTS.len(), GFP_KERNEL)?;
    for spec in &SLOTS {
        slots.push(SimulatedMsdc::new(spec)?, GFP_KERNEL)?;
    }
    if !BOARD.populate(Board {
        slots,
        irqs: SetOnce::new(),
    }) {
        pr_err!("the simulated board is already installed\n");
        return Err(EBUSY);
    }
    let board = BOARD.as_ref().ok_or(EINVAL)?;
    match publish_debugfs(&board.slots) {
        // The SDIO card's test function driver reports in the board's directory; it binds
        // once the MMC core has found the card, after the devices below appear.
        Ok(root) => {
            let driver = sdio_function::register(&root)
                .inspect_err(|e| pr_err!("SDIO test function driver: {:?}\n", e))?;
            SDIO_FUNCTION.populate(driver);
        }
        Err(e) => pr_warn!("no debugfs files for the simulated slots: {:?}\n", e),
    }
    ffi::apply_overlay().inspect_err(|e| pr_err!("board overlay: {:?}\n", e))?;
    let irq_node = find_node(IRQ_NODE_PATH)?;
    // One line per slot, then the SDIO slot's wake-up line.
    let lines = SLOTS
        .iter()
        .map(|spec| {
            spec.wake_hwirq
                .map_or(spec.hwirq, |wake| wake.max(spec.hwirq))
                + 1
        })
        .max()
        .unwrap_or(0);
    let irqs = ffi::SimIrqDomain::new(&irq_node, lines)?;
    irq_node.mark_initialized();
    board.irqs.populate(irqs);
    serve_clocks_and_power(&board.slots)
        .inspect_err(|e| pr_err!("board clocks and power domains: {:?}\n", e))?;
    limit_queues()?;
    let board_node = find_node(BOARD_PATH)?;
    board_node
        .populate_children()
        .inspect_err(|e| pr_err!("board devices: {:?}\n", e))?;
    pr_info!(
        "simulated board: eMMC (CQHCI, HS400), eMMC (HS200) and SD (SDR104) slots of {} \
         MiB, eMMC without command queue (CQHCI, HS400ES) and SD (may hold SDIO, SDR50) \
         slots of {} MiB, an SDIO slot\n",
        CARD_BYTES >> 20,
        SMALL_CARD_BYTES >> 20
    );
    Ok(())
}
