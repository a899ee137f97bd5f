use super::*;
use std::collections::BTreeMap;

/// RFC 6962's MTH written the plain recursive way, independently of `root_of`'s callers.
fn mth(entries: &[[u8; 32]]) -> Hash {
    match entries.len() {
        0 => Sha256::digest([]).into(),
        1 => {
            let mut b = vec![0u8];
            b.extend_from_slice(&entries[0]);
            Sha256::digest(&b).into()
        }
        n => {
            let mut k = 1;
            while k * 2 < n {
                k *= 2;
            }
            let mut b = vec![1u8];
            b.extend_from_slice(&mth(&entries[..k]));
            b.extend_from_slice(&mth(&entries[k..]));
            Sha256::digest(&b).into()
        }
    }
}

fn entry(i: u64) -> Digest {
    Digest(Sha256::digest(i.to_be_bytes()).into())
}

/// Every file the maker makes at `size`, by path.
fn made(size: u64) -> (BTreeMap<String, Vec<u8>>, Hash) {
    made_from(TreeMaker::new(), size)
}

/// The files `m` makes as it takes the entries after its size up to `size`, and the root.
fn made_from(mut m: TreeMaker, size: u64) -> (BTreeMap<String, Vec<u8>>, Hash) {
    let mut files = BTreeMap::new();
    for i in m.size()..size {
        if let Some(Made::Full(n, tile, bundle)) = m.push(&entry(i)) {
            files.insert(
                TreeFile::Tile {
                    level: 0,
                    n,
                    width: 256,
                }
                .path(),
                tile,
            );
            files.insert(TreeFile::Entries { n, width: 256 }.path(), bundle);
        }
    }
    let f = m.finish();
    for (file, bytes) in f.files {
        files.insert(file.path(), bytes);
    }
    (files, f.root)
}

#[test]
fn a_maker_resumed_from_its_full_tiles_roots_makes_the_same_files_and_root() {
    // Catches a resume that counts the size wrong, drops the upper hashes, or starts a partial
    // tile where the full ones end (docs/tree.md#carried).
    for (at, size) in [
        (0, 0),
        (256, 256),
        (256, 300),
        (512, 65_536 + 40),
        (65_536, 65_537),
    ] {
        let mut first = TreeMaker::new();
        for i in 0..at {
            first.push(&entry(i));
        }
        let m = TreeMaker::resume(first.upper().to_vec());
        assert_eq!(m.size(), at);
        let (files, resumed_root) = made_from(m, size);
        let (all, root) = made(size);
        assert_eq!(resumed_root, root, "{at} → {size}");
        for (path, bytes) in &files {
            assert_eq!(all.get(path), Some(bytes), "{at} → {size}: {path}");
        }
        // What the resumed maker did not make is the full level-0 tiles before `at`.
        assert_eq!(
            all.len() - files.len(),
            (at / 256 * 2) as usize,
            "{at} → {size}"
        );
    }
}

#[test]
fn the_makers_root_is_rfc_6962s_at_every_size_around_tile_edges() {
    for size in (0..40)
        .chain(250..260)
        .chain([511, 512, 513, 65535, 65536, 65537, 70000])
    {
        let entries: Vec<[u8; 32]> = (0..size).map(|i| entry(i).0).collect();
        let (_, root) = made(size);
        assert_eq!(root, mth(&entries), "size {size}");
    }
}

