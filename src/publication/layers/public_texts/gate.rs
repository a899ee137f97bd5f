//! The gate's side of public texts: its `config.json` (the allow-list and the trailer), and every
//! `send` line classified as allow-listed or as one class off the list (docs/public-texts.md).

use super::*;

/// The gate's `config.json`, as far as the allow-list needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    pub anchor_channel_hash: Digest,
    pub canary_hash: Digest,
    pub group_hashes: BTreeSet<Digest>,
    pub operator_dm_hash: Digest,
}

impl GateConfig {
    /// Parses `config.json`. Keys other than the four are the gate's own and are ignored.
    pub fn parse(bytes: &[u8]) -> std::result::Result<GateConfig, String> {
        let v: J = serde_json::from_slice(bytes).map_err(|e| format!("not JSON ({e})"))?;
        let o = v.as_object().ok_or("not a JSON object")?;
        let digest = |key: &str| -> std::result::Result<Digest, String> {
            let not_a_digest = || format!("{key:?} is not a 64-lowercase-hex digest");
            match o.get(key) {
                None => Err(format!("no {key:?}")),
                Some(J::String(s)) => s.parse().map_err(|_| not_a_digest()),
                Some(_) => Err(not_a_digest()),
            }
        };
        let anchor_channel_hash = digest("anchor_channel_hash")?;
        let canary_hash = digest("canary_hash")?;
        let operator_dm_hash = digest("operator_dm_hash")?;
        let groups = match o.get("group_hashes") {
            None => return Err("no \"group_hashes\"".into()),
            Some(J::Array(a)) => a,
            Some(_) => return Err("\"group_hashes\" is not a list".into()),
        };
        let mut group_hashes = BTreeSet::new();
        for g in groups {
            match g.as_str().map(str::parse::<Digest>) {
                Some(Ok(d)) => {
                    group_hashes.insert(d);
                }
                _ => {
                    return Err(
                        "\"group_hashes\" holds a value that is not a 64-lowercase-hex digest"
                            .into(),
                    );
                }
            }
        }
        let listed = |h: &Digest| group_hashes.contains(h) || *h == anchor_channel_hash;
        if listed(&canary_hash) {
            return Err("the canary chat is listed as a public destination (group_hashes or anchor_channel_hash); it may never be".into());
        }
        if listed(&operator_dm_hash) {
            return Err("the operator's dm is listed as a public destination (group_hashes or anchor_channel_hash); it may never be".into());
        }
        Ok(GateConfig {
            anchor_channel_hash,
            canary_hash,
            group_hashes,
            operator_dm_hash,
        })
    }

    pub fn load(path: &Path) -> Result<GateConfig> {
        let bytes = crate::operator_box::read::read_named(
            path,
            crate::operator_box::read::FileClass::GateConfig,
        )
        .and_then(|b| b.with_context(|| format!("{}: no such file", path.display())))
        .with_context(|| {
            format!(
                "{}: cannot read the gate's config.json (needed by --public-texts)",
                path.display()
            )
        })?;
        GateConfig::parse(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a usable gate config.json for --public-texts: {e}",
                path.display()
            )
        })
    }

    /// A destination a text may be released to: a listed group or the anchor channel.
    pub fn allows(&self, dest_hash: &Digest) -> bool {
        *dest_hash != self.canary_hash
            && *dest_hash != self.operator_dm_hash
            && (self.group_hashes.contains(dest_hash) || *dest_hash == self.anchor_channel_hash)
    }
}

/// The gate's trailer (docs/protocol.md#public-texts, docs/protocol.md#proving-one-message): `[gate: b of n numerals bound · ledger NNNN]`.
pub fn trailer(bound: i64, total: i64, seq: i64) -> String {
    format!("[gate: {bound} of {total} numerals bound \u{b7} ledger {seq:04}]")
}

/// The bytes with trailing `\n` removed, two newlines, then the trailer (docs/protocol.md#public-texts).
pub fn with_trailer(text: &[u8], trailer: &str) -> Vec<u8> {
    let mut end = text.len();
    while end > 0 && text[end - 1] == b'\n' {
        end -= 1;
    }
    let mut out = Vec::with_capacity(end + 2 + trailer.len());
    out.extend_from_slice(&text[..end]);
    out.extend_from_slice(b"\n\n");
    out.extend_from_slice(trailer.as_bytes());
    out
}

/// Where a send line stands with respect to the allow-list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    AllowListed,
    Off(OffList),
}

