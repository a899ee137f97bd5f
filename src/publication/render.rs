//! The render stage: one self-contained `index.html` (issue 6). The shell — markup, CSS and
//! JavaScript from `assets/` — is rendered with askama as written (docs/page.md#the-shell-as-written);
//! the published bytes are then embedded as base64 inside `<script type="application/octet-stream">`
//! blocks, after rendering, so no template touches them and no ledger byte can end a script or run
//! as one.
//! A Content-Security-Policy `<meta>` allows the page's own inline script and style by their
//! sha256, computed here after rendering, and nothing from any host (docs/page.md "CSP").

use std::borrow::Cow;

use askama::Template;
use serde_json::Value as J;

use super::BuildPlan;
use super::assemble::Assembled;
use super::layers::Layers;
use super::verify::VerifiedLedger;
use crate::published::encode::base64_into;
use crate::published::output_tree::{Content, Tree};
use exhibit_protocol::Digest;

/// JavaScript and CSS compiled into the binary, so a build needs no file beside it.
const VERIFY_JS: &str = include_str!("../../assets/verify.js");
const PAGE_JS: &str = include_str!("../../assets/page.js");
const STYLE_CSS: &str = include_str!("../../assets/style.css");

/// What the page and the self-check need of the verified lines, taken before the per-line
/// records are let go (docs/scale.md#memory).
pub struct LedgerFacts {
    /// The gate's head: the published ledger must re-derive to it.
    head: Digest,
    /// The anchor zone's rules over the published lines' span, from the timestamps the verify
    /// stage read (the published ledger is header + the published lines).
    tz_rules: Option<exhibit_protocol::days::TzRules>,
}

impl LedgerFacts {
    pub fn of(verified: &VerifiedLedger) -> LedgerFacts {
        LedgerFacts {
            head: verified.head,
            tz_rules: exhibit_protocol::verify::tz_rules_for_timestamps(
                &verified.anchor_tz,
                verified
                    .lines
                    .iter()
                    .filter(|r| r.published())
                    .filter_map(|r| r.timestamp()),
            ),
        }
    }
}

/// Stage 7, render: the published ledger is re-derived by the same verifier a stranger runs,
/// then the page is rendered into the tree.
pub fn run(
    assembled: &mut Assembled,
    facts: &LedgerFacts,
    layers: &Layers,
    plan: &BuildPlan,
) -> anyhow::Result<()> {
    self_check(&assembled.tree, facts.head)?;
    crate::terminal::progress::stage_done("render: the self-check");
    let page = page(&PageInput {
        tree: &assembled.tree,
        built_at: &assembled.snapshots.last_built_at,
        witness: layers.witness.as_ref().map(|w| &w.page_data),
        public_texts: layers.public_texts.as_ref().map(|t| &t.page_data),
        witness_on: plan.witness.is_some(),
        window_since: plan.witness_window_since.as_deref(),
        page_bytes: plan.config.page_bytes,
        tz_rules: facts.tz_rules.clone(),
    })?;
    assembled.tree.put("index.html", page);
    Ok(())
}

/// The published ledger with its withheld list must re-derive to the gate's head: checked here,
/// before anything is written, by the same verifier a stranger runs.
fn self_check(tree: &Tree, head: Digest) -> anyhow::Result<()> {
    // The list in all its files (docs/scale.md#withheld-files).
    let withheld =
        crate::published::withheld_files::read_tree(tree).map_err(|e| anyhow::anyhow!("{e}"))?;
    // Streamed across the ledger's files, one file held at a time, each held to the digest
    // STATS.json lists (docs/scale.md#the-gates-ledger-is-not-held).
    let report = exhibit_protocol::verify::verify_reader(
        crate::published::segments::PublishedStream::new(tree),
        &withheld,
        exhibit_protocol::verify::Pass::Lean,
    )
    .map(|v| v.report)
    .map_err(|e| anyhow::anyhow!("self-check: the published ledger could not be read: {e}"))?;
    if !report.ok || report.head != Some(head) {
        anyhow::bail!(
            "self-check failed: the published ledger with withheld.json does not re-derive to the gate's head {} ({} problem(s), head {:?}); nothing was written",
            head,
            report.problems.len(),
            report.head
        );
    }
    Ok(())
}

/// The most bytes of the last ledger file a light page embeds (`ledger-latest`): its base64 is
/// a third larger, and the page stays under 32 MiB (crate::publication::config::PAGE_BYTES) with the other
/// blocks beside it. A larger last file is fetched like the others (docs/page.md "The light
/// page").
pub const LATEST_MAX: usize = 12 << 20;

/// The most a light page weighs while it carries its records: past it, the page reads them
/// from the site and carries only what is bounded (docs/page.md#fetched-records). A stranger's
/// first fetch stays small at any size.
pub const LIGHT_PAGE_BYTES: usize = 2 << 20;

/// How many posted days a light page that reads its records from the site carries, the newest
/// by date: enough for the log-size path's newest posted heads; its full check reads every post
/// and proof from the site (docs/page.md#fetched-records).
pub const POSTS_CARRIED: usize = 64;

/// The dates whose posts a page carries: all, or on a page that reads its records from the
/// site the newest `POSTS_CARRIED` by date. `dates` in name order (a date's order). The one rule
/// for the build and for `exhibit verify SITE` (src/site_check/page.rs).
pub fn carried_post_dates<'a, 'd>(dates: &'a [&'d str], fetched: bool) -> &'a [&'d str] {
    if fetched {
        &dates[dates.len().saturating_sub(POSTS_CARRIED)..]
    } else {
        dates
    }
}

