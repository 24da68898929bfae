// SPDX-License-Identifier: GPL-2.0

//! The legacy side of a slot, as `drivers/mmc/host/mtk_sd_rust/host.rs` has it: one [`Controller`] whose token
//! says who a request on the bus belongs to ([`Owner`]), the descriptor area, and the MMC
//! core's own commands through the core's `request` path ([`CoreHost`]): card bring-up, the
//! status polls and stops of recovery.

use mmc_request::{CommandResult, Direction, Request, RequestResult, Segment};
use models::msdc::CardSlot;
use msdc::clock::Timing;
use msdc::controller::{Controller, DmaChain, StartError};

use crate::board::{Board, AREA_AT, AREA_LEN, SCRATCH_AT, SCRATCH_LEN};
use crate::common::flags::{AC, ADTC, BC, BCR, NONE, R1, R1B, R2, R3};
use crate::common::{command, data, request};

/// The RCA the MMC core gives an eMMC.
pub(crate) const EMMC_RCA: u32 = 1;
/// `R1_READY_FOR_DATA` and the `R1_CURRENT_STATE` field of a card status.
const READY_FOR_DATA: u32 = 1 << 8;
const STATE_TRAN: u32 = 4;
/// `MMC_CMD_RETRIES`: how often `mmc_wait_for_cmd` callers let the core re-send a command.
pub(crate) const CMD_RETRIES: u32 = 3;
/// Status polls `mmc_poll_for_busy` gets before the harness calls the card stuck.
const BUSY_POLLS: usize = 16;
/// Ticks a request of the core may take.
const CORE_TICKS: usize = 64;

/// The card state in a card status.
pub(crate) fn card_state(status: u32) -> u32 {
    (status >> 9) & 0xF
}

/// `mmc_ready_for_data`: ready for data and in the transfer state.
pub(crate) fn ready_for_data(status: u32) -> bool {
    status & READY_FOR_DATA != 0 && card_state(status) == STATE_TRAN
}

/// Which card a slot holds, for the parts of the core's recovery that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CardKind {
    Emmc,
    Sd,
}

/// Who a request on the controller belongs to: the glue's `Owner`.
pub(crate) enum Owner<Q> {
    /// A request of the core's `request` callback, numbered by the harness.
    Core(u32),
    /// A request the host software queue dispatched.
    Queue(Q),
}

/// The controller of one slot and the glue's launch of a request on it.
pub(crate) struct Slot<'b, C: CardSlot, Q> {
    pub(crate) board: &'b Board<C>,
    pub(crate) ctrl: Controller<Owner<Q>>,
    next_core: u32,
    /// The core's requests that completed, by number, until their caller takes them.
    core_done: Vec<(u32, RequestResult)>,
}

impl<'b, C: CardSlot, Q> Slot<'b, C, Q> {
    /// Probes the controller: initialisation with the identification clock prepared.
    pub(crate) fn new(board: &'b Board<C>) -> Self {
        let mut ctrl = Controller::new(board.setup);
        ctrl.init_hardware(board).expect("init_hardware");
        Self {
            board,
            ctrl,
            next_core: 0,
            core_done: Vec::new(),
        }
    }

    /// `Msdc::start_request` for a request of the core's, which the controller takes only
    /// when idle: its number.
    pub(crate) fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32 {
        assert!(
            self.ctrl.is_idle(),
            "the core's request found the controller busy"
        );
        self.next_core += 1;
        if let Err((_, e)) = self.launch(request, segments, Owner::Core(self.next_core)) {
            panic!("the core's CMD{} was refused: {e:?}", request.cmd.opcode);
        }
        self.next_core
    }

    /// The core's request `serial` completed with `result`.
    pub(crate) fn core_completed(&mut self, serial: u32, result: RequestResult) {
        self.core_done.push((serial, result));
    }

    /// The result of the core's request `serial`, once it completed.
    pub(crate) fn take_core_result(&mut self, serial: u32) -> Option<RequestResult> {
        let at = self.core_done.iter().position(|(n, _)| *n == serial)?;
        Some(self.core_done.remove(at).1)
    }

    /// The start of the glue's interrupt handler: whether the line is up, then the SDIO
    /// and card-detect events, which these slots never have.
    pub(crate) fn interrupt_entry(&mut self) -> bool {
        if !self.board.interrupt_line() {
            return false;
        }
        assert!(!self.ctrl.sdio_irq_event(self.board));
        assert!(!self.ctrl.card_detect_event(self.board));
        true
    }

