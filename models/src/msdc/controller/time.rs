// SPDX-License-Identifier: GPL-2.0
//! Time accounting: what the work of each step would take on hardware, charged to the
//! elapsed-time counter and the model clock and split into bus, card and wait time, and the
//! time the caller reports passing outside the model.

use super::super::super::{
    emmc::CardWork,
    latency::{Latency, ResponseLength},
};
use super::{dma::DataPhase, MsdcModel};

/// Where the time a model charged went ([`MsdcModel::time_split`]), in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeSplit {
    /// Command, response and data frames on the bus at the programmed clock and width.
    pub bus_ns: u64,
    /// The card's own work: read access, programming and busy, and a read's data beyond
    /// the bus time when the card is slower than the bus.
    pub card_ns: u64,
    /// The CQHCI block waiting for a queued task to become ready (its status polls and
    /// idle timer).
    pub wait_ns: u64,
}

impl TimeSplit {
    /// Nothing charged.
    pub const ZERO: Self = Self {
        bus_ns: 0,
        card_ns: 0,
        wait_ns: 0,
    };
}

impl MsdcModel {
    /// The simulated time, in ns, that the work [`MsdcModel::step`] did since the last call
    /// would have taken on hardware (bus frames at the programmed clock and width, card
    /// access, programming, erase, switch and power-up times); the counter restarts at 0.
    pub fn take_elapsed_ns(&mut self) -> u64 {
        core::mem::take(&mut self.elapsed_ns)
    }

    fn charge(&mut self, ns: u64) {
        self.elapsed_ns = self.elapsed_ns.saturating_add(ns);
        self.clock_ns = self.clock_ns.saturating_add(ns);
    }

    /// Charges `bus` ns of frames on the bus, `card` ns of the card's own work (access,
    /// programming, busy) and `wait` ns of the CQHCI block waiting for a queued task.
    pub(super) fn charge_split(&mut self, bus: u64, card: u64, wait: u64) {
        self.split.bus_ns = self.split.bus_ns.saturating_add(bus);
        self.split.card_ns = self.split.card_ns.saturating_add(card);
        self.split.wait_ns = self.split.wait_ns.saturating_add(wait);
        self.charge(bus.saturating_add(card).saturating_add(wait));
    }

    /// Where the time charged since the model was built went: bus frames, the card's own
    /// work, the CQHCI block's waits for queued tasks (their sum is every charge).
    pub fn time_split(&self) -> TimeSplit {
        self.split
    }

    /// Time passed outside the model (the guest's time between two runs of the simulated
    /// board, or a host test's wait): the model clock advances by `ns`, so the card's
    /// queued tasks get on with their access meanwhile, but nothing is charged to
    /// [`MsdcModel::take_elapsed_ns`].
    pub fn elapse(&mut self, ns: u64) {
        self.clock_ns = self.clock_ns.saturating_add(ns);
    }

    /// Time outside the model as an absolute reading: the model clock moves on to `ns` if
    /// that is later (it never goes back). A board that keeps the guest waiting for the
    /// charged time can pass the guest's time since the model was built, so that the time
    /// it already waited for a charge is not counted twice.
    pub fn advance_to(&mut self, ns: u64) {
        self.clock_ns = self.clock_ns.max(ns);
    }

    /// The model clock, ns: everything charged plus everything [`MsdcModel::elapse`]d
    /// since the model was built (power cycles do not stop it).
    pub fn now_ns(&self) -> u64 {
        self.clock_ns
    }

    /// Charges one command exchange at the current bus clock.
    pub(super) fn charge_command(&mut self, response: ResponseLength) {
        let ns = self
            .config
            .latency
            .command_ns(response, self.bus_clock_hz());
        self.charge_split(ns, 0, 0);
    }

    /// Charges the busy work the card reported for its last command.
    pub(super) fn charge_work(&mut self, work: CardWork) {
        let l = &self.config.latency;
        let ns = match work {
            CardWork::None => 0,
            CardWork::PowerUp => l.power_up_ns,
            CardWork::Switch => l.switch_ns,
            CardWork::Flush => l.flush_ns,
            CardWork::Erase { blocks } => l.erase_time_ns(blocks),
        };
        self.charge_split(0, ns, 0);
    }

    /// Charges the data phase `d` for the `done` bytes that moved (whole blocks, and a
    /// started block counts).
    pub(super) fn charge_data(&mut self, d: &DataPhase, done: u64) {
        if d.block_len == 0 {
            return;
        }
        let blocks = done.div_ceil(u64::from(d.block_len));
        let (hz, width, ddr) = (
            self.bus_clock_hz(),
            self.host_bus_width(),
            self.double_data_rate(),
        );
        let time = |l: &Latency| {
            if d.write {
                l.write_ns(d.block_len, blocks, width, ddr, hz)
            } else {
                l.read_ns(d.block_len, blocks, width, ddr, hz)
            }
        };
        let ns = time(&self.config.latency);
        let bus = time(&self.config.latency.bus_only()).min(ns);
        self.charge_split(bus, ns - bus, 0);
    }
}
