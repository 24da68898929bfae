// SPDX-License-Identifier: GPL-2.0

//! Descriptor chains decoded with the layout from the upstream structs, written out here:
//! GPD `gpd_info` (HWO 0, BDP 1, CHECKSUM 15:8, NEXT_H4 27:24, PTR_H4 31:28), `next`,
//! `ptr`, then four words; BD `bd_info` (EOL 0, CHECKSUM 15:8, BLKPAD 17, DWPAD 18,
//! NEXT_H4 27:24, PTR_H4 31:28), `next`, `ptr`, `bd_data_len` (15:0, or 23:0 with 64G).

use mmc_request::Segment;
use msdc::dma::*;
use msdc::regs::{MSDC_DMA_CFG, MSDC_DMA_CTRL};
use proptest::prelude::*;

const GPD_BYTES: usize = 28;
const BD_BYTES: usize = 16;
const BD_TABLE: usize = 64;

fn word(bytes: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn sums_to_ff(bytes: &[u8]) -> bool {
    bytes[..16].iter().map(|b| u32::from(*b)).sum::<u32>() % 256 == 0xFF
}

#[derive(Debug, PartialEq, Eq)]
struct Gpd {
    hwo: bool,
    bdp: bool,
    next: u64,
    ptr: u64,
    tail: [u32; 4],
}

/// The first GPD of a chain in an area at `base`: owned by the hardware, pointing to the BD
/// table at offset 64, followed by the empty second GPD at 28, its other words zero.
fn chain_gpd(base: u64) -> Gpd {
    Gpd {
        hwo: true,
        bdp: true,
        next: base + 28,
        ptr: base + 64,
        tail: [0; 4],
    }
}

fn gpd(memory: &[u8], index: usize) -> Gpd {
    let bytes = &memory[index * GPD_BYTES..(index + 1) * GPD_BYTES];
    assert!(sums_to_ff(bytes), "GPD {index} checksum");
    let info = word(bytes, 0);
    Gpd {
        hwo: info & 1 != 0,
        bdp: info & 2 != 0,
        next: u64::from(word(bytes, 1)) | (u64::from((info >> 24) & 0xF) << 32),
        ptr: u64::from(word(bytes, 2)) | (u64::from((info >> 28) & 0xF) << 32),
        tail: [
            word(bytes, 3),
            word(bytes, 4),
            word(bytes, 5),
            word(bytes, 6),
        ],
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Bd {
    eol: bool,
    pads: bool,
    next: u64,
    ptr: u64,
    len: u32,
}

fn bd(memory: &[u8], index: usize, wide: bool) -> Bd {
    let start = BD_TABLE + index * BD_BYTES;
    let bytes = &memory[start..start + BD_BYTES];
    assert!(sums_to_ff(bytes), "BD {index} checksum");
    let info = word(bytes, 0);
    // Bits outside the documented fields stay clear.
    let known = 1 | 0xFF00 | (1 << 17) | (1 << 18) | 0xFF00_0000;
    assert_eq!(info & !known, 0, "BD {index} info {info:#x}");
    let len_word = word(bytes, 3);
    let len_mask = if wide { 0xFF_FFFF } else { 0xFFFF };
    assert_eq!(
        len_word & !len_mask,
        0,
        "BD {index} length word {len_word:#x}"
    );
    Bd {
        eol: info & 1 != 0,
        pads: info & ((1 << 17) | (1 << 18)) != 0,
        next: u64::from(word(bytes, 1)) | (u64::from((info >> 24) & 0xF) << 32),
        ptr: u64::from(word(bytes, 2)) | (u64::from((info >> 28) & 0xF) << 32),
        len: len_word & len_mask,
    }
}

fn segment(bus_address: u64, len: u32) -> Segment {
    Segment { bus_address, len }
}

#[test]
fn layout_constants() {
    assert_eq!(GPD_SIZE, GPD_BYTES);
    assert_eq!(BD_SIZE, BD_BYTES);
    assert_eq!(BD_TABLE_OFFSET, BD_TABLE);
    assert_eq!(MAX_SEGMENTS, 1024);
    assert_eq!(area_len(1), 80);
    assert_eq!(area_len(1024), 64 + 16 * 1024);
    assert_eq!(DmaAddressing::Bits32.max_segment_len(), 0xFFFF);
    assert_eq!(DmaAddressing::Bits36.max_segment_len(), 0xFF_FFFF);
    assert_eq!(DmaAddressing::from_support_64g(true), DmaAddressing::Bits36);
    assert_eq!(DmaAddressing::from_support_64g(false).address_bits(), 32);
}

#[test]
fn one_segment() {
    let mut memory = [0xA5u8; 64 + 4 * 16];
    let base = 0x4000_0000;
    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits32).unwrap();
    assert_eq!(area.capacity(), 4);
    let start = area.write_chain([segment(0x8000_1000, 512)]).unwrap();
    assert_eq!(start.gpd_bus_address, base);
    assert_eq!(start.segments, 1);
    assert_eq!(start.total_len, 512);
    assert_eq!(start.start_high, None);
    assert_eq!(start.start_low.raw(), 0x4000_0000);

    assert_eq!(gpd(&memory, 0), chain_gpd(base));
    // The second GPD is all zero: not owned by the hardware, so the engine stops there.
    assert!(memory[28..56].iter().all(|b| *b == 0));
    assert_eq!(
        bd(&memory, 0, false),
        Bd {
            eol: true,
            pads: false,
            next: base + 64 + 16,
            ptr: 0x8000_1000,
            len: 512,
        }
    );
    // Exact bytes of the GPD info word: HWO | BDP, checksum in byte 1.
    let next = (base + 28) as u32;
    let ptr = (base + 64) as u32;
    let sum: u32 = [3u32, next, ptr]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(u32::from)
        .sum();
    assert_eq!(u32::from(memory[1]), (0xFF - (sum % 256)) % 256);
    assert_eq!(memory[0], 3);
    assert!(checksum_valid(&memory[0..28]));
}

#[test]
fn several_segments() {
    let mut memory = vec![0u8; area_len(8)];
    let base = 0x1234_5600;
    let segments = [
        segment(0x9000_0000, 4096),
        segment(0x9000_2000, 4096),
        segment(0x9100_0000, 512),
        segment(0xFFFF_0000, 0xFFFF),
    ];
    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits32).unwrap();
    let start = area.write_chain(segments).unwrap();
    assert_eq!(start.segments, 4);
    assert_eq!(start.total_len, 4096 + 4096 + 512 + 0xFFFF);
    for (index, s) in segments.iter().enumerate() {
        assert_eq!(
            bd(&memory, index, false),
            Bd {
                eol: index == 3,
                pads: false,
                next: base + 64 + 16 * (index as u64 + 1),
                ptr: s.bus_address,
                len: s.len,
            }
        );
    }
}

#[test]
fn reuse_for_a_shorter_chain() {
    let mut memory = vec![0u8; area_len(8)];
    let base = 0x1000;
    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits32).unwrap();
    area.write_chain((0..6).map(|i| segment(0x10_0000 + i * 0x1000, 0x1000)))
        .unwrap();
    let start = area
        .write_chain([segment(0x20_0000, 0x200), segment(0x30_0000, 0x200)])
        .unwrap();
    assert_eq!(start.segments, 2);
    assert!(!bd(&memory, 0, false).eol);
    assert!(bd(&memory, 1, false).eol);
    assert_eq!(bd(&memory, 1, false).ptr, 0x30_0000);
}

