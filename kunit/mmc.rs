// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the MMC abstraction layer against the real MMC core.

#[kernel::prelude::kunit_tests(mtk_sd_rust_mmc)]
mod tests {
    use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use crate::kernel_mmc::{
        caps, default_workqueue, flush_work, pm, pulse_optional_reset, selftest::CARDLESS_SETTINGS,
        Host, HostAllocation, HostOps, Ios, PinState, Pins, PowerMode, Registration, Request,
        TransferLimits,
    };
    use crate::platform_driver::MsdcDriver;
    use kernel::{
        alloc::flags::GFP_KERNEL,
        device::{Bound, Device},
        error::{
            code::{EAGAIN, ENOMEDIUM},
            Error, Result,
        },
        faux, impl_has_work, new_work,
        prelude::{pin_data, pin_init, vtable, CStr, InPlaceInit},
        sync::{aref::ARef, Arc},
        workqueue::{Work, WorkItem},
    };

    /// Runs `test` with a bound faux device named `name` as the host's parent.
    fn on_faux_device(name: &'static CStr, test: impl FnOnce(&Device<Bound>) -> Result) -> Result {
        let registration = faux::Registration::new(name, None)?;
        let faux_device: &faux::Device<Bound> = registration.as_ref();
        test(faux_device.as_ref())
    }

    static POWER_ON_CALLS: AtomicU32 = AtomicU32::new(0);
    static POWER_OFF_CALLS: AtomicU32 = AtomicU32::new(0);
    static REQUESTS: AtomicU32 = AtomicU32::new(0);

    /// A slot without a card: counts what the core asks of it.
    struct EmptySlot;

    #[vtable]
    impl HostOps for EmptySlot {
        fn request(&self, _host: &Host, request: Request) {
            REQUESTS.fetch_add(1, Ordering::Relaxed);
            request.fail(ENOMEDIUM);
        }

        fn set_ios(&self, _host: &Host, ios: &Ios) {
            match ios.power_mode {
                PowerMode::On => POWER_ON_CALLS.fetch_add(1, Ordering::Relaxed),
                PowerMode::Off => POWER_OFF_CALLS.fetch_add(1, Ordering::Relaxed),
                PowerMode::Up | PowerMode::Undefined => 0,
            };
        }

        fn get_cd(&self, _host: &Host) -> bool {
            false
        }
    }

    /// A runtime resume with no driver bound cannot turn the clocks on: it must fail, so that
    /// the PM core does not record the device active over gated clocks.
    #[test]
    fn runtime_resume_without_driver_data_fails() -> Result {
        on_faux_device(c"mtk_sd_rust_rpm", |dev| {
            let answer = pm::PlatformDriver::<MsdcDriver>::runtime_resume_answer(dev);
            assert_eq!(answer, EAGAIN.to_errno());
            Ok(())
        })
    }

