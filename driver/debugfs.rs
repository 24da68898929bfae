// SPDX-License-Identifier: GPL-2.0

//! Per-host counters in debugfs, `/sys/kernel/debug/mtk_sd_rust/mmcN/`: the queue mode
//! (`cqe`, `hsq` or `legacy`), the engine that runs it (`rust`, `c` or `none`), its depth, requests issued and completed, the most in flight
//! at once, errors by kind, error recoveries, direct commands, runtime suspends,
//! resumes and system sleeps, the last tuning (`tuning`) with the number of tunings and
//! their probes, and the hardware faults the request engine recorded.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::{
    debugfs::{Dir, Scope},
    prelude::*,
    str::CString,
    sync::{global_lock, Arc},
};

use crate::host::Msdc;

global_lock! {
    // SAFETY: `Root::create` initialises the lock, once (`ROOT_CREATED`), when the module
    // loads, before the driver registers, so before any probe takes it.
    unsafe(uninit) static ROOT_DIR: Mutex<Option<Dir>> = None;
}

/// Set by the one [`Root::create`] that initialises [`ROOT_DIR`].
static ROOT_CREATED: AtomicBool = AtomicBool::new(false);

/// `/sys/kernel/debug/mtk_sd_rust`, shared by every host: created when the module loads,
/// removed when it goes (once the hosts' directories, which hold it too, are gone), so
/// that a module loaded again creates it afresh.
pub(crate) struct Root(());

impl Root {
    /// Creates the directory, from the module's initialisation; a second call fails
    /// (`EBUSY`).
    pub(crate) fn create() -> Result<Self> {
        if ROOT_CREATED.swap(true, Ordering::AcqRel) {
            return Err(EBUSY);
        }
        // SAFETY: only the call that set `ROOT_CREATED` gets here, and it runs before the
        // driver registers, so before anything takes the lock.
        unsafe { ROOT_DIR.init() };
        *ROOT_DIR.lock() = Some(Dir::new(c"mtk_sd_rust"));
        Ok(Root(()))
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        *ROOT_DIR.lock() = None;
    }
}

/// A host's debugfs directory; it goes away when this is dropped.
pub(crate) type HostDir = Scope<Arc<Msdc>>;

/// The directory of host `mmc{index}` with `msdc`'s counters.
pub(crate) fn host_dir(index: i32, msdc: Arc<Msdc>) -> Result<Pin<KBox<HostDir>>> {
    let root = ROOT_DIR.lock().clone().ok_or(ENOENT)?;
    let name = CString::try_from_fmt(fmt!("mmc{}", index))?;
    KBox::pin_init(
        root.scope(Ok::<_, Error>(msdc), &name, |msdc: &Arc<Msdc>, dir| {
            let c = &msdc.counters;
            // A slot with one of the kernel's C engines shows the mode the core set up for
            // it; the driver's own engines keep theirs in the counters.
            #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
            match msdc.c_engine() {
                Some(engine) => dir.read_only_file(c"mode", engine.mode()),
                None => dir.read_only_file(c"mode", &c.mode),
            }
            #[cfg(not(CONFIG_MMC_MTK_RUST_C_ENGINES))]
            dir.read_only_file(c"mode", &c.mode);
            dir.read_only_file(c"engine", &c.engine);
            dir.read_only_file(c"queue_depth", &c.queue_depth);
            dir.read_only_file(c"issued", &c.issued);
            dir.read_only_file(c"completed", &c.completed);
            dir.read_only_file(c"max_in_flight", &c.max_in_flight);
            dir.read_only_file(c"errors", &c.errors);
            dir.read_only_file(c"errors_crc", &c.errors_crc);
            dir.read_only_file(c"errors_timeout", &c.errors_timeout);
            dir.read_only_file(c"errors_other", &c.errors_other);
            dir.read_only_file(c"recoveries", &c.recoveries);
            dir.read_only_file(c"direct_commands", &c.direct_commands);
            dir.read_only_file(c"runtime_suspends", &c.runtime_suspends);
            dir.read_only_file(c"runtime_resumes", &c.runtime_resumes);
            dir.read_only_file(c"system_sleeps", &c.system_sleeps);
            dir.read_only_file(c"tuning", &c.tuning);
            dir.read_only_file(c"tunings", &c.tunings);
            dir.read_only_file(c"tuning_probes", &c.tuning_probes);
            dir.read_only_file(c"hardware_faults", &c.hardware_faults);
            dir.read_only_file(c"tuning_probes_failed", &c.tuning_probes_failed);
        }),
        GFP_KERNEL,
    )
}