/// The light page's list of the ledger's files (`layout-json`): STATS.json's `ledger.files`, the
/// same objects a stranger reads there (docs/scale.md); for a ledger in one file (a light page
/// because the page with everything embedded would weigh too much), that file's path, size and
/// sha256.
fn layout_files(tree: &Tree, stats: Option<&StatsLists>) -> anyhow::Result<J> {
    if !crate::published::segments::is_segmented(tree) {
        let mut files = Vec::new();
        for path in crate::published::segments::published_paths(tree) {
            let content = tree
                .entry(path)
                .ok_or_else(|| anyhow::anyhow!("{path}: listed, not in the tree"))?;
            files.push(serde_json::json!({
                "bytes": content.len(),
                "path": path,
                "sha256": content.sha256()?.to_string(),
            }));
        }
        return Ok(J::Array(files));
    }
    stats
        .and_then(|s| s.ledger.as_ref()?.files.clone())
        .filter(|f| f.is_array())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "ledger/STATS.json lists no ledger.files for a ledger in ledger/segments/: the page cannot list the files it must fetch; nothing was written"
            )
        })
}

/// The light page's list of the withheld list's files: STATS.json's `withheld_files`, when the
/// list is in more than one file (docs/scale.md#withheld-files).
fn withheld_files(tree: &Tree, stats: Option<&StatsLists>) -> anyhow::Result<Option<J>> {
    if !crate::published::withheld_files::is_split(tree) {
        return Ok(None);
    }
    stats
        .and_then(|s| s.withheld_files.clone())
        .filter(|f| f.is_array())
        .map(Some)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "ledger/STATS.json lists no withheld_files for a withheld list in ledger/withheld/: the page cannot list the files it must fetch; nothing was written"
            )
        })
}

/// What the light page takes from STATS.json: its lists of files, and nothing else of it.
/// Read as a whole value, STATS.json's lists of seqs (the lines severed, awaiting a head) took
/// tens of megabytes at a million lines, on top of the page being made: the build's peak
/// (docs/scale.md#nothing-made-to-be-dropped).
#[derive(serde::Deserialize)]
struct StatsLists {
    #[serde(default)]
    ledger: Option<LedgerLists>,
    #[serde(default)]
    withheld_files: Option<J>,
}

#[derive(serde::Deserialize)]
struct LedgerLists {
    #[serde(default)]
    files: Option<J>,
}

pub struct PageInput<'a> {
    pub tree: &'a Tree,
    pub built_at: &'a str,
    pub witness: Option<&'a J>,
    pub public_texts: Option<&'a J>,
    pub witness_on: bool,
    pub window_since: Option<&'a str>,
    /// The most bytes the page may weigh (`[publish] page_bytes`, 32 MiB unless lowered).
    pub page_bytes: u64,
    /// The anchor zone's rules over the published ledger's span (docs/verifier.md "Days and the
    /// tz database").
    pub tz_rules: Option<exhibit_protocol::days::TzRules>,
}

#[derive(Template)]
#[template(path = "index.html")]
struct Page<'a> {
    built_at: &'a str,
    witness_on: bool,
    public_texts_on: bool,
    window_since: Option<&'a str>,
    report_html: String,
    prereg_html: String,
    style_css: &'a str,
    verify_js: &'a str,
    page_js: &'a str,
    /// `(id, token)`: each token is replaced by the base64 data after rendering.
    data_blocks: Vec<(&'static str, String)>,
    /// The Content-Security-Policy's place, filled after rendering ([`with_csp`]).
    csp_token: String,
    /// Which tz database the page's days come from (docs/verifier.md "Days and the tz database").
    tz_note: String,
    /// The light page: the ledger's files are fetched, not embedded (docs/page.md).
    light: bool,
}

/// A JSON value's bytes (a `Value` with string keys: serialising cannot fail).
fn json_bytes(v: &J) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"null".to_vec())
}

/// A data block of the page: its element id and its bytes.
type DataBlock<'t> = (&'static str, Cow<'t, [u8]>);

/// The posts the page carries (`anchor-posts-json`: date -> text) and their dates: every post,
/// or the newest on a page that reads its records from the site (`carried_post_dates`).
fn carried_posts(
    tree: &Tree,
    fetched: bool,
) -> anyhow::Result<(serde_json::Map<String, J>, Vec<&str>)> {
    let mut all_posts = Vec::new();
    for (path, bytes) in tree.held_under("ledger/anchors/") {
        if let Some(name) = path.strip_prefix("ledger/anchors/")
            && let Some(date) = name.strip_suffix(".txt")
        {
            all_posts.push((date, bytes));
        }
    }
    let dates: Vec<&str> = all_posts.iter().map(|(d, _)| *d).collect();
    let carried = carried_post_dates(&dates, fetched).to_vec();
    let mut posts = serde_json::Map::new();
    for (date, bytes) in &all_posts[all_posts.len() - carried.len()..] {
        posts.insert(
            date.to_string(),
            J::String(String::from_utf8_lossy(&bytes.bytes()?).into_owned()),
        );
    }
    Ok((posts, carried))
}

