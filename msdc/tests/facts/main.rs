// SPDX-License-Identifier: GPL-2.0

//! Host tests of the `msdc` crate against facts taken from the MSDC register documentation
//! and the upstream C driver. Expected values are written out from the bit definitions,
//! never produced by the code under test.

mod arith;
mod clock;
mod command;
mod cqe;
mod dma;
mod errors;
mod regs;
mod soc;
mod timeout;
mod tuning;
