// SPDX-License-Identifier: GPL-2.0

//! The SDIO interrupt's source (`slot::sdio_irq`) between callers that interleave: each
//! call decides under the slot's lock (a `RefCell` borrowed for the decision here) and
//! makes or releases its source with the lock free. Whatever the order, at most one
//! source is made per enable that stands, one is held while the interrupt is enabled and
//! none after a disable or a removal, and no source is ever dropped under the lock.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use slot::sdio_irq::{SdioIrqSource, Step, Ticket};

/// The slot's lock around the source, and what the sources saw.
#[derive(Default)]
struct Slot {
    lock: RefCell<SdioIrqSource<Source>>,
    made: Cell<u32>,
    released: Cell<u32>,
}

/// A wake-up interrupt or usage hold: its drop (`free_irq`, which sleeps) checks that the
/// slot's lock is free.
struct Source {
    slot: Rc<Slot>,
}

impl Drop for Source {
    fn drop(&mut self) {
        assert!(
            self.slot.lock.try_borrow_mut().is_ok(),
            "a source was released under the slot's lock"
        );
        self.slot.released.set(self.slot.released.get() + 1);
    }
}

/// The first half of `enable_sdio_irq`: the decision, under the lock.
fn decide(slot: &Rc<Slot>, enable: bool) -> Option<Ticket> {
    let step = slot.lock.borrow_mut().set_enabled(enable);
    match step {
        Step::Arm(ticket) => Some(ticket),
        Step::Release(source) => {
            drop(source);
            None
        }
        Step::Nothing => None,
    }
}

/// The second half: the source made with the lock free, then handed in under it.
fn arm(slot: &Rc<Slot>, ticket: Ticket) {
    slot.made.set(slot.made.get() + 1);
    let source = Source { slot: slot.clone() };
    let surplus = slot.lock.borrow_mut().armed(ticket, source);
    drop(surplus);
}

fn held(slot: &Slot) -> bool {
    slot.lock.borrow().source().is_some()
}

#[test]
fn an_enable_arms_one_source_and_a_disable_releases_it() {
    let slot = Rc::new(Slot::default());
    let ticket = decide(&slot, true).expect("the first enable arms");
    arm(&slot, ticket);
    assert!(held(&slot));
    assert_eq!(decide(&slot, true), None, "held: nothing more to arm");
    assert_eq!(decide(&slot, false), None);
    assert!(!held(&slot));
    assert_eq!((slot.made.get(), slot.released.get()), (1, 1));
}

/// Two enables whose halves interleave: the second sees the first's arming under way and
/// makes nothing. Checked in two lock sections (the state before), both made a source and
/// the second replaced the first under the lock.
#[test]
fn two_enables_interleaved_make_one_source() {
    let slot = Rc::new(Slot::default());
    let first = decide(&slot, true).expect("the first enable arms");
    assert_eq!(decide(&slot, true), None, "an arming is under way");
    arm(&slot, first);
    assert!(held(&slot));
    assert_eq!((slot.made.get(), slot.released.get()), (1, 0));
}

/// A disable between an enable's decision and its arming: the source made for the
/// superseded enable comes back and is released with the lock free; none stays held.
#[test]
fn a_disable_during_an_arming_leaves_no_source() {
    let slot = Rc::new(Slot::default());
    let ticket = decide(&slot, true).expect("the enable arms");
    assert_eq!(decide(&slot, false), None, "nothing held yet");
    arm(&slot, ticket);
    assert!(!held(&slot), "the interrupt is disabled: no source");
    assert_eq!((slot.made.get(), slot.released.get()), (1, 1));
}

/// Enable, disable, enable with both armings under way: only the standing enable's source
/// is kept, whichever arming ends first.
#[test]
fn only_the_standing_enables_source_is_kept() {
    for stale_first in [true, false] {
        let slot = Rc::new(Slot::default());
        let stale = decide(&slot, true).expect("the first enable arms");
        assert_eq!(decide(&slot, false), None);
        let standing = decide(&slot, true).expect("the second enable arms again");
        if stale_first {
            arm(&slot, stale);
            arm(&slot, standing);
        } else {
            arm(&slot, standing);
            arm(&slot, stale);
        }
        assert!(held(&slot), "stale first: {stale_first}");
        assert_eq!((slot.made.get(), slot.released.get()), (2, 1));
        assert_eq!(decide(&slot, false), None);
        assert_eq!((slot.made.get(), slot.released.get()), (2, 2));
    }
}

/// The host leaves the core: the held source comes out, and an arming under way or a late
/// enable keeps nothing.
#[test]
fn a_removal_releases_the_source_and_refuses_later_ones() {
    let slot = Rc::new(Slot::default());
    let ticket = decide(&slot, true).expect("the enable arms");
    arm(&slot, ticket);
    let removed = slot.lock.borrow_mut().remove();
    assert!(removed.is_some());
    drop(removed);
    assert_eq!(decide(&slot, true), None, "removed: nothing is armed");
    assert!(!held(&slot));

    let slot = Rc::new(Slot::default());
    let ticket = decide(&slot, true).expect("the enable arms");
    let removed = slot.lock.borrow_mut().remove();
    assert!(removed.is_none(), "nothing held yet");
    arm(&slot, ticket);
    assert!(!held(&slot), "the arming under way is refused");
    assert_eq!((slot.made.get(), slot.released.get()), (1, 1));
}
