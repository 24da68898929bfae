// SPDX-License-Identifier: GPL-2.0

//! A test-only SDIO function driver that checks, when it binds the simulated SDIO card's
//! function 1 (`models::sdio`), that the host moves data and delivers the function's
//! interrupt: CMD52 and CMD53 (block and byte mode) round trips with every byte compared,
//! then [`INTERRUPTS`] interrupts raised and acknowledged one after another, then
//! [`WAKEUPS`] interrupts the card raises on its own while the host's controller is
//! runtime suspended, which only the slot's wake-up interrupt can deliver.
//!
//! Each function's results are one line in debugfs,
//! `/sys/kernel/debug/mtk_sd_rust_sim/sdio/<host>` (`bytes=<N> verified=<N> irqs=<N>
//! wakeups=<N> errors=<N> done=<0|1>`, 1 once the test is over), and a `pr_info` summary; every failure is also logged with `pr_err`. The
//! probe succeeds whatever the test found, so that the results stay readable (a failed
//! probe would remove them) and the card stays bound; only a failure to set up the
//! results themselves fails it.

use core::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use kernel::{
    debugfs::{Dir, File},
    fmt,
    prelude::*,
    str::CString,
    time::{delay::fsleep, Delta},
};

use super::ffi::{SdioDriver, SdioFunc, SdioHost, SdioRegistration};
use crate::models::sdio::{regs::func1, DEVICE_ID, VENDOR_ID};

/// The block size the test sets: the card's largest, so that 8 KiB is 16 blocks.
const BLOCK_SIZE: u32 = 512;

/// A stretch of the function's RAM window the test writes and reads back.
struct Region {
    address: u32,
    len: usize,
}

/// The regions moved: whole blocks (block mode), then an odd length at an odd address
/// (byte mode, below the block size), apart from each other.
const REGIONS: [Region; 2] = [
    Region {
        address: 0x0000,
        len: 8192,
    },
    Region {
        address: 0x2345,
        len: 300,
    },
];

/// Interrupts raised, each waited for before the next.
const INTERRUPTS: usize = 16;
/// Interrupts the card raises on its own while the controller sleeps, each waited for.
const WAKEUPS: usize = 3;
/// How long the controller may take to runtime-suspend once the host is released (its
/// autosuspend delay is 50 ms), in polls of [`POLL_MS`].
const SUSPEND_POLLS: u32 = 2000;
/// The cause bit the test raises the interrupt with.
const CAUSE: u8 = 1 << 0;
/// How long an interrupt may take to be handled, in polls of [`POLL_MS`].
const INTERRUPT_POLLS: u32 = 1000;
/// The interval of those polls.
const POLL_MS: i64 = 1;

/// Varies the pattern from probe to probe, so that RAM left by an earlier probe cannot
/// pass for a transfer that did not happen.
static SEED: AtomicU8 = AtomicU8::new(0x5A);

/// What the test found on one function.
#[derive(Default)]
struct Results {
    /// Bytes written and read back without an error.
    bytes: AtomicUsize,
    /// Of those, the bytes read back as written.
    verified: AtomicUsize,
    /// Calls of the interrupt handler.
    irqs: AtomicUsize,
    /// Interrupts handled that the card raised while the controller slept.
    wakeups: AtomicUsize,
    /// Failures (each logged).
    errors: AtomicUsize,
    /// The test is over (the figures are final).
    done: AtomicBool,
}

/// The debugfs line.
fn show(results: &Results, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(
        f,
        "bytes={} verified={} irqs={} wakeups={} errors={} done={}",
        results.bytes.load(Ordering::Relaxed),
        results.verified.load(Ordering::Relaxed),
        results.irqs.load(Ordering::Acquire),
        results.wakeups.load(Ordering::Relaxed),
        results.errors.load(Ordering::Relaxed),
        u8::from(results.done.load(Ordering::Acquire))
    )
}

/// A bound function: its name (the host's) and its results, in debugfs.
struct Function {
    host: CString,
    results: Pin<KBox<File<Results>>>,
}

impl Function {
    /// The host's name, for the log.
    fn name(&self) -> &str {
        self.host.to_str().unwrap_or("?")
    }

    /// Logs and counts a failure of `what`.
    fn failed(&self, what: &str, e: Error) {
        pr_err!(
            "sdio {}: {} failed: {:?} ({})\n",
            self.name(),
            what,
            e,
            e.to_errno()
        );
        self.results.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Records `result` of `what`: a failure is logged and counted.
    fn check<T>(&self, what: &str, result: Result<T>) -> Option<T> {
        result.inspect_err(|&e| self.failed(what, e)).ok()
    }
}

/// The pattern byte `i` of a region.
fn pattern(i: usize, seed: u8) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3) as u8) ^ seed
}

