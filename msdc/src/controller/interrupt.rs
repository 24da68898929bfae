// SPDX-License-Identifier: GPL-2.0

//! Interrupt decode for the request in flight: the `MSDC_INT` events its phase enabled, and
//! how each batch moves the request on to its next phase or to its end.

use super::super::errors::{auto_command_outcome, command_outcome};
use super::super::regs::{InterruptSet, MsdcBase};
use super::issue::{auto_command_result, read_response};
use super::request::{InFlight, Phase, Step};
use super::{Controller, Progress};
use crate::registers::Io;

/// Event batches one [`Controller::handle_interrupt`] call handles at most: one per phase
/// (set-block-count or auto-CMD23, command, data, stop).
pub const MAX_EVENT_BATCHES: usize = 4;

impl<R> Controller<R> {
    /// Handles the request events of `MSDC_INT` that are enabled in `MSDC_INTEN`: reads the
    /// responses, moves to the next phase, and reports the end of the request.
    ///
    /// Acknowledges only the events of the phase in flight; card-detect, SDIO and command
    /// queue events are left alone, and so is everything while no request is in flight.
    /// Events of a phase already finished are not enabled any more, so they are ignored
    /// (and cleared before the next command). Events of the next phase that are already
    /// latched are handled in the same call, up to [`MAX_EVENT_BATCHES`] batches.
    ///
    /// [`Progress::Pending`], touching nothing, while suspended.
    pub fn handle_interrupt(&mut self, r: &impl Io<MsdcBase>) -> Progress<R> {
        if self.is_suspended() {
            return Progress::Pending;
        }
        for _ in 0..MAX_EVENT_BATCHES {
            let Some((flight, token)) = self.request.take() else {
                return Progress::Pending;
            };
            if flight.awaits.is_some() {
                // Its interrupts are masked; `retry_stop` moves it on.
                self.request = Some((flight, token));
                return Progress::Pending;
            }
            let enabled = InterruptSet::pending_enabled(r.read(), r.read());
            let events = enabled & flight.phase.interrupts();
            if events.is_empty() {
                self.request = Some((flight, token));
                return Progress::Pending;
            }
            r.write(events.as_acknowledge());
            self.activity.request_events = self.activity.request_events.wrapping_add(1);
            match self.advance(r, flight, events) {
                Step::Continue(flight) => self.request = Some((flight, token)),
                Step::Finished(result) => return Progress::Done(token, result),
            }
        }
        Progress::Pending
    }

    /// Moves the request on with `events`, the acknowledged events of its phase.
    fn advance(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let phase = flight.phase;
        if phase == Phase::Data {
            return self.on_data(r, flight, events);
        }
        if flight.awaits_auto_sbc() {
            if let Some(outcome) = auto_command_outcome(events) {
                flight.result.sbc = Some(auto_command_result(r, outcome));
                if outcome.is_err() {
                    // The controller does not send the command after a failed CMD23.
                    self.end_with_error(r);
                    return Step::Finished(flight.result);
                }
            }
        }
        let Some(command) = flight.command_of(phase) else {
            return Step::Finished(flight.result);
        };
        let Some(outcome) = command_outcome(events, command.response) else {
            return Step::Continue(flight);
        };
        if flight.awaits_auto_sbc() {
            // The card took the command, so it took the CMD23 before it.
            flight.result.sbc = Some(auto_command_result(r, Ok(())));
        }
        flight.record(phase, read_response(r, command.response, outcome));
        if outcome.is_err() {
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        match (phase, flight.chain) {
            (Phase::SetBlockCount, _) => self.issue(r, flight, Phase::Command),
            (Phase::Command, Some(chain)) => {
                self.start_dma(r, chain);
                flight.phase = Phase::Data;
                Step::Continue(flight)
            }
            // A command without data, or the stop command: the request is done.
            _ => {
                self.enable_phase_interrupts(r, None);
                Step::Finished(flight.result)
            }
        }
    }

    /// Writes `MSDC_INTEN`: the interrupts of `phase` plus card detect and SDIO if enabled.
    pub(super) fn enable_phase_interrupts(&self, r: &impl Io<MsdcBase>, phase: Option<Phase>) {
        let phase_interrupts = phase.map_or(InterruptSet::empty(), Phase::interrupts);
        r.write((phase_interrupts | self.standing_interrupts).as_enable());
    }
}
