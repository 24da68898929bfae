// SPDX-License-Identifier: GPL-2.0
//! The address map of the SDIO card model: the CCCR and FBR of function 0 (SDIO Simplified
//! Specification §6.9, §6.10), the CIS it publishes (§16) and function 1's RAM window and
//! control registers.
//!
//! Function 0's 17-bit space: the CCCR at 0x00..0xFF, the FBRs at 0x100 per function (only
//! function 1's is implemented; the others read 0), the CIS area 0x1000..0x17FFF (the model's
//! tuples start at [`COMMON_CIS`] and [`FUNC1_CIS`]; the rest reads 0). Writes to read-only
//! or reserved bytes are ignored.

/// The CCCR byte registers (offsets in function 0's space) and their bits.
pub mod cccr {
    /// CCCR and SDIO revisions: SDIO 3.00 (bits 7:4 = 4), CCCR 3.00 (bits 3:0 = 3).
    pub const REVISION: u32 = 0x00;
    /// SD physical specification revision (bits 3:0): 3 = 3.00.
    pub const SD_REVISION: u32 = 0x01;
    /// I/O enable: bit n enables function n.
    pub const IO_ENABLE: u32 = 0x02;
    /// I/O ready (read-only): bit n, function n is ready.
    pub const IO_READY: u32 = 0x03;
    /// Interrupt enable: bit 0 IENM (master), bit n IENn.
    pub const INT_ENABLE: u32 = 0x04;
    /// Interrupt pending (read-only): bit n, function n has an interrupt pending.
    pub const INT_PENDING: u32 = 0x05;
    /// I/O abort (write-only): bits 2:0 ASx abort function x's CMD53, bit 3 RES resets the
    /// I/O part.
    pub const IO_ABORT: u32 = 0x06;
    /// Bus interface control: bits 1:0 bus width, bit 5 ECSI, bit 7 CD disable.
    pub const BUS_INTERFACE: u32 = 0x07;
    /// Card capability (read-only but for E4MI).
    pub const CAPABILITY: u32 = 0x08;
    /// Common CIS pointer, three bytes, least significant first.
    pub const CIS_POINTER: u32 = 0x09;
    /// Bus suspend (0: suspend/resume is not supported).
    pub const BUS_SUSPEND: u32 = 0x0C;
    /// Function select (0: suspend/resume is not supported).
    pub const FUNCTION_SELECT: u32 = 0x0D;
    /// Exec flags (0: suspend/resume is not supported).
    pub const EXEC_FLAGS: u32 = 0x0E;
    /// Ready flags (0: suspend/resume is not supported).
    pub const READY_FLAGS: u32 = 0x0F;
    /// FN0 block size, two bytes, least significant first.
    pub const FN0_BLOCK_SIZE: u32 = 0x10;
    /// Power control: bit 0 SMPC (read-only), bit 1 EMPC.
    pub const POWER_CONTROL: u32 = 0x12;
    /// Bus speed select: bit 0 SHS (read-only), bits 3:1 BSS (0 default/SDR12, 1 high
    /// speed/SDR25).
    pub const BUS_SPEED: u32 = 0x13;
    /// UHS-I support (0: none).
    pub const UHS_SUPPORT: u32 = 0x14;
    /// Driver strength: bits 2:0 SDTx (0: type B only), bits 5:4 DTSx.
    pub const DRIVER_STRENGTH: u32 = 0x15;
    /// Interrupt extension: SAI (read-only) and EAI (SDIO 3.00 §6.9).
    pub const INTERRUPT_EXT: u32 = 0x16;
    /// INTERRUPT_EXT SAI: the card supports the asynchronous interrupt.
    pub const INT_EXT_SAI: u8 = 1 << 0;
    /// INTERRUPT_EXT EAI: the host enabled it.
    pub const INT_EXT_EAI: u8 = 1 << 1;

