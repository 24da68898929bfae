// SPDX-License-Identifier: GPL-2.0
//! insncount: a QEMU TCG plugin (API version 1, QEMU 7.2 and later) that counts
//! the guest's executed instructions exactly, by component.
//!
//! At translation each guest instruction's virtual address is looked up in an
//! address map (`map=FILE`, made by `scripts/insn-map.sh` from the kernel's symbols
//! and object tree): user space (the lower half), a named kernel bucket, or `other`.
//! Each run of consecutive instructions of one bucket in a translation block gets
//! an inline `add` of its length to that bucket's counter, executed where the run
//! starts; no helper call, so the cost at run time is one memory add per run.
//!
//! The guest asks for a snapshot by executing the marker instruction
//! ([`map::MARKER`]) in user space (`/bin/insnmark`): the plugin writes every
//! counter then, numbered, and once more when QEMU exits. Differences between
//! snapshots are the instructions of what ran in between.
//!
//! Arguments: `map=FILE` (optional; without it every kernel address is `other`),
//! `out=FILE` (default: QEMU's log, `-d plugin`) and `top=N`: count per symbol of
//! the map too (its ranges unmerged) and write, at each snapshot, the N symbols that
//! ran the most instructions since the one before. `entry=ADDR[:ADDR...]` and
//! `issue=ADDR[:ADDR...]` (hexadecimal): measure the completion-to-next-issue path
//! ([`path`]) and write its samples at each snapshot. One vCPU only: the inline adds
//! of several vCPU threads would race.
//!
//! Lines written:
//!
//! ```text
//! insncount: buckets user other <name>...
//! insncount: mark <seq> user=<N> other=<N> <name>=<N>... total=<N>
//! insncount: exit user=<N> ... total=<N>
//! insncount: top <mark seq or exit> <rank> <N> <bucket> <symbol>
//! insncount: path <mark seq or exit> <N>...
//! ```

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

mod ffi;
pub mod map;
pub mod path;

use ffi::{Insn, PluginId, QemuInfo, Tb};
use map::AddrMap;
use path::{End, Ends, Path};

/// The API version QEMU checks before it calls [`qemu_plugin_install`].
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static qemu_plugin_version: c_int = ffi::PLUGIN_VERSION;

struct State {
    map: AddrMap,
    /// One counter per bucket, then (with `top=`) one per range of the map; QEMU's
    /// inline adds write them through their addresses.
    counters: Box<[AtomicU64]>,
    /// How many buckets lead `counters`.
    buckets: usize,
    /// `top=`: symbols listed per snapshot (0: no counts per symbol).
    top: usize,
    /// The counters at the snapshot before, for `top=`.
    before: Mutex<Vec<u64>>,
    /// Where snapshots go: a file, or QEMU's log when `None`.
    out: Mutex<Option<File>>,
    marks: AtomicU64,
    /// The ends of the completion-to-next-issue path (none given: not measured).
    ends: Ends,
    path: Mutex<Path>,
}

static STATE: OnceLock<State> = OnceLock::new();

impl State {
    /// The counter an instruction at `addr` adds to.
    fn slot(&self, addr: u64) -> usize {
        match self.map.range_of(addr) {
            Some(range) if self.top > 0 => self.buckets + range,
            _ => self.map.lookup(addr),
        }
    }

    /// One line with every bucket and their sum, after `what`; with `top=`, then
    /// the symbols that ran the most since the snapshot before.
    fn snapshot(&self, what: &str) -> String {
        let now: Vec<u64> = self
            .counters
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let mut totals = now[..self.buckets].to_vec();
        for (range, n) in now[self.buckets..].iter().enumerate() {
            let b = self.map.bucket_of_range(range);
            totals[b] = totals[b].wrapping_add(*n);
        }
        let mut line = format!("insncount: {what}");
        for (name, n) in self.map.names().iter().zip(totals.iter()) {
            line.push_str(&format!(" {name}={n}"));
        }
        let total = totals.iter().fold(0u64, |a, n| a.wrapping_add(*n));
        line.push_str(&format!(" total={total}\n"));
        if self.top > 0 {
            let mut before = self.before.lock().unwrap_or_else(|e| e.into_inner());
            let mut ran: Vec<(u64, usize)> = now[self.buckets..]
                .iter()
                .zip(before[self.buckets..].iter())
                .enumerate()
                .map(|(range, (n, b))| (n.wrapping_sub(*b), range))
                .filter(|&(d, _)| d > 0)
                .collect();
            ran.sort_unstable_by(|a, b| b.cmp(a));
            let tag = what.strip_prefix("mark ").unwrap_or(what);
            for (rank, (n, range)) in ran.iter().take(self.top).enumerate() {
                let bucket = &self.map.names()[self.map.bucket_of_range(*range)];
                let symbol = self.map.symbol(*range).unwrap_or("?");
                line.push_str(&format!(
                    "insncount: top {tag} {} {n} {bucket} {symbol}\n",
                    rank + 1
                ));
            }
            *before = now;
        }
        if self.ends.enabled() {
            let samples = self.path.lock().unwrap_or_else(|e| e.into_inner()).take();
            let tag = what.strip_prefix("mark ").unwrap_or(what);
            line.push_str(&format!("insncount: path {tag}"));
            for n in samples {
                line.push_str(&format!(" {n}"));
            }
            line.push('\n');
        }
        line
    }

