// SPDX-License-Identifier: GPL-2.0

//! Starting a request: the descriptor chain of its data, the check and plan of every
//! command word before anything is sent, and the state the request carries from phase to
//! phase until it completes.

use super::super::command::{
    plan_set_block_count, AutoCommand, Command, CommandError, DataTransfer, ResponseType,
    SetBlockCountPlan,
};
#[cfg(doc)]
use super::super::dma;
use super::super::dma::{ChainStart, DescriptorArea};
use super::super::errors::{COMMAND_INTERRUPTS, DATA_INTERRUPTS};
use super::super::regs::{InterruptSet, MsdcBase, SDC_CMD};
use super::super::timeout::TimeoutRequest;
#[cfg(doc)]
use super::Progress;
use super::{Controller, StartError};
use crate::mmc_request::{
    self, CommandResult, DataResult, ErrorKind, Request, RequestResult, Segment,
};
use crate::registers::Io;

/// The descriptor memory and the mapped scatterlist of a request with data, for
/// [`Controller::write_chain`].
pub struct DmaChain<'a, I: IntoIterator<Item = Segment>> {
    /// Coherent memory of [`dma::area_len`]`(`[`dma::MAX_SEGMENTS`]`)` bytes (fewer limit
    /// the segment count).
    pub area: &'a mut [u8],
    /// Bus address of `area`.
    pub area_bus: u64,
    /// The mapped scatterlist, in order.
    pub segments: I,
}

/// A descriptor chain [`Controller::write_chain`] wrote for a request's data, which
/// [`Controller::start`] points the DMA at.
///
/// Writing the chain is a step of its own so that the glue's borrow of the mapped
/// scatterlist ends before the request moves into [`Controller::start`] as its token.
#[derive(Debug)]
pub struct WrittenChain(ChainStart);

/// The phase a request is in; each enables its own interrupts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    SetBlockCount,
    Command,
    Data,
    Stop,
}

impl Phase {
    pub(super) const fn interrupts(self) -> InterruptSet {
        match self {
            Self::Data => DATA_INTERRUPTS,
            Self::SetBlockCount | Self::Command | Self::Stop => COMMAND_INTERRUPTS,
        }
    }
}

/// What a request waits for in process context (the busy retry), never in the interrupt
/// handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Await {
    /// The command of its phase (the stop after the data) waits for the bus to go idle (a
    /// card still programming the write before it holds DAT0 low), not yet issued.
    Bus,
    /// Its data phase ended, and the DMA stop it requested has not taken effect yet
    /// (`MSDC_DMA_CTRL.STOP` still set, or `MSDC_DMA_CFG.STS` still active): the rest of
    /// the data phase (the reset after an error, the stop command) waits for it.
    DmaStop,
}

/// A command ready to issue.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlannedCommand {
    pub(super) word: SDC_CMD,
    pub(super) response: ResponseType,
    pub(super) argument: u32,
    /// `SDC_BLK_NUM` for a command with data.
    pub(super) blocks: Option<u32>,
}

impl PlannedCommand {
    fn new(
        spec: &mmc_request::Command,
        data: Option<DataTransfer>,
        auto_command: AutoCommand,
    ) -> Result<Self, CommandError> {
        let response = ResponseType::from_mmc_flags(spec.flags)?;
        let mut command = Command::new(spec.opcode, response).with_auto_command(auto_command);
        if let Some(data) = data {
            command = command.with_data(data);
        }
        Ok(Self {
            word: command.sdc_cmd()?,
            response,
            argument: spec.arg,
            blocks: data.map(|data| data.blocks),
        })
    }

    /// Whether the command waits for the whole controller, not only the command line.
    pub(super) fn needs_idle_controller(&self) -> bool {
        self.response.has_busy() || self.blocks.is_some()
    }
}

/// The request in flight.
#[derive(Clone, Copy, Debug)]
pub(super) struct InFlight {
    software_sbc: Option<PlannedCommand>,
    auto_sbc: bool,
    pub(super) has_sbc: bool,
    command: PlannedCommand,
    pub(super) data: Option<mmc_request::Data>,
    pub(super) chain: Option<ChainStart>,
    pub(super) stop: Option<PlannedCommand>,
    pub(super) phase: Phase,
    /// What the request waits for in process context, its interrupts masked:
    /// [`Controller::retry_stop`] moves it on.
    pub(super) awaits: Option<Await>,
    pub(super) result: RequestResult,
}

impl InFlight {
    pub(super) fn command_of(&self, phase: Phase) -> Option<PlannedCommand> {
        match phase {
            Phase::SetBlockCount => self.software_sbc,
            Phase::Command => Some(self.command),
            Phase::Stop => self.stop,
            Phase::Data => None,
        }
    }

    /// Whether the command phase still waits for its auto-CMD23's outcome.
    pub(super) fn awaits_auto_sbc(&self) -> bool {
        self.phase == Phase::Command && self.auto_sbc && self.result.sbc.is_none()
    }

    /// Records the outcome of the command of `phase`; the data phase has none.
    pub(super) fn record(&mut self, phase: Phase, result: CommandResult) {
        match phase {
            Phase::SetBlockCount => self.result.sbc = Some(result),
            Phase::Command => self.result.cmd = result,
            Phase::Stop => self.result.stop = Some(result),
            Phase::Data => {}
        }
    }

    /// Records `error` as the outcome of `phase`, which did not get a response.
    pub(super) fn fail(&mut self, phase: Phase, error: ErrorKind) {
        match phase {
            Phase::Data => {
                self.result.data = Some(DataResult {
                    bytes_xfered: 0,
                    error: Some(error),
                })
            }
            _ => self.record(phase, CommandResult::failed(error)),
        }
    }
}

