// SPDX-License-Identifier: GPL-2.0

//! Faults the simulated board injects while the kernel runs, per slot, for the end-to-end
//! run's fault matrix (test kernels only). Written to the slot's debugfs file
//! `/sys/kernel/debug/mtk_sd_rust_sim/<window>/inject` as `<fault> [count [every]]`: the
//! next `count` (default 1) block transfers or tasks the fault applies to get it, spaced
//! by at least `every` (default 1) block transfers that completed without an error (task
//! completions, for the CQHCI block's faults) after the one that took the previous fault;
//! `none` cancels what is left. Three faults take a parameter first: `program_busy <ms>
//! [count [every]]`, a card that programs for `<ms>` ms with DAT0 low after the write's
//! transfer completed (XFER_COMPL), then releases it by itself; `late_irq <ms> [count
//! [every]]`, an interrupt for finished work raised `<ms>` ms late; and `dma_stop_slow
//! <us> [count [every]]`, a DMA stop that takes `<us>` µs to clear. Reading the file gives
//! `<fault> left=<N> injected=<N>` (`injected` counts the faults that reached the
//! hardware: a command or a task took them), and ` busy_ms=<ms>` for `program_busy`,
//! ` late_ms=<ms>` for `late_irq`, ` stop_us=<us>` for `dma_stop_slow`.
//!
//! The controller's own faults (commands the MSDC sends itself, outside the CQHCI block)
//! come from the MSDC model ([`Fault`]), aimed at its block transfers (the reads and
//! writes of the block layer's requests, [`FaultScope::BlockTransfer`]; the MMC core's
//! own status, switch and tuning commands are left alone, so that what a cell's faults
//! hit does not depend on when the core re-tunes): a response CRC error or time-out, a
//! CRC error on a read or write data phase, a data time-out, a DMA descriptor whose
//! checksum fails (the GPD's and a BD's in turn), a card that stays busy after a write
//! until the core resets it, a card that programs a write for a given time. Counting the spacing in
//! transfers that succeeded makes every fault hit a request whose predecessors and own
//! retries the core has finished with: one fault, one recovery. The CQHCI
//! block's come from its model ([`CqhciFault`]), aimed at a task whose doorbell is rung
//! when the fault is armed: an error bit in its CMD44 response (RED, TERRI), no
//! response to CMD46/47, a data CRC error, a descriptor the block rejects (ICCE), and
//! completion bits for a task that was never issued. The board's own: an interrupt for
//! finished work that it never raises (`lost_irq`), or raises late (`late_irq`): the
//! event latches in `MSDC_INT` on time, the line rises a given time later, so that the
//! handler can run after the driver's request watchdog dealt with the request, as the
//! handler of an interrupt taken late (a CPU with interrupts off, another CPU's timeout
//! work) does on a real SoC.
//!
//! Two failure modes met in the field, each the subject of an upstream fix, combine the
//! models' faults: `recovery_crc`, a task's response error whose recovery then gets its
//! CMD48's response with a bad CRC (the MMC core sends it as `MMC_RSP_R1B_NO_CRC`); and
//! `stale_xfer_compl`, the MSDC's transfer-complete of the queue's last data phase left
//! latched when the queue is turned off for the legacy path
//! ([`MsdcModel::inject_stale_transfer_complete`]), counted when a `cqe_off` meets it.
//! Under heavy bus load a DMA stop clears late (`dma_stop_slow`,
//! [`MsdcModel::inject_slow_dma_stop`]): the stop after the data event of a block
//! transfer keeps `MSDC_DMA_CTRL.STOP` set for the plan's time; counted when a stop takes
//! it. Another changes the board rather than a command: `sample_hole`, a bad stretch punched
//! into the sampling windows under the sample points the host tuned
//! ([`SampleWindows::hole_under`]), leaving a short run below it and a wider one above;
//! the windows come back whole when the plan is replaced.

use kernel::{prelude::*, uaccess::UserSliceReader};

use crate::models::{
    cqhci::{regs::CQTDBR, Fault as CqhciFault},
    msdc::{
        controller::{
            Fault, FaultScope, Hole, MsdcModel, SamplePoint, SamplePoints, SampleWindows,
        },
        regs::CQHCI_BASE,
    },
};