#[test]
fn maximum_segments() {
    let mut memory = vec![0u8; area_len(MAX_SEGMENTS + 10)];
    let base = 0x8000_0000;
    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits32).unwrap();
    // A larger area still holds no more than MAX_SEGMENTS.
    assert_eq!(area.capacity(), MAX_SEGMENTS);
    let many = (0..MAX_SEGMENTS as u64).map(|i| segment(0x1_0000 * (i + 1), 0x200));
    let start = area.write_chain(many).unwrap();
    assert_eq!(start.segments, MAX_SEGMENTS);
    for index in 0..MAX_SEGMENTS {
        let d = bd(&memory, index, false);
        assert_eq!(d.eol, index == MAX_SEGMENTS - 1);
        assert_eq!(d.ptr, 0x1_0000 * (index as u64 + 1));
        // The last slot has nothing after it, as in upstream's pre-linked table.
        let want_next = if index + 1 < MAX_SEGMENTS {
            base + 64 + 16 * (index as u64 + 1)
        } else {
            0
        };
        assert_eq!(d.next, want_next);
    }

    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits32).unwrap();
    let too_many = (0..=MAX_SEGMENTS as u64).map(|i| segment(0x1_0000 * (i + 1), 0x200));
    assert_eq!(
        area.write_chain(too_many),
        Err(DmaError::TooManySegments { max: MAX_SEGMENTS })
    );
    // The failed chain is not handed to the hardware.
    assert!(memory[0..56].iter().all(|b| *b == 0));
}

