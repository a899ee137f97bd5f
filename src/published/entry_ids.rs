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

/// The chain's entry_ids alone, in line order, 32 bytes each: what a table read by line reads
/// once the lines themselves are let go ([`rest_on_ids_alone`]); a line's record is 72.
#[derive(Debug)]
struct IdsAlone(Vec<u8>);

impl LineIds for IdsAlone {
    fn count(&self) -> usize {
        self.0.len() / 32
    }
    fn entry_id(&self, line: usize) -> Digest {
        let mut id = [0u8; 32];
        id.copy_from_slice(&self.0[line * 32..line * 32 + 32]);
        Digest(id)
    }
}

/// How many lines [`rest_on_ids_alone`] takes apart at a time: the lines' room is given back
/// after each step, so the lines and their ids are never both held whole.
const STEP: usize = 1 << 16;

/// Makes `tables`, read by the chain's `lines`, read the lines' entry_ids alone, and lets the
/// lines go (docs/scale.md#ids-by-line). The lines are taken apart from their end a step at a
/// time, each step's ids written into a table allocated zeroed (its pages untouched until
/// written) and the lines' room given back after it, so at no moment are the lines and a copy
/// of their ids both held whole: at a million lines the copy was 32 MB over the build's
/// peak. Done only when nothing else holds the lines or a table (each table read by line is
/// made to read the ids; a table held elsewhere too is made to hold its digests as
/// themselves); otherwise every table reads the lines again, as before, and nothing is let
/// go. Returns what the tables now read the ids from (the ids alone, or the lines still held)
/// and whether the lines were let go. Reading any table gives exactly the digests it gave
/// before.
pub fn rest_on_ids_alone<T: 'static>(
    tables: &mut [Arc<SortedIds>],
    lines: Arc<Vec<T>>,
    entry_id: impl Fn(&T) -> Digest,
) -> (Arc<dyn LineIds>, bool)
where
    Vec<T>: LineIds,
{
    // What the tables read while their lines are made again: no line (nothing reads them then).
    let none: Arc<dyn LineIds> = Arc::new(IdsAlone(Vec::new()));
    for table in tables.iter_mut() {
        if let Some(SortedIds(Held::ByLine { lines: held, .. })) = Arc::get_mut(table) {
            *held = none.clone();
        } else if table.held_as_digests() < table.len() {
            // Shared with another holder: it can only stop reading the lines by holding its
            // digests itself.
            *table = Arc::new(table.alone());
        }
    }
    let (read, let_go): (Arc<dyn LineIds>, bool) = match Arc::try_unwrap(lines) {
        Ok(mut lines) => {
            // Bytes, not 32-byte arrays: only a table of plain zero bytes (or of arrays of at
            // most 16) is allocated zeroed by the system, its pages untouched until written;
            // any other is written zero first, all of it at once.
            let mut ids = vec![0u8; lines.len() * 32];
            while !lines.is_empty() {
                let from = lines.len().saturating_sub(STEP);
                for (k, line) in (from..).zip(lines.drain(from..)) {
                    ids[k * 32..k * 32 + 32].copy_from_slice(&entry_id(&line).0);
                }
                lines.shrink_to_fit();
            }
            (Arc::new(IdsAlone(ids)), true)
        }
        Err(lines) => (lines, false),
    };
    for table in tables.iter_mut() {
        if let Some(SortedIds(Held::ByLine { lines: held, .. })) = Arc::get_mut(table) {
            *held = read.clone();
        }
    }
    (read, let_go)
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
    /// A line's record as the build holds it: an entry_id among other fields, one of them
    /// boxed (dropped as the lines are taken apart).
    #[derive(Debug)]
    struct Line {
        id: Digest,
        _kind: Box<u64>,
    }

    impl LineIds for Vec<Line> {
        fn count(&self) -> usize {
            self.len()
        }
        fn entry_id(&self, line: usize) -> Digest {
            self[line].id
        }
    }

    /// Lines over more than one step, in an order other than the ids', and two tables read by
    /// them (one of them held by two lists).
    fn lines_and_tables(n: u32) -> (Arc<Vec<Line>>, Vec<Digest>, Vec<Arc<SortedIds>>) {
        let ids = digests(n);
        let lines: Vec<Line> = (0..n as usize)
            .map(|k| Line {
                id: ids[(k * 7919) % n as usize],
                _kind: Box::new(k as u64),
            })
            .collect();
        let lines = Arc::new(lines);
        let position: std::collections::HashMap<Digest, usize> =
            lines.iter().enumerate().map(|(k, l)| (l.id, k)).collect();
        let every =
            SortedIds::own(ids.clone()).by_line(lines.clone(), |k| position.get(&ids[k]).copied());
        let odd: Vec<Digest> = ids.iter().skip(1).step_by(2).copied().collect();
        let some =
            SortedIds::own(odd.clone()).by_line(lines.clone(), |k| position.get(&odd[k]).copied());
        (lines, ids, vec![Arc::new(every), Arc::new(some)])
    }

    #[test]
    fn tables_rest_on_the_ids_alone_and_the_lines_go() {
        // Catches ids written at the wrong place as the lines are taken apart step by step (the
        // step's first, the last short step), a table left reading no lines, and lines said to
        // be let go while still held.
        let n = (STEP + STEP / 2 + 3) as u32;
        let (lines, ids, mut tables) = lines_and_tables(n);
        let before: Vec<Vec<Digest>> = tables.iter().map(|t| t.iter().collect()).collect();
        assert_eq!(before[0], ids);
        let gone = Arc::downgrade(&lines);
        assert!(rest_on_ids_alone(&mut tables, lines, |l: &Line| l.id).1);
        assert!(gone.upgrade().is_none(), "the lines are let go");
        for (table, was) in tables.iter().zip(&before) {
            assert_eq!(&table.iter().collect::<Vec<_>>(), was);
            assert_eq!(table.held_as_digests(), 0, "still read by line, not copied");
            assert!((0..table.len()).all(|k| table.line_at(k).is_some()));
        }
    }

    #[test]
    fn lines_held_elsewhere_stay_and_a_table_held_elsewhere_holds_its_digests() {
        // Catches a table left reading no lines when the lines cannot be let go, and a table
        // another holder shares being changed under it.
        let (lines, ids, mut tables) = lines_and_tables(300);
        let kept = lines.clone();
        assert!(!rest_on_ids_alone(&mut tables, lines, |l: &Line| l.id).1);
        assert_eq!(tables[0].iter().collect::<Vec<_>>(), ids);
        assert_eq!(tables[0].held_as_digests(), 0, "reads the lines again");
        drop(kept);

        let (lines, ids, mut tables) = lines_and_tables(300);
        let elsewhere = tables[0].clone();
        let gone = Arc::downgrade(&lines);
        assert!(
            !rest_on_ids_alone(&mut tables, lines, |l: &Line| l.id).1,
            "the shared table still reads the lines"
        );
        assert_eq!(tables[0].held_as_digests(), ids.len(), "a copy of its own");
        assert_eq!(tables[0].iter().collect::<Vec<_>>(), ids);
        assert_eq!(elsewhere.iter().collect::<Vec<_>>(), ids);
        drop(elsewhere);
        assert!(gone.upgrade().is_some());
    }
}
