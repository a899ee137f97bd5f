//! What the tree's files were, carried to the next build (docs/tree.md#carried): the sizes and
//! sha256 of the files that never change once made (full tiles and bundles, full `lines/`
//! groups, the index runs), level 1's stored hashes, and what each depends on. A daily build
//! then makes only the day's files and names the others by what they were: the tree's work is
//! the day's, not the years'.
//!
//! A state binds to the chain by its size and the `entry_id` at that seq (each `entry_id` names
//! every line before it), to the withheld seqs up to it (a `lines/` group and a digest-index
//! run hold the published lines only), and to this binary (crate::previous::carried). An
//! excerpt run binds to the pairs (seq, text) it was made from. A file named by the state is
//! still made again, from the chain, whenever it must be written; the second making must give
//! the bytes the state names, or the build fails (crate::published::output_tree::Remade).

use std::collections::BTreeMap;
use std::path::Path;

use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, Hash, TILE_WIDTH};

/// Where the state lives in the repository's git folder.
pub const FILE: &str = "exhibit/tree-files";
const MAGIC: &[u8] = b"exhibit-treefiles\n";

/// A file's size and sha256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    pub len: u64,
    pub sha256: Digest,
}

/// The buckets of each index run, by `(level, run)`.
pub type Runs = BTreeMap<(u8, u64), Vec<Known>>;

/// The tree's files at one size, as a build made them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFiles {
    pub size: u64,
    /// The `entry_id` at seq `size` (zeros at size 0).
    pub head: Digest,
    /// The seqs up to `size` whose lines are not published, ascending.
    pub withheld: Vec<u64>,
    /// Level 1's stored hashes: one per full level-0 tile.
    pub upper: Vec<Hash>,
    /// Each full level-0 tile's sha256 and its bundle's.
    pub tiles: Vec<(Digest, Digest)>,
    /// Each full `lines/` group.
    pub lines: Vec<Known>,
    /// The digest index's runs at `size`.
    pub index: Runs,
    /// The excerpt index's runs: each with the digest of the pairs it was made from.
    pub excerpts: BTreeMap<(u8, u64), (Digest, Vec<Known>)>,
}

impl Default for TreeFiles {
    fn default() -> TreeFiles {
        TreeFiles {
            size: 0,
            head: Digest([0; 32]),
            withheld: Vec::new(),
            upper: Vec::new(),
            tiles: Vec::new(),
            lines: Vec::new(),
            index: Runs::new(),
            excerpts: BTreeMap::new(),
        }
    }
}

/// A state that binds to the chain being built: what of it this build may name.
#[derive(Debug, Default)]
pub struct Bound {
    pub files: TreeFiles,
    /// The withheld seqs of the chain being built up to the state's size.
    now_withheld: Vec<u64>,
}

impl Bound {
    /// The full level-0 tiles (and `upper`) the state names.
    pub fn full_tiles(&self) -> usize {
        self.files.tiles.len()
    }

    /// Whether the lines `first..=last` are within the state's size and published then as now.
    pub fn same_lines(&self, first: u64, last: u64) -> bool {
        if last > self.files.size {
            return false;
        }
        let slice = |w: &[u64]| {
            let lo = w.partition_point(|&s| s < first);
            let hi = w.partition_point(|&s| s <= last);
            (lo, hi)
        };
        let (a, b) = slice(&self.files.withheld);
        let (c, d) = slice(&self.now_withheld);
        self.files.withheld[a..b] == self.now_withheld[c..d]
    }
}

/// The state this binary carried, when it binds to `chain` (docs/tree.md#carried).
pub fn open(git_dir: Option<&Path>, chain: &super::tree::Chain) -> Option<Bound> {
    let body = crate::previous::carried::read_for_binary(git_dir, FILE, MAGIC)?;
    let files = parse(&body)?;
    let size = usize::try_from(files.size).ok()?;
    if size > chain.len() {
        return None;
    }
    if size > 0 && chain.entry_id(size - 1) != files.head {
        return None;
    }
    Some(Bound {
        now_withheld: chain.withheld_seqs(files.size),
        files,
    })
}

/// The state to save once DIR is written.
pub fn carried(
    git_dir: Option<&Path>,
    files: &TreeFiles,
) -> Option<crate::previous::carried::Carried> {
    crate::previous::carried::for_binary(git_dir, FILE, MAGIC, &encode(files))
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_known(out: &mut Vec<u8>, k: &Known) {
    put_u64(out, k.len);
    out.extend_from_slice(&k.sha256.0);
}

fn put_runs<'a>(
    out: &mut Vec<u8>,
    runs: impl ExactSizeIterator<Item = (&'a (u8, u64), Option<&'a Digest>, &'a [Known])>,
) {
    put_u64(out, runs.len() as u64);
    for (&(level, run), signature, buckets) in runs {
        out.push(level);
        put_u64(out, run);
        if let Some(s) = signature {
            out.extend_from_slice(&s.0);
        }
        put_u64(out, buckets.len() as u64);
        buckets.iter().for_each(|k| put_known(out, k));
    }
}

/// The state's bytes: little-endian counts, each list after its count.
pub fn encode(f: &TreeFiles) -> Vec<u8> {
    let mut out = Vec::new();
    put_u64(&mut out, f.size);
    out.extend_from_slice(&f.head.0);
    put_u64(&mut out, f.withheld.len() as u64);
    f.withheld.iter().for_each(|&s| put_u64(&mut out, s));
    put_u64(&mut out, f.upper.len() as u64);
    f.upper.iter().for_each(|h| out.extend_from_slice(h));
    put_u64(&mut out, f.tiles.len() as u64);
    for (t, b) in &f.tiles {
        out.extend_from_slice(&t.0);
        out.extend_from_slice(&b.0);
    }
    put_u64(&mut out, f.lines.len() as u64);
    f.lines.iter().for_each(|k| put_known(&mut out, k));
    put_runs(
        &mut out,
        f.index.iter().map(|(k, v)| (k, None, v.as_slice())),
    );
    put_runs(
        &mut out,
        f.excerpts
            .iter()
            .map(|(k, (s, v))| (k, Some(s), v.as_slice())),
    );
    out
}

/// Reads what [`encode`] wrote, every count held to what is left: `None` for anything else.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (a, b) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = b;
        Some(a)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn digest(&mut self) -> Option<Digest> {
        Some(Digest(self.take(32)?.try_into().ok()?))
    }
    /// A count of items of at least `each` bytes that the rest can hold.
    fn count(&mut self, each: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n <= self.0.len() / each).then_some(n)
    }
    fn known(&mut self) -> Option<Known> {
        Some(Known {
            len: self.u64()?,
            sha256: self.digest()?,
        })
    }
    fn buckets(&mut self) -> Option<Vec<Known>> {
        let n = self.count(40)?;
        (0..n).map(|_| self.known()).collect()
    }
    fn run_key(&mut self) -> Option<(u8, u64)> {
        Some((*self.take(1)?.first()?, self.u64()?))
    }
}