    #[test]
    fn host_allocation_round_trip() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit", |parent| {
            let first = HostAllocation::new(parent, 0)?;
            let second = HostAllocation::new(parent, 16)?;
            assert!(first.index() >= 0);
            assert_ne!(first.index(), second.index());
            assert_eq!(first.caps(), 0);
            Ok(())
        })
    }

    #[test]
    fn registration_powers_the_slot_up_then_off() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_slot", |parent| {
            let ons = POWER_ON_CALLS.load(Ordering::Relaxed);
            let offs = POWER_OFF_CALLS.load(Ordering::Relaxed);
            {
                let host =
                    Registration::new(parent, &CARDLESS_SETTINGS, Ok::<_, Error>(EmptySlot))?;
                assert!(host.index() >= 0);
                // mmc_add_host() powers the slot up before scanning it.
                assert!(POWER_ON_CALLS.load(Ordering::Relaxed) > ons);
                let _: &EmptySlot = host.data();
            }
            // Removal powers it off, through the same ops table.
            assert!(POWER_OFF_CALLS.load(Ordering::Relaxed) > offs);
            // With no card detected the core never sent a command.
            assert_eq!(REQUESTS.load(Ordering::Relaxed), 0);
            Ok(())
        })
    }

    /// A slot whose card-detect interrupt fires after the core removed the host and before
    /// the driver silenced its hardware: `removed()` raises it, as the interrupt handler
    /// would in that window.
    struct DetectOnRemoval;

    #[vtable]
    impl HostOps for DetectOnRemoval {
        fn request(&self, _host: &Host, request: Request) {
            request.fail(ENOMEDIUM);
        }

        fn set_ios(&self, _host: &Host, _ios: &Ios) {}

        fn removed(&self, host: &Host) {
            // A delay the test cannot outlast: only a cancel empties the queue in time.
            host.detect_change(10_000);
        }
    }

    #[test]
    fn removal_cancels_a_card_detect_raised_while_removing() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_cd", |parent| {
            let registration =
                Registration::new(parent, &CARDLESS_SETTINGS, Ok::<_, Error>(DetectOnRemoval))?;
            // Keeps the host's memory for the check below.
            let host: ARef<Host> = registration.host().into();
            drop(registration);
            // Still queued, the work would run on a freed host once its delay expired: the
            // host's release (`mmc_free_host`) cancels it, which removal relies on.
            assert!(!host.detect_work_busy());
            Ok(())
        })
    }

    #[test]
    fn host_reference_outlives_the_allocation() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_ref", |parent| {
            let allocation = HostAllocation::for_registration(parent)?;
            let index = allocation.index();
            let host = allocation.host_ref();
            // mmc_free_host() drops the core's reference; ours keeps the memory (KASAN would
            // report a use after free otherwise).
            drop(allocation);
            assert_eq!(host.index(), index);
            Ok(())
        })
    }

    #[test]
    fn a_node_without_properties_gives_defaults() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_props", |parent| {
            let mut allocation = HostAllocation::for_registration(parent)?;
            // No firmware node: nothing to parse, no supplies, and that is not an error.
            allocation.parse_device_tree()?;
            allocation.get_regulators()?;
            let host: &Host = allocation.host();
            assert!(!host.has_vmmc());
            assert!(!host.has_vqmmc());
            host.set_vmmc(Some(21))?;
            assert!(!host.switch_vqmmc_to_ios()?);
            assert_eq!(host.gpio_card_detect(), None);
            assert_eq!(host.gpio_write_protect(), None);
            // No pin states and no reset line: both optional.
            let pins = Pins::get(parent)?;
            assert!(!pins.has(PinState::Default));
            pins.select(PinState::Uhs)?;
            assert!(!pulse_optional_reset(parent, c"hrst")?);
            Ok(())
        })
    }

    #[test]
    fn capabilities_and_limits_reach_the_host() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_caps", |parent| {
            let mut allocation = HostAllocation::for_registration(parent)?;
            allocation.add_caps(caps::BUS_4_BIT | caps::CMD23, caps::NO_SDIO);
            allocation.remove_caps(caps::BUS_4_BIT, 0);
            allocation.set_limits(&TransferLimits {
                max_segments: 128,
                max_segment_size: 65_536,
                max_block_size: 512,
                max_block_count: 1024,
                max_request_size: 512 * 1024,
                max_busy_timeout_ms: 0,
            });
            let host = allocation.host();
            assert_eq!(host.caps(), caps::CMD23);
            assert_eq!(host.caps2(), caps::NO_SDIO);
            Ok(())
        })
    }

    #[test]
    fn runtime_pm_reference_keeps_the_device_active() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_pm", |dev| {
            pm::enable_autosuspend(dev, 0)?;
            {
                let _active = pm::ActiveReference::get(dev)?;
                assert!(pm::is_active(dev));
            }
            // Dropping the last reference with no autosuspend delay lets the device suspend;
            // taking one again resumes it.
            let _active = pm::ActiveReference::get(dev)?;
            assert!(pm::is_active(dev));
            Ok(())
        })
    }

    #[test]
    fn usage_hold_keeps_an_active_device_active() -> Result {
        on_faux_device(c"mtk_sd_rust_kunit_hold", |dev| {
            pm::enable_autosuspend(dev, 0)?;
            let hold = {
                let _active = pm::ActiveReference::get(dev)?;
                // Taken while active, as under the MMC core's host claim.
                pm::UsageHold::take(dev)
            };
            // The reference is gone, the hold is not: no suspend, even after a wait.
            kernel::time::delay::fsleep(kernel::time::Delta::from_millis(20));
            assert!(pm::is_active(dev));
            drop(hold);
            Ok(())
        })
    }

    /// A work item that takes a while: queued, it is still to finish when its queuer goes
    /// on.
    #[pin_data]
    struct SlowWork {
        done: AtomicBool,
        #[pin]
        work: Work<SlowWork>,
    }

    impl_has_work! {
        impl HasWork<Self> for SlowWork { self.work }
    }

    impl WorkItem for SlowWork {
        type Pointer = Arc<SlowWork>;

        fn run(this: Arc<Self>) {
            kernel::time::delay::fsleep(kernel::time::Delta::from_millis(20));
            this.done.store(true, Ordering::Release);
        }
    }

    /// The driver's removal flushes the request watchdog's work, which a timer that fired
    /// before the removal queued (`Msdc::shutdown`): the flush returns only once that work
    /// ran to its end, so none of it runs after the module is gone.
    #[test]
    fn flushing_a_queued_work_waits_for_its_end() -> Result {
        let item = Arc::pin_init(
            pin_init!(SlowWork {
                done: AtomicBool::new(false),
                work <- new_work!("mtk_sd_rust_kunit::SlowWork"),
            }),
            GFP_KERNEL,
        )?;
        assert!(default_workqueue()
            .enqueue::<Arc<SlowWork>, 0>(item.clone())
            .is_ok());
        // The work was queued, and the flush waited for its end.
        assert!(flush_work::<SlowWork, 0>(&item));
        assert!(item.done.load(Ordering::Acquire));
        // Nothing left to wait for.
        assert!(!flush_work::<SlowWork, 0>(&item));
        Ok(())
    }
}