/// The data blocks the page reads, by element id (stable hooks, issue 6).
fn data_blocks<'t>(
    input: &PageInput<'t>,
    tz_rules: Option<&exhibit_protocol::days::TzRules>,
    latest_dropped: bool,
    light: Light,
) -> anyhow::Result<Vec<DataBlock<'t>>> {
    let (light, fetched) = (light != Light::No, light == Light::Fetching);
    // Files are borrowed from the tree, not copied: the ledger can be hundreds of megabytes.
    let tree: &'t Tree = input.tree;
    let file = |p: &str| -> anyhow::Result<Cow<'t, [u8]>> { Ok(tree.read(p)?.unwrap_or_default()) };
    let (posts, carried_dates) = carried_posts(tree, fetched)?;
    let carried_dates = &carried_dates[..];
    let mut blocks = if light {
        // STATS.json read once for both lists (at a million lines it weighs megabytes).
        let stats: Option<StatsLists> = tree
            .get("ledger/STATS.json")
            .and_then(|b| serde_json::from_slice(b).ok());
        let layout_files = layout_files(input.tree, stats.as_ref())?;
        // The summary: the list of files, the header line and the last file; the page fetches
        // the rest (docs/page.md "The light page").
        let paths = crate::published::segments::published_paths(tree);
        let header = match paths.first().and_then(|p| tree.held(p)) {
            Some((_, content)) => header_line(content)?,
            None => Vec::new(),
        };
        let latest = match paths.last() {
            Some(p)
                if !latest_dropped
                    && tree
                        .held(p)
                        .is_some_and(|(_, c)| c.len() <= LATEST_MAX as u64) =>
            {
                file(p)?
            }
            _ => Cow::Borrowed(&[][..]),
        };
        let mut layout = serde_json::json!({"mode": "light", "files": layout_files});
        if let Some(w) = withheld_files(tree, stats.as_ref())? {
            layout["withheld_files"] = w;
        }
        if fetched {
            // The page reads these records from the site (docs/page.md#fetched-records).
            layout["fetch"] = J::Bool(true);
        }
        vec![
            ("layout-json", Cow::Owned(json_bytes(&layout))),
            ("ledger-header", Cow::Owned(header)),
            ("ledger-latest", latest),
        ]
    } else {
        vec![
            (
                "layout-json",
                Cow::Borrowed(br#"{"mode":"embedded"}"#.as_slice()),
            ),
            ("ledger-bytes", file("ledger/ledger.jsonl")?),
        ]
    };
    if !fetched {
        blocks.extend([
            // A list in several files is not embedded: the light page fetches its files
            // (`layout-json`'s `withheld_files`).
            (
                "withheld-json",
                if crate::published::withheld_files::is_split(tree) {
                    Cow::Borrowed(&[][..])
                } else {
                    file(crate::published::withheld_files::WITHHELD_FILE)?
                },
            ),
            ("stats-json", file("ledger/STATS.json")?),
            ("anchors-json", file("ledger/anchors/index.json")?),
            ("snapshots-jsonl", file("ledger/SNAPSHOTS.jsonl")?),
        ]);
    }
    blocks.extend([
        // The tree's head, which every page shows and a one-file page holds to the chain it
        // re-derives (docs/tree.md#checkpoint).
        ("tree-checkpoint", file("ledger/tree/checkpoint")?),
        (
            "anchor-posts-json",
            Cow::Owned(json_bytes(&J::Object(posts))),
        ),
        // The anchor zone's rules from this binary's tz database, over the ledger's span: the
        // page derives days from them, not from the browser's own tz data.
        (
            "tz-rules-json",
            Cow::Owned(json_bytes(&match tz_rules {
                Some(rules) => serde_json::to_value(rules).unwrap_or(J::Null),
                // Rules for no zone: the page then knows no zone, as `exhibit verify` does
                // not (bad_header), rather than asking the browser.
                None => {
                    serde_json::json!({"tzdb": exhibit_protocol::days::tzdb_version(), "zone": null,
                    "from": 0, "until": 0, "offsets": [[0, 0]]})
                }
            })),
        ),
    ]);
    if let Some(w) = input.witness {
        let mut w = w.clone();
        if light {
            // The per-line witness index grows with the ledger: a light page leaves it out and
            // says so; it is in ledger/witness/index.json beside the page.
            if let Some(index) = w.get_mut("index").and_then(J::as_object_mut) {
                index.remove("entries");
                // So are the publisher's per-seq lists (withheld seqs, orphans...: 110 KB at a
                // million lines); the page reads none of them (docs/page.md#fetched-records).
                if let Some(p) = index.get_mut("publisher").and_then(J::as_object_mut) {
                    p.retain(|_, v| !v.is_array());
                }
            }
        }
        blocks.push(("witness-json", Cow::Owned(json_bytes(&w))));
    }
    if let Some(t) = input.public_texts {
        let bytes = if light {
            json_bytes(&light_texts(t))
        } else {
            json_bytes(t)
        };
        blocks.push(("public-texts-json", Cow::Owned(bytes)));
    }
    blocks.push((
        "proof-headers",
        Cow::Owned(proof_headers(
            input.tree,
            !light,
            fetched.then_some(carried_dates),
        )),
    ));
    Ok(blocks)
}

/// The first line of a ledger file, with its LF (the whole file when it has none): read up to
/// that LF, not the whole file — the first file is 16 MiB at a million lines, and reading it
/// whole for its header was the page's peak (docs/scale.md#the-self-check-streamed).
fn header_line(content: &Content) -> anyhow::Result<Vec<u8>> {
    use std::io::BufRead;
    let mut line = Vec::new();
    content.reader()?.read_until(b'\n', &mut line)?;
    Ok(line)
}

/// What a light page carries of the public-texts layer: the index without its per-line lists
/// (each off-list class by its count) and without the texts, which grow with the ledger
/// (170 MB as base64 at a million lines); the page fetches a text by its digest when a paste
/// finds its line (docs/page.md "Released texts on a light page").
fn light_texts(t: &J) -> J {
    serde_json::json!({ "index": light_index(t.get("index").cloned().unwrap_or(J::Null)) })
}