#[test]
fn tiles_hold_the_stored_hashes_and_bundles_the_entries() {
    let size = 65536 + 300;
    let (files, _) = made(size);
    let entries: Vec<[u8; 32]> = (0..size).map(|i| entry(i).0).collect();
    // Level 1, tile 0, hash 3: the subtree of leaves 768..1024.
    let t1 = &files["tile/1/000"];
    assert_eq!(t1.len(), 256 * 32);
    assert_eq!(&t1[3 * 32..4 * 32], &mth(&entries[768..1024]));
    // Level 2: one partial tile of one hash (65536 leaves).
    assert_eq!(files["tile/2/000.p/1"], mth(&entries[..65536]).to_vec());
    // Level 1's second tile is partial: 300 leaves make one full subtree of 256.
    assert_eq!(
        files["tile/1/001.p/1"],
        mth(&entries[65536..65792]).to_vec()
    );
    // A partial level-0 tile and its bundle: 44 leaves.
    let t0 = &files["tile/0/257.p/44"];
    assert_eq!(t0.len(), 44 * 32);
    assert_eq!(&t0[..32], &mth(&entries[65792..65793]));
    let b = &files["tile/entries/257.p/44"];
    assert_eq!(b.len(), 44 * 34);
    assert_eq!(&b[..2], &[0, 32]);
    assert_eq!(&b[2..34], &entries[65792]);
    // The names are exactly those files_at lists (minus lines, index and checkpoint).
    let listed: std::collections::BTreeSet<String> = files_at(size)
        .into_iter()
        .filter(|f| matches!(f, TreeFile::Tile { .. } | TreeFile::Entries { .. }))
        .map(|f| f.path())
        .collect();
    let made: std::collections::BTreeSet<String> = files.keys().cloned().collect();
    assert_eq!(listed, made);
}

#[test]
fn paths_are_tlog_tiles_and_read_back_one_name_per_file() {
    assert_eq!(tile_number(1234067), "x001/x234/067");
    assert_eq!(tile_number(5), "005");
    assert_eq!(tile_number(1000), "x001/000");
    let cases = [
        TreeFile::Tile {
            level: 0,
            n: 1234067,
            width: 256,
        },
        TreeFile::Tile {
            level: 2,
            n: 0,
            width: 7,
        },
        TreeFile::Entries { n: 999, width: 1 },
        TreeFile::Lines {
            n: 1000,
            width: 255,
        },
        TreeFile::IndexBucket {
            level: 1,
            run: 12,
            prefix: 0xa7,
        },
        TreeFile::IndexTail {
            block: 976,
            width: 576,
        },
        TreeFile::Checkpoint,
    ];
    for c in cases {
        assert_eq!(TreeFile::parse(&c.path()), Some(c.clone()), "{}", c.path());
    }
    assert_eq!(
        TreeFile::Tile {
            level: 0,
            n: 1234067,
            width: 256
        }
        .path(),
        "tile/0/x001/x234/067"
    );
    assert_eq!(
        TreeFile::IndexBucket {
            level: 1,
            run: 3,
            prefix: 10
        }
        .path(),
        "index/1/3/0a"
    );
    for bad in [
        "tile/0/5",
        "tile/0/0005",
        "tile/0/x000/005",
        "tile/0/005.p/256",
        "tile/0/005.p/0",
        "tile/0/005.p/07",
        "tile/entries/x1/005",
        "tile/08/005",
        "lines/005.p/",
        "index/1/3/a",
        "index/1/3/0A",
        "index/0/03/a",
        "index/tail/3.p/1024",
        "index/tail/3",
        "checkpoint.bak",
        "tile/0/005/",
    ] {
        assert_eq!(TreeFile::parse(bad), None, "{bad}");
    }
}

