// SPDX-License-Identifier: GPL-2.0

//! The bench the queue harnesses run on: the `models` MSDC model (with or without its CQHCI
//! block), a card and RAM behind the register layer's [`Io`], with a clock the harness
//! holds.
//!
//! The model does not run when a register is written but when time passes: when the
//! harness lets it ([`Board::advance`], one model step per tick) and while the driver
//! busy-waits (each interval of a bounded poll is one step). So the harness can queue
//! requests faster than the hardware completes them, decide when interrupts are serviced,
//! and a wait for the CQHCI block to halt sees the block move.
//!
//! RAM holds, at fixed offsets: the MSDC descriptor area, the CQHCI engine's descriptor
//! memory, a scratch buffer for the core's own data commands and one data buffer per tag.

use std::cell::{Cell, RefCell, RefMut};

use cqhci::regs::CqhciBlock;
use mmc_request::Segment;
use models::bus::{Bus, RegisterFile, Serves};
use models::msdc::regs::{CQHCI_BASE, MSDC_CFG};
use models::msdc::{CardSlot, ModelConfig, MsdcModel, Violation};
use models::Ram;
use msdc::clock::DividerWidth;
use msdc::controller::HostSetup;
use msdc::dma::{self, DmaAddressing, MAX_SEGMENTS};
use msdc::regs::{MsdcBase, MsdcRegs};
use msdc::soc::SocData;
use registers::{Io, PollLimit, Window};

/// The MSDC GPD/BD descriptor area, as large as the glue allocates.
pub(crate) const AREA_AT: usize = 0;
pub(crate) const AREA_LEN: usize = dma::area_len(MAX_SEGMENTS);
/// The CQHCI engine's descriptor memory: the task descriptor list, then the transfer
/// descriptors (the glue's `DescriptorMemory` layout).
pub(crate) const CQ_AT: usize = 0x8000;
pub(crate) const CQ_LEN: usize = 0x1_8000;
/// A buffer for the data commands the core sends itself (EXT_CSD, ACMD22).
pub(crate) const SCRATCH_AT: usize = 0x2_0000;
pub(crate) const SCRATCH_LEN: usize = 0x1000;
/// One data buffer per block-layer tag.
const BUFFERS_AT: usize = 0x10_0000;
pub(crate) const BUFFER_LEN: usize = 64 * 1024;
pub(crate) const BUFFERS: usize = 64;
const RAM_LEN: usize = BUFFERS_AT + BUFFERS * BUFFER_LEN;
/// RAM above 4 GiB for 36-bit DMA, below it otherwise.
const RAM_BASE_36: u64 = 0x1_2000_0000;
const RAM_BASE_32: u64 = 0x8000_0000;

/// The source clock of every bench, as the model's default.
const SOURCE_HZ: u32 = 200_000_000;

/// A controller of `soc` with `addressing`, folding CMD23 into auto-CMD23 if `auto_cmd23`.
pub(crate) fn setup(
    soc: &'static SocData,
    addressing: DmaAddressing,
    auto_cmd23: bool,
) -> HostSetup {
    HostSetup {
        soc,
        source_hz: SOURCE_HZ,
        addressing,
        auto_cmd23,
        board: msdc::tuning::BoardTuning::defaults(false),
    }
}

/// The RAM offset of tag `tag`'s data buffer.
pub(crate) fn buffer_at(tag: u8) -> usize {
    assert!(usize::from(tag) < BUFFERS, "tag {tag}");
    BUFFERS_AT + usize::from(tag) * BUFFER_LEN
}

/// The model, a card and RAM behind [`Io`]`<`[`MsdcBase`]`>` and [`Io`]`<`[`CqhciBlock`]`>`.
pub(crate) struct Board<C: CardSlot> {
    /// The setup the controller is built with.
    pub(crate) setup: HostSetup,
    model: RefCell<MsdcModel>,
    card: RefCell<C>,
    ram: RefCell<Vec<u8>>,
    base: u64,
    /// Microseconds the driver's polls busy-waited so far.
    delayed_us: Cell<u64>,
    /// Reads of `MSDC_CFG` that show `RST` still set after each controller reset: a
    /// reset that clears late (0: as the model, at once).
    reset_reads: Cell<u32>,
    /// What is left of the current reset's [`Board::reset_reads`].
    reset_reads_left: Cell<u32>,
}

impl<C: CardSlot> Board<C> {
    /// A controller for `setup` without a CQHCI block, `card` in the slot.
    pub(crate) fn new(setup: HostSetup, card: C) -> Self {
        Self::build(setup, MsdcModel::new(model_config(&setup)), card)
    }

