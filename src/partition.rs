//! `--partition K/N`: a deterministic share of the members, so that N jobs
//! of a CI matrix verify a large code base between them.
//!
//! A member belongs to share `1 + h mod N`, where `h` is a SHA-256 hash of
//! the file's path (as given) and the member's qualified name. Neither the
//! order of the files nor edits to other members move a member to another
//! share, so each job's `--cache` stays useful from one commit to the next.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// Share `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    pub index: u64,
    pub count: u64,
}

impl Partition {
    /// Whether the member `name` (`Class.member`) of the file `path` is in
    /// this share.
    pub fn contains(&self, path: &str, name: &str) -> bool {
        share_of(path, name, self.count) == self.index
    }
}

/// The share (1-based) of a member among `count`.
pub fn share_of(path: &str, name: &str, count: u64) -> u64 {
    let mut h = Sha256::new();
    // Length prefixes keep ("a", "b.c") and ("ab", ".c") apart.
    h.update((path.len() as u64).to_le_bytes());
    h.update(path.as_bytes());
    h.update((name.len() as u64).to_le_bytes());
    h.update(name.as_bytes());
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    1 + u64::from_le_bytes(first) % count.max(1)
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(s: &str) -> Result<Partition, String> {
        let usage = || format!("`{s}` is not a share: expected K/N with 1 <= K <= N, such as 2/3");
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let number = |t: &str| -> Result<u64, String> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(usage());
            }
            t.parse::<u64>().map_err(|_| usage())
        };
        let (index, count) = (number(k)?, number(n)?);
        if count == 0 {
            return Err(format!("`{s}`: the number of shares N must be at least 1"));
        }
        if index == 0 || index > count {
            return Err(format!(
                "`{s}`: the share K must be between 1 and N = {count}"
            ));
        }
        Ok(Partition { index, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_good_shares() {
        assert_eq!(
            "2/3".parse::<Partition>(),
            Ok(Partition { index: 2, count: 3 })
        );
        assert_eq!(
            "1/1".parse::<Partition>(),
            Ok(Partition { index: 1, count: 1 })
        );
        assert_eq!(Partition { index: 2, count: 3 }.to_string(), "2/3");
    }

    #[test]
    fn rejects_bad_shares() {
        for bad in [
            "0/3",
            "4/3",
            "x/y",
            "1/0",
            "0/0",
            "3",
            "",
            "/",
            "1/",
            "/3",
            "-1/3",
            "+1/3",
            " 1/3",
            "1/3/3",
            "99999999999999999999/3",
        ] {
            assert!(bad.parse::<Partition>().is_err(), "{bad:?} was accepted");
        }
        assert_eq!(
            "4/3".parse::<Partition>(),
            Err("`4/3`: the share K must be between 1 and N = 3".to_string())
        );
    }

    #[test]
    fn every_member_is_in_exactly_one_share() {
        for n in 1..6u64 {
            for i in 0..50 {
                let name = format!("C.m{i}");
                let owners: Vec<u64> = (1..=n)
                    .filter(|&k| Partition { index: k, count: n }.contains("a.sift", &name))
                    .collect();
                assert_eq!(owners.len(), 1, "{name} in {owners:?} of {n}");
                assert_eq!(owners[0], share_of("a.sift", &name, n));
            }
        }
    }

    #[test]
    fn shares_are_stable_and_spread() {
        // Fixed values: a change of the hash would move members between
        // the jobs of a CI matrix, and so empty their caches.
        assert_eq!(share_of("a.sift", "A.m", 3), 1);
        assert_eq!(share_of("a.sift", "A.n", 3), 3);
        assert_eq!(share_of("b.sift", "A.m", 3), 3);
        assert_eq!(share_of("a.sift", "A.m", 7), 7);
        assert_eq!(share_of("x/y.sift", "Main.main", 2), 2);
        let counts = (0..300).fold([0usize; 3], |mut c, i| {
            c[(share_of("big.sift", &format!("C.m{i}"), 3) - 1) as usize] += 1;
            c
        });
        assert!(counts.iter().all(|&c| c > 50), "{counts:?}");
    }
}
