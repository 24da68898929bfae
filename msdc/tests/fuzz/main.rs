// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the MSDC interrupt decoding and the legacy request engine fed hostile
//! register values in random phases.
//!
//! The engine reaches the controller only through `registers::Io`; here that is a register
//! file whose `MSDC_INT` holds whatever the case says when the interrupt comes (any bits, in
//! any phase, with or without a request in flight), whose `MSDC_INTEN` may read back other
//! than written, whose responses, pin levels, FIFO counts, `SDC_STS` and DMA status may be
//! garbage, and whose self-clearing bits (reset, FIFO clear, DMA stop and status, command
//! and controller busy, clock stable) settle at once, never, or at random. The glue played
//! here starts requests of every shape (valid or not), runs the interrupt handler in the
//! driver's order (SDIO, card detect, command queue, request), times requests out, suspends
//! and resumes, changes the clock, bus width, card-detect and SDIO settings, and
//! reinitialises the controller. Decode events check the `MSDC_INT` decoding functions
//! against the rules their module states.
//!
//! After every event: no panic, every register access inside its window, the token of the
//! request in flight exactly the one the glue started, and each result consistent with its
//! request. At the end the glue times out whatever is left; then every request started must
//! have come back exactly once (refused, completed or aborted). Budget and summary line:
//! `budget.rs`.

#[macro_use]
mod budget;
mod hostile;

use std::cell::{Cell, RefCell};

use budget::{fail, Check, Events};
use hostile::{obeys, verdict, Noise, Obeys};
use mmc_request::flags::{
    MMC_RSP_NONE, MMC_RSP_R1, MMC_RSP_R1B, MMC_RSP_R1B_NO_CRC, MMC_RSP_R2, MMC_RSP_R3,
};
use mmc_request::{Command, Data, Direction, ErrorKind, Request, RequestResult, Segment};
use msdc::clock::Timing;
use msdc::command::ResponseType;
use msdc::controller::{
    CardDetect, Controller, DmaChain, HostSetup, Progress, StartError, SuspendError,
};
use msdc::dma::{self, DmaAddressing};
use msdc::errors::{
    auto_command_outcome, command_outcome, command_queue_errors, data_outcome, AUTO_COMMAND_DONE,
    COMMAND_DONE, DATA_DONE, DMA_FAULTS,
};
use msdc::regs::{
    InterruptSet, MsdcBase, MsdcTop, MSDC_CFG, MSDC_DMA_CFG, MSDC_DMA_CTRL, MSDC_FIFOCS, MSDC_INT,
    MSDC_INTEN, SDC_STS,
};
use msdc::soc::{self, SocData};
use msdc::tuning::BoardTuning;
use proptest::prelude::*;
use registers::{Io, PollLimit};

/// The MSDC registers proper: the CQHCI block starts at 0x800 and is not this window's.
const BASE_LEN: usize = 0x800;
const TOP_LEN: usize = 0x100;

/// The bits that clear (or, for `CKSTB`, set) themselves once the hardware is done.
fn settled(offset: usize, value: u32) -> u32 {
    match offset {
        MSDC_CFG::OFFSET => MSDC_CFG::from_raw(value)
            .with_rst(false)
            .with_ckstb(true)
            .raw(),
        MSDC_FIFOCS::OFFSET => MSDC_FIFOCS::from_raw(value).with_clr(false).raw() & !0xFFFF,
        MSDC_DMA_CTRL::OFFSET => MSDC_DMA_CTRL::from_raw(value).with_stop(false).raw(),
        MSDC_DMA_CFG::OFFSET => MSDC_DMA_CFG::from_raw(value).with_sts(false).raw(),
        SDC_STS::OFFSET => SDC_STS::from_raw(value)
            .with_cmdbusy(false)
            .with_sdcbusy(false)
            .raw(),
        _ => value,
    }
}

/// The lying register file, both windows.
struct Regs {
    base: RefCell<[u32; BASE_LEN / 4]>,
    top: RefCell<[u32; TOP_LEN / 4]>,
    obeys: Cell<Obeys>,
    /// Status, pin and response reads have random bits flipped.
    garbled: Cell<bool>,
    /// `MSDC_INTEN` reads this instead of what was written.
    inten_lies: Cell<Option<u32>>,
    stray: Cell<Option<(&'static str, usize)>>,
    noise: Noise,
}

impl Regs {
    fn new(noise: u64) -> Self {
        Self {
            base: RefCell::new([0; BASE_LEN / 4]),
            top: RefCell::new([0; TOP_LEN / 4]),
            obeys: Cell::new(Obeys::AtOnce),
            garbled: Cell::new(false),
            inten_lies: Cell::new(None),
            stray: Cell::new(None),
            noise: Noise::new(noise),
        }
    }

