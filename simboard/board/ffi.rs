// SPDX-License-Identifier: GPL-2.0

//! The simulated board's only raw FFI: applying its device tree overlay, populating its
//! devices, the interrupt simulator, the slots' clock gates (common clock framework) and
//! power domains (generic PM domains), and reading RAM by physical address as a DMA engine
//! does (through the kernel's direct map of RAM, whose layout is the architecture's: the
//! option depends on X86_64 or ARM64). Each item is wrapped once, safely, here.

use core::{
    pin::Pin,
    ptr::NonNull,
    sync::atomic::{AtomicBool, AtomicU32, Ordering},
};

#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
use kernel::str::CString;
use kernel::{
    error::to_result,
    ffi::{c_int, c_ulong, c_void},
    prelude::*,
    types::Opaque,
    workqueue::Queue,
};

#[allow(
    dead_code,
    improper_ctypes,
    missing_docs,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unreachable_pub,
    unsafe_op_in_unsafe_fn,
    unnecessary_transmutes,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::ptr_as_ptr,
    clippy::ref_as_ptr,
    clippy::as_underscore,
    clippy::cast_lossless
)]
mod bindings {
    use kernel::ffi;
    include!(env!("MTK_SD_RUST_SIM_BINDINGS"));
}

/// The board's device tree overlay (`dts/msdc-sim.dtso`), aligned as libfdt requires.
#[repr(C, align(8))]
struct Aligned<const N: usize>([u8; N]);

static OVERLAY: &Aligned<{ include_bytes!(env!("MTK_SD_RUST_SIM_OVERLAY")).len() }> =
    &Aligned(*include_bytes!(env!("MTK_SD_RUST_SIM_OVERLAY")));

/// A device tree node reference (`of_node_get`/`of_node_put`).
///
/// # Invariants
///
/// `node` holds one reference on a live `device_node`.
pub(super) struct Node {
    node: NonNull<bindings::device_node>,
}

impl Node {
    /// Finds the node at `path` in the live tree.
    pub(super) fn find(path: &CStr) -> Option<Self> {
        // SAFETY: `path` is NUL-terminated; the function returns a counted reference.
        let node = unsafe {
            bindings::of_find_node_opts_by_path(path.as_char_ptr(), core::ptr::null_mut())
        };
        // INVARIANT: a non-null result carries one reference, now ours.
        NonNull::new(node).map(|node| Self { node })
    }

    /// Removes the property `name`, if the node has it (before its device is populated).
    pub(super) fn remove_property(&self, name: &CStr) -> Result {
        // SAFETY: by the type invariant the node is alive; `name` is NUL-terminated.
        let property = unsafe {
            bindings::of_find_property(
                self.node.as_ptr(),
                name.as_char_ptr(),
                core::ptr::null_mut(),
            )
        };
        if property.is_null() {
            return Ok(());
        }
        // SAFETY: `property` belongs to this live node; the core keeps removed properties
        // (on the node's dead list), so nothing that read it is left dangling.
        to_result(unsafe { bindings::of_remove_property(self.node.as_ptr(), property) })
    }

    /// Creates platform devices for the node's children (bus semantics of `simple-bus`).
    pub(super) fn populate_children(&self) -> Result {
        // SAFETY: by the type invariant the node is alive; null match tables select the
        // defaults.
        to_result(unsafe {
            bindings::of_platform_populate(
                self.node.as_ptr(),
                core::ptr::null(),
                core::ptr::null(),
                core::ptr::null_mut(),
            )
        })
    }

    /// Marks the node as set up by code that is not a driver, so that devices whose
    /// `interrupts`, `clocks` or `power-domains` point at it do not wait for it to probe
    /// (fw_devlink).
    pub(super) fn mark_initialized(&self) {
        // SAFETY: by the type invariant the node is alive; nothing else touches its flags
        // while the board is being set up (its consumers are not populated yet).
        unsafe {
            (*self.node.as_ptr()).fwnode.flags |= 1 << bindings::FWNODE_FLAG_INITIALIZED;
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        // SAFETY: by the type invariant we own one reference.
        unsafe { bindings::of_node_put(self.node.as_ptr()) };
    }
}

// SAFETY: node references may be taken and dropped on any thread.
unsafe impl Send for Node {}
// SAFETY: the methods only read the node or write its flags during single-threaded set-up.
unsafe impl Sync for Node {}

/// Applies the board overlay to the live device tree; returns the changeset id.
pub(super) fn apply_overlay() -> Result<i32> {
    let mut id = 0;
    let len = u32::try_from(OVERLAY.0.len())?;
    // SAFETY: the blob is a valid, 8-byte-aligned FDT of `len` bytes that lives forever;
    // the core copies what it keeps. A null base applies the fragments' target paths.
    to_result(unsafe {
        bindings::of_overlay_fdt_apply(OVERLAY.0.as_ptr().cast(), len, &mut id, core::ptr::null())
    })?;
    Ok(id)
}

/// An interrupt domain of the kernel's interrupt simulator.
///
/// # Invariants
///
/// `raiser.domain` was created by `irq_domain_create_sim` and is never removed (the board
/// lives as long as the kernel).
pub(super) struct SimIrqDomain {
    /// The domain, and what hands raises to CPU 0 when there is more than one CPU.
    raiser: Pin<KBox<LineRaiser>>,
}

// SAFETY: the interrupt simulator's functions may be called from any context.
unsafe impl Send for SimIrqDomain {}
// SAFETY: as above; the domain is only read through its C functions.
unsafe impl Sync for SimIrqDomain {}

impl SimIrqDomain {
    /// Creates a domain of `lines` simulated interrupts for `node`, so that device tree
    /// `interrupts` pointing at the node resolve to it.
    pub(super) fn new(node: &Node, lines: u32) -> Result<Self> {
        if lines > u32::BITS {
            pr_err!(
                "{} simulated interrupt lines; the board raises at most {}\n",
                lines,
                u32::BITS
            );
            return Err(EINVAL);
        }
        // SAFETY: by `Node`'s invariant the node is alive; its embedded fwnode is what
        // `of_fwnode_handle()` returns.
        let domain = unsafe {
            bindings::irq_domain_create_sim(
                core::ptr::addr_of_mut!((*node.node.as_ptr()).fwnode),
                lines,
            )
        };
        let domain = NonNull::new(kernel::error::from_err_ptr(domain)?).ok_or(ENOMEM)?;
        let raiser = KBox::pin(
            LineRaiser {
                call: Opaque::zeroed(),
                queued: AtomicBool::new(false),
                lines: AtomicU32::new(0),
                domain,
            },
            GFP_KERNEL,
        )
        .inspect_err(|_| {
            // SAFETY: created just now, with no line mapped yet.
            unsafe { bindings::irq_domain_remove_sim(domain.as_ptr()) }
        })?;
        let info = core::ptr::from_ref::<LineRaiser>(&*raiser)
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: the call is not queued yet; a zeroed call with its function and argument
        // set is what `INIT_CSD` makes. The argument is the pinned raiser itself.
        unsafe {
            (*raiser.call.get()).func = Some(raise_handed_lines);
            (*raiser.call.get()).info = info;
        }
        // INVARIANT: created just now, and never removed.
        Ok(Self { raiser })
    }

