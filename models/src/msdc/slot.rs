// SPDX-License-Identifier: GPL-2.0
//! The card slot: the command and data interface through which the MSDC model drives an
//! attached eMMC or SD card model.

use super::super::emmc::command::TASK_ARG;
use super::super::emmc::{Card, CardWork, Command, DataError, NoResponse, QueuedTask, Response};
use super::super::latency::{Latency, ResponseLength, TaskTimer};
use super::super::sd::SdCard;

/// A card on the MSDC bus: the command and data interface both card models offer.
pub trait CardSlot {
    /// Sends a command; `Err` means no response (the host sees a command timeout).
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse>;
    /// Data phase, card to host.
    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError>;
    /// Data phase, host to card.
    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError>;
    /// The data bus width the card expects, if the card model tracks it.
    fn bus_width(&self) -> Option<u8> {
        None
    }
    /// The fastest bus clock the card allows in its current state and mode, if the card
    /// model tracks it.
    fn max_clock_hz(&self) -> Option<u32> {
        None
    }
    /// The busy work the last command started (for the latency model); reading it clears
    /// it. Card models that do not report work answer [`CardWork::None`].
    fn take_work(&mut self) -> CardWork {
        CardWork::None
    }
    /// The levels the card drives on DAT3..DAT0 (bit n = DATn high) when no data phase is
    /// running: all high (pulled up) unless the card holds lines low, as an SD card does
    /// between CMD11 and the end of its voltage switch, or an SDIO card signalling its
    /// interrupt on DAT1.
    fn data_lines(&self) -> u8 {
        0xF
    }
    /// The level the card drives on CMD outside a command (high unless it holds it low,
    /// as during an SD voltage switch).
    fn cmd_line(&self) -> bool {
        true
    }
    /// The host started (`true`) or stopped (`false`) the card clock.
    fn clock_running(&mut self, _running: bool) {}
    /// The host pulsed the card's hardware reset line (eMMC RST_n).
    fn hardware_reset(&mut self) {}
    /// The card signals an SDIO interrupt (DAT1 low in the interrupt period).
    fn sdio_interrupt(&self) -> bool {
        false
    }
}

/// Implements [`CardSlot`] for card models whose inherent methods of the same names offer
/// the slot's interface, so that a slot forwards each of them (`take_work` too, or the busy
/// time of power-up, switch, flush and erase would not be charged; the line levels, the
/// clock and RST_n too, or the SD voltage switch and the eMMC hardware reset would not be
/// seen).
macro_rules! card_slot {
    ($($card:ident),+) => {$(
        impl CardSlot for $card<'_> {
            fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
                $card::command(self, cmd)
            }

            fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
                $card::read_data(self, buf)
            }

            fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
                $card::write_data(self, data)
            }

            fn bus_width(&self) -> Option<u8> {
                Some($card::bus_width(self))
            }

            fn max_clock_hz(&self) -> Option<u32> {
                Some($card::max_clock_hz(self))
            }

            fn take_work(&mut self) -> CardWork {
                $card::take_work(self)
            }

            fn data_lines(&self) -> u8 {
                $card::data_lines(self)
            }

            fn cmd_line(&self) -> bool {
                $card::cmd_line(self)
            }

            fn clock_running(&mut self, running: bool) {
                $card::clock_running(self, running);
            }

            fn hardware_reset(&mut self) {
                $card::hardware_reset(self);
            }

            // Neither card is an SDIO card: `sdio_interrupt` keeps its default.
        }
    )+};
}

card_slot!(Card, SdCard);

/// A removable card's socket: the card while it is in, an empty socket while it is out.
/// An empty socket answers no command (the host sees a command time-out), moves no data
/// (a data phase times out), and leaves CMD and DAT pulled up; its clock and reset lines
/// reach nothing. A card taken out loses its supply: [`Socket::insert`] gives it back in
/// its power-on state (the owner power-cycles it), with what it stores kept.
#[derive(Debug)]
pub struct Socket<C> {
    card: C,
    inserted: bool,
}

impl<C: CardSlot> Socket<C> {
    /// A socket with `card` in it.
    pub const fn new(card: C) -> Self {
        Self {
            card,
            inserted: true,
        }
    }

    /// Whether the card is in.
    pub const fn is_inserted(&self) -> bool {
        self.inserted
    }

    /// Takes the card out.
    pub fn remove(&mut self) {
        self.inserted = false;
    }

    /// Puts the card back, after `power_cycle` brought it to its power-on state (a card
    /// that is in already stays as it is).
    pub fn insert(&mut self, power_cycle: impl FnOnce(&mut C)) {
        if !self.inserted {
            power_cycle(&mut self.card);
            self.inserted = true;
        }
    }

    /// The card, in or out.
    pub fn card(&self) -> &C {
        &self.card
    }

    /// The card, in or out, mutably.
    pub fn card_mut(&mut self) -> &mut C {
        &mut self.card
    }
}