/// What handling an event did to the request.
pub(super) enum Step {
    Continue(InFlight),
    Finished(RequestResult),
}

impl<R> Controller<R> {
    /// Writes the descriptor chain of `req`'s data into `dma`'s area, with checksums, for
    /// [`Controller::start`] to point the DMA at.
    ///
    /// Refused while a request is in flight (its DMA may be reading the area), for a request
    /// without data, and when the segments do not add up to the data. It touches memory
    /// only, so it works while suspended too (and [`Controller::start`] then refuses).
    pub fn write_chain<I: IntoIterator<Item = Segment>>(
        &self,
        req: &Request,
        dma: DmaChain<'_, I>,
    ) -> Result<WrittenChain, StartError> {
        if self.request.is_some() {
            return Err(StartError::Busy);
        }
        let data = req.data.ok_or(StartError::UnexpectedDmaChain)?;
        let mut area = DescriptorArea::new(dma.area, dma.area_bus, self.setup.addressing)?;
        let start = area.write_chain(dma.segments)?;
        let expected = u64::from(data.blocks) * u64::from(data.block_size);
        if start.total_len != expected {
            return Err(StartError::LengthMismatch {
                expected,
                described: start.total_len,
            });
        }
        Ok(WrittenChain(start))
    }

    /// Starts `req`, whose data (if any) goes through `chain`, and holds `token` until the
    /// request completes: [`Progress::Done`] or [`Controller::abort`] hand it back with the
    /// result. The DMA is started once the command has its response.
    ///
    /// Everything that can be checked in advance is checked before anything is sent, so an
    /// error means the card saw nothing of the request; the token comes back with it.
    /// Refused with [`StartError::Suspended`] while suspended.
    pub fn start(
        &mut self,
        r: &impl Io<MsdcBase>,
        req: &Request,
        chain: Option<WrittenChain>,
        token: R,
    ) -> Result<(), (R, StartError)> {
        match self.launch(r, req, chain) {
            Ok(flight) => {
                self.request = Some((flight, token));
                Ok(())
            }
            Err(error) => Err((token, error)),
        }
    }

    /// Validates `req` with its `chain`, programs the data timeout and issues the first
    /// command.
    fn launch(
        &mut self,
        r: &impl Io<MsdcBase>,
        req: &Request,
        chain: Option<WrittenChain>,
    ) -> Result<InFlight, StartError> {
        if self.is_suspended() {
            return Err(StartError::Suspended);
        }
        if self.request.is_some() {
            return Err(StartError::Busy);
        }
        if self.reset_pending {
            self.reset_controller(r).map_err(StartError::Hardware)?;
        }
        if req.data.is_some() {
            // No DMA starts while an earlier stop is still in progress.
            self.finish_dma_stop(r).map_err(StartError::Hardware)?;
        }
        let mut flight = self.plan(req)?;
        flight.chain = match (req.data, chain) {
            (Some(_), Some(WrittenChain(start))) => Some(start),
            (Some(_), None) => return Err(StartError::MissingDmaChain),
            (None, Some(_)) => return Err(StartError::UnexpectedDmaChain),
            (None, None) => None,
        };
        if let Some(data) = req.data {
            self.data_timeout = TimeoutRequest {
                ns: u64::from(data.timeout_ns),
                clocks: u64::from(data.timeout_clks),
            };
            self.program_data_timeout(r, self.data_timeout);
        }
        let first = if flight.software_sbc.is_some() {
            Phase::SetBlockCount
        } else {
            Phase::Command
        };
        match self.issue(r, flight, first) {
            Step::Continue(flight) => Ok(flight),
            Step::Finished(_) => Err(StartError::BusBusy),
        }
    }

    /// Validates `req` and builds its command words.
    fn plan(&self, req: &Request) -> Result<InFlight, StartError> {
        let transfer = req
            .data
            .map(|data| DataTransfer::blocks(data.direction, data.block_size, data.blocks));
        let plan = plan_set_block_count(
            req.cmd.opcode,
            self.setup.auto_cmd23,
            req.sbc.map(|sbc| sbc.arg),
        );
        let auto_sbc = match (plan, req.sbc, req.data) {
            // Auto-CMD23 sends `SDC_BLK_NUM`, so the argument must be that count.
            (SetBlockCountPlan::Hardware, Some(sbc), Some(data)) => {
                data.blocks > 1 && sbc.arg == data.blocks
            }
            _ => false,
        };
        let software_sbc = match req.sbc {
            Some(sbc) => {
                // Validated even when folded into auto-CMD23.
                let planned = PlannedCommand::new(&sbc, None, AutoCommand::None)?;
                (!auto_sbc).then_some(planned)
            }
            None => None,
        };
        let auto_command = if auto_sbc {
            AutoCommand::Cmd23
        } else {
            AutoCommand::None
        };
        let command = PlannedCommand::new(&req.cmd, transfer, auto_command)?;
        let stop = match (req.stop, req.data) {
            (Some(stop), Some(_)) => Some(PlannedCommand::new(&stop, None, AutoCommand::None)?),
            _ => None,
        };
        Ok(InFlight {
            software_sbc,
            auto_sbc,
            has_sbc: req.sbc.is_some(),
            command,
            data: req.data,
            chain: None,
            stop,
            phase: Phase::Command,
            awaits: None,
            result: RequestResult::NOT_RUN,
        })
    }
}