    /// Asserts that nothing is on the controller, every completion of the core's was
    /// taken, and the models saw nothing they forbid.
    pub(crate) fn assert_idle(&self) {
        assert!(self.ctrl.is_idle());
        assert!(self.core_done.is_empty(), "completions nobody took");
        self.board.assert_clean();
    }

    /// `Msdc::launch`: writes the descriptor chain of a request with data (the borrow of
    /// the descriptor memory ends there), then starts the request with its token.
    pub(crate) fn launch(
        &mut self,
        request: &Request,
        segments: &[Segment],
        owner: Owner<Q>,
    ) -> Result<(), (Owner<Q>, StartError)> {
        let chain = if request.data.is_some() {
            let mut ram = self.board.ram();
            let written = self.ctrl.write_chain(
                request,
                DmaChain {
                    area: &mut ram[AREA_AT..AREA_AT + AREA_LEN],
                    area_bus: self.board.bus(AREA_AT),
                    segments: segments.iter().copied(),
                },
            );
            match written {
                Ok(chain) => Some(chain),
                Err(e) => return Err((owner, e)),
            }
        } else {
            None
        };
        self.ctrl.start(self.board, request, chain, owner)
    }

    /// The core's `set_ios` for what the harness changes: bus width, then clock.
    pub(crate) fn set_ios(&mut self, hz: u32, timing: Timing, width: u8) {
        self.ctrl.set_bus_width(self.board, width);
        self.ctrl
            .set_clock(self.board, hz, timing)
            .expect("set_clock");
    }
}

/// The MMC core's requests outside the queue, through a harness's `request` path and its
/// interrupt handler.
pub(crate) trait CoreHost<'b> {
    type Card: CardSlot + 'b;
    /// What the slot's queue puts on the controller.
    type Queued;

    /// The slot.
    fn slot(&mut self) -> &mut Slot<'b, Self::Card, Self::Queued>;

    /// Starts one request of the core through the host's `request` callback; its number.
    fn start_core(&mut self, request: &Request, segments: &[Segment]) -> u32;

    /// The interrupt handler; false if the line is low.
    fn interrupt(&mut self) -> bool;

    /// Lets one step of hardware time pass, then runs the interrupt handler.
    fn tick(&mut self) {
        self.board().advance(1);
        self.interrupt();
    }

    /// The bench.
    fn board(&mut self) -> &'b Board<Self::Card> {
        self.slot().board
    }

    /// The result of the core's request `serial`, once it completed.
    fn take_core_result(&mut self, serial: u32) -> Option<RequestResult> {
        self.slot().take_core_result(serial)
    }

    /// The core's `set_ios`.
    fn set_ios(&mut self, hz: u32, timing: Timing, width: u8) {
        self.slot().set_ios(hz, timing, width);
    }

    /// Runs one request of the core to its end (`mmc_wait_for_req`).
    fn core_request(&mut self, request: &Request, segments: &[Segment]) -> RequestResult {
        let serial = self.start_core(request, segments);
        for _ in 0..CORE_TICKS {
            self.tick();
            if let Some(result) = self.take_core_result(serial) {
                return result;
            }
        }
        panic!("the core's CMD{} never completed", request.cmd.opcode);
    }

    /// `mmc_wait_for_cmd`: one command without data, re-sent up to `retries` times while
    /// it fails.
    fn wait_for_cmd(&mut self, opcode: u32, arg: u32, flags: u32, retries: u32) -> CommandResult {
        let mut left = retries;
        loop {
            let result = self
                .core_request(&request(command(opcode, arg, flags)), &[])
                .cmd;
            if result.error.is_none() || left == 0 {
                return result;
            }
            left -= 1;
        }
    }

    /// A command that must succeed; its first response word.
    fn ok(&mut self, opcode: u32, arg: u32, flags: u32) -> u32 {
        let result = self.wait_for_cmd(opcode, arg, flags, 0);
        assert_eq!(result.error, None, "CMD{opcode}");
        result.response[0]
    }

    /// CMD13 (`__mmc_send_status`).
    fn send_status(&mut self, rca: u32, retries: u32) -> CommandResult {
        self.wait_for_cmd(13, rca << 16, R1 | AC, retries)
    }

    /// `mmc_poll_for_busy` with CMD13: until the card is back in the transfer state,
    /// sleeping between two polls as `__mmc_poll_for_busy` does (from 32 µs, doubling up to
    /// 32 768 µs), which is time on the model clock.
    fn poll_for_busy(&mut self, rca: u32) {
        let mut sleep_us: u64 = 32;
        for _ in 0..BUSY_POLLS {
            let status = self.send_status(rca, 5);
            if status.error.is_none() && ready_for_data(status.response[0]) {
                return;
            }
            self.board().model().elapse(sleep_us * 1_000);
            sleep_us = (sleep_us * 2).min(32_768);
        }
        panic!("the card never came back to the transfer state");
    }

    /// A single-block read of `len` bytes into the scratch buffer; its data.
    fn read_scratch(&mut self, opcode: u32, arg: u32, len: u32) -> Vec<u8> {
        assert!(len as usize <= SCRATCH_LEN);
        let read = Request {
            data: Some(data(Direction::Read, len, 1)),
            ..request(command(opcode, arg, R1 | ADTC))
        };
        let segment = Segment {
            bus_address: self.board().bus(SCRATCH_AT),
            len,
        };
        let result = self.core_request(&read, &[segment]);
        assert_eq!(result.first_error(), None, "CMD{opcode}: {result:?}");
        self.board().bytes(SCRATCH_AT, len as usize)
    }
}