/// A fault the board can inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BoardFault {
    /// The MSDC's next command: response CRC error.
    CommandCrc,
    /// The MSDC's next command: no response.
    CommandTimeout,
    /// The MSDC's next read: data CRC error.
    ReadCrc,
    /// The MSDC's next write: the card's CRC status reports an error.
    WriteCrc,
    /// The MSDC's next data phase: the data never comes.
    DataTimeout,
    /// The MSDC's next data phase: a descriptor's checksum fails (DMA_GPDCSERR and
    /// DMA_BDCSERR in turn).
    DescriptorChecksum,
    /// The MSDC's next write: the card then holds DAT0 low, busy, until it is reset.
    BusyStuck,
    /// The MSDC's next write: the card then programs with DAT0 low for the plan's time
    /// ([`FaultPlan::busy_ms`]) after XFER_COMPL, and releases it by itself.
    ProgramBusy,
    /// A queued task's CMD44 response carries an error bit.
    TaskResponseError,
    /// A queued task's CMD46/47 gets no response.
    TaskCommandTimeout,
    /// A queued task's data fails its CRC.
    TaskDataCrc,
    /// A queued task's descriptor is rejected (ICCE).
    DescriptorError,
    /// A completion also reports a task that was never issued.
    SpuriousCompletion,
    /// The next interrupt that signals finished work is never raised (the event stays
    /// latched in `MSDC_INT`): the driver's request watchdog has to find it.
    LostInterrupt,
    /// A queued task's CMD44 response carries an error bit, and the response of the CMD48
    /// that discards the card's queue in the MMC core's recovery fails its CRC (the card
    /// discards it all the same); counted when the CMD48 takes it.
    RecoveryCrc,
    /// The MSDC's transfer-complete of the queue's last data phase latches after the
    /// handler acknowledged `MSDC_INT`, and stays latched until the queue is turned off
    /// for a command of the legacy path; counted when the queue goes off with it latched.
    StaleTransferComplete,
    /// The next interrupt that signals finished work is raised late, after the plan's
    /// time ([`FaultPlan::late_ms`]); the event latches in `MSDC_INT` on time.
    LateInterrupt,
    /// The DMA stop after the next block transfer's data event clears after the plan's
    /// time ([`FaultPlan::stop_us`]), as under heavy bus load; counted when a stop takes it.
    DmaStopSlow,
    /// The sampling windows lose a stretch under the tuned response and read data
    /// sample points, once the slot runs at a tuned timing; counted when punched.
    SampleHole,
}

/// The names the debugfs file takes and shows.
const NAMES: [(BoardFault, &str); 19] = [
    (BoardFault::CommandCrc, "cmd_crc"),
    (BoardFault::CommandTimeout, "cmd_timeout"),
    (BoardFault::ReadCrc, "read_crc"),
    (BoardFault::WriteCrc, "write_crc"),
    (BoardFault::DataTimeout, "data_timeout"),
    (BoardFault::DescriptorChecksum, "descriptor_checksum"),
    (BoardFault::BusyStuck, "busy_stuck"),
    (BoardFault::ProgramBusy, "program_busy"),
    (BoardFault::TaskResponseError, "task_response_error"),
    (BoardFault::TaskCommandTimeout, "task_cmd_timeout"),
    (BoardFault::TaskDataCrc, "task_data_crc"),
    (BoardFault::DescriptorError, "descriptor_error"),
    (BoardFault::SpuriousCompletion, "spurious_completion"),
    (BoardFault::LostInterrupt, "lost_irq"),
    (BoardFault::RecoveryCrc, "recovery_crc"),
    (BoardFault::StaleTransferComplete, "stale_xfer_compl"),
    (BoardFault::SampleHole, "sample_hole"),
    (BoardFault::LateInterrupt, "late_irq"),
    (BoardFault::DmaStopSlow, "dma_stop_slow"),
];

impl BoardFault {
    fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("?", |(_, n)| n)
    }

    fn parse(word: &str) -> Option<Self> {
        NAMES.iter().find(|(_, n)| *n == word).map(|(f, _)| *f)
    }

    /// The MSDC model's fault, for the faults of the controller's own commands; `left` (the
    /// faults of the plan still to arm) picks the descriptor a checksum fault corrupts, the
    /// GPD and a BD in turn; `busy_ms` is a programming busy's time.
    const fn controller_fault(self, left: u32, busy_ms: u32) -> Option<Fault> {
        Some(match self {
            Self::CommandCrc => Fault::ResponseCrc,
            Self::CommandTimeout => Fault::CommandTimeout,
            Self::ReadCrc => Fault::ReadDataCrc,
            Self::WriteCrc => Fault::WriteDataCrc,
            Self::DataTimeout => Fault::DataTimeout,
            Self::DescriptorChecksum if left % 2 == 1 => Fault::GpdChecksum,
            Self::DescriptorChecksum => Fault::BdChecksum,
            Self::BusyStuck => Fault::BusyStuck,
            Self::ProgramBusy => Fault::ProgramBusy(busy_ms as u64 * 1_000_000),
            _ => return None,
        })
    }
}

