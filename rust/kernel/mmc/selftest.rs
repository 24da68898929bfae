// SPDX-License-Identifier: GPL-2.0

//! The MMC core's side of the callback bridges, for the KUnit suites: requests shaped as the
//! core builds them, handed to a registered host's callback tables as the core hands them, so
//! that a test (`kunit/cqe.rs`) sees what the real `mmc_request_done` and
//! `mmc_cqe_request_done` do with them, without a card. Test kernels only
//! (`CONFIG_MMC_MTK_RUST_KUNIT_TEST`).

use core::{
    mem::offset_of,
    ptr::{self, NonNull},
    sync::atomic::{AtomicI32, AtomicU32, Ordering},
};

use kernel::prelude::*;

use super::{
    bindings,
    cqe::CqeOps,
    host::{HostSettings, Registration},
    ops::HostOps,
};

/// Block size of every fake's data phase.
const BLOCK_SIZE: u32 = 512;

/// Blocks of every fake's data phase.
const BLOCKS: u32 = 8;

/// Bytes a fake's data phase moves when it runs to the end.
pub const DATA_BYTES: u32 = BLOCK_SIZE * BLOCKS;

/// Settings for a test host on a faux device: 3.3 V cards, 400 kHz to 50 MHz, no capabilities
/// and no command queue depth.
pub const CARDLESS_SETTINGS: HostSettings = HostSettings {
    min_frequency: 400_000,
    max_frequency: 50_000_000,
    ocr_avail: bindings::MMC_VDD_32_33 | bindings::MMC_VDD_33_34,
    caps: 0,
    caps2: 0,
    queue_depth: 0,
};

/// `MMC_DATA_READ`: the header spells it `BIT(9)`, which bindgen cannot evaluate.
const MMC_DATA_READ: u32 = 1 << 9;

/// A request and the command and data it points at, in one allocation with the request
/// first, so that `done`, which gets only the request's address, finds the counters.
#[repr(C)]
struct Parts {
    mrq: bindings::mmc_request,
    cmd: bindings::mmc_command,
    data: bindings::mmc_data,
    /// Calls of `mrq.done`.
    done_calls: AtomicU32,
    /// The process id of the task that called `mrq.done` last.
    done_by: AtomicI32,
    /// Hand-overs the driver took, each of which it must complete once.
    handed_over: AtomicU32,
}

const _: () = assert!(offset_of!(Parts, mrq) == 0);

// SAFETY: the request, command and data are bindgen's C structs of integers, booleans, raw
// pointers and optional function pointers (and arrays and unions of them), for which all-zero
// bytes are valid values (0, false, null, `None`); so they are for the atomics.
unsafe impl Zeroable for Parts {}

/// A request as the MMC core hands one to a host: a command queue engine's data task, a direct
/// command, a request with command and data, or one with neither. Its `done` counts the
/// completions, so a test can check that a request came back exactly once, or not at all.
///
/// # Invariants
///
/// `parts` comes from `KBox::into_raw` of a [`Parts`] whose `mrq` points at its own `cmd`
/// (if `has_cmd`, else null) and `data` (if `has_data`, else null), with `done` set to
/// [`FakeRequest::done`]. It is freed on drop only when the driver holds no handle to it.
pub struct FakeRequest {
    parts: NonNull<Parts>,
    has_cmd: bool,
    has_data: bool,
}

/// Opcode, argument and `MMC_RSP_*`/`MMC_CMD_*` flags of a fake's command.
struct CommandSpec {
    opcode: u32,
    arg: u32,
    flags: u32,
}

