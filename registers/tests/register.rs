// SPDX-License-Identifier: GPL-2.0

//! The register! macro and the Io trait against a small register file.

use core::cell::RefCell;

use registers::{field_enum, poll_by_reads, register, FieldValue, Io, PollLimit, Register, Window};

/// The main window of the test device.
struct Main;
impl Window for Main {
    const NAME: &'static str = "main";
}

/// A second window (e.g. a block at an offset inside the first).
struct Queue;
impl Window for Queue {
    const NAME: &'static str = "queue";
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Off,
    Slow,
    Fast,
    Turbo,
}

impl FieldValue for Mode {
    const WIDTH: u32 = 2;
    fn into_bits(self) -> u64 {
        self as u64
    }
    fn from_bits(bits: u64) -> Self {
        match bits {
            0 => Mode::Off,
            1 => Mode::Slow,
            2 => Mode::Fast,
            _ => Mode::Turbo,
        }
    }
}

field_enum! {
    /// Bus width: encoding 3 is reserved.
    enum Width: 2 bits, partial {
        /// One line.
        One = 0,
        /// Four lines.
        Four = 1,
        /// Eight lines.
        Eight = 2,
    }
}

register! {
    /// Configuration.
    CFG(u32) @ Main + 0x04 {
        /// Reset.
        0:0 rst => bool;
        /// Two reserved bits set together.
        3:2 rsvd => bool;
        /// Divider.
        15:8 div;
        /// Mode.
        17:16 mode => Mode;
        /// Bus width.
        21:20 width ?=> Width;
        /// Top bit.
        31:31 top => bool;
    }

    /// Status.
    STS(u32) @ Main + 0x08 {
        /// Busy.
        0:0 busy => bool;
    }

    /// Doorbell in the second window.
    DOORBELL(u32) @ Queue + 0x04 {
        /// Slots.
        31:0 slots;
    }

    /// A 64-bit descriptor word.
    DESC(u64) {
        /// Valid.
        0:0 valid => bool;
        /// Length.
        31:16 length;
        /// Address.
        63:32 address;
    }
}

/// Two windows of 16 registers; `STS.busy` clears after `busy_reads` reads.
struct Device {
    main: RefCell<[u32; 16]>,
    queue: RefCell<[u32; 16]>,
    busy_reads: RefCell<u32>,
    delays: RefCell<u32>,
}

impl Device {
    fn new(busy_reads: u32) -> Self {
        Self {
            main: RefCell::new([0; 16]),
            queue: RefCell::new([0; 16]),
            busy_reads: RefCell::new(busy_reads),
            delays: RefCell::new(0),
        }
    }
}

/// Where a window's registers are kept in the test device.
trait Bank: Window {
    fn bank(device: &Device) -> &RefCell<[u32; 16]>;
    /// The window holds `STS` (with its busy countdown).
    const HAS_STATUS: bool;
}

impl Bank for Main {
    fn bank(device: &Device) -> &RefCell<[u32; 16]> {
        &device.main
    }
    const HAS_STATUS: bool = true;
}

impl Bank for Queue {
    fn bank(device: &Device) -> &RefCell<[u32; 16]> {
        &device.queue
    }
    const HAS_STATUS: bool = false;
}

impl<W: Bank> Io<W> for Device {
    fn read32(&self, offset: usize) -> u32 {
        if W::HAS_STATUS && offset == STS::OFFSET {
            let mut left = self.busy_reads.borrow_mut();
            *left = left.saturating_sub(1);
            return STS::zeroed().with_busy(*left > 0).raw();
        }
        W::bank(self).borrow()[offset / 4]
    }

    fn write32(&self, offset: usize, value: u32) {
        W::bank(self).borrow_mut()[offset / 4] = value;
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        poll_by_reads(
            || Io::<W>::read32(self, offset),
            |us| *self.delays.borrow_mut() += us,
            done,
            limit,
        )
    }
}

#[test]
fn getters_read_their_bits() {
    let cfg = CFG::from_raw(0x8013_2A01);
    assert!(cfg.rst());
    assert!(!cfg.rsvd());
    assert_eq!(cfg.div(), 0x2A);
    assert_eq!(cfg.mode(), Mode::Turbo);
    assert_eq!(cfg.width(), Some(Width::Four));
    assert!(cfg.top());
    assert_eq!(CFG::from_raw(0x0030_0000).width(), None);
}

