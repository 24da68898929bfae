// SPDX-License-Identifier: GPL-2.0

//! The slots' clock gates: gate clocks of the common clock framework at fixed rates, which
//! open and close the gates of a [`SlotPower`], served to the nodes' `clocks` by one
//! provider.

use kernel::{
    error::to_result,
    ffi::{c_int, c_ulong, c_void},
    prelude::*,
    types::Opaque,
};

use super::{bindings, Node, SlotPower};

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
pub(crate) struct ClockProvider {
    gates: KVec<&'static Gate>,
}

impl ClockProvider {
    /// A provider for up to `gates` gates.
    pub(crate) fn with_capacity(gates: usize) -> Result<Self> {
        Ok(Self {
            gates: KVec::with_capacity(gates, GFP_KERNEL)?,
        })
    }

    /// Registers the gate `name`, `slot`'s gate number `index`, at the fixed rate `hz`, as
    /// the provider's next cell. The gate lives as long as the kernel.
    pub(crate) fn add(
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
    pub(crate) fn serve(self, node: &Node) -> Result {
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
