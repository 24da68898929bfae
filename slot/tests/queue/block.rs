// SPDX-License-Identifier: GPL-2.0

//! The block layer of the harnesses: the requests to run, their buffers and the data they
//! must see, and the ledger that proves every request was completed exactly once.
//!
//! Each request ("job") reads or writes its own region of the card, so the data any read
//! must return is known whatever order the queue runs them in: what the card held at the
//! start, or what a write that ended before the read was submitted left there. A write's
//! data is recognisable by job; a read's buffer is poisoned before each attempt.
//!
//! Every attempt of a job (the first issue and each retry) must be completed by the host
//! exactly once, and every job ended exactly once; [`BlockLayer::assert_all_ended`] checks
//! that nothing was lost, and the card's storage against what the writes must have left.

use std::collections::VecDeque;

use mmc_request::{Direction, ErrorKind};
use models::msdc::CardSlot;

use crate::board::{buffer_at, Board, BUFFERS, BUFFER_LEN};

/// Sectors of card storage each job owns.
pub(crate) const REGION_SECTORS: u32 = (BUFFER_LEN / 512) as u32;
/// A read buffer before the data comes.
const POISON: u8 = 0xA5;

/// What a job asks of the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Work {
    /// Moves `blocks` 512-byte blocks at `lba`.
    Data {
        direction: Direction,
        lba: u32,
        blocks: u32,
    },
    /// A cache flush (a direct command on CQHCI).
    Flush,
}

impl Work {
    /// A read or write of `blocks` blocks in job `job`'s own region.
    pub(crate) fn in_region(direction: Direction, job: usize, blocks: u32) -> Self {
        assert!(blocks <= REGION_SECTORS);
        Self::Data {
            direction,
            lba: job as u32 * REGION_SECTORS,
            blocks,
        }
    }

    /// Bytes the job moves.
    pub(crate) fn bytes(&self) -> u32 {
        match *self {
            Self::Data { blocks, .. } => blocks * 512,
            Self::Flush => 0,
        }
    }

    /// Whether the job is a write of exactly 4 KiB, which deepens the software queue.
    pub(crate) fn is_four_kib_write(&self) -> bool {
        matches!(
            self,
            Self::Data {
                direction: Direction::Write,
                blocks: 8,
                ..
            }
        )
    }
}

/// One issue of a job to the host: the first, or a retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attempt {
    pub(crate) job: usize,
    /// 1 for the first issue.
    pub(crate) number: u32,
    /// The block-layer tag it was issued under.
    pub(crate) tag: u8,
}

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Ok,
    Failed(ErrorKind),
}

struct Job {
    work: Work,
    /// Attempts issued so far.
    attempts: u32,
    /// The attempt the host holds, if any.
    in_flight: Option<u32>,
    /// Completions of attempts by the host.
    completions: u32,
    /// Retries the completion policy has granted (`mqrq->retries`).
    retries: u32,
    /// Times the job was ended (must become exactly one).
    ended: u32,
    ending: Option<Ending>,
    /// Each attempt's error as the host completed it.
    errors: Vec<Option<ErrorKind>>,
}

/// The block layer: jobs waiting to be issued, the ones in flight by tag, and what the card
/// must hold.
pub(crate) struct BlockLayer {
    jobs: Vec<Job>,
    pending: VecDeque<usize>,
    tags: [Option<usize>; BUFFERS],
    in_flight: usize,
    /// The most jobs in flight at once.
    pub(crate) max_in_flight: usize,
    /// The card's storage as the jobs that ended must have left it.
    expected: Vec<u8>,
    /// Retries a failed job gets (`MMC_CQE_RETRIES` or `MMC_MAX_RETRIES`).
    retry_limit: u32,
}

impl BlockLayer {
    /// A block layer for a card holding `storage`, granting `retry_limit` retries.
    pub(crate) fn new(storage: &[u8], retry_limit: u32) -> Self {
        Self {
            jobs: Vec::new(),
            pending: VecDeque::new(),
            tags: [None; BUFFERS],
            in_flight: 0,
            max_in_flight: 0,
            expected: storage.to_vec(),
            retry_limit,
        }
    }