/// The summary of `public_texts/index.json` a light page carries (see `light_texts`); also what
/// `exhibit verify SITE` holds a light page's copy to.
pub fn light_index(mut index: J) -> J {
    if let Some(ix) = index.as_object_mut() {
        for key in ["published", "withheld", "unreconstructable"] {
            ix.remove(key);
        }
        if let Some(off) = ix.get_mut("off_allow_list").and_then(J::as_object_mut) {
            for class in off.values_mut() {
                if let Some(c) = class.as_object_mut() {
                    c.remove("seqs");
                }
            }
        }
    }
    index
}

/// What the page needs to check every proof's header itself: the first 65 bytes (magic,
/// version, op, committed digest) of each `.ots` file the site carries, packed losslessly
/// (docs/page.md "Proof headers"; the layout is read by `decodeProofHeaders` in assets/page.js).
/// Prefixes (a file's first 33 bytes) are stored once; a per-line witness proof whose committed
/// digest is the digest its own name spells stores a flag instead of those 32 bytes, so the
/// block costs 39 bytes per line, not 97. Without `with_witness` (a light page) the per-line
/// witness proofs are left out.
/// With `anchor_dates`, the anchors' proofs of those dates only (a page that reads its records
/// from the site carries the newest posts', docs/page.md#fetched-records).
pub fn proof_headers(tree: &Tree, with_witness: bool, anchor_dates: Option<&[&str]>) -> Vec<u8> {
    const PREFIX: usize = 33;
    const HEADER: usize = 65;
    let mut prefixes: Vec<Vec<u8>> = Vec::new();
    let mut records = Vec::new();
    let mut count: u32 = 0;
    // Only the two folders that hold proofs; a light page passes over the listed per-line
    // proofs without making an entry for each (docs/scale.md#the-proofs-folder-as-a-list).
    let proofs_folder: Box<dyn Iterator<Item = (Cow<'_, str>, Cow<'_, Content>)>> = if with_witness
    {
        Box::new(tree.iter_under("ledger/witness/proofs/"))
    } else {
        Box::new(
            tree.held_under("ledger/witness/proofs/")
                .map(|(p, c)| (Cow::Borrowed(p), Cow::Borrowed(c))),
        )
    };
    for (path, content) in tree.iter_under("ledger/anchors/").chain(proofs_folder) {
        let path = &*path;
        let (kind, name) = if let Some(n) = path.strip_prefix("ledger/anchors/")
            && n.ends_with(".txt.ots")
            && !n.contains('/')
        {
            (0u8, n)
        } else if let Some(n) = path.strip_prefix("ledger/witness/proofs/")
            && n.ends_with(".ots")
            && !n.contains('/')
        {
            let stem = &n[..n.len() - 4];
            if stem.len() == 64 && stem.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
                (1, stem)
            } else {
                (2, n)
            }
        } else {
            continue;
        };
        if kind == 0
            && let Some(dates) = anchor_dates
            && !dates.contains(&&name[..name.len() - ".txt.ots".len()])
        {
            continue;
        }
        if kind == 1 && !with_witness {
            // A light page carries the anchors' proofs' headers only (docs/page.md).
            continue;
        }
        // A store's proof is a file on disk: its first bytes were kept when it was checked.
        let (head, len) = (content.head(HEADER), content.len());
        let prefix = &head[..head.len().min(PREFIX)];
        let index = match prefixes.iter().position(|p| p.as_slice() == prefix) {
            Some(i) => i,
            None => {
                prefixes.push(prefix.to_vec());
                prefixes.len() - 1
            }
        };
        let Ok(index) = u16::try_from(index) else {
            // More than 65,535 distinct headers: the rest are left out, and the page says how
            // many proofs it checked.
            continue;
        };
        records.push(kind);
        let name_bytes: Vec<u8> = if kind == 1 {
            (0..32)
                // `name` was checked to be 64 lowercase hex just above.
                .map(|i| u8::from_str_radix(&name[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect()
        } else {
            let b = name.as_bytes();
            let b = &b[..b.len().min(255)];
            let mut v = vec![b.len() as u8];
            v.extend_from_slice(b);
            v
        };
        records.extend_from_slice(&name_bytes);
        records.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
        records.extend_from_slice(&index.to_be_bytes());
        let tail = if head.len() > PREFIX {
            &head[PREFIX..]
        } else {
            &[][..]
        };
        if kind == 1 && tail == name_bytes.as_slice() {
            records.push(1);
        } else {
            records.push(0);
            records.extend_from_slice(tail);
        }
        count += 1;
    }
    let mut out = vec![1u8];
    out.extend_from_slice(&(prefixes.len() as u16).to_be_bytes());
    for p in &prefixes {
        out.push(p.len() as u8);
        out.extend_from_slice(p);
    }
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&records);
    out
}

/// How deep blocks and inline elements may nest in a rendered text (a blockquote in a list in
/// a blockquote is 3). Deeper input is shown as plain preformatted text: no input can make the
/// renderer or a browser recurse without bound (docs/build.md#safety).
pub const MAX_MARKDOWN_NESTING: usize = 32;

/// A link target the page may carry: `http(s)` or relative to the page — never another scheme
/// (`javascript:`, `data:`, `vbscript:`, `file:`...), never `//host` (another host, relative to
/// the scheme), never with a control character or a backslash a browser would reinterpret.
pub fn safe_link(url: &str) -> bool {
    if url.is_empty()
        || url.starts_with("//")
        || url
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return false;
    }
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return true;
    }
    // Relative: no scheme, i.e. no ':' before the first '/', '?' or '#'.
    let head = url.split(['/', '?', '#']).next().unwrap_or_default();
    !head.contains(':')
}

