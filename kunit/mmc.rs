// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the MMC abstraction layer against the real MMC core.

#[kernel::prelude::kunit_tests(mtk_sd_rust_mmc)]
mod tests {
    use crate::mmc::HostAllocation;
    use kernel::{
        device::{Bound, Device},
        error::Result,
        faux,
    };

    #[test]
    fn host_allocation_round_trip() -> Result {
        let registration = faux::Registration::new(c"mtk_sd_rust_kunit", None)?;
        let faux_device: &faux::Device<Bound> = registration.as_ref();
        let parent: &Device<Bound> = faux_device.as_ref();
        let first = HostAllocation::new(parent)?;
        let second = HostAllocation::new(parent)?;
        assert!(first.index() >= 0);
        assert_ne!(first.index(), second.index());
        assert_eq!(first.caps(), 0);
        Ok(())
    }
}
