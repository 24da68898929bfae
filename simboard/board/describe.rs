// SPDX-License-Identifier: GPL-2.0

//! The board's description of its slots for the end-to-end tests
//! (`/sys/kernel/debug/mtk_sd_rust_sim/slots`), so that what a test expects of the board
//! is read from the board, not counted by hand in the scripts.
//!
//! One line per slot, in slot order:
//!
//! ```text
//! <window> card=<MMC|SD|SDIO> mode=<cqe|hsq|legacy> timing=<timing> removable=<yes|no>
//! ```
//!
//! `mode` is the queue the MMC core ends up using on the slot, as upstream's driver and the
//! core decide it (mtk-sd.c `msdc_drv_probe`, Linux 7.3): CQHCI where the node says
//! `supports-cqe` and the card has a command queue (the core enables the engine only for
//! an eMMC with `CMDQ_SUPPORT`), the host software queue where the node says `no-sdio`
//! without `supports-cqe`, else one request at a time. `timing` is the fastest timing both
//! the node's speed-mode properties and the card offer (the names of the end-to-end run's
//! `e2e: timing` lines). Both are read from the live device tree, so that
//! `mtk_sd_rust_sim.queue=` (which trims the nodes before their devices exist) shows.

use core::fmt;

use kernel::{
    debugfs::{Dir, File},
    prelude::*,
    sync::SetOnce,
};

use super::{ffi, CardKind, TimingSupport, SLOTS, SLOT_PATHS};

/// The `slots` file, published for good (the board is never removed).
static SLOTS_FILE: SetOnce<Pin<KBox<File<()>>>> = SetOnce::new();

/// Publishes `slots` in the board's debugfs directory `root`.
pub(crate) fn publish(root: &Dir) -> Result {
    let file = KBox::pin_init(
        root.read_callback_file(c"slots", Ok::<_, Error>(()), &show),
        GFP_KERNEL,
    )?;
    SLOTS_FILE.populate(file);
    Ok(())
}

/// The card's type as the MMC core names it (`/sys/bus/mmc/devices/*/type`).
fn card_type(card: CardKind) -> &'static str {
    match card {
        CardKind::Emmc(_) | CardKind::EmmcWithoutQueue(_) => "MMC",
        CardKind::Sd => "SD",
        CardKind::Sdio => "SDIO",
    }
}

/// The queue the core ends up using on a slot whose node is `node`.
fn mode(node: &ffi::Node, card: CardKind) -> &'static str {
    let supports_cqe = node.has_property(c"supports-cqe");
    if supports_cqe && matches!(card, CardKind::Emmc(_)) {
        "cqe"
    } else if !supports_cqe && node.has_property(c"no-sdio") {
        "hsq"
    } else {
        "legacy"
    }
}

/// The fastest timing the node allows and the card offers: the eMMC models offer up to their
/// [`TimingSupport`], the SD model every UHS-I mode up to SDR104, the SDIO model up to SDR50.
fn timing(node: &ffi::Node, card: CardKind) -> &'static str {
    let has = |name: &CStr| node.has_property(name);
    match card {
        CardKind::Emmc(offers) | CardKind::EmmcWithoutQueue(offers) => {
            let hs400 = has(c"mmc-hs400-1_8v") || has(c"mmc-hs400-1_2v");
            let hs200 = has(c"mmc-hs200-1_8v") || has(c"mmc-hs200-1_2v");
            match offers {
                TimingSupport::Hs400EnhancedStrobe
                    if hs400 && has(c"mmc-hs400-enhanced-strobe") =>
                {
                    "hs400es"
                }
                TimingSupport::Hs400 | TimingSupport::Hs400EnhancedStrobe if hs400 => "hs400",
                TimingSupport::Hs200
                | TimingSupport::Hs400
                | TimingSupport::Hs400EnhancedStrobe
                    if hs200 =>
                {
                    "hs200"
                }
                _ if has(c"cap-mmc-highspeed") => "hs",
                _ => "legacy",
            }
        }
        CardKind::Sd | CardKind::Sdio => {
            if matches!(card, CardKind::Sd) && has(c"sd-uhs-sdr104") {
                "sdr104"
            } else if has(c"sd-uhs-sdr50") || has(c"sd-uhs-sdr104") {
                "sdr50"
            } else if has(c"cap-sd-highspeed") {
                "hs"
            } else {
                "legacy"
            }
        }
    }
}

fn show(_: &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for (spec, path) in SLOTS.iter().zip(SLOT_PATHS) {
        let Some(node) = ffi::Node::find(path) else {
            writeln!(f, "{:x} missing", spec.base)?;
            continue;
        };
        let removable = matches!(spec.card, CardKind::Sd) && !node.has_property(c"non-removable");
        writeln!(
            f,
            "{:x} card={} mode={} timing={} removable={}",
            spec.base,
            card_type(spec.card),
            mode(&node, spec.card),
            timing(&node, spec.card),
            if removable { "yes" } else { "no" }
        )?;
    }
    Ok(())
}