impl FakeRequest {
    fn build(tag: i32, command: Option<CommandSpec>, block_address: Option<u32>) -> Result<Self> {
        let parts = KBox::into_raw(KBox::<Parts>::zeroed(GFP_KERNEL)?);
        let (has_cmd, has_data) = (command.is_some(), block_address.is_some());
        // SAFETY: `parts` is a fresh, all-zero allocation that nothing else can reach yet.
        // The pointers stored in the request are derived from `parts`, so they may reach the
        // whole allocation, as `done` does.
        unsafe {
            let mrq = ptr::addr_of_mut!((*parts).mrq);
            let cmd = ptr::addr_of_mut!((*parts).cmd);
            let data = ptr::addr_of_mut!((*parts).data);
            (*mrq).tag = tag;
            (*mrq).done = Some(Self::done);
            if let Some(spec) = command {
                (*cmd).opcode = spec.opcode;
                (*cmd).arg = spec.arg;
                (*cmd).flags = spec.flags;
                (*cmd).mrq = mrq;
                (*mrq).cmd = cmd;
            }
            if let Some(block_address) = block_address {
                (*data).blksz = BLOCK_SIZE;
                (*data).blocks = BLOCKS;
                (*data).blk_addr = block_address;
                (*data).flags = MMC_DATA_READ;
                (*data).mrq = mrq;
                (*mrq).data = data;
                if has_cmd {
                    (*cmd).data = data;
                }
            }
        }
        // INVARIANT: built above as the invariant describes.
        Ok(Self {
            parts: NonNull::new(parts).ok_or(ENOMEM)?,
            has_cmd,
            has_data,
        })
    }

    /// A command queue engine's data task: no command, a read of [`DATA_BYTES`] from
    /// `block_address`, in queue slot `tag`.
    pub fn data_task(tag: i32, block_address: u32) -> Result<Self> {
        Self::build(tag, None, Some(block_address))
    }

    /// A direct command without data, in queue slot `tag`: the cache flush the block layer
    /// sends through a command queue engine (CMD6 writing `FLUSH_CACHE`, R1b).
    pub fn cache_flush(tag: i32) -> Result<Self> {
        let spec = CommandSpec {
            opcode: bindings::MMC_SWITCH,
            arg: (bindings::MMC_SWITCH_MODE_WRITE_BYTE << 24)
                | (bindings::EXT_CSD_FLUSH_CACHE << 16)
                | (1 << 8)
                | bindings::EXT_CSD_CMD_SET_NORMAL,
            flags: bindings::MMC_CMD_AC | bindings::MMC_RSP_R1B,
        };
        Self::build(tag, Some(spec), None)
    }

    /// A request with command and data, as the `request` callback gets one: CMD18 reading
    /// [`DATA_BYTES`] from `block_address`.
    pub fn read_blocks(block_address: u32) -> Result<Self> {
        let spec = CommandSpec {
            opcode: bindings::MMC_READ_MULTIPLE_BLOCK,
            arg: block_address,
            flags: bindings::MMC_CMD_ADTC | bindings::MMC_RSP_R1,
        };
        Self::build(0, Some(spec), Some(block_address))
    }

    /// A request with neither command nor data, which the core never sends: for the checks
    /// that no path dereferences the command a request lacks.
    pub fn empty() -> Result<Self> {
        Self::build(0, None, None)
    }

    /// The request's `done`, as the core's waiters have it: counts the call.
    ///
    /// # Safety
    ///
    /// `mrq` must be the request of a live [`Parts`]; only [`FakeRequest::build`] installs
    /// this callback, in such a request.
    unsafe extern "C" fn done(mrq: *mut bindings::mmc_request) {
        // SAFETY: `mrq` is the first member of a live `Parts` (the caller's guarantee and the
        // `offset_of` check above) and carries the whole allocation's provenance (`build`).
        // Only the atomics are borrowed, so the borrows cannot conflict with the driver's
        // accesses to the other members.
        let (calls, done_by) = unsafe {
            let parts = mrq.cast::<Parts>();
            (&(*parts).done_calls, &(*parts).done_by)
        };
        done_by.store(kernel::current!().pid(), Ordering::Relaxed);
        calls.fetch_add(1, Ordering::Release);
    }

    fn done_counter(&self) -> &AtomicU32 {
        // SAFETY: by the type invariant `parts` is live; only the atomic is borrowed.
        unsafe { &(*self.parts.as_ptr()).done_calls }
    }

