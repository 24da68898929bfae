// SPDX-License-Identifier: GPL-2.0

//! DMA set-up of a host controller: its address mask and descriptor memory.

use kernel::{
    device::{Bound, Core, Device},
    dma::{Coherent, Device as _, DmaMask},
    platform,
    prelude::*,
};

/// Descriptor memory shared with the controller's DMA engine.
///
/// The CPU writes descriptors only where the controller does not read them now: the legacy
/// path writes its chain while its DMA engine is stopped, and the command queue engine
/// writes only the descriptors of a slot whose doorbell bit is clear (the controller reads a
/// slot's descriptors between its doorbell and its completion). [`DescriptorMemory::cpu_view`]
/// takes `&mut self`, and the driver keeps this value inside the state its request lock
/// protects, next to the engine state that says which descriptors are in use.
pub struct DescriptorMemory {
    memory: Coherent<[u8]>,
}

impl DescriptorMemory {
    /// Allocates `len` zeroed bytes of coherent memory for `dev`.
    pub fn new(dev: &Device<Bound>, len: usize) -> Result<Self> {
        Ok(Self {
            memory: Coherent::zeroed_slice(dev, len, GFP_KERNEL)?,
        })
    }

    /// The bus address of the first byte.
    pub fn bus_address(&self) -> u64 {
        self.memory.dma_address()
    }

    /// The memory as the CPU writes it, for a controller whose DMA engine is stopped.
    pub fn cpu_view(&mut self) -> &mut [u8] {
        // SAFETY: `&mut self` excludes any other CPU access. The device reads the parts in
        // use by a running transfer or a queued task, which the engines never write: the
        // legacy engine refuses to write a chain while a transfer runs, the CQHCI engine
        // writes only the descriptors of free slots.
        unsafe { self.memory.as_mut() }
    }
}

/// Sets how many address bits the controller's DMA engine drives, for streaming and
/// coherent mappings alike. Probe-time only: the `Core` context proves it.
pub fn set_dma_mask(pdev: &platform::Device<Core<'_>>, bits: u32) -> Result {
    let mask = DmaMask::try_new(bits)?;
    // SAFETY: during probe the driver has made no DMA allocation or mapping yet, and no
    // other thread of the driver runs for this device, so nothing races with the change.
    unsafe { pdev.dma_set_mask_and_coherent(mask) }
}