impl<C: CardSlot> CardSlot for Socket<C> {
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        if self.inserted {
            self.card.command(cmd)
        } else {
            Err(NoResponse)
        }
    }

    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        if self.inserted {
            self.card.read_data(buf)
        } else {
            Err(DataError::NoTransfer)
        }
    }

    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        if self.inserted {
            self.card.write_data(data)
        } else {
            Err(DataError::NoTransfer)
        }
    }

    fn bus_width(&self) -> Option<u8> {
        self.inserted.then(|| self.card.bus_width()).flatten()
    }

    fn max_clock_hz(&self) -> Option<u32> {
        self.inserted.then(|| self.card.max_clock_hz()).flatten()
    }

    fn take_work(&mut self) -> CardWork {
        if self.inserted {
            self.card.take_work()
        } else {
            CardWork::None
        }
    }

    fn data_lines(&self) -> u8 {
        if self.inserted {
            self.card.data_lines()
        } else {
            0xF
        }
    }

    fn cmd_line(&self) -> bool {
        !self.inserted || self.card.cmd_line()
    }

    fn clock_running(&mut self, running: bool) {
        if self.inserted {
            self.card.clock_running(running);
        }
    }

    fn hardware_reset(&mut self) {
        if self.inserted {
            self.card.hardware_reset();
        }
    }

    fn sdio_interrupt(&self) -> bool {
        self.inserted && self.card.sdio_interrupt()
    }
}

/// What work on the bus a [`Metered`] slot saw: the exchanges the CQHCI block made with the
/// card, for the MSDC model to charge at its bus clock and width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct BusWork {
    /// Commands the card answered (every command the CQHCI block sends has a 48-bit
    /// response).
    pub(super) answered: u64,
    /// Commands the card did not answer.
    pub(super) missing: u64,
    /// Bytes read from the card.
    pub(super) read_bytes: u64,
    /// Bytes written to the card.
    pub(super) written_bytes: u64,
    /// The card's busy work (switch, flush, erase from a direct command), one at most per
    /// command, collected as it is reported.
    pub(super) work: [CardWork; 4],
    /// Access time a timed queue ([`Latency::queue_units`] ≥ 1) still had to wait for when
    /// CMD46 started a task that was not ready yet, in ns.
    pub(super) access_wait_ns: u64,
}

/// The bus as `MSDC_CFG` and `SDC_CFG` program it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct BusSetting {
    /// Bus clock, Hz.
    pub(super) hz: u32,
    /// Data lines.
    pub(super) width: u8,
    /// Double data rate.
    pub(super) ddr: bool,
}

/// Bytes per block of the CQHCI block's data (JESD84-B51 queued tasks count 512-byte
/// blocks).
const BLOCK_LEN: u32 = 512;

impl BusWork {
    /// What the commands seen so far took on the bus at `bus`.
    fn command_ns(&self, l: &Latency, bus: BusSetting) -> u64 {
        l.command_ns(ResponseLength::Short, bus.hz)
            .saturating_mul(self.answered)
            .saturating_add(
                l.command_ns(ResponseLength::Missing, bus.hz)
                    .saturating_mul(self.missing),
            )
    }

    /// What everything seen took, at `bus` with the card timing `l`: the commands, the data
    /// (each task's read data as one access in the untimed queue; in the timed one the
    /// access is the [`TaskTimer`]'s, with what CMD46 had to wait for, and a write's final
    /// busy is programming on a unit), and the card's busy work is left to the caller.
    pub(super) fn bus_ns(&self, l: &Latency, bus: BusSetting) -> u64 {
        let blocks = |bytes: u64| bytes.div_ceil(u64::from(BLOCK_LEN));
        let (r, w) = (blocks(self.read_bytes), blocks(self.written_bytes));
        let (BusSetting { hz, width, ddr }, timed) = (bus, l.queue_units != 0);
        let data = if timed {
            let read = if r == 0 {
                0
            } else {
                l.read_data_ns(BLOCK_LEN, r, width, ddr, hz)
            };
            read.saturating_add(l.write_data_ns(BLOCK_LEN, w, width, ddr, hz))
                .saturating_add(self.access_wait_ns)
        } else {
            // The queued write's busy is charged here whether or not the legacy path shows
            // it on DAT0 (`Latency::busy_on_dat0`): the block keeps the task until then.
            let write = if w == 0 {
                0
            } else {
                l.write_ns(BLOCK_LEN, w, width, ddr, hz)
                    .saturating_add(l.dat0_busy_ns())
            };
            l.read_ns(BLOCK_LEN, r, width, ddr, hz)
                .saturating_add(write)
        };
        self.command_ns(l, bus).saturating_add(data)
    }
}

