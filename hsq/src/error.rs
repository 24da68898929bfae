// SPDX-License-Identifier: GPL-2.0

//! Why the queue refused an event.

/// An event the queue refused; its state is unchanged.
///
/// The errno column is what the `mmc_cqe_ops` adapter returns to the MMC core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HsqError {
    /// The queue is disabled or suspended (`-ESHUTDOWN`).
    Shutdown,
    /// Recovery is in progress; the block layer requeues and retries later (`-EBUSY`).
    Busy,
    /// The tag is not a slot index in `0..64` (`-EINVAL`).
    InvalidTag,
    /// A request with this tag is still queued or with the host (`-EINVAL`).
    TagInUse,
    /// The completed request is not the one the host owns. The host completes it the legacy
    /// way (`mmc_request_done`), as for any request that did not come from the queue.
    NotInFlight,
    /// A dispatch or completion token that does not describe the request the host currently
    /// owns, for example one reported twice.
    StaleToken,
    /// `enable` while already enabled (`-EBUSY`).
    AlreadyEnabled,
    /// `resume` while not suspended (`-EBUSY`).
    NotSuspended,
}
