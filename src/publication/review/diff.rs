//! Each changed file's difference: a minimal line diff of a text file in hunks with unified-diff
//! headers, or the keys that changed in a JSON file, both capped per file (docs/operator.md#dry-
//! run).

use super::*;

/// A file's diff, each side read only as far as its kind needs: the page by its sizes alone
/// (31 MB a side at a million lines, read only to be measured before), a segment one side at a
/// time for its lines (32 MiB a side), STATS.json not at all (docs/scale.md#the-review-walks-dir).
pub(super) fn diff_of(
    path: &str,
    old: Option<&Content>,
    new: Option<&Content>,
) -> Result<DiffBody> {
    let len = |c: Option<&Content>| c.map_or(0, |c| c.len() as usize);
    if let Some(Content::NotAFile(crate::published::output_tree::NotAFile(kind))) = old {
        return Ok(DiffBody::Bytes {
            old: 0,
            new: len(new),
            why: format!(
                "a {kind} in DIR, never followed nor read: a build removes it (or renames a file over it)"
            ),
        });
    }
    if path == "ledger/STATS.json" {
        return Ok(DiffBody::InSummary);
    }
    // A segment holds up to 32 MiB of lines: summarised, never printed whole; its new seqs are
    // in the summary (docs/scale.md#review).
    if path.starts_with("ledger/segments/") {
        let lines = |c: Option<&Content>| -> Result<usize> {
            Ok(match c {
                Some(c) => c.bytes()?.iter().filter(|&&b| b == b'\n').count(),
                None => 0,
            })
        };
        return Ok(DiffBody::Segment {
            old_bytes: len(old),
            new_bytes: len(new),
            old_lines: lines(old)?,
            new_lines: lines(new)?,
        });
    }
    if path.ends_with(".html") {
        return Ok(DiffBody::Bytes {
            old: len(old),
            new: len(new),
            why: "the page: not diffed".into(),
        });
    }
    // Borrowed where the build holds the bytes: an 18 MB index is not copied to be diffed.
    fn read(c: Option<&Content>) -> Result<std::borrow::Cow<'_, [u8]>> {
        Ok(c.map(Content::bytes).transpose()?.unwrap_or_default())
    }
    Ok(diff_body(path, &read(old)?, &read(new)?))
}

/// A text or JSON file's diff from both sides' bytes (any other file's: its sizes).
pub(super) fn diff_body(path: &str, old: &[u8], new: &[u8]) -> DiffBody {
    let (Ok(x), Ok(y)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return DiffBody::Bytes {
            old: old.len(),
            new: new.len(),
            why: "not text".into(),
        };
    };
    if path.ends_with(".json")
        && let Some(mut changes) = json_key_changes(x, y)
    {
        let not_shown = changes.len().saturating_sub(CHANGES_PER_FILE);
        changes.truncate(CHANGES_PER_FILE);
        return DiffBody::Keys { changes, not_shown };
    }
    line_diff(x, y)
}

/// The key-level changes of two JSON texts (an empty text is `null`: the file is new or gone),
/// or None when either is not JSON. Both are checked whole as JSON first, then compared by their
/// raw text level by level: only a subtree whose text differs is opened, so a file that grew at
/// its end (the anchors index, 18 MB at a million lines) costs its bytes and a pointer per
/// element, never a parsed tree of each side (docs/scale.md#the-review-walks-dir). The changes
/// are those `key_changes` finds on the parsed trees.
pub(super) fn json_key_changes(old: &str, new: &str) -> Option<Vec<KeyChange>> {
    fn raw(s: &str) -> Option<Option<&RawValue>> {
        if s.is_empty() {
            return Some(None);
        }
        serde_json::from_str::<StrictJson>(s).ok()?;
        serde_json::from_str::<&RawValue>(s).ok().map(Some)
    }
    let (a, b) = (raw(old)?, raw(new)?);
    let mut changes = Vec::new();
    // A file new or gone is one change of the whole file, shown cut: made from its raw text
    // (`compact_raw`), never parsed whole (a first publication's witness index parts, 6.7 MB
    // each, made 40 MB of values each: docs/scale.md#review-as-data). As `key_changes` finds
    // against `null`.
    let is_null = |v: &RawValue| v.get().trim() == "null";
    match (a, b) {
        (Some(a), Some(b)) => raw_key_changes("", a, b, &mut changes).ok()?,
        (None, Some(b)) if !is_null(b) => changes.push(KeyChange {
            key: "(file)".into(),
            change: ChangeKind::Added,
            old: None,
            new: Some(compact_raw(b)),
        }),
        (Some(a), None) if !is_null(a) => changes.push(KeyChange {
            key: "(file)".into(),
            change: ChangeKind::Changed,
            old: Some(compact_raw(a)),
            new: Some(compact(&J::Null)),
        }),
        _ => {}
    }
    Some(changes)
}

