// SPDX-License-Identifier: GPL-2.0
//! The data phase: the GPD/BD descriptor DMA that moves a command's blocks between memory
//! and the card, checking the descriptors, handing the GPD back and sending auto-CMD12.

use super::super::super::{emmc::Command, memory::BusMemory};
use super::super::{
    desc::{checksum_sealed, Bd, Gpd},
    regs::{MSDC_DMA_CTRL, MSDC_INT},
    slot::CardSlot,
};
use super::{
    fault::{Fault, BUSY_STUCK_NS},
    interrupts::Event,
    MsdcModel, Phase, Violation, RESET_POLLS,
};

/// Longest BD chain the model follows before calling it a loop.
pub const MAX_BD_CHAIN: usize = 4096;

/// Bytes moved between memory and card per transfer chunk.
const CHUNK: usize = 64;

/// The data phase waiting for (or running) the DMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DataPhase {
    pub(super) write: bool,
    pub(super) block_len: u32,
    pub(super) blocks: u32,
    pub(super) auto_cmd12: bool,
    /// The command moves blocks of the card's storage
    /// ([`FaultScope::BlockTransfer`](super::FaultScope::BlockTransfer)).
    pub(super) block_transfer: bool,
    pub(super) fault: Option<Fault>,
    /// The card sends the block whatever the host does: it ran the command and only its
    /// response was misread. A host that abandons the phase (a reset, a DMA stop) leaves
    /// the block to be clocked out before the next command ([`MsdcModel::abandon_data`]).
    pub(super) sent_anyway: bool,
}

impl MsdcModel {
    pub(super) fn write_dma_ctrl(&mut self, value: MSDC_DMA_CTRL) {
        self.dma_ctrl = value.with_start(false).with_stop(false).with_resume(false);
        if value.resume() {
            self.violation(Violation::DmaResume);
        }
        if value.stop() {
            self.dma_armed = false;
            self.stop_reads = RESET_POLLS;
            if let Some(ns) = self.slow_stop.take() {
                self.stop_until_ns = self.clock_ns.saturating_add(ns);
                self.slow_stops = self.slow_stops.saturating_add(1);
            }
            if matches!(self.phase, Phase::Data(_)) {
                self.abandon_data();
                self.phase = Phase::Idle;
            }
        } else if value.start() {
            if self.dma_stopping() {
                self.violation(Violation::DmaStartWhileStopping);
            } else {
                self.dma_armed = true;
            }
        }
    }

    /// Whether a DMA stop slowed by bus load is still in progress.
    pub(super) fn dma_stopping(&self) -> bool {
        self.clock_ns < self.stop_until_ns
    }

    /// Makes the next DMA stop (`MSDC_DMA_CTRL.STOP`) take `ns` of model time, as a stop
    /// does under heavy bus load when the engine waits for its outstanding bus
    /// transactions (upstream's "mmc: mediatek: wait dma stop bit reset to 0"): `STOP`
    /// reads set until then, while `MSDC_DMA_CFG.STS` already reads idle, and a DMA start
    /// before then is ignored ([`Violation::DmaStartWhileStopping`]). Kept across a
    /// controller reset, as the bus transactions are outside the controller.
    pub fn inject_slow_dma_stop(&mut self, ns: u64) {
        self.slow_stop = Some(ns);
    }

    /// Whether an injected slow DMA stop waits for the next stop.
    pub fn slow_dma_stop_pending(&self) -> bool {
        self.slow_stop.is_some()
    }

    /// Forgets an injected slow DMA stop that no stop took.
    pub fn cancel_slow_dma_stop(&mut self) {
        self.slow_stop = None;
    }

    /// The slow DMA stops taken so far.
    pub fn slow_dma_stops(&self) -> u32 {
        self.slow_stops
    }

    fn extended(&self) -> bool {
        self.config.support_64g && self.patch_bit2().support_64g()
    }

    /// The DMA address of a 32-bit pointer word and its high bits 35:32, which count only
    /// with 36-bit DMA.
    fn dma_address(&self, low: u32, high: u32) -> u64 {
        let high = if self.extended() {
            u64::from(high) << u32::BITS
        } else {
            0
        };
        u64::from(low) | high
    }