/// Markdown (REPORT.md, WITNESS_PREREG.md) as HTML of a safe subset (docs/build.md#safety): raw
/// HTML is escaped, never passed through; a link is kept only when [`safe_link`] allows it (else
/// its text is shown with the target as text); an image is never loaded — it is shown as text
/// naming its address; nesting deeper than [`MAX_MARKDOWN_NESTING`] shows the whole text as
/// preformatted text.
/// Markdown (REPORT.md, WITNESS_PREREG.md) as HTML of a safe subset (docs/build.md#safety): raw
/// HTML is escaped, never passed through; a link is kept only when [`safe_link`] allows it (else
/// its text is shown with the target as text); an image is never loaded — it is shown as text
/// naming its address; nesting deeper than [`MAX_MARKDOWN_NESTING`] shows the whole text as
/// preformatted text. Tables are rendered; headings are demoted two levels (an `#` becomes
/// `<h3>`), so a file's outline sits under the page section (an `<h2>`) that shows it.
pub fn markdown_html(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let parser = || Parser::new_ext(md, Options::ENABLE_TABLES);
    let mut depth = 0usize;
    for e in parser() {
        match e {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_MARKDOWN_NESTING {
            return format!(
                "<p>(this text nests deeper than {MAX_MARKDOWN_NESTING} levels; shown as written)</p><pre>{}</pre>",
                escape_html(md)
            );
        }
    }
    let mut safe = SafeEvents::default();
    let mut events = Vec::new();
    for e in parser() {
        safe.push(e, &mut events);
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out
}

/// What a reader of [`markdown_html`]'s page sees of `md`, for the guard (docs/build.md#safety):
/// the text of every event joined as the browser draws it — an escape, an emphasis or a code
/// span inside a word joins it again (`owner\@example\.com`, `555**010**9999`) — with a break
/// between blocks, then every link's and image's target on a line of its own (an `href` is
/// published bytes too). Raw markdown is guarded as well: the two readings differ exactly where
/// markdown syntax hides what it renders.
pub fn markdown_reader_text(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut text = String::new();
    let mut targets = Vec::new();
    for e in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match e {
            Event::Text(s)
            | Event::Code(s)
            | Event::Html(s)
            | Event::InlineHtml(s)
            | Event::InlineMath(s)
            | Event::DisplayMath(s)
            | Event::FootnoteReference(s) => text.push_str(&s),
            Event::SoftBreak => text.push(' '),
            Event::HardBreak | Event::Rule => text.push('\n'),
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                targets.push(dest_url.to_string());
            }
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableCell
                | TagEnd::TableRow
                | TagEnd::TableHead
                | TagEnd::BlockQuote(_),
            ) => text.push('\n'),
            _ => {}
        }
    }
    for target in targets {
        text.push_str("\n\n");
        text.push_str(&target);
    }
    text
}

/// The open links (unsafe ones hold their target) and images of a text being rendered.
#[derive(Default)]
struct SafeEvents {
    links: Vec<Option<String>>,
    images: Vec<String>,
}

