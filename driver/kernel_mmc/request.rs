// SPDX-License-Identifier: GPL-2.0

//! A request handed to the host driver, owned until the driver completes it: views of its
//! commands and data, the DMA mapping of its scatter list, and its completion.

use core::ptr::NonNull;

use kernel::{error::Error, prelude::*};

use super::bindings;
use crate::mmc_request::{
    flags::MMC_DATA_WRITE, Command, Data, Direction, ErrorKind, RequestResult, Segment,
};

/// The command as the engines take it.
fn command_of(cmd: &bindings::mmc_command) -> Command {
    Command {
        opcode: cmd.opcode,
        arg: cmd.arg,
        flags: cmd.flags,
        busy_timeout_ms: cmd.busy_timeout,
    }
}

/// The errno the MMC core expects for an engine's error, 0 for none: the one place the
/// engines' [`ErrorKind`] meets the core's error codes.
fn errno(error: Option<ErrorKind>) -> c_int {
    error.map_or(0, |kind| {
        match kind {
            ErrorKind::TimedOut => ETIMEDOUT,
            ErrorKind::BadCrc => EILSEQ,
            ErrorKind::DmaFault => EIO,
        }
        .to_errno()
    })
}

/// How a request ends: with the result an engine reported, or failed as a whole.
#[derive(Clone, Copy)]
enum Ending<'a> {
    /// The engine ran the request (or part of it).
    Ran(&'a RequestResult),
    /// The request could not run: this errno for the command, set-block-count and data.
    Failed(c_int),
}

impl Ending<'_> {
    /// Response and errno of the command.
    fn cmd(self) -> ([u32; 4], c_int) {
        match self {
            Self::Ran(result) => (result.cmd.response, errno(result.cmd.error)),
            Self::Failed(error) => ([0; 4], error),
        }
    }

    /// Response and errno of the set-block-count command, if it is to be written.
    fn sbc(self) -> Option<([u32; 4], c_int)> {
        match self {
            Self::Ran(result) => result.sbc.map(|sbc| (sbc.response, errno(sbc.error))),
            Self::Failed(error) => Some(([0; 4], error)),
        }
    }

    /// Response and errno of the stop command, if it ran.
    fn stop(self) -> Option<([u32; 4], c_int)> {
        match self {
            Self::Ran(result) => result.stop.map(|stop| (stop.response, errno(stop.error))),
            Self::Failed(_) => None,
        }
    }

    /// Bytes moved and errno of the data phase.
    fn data(self) -> (u32, c_int) {
        match self {
            Self::Ran(result) => match result.data {
                Some(data) => (data.bytes_xfered, errno(data.error)),
                // The data phase never ran: the command failed first.
                None => (
                    0,
                    result.cmd.error.map_or(EIO.to_errno(), |e| errno(Some(e))),
                ),
            },
            Self::Failed(error) => (0, error),
        }
    }
}

/// A scatter list mapped for the controller's DMA.
///
/// # Invariants
///
/// `sg` (with `nents` entries) was mapped with `dma_map_sg_attrs(dev, sg, nents, dir)`,
/// which returned `mapped` > 0 segments, and is unmapped exactly once, on drop.
struct DmaMapping {
    dev: *mut kernel::bindings::device,
    sg: *mut kernel::bindings::scatterlist,
    nents: i32,
    mapped: u32,
    dir: kernel::bindings::dma_data_direction,
}

impl Drop for DmaMapping {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the list was mapped with these arguments.
        unsafe { kernel::bindings::dma_unmap_sg_attrs(self.dev, self.sg, self.nents, self.dir, 0) };
    }
}

/// An `mmc_request` the MMC core passed to the host's `request` callback.
///
/// # Invariants
///
/// `host` and `request` are valid: the core keeps both alive until the request is
/// completed, which only [`Request::complete`] does, consuming `self`.
pub struct Request {
    host: NonNull<bindings::mmc_host>,
    request: NonNull<bindings::mmc_request>,
    mapping: Option<DmaMapping>,
}

// SAFETY: a request may be completed from any context (the IRQ handler, a work item);
// `mmc_request_done` and the DMA unmapping have no thread affinity.
unsafe impl Send for Request {}

impl Request {
    /// Wraps a request passed to the host's `request` callback.
    ///
    /// # Safety
    ///
    /// `host` and `request` must be the arguments of a `request` callback, and the
    /// returned value must be the only handle through which the request is completed.
    pub(super) unsafe fn from_raw(
        host: NonNull<bindings::mmc_host>,
        request: NonNull<bindings::mmc_request>,
    ) -> Self {
        // INVARIANT: the caller guarantees both pointers stay valid until completion.
        Self {
            host,
            request,
            mapping: None,
        }
    }

    fn raw(&self) -> &bindings::mmc_request {
        // SAFETY: by the type invariant `request` is valid until completion.
        unsafe { self.request.as_ref() }
    }

    fn command(&self) -> Option<&bindings::mmc_command> {
        // SAFETY: `cmd` is either null or points to a command that lives as long as the
        // request.
        unsafe { self.raw().cmd.as_ref() }
    }

    /// The request as the engines take it: its commands and data phase. `None` for a
    /// request without a command.
    pub fn spec(&self) -> Option<crate::mmc_request::Request> {
        Some(crate::mmc_request::Request {
            sbc: self.sbc(),
            cmd: self.command().map(command_of)?,
            data: self.data(),
            stop: self.stop(),
        })
    }