/// CMD6 SWITCH, write byte `index` of EXT_CSD with `value`.
pub(crate) fn switch_arg(index: u32, value: u32) -> u32 {
    (3 << 24) | (index << 16) | (value << 8)
}

/// EXT_CSD bytes the bring-up writes.
const EXT_CSD_CMDQ_MODE_EN: u32 = 15;
const EXT_CSD_BUS_WIDTH: u32 = 183;
const EXT_CSD_HS_TIMING: u32 = 185;

/// `mmc_attach_mmc`, as far as the queue needs it: identification, high speed on an 8-bit
/// bus at 50 MHz, and with `command_queue` the card's command queue enabled.
pub(crate) fn bring_up_emmc<'b>(host: &mut impl CoreHost<'b>, command_queue: bool) {
    host.set_ios(400_000, Timing::Legacy, 1);
    host.wait_for_cmd(0, 0, NONE | BC, 0);
    let ready = (0..10).any(|_| host.ok(1, 0x40FF_8080, R3 | BCR) & (1 << 31) != 0);
    assert!(ready, "the eMMC never finished power-up");
    host.wait_for_cmd(2, 0, R2 | BCR, 0);
    host.ok(3, EMMC_RCA << 16, R1 | AC);
    host.set_ios(26_000_000, Timing::Legacy, 1);
    host.ok(7, EMMC_RCA << 16, R1B | AC);
    host.ok(6, switch_arg(EXT_CSD_HS_TIMING, 1), R1B | AC);
    host.set_ios(52_000_000, Timing::MmcHighSpeed, 1);
    host.ok(6, switch_arg(EXT_CSD_BUS_WIDTH, 2), R1B | AC);
    host.set_ios(52_000_000, Timing::MmcHighSpeed, 8);
    let ext_csd = host.read_scratch(8, 0, 512);
    assert_eq!(ext_csd[EXT_CSD_BUS_WIDTH as usize], 2);
    if command_queue {
        host.ok(6, switch_arg(EXT_CSD_CMDQ_MODE_EN, 1), R1B | AC);
    }
    let status = host.ok(13, EMMC_RCA << 16, R1 | AC);
    assert!(ready_for_data(status), "{status:#x}");
}

/// `mmc_attach_sd`, as far as the queue needs it: identification and a 4-bit bus at the
/// default-speed 25 MHz. Returns the card's RCA.
pub(crate) fn bring_up_sd<'b>(host: &mut impl CoreHost<'b>) -> u32 {
    host.set_ios(400_000, Timing::Legacy, 1);
    host.wait_for_cmd(0, 0, NONE | BC, 0);
    assert_eq!(host.ok(8, 0x1AA, R1 | BCR) & 0xFFF, 0x1AA);
    let ready = (0..10).any(|_| {
        host.ok(55, 0, R1 | AC);
        host.ok(41, (1 << 30) | 0x0030_0000, R3 | BCR) & (1 << 31) != 0
    });
    assert!(ready, "the SD card never finished power-up");
    host.wait_for_cmd(2, 0, R2 | BCR, 0);
    let rca = host.ok(3, 0, R1 | BCR) >> 16;
    host.ok(7, rca << 16, R1B | AC);
    host.set_ios(25_000_000, Timing::Legacy, 1);
    host.ok(55, rca << 16, R1 | AC);
    host.ok(6, 2, R1 | AC);
    host.set_ios(25_000_000, Timing::Legacy, 4);
    let status = host.ok(13, rca << 16, R1 | AC);
    assert!(ready_for_data(status), "{status:#x}");
    rca
}
