//! The review in words: the decisions first and never cut, then the summary and the files, as text
//! on a terminal or as Markdown that fits one GitHub comment with the rest folded
//! (docs/operator.md#dry-run).

use super::*;

/// The decisions a person may reverse, each with its flag: shown first and never cut, in every
/// form (docs/operator.md#dry-run).
pub(super) fn decision_lines(s: &Summary) -> Vec<String> {
    let mut l = Vec::new();
    for w in &s.withheld {
        l.push(format!(
            "line withheld: seq {} ({}): {} — to publish it: {}",
            w.seq, w.kind, w.reason, w.accept
        ));
    }
    for t in &s.texts_withheld {
        let seq = t.seq.map_or(String::new(), |q| format!(" (seq {q})"));
        l.push(format!(
            "text withheld: {}{seq}: {} — to release it: {}",
            t.sent_sha256,
            t.reasons.join(", "),
            t.accept
        ));
    }
    for c in &s.settings {
        let shown = |v: &J| match v {
            J::Null => "(not registered)".to_string(),
            J::String(x) => x.clone(),
            v => v.to_string(),
        };
        l.push(format!(
            "setting changed: {}: {} → {} (what is published changes; set it in exhibit.toml)",
            c.setting,
            shown(&c.old),
            shown(&c.new)
        ));
    }
    l
}

/// The summary's lines, shared by the text and Markdown forms (Markdown adds list markers).
pub(super) fn summary_lines(s: &Summary) -> Vec<(usize, String)> {
    let mut l: Vec<(usize, String)> = Vec::new();
    if s.first_publication {
        l.push((
            0,
            "FIRST PUBLICATION: DIR holds none yet; every line below is published anew".into(),
        ));
    }
    match s.new_seqs {
        Some(r) => l.push((
            0,
            format!(
                "new seqs {}–{}: {} line(s) published, {} withheld",
                r.first,
                r.last,
                s.published,
                s.withheld.len()
            ),
        )),
        None => l.push((0, "no new lines".into())),
    }
    for w in &s.withheld {
        l.push((1, format!("withheld seq {} ({})", w.seq, w.kind)));
    }
    if s.head.old != s.head.new {
        l.push((
            0,
            format!("head {} → {}", short(&s.head.old), short(&s.head.new)),
        ));
    }
    if !s.texts_released.is_empty() {
        l.push((0, format!("texts released: {}", s.texts_released.len())));
        for t in &s.texts_released {
            let seq = t.seq.map_or(String::new(), |q| format!(" (seq {q})"));
            let bytes = t.bytes.map_or(String::new(), |b| format!(", {b} bytes"));
            l.push((1, format!("{}{seq}{bytes}", t.sent_sha256)));
        }
    }
    if !s.anchors_added.is_empty() {
        l.push((
            0,
            format!("posted heads added: {}", s.anchors_added.join(", ")),
        ));
    }
    for (what, p) in [
        ("anchor proofs", &s.anchor_proofs),
        ("witness proofs", &s.witness_proofs),
    ] {
        if p.added + p.replaced > 0 {
            l.push((
                0,
                format!("{what}: {} added, {} replaced", p.added, p.replaced),
            ));
        }
    }
    l.push((
        0,
        if s.snapshot_appended {
            "a snapshot line is appended to ledger/SNAPSHOTS.jsonl".into()
        } else {
            "no snapshot line appended".into()
        },
    ));
    if !s.counts.is_empty() || !s.seq_lists.is_empty() {
        l.push((0, "counts (STATS.json), old → new:".into()));
        for c in &s.counts {
            l.push((
                1,
                format!("{}: {} → {}", c.key, count_text(&c.old), count_text(&c.new)),
            ));
        }
        for c in &s.seq_lists {
            let mut parts = Vec::new();
            if !c.added.is_empty() {
                parts.push(format!("+ {}", seq_list_text(&c.added)));
            }
            if !c.removed.is_empty() {
                parts.push(format!("− {}", seq_list_text(&c.removed)));
            }
            l.push((1, format!("{}: {}", c.key, parts.join("; "))));
        }
    }
    if s.denominators_only > 0 {
        l.push((
            0,
            format!(
                "{} other count(s) changed only their denominator (STATS.json; --json lists none of them)",
                s.denominators_only
            ),
        ));
    }
    l
}

