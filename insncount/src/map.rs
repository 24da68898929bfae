// SPDX-License-Identifier: GPL-2.0
//! The address map: guest virtual address ranges, each of one bucket, and the
//! marker instruction the guest runs to ask for a snapshot of the counters.

use std::fmt;

/// The bucket of every user-space address (the lower half of the address space).
pub const USER: &str = "user";
/// The bucket of a kernel address that no range of the map covers.
pub const OTHER: &str = "other";

/// The marker: `movabs $0x4b52414d4e534e49, %r11` ("INSNMARK" as little-endian
/// bytes), ten bytes that a compiler has no reason to emit. Executed in user
/// space, it makes the plugin print a snapshot of every counter.
pub const MARKER: [u8; 10] = [0x49, 0xbb, b'I', b'N', b'S', b'N', b'M', b'A', b'R', b'K'];

/// Whether `addr` is in the kernel's half of the address space (x86_64 and
/// arm64 alike put the kernel where the top bit is set).
pub fn is_kernel(addr: u64) -> bool {
    addr >> 63 == 1
}

/// Whether an instruction's bytes at a user-space address are the marker.
pub fn is_marker(addr: u64, bytes: &[u8]) -> bool {
    !is_kernel(addr) && bytes == MARKER
}

/// A map file's problem, with its line.
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub what: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

/// Sorted, disjoint `[start, end)` ranges of kernel addresses, each with a bucket
/// index; bucket 0 is [`USER`], bucket 1 [`OTHER`], the rest named by the map.
#[derive(Debug, Default)]
pub struct AddrMap {
    starts: Vec<u64>,
    ends: Vec<u64>,
    buckets: Vec<usize>,
    names: Vec<String>,
    /// Each range's symbol, when kept ([`AddrMap::parse_symbols`]).
    symbols: Vec<String>,
}

