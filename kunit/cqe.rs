// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the `mmc_cqe_ops` and `mmc_host_ops::request` bridges against the real MMC
//! core, without a card: whatever a host's queue does with a request (refuse, keep, drop,
//! fail, complete), the request reaches `mmc_cqe_request_done` (or `mmc_request_done`)
//! exactly once, or not at all when it went back to the caller, and no path dereferences a
//! command the request does not have.

#[kernel::prelude::kunit_tests(mtk_sd_rust_cqe)]
mod tests {
    use crate::kernel_mmc::{
        selftest::{self, FakeRequest, DATA_BYTES},
        wait_for_dropped_requests, CqeOps, Host, HostAllocation, HostOps, Ios, QueueCard,
        QueuedRequest, Refused, Registration, Request, RequestId,
    };
    use crate::mmc_request::ErrorKind;
    use kernel::{
        device::{Bound, Device},
        error::{
            code::{EBUSY, EILSEQ, EINVAL, EIO, ETIMEDOUT},
            Error, Result,
        },
        faux,
        prelude::{c_int, pin_data, try_pin_init, vtable, CStr, PinInit},
        sync::{new_mutex, Mutex},
    };

    /// What the slot's queue does with the next request the core queues.
    #[derive(Clone, Copy)]
    enum Behaviour {
        /// Gives it back with this error.
        Refuse(Error),
        /// Keeps it (one at a time) for the test to take with [`TestSlot::take_kept`].
        Keep,
        /// Drops it uncompleted.
        Discard,
        /// Fails it with this error.
        Fail(Error),
        /// Completes it at once, as a command queue engine completes a task.
        Complete {
            bytes_xfered: u32,
            error: Option<ErrorKind>,
            response: u32,
        },
    }

    /// What reached the slot, for the assertions.
    #[derive(Clone, Copy, Default)]
    struct Seen {
        /// `cqe_request` calls.
        cqe_requests: u32,
        /// `request` calls.
        requests: u32,
        /// The last request queued.
        queued: Option<RequestId>,
        /// Its first block, for a data task.
        block_address: Option<u32>,
        /// Its command's opcode, for a request with a command.
        opcode: Option<u32>,
        /// The last request `cqe_timeout` asked about.
        timed_out: Option<RequestId>,
    }

    struct SlotState {
        behaviour: Behaviour,
        timeout_answer: Option<bool>,
        kept: Option<QueuedRequest>,
        seen: Seen,
    }

    /// A slot without a card (the core never calls its queue operations itself), whose queue
    /// behaves as the test chooses.
    #[pin_data]
    struct TestSlot {
        #[pin]
        state: Mutex<SlotState>,
    }

    impl TestSlot {
        fn new(behaviour: Behaviour) -> impl PinInit<Self, Error> {
            try_pin_init!(Self {
                state <- new_mutex!(SlotState {
                    behaviour,
                    timeout_answer: None,
                    kept: None,
                    seen: Seen::default(),
                }),
            }? Error)
        }

        fn behave(&self, behaviour: Behaviour) {
            self.state.lock().behaviour = behaviour;
        }

        fn answer_timeouts_with(&self, answer: Option<bool>) {
            self.state.lock().timeout_answer = answer;
        }

        fn take_kept(&self) -> Option<QueuedRequest> {
            self.state.lock().kept.take()
        }

        fn seen(&self) -> Seen {
            self.state.lock().seen
        }
    }

    #[vtable]
    impl HostOps for TestSlot {
        fn request(&self, _host: &Host, request: Request) {
            self.state.lock().seen.requests += 1;
            request.fail(EIO);
        }

        fn set_ios(&self, _host: &Host, _ios: &Ios) {}

        fn get_cd(&self, _host: &Host) -> bool {
            false
        }
    }

    #[vtable]
    impl CqeOps for TestSlot {
        fn cqe_enable(&self, _host: &Host, _card: QueueCard) -> Result {
            Err(EINVAL)
        }

        fn cqe_disable(&self, _host: &Host) {}

        fn cqe_request(&self, _host: &Host, request: QueuedRequest) -> Result<(), Refused> {
            let behaviour = {
                let mut state = self.state.lock();
                let seen = &mut state.seen;
                seen.cqe_requests += 1;
                seen.queued = Some(request.id());
                seen.block_address = request
                    .block_address_and_flags()
                    .map(|(address, _)| address);
                seen.opcode = request.request().cmd().map(|cmd| cmd.opcode);
                state.behaviour
            };
            // Completions run without the lock, as an engine's interrupt handler runs them.
            match behaviour {
                Behaviour::Refuse(error) => Err(Refused { request, error }),
                Behaviour::Keep => {
                    let mut state = self.state.lock();
                    if state.kept.is_some() {
                        return Err(Refused {
                            request,
                            error: EBUSY,
                        });
                    }
                    state.kept = Some(request);
                    Ok(())
                }
                Behaviour::Discard => {
                    drop(request);
                    Ok(())
                }
                Behaviour::Fail(error) => {
                    request.fail(error);
                    Ok(())
                }
                Behaviour::Complete {
                    bytes_xfered,
                    error,
                    response,
                } => {
                    request.complete_task(bytes_xfered, error, response);
                    Ok(())
                }
            }
        }