/// The queue timing a [`Metered`] slot keeps up to date: when queued tasks become ready
/// on the MSDC model's clock.
pub(super) struct QueueClock<'t> {
    /// The tasks and units.
    pub(super) timer: &'t mut TaskTimer,
    /// The card's timing.
    pub(super) latency: Latency,
    /// The bus.
    pub(super) bus: BusSetting,
    /// The model clock when the step started, ns.
    pub(super) start: u64,
}

/// R1 error bits (31..19 but CARD_IS_LOCKED, 25) that say the card refused a command.
const R1_ERRORS: u32 = 0xFDF8_0000;

/// A card slot that forwards to a card and counts what passes, so that work another engine
/// (the CQHCI block) does on the MSDC's bus is charged like the legacy engine's.
pub(super) struct Metered<'c, 't, C: ?Sized> {
    card: &'c mut C,
    seen: BusWork,
    clock: Option<QueueClock<'t>>,
}

impl<'c, 't, C: CardSlot + ?Sized> Metered<'c, 't, C> {
    /// Meters `card`; with `clock` (a timed queue) the queue commands also schedule and
    /// gate the tasks' readiness.
    pub(super) fn new(card: &'c mut C, clock: Option<QueueClock<'t>>) -> Self {
        Self {
            card,
            seen: BusWork::default(),
            clock,
        }
    }

    /// What passed.
    pub(super) fn seen(&self) -> BusWork {
        self.seen
    }

    /// The timed queue's view of a command the card answered with `answer`, at the time
    /// the command started (the step's start plus what the step did before it).
    fn time_queue(&mut self, cmd: Command, answer: &mut Response) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        let now = clock.start.saturating_add(
            self.seen
                .command_ns(&clock.latency, clock.bus)
                .saturating_add(self.seen.access_wait_ns),
        );
        let accepted = answer.value() & R1_ERRORS == 0;
        match (cmd.index, answer) {
            (13, Response::QueueStatus(ready)) => *ready = clock.timer.ready_mask(*ready, now),
            (44, Response::R1(_)) if accepted => {
                let (task_id, task) = QueuedTask::from_cmd44(cmd.argument);
                clock.timer.parameters(task_id, task.read, task.blocks);
            }
            (45, Response::R1(_)) if accepted => {
                clock.timer.queued(&clock.latency, cmd.argument, now);
            }
            (46 | 47, Response::R1(_)) if accepted => {
                let task_id = TASK_ARG::from_raw(cmd.argument).task_id() as u8;
                let (wait, write) = clock.timer.execute(task_id, now);
                self.seen.access_wait_ns = self.seen.access_wait_ns.saturating_add(wait);
                if let Some(blocks) = write {
                    let BusSetting { hz, width, ddr } = clock.bus;
                    let data =
                        clock
                            .latency
                            .write_data_ns(BLOCK_LEN, u64::from(blocks), width, ddr, hz);
                    let end = now.saturating_add(wait).saturating_add(data);
                    clock.timer.programming(&clock.latency, end);
                }
            }
            (48, Response::R1b(_)) if accepted => {
                let arg = TASK_ARG::from_raw(cmd.argument);
                match arg.tm_op_code() {
                    1 => clock.timer.clear(),
                    2 => clock.timer.discard(arg.task_id() as u8),
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

impl<C: CardSlot + ?Sized> CardSlot for Metered<'_, '_, C> {
    fn command(&mut self, cmd: Command) -> Result<Response, NoResponse> {
        let mut answer = self.card.command(cmd);
        if let Ok(r) = answer.as_mut() {
            self.time_queue(cmd, r);
        }
        if answer.is_ok() {
            self.seen.answered = self.seen.answered.saturating_add(1);
        } else {
            self.seen.missing = self.seen.missing.saturating_add(1);
        }
        let work = self.card.take_work();
        if work != CardWork::None {
            if let Some(slot) = self.seen.work.iter_mut().find(|w| **w == CardWork::None) {
                *slot = work;
            }
        }
        answer
    }

    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), DataError> {
        self.card.read_data(buf)?;
        self.seen.read_bytes = self.seen.read_bytes.saturating_add(buf.len() as u64);
        Ok(())
    }

    fn write_data(&mut self, data: &[u8]) -> Result<(), DataError> {
        self.card.write_data(data)?;
        self.seen.written_bytes = self.seen.written_bytes.saturating_add(data.len() as u64);
        Ok(())
    }

    fn bus_width(&self) -> Option<u8> {
        self.card.bus_width()
    }

    fn max_clock_hz(&self) -> Option<u32> {
        self.card.max_clock_hz()
    }

    fn data_lines(&self) -> u8 {
        self.card.data_lines()
    }

    fn cmd_line(&self) -> bool {
        self.card.cmd_line()
    }

    fn clock_running(&mut self, running: bool) {
        self.card.clock_running(running);
    }

    fn hardware_reset(&mut self) {
        self.card.hardware_reset();
    }

    fn sdio_interrupt(&self) -> bool {
        self.card.sdio_interrupt()
    }

    // The work was taken with each command and is in `seen`: nothing is left to report.
}