/// What is left to inject on a slot, and what was.
#[derive(Default)]
pub(super) struct FaultPlan {
    fault: Option<BoardFault>,
    /// Faults still to arm.
    left: u32,
    /// Successful block transfers (task completions, for a CQHCI fault; commands, for a
    /// lost interrupt) between two faults.
    every: u32,
    /// The progress count ([`progress`]) from which the next fault may be armed.
    next_at: u32,
    /// A controller fault armed in the model that no command has taken yet.
    armed: bool,
    /// The next completion interrupt is to be withheld: lost ([`BoardFault::LostInterrupt`])
    /// or raised late ([`BoardFault::LateInterrupt`]).
    lose_next: bool,
    /// Faults that reached the hardware.
    injected: u32,
    /// How long the card programs with DAT0 low after a write, ms
    /// ([`BoardFault::ProgramBusy`]).
    busy_ms: u32,
    /// How late the completion interrupt comes, ms ([`BoardFault::LateInterrupt`]).
    late_ms: u32,
    /// How long a slow DMA stop takes, µs ([`BoardFault::DmaStopSlow`]).
    stop_us: u32,
    /// A slow DMA stop armed in the model that no stop has taken yet.
    stop_armed: bool,
    /// A stale transfer-complete armed in the model that no `cqe_off` has met yet
    /// ([`BoardFault::StaleTransferComplete`]).
    stale_armed: bool,
    /// The hole punched last ([`BoardFault::SampleHole`]), kept for the debugfs file.
    hole: Option<PunchedHole>,
    /// The windows before the first hole, put back when the plan is replaced.
    whole_windows: Option<SampleWindows>,
    /// Where the host sampled the response and the read data at the last run of the
    /// hardware at a tuned timing since the hole ([`BoardFault::SampleHole`]): a host
    /// runtime-suspended since (its clock gated) samples nothing.
    sampled: Option<SamplePoints>,
}

/// What becomes of an interrupt for finished work that a plan withholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Withheld {
    /// Never raised.
    Lost,
    /// Raised this many ms later.
    Late(u32),
}

/// A hole punched into the response and read data windows, on the edges and under the
/// delays the host sampled at.
#[derive(Clone, Copy)]
struct PunchedHole {
    cmd: (bool, Hole),
    data: (bool, Hole),
}

impl FaultPlan {
    /// Arms the next fault in `model` when one is due: called with the slot's state locked,
    /// before every run of the model.
    pub(super) fn arm(&mut self, model: &mut MsdcModel) {
        if self.hole.is_some() {
            if let Some(points) = model.sample_points() {
                self.sampled = Some(points);
            }
        }
        if self.armed && model.pending_fault().is_none() {
            // Taken: the spacing counts from here, in transfers that succeed, so that the
            // next fault cannot hit the retries of the request this one failed.
            self.armed = false;
            self.injected = self.injected.saturating_add(1);
            if let Some(fault) = self.fault {
                self.next_at = progress(fault, model).saturating_add(self.every);
            }
        }
        self.count_stale(model);
        if self.stop_armed && !model.slow_dma_stop_pending() {
            self.stop_armed = false;
            self.injected = self.injected.saturating_add(1);
            if let Some(fault) = self.fault {
                self.next_at = progress(fault, model).saturating_add(self.every);
            }
        }
        let Some(fault) = self.fault else {
            return;
        };
        if self.stale_armed || self.stop_armed {
            return;
        }
        if self.left == 0 || self.armed || self.lose_next || progress(fault, model) < self.next_at {
            return;
        }
        let armed = match fault.controller_fault(self.left, self.busy_ms) {
            Some(f) => {
                model.inject_into(f, FaultScope::BlockTransfer);
                self.armed = true;
                true
            }
            None if matches!(fault, BoardFault::LostInterrupt | BoardFault::LateInterrupt) => {
                self.lose_next = true;
                true
            }
            None if fault == BoardFault::RecoveryCrc => self.arm_recovery_crc(model),
            None if fault == BoardFault::StaleTransferComplete => {
                model.inject_stale_transfer_complete();
                self.stale_armed = true;
                true
            }
            None if fault == BoardFault::SampleHole => self.punch_hole(model),
            None if fault == BoardFault::DmaStopSlow => {
                model.inject_slow_dma_stop(u64::from(self.stop_us) * 1_000);
                self.stop_armed = true;
                true
            }
            None => Self::arm_task_fault(fault, model),
        };
        if armed {
            self.left -= 1;
            self.next_at = progress(fault, model).saturating_add(self.every);
            if !self.armed && !self.lose_next && !self.stale_armed && !self.stop_armed {
                // The CQHCI model takes task faults at once; it fires them when the task
                // gets there.
                self.injected = self.injected.saturating_add(1);
            }
        }
    }

