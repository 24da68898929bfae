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
/// The CPU writes descriptors while the engine is stopped and the controller reads them
/// (and writes status words back) only between the start of a transfer and its completion
/// interrupt. [`DescriptorMemory::cpu_view`] takes `&mut self`, and the driver keeps this
/// value inside the state its request lock protects, next to the controller state that
/// says whether a transfer is running.
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
        // SAFETY: `&mut self` excludes any other CPU access. The device accesses the area
        // only while a transfer runs, and the driver calls this only with its DMA engine
        // stopped (the request engine refuses to start a transfer while one is running).
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