impl SafeEvents {
    fn push<'a>(&mut self, e: pulldown_cmark::Event<'a>, out: &mut Vec<pulldown_cmark::Event<'a>>) {
        use pulldown_cmark::{Event, HeadingLevel, LinkType, Tag, TagEnd};
        fn demote(level: HeadingLevel) -> HeadingLevel {
            match level {
                HeadingLevel::H1 => HeadingLevel::H3,
                HeadingLevel::H2 => HeadingLevel::H4,
                HeadingLevel::H3 => HeadingLevel::H5,
                _ => HeadingLevel::H6,
            }
        }
        match e {
            Event::Html(s) | Event::InlineHtml(s) => out.push(Event::Text(s)),
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => out.push(Event::Start(Tag::Heading {
                level: demote(level),
                id,
                classes,
                attrs,
            })),
            Event::End(TagEnd::Heading(level)) => {
                out.push(Event::End(TagEnd::Heading(demote(level))));
            }
            // An autolinked address (`<owner@example.com>`) would become a `mailto:` link:
            // none is made (docs/build.md#safety); its text is shown, and the guard has read it.
            Event::Start(Tag::Link {
                link_type: LinkType::Email,
                ..
            }) => self.links.push(Some(String::new())),
            Event::Start(Tag::Link { dest_url, .. }) if !safe_link(&dest_url) => {
                self.links.push(Some(dest_url.to_string()));
            }
            Event::Start(t @ Tag::Link { .. }) => {
                self.links.push(None);
                out.push(Event::Start(t));
            }
            Event::End(TagEnd::Link) => match self.links.pop() {
                Some(Some(url)) if url.is_empty() => {}
                Some(Some(url)) => out.push(Event::Text(
                    format!(" ⟨{url}: not made a link — only http(s) and relative links are⟩")
                        .into(),
                )),
                _ => out.push(Event::End(TagEnd::Link)),
            },
            Event::Start(Tag::Image { dest_url, .. }) => {
                self.images.push(dest_url.to_string());
                out.push(Event::Text("[image, not loaded: ".into()));
            }
            Event::End(TagEnd::Image) => {
                let url = self.images.pop().unwrap_or_default();
                out.push(Event::Text(format!(" — {url}]").into()));
            }
            other => out.push(other),
        }
    }
}

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub fn page(input: &PageInput<'_>) -> anyhow::Result<Vec<u8>> {
    for (name, src) in [
        ("verify.js", VERIFY_JS),
        ("page.js", PAGE_JS),
        ("style.css", STYLE_CSS),
    ] {
        anyhow::ensure!(
            !src.to_ascii_lowercase().contains("</script")
                && !src.to_ascii_lowercase().contains("</style"),
            "assets/{name} holds a closing tag; it cannot be inlined"
        );
    }
    let tz_rules = input.tz_rules.clone();
    // A segmented ledger gets the light page; a ledger in one file the page with everything
    // embedded — unless that page would pass `page_bytes` (a witness index embedded beside
    // a near-threshold ledger weighs 1.6 KB a line: 42 MB at 26,000 lines), when it gets the
    // light page too. A light page that does not fit with the last file embedded fetches that
    // file like the others (docs/page.md "The light page").
    let max = usize::try_from(input.page_bytes).unwrap_or(usize::MAX);
    // A withheld list in several files is fetched like the ledger's (docs/scale.md#withheld-files).
    let segmented = crate::published::segments::is_segmented(input.tree)
        || crate::published::withheld_files::is_split(input.tree);
    // A page that would not fit is measured, not made (at a million lines the light page with
    // the last ledger file embedded weighs 37 MB, made and dropped on the build's peak:
    // docs/scale.md#nothing-made-to-be-dropped).
    let first = if segmented {
        Light::Carrying
    } else {
        Light::No
    };
    // A light page carries its records while it stays small: a stranger's first fetch is the
    // page (docs/page.md#fetched-records).
    let light_max = max.min(LIGHT_PAGE_BYTES);
    let first_max = if segmented { light_max } else { max };
    if let Some(page) = page_with(input, tz_rules.as_ref(), false, first, first_max)? {
        return Ok(page);
    }
    if !segmented
        && let Some(page) = page_with(input, tz_rules.as_ref(), false, Light::Carrying, light_max)?
    {
        return Ok(page);
    }
    if let Some(page) = page_with(input, tz_rules.as_ref(), true, Light::Carrying, light_max)? {
        return Ok(page);
    }
    // The records it carried (STATS.json, SNAPSHOTS.jsonl, the anchors' index, a one-file
    // withheld list) grow with the exhibit: past the ceiling the page reads them from the site
    // (docs/page.md#fetched-records).
    let page = page_with(input, tz_rules.as_ref(), true, Light::Fetching, usize::MAX)?
        .ok_or_else(|| anyhow::anyhow!("the light page was measured, not made"))?;
    if page.len() > light_max {
        // Said, not hidden: what a light page still embeds (bounded records, the ledger's file
        // list, the witness layer's summary) has grown past its aim (docs/page.md#fetched-records).
        crate::say!(
            "exhibit: note: index.html weighs {} bytes as the light page that reads its records from the site, over the {light_max} bytes a light page aims at: what it still embeds (the newest posts, the ledger's list of files, the witness layer's summary) has grown past it; docs/page.md#fetched-records",
            page.len()
        );
    }
    Ok(page)
}

/// The page, or `None` when it would weigh more than `max` bytes (its weight is known before
/// it is made).
/// Which page: the embedded one, the light one carrying its records, or the light one that
/// reads them from the site (docs/page.md#fetched-records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Light {
    No,
    Carrying,
    Fetching,
}

fn page_with(
    input: &PageInput<'_>,
    tz_rules: Option<&exhibit_protocol::days::TzRules>,
    latest_dropped: bool,
    light: Light,
    max: usize,
) -> anyhow::Result<Option<Vec<u8>>> {
    // A light page with the last ledger file embedded weighs at least that file's base64:
    // when that alone is past `max`, the page is not made, and the file is not read (up to
    // 12 MiB, on a segmented build's peak: docs/scale.md#the-self-check-streamed).
    if light != Light::No && !latest_dropped {
        let paths = crate::published::segments::published_paths(input.tree);
        let latest = paths.last().and_then(|p| input.tree.held(p));
        if latest.is_some_and(|(_, c)| c.len().div_ceil(3).saturating_mul(4) > max as u64) {
            return Ok(None);
        }
    }
    let blocks = data_blocks(input, tz_rules, latest_dropped, light)?;
    let light = light != Light::No;
    let md = |key: &str| {
        input
            .witness
            .and_then(|w| w.get(key))
            .and_then(J::as_str)
            .map(markdown_html)
            .unwrap_or_default()
    };
    let (report_html, prereg_html) = (md("report_md"), md("prereg_md"));
    let tokens = Tokens::for_texts(&[&report_html, &prereg_html]);
    let page = Page {
        built_at: input.built_at,
        witness_on: input.witness_on,
        public_texts_on: input.public_texts.is_some(),
        window_since: input.window_since,
        report_html,
        prereg_html,
        csp_token: tokens.csp(),
        style_css: STYLE_CSS,
        verify_js: VERIFY_JS,
        page_js: PAGE_JS,
        light,
        tz_note: match tz_rules {
            Some(r) => format!(
                "Calendar days are derived from the rules of {} in tz database {}, carried in this page ({} offset change{} over the ledger's span), not from your browser's own time-zone data; exhibit verify uses the same database.",
                r.zone,
                r.tzdb,
                r.offsets.len() - 1,
                if r.offsets.len() == 2 { "" } else { "s" }
            ),
            None => format!(
                "The header names no zone that tz database {} knows: no calendar day can be checked.",
                exhibit_protocol::days::tzdb_version()
            ),
        },
        data_blocks: blocks
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, tokens.data(i)))
            .collect(),
    };
    // The shell as the template and assets/ are written, not minified: the JS stays readable for
    // the stranger who wants to audit it, the CSS is written compact, and minify-html (23 oxc
    // crates and lightningcss in the binary) saved 1,243 bytes of the demo's page of 1.23 MB
    // (docs/page.md#the-shell-as-written).
    let html = with_csp(&page.render()?, &tokens.csp())?;
    // One pass, each block encoded straight into the page: at a million lines a block is
    // hundreds of megabytes, and a copy of the page per block would multiply that.
    let total: usize = blocks.iter().map(|(_, b)| b.len().div_ceil(3) * 4).sum();
    let token_bytes: usize = (0..blocks.len()).map(|i| tokens.data(i).len()).sum();
    let weight = (html.len() + total).saturating_sub(token_bytes);
    if weight > max {
        return Ok(None);
    }
    let mut page = Vec::with_capacity(html.len() + total);
    let mut rest = html.as_str();
    for (i, (id, bytes)) in blocks.iter().enumerate() {
        let token = tokens.data(i);
        anyhow::ensure!(
            html.matches(&token).count() == 1,
            "the page template lost the data block {id}"
        );
        let at = rest.find(&token).ok_or_else(|| {
            anyhow::anyhow!("the page template put the data block {id} out of order")
        })?;
        page.extend_from_slice(&rest.as_bytes()[..at]);
        base64_into(bytes, &mut page);
        rest = &rest[at + token.len()..];
    }
    page.extend_from_slice(rest.as_bytes());
    // The weight that decided which page is made is the page's.
    anyhow::ensure!(
        page.len() == weight,
        "the page weighs {} bytes, measured as {weight}",
        page.len()
    );
    Ok(Some(page))
}