/// Files, grouped: a folder with many files of one status is counted, not listed.
pub(super) fn file_lines(r: &Review) -> Vec<String> {
    let mut out = Vec::new();
    for (status, list) in [
        (ChangeKind::Added, &r.files.added),
        (ChangeKind::Changed, &r.files.changed),
        (ChangeKind::Removed, &r.files.removed),
    ] {
        let mut by_folder: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
        for p in list {
            by_folder.entry(folder_of(p)).or_default().push(p);
        }
        // A folder whose files were counted and not kept is listed by its count alone.
        let counted = r.files.groups.iter().filter(|((k, _), _)| *k == status);
        for ((_, folder), _) in counted {
            by_folder.entry(folder.as_str()).or_default();
        }
        for (folder, paths) in by_folder {
            let n = r
                .files
                .groups
                .get(&(status, folder.to_string()))
                .copied()
                .unwrap_or(paths.len());
            if n > FILES_PER_FOLDER || tree_part(&format!("{folder}/x")).is_some() {
                out.push(format!(
                    "{status:<8}{}/{}/ ({} files)",
                    r.dir,
                    escape(folder),
                    n
                ));
            } else {
                for p in paths {
                    out.push(format!("{status:<8}{}/{}", r.dir, escape(p)));
                }
            }
        }
    }
    out
}

pub(super) fn body_lines(d: &FileDiff) -> Vec<String> {
    let mut out = Vec::new();
    match &d.body {
        DiffBody::Lines { hunks, not_shown } => {
            for h in hunks {
                // Unified diff's header: start and length on each side.
                let (old_len, new_len) = h.lengths();
                out.push(format!(
                    "@@ -{},{old_len} +{},{new_len} @@",
                    h.old_start, h.new_start
                ));
                out.extend(h.lines.iter().cloned());
            }
            if *not_shown > 0 {
                out.push(format!("… {not_shown} more changed line(s) not shown"));
            }
        }
        DiffBody::Keys { changes, not_shown } => {
            for c in changes {
                out.push(match (c.change, &c.old, &c.new) {
                    (ChangeKind::Added, _, Some(n)) => format!("+ {}: {n}", c.key),
                    (ChangeKind::Removed, Some(o), _) => format!("- {}: {o}", c.key),
                    (_, o, n) => format!(
                        "~ {}: {} → {}",
                        c.key,
                        o.as_deref().unwrap_or(""),
                        n.as_deref().unwrap_or("")
                    ),
                });
            }
            if *not_shown > 0 {
                out.push(format!("… {not_shown} more key change(s) not shown"));
            }
        }
        DiffBody::InSummary => out.push("(its counts are in the summary above)".into()),
        DiffBody::Segment {
            old_bytes,
            new_bytes,
            old_lines,
            new_lines,
        } => out.push(if *old_bytes == 0 {
            format!(
                "(a segment of the published ledger: {new_lines} line(s), {new_bytes} bytes; not printed, its seqs are in the summary above)"
            )
        } else {
            format!(
                "(a segment of the published ledger: {old_lines} → {new_lines} line(s), {old_bytes} → {new_bytes} bytes; not printed, its seqs are in the summary above)"
            )
        }),
        DiffBody::Bytes { old, new, why } => out.push(format!("({old} → {new} bytes; {why})")),
    }
    out
}

/// Diffs worth showing: per-file proof and text bodies in a crowded folder are counted in the
/// file list already.
pub(super) fn shown_diffs(r: &Review) -> Vec<&FileDiff> {
    let mut per_folder: BTreeMap<(&str, ChangeKind), usize> = BTreeMap::new();
    for d in &r.diffs {
        let folder = d.path.rsplit_once('/').map_or("", |(f, _)| f);
        *per_folder.entry((folder, d.status)).or_default() += 1;
    }
    r.diffs
        .iter()
        .filter(|d| {
            let folder = d.path.rsplit_once('/').map_or("", |(f, _)| f);
            per_folder[&(folder, d.status)] <= FILES_PER_FOLDER && tree_part(&d.path).is_none()
        })
        .collect()
}

impl Review {
    pub fn file_counts(&self) -> (usize, usize, usize) {
        self.files.counts()
    }

