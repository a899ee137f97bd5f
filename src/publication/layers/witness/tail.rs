//! The tail's logs and texts: the run log, REPORT.md, the calendars, and every clock they print,
//! held to never showing a withheld line's minute (docs/witness.md#privacy).

use super::*;

/// One of HEAD's files: its path, git blob id and length.
pub(super) type HeadFileId = (String, git2::Oid, u64);

/// The run log, read as it is published, never held: at a million lines it is 250 MB
/// (docs/scale.md#the-run-log-is-not-held); with what it carries to the next build
/// (docs/scale.md#carried-verdicts).
pub(super) fn read_run_log(
    ctx: &LayerContext<'_>,
    store: &Path,
    tail: &TailLogs,
    refusals: &mut Vec<Refusal>,
) -> Result<(
    Option<crate::publication::layers::run_log::RunLog>,
    Vec<HeadFileId>,
    Vec<crate::previous::carried::Carried>,
)> {
    let head_runs = head_runs_files(ctx)?;
    let run_log = crate::publication::layers::run_log::read(
        store,
        tail.to_cut.clone(),
        &ctx.verified.anchor_tz,
        &head_runs,
        crate::publication::layers::run_log::guarded(ctx.previous.git_dir()),
        refusals,
    )?;
    let carried = run_log
        .as_ref()
        .and_then(|l| l.carried(ctx.previous.git_dir()))
        .into_iter()
        .collect();
    Ok((run_log, head_runs, carried))
}

/// The report's clocks checked against the tail's moments, and the moments let go, before the
/// run log is read; the refusals are named after the run log's and the tail texts', as before
/// (docs/scale.md#memory).
pub(super) fn report_clocks(
    ctx: &LayerContext<'_>,
    store: &Path,
    s: &Store,
    tail: &mut TailLogs,
) -> Vec<Refusal> {
    let mut clock_refusals = Vec::new();
    let (private, public) = (std::mem::take(&mut tail.private), tail.public.take());
    if let Some(report) = &s.report {
        check_report_clocks(
            store,
            report,
            ctx,
            &private,
            public.as_ref(),
            &mut clock_refusals,
        );
    }
    clock_refusals
}

/// The tail's logs as published, and the moments of withheld seqs (docs/build.md#safety).
pub(super) struct TailLogs {
    /// seal.jsonl with every withheld seq's moment that no published line shares cut to its
    /// anchor-zone day (runs.jsonl is cut as it is read: run_log.rs).
    pub(super) seal: Option<Vec<u8>>,
    /// Those moments.
    pub(super) to_cut: BTreeSet<i64>,
    /// A withheld seq's moments, each with its seqs.
    pub(super) private: PrivateMoments,
    /// What the moments a published line or its records print tell of the private ones.
    pub(super) public: Option<side_channels::PublicClocks>,
}

/// The side channels (docs/build.md#safety): runs.jsonl and every line of seal.jsonl are
/// published with a withheld seq's moments cut to the anchor-zone day, then every line and each
/// calendar string must pass the identifier guard.
pub(super) fn tail_logs(
    ctx: &LayerContext<'_>,
    store: &Path,
    s: &Store,
    index: &StoreIndex,
    chain: &Chain,
    refusals: &mut Vec<Refusal>,
) -> TailLogs {
    let cut = |id: &Digest, r: &Record| chain.cut(id, r);
    let private = private_moments(ctx, index, &cut);
    let mut daycut = DayCut::new(&ctx.verified.anchor_tz);
    // With no withheld moment nothing is asked of the published ones.
    let public = (!private.is_empty()).then(|| {
        side_channels::PublicClocks::of(
            |t| private.contains(t),
            public_moments(ctx, index, &cut),
            &mut daycut,
        )
    });
    // A moment a published line's record also prints (an opening batch shared by thousands of
    // lines) names nothing the published index does not: it is left as it is.
    let to_cut: BTreeSet<i64> = private
        .moments()
        .filter(|&t| !public.as_ref().is_some_and(|p| p.prints(t)))
        .collect();
    let mut cut_file = |bytes: Option<Vec<u8>>| -> Option<Vec<u8>> {
        bytes.map(|b| {
            let cut = match std::str::from_utf8(&b) {
                Ok(text) => match side_channels::cut_moments(text, &to_cut, &mut daycut) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(o) => Some(o.into_bytes()),
                },
                Err(_) => None,
            };
            cut.unwrap_or(b)
        })
    };
    let seal = cut_file(s.seal.clone());
    for (rel, bytes) in [("seal.jsonl", &seal)] {
        let Some(bytes) = bytes else { continue };
        let Ok(text) = std::str::from_utf8(bytes) else {
            refusals.push(Refusal::new(
                "witness_log_not_utf8",
                shown(store, rel),
                "",
                "not UTF-8 text; the tail's logs are JSON lines",
                "repair the tail's file",
            ));
            continue;
        };
        for (line, codes) in side_channels::guard_lines(text) {
            refusals.push(Refusal::new(
"witness_log_identifier",
                shown(store, rel),
                format!("line {line}"),
                format!(
                    "the tail's {rel} carries an identifier's shape ({}); every published byte passes the guard (docs/build.md#safety)",
                    codes.join(", ")
                ),
                "repair the tail's file (no flag publishes an identifier from the store)",
            ));
        }
    }
    guard_calendars(store, index, refusals);
    TailLogs {
        seal,
        to_cut,
        private,
        public,
    }
}