    /// The simulator domain (alive for ever, by the type invariant).
    fn domain(&self) -> NonNull<bindings::irq_domain> {
        self.raiser.domain
    }

    /// The Linux interrupt number of simulated line `hwirq`, if a driver mapped it.
    fn virq(&self, hwirq: u32) -> Option<kernel::ffi::c_uint> {
        mapped_line(self.domain(), hwirq)
    }

    /// Whether the handler of simulated interrupt `hwirq` is running now
    /// on any CPU (`IRQD_IRQ_INPROGRESS`, which the interrupt core sets around the
    /// handlers): with one CPU, a register access made meanwhile comes from that handler.
    pub(super) fn handler_running(&self, hwirq: u32) -> bool {
        self.line_state(hwirq) & bindings::IRQD_IRQ_INPROGRESS != 0
    }

    /// Whether line `hwirq` is disabled at the interrupt core (`disable_irq`, or every
    /// device interrupt during system sleep): the core keeps a raise then pending itself.
    pub(super) fn line_disabled(&self, hwirq: u32) -> bool {
        self.line_state(hwirq) & bindings::IRQD_IRQ_DISABLED != 0
    }

    /// The interrupt core's state bits of line `hwirq` (`IRQD_*`), 0 if it is not mapped.
    fn line_state(&self, hwirq: u32) -> u32 {
        let Some(virq) = self.virq(hwirq) else {
            return 0;
        };
        // SAFETY: `virq` is mapped (just resolved), and simulator lines are never unmapped:
        // its interrupt data and their common part live as long as the domain.
        unsafe {
            let data = bindings::irq_get_irq_data(virq);
            if data.is_null() || (*data).common.is_null() {
                return 0;
            }
            (*(*data).common).state_use_accessors
        }
    }

