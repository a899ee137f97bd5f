//! What the publication adds, for the review's head: the new seqs, the lines and texts newly
//! withheld with the flag that would publish each, the texts released, and every count whose
//! meaning changed (docs/operator.md#dry-run).

use super::*;

/// The files of DIR the summary reads: the published ledger's, the withheld list's,
/// `STATS.json`, `SNAPSHOTS.jsonl`, and the public texts' index with its parts. The review
/// keeps these of DIR's files and no other: it kept every file outside the listed folders, and
/// on a daily dry run at a million lines the tree's files and the posted heads (140,000) took
/// it 18 MiB past the build's peak (docs/scale.md#the-review-walks-dir).
pub(super) fn summary_reads(path: &str) -> bool {
    use crate::published::{segments, withheld_files};
    let first_then_folder = |first: &str, folder: &str| {
        path == first
            || path
                .strip_prefix(folder)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    first_then_folder(segments::LEDGER_FILE, segments::SEGMENTS_DIR)
        || first_then_folder(withheld_files::WITHHELD_FILE, withheld_files::WITHHELD_DIR)
        || first_then_folder(
            "ledger/public_texts/index.json",
            "ledger/public_texts/index",
        )
        || path == "ledger/STATS.json"
        || path == "ledger/SNAPSHOTS.jsonl"
}

pub(super) fn json_of(tree: &Tree, path: &str) -> Result<J> {
    Ok(tree
        .read(path)?
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(J::Null))
}

/// Of `paths`, those both trees hold with the same bytes (compared without reading where the
/// tree can: docs/scale.md#comparing-without-reading).
pub(super) fn same_in_both<'p>(
    old: &Tree,
    new: &Tree,
    paths: &[&'p str],
) -> Result<BTreeSet<&'p str>> {
    let mut common = BTreeSet::new();
    for p in paths {
        if let (Some(a), Some(b)) = (old.entry(p), new.entry(p))
            && a.same(&b)?
        {
            common.insert(*p);
        }
    }
    Ok(common)
}

/// Of each entry of the withheld list's files but those in `skip` (docs/scale.md#withheld-files),
/// what `take` keeps, each entry made a value and let go in turn: a first publication's list at a
/// million lines is 14,000 entries, whose values took its dry run past 256 MiB. A file that is not
/// a whole JSON array gives nothing, as when it was read as one value.
pub(super) fn withheld_each<T>(
    tree: &Tree,
    skip: &BTreeSet<&str>,
    take: impl Fn(&J) -> Option<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for p in crate::published::withheld_files::published_paths(tree) {
        if skip.contains(p) {
            continue;
        }
        let Some(bytes) = tree.read(p)? else {
            continue;
        };
        let mut of_file = Vec::new();
        let mut keep = |e: J| {
            if let Some(t) = take(&e) {
                of_file.push(t);
            }
        };
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        let whole = serde::de::DeserializeSeed::deserialize(EachElement(&mut keep), &mut de)
            .and_then(|()| de.end());
        if whole.is_ok() {
            out.append(&mut of_file);
        }
    }
    Ok(out)
}

/// A JSON array's elements handed one at a time to a function; anything else is an error.
struct EachElement<'f>(&'f mut dyn FnMut(J));

impl<'de> serde::de::DeserializeSeed<'de> for EachElement<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for EachElement<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(e) = seq.next_element::<J>()? {
            (self.0)(e);
        }
        Ok(())
    }
}

/// The public texts withheld in `new` and not in `old`, by sent_sha256, with their entries:
/// read from `index.json` and its parts (docs/public-texts.md#parts), but only from the files
/// the two trees do not hold with the same bytes (a file both hold alike withholds the same
/// texts on both sides), and one file at a time: at a million lines the parts are hundreds of
/// MB of JSON, and all of them parsed at once made the dry run's peak (docs/scale.md#memory).
pub(super) fn newly_withheld_texts(old: &Tree, new: &Tree) -> Result<BTreeMap<String, J>> {
    const TOP: &str = "ledger/public_texts/index.json";
    const PARTS: &str = "ledger/public_texts/index/";
    let paths = |t: &Tree| -> BTreeSet<String> {
        std::iter::once(TOP.to_string())
            .chain(t.iter_under(PARTS).map(|(p, _)| p.into_owned()))
            .collect()
    };
    let (old_paths, new_paths) = (paths(old), paths(new));
    let both: Vec<&str> = old_paths
        .intersection(&new_paths)
        .map(String::as_str)
        .collect();
    let alike = same_in_both(old, new, &both)?;
    // Only the withheld entries are made values: a part's published entries, most of its
    // bytes, are skipped as read (a part of 7 MB made 40 MB of values on a first publication's
    // review as data at a million lines: docs/scale.md#review-as-data).
    #[derive(serde::Deserialize)]
    struct WithheldOnly {
        withheld: Vec<J>,
    }
    let withheld_of = |t: &Tree, p: &str| -> Result<Vec<(String, J)>> {
        let Some(bytes) = t.read(p)? else {
            return Ok(Vec::new());
        };
        // Not an object with a list `withheld`: none, as before.
        let list = serde_json::from_slice::<WithheldOnly>(&bytes)
            .map(|w| w.withheld)
            .unwrap_or_default();
        Ok(list
            .into_iter()
            .filter_map(|e| Some((e["sent_sha256"].as_str()?.to_string(), e)))
            .collect())
    };
    let mut before = BTreeSet::new();
    for p in old_paths.iter().filter(|p| !alike.contains(p.as_str())) {
        before.extend(withheld_of(old, p)?.into_iter().map(|(sha, _)| sha));
    }
    let mut out = BTreeMap::new();
    for p in new_paths.iter().filter(|p| !alike.contains(p.as_str())) {
        for (sha, e) in withheld_of(new, p)? {
            if !before.contains(&sha) {
                out.insert(sha, e);
            }
        }
    }
    Ok(out)
}