/// Each entry's `calendars` strings are published: each must pass the identifier guard.
pub(super) fn guard_calendars(store: &Path, index: &StoreIndex, refusals: &mut Vec<Refusal>) {
    for (k, list) in index.calendars.iter().enumerate() {
        for cal in list {
            let codes = side_channels::guard_codes(cal);
            if codes.is_empty() {
                continue;
            }
            let entry = index
                .records
                .iter()
                .position(|r| r.calendars as usize == k)
                .map(|at| index.ids.at(at).to_string())
                .unwrap_or_default();
            refusals.push(Refusal::new(
"witness_calendar_identifier",
                shown(store, "index.json"),
                format!("entry {entry} calendars"),
                format!(
                    "a calendar string carries an identifier's shape ({}); every published byte passes the guard (docs/build.md#safety)",
                    codes.join(", ")
                ),
                "repair the tail's index (a calendar is a public calendar server's URL)",
            ));
        }
    }
}

/// REPORT.md and WITNESS_PREREG.md are published as written and rendered: the guard reads them.
pub(super) fn guard_tail_texts(store: &Path, s: &Store, refusals: &mut Vec<Refusal>) {
    for (rel, text) in [
        ("REPORT.md", s.report.clone()),
        (
            "WITNESS_PREREG.md",
            s.prereg
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
        ),
    ] {
        let Some(text) = text else { continue };
        // Both what is written and what a reader sees once it is rendered (markdown syntax
        // inside an address or a number hides it from the first): docs/build.md#safety.
        let mut reasons =
            exhibit_protocol::guard::scan(&text, exhibit_protocol::guard::Context::PublicText);
        reasons.extend(exhibit_protocol::guard::scan(
            &crate::publication::render::markdown_reader_text(&text),
            exhibit_protocol::guard::Context::PublicText,
        ));
        reasons.sort();
        reasons.dedup();
        if !reasons.is_empty() {
            refusals.push(Refusal::new(
"witness_text_identifier",
                shown(store, rel),
                "",
                format!(
                    "the tail's text carries an identifier's shape ({}); it is published as written and the page renders it (docs/witness.md)",
                    reasons.iter().map(|r| r.code()).collect::<Vec<_>>().join(", ")
                ),
                if rel == "REPORT.md" {
                    "fix the tail's report"
                } else {
                    "a person reads the preregistration; a sealed file cannot be edited, so the witness layer stays off until it is re-sealed"
                },
            ));
        }
    }
}

/// HEAD's run-log files `(path, blob id, bytes)` in chain order: `runs.jsonl`, then
/// `runs/000001.jsonl`, … numbered from 1 without a gap.
pub(super) fn head_runs_files(ctx: &LayerContext<'_>) -> Result<Vec<(String, git2::Oid, u64)>> {
    let previous = ctx.previous;
    let mut files = Vec::new();
    if let Some(id) = previous.blob_id(RUNS.first)? {
        files.push((RUNS.first.to_string(), id, previous.blob_size(id)?));
    }
    for (i, (name, id)) in previous.list_blobs(RUNS.folder)?.into_iter().enumerate() {
        let expected = RUNS.path(i as u32 + 1);
        let path = format!("{}/{name}", RUNS.folder);
        if path != expected {
            anyhow::bail!(
                "HEAD:{path}: the witness run log's files must be named {expected} and on, one after another (docs/witness.md#parts); restore the exhibit branch as exhibit built it"
            );
        }
        files.push((path, id, previous.blob_size(id)?));
    }
    Ok(files)
}

/// A withheld seq's moments: the line's timestamp, and the tail's clocks of its records (by
/// entry_id or seq), each with the seqs it belongs to.
pub(super) fn private_moments(
    ctx: &LayerContext<'_>,
    index: &StoreIndex,
    cut: &dyn Fn(&Digest, &Record) -> bool,
) -> PrivateMoments {
    let lines = ctx
        .verified
        .lines
        .iter()
        .filter(|l| l.withheld.is_some())
        .filter_map(|l| l.timestamp().map(|t| (t, l.seq)));
    let records = index
        .ids
        .iter()
        .zip(index.records.iter())
        .filter(|(id, r)| cut(id, r))
        .flat_map(|(_, r)| record_clocks(r).map(move |t| (t, r.seq())));
    PrivateMoments::of(lines.chain(records).collect())
}

/// The moments a withheld seq's line or records print, each with the seqs it belongs to: one
/// sorted list of `(moment, seq)` pairs, 16 bytes each, where a map of sets took about ten
/// times that (docs/scale.md#counted-not-listed).
#[derive(Debug, Default)]
pub(super) struct PrivateMoments(pub(super) Vec<(i64, i64)>);