    /// A controller for `setup` with MediaTek's CQHCI block, `card` in the slot.
    pub(crate) fn with_cqhci(setup: HostSetup, card: C) -> Self {
        let model =
            MsdcModel::with_cqhci(model_config(&setup), models::cqhci::ModelConfig::MEDIATEK);
        Self::build(setup, model, card)
    }

    fn build(setup: HostSetup, model: MsdcModel, card: C) -> Self {
        Self {
            setup,
            model: RefCell::new(model),
            card: RefCell::new(card),
            ram: RefCell::new(vec![0; RAM_LEN]),
            base: match setup.addressing {
                DmaAddressing::Bits36 => RAM_BASE_36,
                DmaAddressing::Bits32 => RAM_BASE_32,
            },
            delayed_us: Cell::new(0),
            reset_reads: Cell::new(0),
            reset_reads_left: Cell::new(0),
        }
    }

    /// Makes every controller reset from now on read back `MSDC_CFG.RST` set for `reads`
    /// more reads: a reset that clears late.
    pub(crate) fn slow_resets(&self, reads: u32) {
        self.reset_reads.set(reads);
    }

    /// Microseconds the driver's polls busy-waited so far (in the kernel with the lock
    /// held, in the interrupt handler or with interrupts off).
    pub(crate) fn delayed_us(&self) -> u64 {
        self.delayed_us.get()
    }

    /// Lets `steps` units of hardware time pass; how many steps did something.
    pub(crate) fn advance(&self, steps: u32) -> u32 {
        let mut model = self.model.borrow_mut();
        let mut card = self.card.borrow_mut();
        let mut ram = self
            .ram
            .try_borrow_mut()
            .expect("the hardware ran while the driver held RAM");
        let mut mem = Ram::new(self.base, &mut ram);
        model.run(&mut *card, &mut mem, steps)
    }

    /// The interrupt line: an enabled event is pending.
    pub(crate) fn interrupt_line(&self) -> bool {
        self.model.borrow().interrupt_pending()
    }

    pub(crate) fn card(&self) -> RefMut<'_, C> {
        self.card.borrow_mut()
    }

    pub(crate) fn model(&self) -> RefMut<'_, MsdcModel> {
        self.model.borrow_mut()
    }

    /// RAM, for the driver's CPU view of its descriptor memory and buffers.
    pub(crate) fn ram(&self) -> RefMut<'_, Vec<u8>> {
        self.ram.borrow_mut()
    }

    /// The bus address of RAM offset `at`.
    pub(crate) fn bus(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    /// Tag `tag`'s buffer for `len` bytes, mapped as one segment or, from 8 KiB, two.
    pub(crate) fn segments(&self, tag: u8, len: u32) -> Vec<Segment> {
        let at = self.bus(buffer_at(tag));
        if len < 8192 {
            return vec![Segment {
                bus_address: at,
                len,
            }];
        }
        vec![
            Segment {
                bus_address: at,
                len: 4096,
            },
            Segment {
                bus_address: at + 4096,
                len: len - 4096,
            },
        ]
    }

    /// `len` bytes of RAM at `at`.
    pub(crate) fn bytes(&self, at: usize, len: usize) -> Vec<u8> {
        self.ram.borrow()[at..at + len].to_vec()
    }

    /// Asserts that neither the MSDC model nor its CQHCI block saw anything it does not
    /// model or the hardware forbids.
    pub(crate) fn assert_clean(&self) {
        let model = self.model.borrow();
        let (count, first): (u32, &[Option<Violation>; 8]) = model.violations();
        assert_eq!(count, 0, "MSDC model violations: {first:?}");
        if let Some(cqhci) = model.cqhci() {
            assert_eq!(cqhci.violations(), (0, None), "CQHCI model violations");
        }
    }
}

/// What the bench slot ([`Slot`](crate::slot::Slot)) needs of a register bench: the
/// controller's registers, RAM for its descriptor memory, the interrupt line and hardware
/// time. [`Board`] is one; the controller tests' bench, whose model runs after every
/// register write, is the other.
pub(crate) trait Bench: MsdcRegs + Io<CqhciBlock> {
    /// The setup the controller is built with.
    fn setup(&self) -> HostSetup;

    /// The interrupt line: an enabled event is pending.
    fn interrupt_line(&self) -> bool;

    /// Lets `steps` units of hardware time pass; how many steps did something.
    fn advance(&self, steps: u32) -> u32;

    /// Lets `ns` pass on the model clock (a sleep of the driver's).
    fn elapse(&self, ns: u64);

