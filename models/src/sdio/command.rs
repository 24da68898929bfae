// SPDX-License-Identifier: GPL-2.0
//! The SDIO command words of the card model: the arguments of CMD5, CMD52 and CMD53 and the
//! R4 and R5 responses (SDIO Simplified Specification §5.1–§5.3), as `register!` words.
//!
//! The MSDC model carries every 48-bit response as the 32 bits between the command index and
//! the CRC (response bits 39:8), so these words are laid out at those positions:
//!
//! * R4 (CMD5) travels as [`Response::R3`](super::super::emmc::Response::R3): like R3 it has
//!   no CRC (all ones), which is what the host expects when it programs the R3 response type
//!   for an R4 (mtk-sd does). Bit 31 C (I/O ready), 30:28 number of I/O functions, 27 memory
//!   present, 24 S18A, 23:0 the I/O OCR.
//! * R5 (CMD52, CMD53) travels as [`Response::R1`](super::super::emmc::Response::R1): it has
//!   a CRC, and hosts receive it as R1. Bits 31:16 are stuff bits (0), 15:8 the response
//!   flags, 7:0 the read or write data.
//! * R6 (CMD3) travels as `Response::R1` with the [`R6`](super::super::sd::card::R6) layout
//!   of the SD model; an SDIO-only card leaves its status bits 12:0 at 0.

field_enum! {
    /// IO_CURRENT_STATE of the R5 flags: what the card is doing with the data lines.
    pub enum IoState: 2 bits, partial {
        /// DIS: not selected (initialisation, stand-by or inactive).
        Disabled = 0,
        /// CMD: selected, data lines free (a CMD52 is executing, no CMD53 runs).
        Command = 1,
        /// TRN: a CMD53 is moving data on DAT0 or DAT3..0.
        Transfer = 2,
    }
}

register! {
    /// The CMD5 IO_SEND_OP_COND argument and the R4 response's OCR word.
    pub IO_OCR(u32) {
        /// R4: the card finished its power-up (C).
        31:31 ready => bool;
        /// R4: the number of I/O functions (1..7).
        30:28 functions;
        /// R4: the card also has a memory part (a combo card).
        27:27 memory_present => bool;
        /// Argument: switching to 1.8 V requested (S18R); R4: accepted (S18A).
        24:24 s18 => bool;
        /// 2.7–3.6 V, in 0.1 V steps.
        23:15 vdd_27_36;
        /// The OCR bits: zero in the argument makes a CMD5 an inquiry.
        23:0 ocr;
    }

    /// The CMD52 IO_RW_DIRECT argument.
    pub IO_RW_DIRECT_ARG(u32) {
        /// Write (set) or read.
        31:31 write => bool;
        /// The function addressed (0: the common I/O area).
        30:28 function;
        /// Read after write: the response carries the register's value after the write.
        27:27 read_after_write => bool;
        /// The register address within the function's 17-bit space.
        25:9 address;
        /// The byte written.
        7:0 data;
    }

    /// The CMD53 IO_RW_EXTENDED argument.
    pub IO_RW_EXTENDED_ARG(u32) {
        /// Write (set) or read.
        31:31 write => bool;
        /// The function addressed (0: the common I/O area).
        30:28 function;
        /// Block mode (set: the count counts blocks of the function's block size).
        27:27 block_mode => bool;
        /// OP code: incrementing address (set) or fixed address.
        26:26 increment => bool;
        /// The first register address within the function's 17-bit space.
        25:9 address;
        /// Bytes (0 means 512) or blocks (0 means until an I/O abort).
        8:0 count;
    }

    /// The R5 word: response flags and data (response bits 39:8).
    pub R5(u32) {
        /// The CRC of the previous command failed.
        15:15 com_crc_error => bool;
        /// The previous command was not legal in the card state.
        14:14 illegal_command => bool;
        /// What the card does with the data lines.
        13:12 io_current_state ?=> IoState;
        /// A general error, or one found during the operation.
        11:11 error => bool;
        /// The function number does not exist on the card.
        9:9 function_number => bool;
        /// The argument is out of the range the card allows.
        8:8 out_of_range => bool;
        /// The byte read (or, for a write, written or read back).
        7:0 data;
    }
}

impl IO_OCR {
    /// The voltage window the card supports: 2.7–3.6 V (bits 23:15).
    pub const VOLTAGE_WINDOW: Self = Self::zeroed().with_const_vdd_27_36::<0x1FF>();
}

/// R5 flag bits, one [`R5`] field each (at the positions Linux's `R5_*` masks test).
pub mod r5 {
    use super::R5;

    /// The CRC of the previous command failed.
    pub const COM_CRC_ERROR: u32 = R5::zeroed().with_com_crc_error(true).raw();
    /// The previous command was not legal in the card state.
    pub const ILLEGAL_COMMAND: u32 = R5::zeroed().with_illegal_command(true).raw();
    /// A general error, or one found during the operation.
    pub const ERROR: u32 = R5::zeroed().with_error(true).raw();
    /// The function number does not exist on the card.
    pub const FUNCTION_NUMBER: u32 = R5::zeroed().with_function_number(true).raw();
    /// The argument is out of the range the card allows.
    pub const OUT_OF_RANGE: u32 = R5::zeroed().with_out_of_range(true).raw();
    /// Position of IO_CURRENT_STATE, for code that shifts by hand.
    pub const STATE_SHIFT: u32 = 12;
}