/// The seq of each line of a ledger.jsonl (the header has none). Lines are canonical JSON.
pub(super) fn seqs_of(ledger: &[u8]) -> BTreeSet<i64> {
    ledger
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<J>(l).ok())
        .filter_map(|v| v.get("seq").and_then(J::as_i64))
        .collect()
}

pub(super) fn summary(old: &Tree, new: &Tree) -> Result<Summary> {
    let mut s = Summary::default();
    // The published ledger is its files in chain order, concatenated (docs/scale.md#layout). A
    // file both trees hold with the same bytes holds the same seqs on both sides: only the
    // others are read, one at a time, never the whole ledger (docs/scale.md#memory). A ledger's
    // seqs are distinct, so the seqs new beside the old are those of the new files that the old
    // files do not hold: counted, and their lowest and highest kept, not held (a first
    // publication's are every seq, 40 MB as sets at a million lines: docs/scale.md#review-as-data).
    let mut old_seqs: BTreeSet<i64> = BTreeSet::new();
    let old_paths = crate::published::segments::published_paths(old);
    let new_paths = crate::published::segments::published_paths(new);
    let common = same_in_both(old, new, &new_paths)?;
    for p in old_paths.iter().filter(|p| !common.contains(*p)) {
        old_seqs.extend(seqs_of(&old.read(p)?.unwrap_or_default()));
    }
    let mut new_range: Option<(i64, i64)> = None;
    let widen = |range: &mut Option<(i64, i64)>, seq: i64| {
        *range = Some(range.map_or((seq, seq), |(a, b)| (a.min(seq), b.max(seq))));
    };
    // The new tree's ledger passed the self-check: no seq is in two of its files.
    for p in new_paths.iter().filter(|p| !common.contains(*p)) {
        for seq in seqs_of(&new.read(p)?.unwrap_or_default()) {
            if !old_seqs.contains(&seq) {
                s.published += 1;
                widen(&mut new_range, seq);
            }
        }
    }

    // The withheld list likewise: a file both trees hold with the same bytes adds no entry.
    let common = same_in_both(
        old,
        new,
        &crate::published::withheld_files::published_paths(new),
    )?;
    let old_withheld: BTreeSet<i64> = withheld_each(old, &common, |e| e["seq"].as_i64())?
        .into_iter()
        .collect();
    let new_withheld = withheld_each(new, &common, |e| {
        let seq = e["seq"].as_i64()?;
        Some(WithheldLine {
            seq,
            kind: e["kind"].as_str().unwrap_or_default().to_string(),
            fields_flagged: e["fields_flagged"]
                .as_array()
                .map(|f| f.iter().filter_map(|x| x.as_str().map(escape)).collect())
                .unwrap_or_default(),
            reason: escape(e["reason"].as_str().unwrap_or_default()),
            accept: format!("--allow-line {seq}"),
        })
    })?;
    s.withheld.extend(
        new_withheld
            .into_iter()
            .filter(|w| !old_withheld.contains(&w.seq)),
    );
    for w in &s.withheld {
        widen(&mut new_range, w.seq);
    }
    s.new_seqs = new_range.map(|(first, last)| SeqRange { first, last });

    let published_texts = |t: &Tree| -> Result<BTreeMap<String, J>> {
        Ok(json_of(t, "ledger/public_texts/index.json")?["published"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| Some((e["sent_sha256"].as_str()?.to_string(), e.clone())))
                    .collect()
            })
            .unwrap_or_default())
    };
    let before = published_texts(old)?;
    for (sha, e) in published_texts(new)? {
        if !before.contains_key(&sha) {
            s.texts_released.push(ReleasedText {
                sent_sha256: escape(&sha),
                seq: e["seq"].as_i64(),
                bytes: e["bytes"].as_u64(),
            });
        }
    }

    for (sha, e) in newly_withheld_texts(old, new)? {
        s.texts_withheld.push(WithheldText {
            accept: format!("--allow-text {}", escape(&sha)),
            sent_sha256: escape(&sha),
            seq: e["seq"].as_i64(),
            reasons: e["reasons"]
                .as_array()
                .map(|r| r.iter().filter_map(|x| x.as_str().map(escape)).collect())
                .unwrap_or_default(),
        });
    }
    let (old_stats, new_stats) = (
        json_of(old, "ledger/STATS.json")?,
        json_of(new, "ledger/STATS.json")?,
    );
    // The witness window is set in exhibit.toml; a change of it changes what is published, so it
    // is named (docs/operator.md#settings).
    let window = |v: &J| v["witness"]["window"]["since"].clone();
    if !old_stats.is_null() && window(&old_stats) != window(&new_stats) {
        s.settings.push(SettingChange {
            setting: "[publish] witness_window_since".into(),
            old: window(&old_stats),
            new: window(&new_stats),
        });
    }
    s.first_publication = old.read("ledger/SNAPSHOTS.jsonl")?.is_none();
    let head = |v: &J| v["ledger"]["head"].as_str().map(escape);
    s.head = Change {
        old: head(&old_stats),
        new: head(&new_stats),
    };
    count_changes("", &old_stats, &new_stats, &mut s.counts, &mut s.seq_lists);
    // A count whose denominator alone moved says nothing new (docs/operator.md#dry-run).
    let before = s.counts.len();
    s.counts
        .retain(|c| !(is_count(&c.old) && is_count(&c.new) && c.old["count"] == c.new["count"]));
    s.denominators_only = before - s.counts.len();
    let snapshots = "ledger/SNAPSHOTS.jsonl";
    let lines = |t: &Tree| -> Result<usize> {
        Ok(t.read(snapshots)?.map_or(0, |b| {
            b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count()
        }))
    };
    s.snapshot_appended = lines(new)? > lines(old)?;
    Ok(s)
}

