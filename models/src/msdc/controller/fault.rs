// SPDX-License-Identifier: GPL-2.0
//! Fault injection: the faults a test makes happen to the next command they apply to, and
//! the card that [`Fault::BusyStuck`] and [`Fault::ProgramBusy`] leave holding DAT0 low.

use super::super::super::{
    emmc::{command::DEVICE_STATUS, CardState, Command, NoResponse, Response},
    memory::BusMemory,
};
use super::super::{
    regs::{DataType, ResponseType},
    slot::CardSlot,
};
use super::{command::CheckedCommand, MsdcModel, Violation};

/// A fault to inject into the next command it applies to: any command for the command
/// faults, the next command with a data phase (of the named direction) for the data faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The command is lost: the card never sees it; CMDTMO.
    CommandTimeout,
    /// The card runs the command but the response fails its CRC: RSPCRCERR.
    ResponseCrc,
    /// The data phase runs but fails its CRC: DATCRCERR instead of XFER_COMPL.
    DataCrc,
    /// As [`Fault::DataCrc`], for the next read only.
    ReadDataCrc,
    /// As [`Fault::DataCrc`], for the next write only: the card's CRC status token says
    /// the block arrived corrupted.
    WriteDataCrc,
    /// The data never arrives (the card's data phase stays open): DATTMO.
    DataTimeout,
    /// The GPD of the data phase is found corrupted in memory (its checksum byte has a
    /// bit flipped, as a stray write would leave it): with `DMA_CFG.DECSEN` the engine's
    /// checksum check fails and it raises DMA_GPDCSERR without moving data; without it the
    /// engine does not look at the checksum byte and the transfer runs.
    GpdChecksum,
    /// As [`Fault::GpdChecksum`], for the first BD of the chain: DMA_BDCSERR.
    BdChecksum,
    /// After a write's data phase (or an R1b command) the card holds DAT0 low, busy, for
    /// [`BUSY_STUCK_NS`] on the model clock instead of its programming time: `SDC_STS.SDCBUSY`
    /// stays set and `MSDC_PS` reads DAT0 low, CMD13 answers in the programming state, not
    /// ready for data, and every other command but CMD0 goes unanswered (illegal in that
    /// state). CMD0, which resets the card, and a hardware reset pulse release it.
    BusyStuck,
    /// After a write's data phase the card programs for this many ns on the model clock
    /// with DAT0 low, as a card does after the CRC status of the last block (JESD84-B51
    /// and the SD specification, "write" timing diagrams): XFER_COMPL is raised at the end
    /// of the data phase, and for that time `SDC_STS.SDCBUSY` stays set, `MSDC_PS` reads
    /// DAT0 low, CMD13 answers in the programming state, not ready for data, and every
    /// other command but CMD0 goes unanswered (illegal in that state). Then the card
    /// releases DAT0 by itself; CMD0 and a hardware reset pulse end it earlier. Models the
    /// long programming (a cache flush or garbage collection inside the card, up to the
    /// write timeout) that a card may take after any write.
    ProgramBusy(u64),
}

/// How long a card stuck busy ([`Fault::BusyStuck`]) holds DAT0 low if nothing resets it:
/// a minute, far past the driver's 20 ms wait for a busy controller and the MMC core's 10 s
/// wait for a write to finish programming.
pub const BUSY_STUCK_NS: u64 = 60_000_000_000;

/// Which commands an injected [`Fault`] waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultScope {
    /// Any command it applies to, the host's own (status, switch, tuning) included.
    AnyCommand,
    /// Only a block transfer: a read or write of the card's storage (CMD17, CMD18, CMD24,
    /// CMD25) or an SDIO CMD53, the commands of the I/O a block layer queues.
    BlockTransfer,
    /// Only command `opcode` without a data phase: for the CMD12 STOP_TRANSMISSION and the
    /// CMD48 CMDQ_TASK_MGMT of the MMC core's CQE recovery (`mmc_cqe_recovery`, sent once
    /// the CQHCI block is halted), both R1b without a CRC check (`MMC_RSP_R1B_NO_CRC`).
    /// The card runs a command whatever happens to its response on the way back, so a
    /// [`Fault::ResponseCrc`] there leaves the card's queue discarded (CMD48) or its
    /// transfer stopped (CMD12).
    Opcode(u8),
}

/// Whether `c` moves blocks of the card's storage (see [`FaultScope::BlockTransfer`]).
pub(super) const fn is_block_transfer(c: &CheckedCommand) -> bool {
    !matches!(c.data, DataType::None) && matches!(c.opcode, 17 | 18 | 24 | 25 | 53)
}

impl Fault {
    /// Whether the fault happens to command `c`, or waits for a later one.
    pub(super) const fn applies_to(self, scope: FaultScope, c: &CheckedCommand) -> bool {
        if matches!(scope, FaultScope::BlockTransfer) && !is_block_transfer(c) {
            return false;
        }
        if let FaultScope::Opcode(opcode) = scope {
            if c.opcode != opcode || !matches!(c.data, DataType::None) {
                return false;
            }
        }
        let data = !matches!(c.data, DataType::None);
        match self {
            Self::CommandTimeout | Self::ResponseCrc => true,
            Self::DataCrc | Self::DataTimeout | Self::GpdChecksum | Self::BdChecksum => data,
            Self::ReadDataCrc => data && !c.write,
            Self::WriteDataCrc => data && c.write,
            Self::ProgramBusy(_) => data && c.write,
            Self::BusyStuck => {
                if data {
                    c.write
                } else {
                    matches!(c.response, ResponseType::R1b)
                }
            }
        }
    }

