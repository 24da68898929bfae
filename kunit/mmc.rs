// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the MMC abstraction layer against the real MMC core.

#[kernel::prelude::kunit_tests(mtk_sd_rust_mmc)]
mod tests {
    use core::sync::atomic::{AtomicU32, Ordering};

    use crate::mmc::{
        vdd, HostAllocation, HostOps, HostSettings, Ios, PowerMode, Registration, Request,
    };
    use kernel::{
        device::{Bound, Device},
        error::{code::ENOMEDIUM, Error, Result},
        faux,
        prelude::vtable,
    };

    static POWER_ON_CALLS: AtomicU32 = AtomicU32::new(0);
    static POWER_OFF_CALLS: AtomicU32 = AtomicU32::new(0);
    static REQUESTS: AtomicU32 = AtomicU32::new(0);

    /// A slot without a card: counts what the core asks of it.
    struct EmptySlot;

    #[vtable]
    impl HostOps for EmptySlot {
        fn request(&self, request: Request) {
            REQUESTS.fetch_add(1, Ordering::Relaxed);
            request.fail(ENOMEDIUM);
        }

        fn set_ios(&self, ios: &Ios) {
            match ios.power_mode {
                PowerMode::On => POWER_ON_CALLS.fetch_add(1, Ordering::Relaxed),
                PowerMode::Off => POWER_OFF_CALLS.fetch_add(1, Ordering::Relaxed),
                PowerMode::Up | PowerMode::Undefined => 0,
            };
        }

        fn get_cd(&self) -> bool {
            false
        }
    }

    #[test]
    fn host_allocation_round_trip() -> Result {
        let registration = faux::Registration::new(c"mtk_sd_rust_kunit", None)?;
        let faux_device: &faux::Device<Bound> = registration.as_ref();
        let parent: &Device<Bound> = faux_device.as_ref();
        let first = HostAllocation::new(parent, 0)?;
        let second = HostAllocation::new(parent, 16)?;
        assert!(first.index() >= 0);
        assert_ne!(first.index(), second.index());
        assert_eq!(first.caps(), 0);
        Ok(())
    }

    #[test]
    fn registration_powers_the_slot_up_then_off() -> Result {
        let registration = faux::Registration::new(c"mtk_sd_rust_kunit_slot", None)?;
        let faux_device: &faux::Device<Bound> = registration.as_ref();
        let parent: &Device<Bound> = faux_device.as_ref();
        let settings = HostSettings {
            min_frequency: 400_000,
            max_frequency: 50_000_000,
            ocr_avail: vdd::VDD_32_33 | vdd::VDD_33_34,
            caps: 0,
            caps2: 0,
        };
        let ons = POWER_ON_CALLS.load(Ordering::Relaxed);
        let offs = POWER_OFF_CALLS.load(Ordering::Relaxed);
        {
            let host = Registration::new(parent, &settings, Ok::<_, Error>(EmptySlot))?;
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
    }
}