pub(super) fn is_count(v: &J) -> bool {
    v.as_object().is_some_and(|o| {
        o.len() == 2
            && o.get("count").is_some_and(J::is_number)
            && o.get("of").is_some_and(J::is_number)
    })
}

/// Every count in STATS.json that differs: `{count, of}` objects and numbers, by key path;
/// lists of numbers as seqs added and removed.
pub(super) fn count_changes(
    path: &str,
    a: &J,
    b: &J,
    counts: &mut Vec<CountChange>,
    lists: &mut Vec<SeqListChange>,
) {
    if a == b {
        return;
    }
    let key = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    let leaf = |v: &J| v.is_number() || is_count(v);
    match (a, b) {
        (x, y) if (leaf(x) || x.is_null()) && (leaf(y) || y.is_null()) => {
            counts.push(CountChange {
                key: escape(path),
                old: x.clone(),
                new: y.clone(),
            });
        }
        (J::Object(x), J::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                count_changes(
                    &key(k),
                    x.get(k).unwrap_or(&J::Null),
                    y.get(k).unwrap_or(&J::Null),
                    counts,
                    lists,
                );
            }
        }
        (J::Null, J::Object(y)) => {
            for (k, v) in y {
                count_changes(&key(k), &J::Null, v, counts, lists);
            }
        }
        (J::Object(x), J::Null) => {
            for (k, v) in x {
                count_changes(&key(k), v, &J::Null, counts, lists);
            }
        }
        (x, y) if is_number_list(x) && is_number_list(y) => {
            let set = |v: &J| -> BTreeSet<i64> {
                v.as_array()
                    .map(|a| a.iter().filter_map(J::as_i64).collect())
                    .unwrap_or_default()
            };
            let (x, y) = (set(x), set(y));
            if x == y {
                return; // null → [] says nothing
            }
            lists.push(SeqListChange {
                key: escape(path),
                added: y.difference(&x).copied().collect(),
                removed: x.difference(&y).copied().collect(),
            });
        }
        _ => {}
    }
}

pub(super) fn is_number_list(v: &J) -> bool {
    v.is_null() || v.as_array().is_some_and(|a| a.iter().all(J::is_number))
}

// ---------------------------------------------------------------------------------------------
// Rendering

pub(super) fn count_text(v: &J) -> String {
    if is_count(v) {
        format!("{} of {}", v["count"], v["of"])
    } else if v.is_null() {
        "(none)".into()
    } else {
        v.to_string()
    }
}

pub(super) fn short(digest: &Option<String>) -> String {
    match digest {
        Some(d) if d.len() > 16 => format!("{}…", &d[..12]),
        Some(d) => d.clone(),
        None => "(none)".into(),
    }
}

pub(super) fn seq_list_text(seqs: &[i64]) -> String {
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = seqs.iter().take(SHOWN).map(i64::to_string).collect();
    if seqs.len() > SHOWN {
        parts.push(format!("… {} more", seqs.len() - SHOWN));
    }
    parts.join(", ")
}