    fn index(&self, window: &'static str, offset: usize, len: usize) -> Option<usize> {
        if offset % 4 == 0 && offset < len {
            Some(offset / 4)
        } else {
            self.stray.set(Some((window, offset)));
            None
        }
    }

    /// Latches `events` in `MSDC_INT`, as the hardware raises them.
    fn raise(&self, events: u32) {
        self.base.borrow_mut()[MSDC_INT::OFFSET / 4] |= events;
    }

    fn pending(&self) -> u32 {
        self.base.borrow()[MSDC_INT::OFFSET / 4]
    }
}

impl Io<MsdcBase> for Regs {
    fn read32(&self, offset: usize) -> u32 {
        let Some(index) = self.index("msdc", offset, BASE_LEN) else {
            return 0;
        };
        let value = self.base.borrow()[index];
        match offset {
            MSDC_INTEN::OFFSET => self.inten_lies.get().unwrap_or(value),
            MSDC_INT::OFFSET => value,
            _ if self.garbled.get() => value ^ self.noise.bits(),
            _ => value,
        }
    }

    fn write32(&self, offset: usize, value: u32) {
        let Some(index) = self.index("msdc", offset, BASE_LEN) else {
            return;
        };
        let mut base = self.base.borrow_mut();
        base[index] = match offset {
            // Write one to clear.
            MSDC_INT::OFFSET => base[index] & !value,
            _ => value,
        };
    }

    fn poll32(
        &self,
        offset: usize,
        mut done: impl FnMut(u32) -> bool,
        _limit: PollLimit,
    ) -> Result<u32, u32> {
        // One read, then the hardware finishes (or not): a bit that never settles would
        // otherwise cost the poll's 20,000 reads.
        let first = Io::<MsdcBase>::read32(self, offset);
        if done(first) {
            return Ok(first);
        }
        if !self.noise.carries_out(self.obeys.get()) {
            return Err(first);
        }
        let Some(index) = self.index("msdc", offset, BASE_LEN) else {
            return Err(first);
        };
        let value = settled(offset, self.base.borrow()[index]);
        self.base.borrow_mut()[index] = value;
        verdict(value, done)
    }
}

impl Io<MsdcTop> for Regs {
    fn read32(&self, offset: usize) -> u32 {
        self.index("top", offset, TOP_LEN)
            .map_or(0, |index| self.top.borrow()[index])
    }

    fn write32(&self, offset: usize, value: u32) {
        if let Some(index) = self.index("top", offset, TOP_LEN) {
            self.top.borrow_mut()[index] = value;
        }
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        _limit: PollLimit,
    ) -> Result<u32, u32> {
        verdict(Io::<MsdcTop>::read32(self, offset), done)
    }
}

#[derive(Clone, Debug)]
struct Shape {
    opcode: u32,
    flags: u32,
    /// Blocks, block size, write.
    data: Option<(u32, u32, bool)>,
    /// The set-block-count argument: the block count, or anything.
    sbc: Option<Option<u32>>,
    stop: bool,
    /// Segment lengths; `None`: one segment with the whole transfer.
    segments: Option<Vec<u32>>,
}

#[derive(Clone, Debug)]
enum Event {
    Start(Shape),
    /// An interrupt: `events` are latched in `MSDC_INT`, then the handler runs.
    Irq {
        events: u32,
        inten_lies: Option<u32>,
    },
    Abort,
    Suspend,
    Resume,
    InitHardware,
    SetClock {
        hz: u32,
        timing: u32,
    },
    BusWidth(u8),
    CardDetect(u8),
    SdioMode(bool),
    SdioIrq(bool),
    AckSdioIrq,
    RecheckSdioIrq,
    CardReset,
    Pins,
    Obeys(Obeys),
    Garbled(bool),
    /// The decoding functions on `MSDC_INT` bits, for a command with `flags`.
    Decode {
        events: u32,
        flags: u32,
    },
}

fn response_flags() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => Just(MMC_RSP_R1),
        2 => Just(MMC_RSP_R1B),
        1 => Just(MMC_RSP_R1B_NO_CRC),
        1 => Just(MMC_RSP_NONE),
        1 => Just(MMC_RSP_R2),
        1 => Just(MMC_RSP_R3),
        1 => any::<u32>(),
    ]
}