    fn read_descriptor<M: BusMemory, const N: usize>(
        &mut self,
        mem: &mut M,
        address: u64,
    ) -> Option<[u8; N]> {
        let mut d = [0u8; N];
        match mem.read(address, &mut d) {
            Ok(()) => Some(d),
            Err(e) => {
                self.violation(Violation::Bus(e.address));
                None
            }
        }
    }

    fn checksum_ok(&self, d: &[u8]) -> bool {
        !self.dma_cfg.decsen() || checksum_sealed(d)
    }

    fn finish_data(&mut self, event: Event) {
        self.raise(event);
        self.phase = Phase::Idle;
        self.dma_armed = false;
    }

    pub(super) fn run_data<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        d: DataPhase,
        card: &mut C,
        mem: &mut M,
    ) {
        if !self.dma_ctrl.mode() {
            self.violation(Violation::BasicDma);
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if d.fault == Some(Fault::DataTimeout) {
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        let gpd_address = self.dma_address(self.dma_sa, self.dma_sa_h4.dma_addr_high_4bit());
        if d.fault == Some(Fault::GpdChecksum) {
            self.corrupt_checksum(mem, gpd_address);
        }
        let Some(gpd_bytes) = self.read_descriptor::<M, { Gpd::SIZE }>(mem, gpd_address) else {
            return self.finish_data(MSDC_INT::with_dattmo);
        };
        let g = Gpd::decode(&gpd_bytes);
        if !g.info.hwo() {
            self.violation(Violation::GpdNotOwned(gpd_address));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if !self.checksum_ok(&gpd_bytes) {
            return self.finish_data(MSDC_INT::with_dma_gpdcserr);
        }
        if !g.info.bdp() {
            self.violation(Violation::GpdWithoutBd(gpd_address));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        // The engine fetches the next GPD when this one completes; it must not be live.
        let next_gpd = self.dma_address(g.next, g.info.next_h4());
        let Some(next) = self.read_descriptor::<M, { Gpd::SIZE }>(mem, next_gpd) else {
            return self.finish_data(MSDC_INT::with_dattmo);
        };
        if Gpd::decode(&next).info.hwo() {
            self.violation(Violation::GpdChain(next_gpd));
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        let mut bd_address = self.dma_address(g.ptr, g.info.ptr_h4());
        if d.fault == Some(Fault::BdChecksum) {
            self.corrupt_checksum(mem, bd_address);
        }
        let expected = u64::from(d.block_len) * u64::from(d.blocks);
        let mut done = 0u64;
        let mut described = 0u64;
        let mut card_failed = false;
        let mut chain_ended = false;
        for _ in 0..MAX_BD_CHAIN {
            let Some(bd_bytes) = self.read_descriptor::<M, { Bd::SIZE }>(mem, bd_address) else {
                return self.finish_data(MSDC_INT::with_dattmo);
            };
            if !self.checksum_ok(&bd_bytes) {
                return self.finish_data(MSDC_INT::with_dma_bdcserr);
            }
            let b = Bd::decode(&bd_bytes);
            let buffer = self.dma_address(b.ptr, b.info.ptr_h4());
            let len = u64::from(if self.extended() {
                b.data_len.buflen_ext()
            } else {
                b.data_len.buflen()
            });
            described = described.saturating_add(len);
            let take = len.min(expected.saturating_sub(done));
            if !card_failed && take > 0 {
                match self.transfer(d.write, card, mem, buffer, take) {
                    Ok(()) => done = done.saturating_add(take),
                    Err(()) => card_failed = true,
                }
            }
            if b.info.eol() {
                chain_ended = true;
                break;
            }
            bd_address = self.dma_address(b.next, b.info.next_h4());
        }
        if !chain_ended {
            self.violation(Violation::BdChainTooLong);
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if described != expected {
            self.violation(Violation::LengthMismatch {
                expected,
                described,
            });
        }
        // The engine hands the GPD back (HWO clear) once it has consumed it, as MediaTek's
        // GPD engines do; software sets HWO again (and re-seals the checksum) per request.
        // The info word leads the GPD.
        let released = g.info.with_hwo(false).raw().to_le_bytes();
        if let Err(e) = mem.write(gpd_address, &released) {
            self.violation(Violation::Bus(e.address));
        }
        self.charge_data(&d, done);
        if card_failed || done < expected {
            return self.finish_data(MSDC_INT::with_dattmo);
        }
        if d.auto_cmd12 {
            self.auto_command(card, Command::new(12, 0));
            let work = card.take_work();
            self.charge_work(work);
        }
        let width_ok = match card.bus_width() {
            Some(w) => w == self.host_bus_width(),
            None => true,
        };
        let clock_ok = self.clock_ok(card);
        if d.fault.is_some_and(Fault::data_crc) || !width_ok || !clock_ok {
            self.finish_data(MSDC_INT::with_datcrcerr)
        } else if !self.data_sampled(d.write) {
            // Read data landed in memory misread; written data reached the card intact and
            // only its CRC status was misread.
            self.sampling_error();
            self.finish_data(MSDC_INT::with_datcrcerr)
        } else {
            if d.block_transfer {
                self.block_transfers = self.block_transfers.saturating_add(1);
            }
            match d.fault {
                Some(Fault::BusyStuck) => self.hold_busy(BUSY_STUCK_NS),
                Some(Fault::ProgramBusy(ns)) => self.hold_busy(ns),
                _ => {}
            }
            if d.write {
                // A profile whose programming shows on DAT0 after the transfer.
                self.hold_busy(self.config.latency.dat0_busy_ns());
            }
            self.finish_data(MSDC_INT::with_xfer_compl)
        }
    }

    /// Moves `len` bytes between the card and memory at `address`. `Err` if the card
    /// stopped (the host sees a data timeout) or the memory is not mapped.
    fn transfer<C: CardSlot + ?Sized, M: BusMemory>(
        &mut self,
        write: bool,
        card: &mut C,
        mem: &mut M,
        address: u64,
        len: u64,
    ) -> Result<(), ()> {
        let mut buf = [0u8; CHUNK];
        let mut offset = 0u64;
        while offset < len {
            let n = usize::try_from((len - offset).min(CHUNK as u64)).unwrap_or(CHUNK);
            let chunk = buf.get_mut(..n).ok_or(())?;
            let at = address.checked_add(offset).ok_or(())?;
            if write {
                if let Err(e) = mem.read(at, chunk) {
                    self.violation(Violation::Bus(e.address));
                    return Err(());
                }
                card.write_data(chunk).map_err(|_| ())?;
            } else {
                card.read_data(chunk).map_err(|_| ())?;
                if let Err(e) = mem.write(at, chunk) {
                    self.violation(Violation::Bus(e.address));
                    return Err(());
                }
            }
            offset += n as u64;
        }
        Ok(())
    }

    /// Reads and drops the block a card sends after a command whose response the host
    /// could not read: the card ran the command and sends its data all the same.
    pub(super) fn drain_block<C: CardSlot + ?Sized>(&mut self, card: &mut C, block_len: u32) {
        let mut buf = [0u8; CHUNK];
        let mut left = block_len as usize;
        while left > 0 {
            let n = left.min(CHUNK);
            let Some(chunk) = buf.get_mut(..n) else {
                return;
            };
            if card.read_data(chunk).is_err() {
                return;
            }
            left -= n;
        }
        let block = DataPhase {
            write: false,
            block_len,
            blocks: 1,
            auto_cmd12: false,
            block_transfer: false,
            fault: None,
            sent_anyway: false,
        };
        self.charge_data(&block, u64::from(block_len));
    }

    /// The host abandons the data phase: a block the card sends anyway
    /// ([`DataPhase::sent_anyway`]) is still clocked out of it, at the next step.
    pub(super) fn abandon_data(&mut self) {
        if let Phase::Data(d) = self.phase {
            if d.sent_anyway {
                self.drain_pending = Some(d.block_len);
            }
        }
    }
}