    /// Whether the interrupt about to be raised for finished work is to be withheld: lost,
    /// or raised late; called with the slot's state locked where the board raises it.
    pub(super) fn withhold_interrupt(&mut self) -> Option<Withheld> {
        if !self.lose_next {
            return None;
        }
        self.lose_next = false;
        self.injected = self.injected.saturating_add(1);
        Some(if self.fault == Some(BoardFault::LateInterrupt) {
            Withheld::Late(self.late_ms)
        } else {
            Withheld::Lost
        })
    }

    /// Counts a stale transfer-complete that met a `cqe_off`; the spacing counts from
    /// there.
    fn count_stale(&mut self, model: &mut MsdcModel) {
        if self.stale_armed && model.take_stale_transfer_complete() {
            self.stale_armed = false;
            self.injected = self.injected.saturating_add(1);
            if let Some(fault) = self.fault {
                self.next_at = progress(fault, model).saturating_add(self.every);
            }
        }
    }

    /// Punches [`BoardFault::SampleHole`] under the response and read data sample points,
    /// each into the window of the edge it is sampled on, and across the other edge's
    /// ([`SampleWindows::hole_across`]); false while the slot's timing
    /// leaves the windows out (at most 52 MHz, HS400) or a point has no room for a hole.
    fn punch_hole(&mut self, model: &mut MsdcModel) -> bool {
        let Some(points) = model.sample_points() else {
            return false;
        };
        let mut windows = model.sampling();
        let edge = |p: SamplePoint| usize::from(p.falling);
        let Some((cmd, cmd_hole)) =
            SampleWindows::hole_under(windows.cmd[edge(points.cmd)], points.cmd.delay)
        else {
            return false;
        };
        let Some((data, data_hole)) =
            SampleWindows::hole_under(windows.data[edge(points.data)], points.data.delay)
        else {
            return false;
        };
        self.whole_windows.get_or_insert(windows);
        let other = |p: SamplePoint| usize::from(!p.falling);
        windows.cmd[edge(points.cmd)] = cmd;
        windows.cmd[other(points.cmd)] = SampleWindows::hole_across(windows.cmd[other(points.cmd)]);
        windows.data[edge(points.data)] = data;
        windows.data[other(points.data)] =
            SampleWindows::hole_across(windows.data[other(points.data)]);
        model.set_sampling(windows);
        self.hole = Some(PunchedHole {
            cmd: (points.cmd.falling, cmd_hole),
            data: (points.data.falling, data_hole),
        });
        true
    }

    /// Arms [`BoardFault::RecoveryCrc`]: a response error for the newest task whose
    /// doorbell is rung, which makes the MMC core recover the queue, and a response CRC
    /// error for the CMD48 of that recovery (`mmc_cqe_recovery`, `MMC_RSP_R1B_NO_CRC`),
    /// counted as injected when the CMD48 takes it; false if no task is queued.
    fn arm_recovery_crc(&mut self, model: &mut MsdcModel) -> bool {
        if !Self::arm_task_fault(BoardFault::TaskResponseError, model) {
            return false;
        }
        model.inject_into(Fault::ResponseCrc, FaultScope::Opcode(48));
        self.armed = true;
        true
    }