    /// Raises simulated interrupt `hwirq`, if a driver mapped it; the handler runs from
    /// the simulator's irq_work, in hard-IRQ context. With more than one CPU every raise
    /// is made on CPU 0, from the board's own cross-CPU call: the simulator's delivery loop
    /// (`irq_sim_handle_irq`, 7.3) searches its pending lines only upwards from the last
    /// one it handled, so a lower line raised from another CPU meanwhile, or its irq_work
    /// running on two CPUs at once, sends it past the end of its bitmap and into interrupt
    /// descriptor 0. Made on one CPU its bitmap changes only between its runs. A GIC
    /// routes a SoC's MSDC interrupts to one CPU too, so the issuing threads on the other
    /// CPU race the handler as they do on the board. TODO[IRQ-SIM-SMP] (`docs/todo.md`).
    pub(super) fn raise(&self, hwirq: u32) {
        if kernel::cpu::nr_cpu_ids() <= 1 {
            set_line_pending(self.domain(), hwirq);
            return;
        }
        // `new` refused domains of more lines than the mask has bits.
        let Some(line) = 1u32.checked_shl(hwirq) else {
            return;
        };
        let raiser = &*self.raiser;
        // Sequentially consistent with `raise_handed_lines_of`, which clears `queued` before
        // it takes the lines: a line set after it took them finds `queued` clear and
        // queues another call.
        raiser.lines.fetch_or(line, Ordering::SeqCst);
        if raiser.queued.swap(true, Ordering::SeqCst) {
            return;
        }
        // SAFETY: the call was initialised in `new` and lives as long as the domain (for
        // ever). Only the raise that set `queued` queues it, and `queued` is cleared only
        // by the call's function, which runs after the kernel released the call, or below
        // when the kernel refused it (released it too): calls on it never overlap, as the
        // kernel requires.
        let queued = unsafe { bindings::smp_call_function_single_async(0, raiser.call.get()) };
        if queued != 0 {
            // CPU 0 is offline (the board's kernels unplug no CPU): raise here rather
            // than lose the line.
            raise_handed_lines_of(raiser);
        }
    }
}

/// Simulated lines to raise on CPU 0 ([`SimIrqDomain::raise`]).
struct LineRaiser {
    /// The asynchronous cross-CPU call to CPU 0 (its IPI handler runs
    /// [`raise_handed_lines`] in hard-IRQ context); never freed while queued (the board
    /// lives as long as the kernel). The kernel exports this call to modules, not
    /// `irq_work_queue_on`.
    call: Opaque<bindings::__call_single_data>,
    /// Whether `call` is queued and its function has not yet begun to take the lines.
    queued: AtomicBool,
    /// One bit per line to raise.
    lines: AtomicU32,
    /// The simulator domain; alive for ever (the [`SimIrqDomain`] invariant).
    domain: NonNull<bindings::irq_domain>,
}

/// The board's cross-CPU call: raises the lines handed to CPU 0.
///
/// # Safety
///
/// `info` is a [`LineRaiser`] that is never freed.
unsafe extern "C" fn raise_handed_lines(info: *mut c_void) {
    // SAFETY: by the caller's promise `info` is a live `LineRaiser`, whose other fields are
    // only read or changed atomically.
    let raiser = unsafe { &*info.cast::<LineRaiser>() };
    raise_handed_lines_of(raiser);
}

/// Raises the lines handed to `raiser`, and lets the next raise queue its call again.
fn raise_handed_lines_of(raiser: &LineRaiser) {
    raiser.queued.store(false, Ordering::SeqCst);
    let mut lines = raiser.lines.swap(0, Ordering::SeqCst);
    while lines != 0 {
        set_line_pending(raiser.domain, lines.trailing_zeros());
        lines &= lines - 1;
    }
}

/// The Linux interrupt number of line `hwirq` of simulator domain `domain`, if a driver
/// mapped it; `domain` is alive for ever (the [`SimIrqDomain`] invariant).
fn mapped_line(domain: NonNull<bindings::irq_domain>, hwirq: u32) -> Option<kernel::ffi::c_uint> {
    let hwirq = usize::try_from(hwirq).ok()?;
    let mut virq: kernel::ffi::c_uint = 0;
    // SAFETY: the domain is alive; `virq` receives the Linux interrupt number of a mapped
    // line.
    let desc = unsafe { bindings::__irq_resolve_mapping(domain.as_ptr(), hwirq, &mut virq) };
    (!desc.is_null() && virq != 0).then_some(virq)
}

/// Sets line `hwirq` of simulator domain `domain` (alive for ever) pending, if mapped: the
/// simulator's irq_work then runs its handler on this CPU.
fn set_line_pending(domain: NonNull<bindings::irq_domain>, hwirq: u32) {
    let Some(virq) = mapped_line(domain, hwirq) else {
        return;
    };
    // SAFETY: `virq` is a mapped interrupt of the simulator domain; setting its pending
    // state queues the simulator's irq_work, callable from any context.
    let _ = unsafe {
        bindings::irq_set_irqchip_state(
            virq,
            bindings::irqchip_irq_state_IRQCHIP_STATE_PENDING,
            true,
        )
    };
}

/// The simulated hardware behind one slot's clock gates and power domain.
pub(super) trait SlotPower: Sync {
    /// Opens (`running`) or closes the slot's clock gate number `gate`. Called in atomic
    /// context: the clock framework runs its gates' `enable` and `disable` under its
    /// enable spinlock, interrupts off.
    fn set_clock(&self, gate: usize, running: bool);

    /// Whether the slot's gate number `gate` is open.
    fn clock_running(&self, gate: usize) -> bool;

    /// Powers the slot on or off. Called in process context, under the domain's lock.
    fn set_power(&self, on: bool);
}

/// A gate clock of the common clock framework in front of one of a slot's clocks, at a
/// fixed rate. Registered gates are never unregistered or freed: the board lives as long
/// as the kernel (it is built in and never removed).
struct Gate {
    /// The framework's handle. Only the framework touches it once registered.
    hw: Opaque<bindings::clk_hw>,
    slot: &'static dyn SlotPower,
    /// Which of the slot's gates this is.
    index: usize,
    rate: c_ulong,
}

impl Gate {
    /// The gate whose handle `hw` is.
    ///
    /// # Safety
    ///
    /// `hw` is the `hw` of a [`Gate`] that lives for `'a`.
    unsafe fn from_hw<'a>(hw: *mut bindings::clk_hw) -> &'a Self {
        // SAFETY: by the caller's promise `hw` is the `hw` field of a live `Gate`, so going
        // back by the field's offset gives that gate. After registration its Rust fields
        // are only read, and its handle only through raw pointers, so a shared reference
        // on any thread is fine.
        unsafe { &*kernel::container_of!(hw.cast::<Opaque<bindings::clk_hw>>(), Gate, hw) }
    }
}

/// `clk_ops.enable`: starts the clock.
///
/// # Safety
///
/// `hw` is the handle of a registered [`Gate`].
unsafe extern "C" fn gate_enable(hw: *mut bindings::clk_hw) -> c_int {
    // SAFETY: the framework calls `GATE_OPS` only with the handles registered with them,
    // each a gate's, and gates are never freed.
    let gate = unsafe { Gate::from_hw(hw) };
    gate.slot.set_clock(gate.index, true);
    0
}

/// `clk_ops.disable`: stops the clock.
///
/// # Safety
///
/// `hw` is the handle of a registered [`Gate`].
unsafe extern "C" fn gate_disable(hw: *mut bindings::clk_hw) {
    // SAFETY: as in `gate_enable`.
    let gate = unsafe { Gate::from_hw(hw) };
    gate.slot.set_clock(gate.index, false);
}

/// `clk_ops.is_enabled`: whether the clock runs (the framework asks at boot's end, when it
/// gates clocks nobody enabled).
///
/// # Safety
///
/// `hw` is the handle of a registered [`Gate`].
unsafe extern "C" fn gate_is_enabled(hw: *mut bindings::clk_hw) -> c_int {
    // SAFETY: as in `gate_enable`.
    let gate = unsafe { Gate::from_hw(hw) };
    c_int::from(gate.slot.clock_running(gate.index))
}

/// `clk_ops.recalc_rate`: the gate's fixed rate (a root clock: no parent).
///
/// # Safety
///
/// `hw` is the handle of a registered [`Gate`].
unsafe extern "C" fn gate_recalc_rate(hw: *mut bindings::clk_hw, _parent_rate: c_ulong) -> c_ulong {
    // SAFETY: as in `gate_enable`.
    unsafe { Gate::from_hw(hw) }.rate
}

/// The gates' operations. No `prepare`: gating is a register bit on hardware, which the
/// framework's enable spinlock covers.
static GATE_OPS: bindings::clk_ops = bindings::clk_ops {
    enable: Some(gate_enable),
    disable: Some(gate_disable),
    is_enabled: Some(gate_is_enabled),
    recalc_rate: Some(gate_recalc_rate),
    // SAFETY: every other member is an optional operation, a function pointer for which
    // all zeroes is `None`.
    ..unsafe { core::mem::zeroed() }
};

/// The board's clock provider: gate clocks, one `clocks` cell each, in the order added.
pub(super) struct ClockProvider {
    gates: KVec<&'static Gate>,
}

impl ClockProvider {
    /// A provider for up to `gates` gates.
    pub(super) fn with_capacity(gates: usize) -> Result<Self> {
        Ok(Self {
            gates: KVec::with_capacity(gates, GFP_KERNEL)?,
        })
    }