impl AddrMap {
    /// Parses a map: one range a line, `<start> <end> <bucket> [<symbol>]`, the
    /// addresses in hexadecimal (an optional `0x`), ranges in ascending order and
    /// disjoint. Empty lines and lines starting with `#` are skipped. Adjacent ranges
    /// of one bucket merge.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        Self::parse_with(text, false)
    }

    /// Parses a map as [`AddrMap::parse`] does, but keeps every range and its symbol
    /// (`?` where the line names none), for counts per symbol.
    pub fn parse_symbols(text: &str) -> Result<Self, ParseError> {
        Self::parse_with(text, true)
    }

    fn parse_with(text: &str, keep_symbols: bool) -> Result<Self, ParseError> {
        let mut map = AddrMap {
            names: vec![USER.to_string(), OTHER.to_string()],
            ..AddrMap::default()
        };
        for (i, line) in text.lines().enumerate() {
            let err = |what: String| ParseError { line: i + 1, what };
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split_whitespace();
            let (Some(start), Some(end), Some(name), symbol, None) = (
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
            ) else {
                return Err(err(format!(
                    "want `start end bucket [symbol]`, got `{line}`"
                )));
            };
            let hex = |s: &str| {
                u64::from_str_radix(s.trim_start_matches("0x"), 16)
                    .map_err(|e| err(format!("bad address `{s}`: {e}")))
            };
            let (start, end) = (hex(start)?, hex(end)?);
            if start >= end {
                return Err(err(format!("empty range {start:#x}..{end:#x}")));
            }
            if map.ends.last().is_some_and(|&prev| start < prev) {
                return Err(err(format!(
                    "range at {start:#x} overlaps or is out of order"
                )));
            }
            if name == USER {
                return Err(err(format!("`{USER}` is the lower half's bucket")));
            }
            let bucket = match map.names.iter().position(|n| n == name) {
                Some(b) => b,
                None => {
                    map.names.push(name.to_string());
                    map.names.len() - 1
                }
            };
            // Adjacent ranges of one bucket merge, so that lookups search fewer.
            if !keep_symbols
                && map.ends.last() == Some(&start)
                && map.buckets.last() == Some(&bucket)
            {
                *map.ends.last_mut().unwrap() = end;
            } else {
                map.starts.push(start);
                map.ends.push(end);
                map.buckets.push(bucket);
                if keep_symbols {
                    map.symbols.push(symbol.unwrap_or("?").to_string());
                }
            }
        }
        Ok(map)
    }

    /// The bucket names, by index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// How many ranges the map keeps after merging adjacent ones.
    pub fn ranges(&self) -> usize {
        self.starts.len()
    }

    /// The bucket of a guest virtual address.
    pub fn lookup(&self, addr: u64) -> usize {
        if !is_kernel(addr) {
            return 0;
        }
        self.range_of(addr).map_or(1, |r| self.buckets[r])
    }

    /// The index of the range holding a kernel address, if one does.
    pub fn range_of(&self, addr: u64) -> Option<usize> {
        let i = self.starts.partition_point(|&s| s <= addr);
        (is_kernel(addr) && i > 0 && addr < self.ends[i - 1]).then(|| i - 1)
    }

    /// A range's bucket.
    pub fn bucket_of_range(&self, range: usize) -> usize {
        self.buckets[range]
    }

    /// A range's symbol, if the map was parsed with [`AddrMap::parse_symbols`].
    pub fn symbol(&self, range: usize) -> Option<&str> {
        self.symbols.get(range).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 0xffff_ffff_8100_0000;

    #[test]
    fn lookup_finds_ranges_and_gaps() {
        let text = format!(
            "# a comment\n{:x} {:x} core\n{:x} {:x} driver\n\n0x{:x} 0x{:x} core\n",
            K,
            K + 0x10,
            K + 0x10,
            K + 0x20,
            K + 0x40,
            K + 0x50
        );
        let map = AddrMap::parse(&text).unwrap();
        assert_eq!(map.names(), ["user", "other", "core", "driver"]);
        assert_eq!(map.lookup(0x40_1000), 0);
        assert_eq!(map.lookup(K - 1), 1);
        assert_eq!(map.lookup(K), 2);
        assert_eq!(map.lookup(K + 0xf), 2);
        assert_eq!(map.lookup(K + 0x10), 3);
        assert_eq!(map.lookup(K + 0x1f), 3);
        assert_eq!(map.lookup(K + 0x20), 1);
        assert_eq!(map.lookup(K + 0x45), 2);
        assert_eq!(map.lookup(K + 0x50), 1);
        assert_eq!(map.lookup(u64::MAX), 1);
    }

    #[test]
    fn adjacent_ranges_of_one_bucket_merge() {
        let text = format!(
            "{:x} {:x} a\n{:x} {:x} a\n{:x} {:x} b\n",
            K,
            K + 1,
            K + 1,
            K + 2,
            K + 2,
            K + 3
        );
        let map = AddrMap::parse(&text).unwrap();
        assert_eq!(map.ranges(), 2);
        assert_eq!(map.lookup(K + 1), 2);
        assert_eq!(map.lookup(K + 2), 3);
    }

    #[test]
    fn symbols_are_kept_on_request() {
        let text = format!(
            "{:x} {:x} a f\n{:x} {:x} a\n{:x} {:x} b h\n",
            K,
            K + 1,
            K + 1,
            K + 2,
            K + 4,
            K + 5
        );
        let map = AddrMap::parse_symbols(&text).unwrap();
        assert_eq!(map.ranges(), 3);
        assert_eq!(map.range_of(K + 1), Some(1));
        assert_eq!(map.range_of(K + 3), None);
        assert_eq!(map.range_of(0x1000), None);
        assert_eq!(map.symbol(0), Some("f"));
        assert_eq!(map.symbol(1), Some("?"));
        assert_eq!(map.bucket_of_range(2), 3);
        assert_eq!(map.lookup(K + 4), 3);
        assert_eq!(AddrMap::parse(&text).unwrap().symbol(0), None);
    }

    #[test]
    fn bad_maps_are_refused() {
        let bad = |text: &str, line| assert_eq!(AddrMap::parse(text).unwrap_err().line, line);
        bad("10 20 a\n5 8 b\n", 2);
        bad("10 20 a\n18 30 b\n", 2);
        bad("20 10 a\n", 1);
        bad("10 20\n", 1);
        bad("10 20 a b c\n", 1);
        bad("zz 20 a\n", 1);
        bad("10 20 user\n", 1);
    }

    #[test]
    fn marker_only_in_user_space() {
        assert!(is_marker(0x40_1000, &MARKER));
        assert!(!is_marker(K, &MARKER));
        assert!(!is_marker(0x40_1000, &MARKER[..9]));
    }
}