    /// Aims a CQHCI fault at the newest task whose doorbell is rung (the one least likely
    /// to be past the step the fault hits), or for a spurious completion at a free slot;
    /// false if there is no such task, or no CQHCI block.
    fn arm_task_fault(fault: BoardFault, model: &mut MsdcModel) -> bool {
        // The model's own doorbell register (reads of the CQHCI block have no side effects).
        let doorbell = model.read(CQHCI_BASE + CQTDBR::OFFSET);
        let Some(cqhci) = model.cqhci_mut() else {
            return false;
        };
        if fault == BoardFault::SpuriousCompletion {
            // Bit 31 is the direct command's slot: leave it out.
            let free = !doorbell & 0x7FFF_FFFF;
            if free == 0 {
                return false;
            }
            return cqhci.inject(CqhciFault::SpuriousCompletion {
                mask: free & free.wrapping_neg(),
            });
        }
        let tasks = doorbell & 0x7FFF_FFFF;
        if tasks == 0 {
            return false;
        }
        // 31 - leading zeros < 31: fits a u8.
        let tag = (31 - tasks.leading_zeros()) as u8;
        let task_fault = match fault {
            // CMD44 queues every task, of either direction; a task past it keeps the fault
            // for the next task of its tag.
            BoardFault::TaskResponseError => CqhciFault::ResponseError { tag, command: 44 },
            BoardFault::TaskCommandTimeout => CqhciFault::CommandTimeout { tag },
            BoardFault::TaskDataCrc => CqhciFault::DataCrc { tag },
            _ => CqhciFault::DescriptorError { tag },
        };
        cqhci.inject(task_fault)
    }

    /// Takes a new plan from the debugfs file: `<fault> [count [every]]`, `program_busy
    /// <ms> [count [every]]`, or `none`.
    pub(super) fn set(&mut self, text: &str, model: &mut MsdcModel) -> Result {
        let mut words = text.split_ascii_whitespace();
        let name = words.next().ok_or(EINVAL)?;
        let number = |w: Option<&str>, default: u32| -> Result<u32> {
            w.map_or(Ok(default), |w| w.parse::<u32>().map_err(|_| EINVAL))
        };
        // A controller fault still armed from the last plan goes.
        if self.armed && model.pending_fault().is_some() {
            model.cancel_fault();
        } else if self.armed {
            self.injected = self.injected.saturating_add(1);
        }
        self.armed = false;
        self.lose_next = false;
        // A stale transfer-complete still waiting for a `cqe_off` goes.
        self.count_stale(model);
        if self.stale_armed {
            model.cancel_stale_transfer_complete();
            self.stale_armed = false;
        }
        // A slow DMA stop no stop took goes; one taken counts.
        if self.stop_armed {
            if model.slow_dma_stop_pending() {
                model.cancel_slow_dma_stop();
            } else {
                self.injected = self.injected.saturating_add(1);
            }
            self.stop_armed = false;
        }
        // The windows a hole was punched into come back whole.
        if let Some(windows) = self.whole_windows.take() {
            model.set_sampling(windows);
        }
        if name == "none" {
            // What the last plan injected stays readable until the next one.
            self.fault = None;
            self.left = 0;
            return Ok(());
        }
        let fault = BoardFault::parse(name).ok_or(EINVAL)?;
        // Required for the faults that take a time, and at most: for a programming busy,
        // the MMC core's 10 s wait for a write's busy (`MMC_BLK_TIMEOUT_MS`): longer than
        // that is `busy_stuck`; for a late interrupt, a minute; for a slow DMA stop, half
        // of the 20 ms that the driver's poll (as upstream's) waits for it.
        let limit = match fault {
            BoardFault::ProgramBusy => MAX_PROGRAM_BUSY_MS,
            BoardFault::LateInterrupt => MAX_LATE_MS,
            BoardFault::DmaStopSlow => MAX_STOP_US,
            _ => 0,
        };
        let ms = if limit > 0 {
            let ms = words
                .next()
                .ok_or(EINVAL)?
                .parse::<u32>()
                .map_err(|_| EINVAL)?;
            if ms == 0 || ms > limit {
                return Err(EINVAL);
            }
            ms
        } else {
            0
        };
        let (busy_ms, late_ms, stop_us) = match fault {
            BoardFault::ProgramBusy => (ms, 0, 0),
            BoardFault::DmaStopSlow => (0, 0, ms),
            _ => (0, ms, 0),
        };
        let left = number(words.next(), 1)?;
        let every = number(words.next(), 1)?.max(1);
        if words.next().is_some() {
            return Err(EINVAL);
        }
        *self = Self {
            fault: Some(fault),
            left,
            every,
            next_at: progress(fault, model),
            armed: false,
            lose_next: false,
            injected: 0,
            busy_ms,
            late_ms,
            stop_us,
            stop_armed: false,
            stale_armed: false,
            hole: None,
            whole_windows: None,
            sampled: None,
        };
        Ok(())
    }

