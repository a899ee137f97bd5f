//! `exhibit.toml` (docs/protocol.md#box): where the box's files are, what to publish, and which fields a
//! person has admitted. Paths are relative to the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// The seqs one part of a segmented exhibit's witness index holds: part N holds the entries
/// whose seq lies in `(N-1)*PART_SEQS+1 ..= N*PART_SEQS` (docs/witness.md#parts). Fixed blocks
/// give stable names: a part changes only when one of its entries does.
pub const PART_SEQS: u64 = 10_000;

/// The most bytes a page with everything embedded may weigh: 32 MiB, the ceiling every
/// published file keeps to (docs/page.md "The light page").
pub const PAGE_BYTES: u64 = 32 << 20;
/// What `[publish] page_bytes` may be: from 64 KiB (a page's shell and summary) to the ceiling.
pub const PAGE_BYTES_RANGE: std::ops::RangeInclusive<u64> = (64 << 10)..=PAGE_BYTES;

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    gate: Option<RawGate>,
    #[serde(default)]
    publish: RawPublish,
    /// The operator's key and the log's origin (docs/anchoring.md#the-key).
    #[serde(default)]
    checkpoint: RawCheckpoint,
    #[serde(default)]
    fields: BTreeMap<String, BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGate {
    ledger: PathBuf,
    config: Option<PathBuf>,
    sources: Option<PathBuf>,
    anchors: Option<PathBuf>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPublish {
    witness: Option<PathBuf>,
    public_texts: Option<bool>,
    segment_bytes: Option<i64>,
    withheld_bytes: Option<i64>,
    /// Not for operators: lowers the witness index's part size so tests cross a part boundary
    /// with a few dozen lines (docs/witness.md#parts).
    witness_part_seqs: Option<i64>,
    /// The most bytes `index.html` may weigh with everything embedded (docs/page.md "The light
    /// page"); lowered by tests to reach the light page with a small box.
    page_bytes: Option<i64>,
    /// The exhibit folder (`--out`), relative to this file (docs/operator.md#the-out-key).
    out: Option<PathBuf>,
    /// Day 1 of the registered witness kill-gate window (`--witness-window-since`).
    witness_window_since: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCheckpoint {
    /// The operator's private key (a path outside DIR and the repository).
    key: Option<PathBuf>,
    /// The tree's origin line (docs/tree.md#checkpoint).
    origin: Option<String>,
    /// The witnesses `exhibit cosign` asks (docs/anchoring.md#cosignatures).
    #[serde(default)]
    witness: Vec<RawWitness>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWitness {
    name: String,
    key: String,
    url: String,
}

/// A witness `exhibit cosign` asks (C2SP tlog-witness), checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    pub name: String,
    /// Its cosignature/v1 verifier key (signature type 0x04).
    pub key: String,
    /// Its submission prefix: `<url>/add-checkpoint` is asked. No trailing slash.
    pub url: String,
}

/// The box as `exhibit.toml` describes it, paths resolved.
#[derive(Debug, Clone)]
pub struct BoxConfig {
    pub file: PathBuf,
    pub ledger: PathBuf,
    pub gate_config: Option<PathBuf>,
    pub sources: Option<PathBuf>,
    pub anchors: Option<PathBuf>,
    pub witness: Option<PathBuf>,
    pub public_texts: bool,
    /// The most bytes a published ledger file holds (docs/scale.md#the-cut).
    pub segment_bytes: u64,
    /// The most bytes a file of the withheld list holds (docs/scale.md#withheld-files).
    pub withheld_bytes: u64,
    /// The seqs one part of a segmented exhibit's witness index holds (docs/witness.md#parts).
    pub witness_part_seqs: u64,
    /// Past this many bytes the page embeds a summary and fetches the ledger (docs/page.md).
    pub page_bytes: u64,
    /// The checkpoint's origin, when set (docs/tree.md#checkpoint).
    pub origin: Option<String>,
    /// The operator's signing key, when set (docs/anchoring.md#the-key).
    pub key: Option<PathBuf>,
    /// The witnesses that cosign the checkpoint, in the file's order (docs/anchoring.md#cosignatures).
    pub witnesses: Vec<Witness>,
    pub fields: BTreeMap<String, BTreeMap<String, String>>,
    /// `[publish] out`, resolved against the file (docs/operator.md#the-out-key).
    pub out: Option<PathBuf>,
    /// `[publish] witness_window_since`, a checked YYYY-MM-DD day.
    pub witness_window_since: Option<String>,
}

/// The valid key nearest a mistyped one, from the reader's own "unknown field `x`, expected
/// one of `a`, `b`" message: edit distance (`strsim`, as clap suggests a flag) at most a third
/// of the key's length and at least 1, so `witnes_store` suggests `witness_store` and `colour`
/// suggests nothing far from it.
fn did_you_mean(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    let allowed = (unknown.chars().count() / 3).max(1);
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (strsim::levenshtein(unknown, k), k))
        .filter(|&(d, _)| d <= allowed)
        .min()
        .map(|(_, k)| k)
}

pub fn load(file: &Path) -> Result<BoxConfig> {
    let cannot = || {
        format!(
            "{}: cannot read the box's configuration (run in the folder holding exhibit.toml, or give --config)",
            file.display()
        )
    };
    let bytes =
        crate::operator_box::read::read_named(file, crate::operator_box::read::FileClass::Config)
            .with_context(cannot)?
            .with_context(cannot)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", file.display()))?;
    let raw: RawConfig = toml::from_str(&text).map_err(|e| {
        // One line, naming the line and column: the reader's own message draws the line under
        // a caret, over several lines, which an error on one line cannot show.
        let at = e.span().map_or(String::new(), |span| {
            let before = text.get(..span.start).unwrap_or(&text);
            let line = before.matches('\n').count() + 1;
            let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count()
                + 1;
            format!("line {line}, column {column}: ")
        });
        let message = e.message().trim_end();
        let hint =
            did_you_mean(message).map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
        anyhow::anyhow!(
            "{}: not a valid exhibit.toml: {at}{message}{hint}",
            file.display()
        )
    })?;
    let base = file.parent().unwrap_or(Path::new("."));
    let resolve = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
    let Some(gate) = raw.gate else {
        bail!("{}: no [gate] table (it names the ledger)", file.display());
    };
    let segment_bytes = match raw.publish.segment_bytes {
        None => crate::published::segments::DEFAULT_SEGMENT_BYTES,
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| crate::published::segments::SEGMENT_BYTES_RANGE.contains(n))
            .with_context(|| {
                format!(
                    "{}: [publish] segment_bytes = {n} is outside the accepted range {}..={} (bytes; 4 KiB to 32 MiB, docs/scale.md#the-threshold); set it within the range or remove it for the default {}",
                    file.display(),
                    crate::published::segments::SEGMENT_BYTES_RANGE.start(),
                    crate::published::segments::SEGMENT_BYTES_RANGE.end(),
                    crate::published::segments::DEFAULT_SEGMENT_BYTES
                )
            })?,
    };
    let withheld_bytes = match raw.publish.withheld_bytes {
        None => crate::published::withheld_files::DEFAULT_WITHHELD_BYTES,
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| crate::published::withheld_files::WITHHELD_BYTES_RANGE.contains(n))
            .with_context(|| {
                format!(
                    "{}: [publish] withheld_bytes = {n} is outside the accepted range {}..={} (bytes; 4 KiB to 32 MiB, docs/scale.md#withheld-files); set it within the range or remove it for the default {}",
                    file.display(),
                    crate::published::withheld_files::WITHHELD_BYTES_RANGE.start(),
                    crate::published::withheld_files::WITHHELD_BYTES_RANGE.end(),
                    crate::published::withheld_files::DEFAULT_WITHHELD_BYTES
                )
            })?,
    };
    let witness_part_seqs = match raw.publish.witness_part_seqs {
        None => PART_SEQS,
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| (1..=PART_SEQS).contains(n))
            .with_context(|| {
                format!(
                    "{}: [publish] witness_part_seqs = {n} is outside the accepted range 1..={} (a test knob, docs/witness.md#parts); remove it",
                    file.display(),
                    PART_SEQS
                )
            })?,
    };
    let page_bytes = match raw.publish.page_bytes {
        None => PAGE_BYTES,
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| PAGE_BYTES_RANGE.contains(n))
            .with_context(|| {
                format!(
                    "{}: [publish] page_bytes = {n} is outside the accepted range {}..={} (bytes; docs/page.md \"The light page\"); set it within the range or remove it for the default {}",
                    file.display(),
                    PAGE_BYTES_RANGE.start(),
                    PAGE_BYTES_RANGE.end(),
                    PAGE_BYTES
                )
            })?,
    };
    if let Some(o) = &raw.checkpoint.origin
        && let Err(why) = crate::publication::tree::check_origin(o)
    {
        bail!(
            "{}: [checkpoint] origin = {o:?}: {why}; set an origin that is your exhibit's address (docs/tree.md#checkpoint), or remove the key for the default",
            file.display()
        );
    }
    if let Some(day) = &raw.publish.witness_window_since
        && !exhibit_protocol::days::is_day(day)
    {
        bail!(
            "{}: [publish] witness_window_since = {day:?} is not a YYYY-MM-DD day; set day 1 of the registered window, or remove the key while none is registered",
            file.display()
        );
    }
    if let Some(out) = &raw.publish.out
        && out.as_os_str().is_empty()
    {
        bail!(
            "{}: [publish] out = \"\": name the exhibit folder (relative to this file), or remove the key and give --out",
            file.display()
        );
    }
    let witnesses = witnesses(file, raw.checkpoint.witness)?;
    Ok(BoxConfig {
        out: raw.publish.out.map(resolve),
        witness_window_since: raw.publish.witness_window_since,
        file: file.to_path_buf(),
        ledger: resolve(gate.ledger),
        gate_config: gate.config.map(resolve),
        sources: gate.sources.map(resolve),
        anchors: gate.anchors.map(resolve),
        witness: raw.publish.witness.map(resolve),
        public_texts: raw.publish.public_texts.unwrap_or(false),
        segment_bytes,
        withheld_bytes,
        witness_part_seqs,
        page_bytes,
        origin: raw.checkpoint.origin,
        key: raw.checkpoint.key.map(resolve),
        witnesses,
        fields: raw.fields,
    })
}