/// Writes `region` with the pattern (CMD53), reads it back into another buffer that holds
/// the pattern's complement (so every byte must change) and compares every byte. The
/// buffers are kmalloc'ed: the core maps them for DMA.
fn move_region(
    host: &SdioHost<'_, SimFunction>,
    region: &Region,
    seed: u8,
    data: &Function,
) -> Result {
    let mut out = KVec::from_elem(0u8, region.len, GFP_KERNEL)?;
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = pattern(i, seed);
    }
    let mut back = KVec::from_elem(0u8, region.len, GFP_KERNEL)?;
    for (byte, sent) in back.iter_mut().zip(out.iter()) {
        *byte = !*sent;
    }
    host.write(region.address, &out)?;
    host.read(region.address, &mut back)?;
    let matched = out.iter().zip(back.iter()).filter(|(a, b)| a == b).count();
    data.results.bytes.fetch_add(region.len, Ordering::Relaxed);
    data.results.verified.fetch_add(matched, Ordering::Relaxed);
    match out.iter().zip(back.iter()).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(at) => {
            pr_err!(
                "sdio {}: {} of {} bytes at {:#x} differ, the first at {:#x}\n",
                data.name(),
                region.len - matched,
                region.len,
                region.address,
                region.address as usize + at
            );
            Err(EIO)
        }
    }
}

/// Sets the block size, checks the ID, moves [`REGIONS`] and does a CMD52 round trip on
/// the scratch byte; stops at the first failure of the set-up.
fn transfers(host: &SdioHost<'_, SimFunction>, data: &Function, seed: u8) -> Option<()> {
    data.check("setting the block size", host.set_block_size(BLOCK_SIZE))?;
    let id = data.check("reading the ID", host.read_byte(func1::ID))?;
    if id != func1::ID_VALUE {
        data.failed("checking the ID", ENODEV);
        return None;
    }
    for region in &REGIONS {
        data.check("moving data", move_region(host, region, seed, data));
    }
    let scratch = seed ^ 0xC3;
    let back = data
        .check(
            "writing the scratch byte",
            host.write_byte(func1::SCRATCH, scratch),
        )
        .and_then(|()| data.check("reading the scratch byte", host.read_byte(func1::SCRATCH)));
    if back.is_some_and(|back| back != scratch) {
        data.failed("the scratch byte round trip", EIO);
    }
    Some(())
}

/// Whether `done` holds within [`INTERRUPT_POLLS`] polls.
fn wait_for(done: impl Fn() -> bool) -> bool {
    wait_polls(INTERRUPT_POLLS, done)
}

/// Whether `done` holds within `polls` polls of [`POLL_MS`].
fn wait_polls(polls: u32, done: impl Fn() -> bool) -> bool {
    for _ in 0..polls {
        if done() {
            return true;
        }
        fsleep(Delta::from_millis(POLL_MS));
    }
    done()
}

/// Claims the interrupt, raises it [`INTERRUPTS`] times, each time releasing the host (the
/// handler needs it) and waiting for the handler, then releases it.
fn interrupts(func: &SdioFunc<SimFunction>, data: &Function) {
    if data
        .check("claiming the interrupt", func.claim_host().claim_irq())
        .is_none()
    {
        return;
    }
    for n in 1..=INTERRUPTS {
        let raised = func.claim_host().write_byte(func1::INT_TRIGGER, CAUSE);
        if data.check("raising the interrupt", raised).is_none() {
            break;
        }
        if !wait_for(|| data.results.irqs.load(Ordering::Acquire) >= n) {
            pr_err!(
                "sdio {}: interrupt {} of {} not handled within 1 s\n",
                data.name(),
                n,
                INTERRUPTS
            );
            data.failed("waiting for the interrupt", ETIMEDOUT);
            break;
        }
    }
    wakeups(data);
    data.check("releasing the interrupt", func.claim_host().release_irq());
    if data.results.irqs.load(Ordering::Acquire) > INTERRUPTS + WAKEUPS {
        data.failed("counting interrupts (more than raised)", EIO);
    }
}

