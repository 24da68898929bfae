// SPDX-License-Identifier: GPL-2.0

//! A request handed to the host driver, owned until the driver completes it.

use core::ptr::NonNull;

use kernel::error::Error;

use super::bindings;

/// An `mmc_request` the MMC core passed to the host's `request` callback.
///
/// # Invariants
///
/// `host` and `request` are valid: the core keeps both alive until the request is
/// completed, which only [`Request::complete`] does, consuming `self`.
pub struct Request {
    host: NonNull<bindings::mmc_host>,
    request: NonNull<bindings::mmc_request>,
}

// SAFETY: a request may be completed from any context (the IRQ handler, a work item);
// `mmc_request_done` has no thread affinity.
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
        Self { host, request }
    }

    fn command(&self) -> Option<&bindings::mmc_command> {
        // SAFETY: by the type invariant `request` is valid; `cmd` is either null or
        // points to a command that lives as long as the request.
        unsafe { self.request.as_ref().cmd.as_ref() }
    }

    /// The command's opcode, or `None` for a request without a command.
    pub fn opcode(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.opcode)
    }

    /// The command's argument.
    pub fn argument(&self) -> Option<u32> {
        self.command().map(|cmd| cmd.arg)
    }

    /// Whether the request moves data.
    pub fn has_data(&self) -> bool {
        // SAFETY: by the type invariant `request` is valid.
        unsafe { !self.request.as_ref().data.is_null() }
    }

    /// Completes the request with `error` on its command (and data, if any).
    pub fn fail(self, error: Error) {
        let request = self.request.as_ptr();
        // SAFETY: by the type invariant the request and its command and data are valid,
        // and until `complete` runs nobody else writes their error fields.
        unsafe {
            if let Some(cmd) = (*request).cmd.as_mut() {
                cmd.error = error.to_errno();
            }
            if let Some(data) = (*request).data.as_mut() {
                data.error = error.to_errno();
            }
        }
        self.complete();
    }

    /// Hands the request back to the MMC core.
    pub fn complete(self) {
        // SAFETY: by the type invariant both pointers are valid, and consuming `self`
        // guarantees the request is completed once.
        unsafe { bindings::mmc_request_done(self.host.as_ptr(), self.request.as_ptr()) };
    }
}