#[test]
fn an_index_lookup_covers_every_whole_block_once_with_the_largest_runs() {
    let d = entry(7);
    for size in [0, 1, 1023, 1024, 1025, 16 * 1024, 17 * 1024 + 5, 1_000_000] {
        let files = index_lookup(size, &d);
        let mut covered = 0u64;
        for f in &files {
            match *f {
                TreeFile::IndexBucket { level, run, prefix } => {
                    let span = 16u64.pow(u32::from(level)) * INDEX_BLOCK;
                    assert_eq!(run * span, covered, "size {size}: runs in order, no gap");
                    covered += span;
                    assert_eq!(prefix, prefix_of(&d, level));
                }
                TreeFile::IndexTail { block, width } => {
                    assert_eq!(block * INDEX_BLOCK, covered);
                    covered += width;
                }
                _ => panic!("{f:?}"),
            }
        }
        assert_eq!(covered, size);
        // Every file a lookup reads is one the tree has.
        let all: std::collections::BTreeSet<TreeFile> = files_at(size).into_iter().collect();
        assert!(files.iter().all(|f| all.contains(f)));
    }
    // At a million lines: 976 blocks = 3·256 + 13·16 + 0: 16 runs and a tail.
    assert_eq!(index_lookup(1_000_000, &d).len(), 17);
}

#[test]
fn index_files_hold_each_row_in_its_bucket_sorted_and_a_lookup_finds_it() {
    let size = 17 * 1024 + 5;
    let mut rows = Vec::new();
    for seq in 1..=size {
        if seq % 3 != 0 {
            rows.push(IndexRow::new(&entry(seq), seq));
        }
    }
    let mut files = BTreeMap::new();
    index_files(size, &rows, |f, b| {
        files.insert(f, b);
    });
    let expected: std::collections::BTreeSet<TreeFile> = files_at(size)
        .into_iter()
        .filter(|f| matches!(f, TreeFile::IndexBucket { .. } | TreeFile::IndexTail { .. }))
        .collect();
    assert_eq!(
        files
            .keys()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        expected
    );
    for seq in [1, 2, 1024, 1025, 16 * 1024 + 1, size - 1] {
        let found: Vec<u64> = index_lookup(size, &entry(seq))
            .iter()
            .flat_map(|f| index_seqs(&files[f], &entry(seq)).unwrap())
            .collect();
        let want: Vec<u64> = if seq % 3 == 0 { vec![] } else { vec![seq] };
        assert_eq!(found, want, "seq {seq}");
    }
    for (f, b) in &files {
        let rows: Vec<&[u8]> = b.chunks(16).collect();
        assert!(rows.windows(2).all(|w| w[0] < w[1]), "{f:?} sorted");
    }
    // Level 1's run repeats its blocks' rows: 16·1024 seqs, two of three indexed.
    let level1: usize = files
        .iter()
        .filter(|(f, _)| matches!(f, TreeFile::IndexBucket { level: 1, .. }))
        .map(|(_, b)| b.len() / 16)
        .sum();
    assert_eq!(
        level1 as u64,
        (1..=16 * 1024).filter(|s| s % 3 != 0).count() as u64
    );
}

#[test]
fn a_lines_group_holds_its_published_lines_and_closes_when_passed() {
    let mut m = LinesMaker::default();
    let mut out = Vec::new();
    for seq in 1..=600u64 {
        if seq % 7 == 0 || (257..=512).contains(&seq) {
            continue;
        }
        out.extend(m.push(seq, format!("{seq}\n").as_bytes()));
    }
    out.extend(m.finish(600));
    let names: Vec<String> = out.iter().map(|(f, _)| f.path()).collect();
    assert_eq!(names, ["lines/000", "lines/001", "lines/002.p/88"]);
    assert!(
        out[1].1.is_empty(),
        "a group with every seq withheld is an empty file"
    );
    assert!(String::from_utf8_lossy(&out[0].1).starts_with("1\n2\n3\n4\n5\n6\n8\n"));
    let mut m = LinesMaker::default();
    assert_eq!(m.push(256, b"x\n").len(), 0);
    let f = m.finish(256);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0.path(), "lines/000");
}