        fn cqe_off(&self, _host: &Host) {}

        fn cqe_wait_for_idle(&self, _host: &Host) -> Result {
            Ok(())
        }

        fn cqe_timeout(&self, _host: &Host, request: RequestId) -> Option<bool> {
            let mut state = self.state.lock();
            state.seen.timed_out = Some(request);
            state.timeout_answer
        }

        fn cqe_recovery_start(&self, _host: &Host) {}

        fn cqe_recovery_finish(&self, _host: &Host) {}
    }

    /// Runs `test` with a host registered with queue operations for a [`TestSlot`] that starts
    /// with `behaviour`, on a faux device named `name`.
    fn with_slot(
        name: &'static CStr,
        behaviour: Behaviour,
        test: impl FnOnce(&Registration<TestSlot>) -> Result,
    ) -> Result {
        let faux_registration = faux::Registration::new(name, None)?;
        let faux_device: &faux::Device<Bound> = faux_registration.as_ref();
        let parent: &Device<Bound> = faux_device.as_ref();
        let host = Registration::add_with_queue(
            HostAllocation::for_registration(parent)?,
            &selftest::CARDLESS_SETTINGS,
            TestSlot::new(behaviour),
        )?;
        let result = test(&host);
        // A request the slot still holds completes now, while its host exists (the fake it
        // points at is leaked rather than freed while the driver holds it).
        drop(host.data().take_kept());
        result
    }

    const COMPLETE_IN_FULL: Behaviour = Behaviour::Complete {
        bytes_xfered: DATA_BYTES,
        error: None,
        response: 0,
    };

    /// Queues `fake` as the core does: what `cqe_request` returned, and how often `fake` had
    /// been completed when it returned.
    fn queue(host: &Registration<TestSlot>, fake: &mut FakeRequest) -> (c_int, u32) {
        let ret = selftest::cqe_request(host, fake);
        (ret, fake.done_calls())
    }

    #[test]
    fn a_refused_request_goes_back_to_the_core() -> Result {
        let busy = Behaviour::Refuse(EBUSY);
        with_slot(c"mtk_sd_rust_cqe_refuse", busy, |host| {
            let mut task = FakeRequest::data_task(1, 0x100)?;
            // The core still owns it: nothing completed or failed it.
            assert_eq!(queue(host, &mut task), (EBUSY.to_errno(), 0));
            assert_eq!(host.data().seen().cqe_requests, 1);
            assert_eq!(task.data_error(), Some(0));
            // Any other error goes back as it is.
            host.data().behave(Behaviour::Refuse(EIO));
            assert_eq!(queue(host, &mut task), (EIO.to_errno(), 0));
            // And the core may queue it again.
            host.data().behave(COMPLETE_IN_FULL);
            assert_eq!(queue(host, &mut task), (0, 1));
            assert_eq!(host.data().seen().cqe_requests, 3);
            Ok(())
        })
    }

    #[test]
    fn a_completed_data_task_reports_its_bytes_once() -> Result {
        with_slot(c"mtk_sd_rust_cqe_complete", COMPLETE_IN_FULL, |host| {
            let mut task = FakeRequest::data_task(2, 0x2000)?;
            assert_eq!(queue(host, &mut task), (0, 1));
            assert_eq!(host.data().seen().block_address, Some(0x2000));
            assert_eq!(host.data().seen().opcode, None);
            assert_eq!(task.data_error(), Some(0));
            assert_eq!(task.bytes_xfered(), Some(DATA_BYTES));

            host.data().behave(Behaviour::Complete {
                bytes_xfered: 1024,
                error: Some(ErrorKind::BadCrc),
                response: 0,
            });
            let mut bad = FakeRequest::data_task(3, 0x3000)?;
            assert_eq!(queue(host, &mut bad), (0, 1));
            assert_eq!(bad.data_error(), Some(EILSEQ.to_errno()));
            assert_eq!(bad.bytes_xfered(), Some(1024));
            Ok(())
        })
    }

    #[test]
    fn a_direct_command_gets_its_response() -> Result {
        let answered = Behaviour::Complete {
            bytes_xfered: 0,
            error: None,
            response: 0x900,
        };
        with_slot(c"mtk_sd_rust_cqe_dcmd", answered, |host| {
            let mut flush = FakeRequest::cache_flush(4)?;
            assert_eq!(queue(host, &mut flush), (0, 1));
            assert_eq!(host.data().seen().opcode, flush.opcode());
            assert_eq!(host.data().seen().block_address, None);
            assert_eq!(flush.cmd_response(), Some(0x900));
            assert_eq!(flush.cmd_error(), Some(0));

            host.data().behave(Behaviour::Complete {
                bytes_xfered: 0,
                error: Some(ErrorKind::TimedOut),
                response: 0,
            });
            let mut late = FakeRequest::cache_flush(5)?;
            assert_eq!(queue(host, &mut late), (0, 1));
            assert_eq!(late.cmd_error(), Some(ETIMEDOUT.to_errno()));
            Ok(())
        })
    }