    fn handed_over(&self) -> &AtomicU32 {
        // SAFETY: by the type invariant `parts` is live; only the atomic is borrowed.
        unsafe { &(*self.parts.as_ptr()).handed_over }
    }

    /// How often the request was completed (its `done` called).
    pub fn done_calls(&self) -> u32 {
        self.done_counter().load(Ordering::Acquire)
    }

    /// Whether the last completion ran in the calling task (rather than, say, a work item).
    pub fn completed_here(&self) -> bool {
        // SAFETY: by the type invariant `parts` is live; only the atomic is borrowed.
        let done_by = unsafe { &(*self.parts.as_ptr()).done_by };
        done_by.load(Ordering::Relaxed) == kernel::current!().pid()
    }

    /// Whether the driver may still hold the request: it took it more often than it
    /// completed it.
    fn with_driver(&self) -> bool {
        self.handed_over().load(Ordering::Relaxed) > self.done_calls()
    }

    /// The command as it stands, `None` for a request without a command.
    fn command(&self) -> Option<bindings::mmc_command> {
        let parts = self.parts.as_ptr();
        // SAFETY: by the type invariant `parts` is live; a volatile read of a plain member,
        // as the core reads what a completion wrote.
        let cmd = unsafe { ptr::read_volatile(ptr::addr_of!((*parts).cmd)) };
        self.has_cmd.then_some(cmd)
    }

    /// The data phase as it stands, `None` for a request without data.
    fn data(&self) -> Option<bindings::mmc_data> {
        let parts = self.parts.as_ptr();
        // SAFETY: by the type invariant `parts` is live; a volatile read of a plain member,
        // as the core reads what a completion wrote.
        let data = unsafe { ptr::read_volatile(ptr::addr_of!((*parts).data)) };
        self.has_data.then_some(data)
    }

    /// The command's opcode, `None` for a request without a command.
    pub fn opcode(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.opcode)
    }

    /// `cmd.error`, `None` for a request without a command.
    pub fn cmd_error(&self) -> Option<i32> {
        self.command().map(|cmd| cmd.error)
    }

    /// `cmd.resp[0]`, `None` for a request without a command.
    pub fn cmd_response(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.resp[0])
    }

    /// `data.error`, `None` for a request without data.
    pub fn data_error(&self) -> Option<i32> {
        self.data().map(|data| data.error)
    }

    /// `data.bytes_xfered`, `None` for a request without data.
    pub fn bytes_xfered(&self) -> Option<u32> {
        self.data().map(|data| data.bytes_xfered)
    }

    /// Readies the request for a hand-over as the core's `mmc_mrq_prep` does (errors
    /// cleared), with `mrq.host` set for the queue route as `mmc_cqe_start_req` sets it.
    fn prepare(&mut self, host: Option<*mut bindings::mmc_host>) -> *mut bindings::mmc_request {
        let parts = self.parts.as_ptr();
        // SAFETY: by the type invariant `parts` is live, and the driver holds no handle to it
        // (the callers hand over only a fake that is not with the driver), so nothing else
        // accesses it.
        unsafe {
            if let Some(host) = host {
                (*parts).mrq.host = host;
            }
            if self.has_cmd {
                (*parts).cmd.error = 0;
            }
            if self.has_data {
                (*parts).data.error = 0;
            }
        }
        self.raw_request()
    }

    /// The request, as the core passes it to the callbacks.
    fn raw_request(&self) -> *mut bindings::mmc_request {
        // The request is the first member (checked above), and the pointer keeps the whole
        // allocation's provenance, which `done` needs.
        self.parts.as_ptr().cast()
    }
}

impl Drop for FakeRequest {
    fn drop(&mut self) {
        if self.with_driver() {
            // A late completion must find live memory: leak it rather than free it.
            pr_err!("a fake request is still with the driver; leaking it\n");
            return;
        }
        // SAFETY: by the type invariant `parts` came from `KBox::into_raw`, and the driver
        // holds no handle to it: it completed every hand-over it took.
        drop(unsafe { KBox::from_raw(self.parts.as_ptr()) });
    }
}