impl PrivateMoments {
    /// Each `(moment, seq)` once, in order, without spare room.
    pub(super) fn of(mut pairs: Vec<(i64, i64)>) -> PrivateMoments {
        pairs.sort_unstable();
        pairs.dedup();
        pairs.shrink_to_fit();
        PrivateMoments(pairs)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn contains(&self, t: i64) -> bool {
        self.seqs_of(t).next().is_some()
    }

    /// Each moment once, in order.
    pub(super) fn moments(&self) -> impl Iterator<Item = i64> + '_ {
        self.0.chunk_by(|a, b| a.0 == b.0).map(|run| run[0].0)
    }

    /// The seqs of the moment `t`, in order.
    pub(super) fn seqs_of(&self, t: i64) -> impl Iterator<Item = i64> + '_ {
        let from = self.0.partition_point(|&(m, _)| m < t);
        self.0[from..]
            .iter()
            .take_while(move |&&(m, _)| m == t)
            .map(|&(_, seq)| seq)
    }
}

/// The moments a published line or its records print: its timestamp, the tail's clocks; in
/// the ledger's and the index's order, a moment as often as it is printed.
pub(super) fn public_moments<'a>(
    ctx: &'a LayerContext<'_>,
    index: &'a StoreIndex,
    cut: &'a dyn Fn(&Digest, &Record) -> bool,
) -> impl Iterator<Item = i64> + 'a {
    let lines = ctx
        .verified
        .lines
        .iter()
        .filter(|l| l.published())
        .filter_map(|l| l.timestamp());
    let records = index
        .ids
        .iter()
        .zip(index.records.iter())
        .filter(move |(id, r)| !cut(id, r))
        .flat_map(|(_, r)| record_clocks(r));
    lines.chain(records)
}

pub(super) fn record_clocks(r: &Record) -> impl Iterator<Item = i64> {
    [
        Some(r.line_timestamp()),
        Some(r.seen_at()),
        Some(r.stamped_at()),
        r.upgraded_at(),
    ]
    .into_iter()
    .flatten()
}

/// Beyond docs/protocol.md#witness: REPORT.md is the tail's words, copied as written; it must not print a withheld
/// seq's clocks (the line's timestamp, or the tail's seen_at, stamped_at, upgraded_at for it),
/// in full, as a time of day, or as a minute (`HH:MM`, in UTC or the anchor zone), unless the
/// same moment (time, minute) is also a clock of a published line's record (then it names
/// nothing the published index does not). See docs/witness.md.
pub(super) fn check_report_clocks(
    store: &Path,
    report: &str,
    ctx: &LayerContext<'_>,
    private: &PrivateMoments,
    public: Option<&side_channels::PublicClocks>,
    refusals: &mut Vec<Refusal>,
) {
    let Some(public) = public else {
        // Made whenever a withheld moment exists: none here, nothing to check.
        return;
    };
    let seqs_of = |t: &i64| -> String {
        private
            .seqs_of(*t)
            .map(|seq| seq.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Every clock the report prints, in any of the usual spellings (src/publication/layers/report_clocks.rs).
    let printed = crate::publication::layers::report_clocks::PrintedClocks::of(report);
    let mut named: BTreeSet<i64> = BTreeSet::new();
    for t in private.moments() {
        let what = if report.contains(&timestamp_of(t)) && !public.prints(t) {
            "a withheld seq's moment in full"
        } else if printed.second_of(t) && !public.prints_time_of_day(t) {
            "a withheld seq's time of day"
        } else {
            continue;
        };
        named.insert(t);
        refusals.push(Refusal::new(
"witness_report_withheld_clock",
            shown(store, "REPORT.md"),
            format!("withheld seq {}", seqs_of(&t)),
            format!(
                "the tail's report prints {what} — a clock of a withheld seq finer than the day, which the publisher keeps off the page (docs/protocol.md#witness)"
            ),
            "fix the tail's report so it prints no withheld seq's clock finer than the day",
        ));
    }
    let private_set: BTreeSet<i64> = private.moments().collect();
    let mut daycut = DayCut::new(&ctx.verified.anchor_tz);
    for (minute, moments) in side_channels::private_minutes(&private_set, public, &mut daycut) {
        if moments.iter().all(|t| named.contains(t)) || !printed.minute_of(minute) {
            continue;
        }
        named.extend(moments.iter().copied());
        let seqs: BTreeSet<String> = moments.iter().map(seqs_of).collect();
        refusals.push(Refusal::new(
"witness_report_withheld_minute",
            shown(store, "REPORT.md"),
            format!("withheld seq {}", seqs.into_iter().collect::<Vec<_>>().join(", ")),
            "the tail's report prints the minute of a withheld seq's clock (in UTC or the anchor zone; as HH:MM or H:MM, with seconds or a 12-hour AM/PM, 07h13, or 07.13 beside a time word) that no published line shares — finer than the day, which the publisher keeps off the page (docs/witness.md#privacy)",
            "fix the tail's report so it prints no withheld seq's clock finer than the day",
        ));
    }
}
