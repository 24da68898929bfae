// SPDX-License-Identifier: GPL-2.0

//! Measures the queue's own cost of one submit → dispatch → complete cycle, with 1, 2, 5
//! and 64 requests queued at steady state.
//!
//! Each cycle completes the request the host owns, which dispatches the next one, and
//! submits a new request under the freed tag, so the backlog stays constant. Prints
//! nanoseconds per cycle; asserts nothing about time.

use std::hint::black_box;
use std::time::Instant;

use hsq::{DataDirection, Dispatch, Hsq, RequestShape, SLOT_COUNT};

const CYCLES: u64 = 2_000_000;
const ROUNDS: usize = 5;
const BACKLOGS: [usize; 4] = [1, 2, 5, 64];

/// Half the requests are 4 KiB writes, so the depth policy sees both answers.
fn shape_of(request: u64) -> RequestShape {
    let direction = if request % 2 == 0 {
        DataDirection::Write
    } else {
        DataDirection::Read
    };
    RequestShape::with_data(direction, 512, 8)
}

fn tag_of(request: u64) -> i32 {
    // `SLOT_COUNT` and the remainder are below 64: both conversions are exact.
    let slots = u64::try_from(SLOT_COUNT).unwrap_or(64);
    i32::try_from(request % slots).unwrap_or(0)
}

fn submit(queue: &mut Hsq<u64>, request: u64) -> Option<Dispatch<u64>> {
    match queue.request(tag_of(request), request, shape_of(request)) {
        Ok(actions) => actions.dispatch,
        Err(error) => panic!("request {request} refused: {error:?}"),
    }
}

/// Runs `CYCLES` cycles with `backlog` requests held by the queue; returns ns per cycle.
fn measure(backlog: usize) -> u64 {
    let mut queue = Hsq::<u64>::new();
    if queue.enable().is_err() {
        panic!("a new queue enables");
    }
    let mut next_request = 0_u64;
    let mut with_host = None;
    for _ in 0..backlog {
        if let Some(dispatch) = submit(&mut queue, next_request) {
            with_host = Some(dispatch.request());
            dispatch.accepted();
        }
        next_request += 1;
    }
    let Some(mut with_host) = with_host else {
        panic!("the first request dispatches");
    };

    let start = Instant::now();
    for _ in 0..CYCLES {
        let finished = match queue.finalize_request(black_box(&with_host)) {
            Ok(finished) => finished,
            Err(error) => panic!("completion refused: {error:?}"),
        };
        let actions = match queue.request_done(finished) {
            Ok(actions) => actions,
            Err(error) => panic!("release refused: {error:?}"),
        };
        // The freed tag takes a new request before or after the dispatch, depending on
        // whether anything else was queued.
        let dispatch = match actions.dispatch {
            Some(dispatch) => {
                let _ = submit(&mut queue, next_request);
                dispatch
            }
            None => match submit(&mut queue, next_request) {
                Some(dispatch) => dispatch,
                None => panic!("an idle host takes the new request"),
            },
        };
        next_request += 1;
        with_host = black_box(dispatch.request());
        black_box(dispatch.depth());
        dispatch.accepted();
    }
    let elapsed = start.elapsed().as_nanos();
    u64::try_from(elapsed / u128::from(CYCLES)).unwrap_or(u64::MAX)
}

fn main() {
    println!(
        "hsq: ns per submit -> dispatch -> complete cycle ({CYCLES} cycles, best of {ROUNDS})"
    );
    for backlog in BACKLOGS {
        let best = (0..ROUNDS).map(|_| measure(backlog)).min().unwrap_or(0);
        println!("  {backlog:>2} queued: {best} ns");
    }
}