    /// Registers the gate `name`, `slot`'s gate number `index`, at the fixed rate `hz`, as
    /// the provider's next cell. The gate lives as long as the kernel.
    pub(super) fn add(
        &mut self,
        node: &Node,
        name: &CStr,
        hz: u32,
        index: usize,
        slot: &'static dyn SlotPower,
    ) -> Result {
        let gate: &'static Gate = KBox::leak(KBox::new(
            Gate {
                hw: Opaque::zeroed(),
                slot,
                index,
                rate: c_ulong::try_from(hz)?,
            },
            GFP_KERNEL,
        )?);
        let init = bindings::clk_init_data {
            name: name.as_char_ptr(),
            ops: &GATE_OPS,
            // SAFETY: the rest are the parent tables (null pointers), the number of parents
            // and the flags (zero): a root clock without special handling.
            ..unsafe { core::mem::zeroed() }
        };
        // SAFETY: the gate is not registered yet, so nothing else reaches its handle.
        unsafe { (*gate.hw.get()).init = &init };
        // SAFETY: the handle is zeroed apart from `init`, which points at valid init data
        // for the duration of the call (the framework copies the name and clears `init`);
        // the gate never moves or goes away (leaked above), as a registered clock needs;
        // by `Node`'s invariant the node is alive.
        to_result(unsafe { bindings::of_clk_hw_register(node.node.as_ptr(), gate.hw.get()) })?;
        self.gates.push(gate, GFP_KERNEL)?;
        Ok(())
    }

    /// Serves the gates at `node` (`#clock-cells = <1>`): cell N is the Nth gate added.
    /// The table lives as long as the kernel.
    pub(super) fn serve(self, node: &Node) -> Result {
        let table: &'static Self = KBox::leak(KBox::new(self, GFP_KERNEL)?);
        // SAFETY: by `Node`'s invariant the node is alive (the framework takes its own
        // reference); `clock_get` reads `data` as the `ClockProvider` it is, which is never
        // freed or changed again.
        to_result(unsafe {
            bindings::of_clk_add_hw_provider(
                node.node.as_ptr(),
                Some(clock_get),
                core::ptr::from_ref(table).cast_mut().cast(),
            )
        })
    }
}

/// The provider's getter: the gate a `clocks` cell names.
///
/// # Safety
///
/// `spec` is valid for reads; `data` is the table [`ClockProvider::serve`] registered.
unsafe extern "C" fn clock_get(
    spec: *mut bindings::of_phandle_args,
    data: *mut c_void,
) -> *mut bindings::clk_hw {
    // SAFETY: by the function's contract `data` is a `ClockProvider` that lives forever and
    // no longer changes.
    let table = unsafe { &*data.cast::<ClockProvider>() };
    // SAFETY: the framework passes the parsed phandle arguments, valid during the call.
    let spec = unsafe { &*spec };
    if spec.args_count != 1 {
        return EINVAL.to_ptr();
    }
    match usize::try_from(spec.args[0])
        .ok()
        .and_then(|cell| table.gates.get(cell))
    {
        Some(gate) => gate.hw.get(),
        None => EINVAL.to_ptr(),
    }
}

/// A generic PM domain in front of one slot. Registered domains are never removed or
/// freed: the board lives as long as the kernel.
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
struct Domain {
    /// The framework's domain. Only the framework touches it once initialised.
    genpd: Opaque<bindings::generic_pm_domain>,
    slot: &'static dyn SlotPower,
    /// The domain's name, which `genpd.name` points at for as long as the domain exists.
    name: CString,
}

#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
impl Domain {
    /// The domain whose framework part `genpd` is.
    ///
    /// # Safety
    ///
    /// `genpd` is the `genpd` of a [`Domain`] that lives for `'a`.
    unsafe fn from_genpd<'a>(genpd: *mut bindings::generic_pm_domain) -> &'a Self {
        // SAFETY: by the caller's promise `genpd` is the `genpd` field of a live `Domain`;
        // as in `Gate::from_hw`, its Rust fields are only read once it is initialised.
        unsafe {
            &*kernel::container_of!(
                genpd.cast::<Opaque<bindings::generic_pm_domain>>(),
                Domain,
                genpd
            )
        }
    }
}