/// The page with its Content-Security-Policy filled in: no host at all (a light page: its own
/// origin, for fetches), and inline script and style only where their sha256 is listed — the page's own, hashed here after rendering.
/// The data blocks (`type=application/octet-stream`) are never run, so they need no hash.
fn with_csp(html: &str, csp_token: &str) -> anyhow::Result<String> {
    use sha2::{Digest, Sha256};
    let hash = |body: &str| {
        format!(
            "'sha256-{}'",
            crate::published::encode::base64(&Sha256::digest(body.as_bytes()))
        )
    };
    let bodies = |open: &str, close: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(at) = rest.find(open) {
            let after = &rest[at..];
            let Some(gt) = after.find('>') else { break };
            let tag = &after[..gt];
            let body_start = gt + 1;
            let Some(len) = after[body_start..].find(close) else {
                break;
            };
            if !tag.contains("application/octet-stream") {
                out.push(hash(&after[body_start..body_start + len]));
            }
            rest = &after[body_start + len..];
        }
        out
    };
    let scripts = bodies("<script", "</script");
    let styles = bodies("<style", "</style");
    anyhow::ensure!(
        !scripts.is_empty() && !styles.is_empty(),
        "the page template lost its script or style"
    );
    // A page fetches from its own origin and nothing else (`connect-src 'self'`): a light page
    // its ledger files (docs/page.md "The light page"), and every page served over http the
    // files it links beside it and the posted heads' Bitcoin proofs (docs/page.md "The files
    // beside the page", "What is independent").
    let connect = " connect-src 'self';";
    let policy = format!(
        "default-src 'none'; script-src {}; style-src {};{connect} worker-src blob:; base-uri 'none'; form-action 'none'",
        scripts.join(" "),
        styles.join(" ")
    );
    let token = [
        format!("content=\"{csp_token}\""),
        format!("content={csp_token}"),
    ]
    .into_iter()
    .find(|t| html.matches(t.as_str()).count() == 1)
    .ok_or_else(|| anyhow::anyhow!("the page template lost its Content-Security-Policy"))?;
    Ok(html.replacen(&token, &format!("content=\"{policy}\""), 1))
}

/// The placeholders the page's template holds until it is rendered: the policy's and
/// each data block's. No text that reaches the page may hold one (a report that wrote the
/// policy's placeholder would take the policy's place, and the page ran with none), so each
/// carries a digest of every text the page renders: a text would have to hold its own digest
/// (docs/build.md#safety). The same texts give the same placeholders, and the placeholders
/// never reach the published bytes.
struct Tokens {
    salt: String,
}

