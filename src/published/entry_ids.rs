//! A sorted table of digests, each once, that does not hold a second time the digests the
//! chain's lines already hold (docs/scale.md#ids-by-line).
//!
//! The witness layer's store names each record by its entry_id, and nearly every record is a
//! line of the chain, whose entry_id the line's record already holds. At a million lines the
//! table of the store's ids took 32 MB beside the lines' own 32 MB, for the whole layer and,
//! through the published proofs list that is named by it, to the end of the build. Here a
//! digest that is a line's entry_id is held as that line's position (4 bytes); only a digest
//! no line holds (an orphan, a record whose seq names another line) is held as itself.

use exhibit_protocol::Digest;
use std::sync::Arc;

/// Where the table reads a digest it holds as a line's position: the chain's lines.
pub trait LineIds: Send + Sync + std::fmt::Debug {
    /// How many lines there are.
    fn count(&self) -> usize;
    /// Line `line`'s entry_id (`line` < `count()`).
    fn entry_id(&self, line: usize) -> Digest;
}

/// Digests in increasing order, each once, read by position.
#[derive(Debug, Clone)]
pub struct SortedIds(Held);

#[derive(Debug, Clone)]
enum Held {
    /// Each digest as itself.
    Own(Vec<Digest>),
    /// Each digest as a line's position in `lines`, or, with [`OTHER`] set, a position in
    /// `others`.
    ByLine {
        lines: Arc<dyn LineIds>,
        at: Vec<u32>,
        others: Vec<Digest>,
    },
}

/// The bit that marks a position in [`Held::ByLine`]'s `others`, not a line's.
const OTHER: u32 = 1 << 31;

impl Default for SortedIds {
    fn default() -> SortedIds {
        SortedIds(Held::Own(Vec::new()))
    }
}

impl SortedIds {
    /// The table of `ids`, which the caller has sorted, each once ([`SortedIds::is_strictly_sorted`]
    /// tells).
    pub fn own(ids: Vec<Digest>) -> SortedIds {
        SortedIds(Held::Own(ids))
    }

    /// The same table, each digest that is the entry_id of the line `line_of` names for its
    /// position held as that line's position. A digest whose named line holds another (or no
    /// line named) is kept as itself; so is the whole table when the positions would not fit
    /// in 31 bits. Reading the result gives exactly the digests read before.
    pub fn by_line(
        self,
        lines: Arc<dyn LineIds>,
        line_of: impl Fn(usize) -> Option<usize>,
    ) -> SortedIds {
        let Held::Own(ids) = self.0 else {
            return self;
        };
        let count = lines.count();
        if count >= OTHER as usize || ids.len() >= OTHER as usize {
            return SortedIds(Held::Own(ids));
        }
        let mut at = Vec::with_capacity(ids.len());
        let mut others = Vec::new();
        for (k, id) in ids.iter().enumerate() {
            match line_of(k).filter(|&line| line < count && lines.entry_id(line) == *id) {
                // Both below 2^31, checked above.
                Some(line) => at.push(line as u32),
                None => {
                    at.push(OTHER | others.len() as u32);
                    others.push(*id);
                }
            }
        }
        drop(ids);
        others.shrink_to_fit();
        SortedIds(Held::ByLine { lines, at, others })
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Own(ids) => ids.len(),
            Held::ByLine { at, .. } => at.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The digest at position `k` (`k` < `len()`).
    pub fn at(&self, k: usize) -> Digest {
        match &self.0 {
            Held::Own(ids) => ids[k],
            Held::ByLine { lines, at, others } => {
                let a = at[k];
                if a & OTHER != 0 {
                    others[(a & !OTHER) as usize]
                } else {
                    lines.entry_id(a as usize)
                }
            }
        }
    }

    /// The position in the lines of the line whose entry_id is the digest at `k`, when the table
    /// holds that digest as the line's (`None` for a digest held as itself).
    pub fn line_at(&self, k: usize) -> Option<usize> {
        match &self.0 {
            Held::ByLine { at, .. } => at.get(k).filter(|&&a| a & OTHER == 0).map(|&a| a as usize),
            Held::Own(_) => None,
        }
    }

    /// The digest at position `k`, if there is one.
    pub fn get(&self, k: usize) -> Option<Digest> {
        (k < self.len()).then(|| self.at(k))
    }

    /// Every digest, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Digest> + '_ {
        (0..self.len()).map(|k| self.at(k))
    }

