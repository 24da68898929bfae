// SPDX-License-Identifier: GPL-2.0
//! The part of QEMU's TCG plugin API version 1 (QEMU 7.2's `qemu-plugin.h`) that the
//! plugin uses, declared by hand: QEMU exports these functions from its own binary
//! and resolves them when it loads the plugin.

use core::ffi::{c_char, c_int, c_uint, c_void};

/// The API version this plugin is written against (`QEMU_PLUGIN_VERSION` of 7.2).
pub(crate) const PLUGIN_VERSION: c_int = 1;

/// A plugin's id, handed to `qemu_plugin_install`.
pub(crate) type PluginId = u64;

/// `qemu_info_t`: what QEMU says about itself at install time.
#[repr(C)]
pub(crate) struct QemuInfo {
    /// The target's name, such as `x86_64`.
    pub(crate) target_name: *const c_char,
    /// The oldest API version this QEMU still loads.
    pub(crate) version_min: c_int,
    /// Its own API version.
    pub(crate) version_cur: c_int,
    /// Whether this is system emulation (not user mode).
    pub(crate) system_emulation: bool,
    /// System emulation: the vCPUs the machine starts with.
    pub(crate) smp_vcpus: c_int,
    /// System emulation: the most vCPUs it can have.
    pub(crate) max_vcpus: c_int,
}

/// `struct qemu_plugin_tb`, opaque.
#[repr(C)]
pub(crate) struct Tb {
    _opaque: [u8; 0],
}

/// `struct qemu_plugin_insn`, opaque.
#[repr(C)]
pub(crate) struct Insn {
    _opaque: [u8; 0],
}

/// `QEMU_PLUGIN_INLINE_ADD_U64` of `enum qemu_plugin_op`.
pub(crate) const INLINE_ADD_U64: c_int = 0;
/// `QEMU_PLUGIN_CB_NO_REGS` of `enum qemu_plugin_cb_flags`.
pub(crate) const CB_NO_REGS: c_int = 0;

/// `qemu_plugin_vcpu_tb_trans_cb_t`.
pub(crate) type TbTransCb = unsafe extern "C" fn(id: PluginId, tb: *mut Tb);
/// `qemu_plugin_vcpu_udata_cb_t`.
pub(crate) type VcpuUdataCb = unsafe extern "C" fn(vcpu_index: c_uint, userdata: *mut c_void);
/// `qemu_plugin_udata_cb_t`.
pub(crate) type UdataCb = unsafe extern "C" fn(id: PluginId, userdata: *mut c_void);

extern "C" {
    pub(crate) fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTransCb);
    pub(crate) fn qemu_plugin_register_atexit_cb(id: PluginId, cb: UdataCb, userdata: *mut c_void);
    pub(crate) fn qemu_plugin_tb_n_insns(tb: *const Tb) -> usize;
    pub(crate) fn qemu_plugin_tb_get_insn(tb: *const Tb, idx: usize) -> *mut Insn;
    pub(crate) fn qemu_plugin_register_vcpu_tb_exec_inline(
        tb: *mut Tb,
        op: c_int,
        ptr: *mut c_void,
        imm: u64,
    );
    pub(crate) fn qemu_plugin_register_vcpu_insn_exec_inline(
        insn: *mut Insn,
        op: c_int,
        ptr: *mut c_void,
        imm: u64,
    );
    pub(crate) fn qemu_plugin_register_vcpu_insn_exec_cb(
        insn: *mut Insn,
        cb: VcpuUdataCb,
        flags: c_int,
        userdata: *mut c_void,
    );
    pub(crate) fn qemu_plugin_insn_vaddr(insn: *const Insn) -> u64;
    pub(crate) fn qemu_plugin_insn_size(insn: *const Insn) -> usize;
    pub(crate) fn qemu_plugin_insn_data(insn: *const Insn) -> *const c_void;
    pub(crate) fn qemu_plugin_outs(string: *const c_char);
}