/// [`compact`] of a raw JSON text (checked whole as JSON before) without parsing it whole:
/// objects are opened as their keys in order and arrays as their elements, each kept as raw
/// text, and only as far as the cut reaches; a leaf is parsed as `Value` parses it. The same
/// text as `compact` of the parsed value (`compact_raw_is_compact_of_the_parsed_value`).
pub(super) fn compact_raw(v: &RawValue) -> String {
    struct Sorted<'a>(&'a RawValue);
    impl Serialize for Sorted<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::Error;
            let text = self.0.get();
            match text.trim_start().as_bytes().first() {
                Some(b'{') => {
                    let members: BTreeMap<String, &RawValue> =
                        serde_json::from_str(text).map_err(S::Error::custom)?;
                    s.collect_map(members.iter().map(|(k, v)| (k, Sorted(v))))
                }
                Some(b'[') => {
                    let items: Vec<&RawValue> =
                        serde_json::from_str(text).map_err(S::Error::custom)?;
                    s.collect_seq(items.iter().map(|v| Sorted(v)))
                }
                _ => serde_json::from_str::<J>(text)
                    .map_err(S::Error::custom)?
                    .serialize(s),
            }
        }
    }
    compact(&Sorted(v))
}

/// `key_changes` over raw JSON texts: equal texts are equal values, and an object or array
/// whose text differs is opened one level, its members kept as raw text.
pub(super) fn raw_key_changes(
    path: &str,
    a: &RawValue,
    b: &RawValue,
    out: &mut Vec<KeyChange>,
) -> serde_json::Result<()> {
    if a.get() == b.get() {
        return Ok(());
    }
    let opens = |v: &RawValue| v.get().trim_start().as_bytes().first().copied();
    let parsed = |v: &RawValue| serde_json::from_str::<J>(v.get());
    let one_side = |key: String, change: ChangeKind, v: &RawValue| -> serde_json::Result<_> {
        let shown = Some(compact(&parsed(v)?));
        let (old, new) = match change {
            ChangeKind::Removed => (shown, None),
            _ => (None, shown),
        };
        Ok(KeyChange {
            key,
            change,
            old,
            new,
        })
    };
    match (opens(a), opens(b)) {
        (Some(b'{'), Some(b'{')) => {
            let x: BTreeMap<String, &RawValue> = serde_json::from_str(a.get())?;
            let y: BTreeMap<String, &RawValue> = serde_json::from_str(b.get())?;
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let key = if path.is_empty() {
                    k.to_string()
                } else {
                    format!("{path}.{k}")
                };
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => raw_key_changes(&key, u, v, out)?,
                    (None, Some(v)) => out.push(one_side(key, ChangeKind::Added, v)?),
                    (Some(u), None) => out.push(one_side(key, ChangeKind::Removed, u)?),
                    (None, None) => {}
                }
            }
        }
        (Some(b'['), Some(b'[')) => {
            let x: Vec<&RawValue> = serde_json::from_str(a.get())?;
            let y: Vec<&RawValue> = serde_json::from_str(b.get())?;
            for i in 0..x.len().max(y.len()) {
                let key = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(u), Some(v)) => raw_key_changes(&key, u, v, out)?,
                    (None, Some(v)) => out.push(one_side(key, ChangeKind::Added, v)?),
                    (Some(u), None) => out.push(one_side(key, ChangeKind::Removed, u)?),
                    (None, None) => {}
                }
            }
        }
        _ => key_changes(path, &parsed(a)?, &parsed(b)?, out),
    }
    Ok(())
}