    /// IO_ABORT RES: reset the I/O part.
    pub const ABORT_RES: u8 = 1 << 3;
    /// IO_ABORT ASx: the function whose CMD53 to abort.
    pub const ABORT_ASX: u8 = 0x07;
    /// BUS_INTERFACE bus width field.
    pub const BUS_WIDTH_MASK: u8 = 0x03;
    /// BUS_INTERFACE bus width: 4 bits.
    pub const BUS_WIDTH_4BIT: u8 = 0x02;
    /// BUS_INTERFACE ECSI (continuous SPI interrupt; Linux's `SDIO_BUS_ASYNC_INT`).
    pub const BUS_ECSI: u8 = 1 << 5;
    /// BUS_INTERFACE CD disable: the card's DAT3 pull-up is disconnected.
    pub const BUS_CD_DISABLE: u8 = 1 << 7;
    /// CAPABILITY SMB: multi-block CMD53.
    pub const CAP_SMB: u8 = 1 << 1;
    /// CAPABILITY S4MI: interrupts between blocks of a 4-bit multi-block transfer.
    pub const CAP_S4MI: u8 = 1 << 4;
    /// CAPABILITY E4MI: enables S4MI (writable).
    pub const CAP_E4MI: u8 = 1 << 5;
    /// POWER_CONTROL SMPC: master power control is supported.
    pub const POWER_SMPC: u8 = 1 << 0;
    /// POWER_CONTROL EMPC: master power control enabled.
    pub const POWER_EMPC: u8 = 1 << 1;
    /// BUS_SPEED SHS: high speed is supported.
    pub const SPEED_SHS: u8 = 1 << 0;
    /// BUS_SPEED BSS field.
    pub const SPEED_BSS_MASK: u8 = 0x07 << 1;
    /// BUS_SPEED BSS = 001b: high speed (EHS, SDR25).
    pub const SPEED_EHS: u8 = 1 << 1;
    /// BUS_SPEED BSS: UHS-I SDR50 (100 MHz at 1.8 V).
    pub const SPEED_SDR50: u8 = 2 << 1;
    /// UHS_SUPPORT SSDR50: the card supports SDR50.
    pub const UHS_SDR50: u8 = 1 << 0;
    /// DRIVER_STRENGTH DTSx field.
    pub const DRIVE_DTS_MASK: u8 = 0x03 << 4;
    /// INT_ENABLE IENM.
    pub const INT_MASTER: u8 = 1 << 0;
}

/// Function 1's FBR (offsets in function 0's space) and its bits.
pub mod fbr1 {
    /// The FBR's base.
    pub const BASE: u32 = 0x100;
    /// Standard interface code (bits 3:0; 0: none), CSA support (bit 6) and enable (bit 7).
    pub const STD_INTERFACE: u32 = BASE;
    /// Extended standard interface code.
    pub const STD_INTERFACE_EXT: u32 = BASE + 0x01;
    /// Power selection (0: not supported).
    pub const POWER_SELECTION: u32 = BASE + 0x02;
    /// Function 1's CIS pointer, three bytes, least significant first.
    pub const CIS_POINTER: u32 = BASE + 0x09;
    /// CSA pointer, three bytes (0: no CSA).
    pub const CSA_POINTER: u32 = BASE + 0x0C;
    /// CSA data window (0: no CSA).
    pub const CSA_DATA: u32 = BASE + 0x0F;
    /// I/O block size, two bytes, least significant first.
    pub const BLOCK_SIZE: u32 = BASE + 0x10;
}

/// Where the common CIS starts in function 0's space.
pub const COMMON_CIS: u32 = 0x1000;
/// Where function 1's CIS starts in function 0's space.
pub const FUNC1_CIS: u32 = 0x1040;
/// The CIS area's end (exclusive).
pub const CIS_AREA_END: u32 = 0x1_8000;
/// Bytes of the model's CIS image, from [`COMMON_CIS`].
pub const CIS_LEN: usize = 0x100;

/// The largest block size the card takes for function 0 and function 1 (the CIS
/// TPLFE_FN0_BLK_SIZE and TPLFE_MAX_BLK_SIZE).
pub const MAX_BLOCK_SIZE: u16 = 512;

/// The CIS TPLFE_ENABLE_TIMEOUT_VAL of function 1, in 10 ms units (1 s).
pub const ENABLE_TIMEOUT_10MS: u16 = 100;

/// CIS tuple codes.
pub mod tuple {
    /// CISTPL_MANFID: manufacturer and card ID.
    pub const MANFID: u8 = 0x20;
    /// CISTPL_FUNCID: function class (0x0C for SDIO).
    pub const FUNCID: u8 = 0x21;
    /// CISTPL_FUNCE: function extension.
    pub const FUNCE: u8 = 0x22;
    /// CISTPL_END.
    pub const END: u8 = 0xFF;
    /// TPLFID_FUNCTION of an SDIO card.
    pub const FUNCID_SDIO: u8 = 0x0C;
    /// Bytes of function 1's CISTPL_FUNCE body (the SDIO 1.10 and later layout).
    pub const FUNCE_FUNC_LEN: u8 = 42;
}

/// The CIS TPLFE_MAX_TRAN_SPEED byte: 25 MHz (mantissa 2.5 at bits 6:3, unit 10 Mbit/s).
pub const MAX_TRAN_SPEED_25MHZ: u8 = 0x32;

