// SPDX-License-Identifier: GPL-2.0

//! Per-host counters in debugfs, `/sys/kernel/debug/mtk_sd_rust/mmcN/`: the queue mode
//! (`cqe`, `hsq` or `legacy`), the engine that runs it (`rust`, `c` or `none`), its
//! depth, requests issued and completed, the most in flight at once, errors by kind,
//! error recoveries, direct commands, runtime suspends, resumes and system sleeps, the
//! last tuning (`tuning`) with the number of tunings and their probes, the hardware
//! faults the request engine recorded, the software queue's dispatches deferred to the
//! busy retry (`busy_retries`), and the interrupt handler's longest run (`irq_max_ns`;
//! `irq_max` by what the run was about, with its most poll reads).

use kernel::{debugfs::Scope, prelude::*, str::CString, sync::Arc};

use crate::{host::Msdc, kernel_mmc::ModuleDir};

/// `/sys/kernel/debug/mtk_sd_rust`, shared by every host: created when the module loads,
/// removed when it goes, so that a module loaded again creates it afresh.
pub(crate) fn create_root() -> Result<ModuleDir> {
    ModuleDir::create(c"mtk_sd_rust")
}

/// A host's debugfs directory; it goes away when this is dropped.
pub(crate) type HostDir = Scope<Arc<Msdc>>;

/// The directory of host `mmc{index}` with `msdc`'s counters.
pub(crate) fn host_dir(index: i32, msdc: Arc<Msdc>) -> Result<Pin<KBox<HostDir>>> {
    let root = ModuleDir::get().ok_or(ENOENT)?;
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
            dir.read_only_file(c"busy_retries", &c.busy_retries);
            dir.read_only_file(c"irq_max_ns", &c.irq_max_ns);
            dir.read_only_file(c"irq_max", &c.irq_max);
        }),
        GFP_KERNEL,
    )
}
