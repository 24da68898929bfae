// SPDX-License-Identifier: GPL-2.0

//! A debugfs directory that belongs to the loaded module: created when the module
//! initialises, found by the devices it probes, and removed when the module goes, so that
//! the module loaded again creates it afresh. The kernel crate of 7.3 keeps a module's
//! data out of its probes' reach; this is the one static that bridges them.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::{debugfs::Dir, prelude::*, sync::global_lock};

global_lock! {
    // SAFETY: `ModuleDir::create` initialises the lock once (`CREATED`), from the module's
    // initialisation, before anything else can take it.
    unsafe(uninit) static DIR: Mutex<Option<Dir>> = None;
}

/// Set by the one [`ModuleDir::create`] that initialises [`DIR`].
static CREATED: AtomicBool = AtomicBool::new(false);
/// Set once [`DIR`] is initialised: only then does [`ModuleDir::get`] take the lock.
static READY: AtomicBool = AtomicBool::new(false);

/// The module's debugfs directory: it goes when this is dropped (and the directories
/// under it, which hold it too, are gone).
pub struct ModuleDir(());

impl ModuleDir {
    /// Creates `/sys/kernel/debug/<name>`. Call it from the module's initialisation, before
    /// the driver registers; a second call fails (`EBUSY`).
    pub fn create(name: &CStr) -> Result<Self> {
        if CREATED.swap(true, Ordering::AcqRel) {
            return Err(EBUSY);
        }
        // SAFETY: only the call that set `CREATED` gets here, so the lock is initialised
        // once, and nothing takes it before `READY` is set below.
        unsafe { DIR.init() };
        *DIR.lock() = Some(Dir::new(name));
        READY.store(true, Ordering::Release);
        Ok(Self(()))
    }

    /// The directory, while the module has it (`None` before `create` or after the drop).
    pub fn get() -> Option<Dir> {
        if !READY.load(Ordering::Acquire) {
            return None;
        }
        DIR.lock().clone()
    }
}

impl Drop for ModuleDir {
    fn drop(&mut self) {
        // `create` returned, so `READY` is set and the lock initialised.
        *DIR.lock() = None;
    }
}
