//! The render stage: one self-contained `index.html` (issue 6). The shell — markup, CSS and
//! JavaScript from `assets/` — is rendered with askama and minified; the published bytes are then
//! embedded as base64 inside `<script type="application/octet-stream">` blocks, after
//! minification, so no minifier touches them and no ledger byte can end a script or run as one.

use std::borrow::Cow;

use askama::Template;
use serde_json::Value as J;

use super::BuildPlan;
use super::assemble::Assembled;
use super::layers::Layers;
use super::verify::VerifiedLedger;
use crate::encode::base64_into;
use crate::output::Tree;
use exhibit_protocol::verify::Withheld;

/// JavaScript and CSS compiled into the binary, so a build needs no file beside it.
const VERIFY_JS: &str = include_str!("../../assets/verify.js");
const PAGE_JS: &str = include_str!("../../assets/page.js");
const STYLE_CSS: &str = include_str!("../../assets/style.css");

/// Stage 7, render: the published ledger is re-derived by the same verifier a stranger runs,
/// then the page is rendered into the tree.
pub fn run(
    assembled: &mut Assembled,
    verified: &VerifiedLedger,
    layers: &Layers,
    plan: &BuildPlan,
) -> anyhow::Result<()> {
    self_check(&assembled.tree, verified)?;
    let page = page(&PageInput {
        tree: &assembled.tree,
        built_at: &assembled.snapshots.last_built_at,
        witness: layers.witness.as_ref().map(|w| &w.page_data),
        public_texts: layers.public_texts.as_ref().map(|t| &t.page_data),
        witness_on: plan.witness.is_some(),
        window_since: plan.witness_window_since.as_deref(),
    })?;
    assembled.tree.put("index.html", page);
    Ok(())
}

/// The published ledger with its withheld list must re-derive to the gate's head: checked here,
/// before anything is written, by the same verifier a stranger runs.
fn self_check(tree: &Tree, verified: &VerifiedLedger) -> anyhow::Result<()> {
    let withheld = Withheld::from_json(tree.get("ledger/withheld.json").unwrap_or(b"[]"))
        .map_err(anyhow::Error::msg)?;
    let report = exhibit_protocol::verify::verify_bytes(
        tree.get("ledger/ledger.jsonl").unwrap_or_default(),
        &withheld,
    );
    if !report.ok || report.head.as_deref() != Some(verified.head.as_str()) {
        anyhow::bail!(
            "self-check failed: the published ledger with withheld.json does not re-derive to the gate's head {} ({} problem(s), head {:?}); nothing was written",
            verified.head,
            report.problems.len(),
            report.head
        );
    }
    Ok(())
}

pub struct PageInput<'a> {
    pub tree: &'a Tree,
    pub built_at: &'a str,
    pub witness: Option<&'a J>,
    pub public_texts: Option<&'a J>,
    pub witness_on: bool,
    pub window_since: Option<&'a str>,
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
    /// `(id, token)`: each token is replaced by the base64 data after minification.
    data_blocks: Vec<(&'static str, String)>,
    /// Which tz database the page's days come from (docs/verifier.md "Days and the tz database").
    tz_note: String,
}

/// The data blocks the page reads, by element id (stable hooks, issue 6).
fn data_blocks<'t>(
    input: &PageInput<'t>,
    tz_rules: Option<&exhibit_protocol::days::TzRules>,
) -> Vec<(&'static str, Cow<'t, [u8]>)> {
    // Files are borrowed from the tree, not copied: the ledger can be hundreds of megabytes.
    let file = |p: &str| Cow::Borrowed(input.tree.get(p).unwrap_or_default());
    let mut posts = serde_json::Map::new();
    for (path, bytes) in &input.tree.files {
        if let Some(name) = path.strip_prefix("ledger/anchors/")
            && let Some(date) = name.strip_suffix(".txt")
        {
            posts.insert(
                date.to_string(),
                J::String(String::from_utf8_lossy(bytes).into_owned()),
            );
        }
    }
    let mut blocks = vec![
        ("ledger-bytes", file("ledger/ledger.jsonl")),
        ("withheld-json", file("ledger/withheld.json")),
        ("stats-json", file("ledger/STATS.json")),
        ("anchors-json", file("ledger/anchors/index.json")),
        (
            "anchor-posts-json",
            Cow::Owned(serde_json::to_vec(&J::Object(posts)).expect("json")),
        ),
        ("snapshots-jsonl", file("ledger/SNAPSHOTS.jsonl")),
        // The anchor zone's rules from this binary's tz database, over the ledger's span: the
        // page derives days from them, not from the browser's own tz data.
        (
            "tz-rules-json",
            Cow::Owned(
                serde_json::to_vec(&match tz_rules {
                    Some(rules) => serde_json::to_value(rules).expect("json"),
                    // Rules for no zone: the page then knows no zone, as `exhibit verify` does
                    // not (bad_header), rather than asking the browser.
                    None => serde_json::json!({"tzdb": exhibit_protocol::days::tzdb_version(), "zone": null,
                        "from": 0, "until": 0, "offsets": [[0, 0]]}),
                })
                .expect("json"),
            ),
        ),
    ];
    if let Some(w) = input.witness {
        blocks.push((
            "witness-json",
            Cow::Owned(serde_json::to_vec(w).expect("json")),
        ));
    }
    if let Some(t) = input.public_texts {
        blocks.push((
            "public-texts-json",
            Cow::Owned(serde_json::to_vec(t).expect("json")),
        ));
    }
    blocks
}

/// Markdown as HTML with any raw HTML in it escaped, never passed through.
pub fn markdown_html(md: &str) -> String {
    use pulldown_cmark::{Event, Parser, html};
    let events = Parser::new(md).map(|e| match e {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
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
    let tz_rules = exhibit_protocol::verify::tz_rules_for_ledger(
        input.tree.get("ledger/ledger.jsonl").unwrap_or_default(),
    );
    let blocks = data_blocks(input, tz_rules.as_ref());
    let md = |key: &str| {
        input
            .witness
            .and_then(|w| w.get(key))
            .and_then(J::as_str)
            .map(markdown_html)
            .unwrap_or_default()
    };
    let page = Page {
        built_at: input.built_at,
        witness_on: input.witness_on,
        public_texts_on: input.public_texts.is_some(),
        window_since: input.window_since,
        report_html: md("report_md"),
        prereg_html: md("prereg_md"),
        style_css: STYLE_CSS,
        verify_js: VERIFY_JS,
        page_js: PAGE_JS,
        tz_note: match &tz_rules {
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
            .map(|(i, (id, _))| (*id, format!("EXHIBITDATA{i}TOKEN")))
            .collect(),
    };
    let shell = page.render()?;
    let mut cfg = minify_html::Cfg::new();
    cfg.minify_css = true;
    cfg.minify_js = false; // our JS stays readable for the stranger who wants to audit it
    let minified = minify_html::minify(shell.as_bytes(), &cfg);
    let html = String::from_utf8(minified)?;
    // One pass, each block encoded straight into the page: at a million lines a block is
    // hundreds of megabytes, and a copy of the page per block would multiply that.
    let total: usize = blocks.iter().map(|(_, b)| b.len().div_ceil(3) * 4).sum();
    let mut page = Vec::with_capacity(html.len() + total);
    let mut rest = html.as_str();
    for (i, (id, bytes)) in blocks.iter().enumerate() {
        let token = format!("EXHIBITDATA{i}TOKEN");
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
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::base64;

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
        assert!(html.contains("<h1>Bars</h1>"));
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
