// SPDX-License-Identifier: GPL-2.0
//! The completion-to-next-issue path: the instructions the guest executes from the entry
//! of a completion interrupt's handler to the next register write that starts a request.
//!
//! Both ends are instruction addresses the plugin is given (`entry=` and `issue=`, each a
//! list of hexadecimal addresses separated by `:`), taken from the kernel's symbols: the
//! driver's interrupt handler and the board's models of the command register and of the
//! CQHCI doorbell. A sample is the instructions from the latest `entry` to the next
//! `issue`; an `issue` without an `entry` since the last sample (a request the submitter
//! started, not a completion) is none. The guest's snapshots end a set of samples and
//! forget an `entry` that came before them.

/// Which end of the path an instruction marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// A completion interrupt's handler starts.
    Entry,
    /// A register write starts a request.
    Issue,
}

/// The addresses of each end, from the plugin's arguments.
#[derive(Debug, Default)]
pub struct Ends {
    entry: Vec<u64>,
    issue: Vec<u64>,
}

impl Ends {
    /// Adds the addresses of `value` (hexadecimal, with or without `0x`, separated by `:`)
    /// to the end `end`.
    pub fn add(&mut self, end: End, value: &str) -> Result<(), String> {
        let list = match end {
            End::Entry => &mut self.entry,
            End::Issue => &mut self.issue,
        };
        for a in value.split(':') {
            let hex = a.trim_start_matches("0x");
            let addr = u64::from_str_radix(hex, 16).map_err(|e| format!("address `{a}`: {e}"))?;
            list.push(addr);
        }
        Ok(())
    }

    /// Whether both ends are given: the path is measured only then.
    pub fn enabled(&self) -> bool {
        !self.entry.is_empty() && !self.issue.is_empty()
    }

    /// The end the instruction at `addr` marks, if any.
    pub fn end_at(&self, addr: u64) -> Option<End> {
        if self.entry.contains(&addr) {
            Some(End::Entry)
        } else if self.issue.contains(&addr) {
            Some(End::Issue)
        } else {
            None
        }
    }
}

/// Instructions counted ahead of a marked instruction when its callback runs: the plugin
/// adds a run's length to its counter where the run starts, after the callbacks of that
/// first instruction (QEMU emits an instruction's callbacks before its inline operations),
/// or, for a block of one run, on entry to the block, before any instruction's callback.
/// `index` is the marked instruction's position in its block, `start` and `len` those of
/// its run; `whole_block` says the block is one run.
pub fn counted_ahead(whole_block: bool, start: usize, len: usize, index: usize) -> u64 {
    if !whole_block && index == start {
        0
    } else {
        (len - (index - start)) as u64
    }
}

/// The samples of the path since the last snapshot.
#[derive(Debug, Default)]
pub struct Path {
    entry: Option<u64>,
    samples: Vec<u64>,
}

impl Path {
    /// The marked end `end` runs when `executed` instructions have run before it.
    pub fn reached(&mut self, end: End, executed: u64) {
        match end {
            End::Entry => self.entry = Some(executed),
            End::Issue => {
                if let Some(start) = self.entry.take() {
                    self.samples.push(executed.wrapping_sub(start));
                }
            }
        }
    }

    /// The samples so far; starts a new set, in which an earlier entry does not count.
    pub fn take(&mut self) -> Vec<u64> {
        self.entry = None;
        core::mem::take(&mut self.samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_with_or_without_prefix() {
        let mut ends = Ends::default();
        assert!(!ends.enabled());
        ends.add(End::Entry, "ffffffff81000000").unwrap();
        assert!(!ends.enabled());
        ends.add(End::Issue, "0xffffffff81000010:ffffffff81000020")
            .unwrap();
        assert!(ends.enabled());
        assert_eq!(ends.end_at(0xffff_ffff_8100_0000), Some(End::Entry));
        assert_eq!(ends.end_at(0xffff_ffff_8100_0020), Some(End::Issue));
        assert_eq!(ends.end_at(0xffff_ffff_8100_0001), None);
        assert!(ends.add(End::Issue, "zz").is_err());
    }

    #[test]
    fn a_sample_runs_from_the_latest_entry_to_the_next_issue() {
        let mut path = Path::default();
        // A submitter's issue with no completion before it is no sample.
        path.reached(End::Issue, 10);
        // Two interrupts (command done, then transfer done): the path starts at the second.
        path.reached(End::Entry, 100);
        path.reached(End::Entry, 250);
        path.reached(End::Issue, 1250);
        // The next issue without a new interrupt is the submitter's.
        path.reached(End::Issue, 1300);
        path.reached(End::Entry, 2000);
        path.reached(End::Issue, 2600);
        assert_eq!(path.take(), vec![1000, 600]);
        assert!(path.take().is_empty());
    }

    #[test]
    fn a_snapshot_forgets_the_entry_before_it() {
        let mut path = Path::default();
        path.reached(End::Entry, 100);
        assert!(path.take().is_empty());
        path.reached(End::Issue, 5000);
        assert!(path.take().is_empty());
    }

    #[test]
    fn instructions_counted_ahead_of_a_marked_instruction() {
        // A block of one run: its whole length is counted on entry.
        assert_eq!(counted_ahead(true, 0, 5, 0), 5);
        assert_eq!(counted_ahead(true, 0, 5, 3), 2);
        // The first instruction of a run: its callback runs before the run's add.
        assert_eq!(counted_ahead(false, 4, 6, 4), 0);
        // Later in a run: the rest of the run, this instruction included, is counted.
        assert_eq!(counted_ahead(false, 4, 6, 5), 5);
        assert_eq!(counted_ahead(false, 4, 6, 9), 1);
    }
}
