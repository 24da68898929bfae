// SPDX-License-Identifier: GPL-2.0
//! Simulated system memory as the modelled DMA engines see it: byte access keyed by bus address.

/// A DMA access hit an address nothing is mapped at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusFault {
    /// The first address of the failed access.
    pub address: u64,
}

/// Memory reachable by bus address. The test harness decides what lives where.
pub trait BusMemory {
    /// Fills `buf` from bus address `address`.
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), BusFault>;
    /// Stores `data` at bus address `address`.
    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), BusFault>;

    /// Reads a little-endian 32-bit word.
    fn read_u32(&mut self, address: u64) -> Result<u32, BusFault> {
        let mut bytes = [0u8; 4];
        self.read(address, &mut bytes)?;
        Ok(u32::from_le_bytes(bytes))
    }

    /// Reads a little-endian 64-bit word.
    fn read_u64(&mut self, address: u64) -> Result<u64, BusFault> {
        let mut bytes = [0u8; 8];
        self.read(address, &mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }
}

/// A byte slice mapped at a bus address.
#[derive(Debug)]
pub struct Ram<'a> {
    base: u64,
    bytes: &'a mut [u8],
}

impl<'a> Ram<'a> {
    /// Maps `bytes` at bus address `base`.
    pub fn new(base: u64, bytes: &'a mut [u8]) -> Self {
        Self { base, bytes }
    }

    /// The bus address of the first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The byte range of `len` bytes at `address`, if it lies entirely inside this region.
    fn range(&self, address: u64, len: usize) -> Option<core::ops::Range<usize>> {
        let start = usize::try_from(address.checked_sub(self.base)?).ok()?;
        let end = start.checked_add(len)?;
        if end <= self.bytes.len() {
            Some(start..end)
        } else {
            None
        }
    }

    /// Whether `len` bytes at `address` lie entirely inside this region.
    pub fn contains(&self, address: u64, len: usize) -> bool {
        self.range(address, len).is_some()
    }
}

impl BusMemory for Ram<'_> {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), BusFault> {
        let range = self.range(address, buf.len()).ok_or(BusFault { address })?;
        let src = self.bytes.get(range).ok_or(BusFault { address })?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), BusFault> {
        let range = self
            .range(address, data.len())
            .ok_or(BusFault { address })?;
        let dst = self.bytes.get_mut(range).ok_or(BusFault { address })?;
        dst.copy_from_slice(data);
        Ok(())
    }
}
