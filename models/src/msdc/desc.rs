// SPDX-License-Identifier: GPL-2.0
//! The GPD and BD descriptors as the modelled DMA engine reads them from memory: their
//! word layout (`struct mt_gpdma_desc` and `struct mt_bdma_desc` of mtk-sd.c), the fields
//! of their words and the checksum that seals them.
//!
//! Like the registers, these are the model's own definitions, independent of the driver's
//! descriptor builder.

register! {
    /// GPD word 0: ownership, BD chain flag, checksum and the high address bits.
    pub GPD_INFO(u32) {
        /// The hardware owns the descriptor; the engine clears it when done.
        0:0 hwo => bool;
        /// The GPD points at a BD chain.
        1:1 bdp => bool;
        /// Checksum: the bytes the checksum covers add up to [`CHECKSUM_SEAL`].
        15:8 checksum;
        /// Interrupt when the GPD completes.
        16:16 int => bool;
        /// Bits 35:32 of the next GPD's address.
        27:24 next_h4;
        /// Bits 35:32 of the BD chain's (or buffer's) address.
        31:28 ptr_h4;
    }

    /// GPD word 3: the buffer length of basic DMA (unused with a BD chain).
    pub GPD_DATA_LEN(u32) {
        /// Buffer length, bits 15:0.
        15:0 buflen;
        /// Buffer length, bits 23:16.
        23:16 extlen;
    }

    /// BD word 0: end of the chain, checksum and the high address bits.
    pub BD_INFO(u32) {
        /// The last BD of the chain.
        0:0 eol => bool;
        /// Checksum: the bytes the checksum covers add up to [`CHECKSUM_SEAL`].
        15:8 checksum;
        /// Block padding.
        17:17 blkpad => bool;
        /// Word padding.
        18:18 dwpad => bool;
        /// Bits 35:32 of the next BD's address.
        27:24 next_h4;
        /// Bits 35:32 of the buffer's address.
        31:28 ptr_h4;
    }

    /// BD word 3: the buffer length.
    pub BD_DATA_LEN(u32) {
        /// Buffer length without 36-bit DMA support.
        15:0 buflen;
        /// Buffer length with 36-bit DMA support (`PATCH_BIT2.SUPPORT_64G`).
        23:0 buflen_ext;
    }
}

/// Bytes at the start of a descriptor the checksum covers (GPD and BD alike).
pub const CHECKSUM_SPAN: usize = 16;

/// What the bytes the checksum covers add up to in a sealed descriptor (modulo 256).
pub const CHECKSUM_SEAL: u8 = 0xFF;

/// Whether the checksum of the descriptor at the start of `bytes` seals it.
pub fn checksum_sealed(bytes: &[u8]) -> bool {
    let sum = bytes
        .iter()
        .take(CHECKSUM_SPAN)
        .fold(0u8, |sum, &b| sum.wrapping_add(b));
    sum == CHECKSUM_SEAL
}

/// A general purpose descriptor: the head of a transfer, pointing at its BD chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gpd {
    /// Flags, checksum and high address bits.
    pub info: GPD_INFO,
    /// Address bits 31:0 of the next GPD.
    pub next: u32,
    /// Address bits 31:0 of the BD chain (or of the buffer, without one).
    pub ptr: u32,
    /// Buffer length (basic DMA).
    pub data_len: GPD_DATA_LEN,
    /// Command argument (not used by the engine).
    pub arg: u32,
    /// Number of blocks (not used by the engine).
    pub blknum: u32,
    /// Command (not used by the engine).
    pub cmd: u32,
}

impl Gpd {
    /// Size in memory: seven little-endian 32-bit words.
    pub const SIZE: usize = 28;

    /// The GPD stored in `bytes`.
    pub fn decode(bytes: &[u8; Self::SIZE]) -> Self {
        let [info, next, ptr, data_len, arg, blknum, cmd] = words(bytes);
        Self {
            info: GPD_INFO::from_raw(info),
            next,
            ptr,
            data_len: GPD_DATA_LEN::from_raw(data_len),
            arg,
            blknum,
            cmd,
        }
    }
}

/// A buffer descriptor: one buffer of a transfer and the link to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bd {
    /// Flags, checksum and high address bits.
    pub info: BD_INFO,
    /// Address bits 31:0 of the next BD.
    pub next: u32,
    /// Address bits 31:0 of the buffer.
    pub ptr: u32,
    /// Buffer length.
    pub data_len: BD_DATA_LEN,
}

impl Bd {
    /// Size in memory: four little-endian 32-bit words.
    pub const SIZE: usize = 16;

    /// The BD stored in `bytes`.
    pub fn decode(bytes: &[u8; Self::SIZE]) -> Self {
        let [info, next, ptr, data_len] = words(bytes);
        Self {
            info: BD_INFO::from_raw(info),
            next,
            ptr,
            data_len: BD_DATA_LEN::from_raw(data_len),
        }
    }
}

/// The little-endian 32-bit words `bytes` holds (zero past its end).
fn words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    let mut words = [0u32; N];
    for (word, chunk) in words
        .iter_mut()
        .zip(bytes.chunks_exact(core::mem::size_of::<u32>()))
    {
        if let Ok(le) = chunk.try_into() {
            *word = u32::from_le_bytes(le);
        }
    }
    words
}