    /// `id`'s position, or where it would go: as `slice::binary_search` answers.
    pub fn binary_search(&self, id: &Digest) -> Result<usize, usize> {
        self.binary_search_by(|d| d.cmp(id))
    }

    /// As `slice::binary_search_by`, over the digests in order.
    pub fn binary_search_by(
        &self,
        mut order: impl FnMut(&Digest) -> std::cmp::Ordering,
    ) -> Result<usize, usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match order(&self.at(mid)) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(low)
    }

    /// Whether each digest comes after the one before.
    pub fn is_strictly_sorted(&self) -> bool {
        match &self.0 {
            Held::Own(ids) => ids.is_sorted_by(|a, b| a < b),
            Held::ByLine { .. } => {
                let mut ids = self.iter();
                let Some(mut last) = ids.next() else {
                    return true;
                };
                ids.all(|id| std::mem::replace(&mut last, id) < id)
            }
        }
    }

    /// The same table holding every digest as itself, the lines no longer needed: made when
    /// the lines are let go before the page and DIR's writing, so that a list named by the
    /// table does not keep them (docs/scale.md#ids-by-line).
    pub fn alone(&self) -> SortedIds {
        SortedIds(Held::Own(self.iter().collect()))
    }

    /// How many digests are held as themselves (the rest as a line's position).
    pub fn held_as_digests(&self) -> usize {
        match &self.0 {
            Held::Own(ids) => ids.len(),
            Held::ByLine { others, .. } => others.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Lines(Vec<Digest>);

    impl LineIds for Lines {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn entry_id(&self, line: usize) -> Digest {
            self.0[line]
        }
    }

    fn digests(n: u32) -> Vec<Digest> {
        let mut ids: Vec<Digest> = (0..n).map(|i| Digest::of(&i.to_le_bytes())).collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_table_by_line_reads_every_digest_it_was_given_and_holds_only_the_others() {
        let ids = digests(200);
        // The lines hold every other id, in another order; one line is named for a digest it
        // does not hold, and some ids name no line at all.
        let lines: Vec<Digest> = ids.iter().step_by(2).rev().copied().collect();
        let line_of = |k: usize| -> Option<usize> {
            match k {
                5 => Some(0),
                7 => Some(lines.len() + 3),
                _ if k.is_multiple_of(2) => lines.iter().position(|d| *d == ids[k]),
                _ => None,
            }
        };
        let table = SortedIds::own(ids.clone()).by_line(Arc::new(Lines(lines.clone())), line_of);
        assert_eq!(table.len(), ids.len());
        assert_eq!(table.iter().collect::<Vec<_>>(), ids);
        assert_eq!(table.held_as_digests(), 100, "only the odd positions");
        assert!(table.is_strictly_sorted());
        for (k, id) in ids.iter().enumerate() {
            assert_eq!(table.binary_search(id), Ok(k));
            assert_eq!(table.at(k), *id);
        }
        let absent = Digest::of(b"absent");
        assert_eq!(
            table.binary_search(&absent),
            ids.binary_search(&absent),
            "an absent digest is placed where the slice would place it"
        );
        assert_eq!(
            SortedIds::own(Vec::new()).binary_search(&absent),
            Err(0),
            "an empty table"
        );
    }

    #[test]
    fn a_table_not_in_order_is_told_whichever_way_it_is_held() {
        let mut ids = digests(10);
        ids.swap(3, 4);
        let lines = Arc::new(Lines(ids.clone()));
        assert!(!SortedIds::own(ids.clone()).is_strictly_sorted());
        let by_line = SortedIds::own(ids.clone()).by_line(lines.clone(), Some);
        assert_eq!(by_line.held_as_digests(), 0);
        assert!(!by_line.is_strictly_sorted());
        let mut twice = digests(10);
        twice[4] = twice[3];
        assert!(
            !SortedIds::own(twice.clone())
                .by_line(lines, Some)
                .is_strictly_sorted()
        );
        assert!(SortedIds::own(digests(10)).is_strictly_sorted());
    }
}
