// SPDX-License-Identifier: GPL-2.0

//! Arrival-order queue of tags, linked through a fixed table so that no operation allocates
//! or scans.

use super::tag::{Tag, SLOT_COUNT};

/// Tags in arrival order, as a singly linked list threaded through `successor`.
///
/// The successor of a tag that is not queued, and of the tail, is `None`. The caller
/// guarantees that a tag is pushed at most once before it is popped; the queue engine
/// enforces that through its slot table, which rejects a tag that is still busy.
#[derive(Debug)]
pub(crate) struct TagFifo {
    successor: [Option<Tag>; SLOT_COUNT],
    head: Option<Tag>,
    tail: Option<Tag>,
}

impl TagFifo {
    pub(crate) const fn new() -> Self {
        Self {
            successor: [None; SLOT_COUNT],
            head: None,
            tail: None,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    pub(crate) fn push_back(&mut self, tag: Tag) {
        match self.tail {
            Some(tail) => self.successor[tail.index()] = Some(tag),
            None => self.head = Some(tag),
        }
        self.tail = Some(tag);
    }

    pub(crate) fn pop_front(&mut self) -> Option<Tag> {
        let head = self.head?;
        self.head = self.successor[head.index()].take();
        if self.head.is_none() {
            self.tail = None;
        }
        Some(head)
    }
}

#[cfg(test)]
mod tests {
    use super::{Tag, TagFifo};

    fn tag(raw: i32) -> Tag {
        Tag::from_raw(raw).expect("test tags are in range")
    }

    #[test]
    fn pops_in_push_order_and_refills_after_draining() {
        let mut fifo = TagFifo::new();
        assert!(fifo.is_empty());
        for raw in [5, 63, 0] {
            fifo.push_back(tag(raw));
        }
        assert!(!fifo.is_empty());
        assert_eq!(fifo.pop_front(), Some(tag(5)));
        fifo.push_back(tag(5));
        assert_eq!(fifo.pop_front(), Some(tag(63)));
        assert_eq!(fifo.pop_front(), Some(tag(0)));
        assert_eq!(fifo.pop_front(), Some(tag(5)));
        assert_eq!(fifo.pop_front(), None);
        assert!(fifo.is_empty());
        fifo.push_back(tag(1));
        fifo.push_back(tag(2));
        assert_eq!(fifo.pop_front(), Some(tag(1)));
        assert_eq!(fifo.pop_front(), Some(tag(2)));
        assert_eq!(fifo.pop_front(), None);
    }
}
