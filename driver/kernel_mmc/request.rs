// SPDX-License-Identifier: GPL-2.0

//! A request handed to the host driver, owned until the driver completes it: views of its
//! commands and data, the DMA mapping of its scatter list, and its completion.

use core::ptr::NonNull;

use kernel::{error::Error, prelude::*};

use super::bindings;

/// `MMC_DATA_WRITE` of `include/linux/mmc/core.h` (a `BIT()` expression bindgen skips).
const MMC_DATA_WRITE: u32 = 1 << 8;

/// One command of a request, as the host driver needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandInfo {
    /// Command index.
    pub opcode: u32,
    /// Argument.
    pub arg: u32,
    /// `MMC_RSP_*` and `MMC_CMD_*` flags.
    pub flags: u32,
    /// For R1b commands: how long the card may stay busy, in ms (0: unknown).
    pub busy_timeout_ms: u32,
}

impl CommandInfo {
    fn from_raw(cmd: &bindings::mmc_command) -> Self {
        Self {
            opcode: cmd.opcode,
            arg: cmd.arg,
            flags: cmd.flags,
            busy_timeout_ms: cmd.busy_timeout,
        }
    }
}

/// The data phase of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataInfo {
    /// Bytes per block.
    pub block_size: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Host to card.
    pub write: bool,
    /// Data timeout: nanoseconds part.
    pub timeout_ns: u32,
    /// Data timeout: bus clock cycles part.
    pub timeout_clks: u32,
}

/// How one command of a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandOutcome {
    /// Response words as the core expects them (`resp[0]` first).
    pub response: [u32; 4],
    /// The error, if the command failed.
    pub error: Option<Error>,
}

/// How the data phase of a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataOutcome {
    /// Bytes moved.
    pub bytes_xfered: u32,
    /// The error, if the transfer failed.
    pub error: Option<Error>,
}

/// How a whole request ended; `None` for phases the request did not have or never ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestOutcome {
    /// SET_BLOCK_COUNT (CMD23) before the command.
    pub sbc: Option<CommandOutcome>,
    /// The command.
    pub cmd: CommandOutcome,
    /// The data phase.
    pub data: Option<DataOutcome>,
    /// STOP_TRANSMISSION after the data.
    pub stop: Option<CommandOutcome>,
}

impl RequestOutcome {
    /// Every phase the request has failed with `error`.
    pub fn failed(error: Error) -> Self {
        let cmd = CommandOutcome {
            response: [0; 4],
            error: Some(error),
        };
        Self {
            sbc: Some(cmd),
            cmd,
            data: Some(DataOutcome {
                bytes_xfered: 0,
                error: Some(error),
            }),
            stop: None,
        }
    }
}

/// One DMA segment of a mapped scatter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaSegment {
    /// Bus address.
    pub address: u64,
    /// Length in bytes.
    pub len: u32,
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

    /// The command's opcode, or `None` for a request without a command.
    pub fn opcode(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.opcode)
    }

    /// The command's argument.
    pub fn argument(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.arg)
    }

    /// The command.
    pub fn cmd(&self) -> Option<CommandInfo> {
        self.command().map(CommandInfo::from_raw)
    }

    /// SET_BLOCK_COUNT to send before the command, if any.
    pub fn sbc(&self) -> Option<CommandInfo> {
        // SAFETY: `sbc` is null or lives as long as the request.
        unsafe { self.raw().sbc.as_ref() }.map(CommandInfo::from_raw)
    }

    /// STOP_TRANSMISSION to send after the data, if any.
    pub fn stop(&self) -> Option<CommandInfo> {
        // SAFETY: `stop` is null or lives as long as the request.
        unsafe { self.raw().stop.as_ref() }.map(CommandInfo::from_raw)
    }

    fn data_raw(&self) -> Option<&bindings::mmc_data> {
        // SAFETY: `data` is null or lives as long as the request.
        unsafe { self.raw().data.as_ref() }
    }

    /// Whether the request moves data (the queue engines' depth policy asks; issue #10).
    pub fn has_data(&self) -> bool {
        self.data_raw().is_some()
    }

    /// The data phase, if any.
    pub fn data(&self) -> Option<DataInfo> {
        self.data_raw().map(|data| DataInfo {
            block_size: data.blksz,
            blocks: data.blocks,
            write: data.flags & MMC_DATA_WRITE != 0,
            timeout_ns: data.timeout_ns,
            timeout_clks: data.timeout_clks,
        })
    }

    /// Maps the data's scatter list for the controller (the host's parent device) and
    /// returns its segments in order. The mapping lasts until the request completes.
    pub fn map_data(&mut self) -> Result<impl Iterator<Item = DmaSegment> + '_> {
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
                DmaSegment {
                    address: kernel::bindings::sg_dma_address(sg),
                    len: kernel::bindings::sg_dma_len(sg),
                }
            };
            Some(segment)
        }))
    }

    /// Completes a request the core queued (`cqe_request`): `bytes_xfered` and `error` go
    /// to its data phase, or to its command for a direct command.
    pub(super) fn complete_queued(mut self, bytes_xfered: u32, error: Option<Error>) {
        drop(self.mapping.take());
        let request = self.request.as_ptr();
        let errno = error.map_or(0, |e| e.to_errno());
        // SAFETY: by the type invariant the request and its members are valid, and until
        // `mmc_cqe_request_done` runs nobody else writes these fields.
        unsafe {
            if let Some(data) = (*request).data.as_mut() {
                data.bytes_xfered = bytes_xfered;
                data.error = errno;
            } else if let Some(cmd) = (*request).cmd.as_mut() {
                cmd.error = errno;
            }
            bindings::mmc_cqe_request_done(self.host.as_ptr(), request);
        }
    }

    /// Completes the request with `error` on its command (and data, if any).
    pub fn fail(self, error: Error) {
        self.complete(&RequestOutcome::failed(error));
    }

    /// Records `outcome` in the request and hands it back to the MMC core.
    pub fn complete(mut self, outcome: &RequestOutcome) {
        // Undo the DMA mapping before the core (and the block layer) see the buffers.
        drop(self.mapping.take());
        let request = self.request.as_ptr();
        let errno = |e: Option<Error>| e.map_or(0, |e| e.to_errno());
        // SAFETY: by the type invariant the request and its members are valid, and until
        // `mmc_request_done` runs nobody else writes these fields.
        unsafe {
            let set_cmd = |cmd: *mut bindings::mmc_command, o: &CommandOutcome| {
                if let Some(cmd) = cmd.as_mut() {
                    cmd.resp = o.response;
                    cmd.error = errno(o.error);
                }
            };
            set_cmd((*request).cmd, &outcome.cmd);
            if let Some(sbc) = &outcome.sbc {
                set_cmd((*request).sbc, sbc);
            }
            if let Some(stop) = &outcome.stop {
                set_cmd((*request).stop, stop);
            }
            if let Some(data) = (*request).data.as_mut() {
                match &outcome.data {
                    Some(o) => {
                        data.bytes_xfered = o.bytes_xfered;
                        data.error = errno(o.error);
                    }
                    None => {
                        // The data phase never ran: the command failed first.
                        data.bytes_xfered = 0;
                        data.error = errno(outcome.cmd.error.or(Some(EIO)));
                    }
                }
            }
            bindings::mmc_request_done(self.host.as_ptr(), request);
        }
    }
}