/// Queues `fake` with the host's `cqe_ops->cqe_request`, as `mmc_cqe_start_req` does, and
/// returns what the callback returned (0: the driver took the request and completes it with
/// `mmc_cqe_request_done`; an errno: the request is back with the core, uncompleted).
/// `-EALREADY` for a fake the driver still holds, `-EOPNOTSUPP` for a host registered without
/// queue operations.
pub fn cqe_request<T: CqeOps>(registration: &Registration<T>, fake: &mut FakeRequest) -> c_int {
    // The core never issues a request that is in flight.
    if fake.with_driver() {
        return EALREADY.to_errno();
    }
    let host = registration.host().as_raw();
    // SAFETY: the registration keeps the host alive; `cqe_ops` is null or the `'static`
    // table `Registration::add_with_queue` installed.
    let callback = unsafe { (*host).cqe_ops.as_ref() }.and_then(|ops| ops.cqe_request);
    let Some(callback) = callback else {
        return EOPNOTSUPP.to_errno();
    };
    let mrq = fake.prepare(Some(host));
    // Counted before the call: the driver may complete the request before it returns.
    fake.handed_over().fetch_add(1, Ordering::Relaxed);
    // SAFETY: the callback is called as the core calls it: for a host registered with its
    // table and not removed (the registration is borrowed), with a live request, which
    // stays alive until the driver completes it (a fake the driver may still hold is leaked
    // on drop, never freed).
    let ret = unsafe { callback(host, mrq) };
    if ret != 0 {
        // Refused: the core keeps the request.
        fake.handed_over().fetch_sub(1, Ordering::Relaxed);
    }
    ret
}

/// Asks the host's `cqe_ops->cqe_timeout` about `fake`, as the block layer's timeout handler
/// does, starting with `recovery_needed` false: whether the driver still has the request,
/// and whether it needs recovery. `(false, false)` for a host without queue operations.
pub fn cqe_timeout<T: CqeOps>(registration: &Registration<T>, fake: &FakeRequest) -> (bool, bool) {
    let host = registration.host().as_raw();
    // SAFETY: the registration keeps the host alive; `cqe_ops` is null or the `'static`
    // table `Registration::add_with_queue` installed.
    let callback = unsafe { (*host).cqe_ops.as_ref() }.and_then(|ops| ops.cqe_timeout);
    let Some(callback) = callback else {
        return (false, false);
    };
    let mrq = fake.raw_request();
    let mut recovery_needed = false;
    // SAFETY: the callback is called as the core calls it: for a host registered with its
    // table and not removed (the registration is borrowed), with a live request and a valid
    // `recovery_needed` for the duration of the call.
    let timed_out = unsafe { callback(host, mrq, &mut recovery_needed) };
    (timed_out, recovery_needed)
}

/// Issues `fake` with the host's `ops->request`, as `mmc_start_request` does; the driver
/// completes it with `mmc_request_done`. A fake without a command counts as never handed
/// over: `mmc_request_done` could not complete it, so the driver must not keep it. A fake the
/// driver still holds is not issued again.
pub fn request<T: HostOps>(registration: &Registration<T>, fake: &mut FakeRequest) {
    if fake.with_driver() {
        pr_err!("a fake request was issued while the driver holds it\n");
        return;
    }
    let host = registration.host().as_raw();
    // SAFETY: the registration keeps the host alive; `ops` is the `'static` table
    // `Registration` installed.
    let callback = unsafe { (*host).ops.as_ref() }.and_then(|ops| ops.request);
    let Some(callback) = callback else {
        return;
    };
    let mrq = fake.prepare(None);
    if fake.has_cmd {
        // Counted before the call: the driver may complete the request before it returns.
        fake.handed_over().fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: the callback is called as the core calls it: for a host registered with its
    // table and not removed (the registration is borrowed), with a live request, which
    // stays alive until the driver completes it (a fake the driver may still hold is leaked
    // on drop, never freed).
    unsafe { callback(host, mrq) };
}
