// SPDX-License-Identifier: GPL-2.0

//! What the Linux 7.3 MMC core does with a host, written on top of the controller rig's glue:
//! `mmc_wait_for_cmd`, requests as `mmc_blk_rw_rq_prep` and `mmc_send_adtc_data` build them,
//! `mmc_poll_for_busy` with CMD13, `mmc_switch`, and `unstuff_bits` to decode what the card
//! answered. Every request goes through [`Host::run`]: `Controller::start`, the model, the
//! interrupt handler, the result.

use mmc_request::{ErrorKind, Request, RequestResult};
use models::msdc::CardSlot;

use crate::rig::{block_request, command, flags, set_block_count, stop_command, Host, Rig};

/// R1 `SWITCH_ERROR` (JESD84-B51 §6.13).
const SWITCH_ERROR: u32 = 1 << 7;
/// R1 `READY_FOR_DATA`.
const READY_FOR_DATA: u32 = 1 << 8;
/// R1 `CURRENT_STATE` of the transfer state.
const STATE_TRAN: u32 = 4;
/// CMD13 polls before `mmc_poll_for_busy` gives up (the core counts time; this counts polls).
const BUSY_POLLS: usize = 16;

/// Bytes of the controller rig's data window.
///
/// The window is smaller than mtk-sd's `max_req_size` (512 KiB), so a longer transfer wraps
/// round it ([`pages`]) and is read back a part at a time ([`Host::read_back`]). Once the
/// rig's RAM holds 512 KiB of data, both can go.
const WINDOW_LEN: u32 = 0x4_0000;
/// A scatterlist entry of the block layer's requests: 32 KiB.
const PAGE_LEN: u32 = 0x8000;
/// Bytes [`Host::read_back`] keeps from one run of a request; the rest of the window is
/// scratch for the pages it does not keep.
const KEPT_LEN: u32 = WINDOW_LEN / 2;

/// The phase of a request that failed first, as the core finds it in `mrq->sbc.error`,
/// `cmd.error`, `data.error` or `stop.error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Sbc,
    Cmd,
    Data,
    Stop,
}

/// A request that did not succeed: its first failed phase and that phase's error, and what
/// every phase returned.
#[derive(Debug)]
pub(crate) struct Failed {
    pub(crate) phase: Phase,
    pub(crate) error: ErrorKind,
    pub(crate) result: RequestResult,
}

fn first_failure(result: &RequestResult) -> Option<(Phase, ErrorKind)> {
    let failed = |error: Option<ErrorKind>, phase| error.map(|error| (phase, error));
    failed(result.sbc.and_then(|sbc| sbc.error), Phase::Sbc)
        .or(failed(result.cmd.error, Phase::Cmd))
        .or(failed(result.data.and_then(|data| data.error), Phase::Data))
        .or(failed(result.stop.and_then(|stop| stop.error), Phase::Stop))
}

/// The MMC core's side of a conversation with the card, over the controller rig's glue.
impl<C: CardSlot> Host<'_, C> {
    /// `mmc_wait_for_cmd`: one command without data; its response, or its error.
    pub(crate) fn wait_for_cmd(
        &mut self,
        opcode: u32,
        arg: u32,
        flags: u32,
    ) -> Result<[u32; 4], ErrorKind> {
        let result = self.command(opcode, arg, flags);
        match result.error {
            None => Ok(result.response),
            Some(error) => Err(error),
        }
    }

    /// A command the card must not answer (illegal in its state, or a probe for another card
    /// type): the controller reports a response timeout.
    pub(crate) fn no_response(&mut self, opcode: u32, arg: u32, flags: u32) {
        assert_eq!(
            self.wait_for_cmd(opcode, arg, flags),
            Err(ErrorKind::TimedOut),
            "CMD{opcode} must get no response"
        );
    }

    /// Runs `req` with its data in [`pages`] of the rig's data window; the whole result, or
    /// the first failed phase.
    pub(crate) fn mrq(&mut self, req: &Request) -> Result<RequestResult, Failed> {
        let result = self.run(req, &pages(data_len(req)));
        match first_failure(&result) {
            None => Ok(result),
            Some((phase, error)) => Err(Failed {
                phase,
                error,
                result,
            }),
        }
    }

    /// Runs the read `req` as often as it takes to see every byte it reads despite the
    /// window being smaller than the transfer, and returns the bytes in order.
    pub(crate) fn read_back(&mut self, req: &Request) -> Vec<u8> {
        let len = data_len(req);
        let mut bytes = Vec::new();
        for kept in (0..len).step_by(KEPT_LEN as usize) {
            // Zeroed first, so only what this run read can match.
            self.rig.fill(0, &[0; KEPT_LEN as usize]);
            let result = self.run(req, &pages_keeping(len, kept));
            assert_eq!(result.first_error(), None, "{result:?}");
            let kept_len = (len - kept).min(KEPT_LEN) as usize;
            bytes.extend(self.rig.data(0, kept_len));
        }
        bytes
    }

    /// Writes what `pattern` (of the byte's offset) puts in the data window with the block
    /// layer's write `req` and waits for the card as `mmc_blk_card_busy` does (CMD13 polls);
    /// records what the card got in `shadow` (its expected contents) and returns it.
    pub(crate) fn write_and_wait(
        &mut self,
        rca: u16,
        req: &Request,
        pattern: impl Fn(usize) -> u8,
        shadow: &mut [u8],
    ) -> Vec<u8> {
        let written = fill_pages(self.rig, data_len(req), pattern);
        self.mrq(req).unwrap();
        self.poll_busy(rca, false).unwrap();
        let at = req.cmd.arg as usize * 512;
        shadow[at..at + written.len()].copy_from_slice(&written);
        written
    }

    /// `mmc_poll_for_busy` with CMD13 (no `MMC_CAP_WAIT_WHILE_BUSY`): polls until the card is
    /// ready for data in the transfer state. Returns the accumulated status bits, or the
    /// first status with SWITCH_ERROR when `switch` (`MMC_BUSY_CMD6`), or `u32::MAX` for a
    /// failed CMD13.
    pub(crate) fn poll_busy(&mut self, rca: u16, switch: bool) -> Result<u32, u32> {
        let mut seen = 0;
        for _ in 0..BUSY_POLLS {
            let status = self
                .wait_for_cmd(13, u32::from(rca) << 16, flags::R1 | flags::AC)
                .map_err(|_| u32::MAX)?[0];
            seen |= status;
            if switch && status & SWITCH_ERROR != 0 {
                return Err(status);
            }
            if status & READY_FOR_DATA != 0 && (status >> 9) & 0xF == STATE_TRAN {
                return Ok(seen);
            }
        }
        Err(seen)
    }

    /// `mmc_switch(card, EXT_CSD_CMD_SET_NORMAL, index, value, ...)` without
    /// `MMC_CAP_WAIT_WHILE_BUSY`: CMD6 (R1b), CMD13 polling, then the switch status. `Err`
    /// carries the status with SWITCH_ERROR (the core's -EBADMSG) or `u32::MAX` for a failed
    /// command.
    pub(crate) fn mmc_switch(&mut self, rca: u16, index: u8, value: u8) -> Result<(), u32> {
        let arg = (3 << 24) | (u32::from(index) << 16) | (u32::from(value) << 8) | 1;
        self.wait_for_cmd(6, arg, flags::R1B | flags::AC)
            .map_err(|_| u32::MAX)?;
        self.poll_busy(rca, true)?;
        let status = self
            .wait_for_cmd(13, u32::from(rca) << 16, flags::R1 | flags::AC)
            .map_err(|_| u32::MAX)?[0];
        if status & SWITCH_ERROR != 0 {
            return Err(status);
        }
        Ok(())
    }
}