/// `[[checkpoint.witness]]` entries checked: a cosignature/v1 key named as the entry, an http(s)
/// submission prefix, no name twice (docs/anchoring.md#cosignatures).
fn witnesses(file: &Path, raw: Vec<RawWitness>) -> Result<Vec<Witness>> {
    let mut out: Vec<Witness> = Vec::new();
    for (i, w) in raw.into_iter().enumerate() {
        let at = format!(
            "{}: [[checkpoint.witness]] number {} (name = {:?})",
            file.display(),
            i + 1,
            w.name
        );
        let key = crate::published::cosignature::WitnessKey::parse(&w.key).map_err(|why| {
            anyhow::anyhow!(
                "{at}: key = {:?} is not a witness's cosignature key: {why}; give the verifier key the witness publishes (`<name>+<key id>+<base64>`, signature type 0x04, C2SP tlog-cosignature)",
                w.key
            )
        })?;
        if key.name != w.name {
            bail!(
                "{at}: the key is named {:?}: a cosignature line carries its key's name, so name = must be the key's name",
                key.name
            );
        }
        let url = w.url.trim_end_matches('/');
        let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
        if !scheme_ok
            || url.ends_with("/add-checkpoint")
            || url.chars().any(|c| c.is_whitespace() || c.is_control())
            || url
                .split_once("://")
                .is_none_or(|(_, rest)| rest.is_empty())
        {
            bail!(
                "{at}: url = {:?} is not a witness's submission prefix: give the https:// (or, for a test, http://) address before `/add-checkpoint`, without spaces",
                w.url
            );
        }
        if out.iter().any(|o| o.name == w.name) {
            bail!("{at}: a second witness of that name; list each witness once");
        }
        out.push(Witness {
            name: w.name,
            key: w.key,
            url: url.to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_key_names_the_nearest_valid_one_and_a_far_one_none() {
        // Catches a hint taken from the wrong part of the message, one offered for any key, or
        // none for a key one letter off.
        let m = "unknown field `segment_byte`, expected one of `segment_bytes`, `withheld_bytes`";
        assert_eq!(did_you_mean(m), Some("segment_bytes"));
        let m = "unknown field `colour`, expected one of `segment_bytes`, `withheld_bytes`";
        assert_eq!(did_you_mean(m), None);
        assert_eq!(did_you_mean("invalid type: string, expected u64"), None);
    }
}