#[test]
fn setters_touch_only_their_field() {
    let cfg = CFG::from_raw(u32::MAX).with_rst(false);
    assert_eq!(cfg.raw(), u32::MAX - 1);
    let cfg = CFG::zeroed().with_rsvd(true);
    assert_eq!(cfg.raw(), 0b1100);
    let cfg = CFG::from_raw(u32::MAX).with_mode(Mode::Off);
    assert_eq!(cfg.raw(), !(0b11 << 16));
    let cfg = CFG::zeroed().with_width(Width::Eight);
    assert_eq!(cfg.raw(), 2 << 20);
    let cfg = CFG::from_raw(u32::MAX).with_const_div::<0>();
    assert_eq!(cfg.raw(), !(0xFF << 8));
    assert_eq!(CFG::zeroed().with_top(true).raw(), 1 << 31);
}

#[test]
fn runtime_values_wider_than_the_field_are_refused() {
    let cfg = CFG::from_raw(0x55);
    let err = cfg.try_with_div(0x100).unwrap_err();
    assert_eq!(err.value, 0x100);
    assert_eq!(err.max, 0xFF);
    assert_eq!(cfg.try_with_div(0xFF).map(CFG::raw), Ok(0xFF55));
}

#[test]
fn constant_values_are_built_at_compile_time() {
    const VALUE: CFG = CFG::zeroed().with_const_div::<7>().with_rst(true);
    assert_eq!(VALUE.raw(), 0x701);
}

#[test]
fn sixty_four_bit_words() {
    let desc = DESC::zeroed()
        .with_valid(true)
        .try_with_length(0xFFFF)
        .and_then(|d| d.try_with_address(0xDEAD_BEEF))
        .unwrap();
    assert_eq!(desc.raw(), 0xDEAD_BEEF_FFFF_0001);
    assert_eq!(desc.address(), 0xDEAD_BEEF);
    assert_eq!(desc.length(), 0xFFFF);
    assert!(desc.try_with_length(0x1_0000).is_err());
}

#[test]
fn io_reaches_each_register_through_its_window() {
    let dev = Device::new(0);
    dev.write(CFG::zeroed().with_const_div::<3>());
    dev.write(DOORBELL::zeroed().with_const_slots::<0x8000_0001>());
    assert_eq!(dev.main.borrow()[1], 0x300);
    assert_eq!(dev.queue.borrow()[1], 0x8000_0001);
    assert_eq!(dev.read::<CFG>().div(), 3);
    assert_eq!(dev.read::<DOORBELL>().slots(), 0x8000_0001);
    let written = dev.update::<CFG>(|cfg| cfg.with_rst(true));
    assert_eq!(written.raw(), 0x301);
    assert_eq!(dev.main.borrow()[1], 0x301);
}

#[test]
fn poll_returns_the_accepted_value_or_times_out() {
    let limit = PollLimit {
        attempts: 10,
        interval_us: 5,
    };
    let dev = Device::new(4);
    let sts = dev.poll::<STS>(|s| !s.busy(), limit).unwrap();
    assert!(!sts.busy());
    assert_eq!(*dev.delays.borrow(), 15);

    let dev = Device::new(100);
    let err = dev.poll::<STS>(|s| !s.busy(), limit).unwrap_err();
    assert_eq!(err.register, "STS");
    assert_eq!(err.last, 1);
    // Ten reads, with a wait between each two of them.
    assert_eq!(*dev.delays.borrow(), 45);
}

#[test]
fn registers_name_their_window_and_offset() {
    assert_eq!(<CFG as Register>::OFFSET, 4);
    assert_eq!(<CFG as Register>::NAME, "CFG");
    assert_eq!(<<DOORBELL as Register>::Window as Window>::NAME, "queue");
    assert_eq!(format!("{:?}", CFG::from_raw(0x10)), "CFG(0x10)");
}

#[test]
fn offsets_serve_as_patterns() {
    let name = |offset: usize| match offset {
        CFG::OFFSET => "CFG",
        STS::OFFSET => "STS",
        _ => "?",
    };
    assert_eq!(name(4), "CFG");
    assert_eq!(name(8), "STS");
    assert_eq!(name(12), "?");
}

register! {
    /// Fields read and written as integers of their exact width.
    ADDR(u32) {
        /// Relative card address.
        31:16 rca => u16;
        /// Low byte.
        7:0 low => u8;
    }
}

#[test]
fn integer_fields_of_exact_width_never_overflow() {
    let addr = ADDR::zeroed().with_rca(0xBEEF).with_low(0x42);
    assert_eq!(addr.raw(), 0xBEEF_0042);
    assert_eq!(addr.rca(), 0xBEEF);
    assert_eq!(addr.low(), 0x42);
}