    /// The instructions counted so far, in every counter.
    fn counted(&self) -> u64 {
        self.counters
            .iter()
            .fold(0u64, |a, c| a.wrapping_add(c.load(Ordering::Relaxed)))
    }

    fn write(&self, line: &str) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        match out.as_mut() {
            Some(f) => {
                // A snapshot that cannot be written is lost; the run goes on.
                let _ = f.write_all(line.as_bytes()).and_then(|()| f.flush());
            }
            None => outs(line),
        }
    }
}

/// Writes to QEMU's log.
fn outs(text: &str) {
    if let Ok(c) = CString::new(text) {
        // SAFETY: `c` is a NUL-terminated string that lives across the call.
        unsafe { ffi::qemu_plugin_outs(c.as_ptr()) };
    }
}

unsafe extern "C" fn on_mark(_vcpu: c_uint, _userdata: *mut c_void) {
    if let Some(st) = STATE.get() {
        let seq = st.marks.fetch_add(1, Ordering::Relaxed);
        st.write(&st.snapshot(&format!("mark {seq}")));
    }
}

/// An end of the completion-to-next-issue path runs; `userdata` is
/// [`path_userdata`]'s.
unsafe extern "C" fn on_path(_vcpu: c_uint, userdata: *mut c_void) {
    if let Some(st) = STATE.get() {
        let data = userdata as usize;
        let end = if data & 1 == 0 {
            End::Entry
        } else {
            End::Issue
        };
        let executed = st.counted().wrapping_sub((data >> 1) as u64);
        st.path
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reached(end, executed);
    }
}

/// The callback data of a path end: which end, and the instructions counted ahead of it
/// ([`path::counted_ahead`]).
fn path_userdata(end: End, ahead: u64) -> *mut c_void {
    let data = ((ahead as usize) << 1) | usize::from(end == End::Issue);
    data as *mut c_void
}

unsafe extern "C" fn on_exit(_id: PluginId, _userdata: *mut c_void) {
    if let Some(st) = STATE.get() {
        st.write(&st.snapshot("exit"));
    }
}

unsafe extern "C" fn on_tb_trans(_id: PluginId, tb: *mut Tb) {
    let Some(st) = STATE.get() else { return };
    // SAFETY: QEMU hands a valid translation block for the duration of the call.
    let n = unsafe { ffi::qemu_plugin_tb_n_insns(tb) };
    // The runs of one bucket: (first instruction, bucket, length).
    let mut runs: Vec<(*mut Insn, usize, u64)> = Vec::with_capacity(2);
    // The first instruction of each run, by position in the block.
    let mut starts: Vec<usize> = Vec::with_capacity(2);
    // Ends of the path in the block: (instruction, position, end, its run).
    let mut ends: Vec<(*mut Insn, usize, End, usize)> = Vec::new();
    for i in 0..n {
        // SAFETY: `i` is below the block's instruction count.
        let insn = unsafe { ffi::qemu_plugin_tb_get_insn(tb, i) };
        // SAFETY: `insn` belongs to `tb`, valid during the call.
        let vaddr = unsafe { ffi::qemu_plugin_insn_vaddr(insn) };
        let bucket = st.slot(vaddr);
        match runs.last_mut() {
            Some(run) if run.1 == bucket => run.2 += 1,
            _ => {
                runs.push((insn, bucket, 1));
                starts.push(i);
            }
        }
        if let Some(end) = st.ends.end_at(vaddr) {
            ends.push((insn, i, end, runs.len() - 1));
        }
        if !map::is_kernel(vaddr) {
            // SAFETY: as above; the size is the instruction's length in bytes.
            let size = unsafe { ffi::qemu_plugin_insn_size(insn) };
            if size == map::MARKER.len() {
                // SAFETY: QEMU's copy of the instruction's `size` bytes, valid
                // during the call.
                let bytes = unsafe {
                    std::slice::from_raw_parts(ffi::qemu_plugin_insn_data(insn).cast::<u8>(), size)
                };
                if map::is_marker(vaddr, bytes) {
                    // SAFETY: a valid instruction of this block and a callback that
                    // lives as long as the plugin.
                    unsafe {
                        ffi::qemu_plugin_register_vcpu_insn_exec_cb(
                            insn,
                            on_mark,
                            ffi::CB_NO_REGS,
                            std::ptr::null_mut(),
                        )
                    };
                }
            }
        }
    }
    for (insn, index, end, run) in ends {
        let len = usize::try_from(runs[run].2).unwrap_or(usize::MAX);
        let ahead = path::counted_ahead(runs.len() == 1, starts[run], len, index);
        // SAFETY: a valid instruction of this block and a callback that lives as long as
        // the plugin; the data is a number, not a pointer.
        unsafe {
            ffi::qemu_plugin_register_vcpu_insn_exec_cb(
                insn,
                on_path,
                ffi::CB_NO_REGS,
                path_userdata(end, ahead),
            )
        };
    }
    let counter = |slot: usize| st.counters[slot].as_ptr().cast::<c_void>();
    if let [(_, bucket, len)] = runs[..] {
        // SAFETY: `tb` is valid during the call and the counter lives as long as the
        // plugin (a static); QEMU adds `len` to it each time the block runs.
        unsafe {
            ffi::qemu_plugin_register_vcpu_tb_exec_inline(
                tb,
                ffi::INLINE_ADD_U64,
                counter(bucket),
                len,
            )
        };
    } else {
        for (insn, bucket, len) in runs {
            // SAFETY: as above, on the run's first instruction.
            unsafe {
                ffi::qemu_plugin_register_vcpu_insn_exec_inline(
                    insn,
                    ffi::INLINE_ADD_U64,
                    counter(bucket),
                    len,
                )
            };
        }
    }
}