/// The allow-list rule (docs/protocol.md#public-texts), then the off-list class of a line that fails it. Every `send` line
/// falls in exactly one class; `public` says whether its `dest_class` is `public`.
pub fn classify(o: &Object<'_>, cfg: &GateConfig) -> (Class, bool) {
    let dest_class = o.get_str("dest_class");
    let public = dest_class == Some("public");
    // A dest_hash that is not a digest names no configured chat.
    let dest = digest_field(o, "dest_hash");
    let class = if dest == Some(cfg.canary_hash) || dest_class == Some("canary") {
        Class::Off(OffList::Canary)
    } else if dest == Some(cfg.operator_dm_hash) {
        Class::Off(OffList::OperatorDm)
    } else if !dest.is_some_and(|d| cfg.allows(&d)) {
        Class::Off(OffList::NotInConfig)
    } else if !public {
        Class::Off(OffList::DestClassNotPublic)
    } else if o.get_str("action") != Some("send")
        || !o.get_str("sent_sha256").is_some_and(Digest::is_hex)
    {
        Class::Off(OffList::NoSentBytes)
    } else {
        Class::AllowListed
    };
    (class, public)
}

/// A `send` line, as this layer needs it.
#[derive(Debug, Clone)]
pub(super) struct SendLine {
    /// Its `sent_sha256`: the text it carries.
    pub(super) sent: Digest,
    pub(super) seq: i64,
    /// Shared with the line records (a few thousand days for a million lines).
    pub(super) day: SharedText,
    pub(super) checked: Option<Digest>,
    pub(super) draft: Option<Digest>,
    /// `numerals.bound`, `numerals.total`.
    pub(super) numerals: Option<(i64, i64)>,
}

impl OfText for SendLine {
    fn sha(&self) -> Digest {
        self.sent
    }

    fn seq(&self) -> i64 {
        self.seq
    }
}

/// An off-list line's seq, by the text it carries.
#[derive(Debug, Clone, Copy)]
pub(super) struct OffListSeq {
    pub(super) sent: Digest,
    pub(super) seq: i64,
}

impl OfText for OffListSeq {
    fn sha(&self) -> Digest {
        self.sent
    }

    fn seq(&self) -> i64 {
        self.seq
    }
}

/// Values by their text's sha256, held as one list sorted by sha256 (each text's values in the
/// order they were pushed), not as a map of lists: a list per text takes room for four values
/// at its first push, and most texts have one line — at a million lines the map of the
/// allow-listed lines' groups was about 90 MB, this list 25 (docs/scale.md#giving-memory-back).
#[derive(Debug)]
pub(super) struct BySha<T>(pub(super) Vec<T>);

impl<T> Default for BySha<T> {
    fn default() -> Self {
        BySha(Vec::new())
    }
}

impl<T: OfText> BySha<T> {
    pub(super) fn push(&mut self, value: T) {
        self.0.push(value);
    }

    /// Sorted by sha256, a text's values in seq order, and the spare room given back. Called
    /// once every value is pushed. Sorted in place by (sha256, seq), not stably by sha256
    /// alone: a stable sort takes room for half the list beside it (25 MB of allow-listed
    /// lines at a million lines, on the layer's peak: docs/scale.md#giving-memory-back), and
    /// the values are pushed in seq order, so both orders are the same.
    pub(super) fn sort(&mut self) {
        self.0.shrink_to_fit();
        self.0
            .sort_unstable_by(|a, b| a.sha().cmp(&b.sha()).then(a.seq().cmp(&b.seq())));
    }

    pub(super) fn retain(&mut self, keep: impl Fn(&Digest) -> bool) {
        self.0.retain(|v| keep(&v.sha()));
    }

    /// Every value, of every text.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The values of `sha`, in the order they were pushed (after `sort`).
    pub(super) fn get(&self, sha: &Digest) -> &[T] {
        let from = self.0.partition_point(|v| v.sha() < *sha);
        let to = from + self.0[from..].partition_point(|v| v.sha() == *sha);
        &self.0[from..to]
    }

    pub(super) fn contains(&self, sha: &Digest) -> bool {
        !self.get(sha).is_empty()
    }

    /// Each text with its values, in sha256 order (after `sort`).
    pub(super) fn groups(&self) -> impl Iterator<Item = (Digest, &[T])> {
        self.0
            .chunk_by(|a, b| a.sha() == b.sha())
            .map(|group| (group[0].sha(), group))
    }
}

/// A field that holds a digest; `None` when it is absent or is not one.
pub(super) fn digest_field(o: &Object<'_>, key: &str) -> Option<Digest> {
    o.get_str(key).and_then(|s| s.parse().ok())
}

pub(super) fn numerals(o: &Object<'_>) -> Option<(i64, i64)> {
    match o.get("numerals") {
        Some(Value::Object(n)) => Some((n.get_int("bound")?, n.get_int("total")?)),
        _ => None,
    }
}

/// The gate's config.json and sources folder, which --public-texts needs.
pub(super) fn gate_inputs(plan: &crate::publication::BuildPlan) -> Result<(GateConfig, &Path)> {
    let toml = plan.config.file.display().to_string();
    let Some(config_path) = &plan.config.gate_config else {
        bail!(
            "{toml}: --public-texts needs the gate's config.json: add `config = \"...\"` under [gate]"
        );
    };
    let cfg = GateConfig::load(config_path)?;
    let Some(sources) = &plan.config.sources else {
        bail!(
            "{toml}: --public-texts needs the gate's sources folder: add `sources = \"...\"` under [gate]"
        );
    };
    if !sources.is_dir() {
        bail!(
            "{}: the sources folder named in {toml} does not exist (needed by --public-texts)",
            sources.display()
        );
    }
    Ok((cfg, sources))
}