#[test]
fn small_area_capacity() {
    let mut memory = vec![0u8; area_len(3) + 15];
    let mut area = DescriptorArea::new(&mut memory, 0x100, DmaAddressing::Bits32).unwrap();
    assert_eq!(area.capacity(), 3);
    assert_eq!(area.bd_bus_address(2), Some(0x100 + 64 + 32));
    assert_eq!(area.bd_bus_address(3), None);
    assert_eq!(area.bd_bus_address(usize::MAX), None);
    assert_eq!(
        area.write_chain((0..4).map(|i| segment(0x1000 * (i + 1), 1))),
        Err(DmaError::TooManySegments { max: 3 })
    );
    area.write_chain((0..3).map(|i| segment(0x1000 * (i + 1), 1)))
        .unwrap();
    assert_eq!(bd(area.memory(), 2, false).next, 0);
}

#[test]
fn addressing_36_bit() {
    let mut memory = vec![0u8; area_len(4)];
    let base = 0x8_1234_0000;
    let mut area = DescriptorArea::new(&mut memory, base, DmaAddressing::Bits36).unwrap();
    let start = area
        .write_chain([
            segment(0xF_FFFF_0000, 0x1_0000),
            segment(0x3_0000_0000, 0xFF_FFFF),
            segment(0x1000, 1),
        ])
        .unwrap();
    assert_eq!(start.start_high.map(|h| h.raw()), Some(0x8));
    assert_eq!(start.start_low.raw(), 0x1234_0000);
    assert_eq!(gpd(&memory, 0), chain_gpd(base));
    // NEXT_H4 and PTR_H4 of the GPD, both 8.
    assert_eq!(word(&memory, 0) >> 24, 0x88);
    let first = bd(&memory, 0, true);
    assert_eq!(
        (first.ptr, first.len, first.eol),
        (0xF_FFFF_0000, 0x1_0000, false)
    );
    assert_eq!(first.next, base + 64 + 16);
    assert_eq!(word(&memory[64..], 0) >> 24, 0xF8);
    let second = bd(&memory, 1, true);
    assert_eq!((second.ptr, second.len), (0x3_0000_0000, 0xFF_FFFF));
    let third = bd(&memory, 2, true);
    assert_eq!((third.ptr, third.len, third.eol), (0x1000, 1, true));
}

#[test]
fn refused_chains() {
    use DmaAddressing::{Bits32, Bits36};
    use DmaError::{AddressOutOfRange, EmptySegment, NoSegments, SegmentTooLong};
    let too_long = |len, max| SegmentTooLong { len, max };
    // (addressing, segments, error)
    #[rustfmt::skip]
    let cases: [(DmaAddressing, &[Segment], DmaError); 9] = [
        (Bits32, &[segment(0x1_0000_0000, 512)], AddressOutOfRange(0x1_0000_0000)),
        // The last byte must be reachable too.
        (Bits32, &[segment(0xFFFF_FF00, 0x200)], AddressOutOfRange(0x1_0000_00FF)),
        (Bits32, &[segment(0x1000, 0x1_0000)], too_long(0x1_0000, 0xFFFF)),
        (Bits32, &[segment(0x1000, 512), segment(0x2000, 0)], EmptySegment),
        (Bits32, &[], NoSegments),
        (Bits36, &[segment(0x10_0000_0000, 512)], AddressOutOfRange(0x10_0000_0000)),
        (Bits36, &[segment(0xF_FFFF_FFFF, 2)], AddressOutOfRange(0x10_0000_0000)),
        (Bits36, &[segment(u64::MAX, 1)], AddressOutOfRange(u64::MAX)),
        (Bits36, &[segment(0x1000, 0x100_0000)], too_long(0x100_0000, 0xFF_FFFF)),
    ];
    let mut memory = vec![0u8; area_len(4)];
    for (addressing, segments, error) in cases {
        let mut area = DescriptorArea::new(&mut memory, 0x1000, addressing).unwrap();
        assert_eq!(
            area.write_chain(segments.iter().copied()),
            Err(error),
            "{segments:?}"
        );
        // After any refusal the first GPD is not owned by the hardware.
        assert_eq!(area.memory()[0] & 1, 0);
    }
}