    #[test]
    fn a_failed_or_dropped_request_completes_once() -> Result {
        with_slot(c"mtk_sd_rust_cqe_drop", Behaviour::Discard, |host| {
            // Dropped at once: a data task, which has no command to fail. Not completed
            // inside the drop, which may hold a driver lock, but from a work item.
            let mut task = FakeRequest::data_task(6, 0x6000)?;
            assert_eq!(queue(host, &mut task).0, 0);
            wait_for_dropped_requests();
            assert_eq!(task.done_calls(), 1);
            assert!(!task.completed_here());
            assert_eq!(task.data_error(), Some(EIO.to_errno()));

            // Failed: another data task.
            host.data().behave(Behaviour::Fail(ETIMEDOUT));
            let mut failed = FakeRequest::data_task(8, 0x8000)?;
            assert_eq!(queue(host, &mut failed), (0, 1));
            assert_eq!(failed.data_error(), Some(ETIMEDOUT.to_errno()));

            // Dropped later (an engine torn down with requests in it): a direct command.
            host.data().behave(Behaviour::Keep);
            let mut flush = FakeRequest::cache_flush(7)?;
            assert_eq!(queue(host, &mut flush), (0, 0));
            let kept = host.data().take_kept();
            assert!(kept.is_some());
            {
                // As a driver would, under its lock: the core's completion must not run in
                // this task while it is held (on an HSQ host it takes the same lock again).
                let _guard = host.data().state.lock();
                drop(kept);
            }
            wait_for_dropped_requests();
            assert_eq!(flush.done_calls(), 1);
            assert!(!flush.completed_here());
            assert_eq!(flush.cmd_error(), Some(EIO.to_errno()));
            Ok(())
        })
    }

    #[test]
    fn a_timeout_names_the_request_the_queue_holds() -> Result {
        with_slot(c"mtk_sd_rust_cqe_timeout", Behaviour::Keep, |host| {
            let mut task = FakeRequest::data_task(9, 0x9000)?;
            assert_eq!(queue(host, &mut task), (0, 0));
            let queued = host.data().seen().queued;
            assert!(queued.is_some());

            // The queue no longer has it (it completed meanwhile).
            host.data().answer_timeouts_with(None);
            assert_eq!(selftest::cqe_timeout(host, &task), (false, false));
            assert_eq!(host.data().seen().timed_out, queued);
            host.data().answer_timeouts_with(Some(true));
            assert_eq!(selftest::cqe_timeout(host, &task), (true, true));
            host.data().answer_timeouts_with(Some(false));
            assert_eq!(selftest::cqe_timeout(host, &task), (true, false));
            // Asking completes nothing.
            assert_eq!(task.done_calls(), 0);

            let kept = host.data().take_kept();
            assert_eq!(kept.as_ref().map(QueuedRequest::id), queued);
            assert_eq!(kept.as_ref().map(QueuedRequest::tag), Some(9));
            if let Some(kept) = kept {
                kept.complete_task(DATA_BYTES, None, 0);
            }
            assert_eq!(task.done_calls(), 1);
            assert_eq!(task.bytes_xfered(), Some(DATA_BYTES));

            // Another request in the same slot has another identity.
            let mut next = FakeRequest::data_task(10, 0xa000)?;
            assert_eq!(queue(host, &mut next), (0, 0));
            assert_eq!(selftest::cqe_timeout(host, &next), (true, false));
            let timed_out = host.data().seen().timed_out;
            assert_eq!(timed_out, host.data().seen().queued);
            assert!(timed_out != queued);
            drop(host.data().take_kept());
            wait_for_dropped_requests();
            assert_eq!(next.done_calls(), 1);
            Ok(())
        })
    }

    #[test]
    fn a_request_without_a_command_never_reaches_the_slot() -> Result {
        with_slot(c"mtk_sd_rust_cqe_nocmd", Behaviour::Keep, |host| {
            let mut empty = FakeRequest::empty()?;
            selftest::request(host, &mut empty);
            assert_eq!(host.data().seen().requests, 0);
            assert_eq!(empty.done_calls(), 0);
            Ok(())
        })
    }

    #[test]
    fn a_failed_request_fails_its_command_and_data_once() -> Result {
        with_slot(c"mtk_sd_rust_cqe_legacy", Behaviour::Keep, |host| {
            let mut read = FakeRequest::read_blocks(0x7000)?;
            selftest::request(host, &mut read);
            assert_eq!(host.data().seen().requests, 1);
            assert_eq!(host.data().seen().cqe_requests, 0);
            assert_eq!(read.done_calls(), 1);
            assert_eq!(read.cmd_error(), Some(EIO.to_errno()));
            assert_eq!(read.data_error(), Some(EIO.to_errno()));
            Ok(())
        })
    }
}