/// With the host left alone the controller runtime-suspends; then the card raises its
/// interrupt by itself ([`super::raise_sdio_card_interrupt`], the board's stand-in for a
/// Wi-Fi chip's incoming frame), [`WAKEUPS`] times, each handled before the next: the
/// wake-up interrupt must resume the controller, which then sees the card's interrupt.
fn wakeups(data: &Function) {
    for _ in 0..WAKEUPS {
        let before = data.results.irqs.load(Ordering::Acquire);
        if !wait_polls(SUSPEND_POLLS, super::sdio_controller_asleep) {
            data.failed("waiting for the controller to suspend", ETIMEDOUT);
            return;
        }
        // The card's event comes once the PM core has armed the wake-up interrupt, which
        // it does after the suspend callback returned. The simulated line is an event that
        // a line not yet armed drops, where a board's level-triggered GPIO interrupt would
        // fire on arming (TODO[WAKE-LINE]); so the test waits for the arming itself, not
        // for a delay that a loaded host can outlast.
        if !wait_polls(SUSPEND_POLLS, super::sdio_wake_line_armed) {
            data.failed("waiting for the wake-up interrupt to be armed", ETIMEDOUT);
            return;
        }
        if !super::raise_sdio_card_interrupt(CAUSE) {
            data.failed("raising the card's interrupt", ENODEV);
            return;
        }
        if !wait_for(|| data.results.irqs.load(Ordering::Acquire) > before) {
            pr_err!(
                "sdio {}: an interrupt raised while the controller slept was not handled \
                 within 1 s ({} wake-up(s) of the line so far, line {}, controller {})\n",
                data.name(),
                super::sdio_wakeups(),
                if super::sdio_wake_line_armed() {
                    "armed"
                } else {
                    "disarmed"
                },
                if super::sdio_controller_asleep() {
                    "still asleep"
                } else {
                    "awake"
                }
            );
            data.failed("waking the controller", ETIMEDOUT);
            return;
        }
        data.results.wakeups.fetch_add(1, Ordering::Relaxed);
    }
}

/// The function driver; its functions' files go in `dir` (`.../sdio/`).
struct SimFunction {
    dir: Dir,
}

impl SdioDriver for SimFunction {
    const NAME: &'static CStr = c"mtk_sd_rust_sim_sdio";
    const ID: (u16, u16) = (VENDOR_ID, DEVICE_ID);
    type Data = Function;

    fn probe(&self, func: &SdioFunc<Self>) -> Result<KBox<Function>> {
        if func.number() != 1 {
            return Err(ENODEV);
        }
        // `mmc<N>:<RCA>:<function>`: the host's name is up to the first colon.
        let name = func.name().to_bytes();
        let name = name.split(|&b| b == b':').next().unwrap_or(name);
        let host = CString::try_from_fmt(fmt!("{}", core::str::from_utf8(name)?))?;
        let results = KBox::pin_init(
            self.dir
                .read_callback_file(&host, Ok::<_, Error>(Results::default()), &show),
            GFP_KERNEL,
        )?;
        Ok(KBox::new(Function { host, results }, GFP_KERNEL)?)
    }

    fn start(&self, func: &SdioFunc<Self>, data: &Function) -> Result {
        let seed = SEED.fetch_add(0x3B, Ordering::Relaxed);
        if data
            .check("enabling the function", func.claim_host().enable())
            .is_some()
        {
            if transfers(&func.claim_host(), data, seed).is_some() {
                interrupts(func, data);
            }
            data.check("disabling the function", func.claim_host().disable());
        }
        let r = &data.results;
        r.done.store(true, Ordering::Release);
        pr_info!(
            "sdio {}: bytes={} verified={} irqs={} wakeups={} errors={}\n",
            data.name(),
            r.bytes.load(Ordering::Relaxed),
            r.verified.load(Ordering::Relaxed),
            r.irqs.load(Ordering::Acquire),
            r.wakeups.load(Ordering::Relaxed),
            r.errors.load(Ordering::Relaxed)
        );
        Ok(())
    }

    /// Reads the causes, writes them back to clear them (the acknowledgement), and counts
    /// the call once that is done.
    fn interrupt(&self, host: &SdioHost<'_, Self>, data: &Function) {
        let acked = host
            .read_byte(func1::INT_STATUS)
            .and_then(|causes| host.write_byte(func1::INT_STATUS, causes));
        data.check("acknowledging the interrupt", acked);
        data.results.irqs.fetch_add(1, Ordering::Release);
    }
}

/// The board's SDIO function driver, registered; dropping it unregisters it (removing its
/// functions' debugfs files).
pub(crate) struct SdioFunctionDriver {
    _registration: SdioRegistration<SimFunction>,
}

/// Registers the board's SDIO function driver; each function it binds gets its results
/// file in `board_dir`'s `sdio/` (`board_dir` being `/sys/kernel/debug/mtk_sd_rust_sim/`).
pub(crate) fn register(board_dir: &Dir) -> Result<SdioFunctionDriver> {
    let driver = SimFunction {
        dir: board_dir.subdir(c"sdio"),
    };
    Ok(SdioFunctionDriver {
        _registration: SdioRegistration::new(
            driver,
            kernel::module::this_module::<crate::LocalModule>(),
        )?,
    })
}