/// Interrupt bits: single events of a phase, typical pairs, or anything.
fn int_bits() -> impl Strategy<Value = u32> {
    let one = [
        InterruptSet::CMDRDY,
        InterruptSet::CMDTMO,
        InterruptSet::RSPCRCERR,
        InterruptSet::ACMDRDY,
        InterruptSet::ACMDTMO,
        InterruptSet::ACMDCRCERR,
        InterruptSet::XFER_COMPL,
        InterruptSet::DATTMO,
        InterruptSet::DATCRCERR,
        InterruptSet::DMA_BDCSERR,
        InterruptSet::DMA_GPDCSERR,
        InterruptSet::DMA_PROTECT,
        InterruptSet::CDSC,
        InterruptSet::SDIOIRQ,
        InterruptSet::CMDQ,
        InterruptSet::CSTA,
    ]
    .map(|set| set.bits());
    prop_oneof![
        6 => proptest::sample::select(one.to_vec()),
        3 => Just((InterruptSet::CMDRDY | InterruptSet::ACMDRDY).bits()),
        3 => Just((InterruptSet::CMDRDY | InterruptSet::XFER_COMPL).bits()),
        2 => (proptest::sample::select(one.to_vec()), proptest::sample::select(one.to_vec()))
            .prop_map(|(a, b)| a | b),
        2 => any::<u32>(),
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    let data = prop_oneof![
        3 => Just(None),
        6 => (prop_oneof![4 => 1..9_u32, 1 => Just(0_u32), 1 => any::<u32>()],
              prop_oneof![6 => Just(512_u32), 1 => Just(0), 1 => 1..5000_u32],
              any::<bool>())
            .prop_map(Some),
    ];
    let segments = prop_oneof![
        6 => Just(None),
        2 => proptest::collection::vec(prop_oneof![3 => Just(512_u32), 1 => any::<u32>(), 1 => Just(0)], 0..5)
            .prop_map(Some),
    ];
    (
        prop_oneof![6 => 0..64_u32, 1 => any::<u32>()],
        response_flags(),
        data,
        prop_oneof![2 => Just(None), 2 => Just(Some(None)), 1 => any::<u32>().prop_map(|a| Some(Some(a)))],
        any::<bool>(),
        segments,
    )
        .prop_map(|(opcode, flags, data, sbc, stop, segments)| Shape {
            opcode,
            flags,
            data,
            sbc,
            stop,
            segments,
        })
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        8 => shape().prop_map(Event::Start),
        16 => (int_bits(), prop_oneof![8 => Just(None), 1 => any::<u32>().prop_map(Some)])
            .prop_map(|(events, inten_lies)| Event::Irq { events, inten_lies }),
        1 => Just(Event::Abort),
        1 => Just(Event::Suspend),
        1 => Just(Event::Resume),
        1 => Just(Event::InitHardware),
        1 => (prop_oneof![Just(0_u32), Just(400_000), Just(25_000_000), Just(200_000_000), any::<u32>()], 0..12_u32)
            .prop_map(|(hz, timing)| Event::SetClock { hz, timing }),
        1 => any::<u8>().prop_map(Event::BusWidth),
        1 => any::<u8>().prop_map(Event::CardDetect),
        1 => any::<bool>().prop_map(Event::SdioMode),
        1 => any::<bool>().prop_map(Event::SdioIrq),
        1 => Just(Event::AckSdioIrq),
        1 => Just(Event::RecheckSdioIrq),
        1 => Just(Event::CardReset),
        1 => Just(Event::Pins),
        1 => obeys().prop_map(Event::Obeys),
        1 => prop_oneof![3 => Just(false), 1 => Just(true)].prop_map(Event::Garbled),
        4 => (int_bits(), response_flags()).prop_map(|(events, flags)| Event::Decode { events, flags }),
    ]
}

const SOCS: [&SocData; 8] = [
    &soc::MT8173,
    &soc::MT2712,
    &soc::MT2701,
    &soc::MT7622,
    &soc::MT7986,
    &soc::MT8183,
    &soc::MT8196,
    &soc::MT8516,
];

fn case() -> impl Strategy<Value = (usize, bool, bool, u64, Vec<Event>)> {
    (
        0..SOCS.len(),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
        proptest::collection::vec(event(), 0..300),
    )
}

/// Descriptor area bus address, below 4 GiB for every addressing mode.
const AREA_BUS: u64 = 0x4000_0000;
const DATA_BUS: u64 = 0x5000_0000;
/// Descriptors for this many segments: enough for the shapes generated.
const AREA_SEGMENTS: usize = 8;