#[test]
fn refused_areas() {
    let mut small = [0u8; 79];
    assert_eq!(
        DescriptorArea::new(&mut small, 0x1000, DmaAddressing::Bits32).unwrap_err(),
        DmaError::AreaTooSmall
    );
    let mut memory = vec![0u8; area_len(2)];
    assert_eq!(
        DescriptorArea::new(&mut memory, 0x1002, DmaAddressing::Bits32).unwrap_err(),
        DmaError::Misaligned
    );
    // The area itself must be reachable in full.
    let end = area_len(2) as u64;
    assert_eq!(
        DescriptorArea::new(&mut memory, (1 << 32) - end + 4, DmaAddressing::Bits32).unwrap_err(),
        DmaError::AddressOutOfRange((1 << 32) - end + 4)
    );
    assert!(DescriptorArea::new(&mut memory, (1 << 32) - end, DmaAddressing::Bits32).is_ok());
    assert!(DescriptorArea::new(&mut memory, 1 << 32, DmaAddressing::Bits36).is_ok());
    assert_eq!(
        DescriptorArea::new(&mut memory, u64::MAX - 3, DmaAddressing::Bits36).unwrap_err(),
        DmaError::AddressOutOfRange(u64::MAX - 3)
    );
}

#[test]
fn register_helpers() {
    let ctrl = descriptor_mode(MSDC_DMA_CTRL::from_raw((0x7 << 12) | (1 << 1)));
    assert_eq!(ctrl.raw(), (6 << 12) | (1 << 8) | (1 << 1));
    let cfg = checksum_checking(MSDC_DMA_CFG::from_raw(1 << 16));
    assert_eq!(cfg.raw(), (1 << 16) | (1 << 1));
}

#[test]
fn checksum_rule() {
    let mut descriptor = [0u8; 16];
    descriptor[1] = 0xFF;
    assert!(checksum_valid(&descriptor));
    descriptor[5] = 1;
    assert!(!checksum_valid(&descriptor));
    descriptor[1] = 0xFE;
    assert!(checksum_valid(&descriptor));
    assert!(!checksum_valid(&descriptor[..15]));
}

fn segments_strategy(wide: bool) -> impl Strategy<Value = Vec<Segment>> {
    let (limit, max_len) = if wide {
        (1u64 << 36, 0xFF_FFFFu32)
    } else {
        (1u64 << 32, 0xFFFF)
    };
    prop::collection::vec(
        (1..=max_len).prop_flat_map(move |len| {
            (0..=limit - u64::from(len)).prop_map(move |address| segment(address, len))
        }),
        1..=64,
    )
}

proptest! {
    #[test]
    fn valid_chains_decode_back(
        (wide, segments) in any::<bool>().prop_flat_map(|wide| (Just(wide), segments_strategy(wide))),
        base_slot in 0u64..(1 << 20) - 1,
    ) {
        let addressing = if wide { DmaAddressing::Bits36 } else { DmaAddressing::Bits32 };
        let base = base_slot * 4096;
        let mut memory = vec![0u8; area_len(64)];
        let mut area = DescriptorArea::new(&mut memory, base, addressing).unwrap();
        let start = area.write_chain(segments.iter().copied()).unwrap();
        prop_assert_eq!(start.segments, segments.len());
        let g = gpd(&memory, 0);
        prop_assert!(g.hwo && g.bdp);
        prop_assert_eq!((g.next, g.ptr), (base + 28, base + 64));
        for (index, s) in segments.iter().enumerate() {
            let d = bd(&memory, index, wide);
            prop_assert_eq!(d.ptr, s.bus_address);
            prop_assert_eq!(d.len, s.len);
            prop_assert_eq!(d.eol, index + 1 == segments.len());
            prop_assert!(!d.pads);
            let want_next = if index + 1 < 64 { base + 64 + 16 * (index as u64 + 1) } else { 0 };
            prop_assert_eq!(d.next, want_next);
        }
    }

    #[test]
    fn arbitrary_segments_never_panic(
        raw in prop::collection::vec((any::<u64>(), any::<u32>()), 0..80),
        wide: bool,
        base: u64,
        len in 0usize..2048,
    ) {
        let addressing = if wide { DmaAddressing::Bits36 } else { DmaAddressing::Bits32 };
        let mut memory = vec![0u8; len];
        if let Ok(mut area) = DescriptorArea::new(&mut memory, base, addressing) {
            let capacity = area.capacity();
            let result = area.write_chain(raw.iter().map(|(a, l)| segment(*a, *l)));
            if let Ok(start) = result {
                prop_assert!(start.segments <= capacity);
                prop_assert!(checksum_valid(&memory[0..28]));
                for index in 0..start.segments {
                    let at = BD_TABLE + index * BD_BYTES;
                    prop_assert!(checksum_valid(&memory[at..at + BD_BYTES]));
                }
            } else {
                prop_assert_eq!(memory[0] & 1, 0);
            }
        }
    }
}