/// Any JSON value, parsed as `serde_json::Value` would parse it (numbers in range, strings
/// decoded) and kept as nothing: a text is JSON for the review exactly when it is for
/// `key_changes`, though `RawValue` alone would pass a number out of range.
pub(super) struct StrictJson;

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictJsonVisitor)
    }
}

pub(super) struct StrictJsonVisitor;

impl<'de> serde::de::Visitor<'de> for StrictJsonVisitor {
    type Value = StrictJson;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_unit<E>(self) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<StrictJson, A::Error> {
        while seq.next_element::<StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<StrictJson, A::Error> {
        while map.next_entry::<StrictJson, StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
}

/// A minimal line diff (Myers, from `similar`) of the changed region, with one line of context.
pub(super) fn line_diff(old: &str, new: &str) -> DiffBody {
    // A file added or removed whole: its first lines, and a count of the rest.
    if old.is_empty() && new.is_empty() {
        return DiffBody::Bytes {
            old: 0,
            new: 0,
            why: "empty".into(),
        };
    }
    if old.is_empty() || new.is_empty() {
        let (tag, text) = if old.is_empty() {
            ('+', new)
        } else {
            ('-', old)
        };
        let total = text.split_inclusive('\n').count();
        let lines = text
            .split_inclusive('\n')
            .take(LINES_PER_FILE)
            .map(|l| format!("{tag}{}", shown_line(l.trim_end_matches('\n'))))
            .collect();
        return DiffBody::Lines {
            hunks: vec![Hunk {
                old_start: 1,
                new_start: 1,
                lines,
            }],
            not_shown: total.saturating_sub(LINES_PER_FILE),
        };
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    // The common start and end are set aside first: exhibit's files grow at the end, so what
    // is left is small, and its diff is exact. The hunks are cut here rather than by
    // `similar`'s `unified_diff`, which diffs the whole file and knows no cap: a ledger file of
    // 32 MiB would be diffed whole, and the review caps the lines it shows per file and the
    // region it diffs (docs/operator.md#dry-run). `similar` still makes the minimal diff.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let context_before = prefix.min(1);
    let context_after = suffix.min(1);
    let mut tagged: Vec<(char, &str, usize, usize)> = Vec::new(); // (tag, line, old_no, new_no)
    let first = prefix - context_before;
    for (i, line) in a[first..prefix].iter().enumerate() {
        tagged.push((' ', line, first + i, first + i));
    }
    if ma.len() + mb.len() <= DIFF_REGION_LINES {
        let diff = similar::TextDiff::from_slices(ma, mb);
        for change in diff.iter_all_changes() {
            let (oi, ni) = (
                change.old_index().map_or(usize::MAX, |i| i + prefix),
                change.new_index().map_or(usize::MAX, |i| i + prefix),
            );
            let tag = match change.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            tagged.push((tag, change.value(), oi, ni));
        }
    } else {
        for (i, l) in ma.iter().enumerate() {
            tagged.push(('-', l, i + prefix, usize::MAX));
        }
        for (i, l) in mb.iter().enumerate() {
            tagged.push(('+', l, usize::MAX, i + prefix));
        }
    }
    for k in 0..context_after {
        let (oi, ni) = (a.len() - suffix + k, b.len() - suffix + k);
        tagged.push((' ', a[oi], oi, ni));
    }
    // Hunks: runs of changes with at most one unchanged line of context on each side.
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut shown = 0usize;
    let mut not_shown = 0usize;
    let keep: Vec<bool> = (0..tagged.len())
        .map(|i| {
            tagged[i].0 != ' '
                || (i > 0 && tagged[i - 1].0 != ' ')
                || (i + 1 < tagged.len() && tagged[i + 1].0 != ' ')
        })
        .collect();
    let mut open = false;
    for (i, (tag, line, _, _)) in tagged.iter().enumerate() {
        if !keep[i] {
            open = false;
            continue;
        }
        if shown >= LINES_PER_FILE {
            if *tag != ' ' {
                not_shown += 1;
            }
            continue;
        }
        if !open {
            // First line numbers of the hunk: the next line on each side.
            let old_start = tagged[i..]
                .iter()
                .map(|t| t.2)
                .find(|&n| n != usize::MAX)
                .unwrap_or(a.len())
                + 1;
            let new_start = tagged[i..]
                .iter()
                .map(|t| t.3)
                .find(|&n| n != usize::MAX)
                .unwrap_or(b.len())
                + 1;
            hunks.push(Hunk {
                old_start,
                new_start,
                lines: Vec::new(),
            });
            open = true;
        }
        if let Some(hunk) = hunks.last_mut() {
            hunk.lines
                .push(format!("{tag}{}", shown_line(line.trim_end_matches('\n'))));
        }
        shown += 1;
    }
    DiffBody::Lines { hunks, not_shown }
}

/// Key-level differences of two JSON values: objects key by key, arrays index by index (an
/// element only on one side is one change), anything else compared whole.
pub(super) fn key_changes(path: &str, a: &J, b: &J, out: &mut Vec<KeyChange>) {
    if a == b {
        return;
    }
    let child = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => key_changes(&child(k), u, v, out),
                    (None, Some(v)) => out.push(KeyChange {
                        key: child(k),
                        change: ChangeKind::Added,
                        old: None,
                        new: Some(compact(v)),
                    }),
                    (Some(u), None) => out.push(KeyChange {
                        key: child(k),
                        change: ChangeKind::Removed,
                        old: Some(compact(u)),
                        new: None,
                    }),
                    (None, None) => {}
                }
            }
        }
        (J::Array(x), J::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let key = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(u), Some(v)) => key_changes(&key, u, v, out),
                    (None, Some(v)) => out.push(KeyChange {
                        key,
                        change: ChangeKind::Added,
                        old: None,
                        new: Some(compact(v)),
                    }),
                    (Some(u), None) => out.push(KeyChange {
                        key,
                        change: ChangeKind::Removed,
                        old: Some(compact(u)),
                        new: None,
                    }),
                    (None, None) => {}
                }
            }
        }
        (J::Null, _) if path.is_empty() => out.push(KeyChange {
            key: "(file)".into(),
            change: ChangeKind::Added,
            old: None,
            new: Some(compact(b)),
        }),
        _ => out.push(KeyChange {
            key: if path.is_empty() {
                "(file)".into()
            } else {
                path.into()
            },
            change: ChangeKind::Changed,
            old: Some(compact(a)),
            new: Some(compact(b)),
        }),
    }
}

/// A value as one line of compact JSON, cut. Serialising stops after `COMPACT_BYTES`, so a large
/// subtree (a first publication's witness index) costs no more than a small one.
pub(super) fn compact(v: &impl Serialize) -> String {
    const COMPACT_BYTES: usize = 1024;
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0.len() >= COMPACT_BYTES {
                return Err(std::io::Error::other("enough"));
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new());
    let whole = serde_json::to_writer(&mut out, v).is_ok();
    let text = String::from_utf8_lossy(&out.0).into_owned();
    if whole {
        shown_line(&text)
    } else {
        let mut cut = shown_line(&text);
        if !cut.ends_with('…') && !cut.ends_with(')') {
            cut.push('…');
        }
        cut
    }
}