/// Bytes of `req`'s data phase.
fn data_len(req: &Request) -> u32 {
    req.data.map_or(0, |data| data.block_size * data.blocks)
}

/// The segments of a `len`-byte transfer: [`PAGE_LEN`] pages from the start of the data
/// window, wrapping round it when the transfer is longer (a write then sends the window's
/// contents again, and a read overwrites its first pages).
fn pages(len: u32) -> Vec<(u64, u32)> {
    (0..len)
        .step_by(PAGE_LEN as usize)
        .map(|at| (u64::from(at % WINDOW_LEN), (len - at).min(PAGE_LEN)))
        .collect()
}

/// Fills the data window with `pattern` (of the byte's offset) and returns the `len` bytes a
/// write through [`pages`]`(len)` then sends.
fn fill_pages<C: CardSlot>(rig: &Rig<C>, len: u32, pattern: impl Fn(usize) -> u8) -> Vec<u8> {
    let window: Vec<u8> = (0..len.min(WINDOW_LEN) as usize).map(pattern).collect();
    rig.fill(0, &window);
    window.iter().copied().cycle().take(len as usize).collect()
}

/// The segments of a `len`-byte read that lands bytes `kept..kept + KEPT_LEN` at the start of
/// the window and every other page in the scratch half after them.
fn pages_keeping(len: u32, kept: u32) -> Vec<(u64, u32)> {
    let scratch_pages = (WINDOW_LEN - KEPT_LEN) / PAGE_LEN;
    (0..len)
        .step_by(PAGE_LEN as usize)
        .map(|at| {
            let page_len = (len - at).min(PAGE_LEN);
            let offset = if (kept..kept + KEPT_LEN).contains(&at) {
                at - kept
            } else {
                KEPT_LEN + (at / PAGE_LEN) % scratch_pages * PAGE_LEN
            };
            (u64::from(offset), page_len)
        })
        .collect()
}

/// A block layer read or write of `blocks` sectors at `sector` as `mmc_blk_rw_rq_prep` builds
/// it on a host with `MMC_CAP_CMD23`: CMD17/CMD24 for one block, otherwise CMD18/CMD25 with
/// `sbc` and `stop` (R1 after a read, R1b after a write). A `reliable` write (REQ_FUA on a
/// card with EN_REL_WR) is always CMD23 with bit 31 and CMD25, even for one block.
pub(crate) fn rw(write: bool, sector: u32, blocks: u32, reliable: bool) -> Request {
    let mut req = block_request(write, sector, blocks, true);
    if reliable {
        req.sbc = Some(set_block_count((1 << 31) | blocks));
        req.cmd.opcode = 25;
        req.stop = Some(stop_command());
    }
    if !write {
        req.stop = req.stop.map(|_| command(12, 0, flags::R1 | flags::AC));
    }
    req
}

/// An open-ended multiple block transfer of at least two blocks (no CMD23), ended by `stop`.
pub(crate) fn open_ended(write: bool, sector: u32, blocks: u32) -> Request {
    Request {
        sbc: None,
        ..rw(write, sector, blocks.max(2), false)
    }
}

/// `unstuff_bits` of the Linux MMC core: `size` bits from bit `start` of a 128-bit register
/// given most significant word first.
pub(crate) fn unstuff_bits(resp: &[u32; 4], start: u32, size: u32) -> u32 {
    let mask = if size < 32 {
        (1u32 << size) - 1
    } else {
        u32::MAX
    };
    let off = 3 - (start / 32) as usize;
    let shft = start % 32;
    let mut res = resp[off] >> shft;
    if size + shft > 32 {
        res |= resp[off - 1] << ((32 - shft) % 32);
    }
    res & mask
}