/// The state read back, and held to its own size: the lists a tree of that size has.
pub fn parse(body: &[u8]) -> Option<TreeFiles> {
    let mut r = Reader(body);
    let size = r.u64()?;
    let head = r.digest()?;
    let n = r.count(8)?;
    let withheld: Vec<u64> = (0..n).map(|_| r.u64()).collect::<Option<_>>()?;
    let n = r.count(32)?;
    let upper: Vec<Hash> = (0..n)
        .map(|_| r.digest().map(|d| d.0))
        .collect::<Option<_>>()?;
    let n = r.count(64)?;
    let tiles: Vec<(Digest, Digest)> = (0..n)
        .map(|_| Some((r.digest()?, r.digest()?)))
        .collect::<Option<_>>()?;
    let n = r.count(40)?;
    let lines: Vec<Known> = (0..n).map(|_| r.known()).collect::<Option<_>>()?;
    let n = r.count(17)?;
    let index: Runs = (0..n)
        .map(|_| Some((r.run_key()?, r.buckets()?)))
        .collect::<Option<_>>()?;
    let n = r.count(49)?;
    let excerpts = (0..n)
        .map(|_| Some((r.run_key()?, (r.digest()?, r.buckets()?))))
        .collect::<Option<BTreeMap<_, _>>>()?;
    let full = (size / TILE_WIDTH) as usize;
    let runs_ok = |keys: Vec<&(u8, u64)>, buckets: Vec<usize>| {
        let want = tree::index_runs(size);
        keys.len() == want.len()
            && keys.iter().zip(&want).all(|(a, b)| *a == b)
            && want
                .iter()
                .zip(buckets)
                .all(|(&(l, _), n)| n as u64 == tree::run_buckets(l))
    };
    let sound = r.0.is_empty()
        && withheld.windows(2).all(|w| w[0] < w[1])
        && withheld.last().is_none_or(|&s| s <= size)
        && upper.len() == full
        && tiles.len() == full
        && lines.len() == full
        && runs_ok(
            index.keys().collect(),
            index.values().map(Vec::len).collect(),
        )
        && (excerpts.is_empty()
            || runs_ok(
                excerpts.keys().collect(),
                excerpts.values().map(|v| v.1.len()).collect(),
            ));
    sound.then_some(TreeFiles {
        size,
        head,
        withheld,
        upper,
        tiles,
        lines,
        index,
        excerpts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(i: u8) -> Known {
        Known {
            len: u64::from(i),
            sha256: Digest([i; 32]),
        }
    }

    fn sample(size: u64) -> TreeFiles {
        let full = (size / TILE_WIDTH) as usize;
        let runs: Runs = tree::index_runs(size)
            .into_iter()
            .map(|(l, r)| ((l, r), vec![known(l); tree::run_buckets(l) as usize]))
            .collect();
        TreeFiles {
            size,
            head: Digest([7; 32]),
            withheld: [2, 9].into_iter().filter(|&s| s <= size).collect(),
            upper: vec![[1; 32]; full],
            tiles: vec![(Digest([2; 32]), Digest([3; 32])); full],
            lines: vec![known(4); full],
            excerpts: runs
                .iter()
                .map(|(k, v)| (*k, (Digest([5; 32]), v.clone())))
                .collect(),
            index: runs,
        }
    }

    #[test]
    fn a_state_reads_back_and_one_that_does_not_fit_its_size_does_not() {
        // Catches a reader that trusts a count (a cut or padded state), or takes a state whose
        // lists are not those of its size.
        for size in [0, 255, 256, 2048, 17_000] {
            let f = sample(size);
            assert_eq!(parse(&encode(&f)), Some(f.clone()), "{size}");
            let bytes = encode(&f);
            assert_eq!(parse(&bytes[..bytes.len() - 1]), None, "{size}");
            let mut longer = bytes.clone();
            longer.push(0);
            assert_eq!(parse(&longer), None, "{size}");
        }
        let mut f = sample(2048);
        f.size = 2304;
        assert_eq!(parse(&encode(&f)), None);
        let mut f = sample(2048);
        f.index.remove(&(0, 1));
        assert_eq!(parse(&encode(&f)), None);
        let mut f = sample(2048);
        f.withheld = vec![9, 2];
        assert_eq!(parse(&encode(&f)), None);
        let mut bytes = encode(&sample(300));
        bytes[40] = 0xff; // the withheld count: more than the rest holds
        assert_eq!(parse(&bytes), None);
    }
}
