// SPDX-License-Identifier: GPL-2.0

//! Faults the simulated board injects while the kernel runs, per slot, for the end-to-end
//! run's fault matrix (test kernels only). Written to the slot's debugfs file
//! `/sys/kernel/debug/mtk_sd_rust_sim/<window>/inject` as `<fault> [count [every]]`: the
//! next `count` (default 1) block transfers or tasks the fault applies to get it, spaced
//! by at least `every` (default 1) block transfers that completed without an error (task
//! completions, for the CQHCI block's faults) after the one that took the previous fault;
//! `none` cancels what is left. One fault takes a parameter first: `program_busy <ms>
//! [count [every]]`, a card that programs for `<ms>` ms with DAT0 low after the write's
//! transfer completed (XFER_COMPL), then releases it by itself. Reading the file gives
//! `<fault> left=<N> injected=<N>` (`injected` counts the faults that reached the
//! hardware: a command or a task took them), and ` busy_ms=<ms>` for `program_busy`.
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
//! finished work that it never raises (`lost_irq`).
//!
//! Two failure modes met in the field, each the subject of an upstream fix, combine the
//! models' faults: `recovery_crc`, a task's response error whose recovery then gets its
//! CMD48's response with a bad CRC (the MMC core sends it as `MMC_RSP_R1B_NO_CRC`); and
//! `stale_xfer_compl`, the MSDC's transfer-complete of the queue's last data phase left
//! latched when the queue is turned off for the legacy path
//! ([`MsdcModel::inject_stale_transfer_complete`]), counted when a `cqe_off` meets it.

use kernel::{prelude::*, uaccess::UserSliceReader};

use crate::models::{
    cqhci::{regs::CQTDBR, Fault as CqhciFault},
    msdc::{
        controller::{Fault, FaultScope, MsdcModel},
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
}

/// The names the debugfs file takes and shows.
const NAMES: [(BoardFault, &str); 16] = [
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
    /// The next completion interrupt is to be lost ([`BoardFault::LostInterrupt`]).
    lose_next: bool,
    /// Faults that reached the hardware.
    injected: u32,
    /// How long the card programs with DAT0 low after a write, ms
    /// ([`BoardFault::ProgramBusy`]).
    busy_ms: u32,
    /// A stale transfer-complete armed in the model that no `cqe_off` has met yet
    /// ([`BoardFault::StaleTransferComplete`]).
    stale_armed: bool,
}

impl FaultPlan {
    /// Arms the next fault in `model` when one is due: called with the slot's state locked,
    /// before every run of the model.
    pub(super) fn arm(&mut self, model: &mut MsdcModel) {
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
        let Some(fault) = self.fault else {
            return;
        };
        if self.stale_armed {
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
            None if fault == BoardFault::LostInterrupt => {
                self.lose_next = true;
                true
            }
            None if fault == BoardFault::RecoveryCrc => self.arm_recovery_crc(model),
            None if fault == BoardFault::StaleTransferComplete => {
                model.inject_stale_transfer_complete();
                self.stale_armed = true;
                true
            }
            None => Self::arm_task_fault(fault, model),
        };
        if armed {
            self.left -= 1;
            self.next_at = progress(fault, model).saturating_add(self.every);
            if !self.armed && !self.lose_next && !self.stale_armed {
                // The CQHCI model takes task faults at once; it fires them when the task
                // gets there.
                self.injected = self.injected.saturating_add(1);
            }
        }
    }

    /// Whether the interrupt about to be raised for finished work is to be lost; called
    /// with the slot's state locked where the board raises it.
    pub(super) fn lose_interrupt(&mut self) -> bool {
        if !self.lose_next {
            return false;
        }
        self.lose_next = false;
        self.injected = self.injected.saturating_add(1);
        true
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
        if name == "none" {
            // What the last plan injected stays readable until the next one.
            self.fault = None;
            self.left = 0;
            return Ok(());
        }
        let fault = BoardFault::parse(name).ok_or(EINVAL)?;
        let busy_ms = if fault == BoardFault::ProgramBusy {
            // Required, and at most the MMC core's 10 s wait for a write's busy
            // (`MMC_BLK_TIMEOUT_MS`): longer than that is `busy_stuck`.
            let ms = words
                .next()
                .ok_or(EINVAL)?
                .parse::<u32>()
                .map_err(|_| EINVAL)?;
            if ms == 0 || ms > MAX_PROGRAM_BUSY_MS {
                return Err(EINVAL);
            }
            ms
        } else {
            0
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
            stale_armed: false,
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
            + u32::from(self.stale_armed && model.stale_transfer_complete_taken());
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
        writeln!(f)
    }
}

/// How far the slot has got, in the unit a plan's spacing counts: the controller's block
/// transfers that succeeded for its own faults, its commands for a lost interrupt, the
/// CQHCI block's task completions for task faults (its commands do not go through the
/// controller's command register).
fn progress(fault: BoardFault, model: &MsdcModel) -> u32 {
    match fault.controller_fault(0, 0) {
        Some(_) => model.block_transfers(),
        None if fault == BoardFault::LostInterrupt => model.commands(),
        None => model.cqhci().map_or(0, |c| c.completions()),
    }
}

/// The longest programming busy `program_busy` takes, ms: the MMC core's wait for a write's
/// busy (`MMC_BLK_TIMEOUT_MS`, 10 s in drivers/mmc/core/block.c).
const MAX_PROGRAM_BUSY_MS: u32 = 10_000;

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