/// Every seq of the group but `seq`.
pub(super) fn other_seqs(lines: &[SendLine], seq: i64) -> Vec<i64> {
    lines.iter().map(|l| l.seq).filter(|s| *s != seq).collect()
}

/// Step 1: every send line classified.
#[derive(Default)]
pub(super) struct Classes {
    pub(super) send_lines: usize,
    pub(super) line_withheld: usize,
    pub(super) public_lines: usize,
    pub(super) off: BTreeMap<OffList, Vec<i64>>,
    /// sent_sha256 → off-list seqs carrying it (published lines only).
    pub(super) off_by_sha: BySha<OffListSeq>,
    /// sent_sha256 → allow-listed lines carrying it, in seq order.
    pub(super) groups: BySha<SendLine>,
    /// sent_sha256 → the class of the first non-allow-listed line carrying it, for the refusal
    /// of a text HEAD published that is no longer allow-listed: kept only for HEAD's texts
    /// (a string for every off-list text was 34 MB at a million lines: docs/scale.md#memory).
    pub(super) class_of_sha: BTreeMap<Digest, String>,
}

/// The lines are read again from the gate's ledger and held, like the guard's, to the bytes the
/// verify stage re-derived: which text may be released follows from them
/// (docs/scale.md#the-gates-ledger-is-not-held).
pub(super) fn classify_lines(
    ctx: &LayerContext<'_>,
    cfg: &GateConfig,
    head_published: &BTreeMap<Digest, (i64, Option<git2::Oid>)>,
) -> Result<Classes> {
    let mut c = Classes {
        off: OFF_CLASSES.iter().map(|c| (*c, Vec::new())).collect(),
        ..Classes::default()
    };
    let mut reader = ctx.ledger.lines(true);
    for record in ctx.verified.lines.iter() {
        if &**record.kind() != "send" {
            continue;
        }
        c.send_lines += 1;
        let o = crate::publication::decide::line_object(reader.get(record.start(), record.end())?);
        let sent = digest_field(&o, "sent_sha256");
        if record.withheld.is_some() {
            // Never a candidate; its fields are not published, so it is counted, not named.
            c.line_withheld += 1;
            if let Some(s) = sent.filter(|s| head_published.contains_key(s)) {
                c.class_of_sha
                    .entry(s)
                    .or_insert_with(|| "its line is withheld by the line rules".into());
            }
            continue;
        }
        let (class, public) = classify(&o, cfg);
        if public {
            c.public_lines += 1;
        }
        match class {
            // classify() allow-lists only lines that carry a sent_sha256.
            Class::AllowListed => {
                if let Some(sent) = sent {
                    c.groups.push(SendLine {
                        sent,
                        seq: record.seq,
                        day: record.day().clone(),
                        checked: digest_field(&o, "checked_sha256"),
                        draft: digest_field(&o, "draft_sha256"),
                        numerals: numerals(&o),
                    });
                }
            }
            Class::Off(class) => {
                c.off.entry(class).or_default().push(record.seq);
                if let Some(s) = sent {
                    c.off_by_sha.push(OffListSeq {
                        sent: s,
                        seq: record.seq,
                    });
                    if head_published.contains_key(&s) {
                        c.class_of_sha.entry(s).or_insert_with(|| {
                            format!("seq {} is off the allow-list ({class})", record.seq)
                        });
                    }
                }
            }
        }
    }
    reader.finish()?;
    c.groups.sort();
    // The off-list seqs are printed only for a text that is released, one with an allow-listed
    // line: the others are let go now (docs/scale.md#memory).
    let groups = &c.groups;
    c.off_by_sha.retain(|sha| groups.contains(sha));
    c.off_by_sha.sort();
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_s_values_are_in_seq_order_once_sorted() {
        // Many values over a few texts, pushed in seq order: an in-place sort by sha256 alone
        // scrambles a text's values at this size; by (sha256, seq) they come out as pushed.
        let shas: Vec<Digest> = (0u8..5).map(|i| Digest::of(&[i])).collect();
        let mut by = BySha::default();
        for seq in 1..=20_000i64 {
            let sent = shas[(seq as usize * 7919) % shas.len()];
            by.push(OffListSeq { sent, seq });
        }
        by.sort();
        let mut seen = 0;
        for (sha, values) in by.groups() {
            assert!(values.iter().all(|v| v.sent == sha));
            assert!(values.windows(2).all(|w| w[0].seq < w[1].seq), "{sha}");
            assert_eq!(by.get(&sha).len(), values.len());
            seen += values.len();
        }
        assert_eq!(seen, 20_000);
        assert_eq!(by.groups().count(), shas.len());
    }
}