#[test]
fn a_checkpoint_reads_back_and_odd_ones_are_refused() {
    let c = Checkpoint {
        origin: "example.github.io/exhibit".into(),
        size: 400,
        root: mth(&[entry(1).0]),
        head_seq: 400,
        head: entry(2),
        signatures: vec![],
    };
    let text = c.text();
    assert_eq!(Checkpoint::parse(text.as_bytes()), Ok(c.clone()));
    let signed = format!("{text}\n— example.github.io/exhibit AAAA\n");
    assert_eq!(
        Checkpoint::parse(signed.as_bytes())
            .unwrap()
            .signatures
            .len(),
        1
    );
    let lines: Vec<&str> = text.lines().collect();
    for bad in [
        text.trim_end().to_string(),
        text.replacen("\n400\n", "\n0400\n", 1),
        text.replacen(lines[2], &lines[2][..lines[2].len() - 4], 1),
        text.replacen(lines[2], &lines[2].replace('=', ""), 1),
        text.replacen(&c.origin, "", 1),
        text.replacen("exhibit-head", "exhibit-heads", 1),
        format!("{text}\n"),
        text.replacen(lines[3], &format!("{} x", lines[3]), 1),
    ] {
        assert!(Checkpoint::parse(bad.as_bytes()).is_err(), "{bad:?}");
    }
    assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
    assert_eq!(base64_decode("Zm9vYg==").unwrap(), b"foob");
    assert_eq!(
        base64_decode("Zm9vYh=="),
        None,
        "non-canonical padding bits"
    );
}

struct Folder(BTreeMap<String, Vec<u8>>);

impl TreeSource for Folder {
    fn read(&self, file: &TreeFile) -> Result<Vec<u8>, String> {
        self.0
            .get(&file.path())
            .cloned()
            .ok_or_else(|| format!("{} missing", file.path()))
    }
}

#[test]
fn proofs_from_the_tiles_hold_and_a_tampered_tile_or_proof_does_not() {
    for size in [1u64, 2, 3, 255, 256, 257, 700, 65537] {
        let (files, root) = made(size);
        let folder = Folder(files);
        for index in [0, size / 2, size - 1] {
            let p = prove_inclusion(&folder, size, &root, index).unwrap();
            let leaf = leaf_hash(&entry(index).0);
            assert!(check_inclusion(&p, size, &root, index, &leaf));
            assert!(!check_inclusion(
                &p,
                size,
                &root,
                index,
                &leaf_hash(&entry(index + 1).0)
            ));
            if let Some(first) = p.first() {
                let mut q = p.clone();
                q[0][0] ^= 1;
                assert!(!check_inclusion(&q, size, &root, index, &leaf), "{first:?}");
                assert!(!check_inclusion(&p[1..], size, &root, index, &leaf));
            }
        }
        for old in [1, size / 3 + 1, size] {
            let (_, old_root) = made(old);
            let p = prove_consistency(&folder, size, &root, old).unwrap();
            assert!(check_consistency(&p, size, &root, old, &old_root));
            let other = mth(&[entry(99_999).0]);
            assert!(old == 1 && size == 1 || !check_consistency(&p, size, &root, old, &other));
        }
    }
    // A level-0 tile altered: either reading it fails, or the proof made from it does not hold.
    // (tlog_tiles 0.2.0 authenticates a tile against its parent only when no two of the root's
    // subtrees share a tile; here they do, and the altered tile is read without complaint: so
    // a proof is always checked against the root, never taken as proved by being read.)
    let (mut files, root) = made(700);
    files.get_mut("tile/0/001").unwrap()[5] ^= 1;
    let leaf = leaf_hash(&entry(300).0);
    match prove_inclusion(&Folder(files.clone()), 700, &root, 300) {
        Ok(p) => assert!(!check_inclusion(&p, 700, &root, 300, &leaf)),
        Err(e) => assert!(e.0.contains("root"), "{e}"),
    }
    // A tile that the root's own subtrees read is held to the root: altered, it is refused.
    files.get_mut("tile/1/000.p/2").unwrap()[0] ^= 1;
    let err = prove_inclusion(&Folder(files), 700, &root, 300).unwrap_err();
    assert!(err.0.contains("root"), "{err}");
}