struct Glue {
    ctrl: Controller<u32>,
    regs: Regs,
    area: Vec<u8>,
    /// The request in flight and its token.
    in_flight: Option<(u32, Request)>,
    /// Times each started request came back, by token.
    returned: Vec<u8>,
    suspended: bool,
}

fn build(shape: &Shape) -> Request {
    let command = |opcode, arg, flags| Command {
        opcode,
        arg,
        flags,
        busy_timeout_ms: 0,
    };
    let data = shape.data.map(|(blocks, block_size, write)| Data {
        block_size,
        blocks,
        direction: if write {
            Direction::Write
        } else {
            Direction::Read
        },
        timeout_ns: 100_000_000,
        timeout_clks: 0,
    });
    let sbc = shape.sbc.map(|arg| {
        let count = shape.data.map_or(1, |d| d.0);
        command(23, arg.unwrap_or(count), MMC_RSP_R1)
    });
    Request {
        sbc,
        cmd: command(shape.opcode, 0x1000, shape.flags),
        data,
        stop: shape.stop.then(|| command(12, 0, MMC_RSP_R1B)),
    }
}

impl Glue {
    fn new(soc: &'static SocData, bits36: bool, auto_cmd23: bool, noise: u64) -> Self {
        let setup = HostSetup {
            soc,
            source_hz: 200_000_000,
            addressing: if bits36 {
                DmaAddressing::Bits36
            } else {
                DmaAddressing::Bits32
            },
            auto_cmd23,
            board: BoardTuning::defaults(false),
        };
        Self {
            ctrl: Controller::new(setup),
            regs: Regs::new(noise),
            area: vec![0; dma::area_len(AREA_SEGMENTS)],
            in_flight: None,
            returned: Vec::new(),
            suspended: false,
        }
    }

    /// Takes back the request `token`, which the controller handed back with `result`.
    fn returned(&mut self, token: u32, result: Option<RequestResult>) -> Check {
        let count = &mut self.returned[token as usize];
        *count += 1;
        ensure!(*count == 1, "request {token} came back {count} times");
        let Some(result) = result else {
            return Ok(());
        };
        let Some((flying, request)) = self.in_flight.take() else {
            return fail(format!(
                "request {token} came back while none was in flight"
            ));
        };
        ensure!(flying == token, "request {token} came back for {flying}");
        if let Some(data) = result.data {
            let whole = request
                .data
                .map_or(0, |d| d.blocks.saturating_mul(d.block_size));
            ensure!(
                request.data.is_some(),
                "a data result without data: {result:?}"
            );
            ensure!(
                data.bytes_xfered <= whole,
                "{} bytes transferred of {whole}",
                data.bytes_xfered
            );
            if data.error.is_some() {
                ensure!(
                    data.bytes_xfered == 0,
                    "bytes counted with an error: {data:?}"
                );
            }
        }
        if result.cmd.error.is_some() {
            ensure!(
                result.data.is_none() && result.stop.is_none(),
                "phases ran after a command error: {result:?}"
            );
        }
        if result.stop.is_some() {
            ensure!(
                request.stop.is_some(),
                "a stop result without a stop: {result:?}"
            );
        }
        Ok(())
    }

    fn start(&mut self, shape: &Shape) -> Check {
        let token = self.returned.len() as u32;
        self.returned.push(0);
        let request = build(shape);
        let chain = match request.data {
            None => None,
            Some(data) => {
                let lengths = shape
                    .segments
                    .clone()
                    .unwrap_or_else(|| vec![data.blocks.wrapping_mul(data.block_size)]);
                let mut address = DATA_BUS;
                let segments = lengths.into_iter().map(|len| {
                    let segment = Segment {
                        bus_address: address,
                        len,
                    };
                    address += u64::from(len);
                    segment
                });
                let chain = DmaChain {
                    area: &mut self.area,
                    area_bus: AREA_BUS,
                    segments,
                };
                match self.ctrl.write_chain(&request, chain) {
                    Ok(written) => Some(written),
                    Err(error) => {
                        if self.in_flight.is_some() {
                            ensure!(
                                error == StartError::Busy,
                                "write_chain in flight: {error:?}"
                            );
                        }
                        // Refused before it reached the controller.
                        return self.returned(token, None);
                    }
                }
            }
        };
        let busy = self.in_flight.is_some();
        match self.ctrl.start(&self.regs, &request, chain, token) {
            Ok(()) => {
                ensure!(
                    !busy && !self.suspended,
                    "started over a request or suspended"
                );
                self.in_flight = Some((token, request));
            }
            Err((back, error)) => {
                ensure!(back == token, "start refused {token} but gave back {back}");
                if self.suspended {
                    ensure!(
                        error == StartError::Suspended,
                        "start while suspended: {error:?}"
                    );
                } else if busy {
                    ensure!(error == StartError::Busy, "start while busy: {error:?}");
                }
                self.returned(token, None)?;
            }
        }
        Ok(())
    }