/// Function 1's address map.
pub mod func1 {
    /// The RAM window: 0x0000..0xFFFF (as much of it as the caller's storage covers).
    pub const RAM_END: u32 = 0x1_0000;
    /// Write n ≠ 0: raises the function interrupt with cause bits n (ORed into
    /// [`INT_STATUS`]). Reads 0.
    pub const INT_TRIGGER: u32 = 0x1_0000;
    /// The pending interrupt causes; write 1s to clear them (the function driver's
    /// acknowledgement). The interrupt is pending while any bit is set.
    pub const INT_STATUS: u32 = 0x1_0001;
    /// A scratch byte (read/write, 0 after a reset).
    pub const SCRATCH: u32 = 0x1_0002;
    /// An identification byte (read-only): [`ID_VALUE`].
    pub const ID: u32 = 0x1_0003;
    /// A FIFO port (for fixed-address CMD53): writes append a byte, reads take the oldest
    /// (0 when empty). [`FIFO_DEPTH`] bytes; a write to a full FIFO is dropped.
    pub const FIFO: u32 = 0x1_0004;
    /// The FIFO's fill level in bytes (read-only).
    pub const FIFO_LEVEL: u32 = 0x1_0005;
    /// The end (exclusive) of the control registers: addresses from here up are out of
    /// range.
    pub const CONTROL_END: u32 = 0x1_0006;
    /// What [`ID`] reads.
    pub const ID_VALUE: u8 = 0x5D;
    /// The FIFO's depth in bytes.
    pub const FIFO_DEPTH: usize = 64;
}

/// Fills `image` (which starts at [`COMMON_CIS`]) with the model's tuples: the common CIS
/// (CISTPL_MANFID with `vendor` and `device`, CISTPL_FUNCID, the function 0 CISTPL_FUNCE
/// with the FN0 block size and 25 MHz, CISTPL_END) and function 1's (CISTPL_FUNCID, the
/// 42-byte function CISTPL_FUNCE, CISTPL_END).
pub fn build_cis(image: &mut [u8; CIS_LEN], vendor: u16, device: u16, ocr: u32) {
    *image = [0; CIS_LEN];
    let [vl, vh] = vendor.to_le_bytes();
    let [dl, dh] = device.to_le_bytes();
    let [bl, bh] = MAX_BLOCK_SIZE.to_le_bytes();
    let common = [
        tuple::MANFID,
        4,
        vl,
        vh,
        dl,
        dh,
        tuple::FUNCID,
        2,
        tuple::FUNCID_SDIO,
        0,
        tuple::FUNCE,
        4,
        // TPLFE_TYPE 0: function 0's extension.
        0x00,
        bl,
        bh,
        MAX_TRAN_SPEED_25MHZ,
        tuple::END,
    ];
    put(image, COMMON_CIS, &common);

    let mut funce = [0u8; tuple::FUNCE_FUNC_LEN as usize];
    // TPLFE_TYPE 1: a function's extension. FUNCTION_INFO 0 (no wake-up), STD_IO_REV 0,
    // CARD_PSN, CSA_SIZE and CSA_PROPERTY 0 (no CSA).
    funce[0] = 0x01;
    funce[12..14].copy_from_slice(&MAX_BLOCK_SIZE.to_le_bytes());
    funce[14..18].copy_from_slice(&ocr.to_le_bytes());
    // Operating power (min, average, max) and stand-by power, in mA.
    funce[18..24].copy_from_slice(&[10, 50, 100, 1, 2, 5]);
    // MIN_BW and OPT_BW 0 (no requirement).
    funce[28..30].copy_from_slice(&ENABLE_TIMEOUT_10MS.to_le_bytes());
    // SP, HP and LP power figures at 3.3 V stay 0 (not published).
    let head = [
        tuple::FUNCID,
        2,
        tuple::FUNCID_SDIO,
        0,
        tuple::FUNCE,
        tuple::FUNCE_FUNC_LEN,
    ];
    put(image, FUNC1_CIS, &head);
    let body = FUNC1_CIS + head.len() as u32;
    put(image, body, &funce);
    put(
        image,
        body + u32::from(tuple::FUNCE_FUNC_LEN),
        &[tuple::END],
    );
}

/// Copies `bytes` into the CIS image at function 0 address `at`.
fn put(image: &mut [u8; CIS_LEN], at: u32, bytes: &[u8]) {
    let start = at.saturating_sub(COMMON_CIS) as usize;
    if let Some(dst) = image.get_mut(start..start + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}