/// `generic_pm_domain.power_on`.
///
/// # Safety
///
/// `genpd` is the framework part of an initialised [`Domain`].
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
unsafe extern "C" fn domain_power_on(genpd: *mut bindings::generic_pm_domain) -> c_int {
    // SAFETY: genpd calls a domain's callbacks only with that domain, here a `Domain`'s,
    // and domains are never freed.
    let domain = unsafe { Domain::from_genpd(genpd) };
    domain.slot.set_power(true);
    0
}

/// `generic_pm_domain.power_off`.
///
/// # Safety
///
/// `genpd` is the framework part of an initialised [`Domain`].
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
unsafe extern "C" fn domain_power_off(genpd: *mut bindings::generic_pm_domain) -> c_int {
    // SAFETY: as in `domain_power_on`.
    let domain = unsafe { Domain::from_genpd(genpd) };
    domain.slot.set_power(false);
    0
}

/// The board's power domain provider: one domain per slot, one `power-domains` cell each,
/// in the order added.
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
pub(super) struct PowerDomains {
    domains: KVec<*mut bindings::generic_pm_domain>,
}

#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
impl PowerDomains {
    /// A provider for up to `domains` domains.
    pub(super) fn with_capacity(domains: usize) -> Result<Self> {
        Ok(Self {
            domains: KVec::with_capacity(domains, GFP_KERNEL)?,
        })
    }

    /// Initialises the domain `name` for `slot`, off, as the provider's next cell. No
    /// governor: the domain goes off as soon as its device suspends. The domain lives as
    /// long as the kernel.
    pub(super) fn add(&mut self, name: CString, slot: &'static dyn SlotPower) -> Result {
        let domain: &'static Domain = KBox::leak(KBox::new(
            Domain {
                genpd: Opaque::zeroed(),
                slot,
                name,
            },
            GFP_KERNEL,
        )?);
        let genpd = domain.genpd.get();
        // SAFETY: the domain is not initialised yet, so nothing else reaches it.
        unsafe {
            (*genpd).name = domain.name.as_char_ptr();
            (*genpd).power_on = Some(domain_power_on);
            (*genpd).power_off = Some(domain_power_off);
        }
        // SAFETY: `genpd` is zeroed apart from its name (alive as long as the domain) and
        // callbacks, as `pm_genpd_init` expects; it never moves or goes away (leaked
        // above), as an initialised domain needs. A null governor is allowed; `is_off`:
        // the slot starts unpowered.
        to_result(unsafe { bindings::pm_genpd_init(genpd, core::ptr::null_mut(), true) })?;
        self.domains.push(genpd, GFP_KERNEL)?;
        Ok(())
    }

    /// Serves the domains at `node` (`#power-domain-cells = <1>`): cell N is the Nth
    /// domain added. The table lives as long as the kernel.
    pub(super) fn serve(self, node: &Node) -> Result {
        let num_domains = u32::try_from(self.domains.len())?;
        let (domains, _, _) = self.domains.into_raw_parts();
        let data = KBox::leak(KBox::new(
            bindings::genpd_onecell_data {
                domains,
                num_domains,
                // The framework's one-cell lookup.
                xlate: None,
            },
            GFP_KERNEL,
        )?);
        // SAFETY: by `Node`'s invariant the node is alive (the framework takes its own
        // reference); `data` and the array of `num_domains` initialised domains it points
        // at are never freed (leaked above), as a provider's data must live.
        to_result(unsafe { bindings::of_genpd_add_provider_onecell(node.node.as_ptr(), data) })
    }
}

/// The kernel's direct mapping of `len` bytes of RAM at physical (DMA) address
/// `address`, as a DMA engine without an IOMMU reaches memory. The translation takes no
/// lock, so a simulated engine may run under the hard-IRQ-safe lock its registers need.
fn direct_map(address: u64, len: usize) -> Result<NonNull<u8>> {
    let start = linear_address(address)?;
    let end = start.checked_add(len).ok_or(EFAULT)?;
    // SAFETY: set during early boot and never written afterwards.
    let high = unsafe { bindings::high_memory } as usize;
    // Beyond the end of the direct map is not RAM (and unmapped).
    if end > high {
        return Err(EFAULT);
    }
    NonNull::new(start as *mut u8).ok_or(EFAULT)
}

/// x86-64 maps all RAM at `page_offset_base` (randomised at boot) plus its physical address.
#[cfg(CONFIG_X86_64)]
fn linear_address(address: u64) -> Result<usize> {
    // SAFETY: set during early boot and never written afterwards.
    let base = unsafe { bindings::page_offset_base };
    base.checked_add(usize::try_from(address)?).ok_or(EFAULT)
}

/// arm64 maps RAM from `memstart_addr` (the physical start, rounded and randomised at boot)
/// at the bottom of the kernel's half of the address space, `PAGE_OFFSET`
/// (`-(1 << VA_BITS)`): `__phys_to_virt`.
#[cfg(CONFIG_ARM64)]
fn linear_address(address: u64) -> Result<usize> {
    const PAGE_OFFSET: u64 = !0u64 << bindings::CONFIG_ARM64_VA_BITS;
    // SAFETY: set during early boot and never written afterwards.
    let memstart = unsafe { bindings::memstart_addr };
    let offset = address
        .checked_sub(u64::try_from(memstart).map_err(|_| EFAULT)?)
        .ok_or(EFAULT)?;
    // Past the linear map's size (half the kernel's space) the address is not RAM.
    if offset >= 1u64 << (bindings::CONFIG_ARM64_VA_BITS - 1) {
        return Err(EFAULT);
    }
    Ok(usize::try_from(offset | PAGE_OFFSET)?)
}