    /// The interrupt handler, in the driver's order.
    fn irq(&mut self) -> Check {
        let _ = self.ctrl.sdio_irq_event(&self.regs);
        let _ = self.ctrl.card_detect_event(&self.regs);
        if let Some(event) = self.ctrl.command_queue_event(&self.regs) {
            ensure!(
                self.in_flight.is_none(),
                "a command queue event in flight: {event:?}"
            );
            ensure!(
                self.regs.pending() & InterruptSet::CMDQ.bits() == 0,
                "CMDQ not acknowledged"
            );
        }
        // The request path must leave the card-detect and SDIO events to their consumers,
        // even through a controller reset.
        let standing = (InterruptSet::CDSC | InterruptSet::SDIOIRQ).bits();
        let before = self.regs.pending() & standing;
        let progress = self.ctrl.handle_interrupt(&self.regs);
        let after = self.regs.pending() & standing;
        ensure!(
            after & before == before,
            "the request path acknowledged {:?}",
            InterruptSet::from_bits_retain(before & !after)
        );
        match progress {
            Progress::Pending => Ok(()),
            Progress::Done(token, result) => self.returned(token, Some(result)),
        }
    }

    fn apply(&mut self, event: Event) -> Check {
        match event {
            Event::Start(shape) => self.start(&shape)?,
            Event::Irq { events, inten_lies } => {
                self.regs.raise(events);
                self.regs.inten_lies.set(inten_lies);
                let result = self.irq();
                self.regs.inten_lies.set(None);
                result?;
            }
            Event::Abort => match self.ctrl.abort(&self.regs) {
                Some((token, result)) => {
                    ensure!(
                        self.in_flight.is_some(),
                        "abort returned {token} while idle"
                    );
                    let phases = [result.sbc, Some(result.cmd), result.stop];
                    let timed_out = phases
                        .iter()
                        .flatten()
                        .any(|c| c.error == Some(ErrorKind::TimedOut))
                        || result
                            .data
                            .is_some_and(|d| d.error == Some(ErrorKind::TimedOut));
                    ensure!(
                        timed_out,
                        "an aborted request without a timeout: {result:?}"
                    );
                    self.returned(token, Some(result))?;
                }
                None => ensure!(self.in_flight.is_none(), "abort lost the request in flight"),
            },
            Event::Suspend => match self.ctrl.suspend(&self.regs) {
                Ok(()) => {
                    ensure!(
                        self.in_flight.is_none() || self.suspended,
                        "suspended with a request in flight"
                    );
                    self.suspended = true;
                }
                Err(SuspendError::Busy) => {
                    ensure!(self.in_flight.is_some(), "suspend refused while idle")
                }
            },
            Event::Resume => {
                // A resume whose clock does not come back still ends the suspension.
                let _ = self.ctrl.resume(&self.regs);
                self.suspended = false;
            }
            Event::InitHardware => {
                // The contract: time the request out first (init drops it without a result).
                self.apply(Event::Abort)?;
                let _ = self.ctrl.init_hardware(&self.regs);
            }
            Event::SetClock { hz, timing } => {
                if let Some(timing) = Timing::from_mmc(timing) {
                    let _ = self.ctrl.set_clock(&self.regs, hz, timing);
                }
            }
            Event::BusWidth(lines) => self.ctrl.set_bus_width(&self.regs, lines),
            Event::CardDetect(mode) => {
                let mode = match mode % 5 {
                    0 => CardDetect::Fixed,
                    1 => CardDetect::Gpio,
                    2 => CardDetect::Polled,
                    n => CardDetect::Internal {
                        active_high: n == 4,
                    },
                };
                self.ctrl.set_card_detect(&self.regs, mode);
            }
            Event::SdioMode(on) => self.ctrl.set_sdio_mode(&self.regs, on),
            Event::SdioIrq(on) => self.ctrl.enable_sdio_irq(&self.regs, on),
            Event::AckSdioIrq => self.ctrl.ack_sdio_irq(&self.regs),
            Event::RecheckSdioIrq => {
                let _ = self.ctrl.recheck_sdio_irq(&self.regs);
            }
            Event::CardReset => self.ctrl.pulse_card_reset(&self.regs, |_| {}),
            Event::Pins => {
                let _ = self.ctrl.card_present(&self.regs);
                let _ = self.ctrl.card_busy(&self.regs);
                let _ = self.ctrl.take_hardware_fault();
            }
            Event::Obeys(how) => self.regs.obeys.set(how),
            Event::Garbled(on) => self.regs.garbled.set(on),
            Event::Decode { events, flags } => decode(events, flags)?,
        }
        self.invariants()
    }

