// SPDX-License-Identifier: GPL-2.0

//! The simulated DMA engines' access to RAM: reading and writing it by physical address
//! through the kernel's direct map, whose layout is the architecture's (x86-64 or arm64,
//! which the option depends on).

use core::ptr::NonNull;

use kernel::prelude::*;

use super::bindings;

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
pub(crate) fn ram_read(address: u64, buf: &mut [u8]) -> Result {
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
pub(crate) fn ram_write(address: u64, data: &[u8]) -> Result {
    if data.is_empty() {
        return Ok(());
    }
    let dst = direct_map(address, data.len())?;
    // SAFETY: as in `ram_read`; the driver mapped the buffer for the device to write.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst.as_ptr(), data.len()) };
    Ok(())
}
