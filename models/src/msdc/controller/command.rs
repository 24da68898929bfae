// SPDX-License-Identifier: GPL-2.0
//! The command engine: a command written to `SDC_CMD` is decoded and checked, sent to the
//! card (after an auto-CMD23 if programmed), its response received as the programmed
//! response type expects, and its data phase, if any, handed to the DMA.

use super::super::super::{
    emmc::{Command, Response},
    latency::ResponseLength,
};
use super::super::{
    regs::{AutoCommand, DataType, ResponseType, MSDC_INT, SDC_CMD},
    slot::CardSlot,
};
use super::{
    dma::DataPhase,
    fault::{is_block_transfer, Fault, BUSY_STUCK_NS},
    MsdcModel, Phase, Violation,
};
use crate::registers::PartialFieldValue;

/// A command written to `SDC_CMD`, with its coded fields decoded (`None`: an undefined
/// code, which [`MsdcModel::check_command`] refuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RawCommand {
    pub(super) word: SDC_CMD,
    pub(super) response: Option<ResponseType>,
    auto: Option<AutoCommand>,
    /// Written while the CQHCI block owned the bus: never sent.
    refused: bool,
}

impl RawCommand {
    fn decode(word: SDC_CMD) -> Self {
        Self {
            word,
            response: ResponseType::try_from_bits(u64::from(word.rsptyp())),
            auto: AutoCommand::try_from_bits(u64::from(word.autocmd())),
            refused: false,
        }
    }

    fn opcode(&self) -> u8 {
        // A 6-bit field.
        self.word.opcode() as u8
    }
}

/// A command [`MsdcModel::check_command`] accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CheckedCommand {
    pub(super) opcode: u8,
    pub(super) response: ResponseType,
    pub(super) data: DataType,
    pub(super) write: bool,
    block_len: u32,
    auto: AutoCommand,
}

impl MsdcModel {
    // Out of line: its entry is where insncount's completion-to-next-issue path ends for a
    // command (docs/performance.md, "The completion-to-next-issue path").
    #[inline(never)]
    pub(super) fn start_command(&mut self, word: SDC_CMD) {
        let c = RawCommand::decode(word);
        let unmodelled = word.raw() & SDC_CMD::UNMODELLED.raw();
        if unmodelled != 0 {
            self.violation(Violation::UnmodelledCommandBits(unmodelled));
        }
        match self.phase {
            Phase::Idle => {}
            Phase::Data(_) if word.stop() => {
                // A stop command aborts the pending data phase.
                self.dma_armed = false;
            }
            _ => {
                self.violation(Violation::CommandWhileBusy);
                return;
            }
        }
        if !self.cfg.mode() {
            self.violation(Violation::NotSdMode);
        }
        if !self.clock_stable() {
            self.violation(Violation::ClockNotStable);
        }
        let refused = self.cqhci_owns_bus();
        if refused {
            self.violation(Violation::CommandWhileCqhciActive);
        }
        self.phase = Phase::Command(RawCommand { refused, ..c });
    }

    /// Checks what the model can run of `c`, recording a violation for each problem; the
    /// command, if it runs at all.
    fn check_command(&mut self, c: &RawCommand) -> Option<CheckedCommand> {
        let word = c.word;
        let opcode = c.opcode();
        let data = word.dtype();
        let mut ok = true;
        if c.response.is_none() {
            self.violation(Violation::BadResponseType(word.rsptyp()));
            ok = false;
        }
        let auto = c
            .auto
            .filter(|&a| a == AutoCommand::None || data == DataType::Multiple);
        if auto.is_none() {
            self.violation(Violation::BadAutoCommand(word.autocmd()));
            ok = false;
        }
        if (opcode == 12) != word.stop() && opcode != 52 {
            self.violation(Violation::StopFlagMismatch(opcode));
        }
        if word.volswth() && opcode != 11 {
            self.violation(Violation::VoltageSwitchMismatch(opcode));
        }
        if data == DataType::Stream {
            self.violation(Violation::StreamTransfer);
            ok = false;
        }
        if data != DataType::None {
            if word.blklen() == 0 || (data == DataType::Multiple && self.blk_num == 0) {
                self.violation(Violation::EmptyTransfer);
                ok = false;
            }
            if self.cfg.pio() {
                self.violation(Violation::PioMode);
                ok = false;
            }
        }
        match (ok, c.response, auto) {
            (true, Some(response), Some(auto)) => Some(CheckedCommand {
                opcode,
                response,
                data,
                write: word.rw(),
                block_len: word.blklen(),
                auto,
            }),
            _ => None,
        }
    }