/// Reads RAM at physical address `address` into `buf`.
pub(super) fn ram_read(address: u64, buf: &mut [u8]) -> Result {
    if buf.is_empty() {
        return Ok(());
    }
    let src = direct_map(address, buf.len())?;
    // SAFETY: `src` is the direct mapping of `buf.len()` bytes of RAM that the driver
    // mapped for the device; the model is the only "device" accessing it, like a real DMA
    // engine, and `buf` is the model's own buffer.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), buf.as_mut_ptr(), buf.len()) };
    Ok(())
}

/// Writes `data` to RAM at physical address `address`.
pub(super) fn ram_write(address: u64, data: &[u8]) -> Result {
    if data.is_empty() {
        return Ok(());
    }
    let dst = direct_map(address, data.len())?;
    // SAFETY: as in `ram_read`; the driver mapped the buffer for the device to write.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst.as_ptr(), data.len()) };
    Ok(())
}

/// The kernel's default unbound workqueue (`system_dfl_wq`), which 7.3's Rust workqueue
/// API does not name yet (its `system_unbound()` is the deprecated alias).
pub(super) fn default_queue() -> &'static Queue {
    // SAFETY: `system_dfl_wq` is allocated during early boot, before any initcall runs,
    // and never destroyed; reading the pointer copies it.
    unsafe { Queue::from_raw(kernel::bindings::system_dfl_wq) }
}

/// The value of `name=` on the kernel command line (the last one), if any. Built-in only:
/// the kernel does not export its saved command line to modules.
#[cfg(not(MODULE))]
pub(super) fn command_line_value(name: &str) -> Option<&'static [u8]> {
    // SAFETY: `saved_command_line` is set up before any initcall and never freed or
    // changed afterwards.
    let line = unsafe { bindings::saved_command_line };
    if line.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string that lives as long as the kernel (above).
    let line = unsafe { CStr::from_char_ptr(line) }.to_bytes();
    line.split(|&b| b == b' ').rev().find_map(|word| {
        let rest = word.strip_prefix(name.as_bytes())?;
        rest.strip_prefix(b"=")
    })
}

/// A module cannot read the kernel command line: no value.
#[cfg(MODULE)]
pub(super) fn command_line_value(_name: &str) -> Option<&'static [u8]> {
    None
}

/// An SDIO function driver of the board: what it does with the functions it binds.
pub(super) trait SdioDriver: Sized + Send + Sync + 'static {
    /// The driver's name (`/sys/bus/sdio/drivers/<NAME>`).
    const NAME: &'static CStr;
    /// The vendor and device IDs of the functions it binds, whatever their interface class.
    const ID: (u16, u16);
    /// What the driver keeps for each function it binds.
    type Data: Send + Sync;

    /// Sets up a function the core matched and returns its data, which stays with the
    /// function until it is removed. An error fails the probe.
    fn probe(&self, func: &SdioFunc<Self>) -> Result<KBox<Self::Data>>;

    /// Goes on with the probe once the data is attached (its interrupt handler reaches it
    /// from then on). An error fails the probe, which releases the interrupt if it is still
    /// claimed and drops the data.
    fn start(&self, func: &SdioFunc<Self>, data: &Self::Data) -> Result;

    /// Handles the function's interrupt ([`SdioHost::claim_irq`]); the core holds the host.
    fn interrupt(&self, host: &SdioHost<'_, Self>, data: &Self::Data);
}

/// The SDIO bus's view of the class byte of a match entry that matches any class
/// (`(__u8)SDIO_ANY_ID`).
const SDIO_ANY_CLASS: u8 = u8::MAX;

/// An SDIO function driver's C structure, its match table and the Rust driver behind them.
#[repr(C)]
struct SdioDriverBox<T> {
    /// First, so that the C driver's address is the box's.
    driver: Opaque<bindings::sdio_driver>,
    /// The driver's match entry and the table's terminator.
    ids: [bindings::sdio_device_id; 2],
    ops: T,
}

/// A registered SDIO function driver; dropping it unregisters the driver, which removes
/// the functions it bound first.
pub(super) struct SdioRegistration<T: SdioDriver> {
    inner: Pin<KBox<SdioDriverBox<T>>>,
}

// SAFETY: after registration the C driver is only touched by the driver core (under its
// own locks), and `T` is `Send`.
unsafe impl<T: SdioDriver> Send for SdioRegistration<T> {}
// SAFETY: `&self` gives nothing but the drop; `T` is `Sync`.
unsafe impl<T: SdioDriver> Sync for SdioRegistration<T> {}

impl<T: SdioDriver> SdioRegistration<T> {
    /// Registers `ops` as an SDIO function driver of `module`; the bus probes it on the
    /// functions that match at once and as they appear.
    pub(super) fn new(ops: T, module: &'static kernel::ThisModule) -> Result<Self> {
        let (vendor, device) = T::ID;
        let inner = KBox::pin(
            SdioDriverBox {
                driver: Opaque::zeroed(),
                ids: [
                    bindings::sdio_device_id {
                        class: SDIO_ANY_CLASS,
                        vendor,
                        device,
                        driver_data: 0,
                    },
                    // All zeroes: the terminator the bus looks for.
                    bindings::sdio_device_id {
                        class: 0,
                        vendor: 0,
                        device: 0,
                        driver_data: 0,
                    },
                ],
                ops,
            },
            GFP_KERNEL,
        )?;
        let driver = inner.driver.get();
        // SAFETY: the driver is not registered yet, so nothing else reaches it.
        unsafe {
            (*driver).name = T::NAME.as_char_ptr().cast_mut();
            (*driver).id_table = inner.ids.as_ptr();
            (*driver).probe = Some(sdio_probe::<T>);
            (*driver).remove = Some(sdio_remove::<T>);
        }
        // SAFETY: the driver is zeroed apart from its name (static, only read), its
        // terminated match table and its callbacks; it never moves (pinned) and outlives
        // its registration (`drop` unregisters it first). `module` is this module's
        // `THIS_MODULE` (null when built in), the same C type.
        to_result(unsafe { bindings::__sdio_register_driver(driver, module.as_ptr().cast()) })?;
        Ok(Self { inner })
    }
}