    /// Queues `works` for issue, in order; their job numbers.
    pub(crate) fn add(&mut self, works: impl IntoIterator<Item = Work>) -> std::ops::Range<usize> {
        let first = self.jobs.len();
        for work in works {
            if let Work::Data { lba, blocks, .. } = work {
                assert!((lba + blocks) as usize * 512 <= self.expected.len());
            }
            self.pending.push_back(self.jobs.len());
            self.jobs.push(Job {
                work,
                attempts: 0,
                in_flight: None,
                completions: 0,
                retries: 0,
                ended: 0,
                ending: None,
                errors: Vec::new(),
            });
        }
        first..self.jobs.len()
    }

    /// Jobs added so far: the number the next one gets.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs.len()
    }

    /// The next job to issue.
    pub(crate) fn next(&self) -> Option<usize> {
        self.pending.front().copied()
    }

    pub(crate) fn work(&self, job: usize) -> Work {
        self.jobs[job].work
    }

    /// Attempts issued whose completion the block layer has not processed yet
    /// (`mq->in_flight`).
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The lowest free tag in `tags`.
    pub(crate) fn free_tag(&self, tags: std::ops::Range<u8>) -> Option<u8> {
        tags.into_iter()
            .find(|&t| self.tags[usize::from(t)].is_none())
    }

    /// Issues the next job under `tag`: its buffer gets the data to write, or poison to be
    /// overwritten by the read.
    pub(crate) fn start<C: CardSlot>(&mut self, board: &Board<C>, tag: u8) -> Attempt {
        let job = self.pending.pop_front().expect("a job to start");
        let slot = &mut self.tags[usize::from(tag)];
        assert_eq!(*slot, None, "tag {tag} in use");
        *slot = Some(job);
        let state = &mut self.jobs[job];
        assert_eq!(state.in_flight, None, "job {job} issued twice");
        state.attempts += 1;
        state.in_flight = Some(state.attempts);
        self.in_flight += 1;
        self.max_in_flight = self.max_in_flight.max(self.in_flight);
        let at = buffer_at(tag);
        let mut ram = board.ram();
        match state.work {
            Work::Data {
                direction: Direction::Write,
                blocks,
                ..
            } => ram[at..at + blocks as usize * 512].copy_from_slice(&written(job, blocks)),
            Work::Data { .. } => ram[at..at + BUFFER_LEN].fill(POISON),
            Work::Flush => {}
        }
        Attempt {
            job,
            number: state.attempts,
            tag,
        }
    }

    /// The host completed `attempt` (`mmc_request_done` / `mmc_cqe_request_done`) with
    /// `error`: counted, and refused if the host does not hold it.
    pub(crate) fn host_completed(&mut self, attempt: &Attempt, error: Option<ErrorKind>) {
        let job = &mut self.jobs[attempt.job];
        assert_eq!(
            job.in_flight,
            Some(attempt.number),
            "job {} attempt {} completed twice, or never issued",
            attempt.job,
            attempt.number
        );
        assert_eq!(self.tags[usize::from(attempt.tag)], Some(attempt.job));
        job.in_flight = None;
        job.completions += 1;
        job.errors.push(error);
    }

    /// Ends the job of a completed `attempt` successfully: a read's buffer must hold what
    /// the card holds, a write's data is now the card's.
    pub(crate) fn end_ok<C: CardSlot>(&mut self, board: &Board<C>, attempt: &Attempt) {
        if let Work::Data {
            direction,
            lba,
            blocks,
        } = self.jobs[attempt.job].work
        {
            let region = lba as usize * 512..(lba + blocks) as usize * 512;
            match direction {
                Direction::Read => {
                    let got = board.bytes(buffer_at(attempt.tag), region.len());
                    assert!(
                        got == self.expected[region],
                        "job {} (read of {blocks} blocks at {lba}) returned the wrong data",
                        attempt.job
                    );
                }
                Direction::Write => {
                    self.expected[region].copy_from_slice(&written(attempt.job, blocks));
                }
            }
        }
        self.end(attempt, Ending::Ok);
    }

    /// Ends the job of `attempt` for good.
    fn end(&mut self, attempt: &Attempt, ending: Ending) {
        self.release(attempt);
        let job = &mut self.jobs[attempt.job];
        job.ended += 1;
        assert_eq!(job.ended, 1, "job {} ended twice", attempt.job);
        job.ending = Some(ending);
    }

    /// Puts the job of `attempt` back at the head of the queue (`blk_mq_requeue_request`).
    pub(crate) fn requeue(&mut self, attempt: &Attempt) {
        self.release(attempt);
        self.pending.push_front(attempt.job);
    }

    /// The completion policy for a failed attempt: requeued while retries are left, else
    /// ended with `error`.
    pub(crate) fn retry_or_fail(&mut self, attempt: &Attempt, error: ErrorKind) {
        let job = &mut self.jobs[attempt.job];
        job.retries += 1;
        if job.retries <= self.retry_limit {
            self.requeue(attempt);
        } else {
            self.end(attempt, Ending::Failed(error));
        }
    }

    fn release(&mut self, attempt: &Attempt) {
        assert_eq!(
            self.jobs[attempt.job].in_flight, None,
            "ended while in flight"
        );
        let slot = &mut self.tags[usize::from(attempt.tag)];
        assert_eq!(*slot, Some(attempt.job));
        *slot = None;
        self.in_flight -= 1;
    }

    /// Reads of everything the jobs in `jobs` wrote.
    pub(crate) fn read_back(&self, jobs: std::ops::Range<usize>) -> Vec<Work> {
        self.jobs[jobs]
            .iter()
            .filter_map(|job| match job.work {
                Work::Data {
                    direction: Direction::Write,
                    lba,
                    blocks,
                } => Some(Work::Data {
                    direction: Direction::Read,
                    lba,
                    blocks,
                }),
                _ => None,
            })
            .collect()
    }

    /// Whether every job has ended.
    pub(crate) fn all_ended(&self) -> bool {
        self.pending.is_empty() && self.in_flight == 0
    }

    /// Each attempt's error, as the host completed it.
    pub(crate) fn errors(&self, job: usize) -> &[Option<ErrorKind>] {
        &self.jobs[job].errors
    }

    /// Asserts that every job ended once, successfully, every attempt was completed once,
    /// no tag is held, and the card holds exactly what the writes left.
    pub(crate) fn assert_all_ended(&self, storage: &[u8]) {
        assert!(
            self.pending.is_empty(),
            "jobs never issued: {:?}",
            self.pending
        );
        assert_eq!(self.in_flight, 0);
        assert!(self.tags.iter().all(Option::is_none), "tags still held");
        for (n, job) in self.jobs.iter().enumerate() {
            assert_eq!(job.ended, 1, "job {n} never ended");
            assert_eq!(job.ending, Some(Ending::Ok), "job {n}");
            assert_eq!(job.in_flight, None, "job {n}");
            assert_eq!(job.completions, job.attempts, "job {n}: attempts lost");
        }
        assert!(
            storage == self.expected,
            "the card does not hold what was written"
        );
    }
}

/// The data job `job` writes: recognisable by job and by position.
fn written(job: usize, blocks: u32) -> Vec<u8> {
    (0..blocks as usize * 512)
        .map(|i| (i * 7 + i / 512 + job * 131 + 1) as u8)
        .collect()
}

/// A card's storage of `sectors` sectors with a pattern no job writes.
pub(crate) fn initial_storage(sectors: u32) -> Vec<u8> {
    (0..sectors as usize * 512)
        .map(|i| (i * 13 + i / 512 * 5) as u8 ^ 0x3C)
        .collect()
}