    /// What the debugfs file shows; `model` tells whether an armed fault was taken since
    /// the last run.
    pub(super) fn show(
        &self,
        model: &MsdcModel,
        f: &mut core::fmt::Formatter<'_>,
    ) -> core::fmt::Result {
        let taken = u32::from(self.armed && model.pending_fault().is_none())
            + u32::from(self.stale_armed && model.stale_transfer_complete_taken())
            + u32::from(self.stop_armed && !model.slow_dma_stop_pending());
        write!(
            f,
            "{} left={} injected={}",
            self.fault.map_or("none", BoardFault::name),
            self.left,
            self.injected.saturating_add(taken)
        )?;
        if self.fault == Some(BoardFault::ProgramBusy) {
            write!(f, " busy_ms={}", self.busy_ms)?;
        }
        if self.fault == Some(BoardFault::LateInterrupt) {
            write!(f, " late_ms={}", self.late_ms)?;
        }
        if self.fault == Some(BoardFault::DmaStopSlow) {
            write!(f, " stop_us={}", self.stop_us)?;
        }
        if let (Some(BoardFault::SampleHole), Some(hole)) = (self.fault, self.hole) {
            show_hole(f, " cmd_hole=", hole.cmd)?;
            show_hole(f, " data_hole=", hole.data)?;
            // Where the host sampled last: a re-tuning moved it.
            if let Some(p) = self.sampled {
                write!(
                    f,
                    " now={}/{},{}/{}",
                    edge_name(p.cmd.falling),
                    p.cmd.delay,
                    edge_name(p.data.falling),
                    p.data.delay
                )?;
            }
        }
        writeln!(f)
    }
}

/// `<label><edge>/<lo>-<hi>/<lo>-<hi>/<lo>-<hi>`: a hole's edge, the run below it, the
/// stretch and the run above it.
fn show_hole(
    f: &mut core::fmt::Formatter<'_>,
    label: &str,
    (falling, hole): (bool, Hole),
) -> core::fmt::Result {
    write!(
        f,
        "{label}{}/{}-{}/{}-{}/{}-{}",
        edge_name(falling),
        hole.below.0,
        hole.below.1,
        hole.stretch.0,
        hole.stretch.1,
        hole.above.0,
        hole.above.1
    )
}

fn edge_name(falling: bool) -> &'static str {
    if falling {
        "falling"
    } else {
        "rising"
    }
}

/// How far the slot has got, in the unit a plan's spacing counts: the controller's block
/// transfers that succeeded for its own faults, its commands for a lost interrupt, the
/// CQHCI block's task completions for task faults (its commands do not go through the
/// controller's command register).
fn progress(fault: BoardFault, model: &MsdcModel) -> u32 {
    match fault.controller_fault(0, 0) {
        Some(_) => model.block_transfers(),
        None if matches!(fault, BoardFault::LostInterrupt | BoardFault::LateInterrupt) => {
            model.commands()
        }
        None if matches!(fault, BoardFault::SampleHole | BoardFault::DmaStopSlow) => {
            model.block_transfers()
        }
        None => model.cqhci().map_or(0, |c| c.completions()),
    }
}

/// The longest programming busy `program_busy` takes, ms: the MMC core's wait for a write's
/// busy (`MMC_BLK_TIMEOUT_MS`, 10 s in drivers/mmc/core/block.c).
const MAX_PROGRAM_BUSY_MS: u32 = 10_000;

/// The latest `late_irq` raises an interrupt, ms.
const MAX_LATE_MS: u32 = 60_000;

/// The longest `dma_stop_slow` takes, µs.
const MAX_STOP_US: u32 = 10_000;

/// Reads a debugfs write of at most 63 bytes as text.
pub(super) fn read_text<'a>(
    reader: &mut UserSliceReader,
    buf: &'a mut [u8; 64],
) -> Result<&'a str> {
    let len = reader.len();
    if len >= buf.len() {
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..len])?;
    core::str::from_utf8(&buf[..len]).map_err(|_| EINVAL)
}
