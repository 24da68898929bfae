// SPDX-License-Identifier: GPL-2.0

//! The slots' power domains: one generic PM domain per slot, which powers a [`SlotPower`]
//! on and off, served to the nodes' `power-domains` by one provider. Built only with
//! `CONFIG_PM_GENERIC_DOMAINS_OF`, on which its `mod` line in `ffi` is gated.

use kernel::{error::to_result, ffi::c_int, prelude::*, str::CString, types::Opaque};

use super::{bindings, Node, SlotPower};

/// A generic PM domain in front of one slot. Registered domains are never removed or
/// freed: the board lives as long as the kernel.
struct Domain {
    /// The framework's domain. Only the framework touches it once initialised.
    genpd: Opaque<bindings::generic_pm_domain>,
    slot: &'static dyn SlotPower,
    /// The domain's name, which `genpd.name` points at for as long as the domain exists.
    name: CString,
}

impl Domain {
    /// The domain whose framework part `genpd` is.
    ///
    /// # Safety
    ///
    /// `genpd` is the `genpd` of a [`Domain`] that lives for `'a`.
    unsafe fn from_genpd<'a>(genpd: *mut bindings::generic_pm_domain) -> &'a Self {
        // SAFETY: by the caller's promise `genpd` is the `genpd` field of a live `Domain`;
        // as in `Gate::from_hw`, its Rust fields are only read once it is initialised.
        unsafe {
            &*kernel::container_of!(
                genpd.cast::<Opaque<bindings::generic_pm_domain>>(),
                Domain,
                genpd
            )
        }
    }
}

/// `generic_pm_domain.power_on`.
///
/// # Safety
///
/// `genpd` is the framework part of an initialised [`Domain`].
unsafe extern "C" fn domain_power_on(genpd: *mut bindings::generic_pm_domain) -> c_int {
    // SAFETY: genpd calls a domain's callbacks only with that domain, here a `Domain`'s,
    // and domains are never freed.
    let domain = unsafe { Domain::from_genpd(genpd) };
    domain.slot.set_power(true);
    0
}

/// `generic_pm_domain.power_off`.
///
/// # Safety
///
/// `genpd` is the framework part of an initialised [`Domain`].
unsafe extern "C" fn domain_power_off(genpd: *mut bindings::generic_pm_domain) -> c_int {
    // SAFETY: as in `domain_power_on`.
    let domain = unsafe { Domain::from_genpd(genpd) };
    domain.slot.set_power(false);
    0
}

/// The board's power domain provider: one domain per slot, one `power-domains` cell each,
/// in the order added.
pub(crate) struct PowerDomains {
    domains: KVec<*mut bindings::generic_pm_domain>,
}

impl PowerDomains {
    /// A provider for up to `domains` domains.
    pub(crate) fn with_capacity(domains: usize) -> Result<Self> {
        Ok(Self {
            domains: KVec::with_capacity(domains, GFP_KERNEL)?,
        })
    }

    /// Initialises the domain `name` for `slot`, off, as the provider's next cell. No
    /// governor: the domain goes off as soon as its device suspends. The domain lives as
    /// long as the kernel.
    pub(crate) fn add(&mut self, name: CString, slot: &'static dyn SlotPower) -> Result {
        let domain: &'static Domain = KBox::leak(KBox::new(
            Domain {
                genpd: Opaque::zeroed(),
                slot,
                name,
            },
            GFP_KERNEL,
        )?);
        let genpd = domain.genpd.get();
        // SAFETY: the domain is not initialised yet, so nothing else reaches it.
        unsafe {
            (*genpd).name = domain.name.as_char_ptr();
            (*genpd).power_on = Some(domain_power_on);
            (*genpd).power_off = Some(domain_power_off);
        }
        // SAFETY: `genpd` is zeroed apart from its name (alive as long as the domain) and
        // callbacks, as `pm_genpd_init` expects; it never moves or goes away (leaked
        // above), as an initialised domain needs. A null governor is allowed; `is_off`:
        // the slot starts unpowered.
        to_result(unsafe { bindings::pm_genpd_init(genpd, core::ptr::null_mut(), true) })?;
        self.domains.push(genpd, GFP_KERNEL)?;
        Ok(())
    }

    /// Serves the domains at `node` (`#power-domain-cells = <1>`): cell N is the Nth
    /// domain added. The table lives as long as the kernel.
    pub(crate) fn serve(self, node: &Node) -> Result {
        let num_domains = u32::try_from(self.domains.len())?;
        let (domains, _, _) = self.domains.into_raw_parts();
        let data = KBox::leak(KBox::new(
            bindings::genpd_onecell_data {
                domains,
                num_domains,
                // The framework's one-cell lookup.
                xlate: None,
            },
            GFP_KERNEL,
        )?);
        // SAFETY: by `Node`'s invariant the node is alive (the framework takes its own
        // reference); `data` and the array of `num_domains` initialised domains it points
        // at are never freed (leaked above), as a provider's data must live.
        to_result(unsafe { bindings::of_genpd_add_provider_onecell(node.node.as_ptr(), data) })
    }
}