    /// For a terminal.
    pub fn to_text(&self) -> String {
        let (a, c, r) = self.file_counts();
        let mut out = format!(
            "dry run: {a} added, {c} changed, {r} removed in {}/ (nothing written)\n\n",
            self.dir
        );
        let decisions = decision_lines(&self.summary);
        if !decisions.is_empty() {
            out.push_str("decisions a person may reverse (each with its flag):\n");
            for line in decisions {
                let _ = writeln!(out, "  {line}");
            }
            out.push('\n');
        }
        out.push_str("what this publication adds:\n");
        for (depth, line) in summary_lines(&self.summary) {
            let _ = writeln!(out, "{}{line}", "  ".repeat(depth + 1));
        }
        out.push_str("\nfiles:\n");
        for line in file_lines(self) {
            let _ = writeln!(out, "  {line}");
        }
        for d in shown_diffs(self) {
            let _ = writeln!(out, "\n{} {}/{}", d.status, self.dir, escape(&d.path));
            for line in body_lines(d) {
                let _ = writeln!(out, "  {line}");
            }
        }
        out
    }

    /// For a pull request: headings, lists, and each diff in a fenced block. The decisions and
    /// the summary come first and are never cut; the files and changes are folded in a
    /// `<details>` and cut to keep the whole within one GitHub comment
    /// (docs/operator.md#dry-run).
    pub fn to_markdown(&self) -> String {
        let (a, c, r) = self.file_counts();
        let mut out = format!(
            "### exhibit: what building `{}/` changes\n\n{a} added, {c} changed, {r} removed.\n\n",
            self.dir
        );
        let decisions = decision_lines(&self.summary);
        if !decisions.is_empty() {
            out.push_str("#### Decisions a person may reverse\n\n");
            for line in decisions {
                let _ = writeln!(out, "- {}", md_inline(&line));
            }
            out.push('\n');
        }
        for (depth, line) in summary_lines(&self.summary) {
            let _ = writeln!(out, "{}- {}", "  ".repeat(depth), md_inline(&line));
        }
        let mut folded = String::from("\n#### Files\n\n");
        for line in file_lines(self) {
            let _ = writeln!(folded, "- {}", md_inline(&line));
        }
        let diffs = shown_diffs(self);
        if !diffs.is_empty() {
            folded.push_str("\n#### Changes\n");
        }
        for d in diffs {
            let body = body_lines(d).join("\n");
            let fence = "`".repeat(3.max(longest_backtick_run(&body) + 1));
            let lang = if matches!(d.body, DiffBody::Lines { .. }) {
                "diff"
            } else {
                ""
            };
            let _ = write!(
                folded,
                "\n{} `{}/{}`\n\n{fence}{lang}\n{body}\n{fence}\n",
                d.status,
                self.dir,
                escape(&d.path).replace('`', "'")
            );
        }
        let open = "\n<details><summary>Files and changes</summary>\n";
        let close = "\n</details>\n";
        let cut_note =
            "\n… cut here to fit one comment; `exhibit build --dry-run` prints the rest.\n";
        let room = MARKDOWN_CHARS
            .saturating_sub(out.chars().count() + open.len() + close.len() + cut_note.len());
        out.push_str(open);
        if folded.chars().count() <= room {
            out.push_str(&folded);
        } else {
            // Whole lines, and a fence cut open is closed: an open fence would swallow the rest.
            let mut used = 0;
            let mut fence: Option<String> = None;
            for line in folded.split_inclusive('\n') {
                let n = line.chars().count();
                if used + n + fence.as_ref().map_or(0, |f| f.len() + 1) > room {
                    break;
                }
                let ticks: String = line.chars().take_while(|&c| c == '`').collect();
                if ticks.len() >= 3 {
                    fence = match fence {
                        Some(f) if line.trim_end() == f => None,
                        None => Some(ticks),
                        open => open,
                    };
                }
                out.push_str(line);
                used += n;
            }
            if let Some(f) = fence {
                let _ = writeln!(out, "{f}");
            }
            out.push_str(cut_note);
        }
        out.push_str(close);
        out
    }
}

/// One GitHub comment holds at most this many characters.
pub const MARKDOWN_CHARS: usize = 65_536;

/// Text in a Markdown list item: characters Markdown would act on are escaped.
pub(super) fn md_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    // `_` is left alone: within a word (every key here) it is no emphasis.
    for c in s.chars() {
        if matches!(c, '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '#' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(super) fn longest_backtick_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}
