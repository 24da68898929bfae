// SPDX-License-Identifier: GPL-2.0
//! `models::report::FirstOfKind`: which violations a host of the models reports.

use models::msdc::Violation;
use models::report::FirstOfKind;

#[test]
fn each_kind_is_first_once_whatever_its_fields() {
    let mut kinds = FirstOfKind::<Violation, 4>::new();
    assert!(kinds.first(&Violation::UnknownRegister(0x228)));
    assert!(!kinds.first(&Violation::UnknownRegister(0x228)));
    // Another register is the same kind of mistake.
    assert!(!kinds.first(&Violation::UnknownRegister(0x22C)));
    assert!(kinds.first(&Violation::CommandWhileCqhciActive));
    assert!(!kinds.first(&Violation::CommandWhileCqhciActive));
    assert!(!kinds.first(&Violation::UnknownRegister(0)));
}

#[test]
fn the_log_stays_bounded() {
    let mut kinds = FirstOfKind::<Violation, 2>::default();
    assert!(kinds.first(&Violation::PioMode));
    assert!(kinds.first(&Violation::BasicDma));
    // No room to remember a third kind: it counts as seen, so it is never reported.
    assert!(!kinds.first(&Violation::DmaResume));
    assert!(!kinds.first(&Violation::PioMode));
}