impl Tokens {
    fn for_texts(texts: &[&str]) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for t in texts {
            h.update((t.len() as u64).to_le_bytes());
            h.update(t.as_bytes());
        }
        let salt = h.finalize()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Tokens { salt }
    }

    fn csp(&self) -> String {
        format!("EXHIBITCSP{}TOKEN", self.salt)
    }

    fn data(&self, i: usize) -> String {
        format!("EXHIBITDATA{i}X{}TOKEN", self.salt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markdown that hides an identifier from a guard of the raw text renders it whole: the
    /// reader's text must hold it (issue 48, class 3), and the guard must fire on it.
    #[test]
    fn the_reader_text_is_what_the_page_shows() {
        use exhibit_protocol::guard::{Context, scan};
        #[rustfmt::skip]
        let rows: &[(&str, &str)] = &[
            ("owner@example\\.com", "an escaped dot"),
            ("owner\\@example\\.com", "an escaped @ and dot"),
            ("owner@exa**mple.com**", "emphasis over the domain's end"),
            ("owner@_example_.com", "emphasis inside the domain"),
            ("555**010**9999", "strong emphasis between digit groups"),
            ("555`010`9999", "code spans between digit groups"),
            ("[see here](https://t.me/alice_private)", "a link's target, shown by no text"),
            ("![x](/home/alice/photo.png)", "an image's address"),
        ];
        for (md, why) in rows {
            assert!(
                !scan(&markdown_reader_text(md), Context::PublicText).is_empty(),
                "{why}: {md:?} reads {:?}",
                markdown_reader_text(md)
            );
        }
        // Blocks stay apart: two paragraphs' numbers are not one number.
        assert_eq!(
            markdown_reader_text("# 1234\n\n5678 and *9*"),
            "1234\n5678 and 9\n"
        );
    }

    /// An autolinked address is shown as text, never as a `mailto:` link.
    #[test]
    fn no_mailto_link_is_made() {
        for md in ["<owner@example.com>", "write to <a.b@c.example.org> now"] {
            let html = markdown_html(md);
            assert!(!html.contains("mailto:"), "{html}");
            assert!(!html.contains("<a "), "{html}");
        }
        assert!(
            markdown_html("<https://example.org/x>").contains("<a href=\"https://example.org/x\"")
        );
    }
    use crate::published::encode::base64;

    #[test]
    fn links_and_images_are_made_safe() {
        let html = markdown_html(
            "[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c](data:text/html,x) [d](//evil.example/) \
             [e](https://ok.example/) [f](notes/x.md) [g](#top) ![h](https://t.example/p.png)",
        );
        for bad in [
            "href=\"javascript",
            "href=\"JaVa",
            "href=\"data:",
            "href=\"//",
            "<img",
        ] {
            assert!(!html.contains(bad), "{bad}: {html}");
        }
        for good in [
            "href=\"https://ok.example/\"",
            "href=\"notes/x.md\"",
            "href=\"#top\"",
            "[image, not loaded: h — https://t.example/p.png]",
        ] {
            assert!(html.contains(good), "{good}: {html}");
        }
    }

    #[test]
    fn deep_nesting_is_shown_as_text() {
        let html = markdown_html(&">".repeat(10_000));
        assert!(html.contains("<pre>&gt;&gt;&gt;"), "{}", &html[..200]);
        let html = markdown_html("> > quoted twice");
        assert!(html.contains("<blockquote>"), "{html}");
    }

    #[test]
    fn markdown_escapes_raw_html() {
        let html = markdown_html(
            "# Bars\n\n<script>alert(1)</script>\n\ntext <img src=x onerror=alert(1)>",
        );
        assert!(
            !html.contains("<script>") && !html.contains("<img"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(
            html.contains("<h3>Bars</h3>"),
            "demoted under the section: {html}"
        );
    }

    #[test]
    fn markdown_renders_tables_and_demotes_every_heading() {
        let html = markdown_html("# A\n\n## B\n\n#### C\n\n| x | y |\n|---|---|\n| 1 | 2 |\n");
        assert!(
            html.contains("<h3>A</h3>")
                && html.contains("<h4>B</h4>")
                && html.contains("<h6>C</h6>"),
            "{html}"
        );
        assert!(
            html.contains("<table>") && html.contains("<td>1</td>"),
            "{html}"
        );
        assert!(!html.contains("| x |"), "no raw pipes: {html}");
    }

    #[test]
    fn a_ledger_file_s_header_is_its_first_line_read_across_spans() {
        // Catches a header cut at a span's end, one read past its LF, and a file of no LF
        // given as nothing.
        let (_dir, gate) =
            crate::operator_box::gate_ledger::ledger_for_test(b"head-rest of header\nline\n");
        let spans =
            crate::operator_box::gate_ledger::LedgerSpans::new(gate, vec![(0, 5), (5, 5), (5, 25)]);
        assert_eq!(
            header_line(&Content::Ledger(spans)).unwrap(),
            b"head-rest of header\n"
        );
        assert_eq!(
            header_line(&Content::Bytes(b"a\nb\n".to_vec())).unwrap(),
            b"a\n"
        );
        assert_eq!(
            header_line(&Content::Bytes(b"no lf".to_vec())).unwrap(),
            b"no lf"
        );
    }

    #[test]
    fn proof_headers_are_packed_losslessly() {
        let mut tree = Tree::default();
        let mut good = exhibit_protocol::ots::MAGIC.to_vec();
        good.extend_from_slice(&[
            exhibit_protocol::ots::VERSION,
            exhibit_protocol::ots::OP_SHA256,
        ]);
        let named = [7u8; 32];
        let mut witness = good.clone();
        witness.extend_from_slice(&named);
        witness.extend_from_slice(b"rest of the proof");
        let mut anchor = good.clone();
        anchor.extend_from_slice(&[9u8; 32]);
        tree.put(
            format!("ledger/witness/proofs/{}.ots", "07".repeat(32)),
            witness,
        );
        tree.put("ledger/anchors/2026-10-24.txt.ots", anchor);
        tree.put("ledger/anchors/2026-10-25.txt.ots", b"short".to_vec());
        tree.put("ledger/anchors/2026-10-24.txt", b"not a proof".to_vec());
        let b = proof_headers(&tree, true, None);
        assert_eq!(b[0], 1, "version");
        // two distinct prefixes: the OpenTimestamps one and "short"
        assert_eq!(u16::from_be_bytes([b[1], b[2]]), 2);
        let body = &b[3 + 1 + 33 + 1 + 5..];
        assert_eq!(
            u32::from_be_bytes(body[..4].try_into().unwrap()),
            3,
            "three proofs"
        );
        // the anchor proof's committed digest is carried whole; the witness proof's is the
        // flag that it equals its name
        assert!(b.windows(32).any(|w| w == [9u8; 32]));
        assert_eq!(
            b.windows(32).filter(|w| *w == named).count(),
            1,
            "the witness digest is carried once, as its name"
        );
        assert_eq!(
            *b.last().unwrap(),
            1,
            "the witness record ends with the same-as-name flag"
        );
    }

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
