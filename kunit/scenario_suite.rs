// SPDX-License-Identifier: GPL-2.0

//! The KUnit suite of a shared scenario list (`hsq/src/scenarios.rs`,
//! `cqhci/src/scenarios.rs`): one KUnit test per scenario, made from the list itself.

/// Declares KUnit suite `$suite` with one test per scenario `$name` of module `$module`,
/// plus the `$extra` items (more tests). Expanded by a scenario list macro, which supplies
/// the names: `crate::hsq_scenarios!(scenario_suite!(suite, crate::hsq::scenarios, {};))`.
macro_rules! scenario_suite {
    ($suite:ident, $($module:ident)::+, { $($extra:item)* }; $($name:ident,)*) => {
        #[kernel::prelude::kunit_tests($suite)]
        mod tests {
            use $($module)::+ as scenarios;

            $(
                #[test]
                fn $name() {
                    assert_eq!(scenarios::$name(), Ok(()));
                }
            )*

            $($extra)*
        }
    };
}