    fn invariants(&self) -> Check {
        if let Some((window, offset)) = self.regs.stray.get() {
            return fail(format!("register access at {window} + {offset:#x}"));
        }
        let flying = self.in_flight.as_ref().map(|(token, _)| *token);
        ensure!(
            self.ctrl.in_flight().copied() == flying,
            "the controller holds {:?}, the glue started {flying:?}",
            self.ctrl.in_flight()
        );
        ensure!(self.ctrl.is_idle() == flying.is_none(), "is_idle disagrees");
        Ok(())
    }

    /// The glue's request timer: whatever is left is timed out; then every request must
    /// have come back exactly once.
    fn drain(&mut self, events: &Events) -> Check {
        events.tick();
        self.apply(Event::Abort)?;
        for (token, count) in self.returned.iter().enumerate() {
            ensure!(*count == 1, "request {token} came back {count} times");
        }
        Ok(())
    }
}

/// Checks the decoding of `MSDC_INT` bits against the rules of the `errors` module: a phase
/// ends once one of its events is pending, and its error bits beat its success bit.
fn decode(bits: u32, flags: u32) -> Check {
    let events = InterruptSet::from_bits_retain(bits);
    let has = |set: InterruptSet| events.intersects(set);
    if let Ok(response) = ResponseType::from_mmc_flags(flags) {
        let outcome = command_outcome(events, response);
        let crc = has(InterruptSet::RSPCRCERR) && !response.ignores_crc_error();
        let expected = if !has(COMMAND_DONE) {
            None
        } else if crc {
            Some(Err(ErrorKind::BadCrc))
        } else if has(InterruptSet::CMDTMO) {
            Some(Err(ErrorKind::TimedOut))
        } else {
            Some(Ok(()))
        };
        ensure!(
            outcome == expected,
            "command {events:?} ({response:?}): {outcome:?}"
        );
    }
    let auto = auto_command_outcome(events);
    let expected = if !has(AUTO_COMMAND_DONE) {
        None
    } else if has(InterruptSet::ACMDCRCERR) {
        Some(Err(ErrorKind::BadCrc))
    } else if has(InterruptSet::ACMDTMO) {
        Some(Err(ErrorKind::TimedOut))
    } else {
        Some(Ok(()))
    };
    ensure!(auto == expected, "auto command {events:?}: {auto:?}");
    let data = data_outcome(events);
    let expected = if !has(DATA_DONE) {
        None
    } else if has(InterruptSet::DATTMO) {
        Some(Err(ErrorKind::TimedOut))
    } else if has(InterruptSet::DATCRCERR) {
        Some(Err(ErrorKind::BadCrc))
    } else if has(DMA_FAULTS) {
        Some(Err(ErrorKind::DmaFault))
    } else {
        Some(Ok(()))
    };
    ensure!(data == expected, "data {events:?}: {data:?}");
    let queue = command_queue_errors(events);
    ensure!(
        queue.command.is_some() == has(InterruptSet::RSPCRCERR | InterruptSet::CMDTMO)
            && queue.data.is_some() == has(InterruptSet::DATCRCERR | InterruptSet::DATTMO),
        "command queue errors of {events:?}: {queue:?}"
    );
    Ok(())
}

#[test]
fn hostile_registers_in_random_phases() {
    budget::fuzz(
        "msdc",
        512,
        case(),
        |(soc, bits36, auto_cmd23, noise, case), events| {
            let mut glue = Glue::new(SOCS[soc], bits36, auto_cmd23, noise);
            events.tick();
            let _ = glue.ctrl.init_hardware(&glue.regs);
            events.tick();
            let _ = glue.ctrl.set_clock(&glue.regs, 25_000_000, Timing::Legacy);
            for event in case {
                events.tick();
                glue.apply(event)?;
            }
            glue.drain(events)
        },
    );
}