impl<T: SdioDriver> Drop for SdioRegistration<T> {
    fn drop(&mut self) {
        // SAFETY: registered in `new`; unregistering waits for the callbacks to return and
        // removes the bound functions (dropping their data) before the box goes away.
        unsafe { bindings::sdio_unregister_driver(self.inner.driver.get()) };
    }
}

/// An SDIO function bound to (or being probed by) driver `T`, during one of its callbacks.
///
/// # Invariants
///
/// The function is alive and its `dev.driver` is the `drv` of the C driver in a live
/// [`SdioDriverBox<T>`]. Its `dev.driver_data` is null or a `KBox<T::Data>` attached by
/// [`SdioFunc::attach`], written only with the host claimed.
#[repr(transparent)]
pub(super) struct SdioFunc<T> {
    func: Opaque<bindings::sdio_func>,
    _driver: core::marker::PhantomData<T>,
}

impl<T: SdioDriver> SdioFunc<T> {
    /// The function `ptr` points at.
    ///
    /// # Safety
    ///
    /// `ptr` meets the type invariants for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::sdio_func) -> &'a Self {
        // SAFETY: `SdioFunc` is a transparent wrapper of the C structure; the caller
        // promises it lives for `'a`.
        unsafe { &*ptr.cast() }
    }

    fn as_raw(&self) -> *mut bindings::sdio_func {
        self.func.get()
    }

    /// The Rust driver bound to the function.
    fn driver(&self) -> &T {
        // SAFETY: by the type invariants `dev.driver` is the `drv` field of the `sdio_driver`
        // that starts a live `SdioDriverBox<T>` (`repr(C)`, `Opaque` is transparent).
        unsafe {
            let drv = (*self.as_raw()).dev.driver;
            let driver = kernel::container_of!(drv, bindings::sdio_driver, drv);
            &(*driver.cast::<SdioDriverBox<T>>()).ops
        }
    }

    /// The function's device name (`mmc<host>:<RCA>:<function>`).
    pub(super) fn name(&self) -> &CStr {
        // SAFETY: by the type invariants the function, hence its device, is alive while
        // `self` is borrowed; it is the same C `struct device`.
        let dev: &kernel::device::Device = unsafe {
            kernel::device::Device::from_raw(core::ptr::addr_of_mut!((*self.as_raw()).dev).cast())
        };
        dev.name()
    }

    /// The function's number on its card (1..=7).
    pub(super) fn number(&self) -> u32 {
        // SAFETY: set when the function is created, never written afterwards.
        unsafe { (*self.as_raw()).num }
    }

    /// Claims the card's host for this function's accesses, until the claim is dropped
    /// (may sleep; the same task may nest claims).
    pub(super) fn claim_host(&self) -> SdioHost<'_, T> {
        // SAFETY: by the type invariants the function is alive.
        unsafe { bindings::sdio_claim_host(self.as_raw()) };
        SdioHost {
            func: self,
            owned: true,
        }
    }

    /// The data attached to the function, if any.
    ///
    /// # Safety
    ///
    /// The caller holds the host (which serialises with [`Self::attach`] and
    /// [`Self::detach`]) or is the probe or remove path that attaches and detaches it; the
    /// returned reference is not used after the data is detached.
    unsafe fn data<'a>(&self) -> Option<&'a T::Data> {
        // SAFETY: as the caller promises, nothing writes the pointer meanwhile.
        let data = unsafe { (*self.as_raw()).dev.driver_data };
        // SAFETY: by the type invariants a non-null pointer is a live `T::Data`.
        unsafe { data.cast::<T::Data>().as_ref() }
    }

    /// Attaches `data` to the function (probe).
    fn attach(&self, data: KBox<T::Data>) {
        let _host = self.claim_host();
        // SAFETY: with the host claimed no interrupt handler reads the pointer.
        unsafe { (*self.as_raw()).dev.driver_data = KBox::into_raw(data).cast() };
    }

    /// Releases the function's interrupt if it is still claimed, then detaches and drops
    /// its data (remove, or a failed probe).
    fn detach(&self) {
        let data = {
            let host = self.claim_host();
            // SAFETY: the handler is only called, installed and removed with the host
            // claimed, which we hold.
            if unsafe { (*self.as_raw()).irq_handler }.is_some() {
                // Clears the handler even if the card no longer answers.
                let _ = host.release_irq();
            }
            // SAFETY: with the host claimed and the handler gone nothing else reads it.
            unsafe {
                core::ptr::replace(
                    core::ptr::addr_of_mut!((*self.as_raw()).dev.driver_data),
                    core::ptr::null_mut(),
                )
            }
        };
        if !data.is_null() {
            // SAFETY: attached by `attach` from a `KBox<T::Data>`, and now detached.
            drop(unsafe { KBox::from_raw(data.cast::<T::Data>()) });
        }
    }
}

/// `sdio_driver.probe`: the driver's `probe`, then its `start` with the data attached.
///
/// # Safety
///
/// `func` is a live function the bus matched with `T`'s registered driver.
unsafe extern "C" fn sdio_probe<T: SdioDriver>(
    func: *mut bindings::sdio_func,
    _id: *const bindings::sdio_device_id,
) -> c_int {
    // SAFETY: the bus sets `dev.driver` to the driver it probes, `T`'s (these callbacks are
    // only `T`'s), before calling it; no data is attached yet.
    let func = unsafe { SdioFunc::<T>::from_raw(func) };
    let driver = func.driver();
    let data = match driver.probe(func) {
        Ok(data) => data,
        Err(e) => return e.to_errno(),
    };
    func.attach(data);
    // SAFETY: the probe path that attached the data; it is detached below at the earliest.
    let Some(data) = (unsafe { func.data() }) else {
        return EINVAL.to_errno();
    };
    match driver.start(func, data) {
        Ok(()) => 0,
        Err(e) => {
            func.detach();
            e.to_errno()
        }
    }
}