    /// SET_BLOCK_COUNT to send before the command, if any.
    fn sbc(&self) -> Option<Command> {
        // SAFETY: `sbc` is null or lives as long as the request.
        unsafe { self.raw().sbc.as_ref() }.map(command_of)
    }

    /// STOP_TRANSMISSION to send after the data, if any.
    fn stop(&self) -> Option<Command> {
        // SAFETY: `stop` is null or lives as long as the request.
        unsafe { self.raw().stop.as_ref() }.map(command_of)
    }

    fn data_raw(&self) -> Option<&bindings::mmc_data> {
        // SAFETY: `data` is null or lives as long as the request.
        unsafe { self.raw().data.as_ref() }
    }

    /// The data phase, if any.
    pub fn data(&self) -> Option<Data> {
        self.data_raw().map(|data| Data {
            block_size: data.blksz,
            blocks: data.blocks,
            direction: if data.flags & MMC_DATA_WRITE != 0 {
                Direction::Write
            } else {
                Direction::Read
            },
            timeout_ns: data.timeout_ns,
            timeout_clks: data.timeout_clks,
        })
    }

    /// Maps the data's scatter list for the controller (the host's parent device) and
    /// returns its segments in order. The mapping lasts until the request completes.
    pub fn map_data(&mut self) -> Result<impl Iterator<Item = Segment> + '_> {
        if self.mapping.is_none() {
            let data = self.data_raw().ok_or(EINVAL)?;
            let dir = if data.flags & MMC_DATA_WRITE != 0 {
                kernel::bindings::dma_data_direction::DMA_TO_DEVICE
            } else {
                kernel::bindings::dma_data_direction::DMA_FROM_DEVICE
            };
            let sg = data.sg.cast::<kernel::bindings::scatterlist>();
            let nents = i32::try_from(data.sg_len)?;
            // SAFETY: by the type invariant the host is alive; `parent` is its device.
            let dev = unsafe {
                (*self.host.as_ptr())
                    .parent
                    .cast::<kernel::bindings::device>()
            };
            if sg.is_null() || nents == 0 {
                return Err(EINVAL);
            }
            // SAFETY: `sg` holds `nents` entries owned by the request, which stays alive
            // until completion, when the mapping is undone.
            let mapped = unsafe { kernel::bindings::dma_map_sg_attrs(dev, sg, nents, dir, 0) };
            if mapped == 0 {
                return Err(ENOMEM);
            }
            // INVARIANT: mapped with exactly these arguments, `mapped` > 0.
            self.mapping = Some(DmaMapping {
                dev,
                sg,
                nents,
                mapped,
                dir,
            });
        }
        let (mut next, count) = match &self.mapping {
            Some(mapping) => (mapping.sg, mapping.mapped),
            None => (core::ptr::null_mut(), 0),
        };
        Ok((0..count).map_while(move |_| {
            if next.is_null() {
                return None;
            }
            let sg = next;
            // SAFETY: `sg` is one of the first `count` entries of the mapped list, which
            // `sg_next` walks (following chain entries) as the DMA API laid them out.
            let segment = unsafe {
                next = kernel::bindings::sg_next(sg);
                Segment {
                    bus_address: kernel::bindings::sg_dma_address(sg),
                    len: kernel::bindings::sg_dma_len(sg),
                }
            };
            Some(segment)
        }))
    }

    /// Completes a request the core queued (`cqe_request`): `bytes_xfered` and `error` go
    /// to its data phase, or to its command for a direct command.
    pub(super) fn complete_queued(mut self, bytes_xfered: u32, error: Option<ErrorKind>) {
        drop(self.mapping.take());
        let request = self.request.as_ptr();
        let code = errno(error);
        // SAFETY: by the type invariant the request and its members are valid, and until
        // `mmc_cqe_request_done` runs nobody else writes these fields.
        unsafe {
            if let Some(data) = (*request).data.as_mut() {
                data.bytes_xfered = bytes_xfered;
                data.error = code;
            } else if let Some(cmd) = (*request).cmd.as_mut() {
                cmd.error = code;
            }
            bindings::mmc_cqe_request_done(self.host.as_ptr(), request);
        }
    }

    /// Completes the request with `error` on its command (and set-block-count and data, if
    /// any): for a request that could not run.
    pub fn fail(self, error: Error) {
        self.finish(Ending::Failed(error.to_errno()));
    }

    /// Records `result` in the request and hands it back to the MMC core.
    pub fn complete(self, result: &RequestResult) {
        self.finish(Ending::Ran(result));
    }

    /// Writes `ending` into the request and hands it back to the MMC core.
    fn finish(mut self, ending: Ending<'_>) {
        // Undo the DMA mapping before the core (and the block layer) see the buffers.
        drop(self.mapping.take());
        let request = self.request.as_ptr();
        // SAFETY: by the type invariant the request and its members are valid, and until
        // `mmc_request_done` runs nobody else writes these fields.
        unsafe {
            let set_cmd = |cmd: *mut bindings::mmc_command, answer: ([u32; 4], c_int)| {
                if let Some(cmd) = cmd.as_mut() {
                    (cmd.resp, cmd.error) = answer;
                }
            };
            set_cmd((*request).cmd, ending.cmd());
            if let Some(sbc) = ending.sbc() {
                set_cmd((*request).sbc, sbc);
            }
            if let Some(stop) = ending.stop() {
                set_cmd((*request).stop, stop);
            }
            if let Some(data) = (*request).data.as_mut() {
                (data.bytes_xfered, data.error) = ending.data();
            }
            bindings::mmc_request_done(self.host.as_ptr(), request);
        }
    }
}
