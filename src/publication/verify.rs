//! Stage 2, verify: the gate's ledger must re-derive before anything is published
//! (docs/protocol.md#chain).

use super::decide::{KindDay, LineRecord, SharedText};
use crate::operator_box::gate_ledger::GateLedger;
use crate::publication::record_fields::Clock;
use crate::terminal::progress::Progress;
use crate::terminal::refusal::Refusal;
use exhibit_protocol::Digest;
use exhibit_protocol::verify::{Pass, Withheld, verify_reader};

/// The gate's ledger, verified.
pub struct VerifiedLedger {
    pub header: (usize, usize),
    pub header_digest: Digest,
    pub anchor_tz: String,
    /// Shared, once decided, with the witness layer's table of the store's ids, which reads a
    /// line's entry_id here rather than holding it again (docs/scale.md#ids-by-line).
    pub lines: std::sync::Arc<Vec<LineRecord>>,
    pub head: Digest,
}

/// Each problem the verifier found, as a refusal naming its line.
fn not_rederived(report: &exhibit_protocol::verify::Report, ledger_name: &str) -> Vec<Refusal> {
    report
        .problems
        .iter()
        .map(|p| {
            let place = match p.seq {
                Some(s) => format!("line {} (seq {s})", p.line),
                None => format!("line {}", p.line),
            };
            Refusal::new(
                "ledger_does_not_rederive",
                ledger_name,
                place,
                format!("{}: {} (docs/protocol.md#verifier-report)", p.code, p.detail),
                "no flag publishes a ledger that does not re-derive; `exhibit verify` shows the same problems — repair the gate's ledger first",
            )
        })
        .collect()
}

/// Stage 2: the gate's ledger must re-derive before anything is published (docs/protocol.md#verifier-report).
pub fn verify(
    ledger: &GateLedger,
    ledger_name: &str,
    progress: &mut Progress,
) -> Result<VerifiedLedger, Vec<Refusal>> {
    let none = Withheld::default();
    let unreadable = |e: &dyn std::fmt::Display, line: u64| {
        vec![Refusal::new(
            "ledger_unreadable",
            ledger_name,
            format!("line {line}"),
            format!("the ledger could not be read: {e}"),
            "repair the gate's ledger first",
        )]
    };
    let header = (
        0,
        ledger
            .first_lf()
            .map_err(|e| unreadable(&format!("{e:#}"), 1))?
            .unwrap_or(0),
    );
    let total = ledger.len() as u64;
    // The whole ledger streamed once, its sha256 taken on the way: later passes are held to it
    // (docs/scale.md#the-gates-ledger-is-not-held).
    let mut stream = ledger.stream();
    // Kinds and days repeat line after line: each distinct kind is held once (a set, so that a
    // ledger of a million distinct kinds costs no more than a lookup each), and a day is shared
    // with the line before it when they are the same.
    let mut kinds: std::collections::HashSet<SharedText> = Default::default();
    let mut last_day: SharedText = "".into();
    let shared =
        |text: &str, kinds: &mut std::collections::HashSet<SharedText>| match kinds.get(text) {
            Some(k) => k.clone(),
            None => {
                let k: SharedText = text.into();
                kinds.insert(k.clone());
                k
            }
        };
    // Each (kind, day) pair held once, shared by its lines (docs/scale.md#narrower-records).
    let mut pairs: std::collections::HashMap<(SharedText, SharedText), KindDay> =
        Default::default();
    let mut last_pair = KindDay::new("".into(), "".into());
    // A line longer than a record's 4 GiB length, or starting past its 1 TiB offset
    // (docs/scale.md#narrower-lines): refused below, never cut short.
    let mut too_long: Option<(u64, &str)> = None;
    let mut lines = Vec::new();
    let verified = verify_reader(
        &mut stream,
        &none,
        // The fast scanner's fields: a canonical line is never built into an object here, as
        // in `exhibit verify` (docs/scale.md#the-gates-ledger-is-not-held).
        Pass::Fields(&mut |entry, offset| {
            let start = offset as usize;
            let Ok(len) = u32::try_from(entry.bytes.len()) else {
                too_long.get_or_insert((
                    entry.line,
                    "the line is over 4 GiB (4,294,967,295 bytes), longer than exhibit publishes a line",
                ));
                return;
            };
            let Some(offset) = crate::publication::record_fields::Offset::new(offset) else {
                too_long.get_or_insert((
                    entry.line,
                    "the line starts past 1 TiB (1,099,511,627,776 bytes) into the ledger, further than exhibit publishes a ledger",
                ));
                return;
            };
            // A line without a problem states the entry_id it re-derives to.
            if !entry.has_problem
                && let Some(entry_id) = entry.derived_id
            {
                let timestamp = entry
                    .timestamp
                    .as_deref()
                    .and_then(exhibit_protocol::days::parse_timestamp);
                let kind = shared(entry.kind.as_deref().unwrap_or_default(), &mut kinds);
                let day = entry.day.as_deref().unwrap_or_default();
                if &*last_day != day {
                    last_day = day.into();
                }
                if !last_pair.is(&kind, &last_day) {
                    last_pair = pairs
                        .entry((kind.clone(), last_day.clone()))
                        .or_insert_with(|| KindDay::new(kind, last_day.clone()))
                        .clone();
                }
                lines.push(LineRecord {
                    seq: entry.seq.unwrap_or_default(),
                    entry_id,
                    kind_day: last_pair.clone(),
                    timestamp: timestamp.and_then(Clock::new).unwrap_or_default(),
                    has_timestamp: timestamp.and_then(Clock::new).is_some(),
                    offset,
                    len,
                    withheld: None,
                    read_by_operator: false,
                });
            }
            progress.tick("verify", start as u64, total, || {
                format!("line {}", entry.line)
            });
        }),
    );
    // A read that fails (the file shortened under the build, a disk error) is a refusal.
    let verified = verified.map_err(|e| unreadable(&e, e.line))?;
    if let Some((line, why)) = too_long {
        return Err(unreadable(&why, line));
    }
    // Held for the whole build: its spare room is given back.
    lines.shrink_to_fit();
    ledger.set_verified(stream.digest());
    let header_info = verified.header;
    let report = verified.report;
    if !report.ok {
        return Err(not_rederived(&report, ledger_name));
    }
    let (Some(header_info), Some(head)) = (header_info, report.head) else {
        return Err(vec![Refusal::new(
            "ledger_does_not_rederive",
            ledger_name,
            "",
            "the ledger has no header line and no head (docs/protocol.md#verifier-report)",
            "no flag publishes a ledger that does not re-derive; repair the gate's ledger first",
        )]);
    };
    let Some(header_digest) = header_info.digest else {
        return Err(vec![Refusal::new(
            "ledger_does_not_rederive",
            ledger_name,
            "line 1 (header)",
            "the header has no digest (docs/protocol.md#verifier-report)",
            "no flag publishes a ledger that does not re-derive; repair the gate's ledger first",
        )]);
    };
    Ok(VerifiedLedger {
        header,
        header_digest,
        anchor_tz: header_info.anchor_tz.clone().unwrap_or_default(),
        head,
        lines: std::sync::Arc::new(lines),
    })
}