/// `sdio_driver.remove`.
///
/// # Safety
///
/// `func` is a live function bound to `T`'s registered driver.
unsafe extern "C" fn sdio_remove<T: SdioDriver>(func: *mut bindings::sdio_func) {
    // SAFETY: the bus keeps `dev.driver` set until `remove` returns.
    unsafe { SdioFunc::<T>::from_raw(func) }.detach();
}

/// The function interrupt handler [`SdioHost::claim_irq`] installs.
///
/// # Safety
///
/// `func` is a live function bound to `T`'s registered driver, and the caller holds its
/// host.
unsafe extern "C" fn sdio_interrupt<T: SdioDriver>(func: *mut bindings::sdio_func) {
    // SAFETY: only `SdioHost::<T>::claim_irq` installs this handler, on a function of `T`'s
    // driver, and `detach` removes it before the function is unbound; the core calls it
    // with the host claimed.
    let func = unsafe { SdioFunc::<T>::from_raw(func) };
    // SAFETY: the core holds the host for us during the call.
    let Some(data) = (unsafe { func.data() }) else {
        return;
    };
    let host = SdioHost { func, owned: false };
    func.driver().interrupt(&host, data);
}

/// The card's host, claimed for a function's accesses; released on drop.
pub(super) struct SdioHost<'a, T: SdioDriver> {
    func: &'a SdioFunc<T>,
    /// Whether this claim is ours to release (not the core's, in the interrupt handler).
    owned: bool,
}

impl<T: SdioDriver> SdioHost<'_, T> {
    fn raw(&self) -> *mut bindings::sdio_func {
        self.func.as_raw()
    }

    /// Enables the function (CCCR I/O enable) and waits for it to be ready.
    pub(super) fn enable(&self) -> Result {
        // SAFETY: the function is alive and its host claimed (as for every method here).
        to_result(unsafe { bindings::sdio_enable_func(self.raw()) })
    }

    /// Disables the function.
    pub(super) fn disable(&self) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_disable_func(self.raw()) })
    }

    /// Sets the function's block size for block-mode CMD53 (0: the largest both the card
    /// and the host take, up to 512).
    pub(super) fn set_block_size(&self, bytes: u32) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_set_block_size(self.raw(), bytes) })
    }

    /// Reads the byte at `address` of the function's space (CMD52).
    pub(super) fn read_byte(&self, address: u32) -> Result<u8> {
        let mut err = 0;
        // SAFETY: as in `enable`; `err` receives the status.
        let value = unsafe { bindings::sdio_readb(self.raw(), address, &mut err) };
        to_result(err).map(|()| value)
    }

    /// Writes `value` to the byte at `address` of the function's space (CMD52).
    pub(super) fn write_byte(&self, address: u32, value: u8) -> Result {
        let mut err = 0;
        // SAFETY: as in `enable`; `err` receives the status.
        unsafe { bindings::sdio_writeb(self.raw(), value, address, &mut err) };
        to_result(err)
    }

    /// Writes `data` to the function's space from `address` on, incrementing (CMD53: whole
    /// blocks in block mode, the rest in byte mode). The core maps the buffer for DMA,
    /// hence a kmalloc'ed one.
    pub(super) fn write(&self, address: u32, data: &KVec<u8>) -> Result {
        let count = c_int::try_from(data.len())?;
        if count == 0 {
            return Err(EINVAL);
        }
        // SAFETY: as in `enable`; `data` is `count` bytes of kmalloc'ed memory (which DMA
        // may reach), borrowed for the call; the core only reads it.
        to_result(unsafe {
            bindings::sdio_memcpy_toio(self.raw(), address, data.as_ptr().cast_mut().cast(), count)
        })
    }

    /// Reads the function's space from `address` on into `buf`, incrementing (CMD53, as in
    /// [`Self::write`]).
    pub(super) fn read(&self, address: u32, buf: &mut KVec<u8>) -> Result {
        let count = c_int::try_from(buf.len())?;
        if count == 0 {
            return Err(EINVAL);
        }
        // SAFETY: as in `enable`; `buf` is `count` bytes of kmalloc'ed memory, borrowed
        // mutably for the call.
        to_result(unsafe {
            bindings::sdio_memcpy_fromio(self.raw(), buf.as_mut_ptr().cast(), address, count)
        })
    }

    /// Claims the function's interrupt: [`SdioDriver::interrupt`] handles it from now on
    /// (with the function's data, so not before the probe attached it), until
    /// [`Self::release_irq`] or the function's removal.
    pub(super) fn claim_irq(&self) -> Result {
        // SAFETY: as in `enable`; the handler is `T`'s and the function is bound to `T`'s
        // driver; `SdioFunc::detach` removes the handler before the data goes away.
        to_result(unsafe { bindings::sdio_claim_irq(self.raw(), Some(sdio_interrupt::<T>)) })
    }

    /// Releases the function's interrupt (the core waits for no running handler: both run
    /// with the host claimed).
    pub(super) fn release_irq(&self) -> Result {
        // SAFETY: as in `enable`.
        to_result(unsafe { bindings::sdio_release_irq(self.raw()) })
    }
}

impl<T: SdioDriver> Drop for SdioHost<'_, T> {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: claimed in `SdioFunc::claim_host`, released once.
            unsafe { bindings::sdio_release_host(self.raw()) };
        }
    }
}
