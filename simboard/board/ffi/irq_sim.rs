// SPDX-License-Identifier: GPL-2.0

//! The board's interrupts: a domain of the kernel's interrupt simulator (`irq_sim`) for
//! the interrupt controller node, whose lines the models raise; with more than one CPU
//! every raise is made on CPU 0, through a cross-CPU call.

use core::{
    pin::Pin,
    ptr::NonNull,
    sync::atomic::{AtomicBool, AtomicU32, Ordering},
};

use kernel::{ffi::c_void, prelude::*, types::Opaque};

use super::{bindings, Node};

/// An interrupt domain of the kernel's interrupt simulator.
///
/// # Invariants
///
/// `raiser.domain` was created by `irq_domain_create_sim` and is never removed (the board
/// lives as long as the kernel).
pub(crate) struct SimIrqDomain {
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
    pub(crate) fn new(node: &Node, lines: u32) -> Result<Self> {
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
    pub(crate) fn handler_running(&self, hwirq: u32) -> bool {
        self.line_state(hwirq) & bindings::IRQD_IRQ_INPROGRESS != 0
    }

    /// Whether line `hwirq` is disabled at the interrupt core (`disable_irq`, or every
    /// device interrupt during system sleep): the core keeps a raise then pending itself.
    pub(crate) fn line_disabled(&self, hwirq: u32) -> bool {
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
    pub(crate) fn raise(&self, hwirq: u32) {
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