    /// Whether the fault is one of the data phase's.
    pub(super) const fn in_data_phase(self) -> bool {
        !matches!(self, Self::CommandTimeout | Self::ResponseCrc)
    }

    /// Whether the fault fails the data phase's CRC.
    pub(super) const fn data_crc(self) -> bool {
        matches!(self, Self::DataCrc | Self::ReadDataCrc | Self::WriteDataCrc)
    }
}

impl MsdcModel {
    /// Makes `fault` happen to the next command written to `SDC_CMD` that it applies to
    /// (see [`Fault`]); replaces a fault still waiting.
    pub fn inject(&mut self, fault: Fault) {
        self.inject_into(fault, FaultScope::AnyCommand);
    }

    /// As [`MsdcModel::inject`], for the next command in `scope` that `fault` applies to.
    pub fn inject_into(&mut self, fault: Fault, scope: FaultScope) {
        self.fault = Some((fault, scope));
    }

    /// The injected fault still waiting for its command, if any.
    pub fn pending_fault(&self) -> Option<Fault> {
        self.fault.map(|(f, _)| f)
    }

    /// Forgets the injected fault still waiting for its command.
    pub fn cancel_fault(&mut self) {
        self.fault = None;
    }

    /// Sends `cmd` to the card, or for a card that holds DAT0 low ([`Fault::BusyStuck`],
    /// [`Fault::ProgramBusy`]) answers as a card in the programming state does: CMD0 resets
    /// it (and goes through), CMD12 reaches the card (which takes it only while still
    /// receiving an open-ended write), CMD13 reports the programming state, not ready for
    /// data, and any other command is illegal there and unanswered.
    pub(super) fn card_command<C: CardSlot + ?Sized>(
        &mut self,
        card: &mut C,
        cmd: Command,
    ) -> Result<Response, NoResponse> {
        if !self.card_busy_now() {
            return card.command(cmd);
        }
        match cmd.index {
            0 => {
                self.busy_until = None;
                card.command(cmd)
            }
            // Legal while the card receives an open-ended write (busy between blocks):
            // rcv → prg, still busy. The card decides (illegal in tran: no response).
            12 => card.command(cmd),
            13 => card.command(cmd).map(|r| match r {
                Response::R1(v) => Response::R1(
                    DEVICE_STATUS::from_raw(v)
                        .with_current_state(CardState::Prg)
                        .with_ready_for_data(false)
                        .raw(),
                ),
                other => other,
            }),
            _ => Err(NoResponse),
        }
    }

    /// The card holds DAT0 low from now for `ns` on the model clock ([`Fault::BusyStuck`]
    /// with [`BUSY_STUCK_NS`], [`Fault::ProgramBusy`], a profile's
    /// [`Latency::busy_on_dat0`](super::super::super::latency::Latency::busy_on_dat0));
    /// a longer busy already running is kept.
    pub(super) fn hold_busy(&mut self, ns: u64) {
        let until = self.clock_ns.saturating_add(ns);
        if ns > 0 && self.busy_until.is_none_or(|u| u < until) {
            self.busy_until = Some(until);
        }
    }

    /// Whether the card holds DAT0 low, busy ([`Fault::BusyStuck`], [`Fault::ProgramBusy`],
    /// or the programming of a profile with
    /// [`Latency::busy_on_dat0`](super::super::super::latency::Latency::busy_on_dat0)),
    /// as of the model clock now.
    pub fn card_stuck_busy(&self) -> bool {
        self.card_busy_now()
    }

    /// The card holds DAT0 low at the model clock's present time: a busy ends when the
    /// clock reaches its end, whether or not a step has run since (a driver polling
    /// `SDC_STS` or `MSDC_PS` sees it end while it waits, [`MsdcModel::elapse`]).
    pub(super) fn card_busy_now(&self) -> bool {
        self.busy_until.is_some_and(|until| self.clock_ns < until)
    }

    /// How long the card still holds DAT0 low, ns (0: not busy).
    pub fn card_busy_left_ns(&self) -> u64 {
        self.busy_until
            .map_or(0, |until| until.saturating_sub(self.clock_ns))
    }

    /// Flips a bit of the checksum byte (bits 15:8 of the info word that leads both GPD
    /// and BD) of the descriptor at `address` in memory ([`Fault::GpdChecksum`],
    /// [`Fault::BdChecksum`]): a corruption only the checksum check notices.
    pub(super) fn corrupt_checksum<M: BusMemory>(&mut self, mem: &mut M, address: u64) {
        let at = address.saturating_add(1);
        let mut byte = [0u8; 1];
        let corrupted = mem
            .read(at, &mut byte)
            .and_then(|()| mem.write(at, &[byte[0] ^ 1]));
        if let Err(e) = corrupted {
            self.violation(Violation::Bus(e.address));
        }
    }
}