    pub(super) fn run_command<C: CardSlot + ?Sized>(&mut self, raw: RawCommand, card: &mut C) {
        self.phase = Phase::Idle;
        if raw.refused {
            // Never on the bus: an injected fault waits for the next command.
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        }
        let Some(c) = self.check_command(&raw) else {
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        };
        let fault = match self.fault {
            Some((f, scope)) if f.applies_to(scope, &c) => self.fault.take().map(|(f, _)| f),
            _ => None,
        };
        if c.auto == AutoCommand::Cmd23 && !self.auto_command(card, Command::new(23, self.blk_num))
        {
            return;
        }
        if fault == Some(Fault::CommandTimeout) {
            self.charge_command(ResponseLength::Missing);
            self.raise(MSDC_INT::with_cmdtmo);
            return;
        }
        // Recorded only: cards usually answer commands above their limit.
        self.clock_ok(card);
        self.commands = self.commands.saturating_add(1);
        if matches!(c.opcode, 19 | 21) {
            self.tuning_commands = self.tuning_commands.saturating_add(1);
        }
        let answer = self.card_command(card, Command::new(c.opcode, self.sdc_arg));
        let work = card.take_work();
        self.charge_work(work);
        let response = match answer {
            Ok(r) => r,
            // Nothing expected, nothing heard: the command was sent.
            Err(_) if c.response == ResponseType::None => Response::None,
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.raise(MSDC_INT::with_cmdtmo);
                return;
            }
        };
        self.charge_command(match (response, c.response) {
            (_, ResponseType::None) | (Response::None, _) => ResponseLength::None,
            (Response::R2(_), _) => ResponseLength::Long,
            _ => ResponseLength::Short,
        });
        if !self.take_response(&raw, &c, response) {
            return;
        }
        // R3 has no CRC: a misread one goes unnoticed, and only comes before tuning anyway.
        let checked = matches!(
            c.response,
            ResponseType::R1 | ResponseType::R1b | ResponseType::R2
        );
        if checked && !self.response_sampled() {
            // The card ran the command; a single block it reads out goes on the bus anyway
            // (the tuning commands CMD19 and CMD21 are such reads), and the controller's
            // data path receives it: a DMA started after the RSPCRCERR moves it and ends
            // the phase (XFER_COMPL, or DATCRCERR where the data sampling fails too), as
            // upstream's tuning relies on (mtk-sd.c:1398-1406 keeps the data "that may
            // have already come" after a response CRC error of CMD19/CMD21 or during
            // HS400 tuning, and msdc_cmd_next() starts the data phase then). A host that
            // resets instead abandons it.
            self.sampling_error();
            self.raise(MSDC_INT::with_rspcrcerr);
            if c.data == DataType::Single && !c.write {
                self.phase = Phase::Data(DataPhase {
                    write: false,
                    block_len: c.block_len,
                    blocks: 1,
                    auto_cmd12: false,
                    block_transfer: is_block_transfer(&c),
                    fault: None,
                    sent_anyway: true,
                });
            }
            return;
        }
        if fault == Some(Fault::ResponseCrc) {
            self.raise(MSDC_INT::with_rspcrcerr);
            return;
        }
        self.raise(MSDC_INT::with_cmdrdy);
        let blocks = match c.data {
            DataType::None => {
                if fault == Some(Fault::BusyStuck) {
                    self.hold_busy(BUSY_STUCK_NS);
                }
                return;
            }
            DataType::Single => 1,
            DataType::Multiple | DataType::Stream => self.blk_num,
        };
        self.phase = Phase::Data(DataPhase {
            write: c.write,
            block_len: c.block_len,
            blocks,
            auto_cmd12: c.auto == AutoCommand::Cmd12,
            block_transfer: is_block_transfer(&c),
            fault: fault.filter(|f| f.in_data_phase()),
            sent_anyway: false,
        });
    }

    /// Latches `response` as the hardware would receive it when expecting `c.response`;
    /// false (with the error interrupt raised) if the exchange failed.
    fn take_response(&mut self, raw: &RawCommand, c: &CheckedCommand, response: Response) -> bool {
        let mismatch = Violation::ResponseTypeMismatch {
            opcode: c.opcode,
            programmed: raw.word.rsptyp(),
        };
        match (response, c.response) {
            (Response::None, ResponseType::None) => true,
            (_, ResponseType::None) => {
                // The controller does not listen; the card's answer is lost.
                self.violation(mismatch);
                true
            }
            (Response::None, _) => {
                self.raise(MSDC_INT::with_cmdtmo);
                false
            }
            (Response::R2(w), ResponseType::R2) => {
                self.resp = [w[3], w[2], w[1], w[0]];
                true
            }
            (Response::R2(_), _) | (_, ResponseType::R2) => {
                // Lengths differ: the frame cannot be received.
                self.violation(mismatch);
                self.raise(MSDC_INT::with_cmdtmo);
                false
            }
            (Response::R3(v), ResponseType::R1 | ResponseType::R1b) => {
                // R3 carries no CRC (all ones): the CRC check fails.
                self.resp[0] = v;
                self.raise(MSDC_INT::with_rspcrcerr);
                false
            }
            (r, t) => {
                // R1b received as R1 is fine (see the module documentation); a response
                // with CRC received as R3 skips the CRC check, which no host intends.
                if t == ResponseType::R3 && !matches!(r, Response::R3(_)) {
                    self.violation(mismatch);
                }
                self.resp[0] = r.value();
                true
            }
        }
    }

    /// Sends an automatic command (auto-CMD23 or auto-CMD12); its response lands in
    /// `SDC_ACMD_RESP` with ACMDRDY, or ACMDTMO without one. Returns whether it answered.
    pub(super) fn auto_command<C: CardSlot + ?Sized>(
        &mut self,
        card: &mut C,
        cmd: Command,
    ) -> bool {
        self.commands = self.commands.saturating_add(1);
        match self.card_command(card, cmd) {
            Ok(r) => {
                self.charge_command(ResponseLength::Short);
                self.acmd_resp = r.value();
                if !self.response_sampled() {
                    self.sampling_error();
                    self.raise(MSDC_INT::with_acmdcrcerr);
                    return false;
                }
                self.raise(MSDC_INT::with_acmdrdy);
                true
            }
            Err(_) => {
                self.charge_command(ResponseLength::Missing);
                self.raise(MSDC_INT::with_acmdtmo);
                false
            }
        }
    }
}