    /// Microseconds the driver's polls busy-waited so far (in the kernel with the lock
    /// held, in the interrupt handler or with interrupts off).
    fn delayed_us(&self) -> u64;

    /// RAM, for the driver's CPU view of its descriptor memory and buffers.
    fn ram(&self) -> RefMut<'_, Vec<u8>>;

    /// The bus address of RAM offset `at`.
    fn bus(&self, at: usize) -> u64;

    /// Lends the CQHCI engine its descriptor memory for one engine call: its bus address
    /// and its bytes, [`CQ_LEN`] of them at [`CQ_AT`] unless the bench puts them elsewhere.
    fn with_task_memory<T>(&self, f: impl FnOnce(u64, &mut [u8]) -> T) -> T {
        let mut ram = self.ram();
        f(self.bus(CQ_AT), &mut ram[CQ_AT..CQ_AT + CQ_LEN])
    }

    /// Asserts that the models saw nothing they do not model or the hardware forbids.
    fn assert_clean(&self);

    /// The core's `request` callback runs for a request with data (`true`), or not: a
    /// bench whose hardware runs during register writes can hold memory back meanwhile.
    fn launching(&self, _with_data: bool) {}
}

impl<C: CardSlot> Bench for Board<C> {
    fn setup(&self) -> HostSetup {
        self.setup
    }

    fn interrupt_line(&self) -> bool {
        Board::interrupt_line(self)
    }

    fn advance(&self, steps: u32) -> u32 {
        Board::advance(self, steps)
    }

    fn elapse(&self, ns: u64) {
        self.model().elapse(ns);
    }

    fn delayed_us(&self) -> u64 {
        Board::delayed_us(self)
    }

    fn ram(&self) -> RefMut<'_, Vec<u8>> {
        Board::ram(self)
    }

    fn bus(&self, at: usize) -> u64 {
        Board::bus(self, at)
    }

    fn assert_clean(&self) {
        Board::assert_clean(self);
    }
}

/// The model `setup` describes, with the model's default timing.
fn model_config(setup: &HostSetup) -> ModelConfig {
    ModelConfig {
        support_64g: setup.addressing == DmaAddressing::Bits36,
        divider_12bit: setup.soc.clock_divider == DividerWidth::Bits12,
        source_hz: setup.source_hz,
        top_region: setup.soc.needs_top_base,
        ..ModelConfig::default()
    }
}

/// The bench's register file for one access through [`Bus`]: the model's registers, and
/// hardware time for the driver's busy-waits.
struct Port<'b, C: CardSlot>(&'b Board<C>);

impl<C: CardSlot> RegisterFile for Port<'_, C> {
    fn read(&mut self, offset: usize) -> u32 {
        let value = self.0.model.borrow_mut().read(offset);
        let left = self.0.reset_reads_left.get();
        if offset == MSDC_CFG::OFFSET && left > 0 {
            self.0.reset_reads_left.set(left - 1);
            return value | MSDC_CFG::zeroed().with_rst(true).raw();
        }
        value
    }

    fn write(&mut self, offset: usize, value: u32) {
        if offset == MSDC_CFG::OFFSET && MSDC_CFG::from_raw(value).rst() {
            self.0.reset_reads_left.set(self.0.reset_reads.get());
        }
        self.0.model.borrow_mut().write(offset, value);
    }

    /// The hardware runs a step, and the busy-wait's time passes on the model clock (a
    /// card programming with DAT0 low finishes meanwhile).
    fn wait_us(&mut self, us: u32) {
        self.0
            .delayed_us
            .set(self.0.delayed_us.get() + u64::from(us));
        self.0.advance(1);
        self.0.model().elapse(u64::from(us) * 1_000);
    }
}

impl<C: CardSlot> Serves<MsdcBase> for Port<'_, C> {
    const BASE: usize = 0;
}

impl<C: CardSlot> Serves<CqhciBlock> for Port<'_, C> {
    const BASE: usize = CQHCI_BASE;
}

/// The top window, where the model serves it for SoCs with `needs_top_base`.
impl<C: CardSlot> Serves<msdc::regs::MsdcTop> for Port<'_, C> {
    const BASE: usize = models::msdc::regs::TOP_BASE;
}

impl<C: CardSlot, W: Window> Io<W> for Board<C>
where
    for<'b> Port<'b, C>: Serves<W>,
{
    fn read32(&self, offset: usize) -> u32 {
        Io::<W>::read32(&Bus::new(Port(self)), offset)
    }

    fn write32(&self, offset: usize, value: u32) {
        Io::<W>::write32(&Bus::new(Port(self)), offset, value);
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        Io::<W>::poll32(&Bus::new(Port(self)), offset, done, limit)
    }
}