/// Reads the plugin's arguments and sets it up; nonzero refuses the plugin.
fn install(id: PluginId, info: &QemuInfo, args: &[String]) -> Result<(), String> {
    if info.system_emulation && info.smp_vcpus > 1 {
        return Err(format!(
            "{} vCPUs: the inline counters are exact for one vCPU only",
            info.smp_vcpus
        ));
    }
    let mut map_text = String::new();
    let mut out = None;
    let mut top = 0;
    let mut ends = Ends::default();
    for arg in args {
        match arg.split_once('=') {
            Some(("entry", list)) => ends.add(End::Entry, list)?,
            Some(("issue", list)) => ends.add(End::Issue, list)?,
            Some(("map", path)) => {
                map_text = std::fs::read_to_string(path).map_err(|e| format!("map {path}: {e}"))?;
            }
            Some(("top", n)) => {
                top = n.parse().map_err(|e| format!("top={n}: {e}"))?;
            }
            Some(("out", path)) => {
                out = Some(File::create(path).map_err(|e| format!("out {path}: {e}"))?);
            }
            _ => {
                return Err(format!(
                    "unknown argument `{arg}` (map=FILE, out=FILE, top=N, entry=ADDRS, issue=ADDRS)"
                ))
            }
        }
    }
    let map = if top > 0 {
        AddrMap::parse_symbols(&map_text)
    } else {
        AddrMap::parse(&map_text)
    }
    .map_err(|e| format!("map: {e}"))?;
    let buckets = map.names().len();
    let slots = buckets + if top > 0 { map.ranges() } else { 0 };
    let counters = (0..slots).map(|_| AtomicU64::new(0)).collect();
    let state = State {
        map,
        counters,
        buckets,
        top,
        before: Mutex::new(vec![0; slots]),
        out: Mutex::new(out),
        marks: AtomicU64::new(0),
        ends,
        path: Mutex::new(Path::default()),
    };
    state.write(&format!(
        "insncount: buckets {}\n",
        state.map.names().join(" ")
    ));
    STATE
        .set(state)
        .map_err(|_| "installed twice".to_string())?;
    // SAFETY: the callbacks are functions of this plugin, which QEMU keeps loaded.
    unsafe {
        ffi::qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
        ffi::qemu_plugin_register_atexit_cb(id, on_exit, std::ptr::null_mut());
    }
    Ok(())
}

/// QEMU's entry point.
///
/// # Safety
///
/// QEMU calls it once, with its information and `argc` NUL-terminated arguments.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: PluginId,
    info: *const c_void,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let args: Vec<String> = (0..usize::try_from(argc).unwrap_or(0))
        .map(|i| {
            // SAFETY: QEMU passes `argc` valid C strings in `argv`.
            unsafe { CStr::from_ptr(*argv.add(i)) }
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    // SAFETY: QEMU passes a valid `qemu_info_t`, which `QemuInfo` lays out.
    let info = unsafe { &*info.cast::<QemuInfo>() };
    match install(id, info, &args) {
        Ok(()) => 0,
        Err(e) => {
            outs(&format!("insncount: {e}\n"));
            eprintln!("insncount: {e}");
            1
        }
    }
}
