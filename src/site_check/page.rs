//! `exhibit verify SITE` holds the page to the site's files: the copies `index.html` carries in
//! its data blocks must be the files beside it (docs/scale.md#the-page-against-the-site).
//! The page checks what it carries; a page whose copies differ from the files would give a
//! stranger's browser another answer than this command, so each such copy is a problem here,
//! named by block and file.

use exhibit_protocol::Digest;

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::segments::PublishedFile;
use crate::site_check::outcome::FileProblem;

/// `ledger/STATS.json` as `verify SITE` reads it: once, its bytes for the page's copy and, after
/// the ledger has streamed, its value for the lists and the figures.
pub struct StatsFile {
    pub bytes: Option<Vec<u8>>,
    /// `None` when the file is missing or not JSON.
    pub value: Option<serde_json::Value>,
}

const PAGE: &str = "index.html";

/// A data block of the page (`<script id=… type=application/octet-stream>` holding base64): the
/// first element with that id in the document, as the browser's `getElementById` finds it;
/// `None` when the page has none, `Some(Err(()))` when its text is not base64.
fn data_block(html: &[u8], id: &str) -> Option<Result<Vec<u8>, ()>> {
    data_block_span(html, id).map(|r| base64(&html[r]))
}

/// Where the text of the page's data block `id` lies (found as [`data_block`] finds it): what
/// `exhibit cosign` replaces when it adds cosignatures to the checkpoint the page carries.
pub fn data_block_span(html: &[u8], id: &str) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    while let Some(open) = find_byte(html, b'<', at) {
        let rest = &html[open..];
        if rest.starts_with(b"<!--") {
            // A comment hides what it holds from the browser: so from this reader.
            at = find(html, b"-->", open + 4).map_or(html.len(), |e| e + 3);
            continue;
        }
        let is_script = rest.len() > 7
            && rest[1..7].eq_ignore_ascii_case(b"script")
            && matches!(
                rest[7],
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
            );
        let end = tag_end(html, open)?;
        if !is_script {
            at = end + 1;
            continue;
        }
        let close = script_end(html, end + 1);
        if attribute(&html[open + 7..end], b"id").as_deref() == Some(id.as_bytes()) {
            return Some(end + 1..close);
        }
        at = close;
    }
    None
}

fn find_byte(hay: &[u8], byte: u8, from: usize) -> Option<usize> {
    hay.get(from..)?
        .iter()
        .position(|&b| b == byte)
        .map(|i| i + from)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = find_byte(hay, needle[0], at) {
        if hay[i..].starts_with(needle) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// The `>` that ends the tag opened at `open`: one inside a quoted attribute value does not, as
/// the browser's tokenizer reads it.
fn tag_end(html: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    let mut after_equals = false;
    while let Some(&b) = html.get(i) {
        match b {
            b'>' => return Some(i),
            b'"' | b'\'' if after_equals => {
                i = find_byte(html, b, i + 1)?;
                after_equals = false;
            }
            b'=' => after_equals = true,
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    None
}

/// Where a script element's text ends: at the first `</script` (any case), or the document's end.
fn script_end(html: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(i) = find(html, b"</", at) {
        if html
            .get(i + 2..i + 8)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"script"))
        {
            return i;
        }
        at = i + 2;
    }
    html.len()
}

/// The value of attribute `name` in a tag's attribute text (quoted or not), as HTML reads it.
fn attribute(attrs: &[u8], name: &[u8]) -> Option<Vec<u8>> {
    let mut i = 0;
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/');
    while i < attrs.len() {
        while i < attrs.len() && space(attrs[i]) {
            i += 1;
        }
        let start = i;
        while i < attrs.len() && !space(attrs[i]) && attrs[i] != b'=' {
            i += 1;
        }
        let key = &attrs[start..i];
        let mut value = Vec::new();
        if i < attrs.len() && attrs[i] == b'=' {
            i += 1;
            match attrs.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = attrs[i + 1..]
                        .iter()
                        .position(|&b| b == q)
                        .map_or(attrs.len(), |p| i + 1 + p);
                    value = attrs[i + 1..end].to_vec();
                    i = end + 1;
                }
                _ => {
                    let s = i;
                    while i < attrs.len() && !space(attrs[i]) {
                        i += 1;
                    }
                    value = attrs[s..i].to_vec();
                }
            }
        }
        if key.eq_ignore_ascii_case(name) {
            return Some(value);
        }
        if key.is_empty() {
            i += 1;
        }
    }
    None
}

/// Base64 as the page's decoder reads it (the "forgiving" base64 of `atob`): ASCII whitespace
/// is dropped; then, when the length is a multiple of four, one or two final `=` are; what is
/// left must be the 64 letters alone, and not one letter more than a multiple of four.
/// Hand-written on purpose: the `base64` crate decodes strictly or with a chosen padding mode,
/// never as `atob` does, and this command must read a page's blocks exactly as the page does
/// (vectors/base64.json holds both to one table).
fn base64(text: &[u8]) -> Result<Vec<u8>, ()> {
    let space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    let letters = text.iter().filter(|c| !space(c)).count();
    // The final `=`s, when the letters are a multiple of four: at most two are dropped.
    let mut pad = 0;
    if letters.is_multiple_of(4) {
        for &c in text.iter().rev().filter(|c| !space(c)).take(2) {
            if c != b'=' {
                break;
            }
            pad += 1;
        }
    }
    let kept = letters - pad;
    if kept % 4 == 1 {
        return Err(());
    }
    let mut out = Vec::with_capacity(kept / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in text.iter().filter(|c| !space(c)).take(kept) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(()),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

fn problem(code: &str, detail: String) -> FileProblem {
    FileProblem {
        file: PAGE.into(),
        code: code.into(),
        detail,
    }
}

fn sha(bytes: &[u8]) -> String {
    Digest::of(bytes).to_string()
}

/// The site's page against the site's files. `read`: the published ledger's files as this
/// command read them. A site without `index.html` (a copy of `ledger/` alone) has no page to
/// hold to them. Returns the released texts the page carries (an embedded page's
/// `public-texts-json` with its `texts`), where it counts them beside STATS.json's count
/// (docs/scale.md#stats-figures) and where `verify SITE` holds each to its file.
pub fn check(
    html: &[u8],
    ledger_dir: &BoxFolder,
    read: &[PublishedFile],
    stats: &StatsFile,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<Option<CarriedTexts>> {
    // Each block decoded when it is compared, and let go (a page carries up to 32 MiB).
    let mut unreadable = Vec::new();
    let mut block = |id: &'static str| match data_block(html, id) {
        Some(Ok(b)) => Some(b),
        Some(Err(())) => {
            unreadable.push(problem(
                "page_block_unreadable",
                format!("its data block {id} is not base64, so the page reads something else than this command can"),
            ));
            None
        }
        None => None,
    };
    let layout = block("layout-json");
    // Parsed once: the list of files, the withheld list's files and which page it is.
    let parsed = layout
        .as_deref()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok());
    let light = check_layout(layout.is_some(), parsed.as_ref(), read, problems);
    if light {
        check_withheld_list(parsed.as_ref(), stats.value.as_ref(), problems);
    }
    let ledger_file = |name: &str| ledger_dir.read(name, FileClass::OutputFile);
    if light {
        let first = read.first().map(|f| f.path.as_str());
        if first == Some("ledger/ledger.jsonl") {
            let header = first_line(ledger_dir)?;
            same_as(
                problems,
                "ledger-header",
                "the first line of ledger/ledger.jsonl",
                block("ledger-header"),
                Some(&header),
            );
        }
        let latest = block("ledger-latest").unwrap_or_default();
        if let Some(last) = read.last()
            && !latest.is_empty()
            && (latest.len() as u64 != last.bytes || sha(&latest) != last.sha256)
        {
            problems.push(problem(
                "page_copy_mismatch",
                format!(
                    "its data block ledger-latest is not {}: {} bytes with sha256 {} in the page, {} bytes with sha256 {} in the file",
                    last.path,
                    latest.len(),
                    sha(&latest),
                    last.bytes,
                    last.sha256
                ),
            ));
        }
    } else {
        // An embedded page without the block reads an empty ledger.
        let ledger = block("ledger-bytes").unwrap_or_default();
        match read {
            [one] if one.bytes == ledger.len() as u64 && one.sha256 == sha(&ledger) => {}
            _ => problems.push(problem(
                "page_copy_mismatch",
                format!(
                    "its data block ledger-bytes is not the published ledger: {} bytes with sha256 {} in the page",
                    ledger.len(),
                    sha(&ledger)
                ),
            )),
        }
    }
    // A light page too large to carry its records reads them from the site (`layout-json`'s
    // `fetch`, docs/page.md#fetched-records) and never reads these four blocks: nor does this.
    if light && parsed.as_ref().and_then(|v| v.get("fetch")) == Some(&serde_json::Value::Bool(true))
    {
        let (carried, headers, dates) = check_rest(ledger_dir, problems, &mut block, true)?;
        problems.append(&mut unreadable);
        check_proof_headers(
            &headers,
            ledger_dir,
            ledger_dir.sub("anchors")?.as_ref(),
            Some(&dates),
            problems,
        )?;
        return Ok(carried);
    }
    // A withheld list in one file is embedded; one in files is fetched by the light page's own
    // list and not embedded (docs/scale.md#withheld-files).
    let in_files = parsed
        .as_ref()
        .is_some_and(|v| v.get("withheld_files").is_some());
    let withheld = if in_files {
        None
    } else {
        ledger_dir.read("withheld.json", FileClass::Withheld)?
    };
    same_as(
        problems,
        "withheld-json",
        "ledger/withheld.json",
        block("withheld-json"),
        withheld.as_deref(),
    );
    same_as(
        problems,
        "stats-json",
        "ledger/STATS.json",
        block("stats-json"),
        stats.bytes.as_deref(),
    );
    same_as(
        problems,
        "snapshots-jsonl",
        "ledger/SNAPSHOTS.jsonl",
        block("snapshots-jsonl"),
        ledger_file("SNAPSHOTS.jsonl")?.as_deref(),
    );
    let anchors = ledger_dir.sub("anchors")?;
    let index = match &anchors {
        Some(a) => a.read("index.json", FileClass::AnchorsIndex)?,
        None => None,
    };
    let carried = block("anchors-json").filter(|b| !b.is_empty());
    if carried.is_some() || index.is_some() {
        same_as(
            problems,
            "anchors-json",
            "ledger/anchors/index.json",
            carried,
            index.as_deref(),
        );
    }
    let (carried, headers, _) = check_rest(ledger_dir, problems, &mut block, false)?;
    problems.append(&mut unreadable);
    check_proof_headers(&headers, ledger_dir, anchors.as_ref(), None, problems)?;
    Ok(carried)
}

/// What `check_rest` returns: the texts the page carries, its proofs' headers and the dates of
/// the posts it must carry.
type Rest = (
    Option<CarriedTexts>,
    Vec<u8>,
    std::collections::BTreeSet<String>,
);

/// The blocks every page reads: the posts, the tz rules and the layers' blocks. Returns the
/// texts the page carries, its proofs' headers (checked once the unreadable blocks are said,
/// in the order they always were) and the dates whose posts it carries. `fetched`: a light
/// page that reads its records from the site, which carries the newest posts only
/// (docs/page.md#fetched-records).
fn check_rest(
    ledger_dir: &BoxFolder,
    problems: &mut Vec<FileProblem>,
    block: &mut dyn FnMut(&'static str) -> Option<Vec<u8>>,
    fetched: bool,
) -> anyhow::Result<Rest> {
    let anchors = ledger_dir.sub("anchors")?;
    // The page's copy of the checkpoint (docs/tree.md#checkpoint); a page of an exhibit built
    // before the tree carries none, and its site has none.
    let checkpoint = match ledger_dir.sub("tree")? {
        Some(t) => t.read("checkpoint", FileClass::AnchorPost)?,
        None => None,
    };
    let carried_checkpoint = block("tree-checkpoint").filter(|b| !b.is_empty());
    if carried_checkpoint.is_some() || checkpoint.is_some() {
        same_as(
            problems,
            "tree-checkpoint",
            "ledger/tree/checkpoint",
            carried_checkpoint,
            checkpoint.as_deref(),
        );
    }
    let posts = block("anchor-posts-json");
    let dates = check_posts(posts.as_deref(), anchors.as_ref(), fetched, problems)?;
    let tz_rules = block("tz-rules-json");
    let witness = block("witness-json");
    // Carried as the page reads it (`obj(jsonBlock(…))`): a block that is not a JSON object
    // or array is no block to it (found by the random tampering: a flipped quote made the page
    // fail for want of the layer while this command passed the site).
    let witness_read = witness.as_deref().is_some_and(page_reads_object);
    check_layer_blocks(tz_rules.as_deref(), witness_read, ledger_dir, problems)?;
    check_prereg(witness, ledger_dir, problems)?;
    let carried = check_texts_block(block("public-texts-json"), ledger_dir, problems)?;
    Ok((carried, block("proof-headers").unwrap_or_default(), dates))
}

/// The released texts an embedded page carries (`public-texts-json`'s `texts`), by the name
/// each is filed under; each decoded as the page's `textBytes` decodes it, `None` where the
/// page cannot (not a string, not base64). An array reads as the page's `Object.keys` reads it.
pub type CarriedTexts = std::collections::BTreeMap<String, Option<Vec<u8>>>;

/// `public-texts-json` against `ledger/public_texts/index.json` (docs/scale.md#the-pages-texts):
/// its `index` is the file's value, or, on a page that does not carry the texts, the summary a
/// light page is given of it. Returns the texts the page carries, for `verify SITE` to hold to
/// the files it reads once (docs/scale.md#the-page-against-the-site).
fn check_texts_block(
    block: Option<Vec<u8>>,
    ledger_dir: &BoxFolder,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<Option<CarriedTexts>> {
    use serde_json::Value as J;
    let file = match ledger_dir.sub("public_texts")? {
        Some(t) => t.read("index.json", FileClass::TextsIndex)?,
        None => None,
    };
    if block.is_none() && file.is_none() {
        return Ok(None);
    }
    let page = block
        .as_deref()
        .and_then(|b| serde_json::from_slice::<J>(b).ok());
    // As the page reads it: `obj(publicTexts.texts)`, an object or an array.
    let carried = page.as_ref().and_then(|v| match v.get("texts")? {
        J::Object(m) => Some(m.iter().map(|(k, v)| (k.clone(), v)).collect::<Vec<_>>()),
        J::Array(a) => Some(
            a.iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        ),
        _ => None,
    });
    let carried: Option<CarriedTexts> = carried.map(|texts| {
        texts
            .into_iter()
            .map(|(name, v)| (name, v.as_str().and_then(|s| base64(s.as_bytes()).ok())))
            .collect()
    });
    let file_value = file
        .as_deref()
        .and_then(|b| serde_json::from_slice::<J>(b).ok());
    let want = match (&file_value, carried.is_some()) {
        (Some(v), true) => Some(v.clone()),
        (Some(v), false) => Some(crate::publication::render::light_index(v.clone())),
        (None, _) => None,
    };
    let got = page.as_ref().and_then(|v| v.get("index"));
    if file_value.is_none() || got != want.as_ref() {
        problems.push(problem(
            "page_copy_mismatch",
            format!(
                "its data block public-texts-json does not carry ledger/public_texts/index.json{}",
                match (&block, &file) {
                    (None, _) => ": the page has no such block",
                    (_, None) => ": the site has no such file",
                    _ if file_value.is_none() => ": the file is not JSON",
                    _ => " as its index",
                }
            ),
        ));
    }
    Ok(carried)
}

/// One record of the page's `proof-headers` block, as `decodeProofHeaders` in assets/page.js
/// reads it: the proof's kind (0 an anchor's, 1 a per-line witness proof named by its digest,
/// 2 another witness proof), its name, its length and its first bytes (up to 65).
struct ProofHeader {
    kind: u8,
    name: String,
    length: u32,
    header: Vec<u8>,
}

/// The `proof-headers` block decoded byte for byte as the page decodes it (the layout is
/// `crate::publication::render::proof_headers`'); `None` when the page would refuse it.
fn decode_proof_headers(b: &[u8]) -> Option<Vec<ProofHeader>> {
    struct Reader<'a>(&'a [u8], usize);
    impl Reader<'_> {
        fn take(&mut self, n: usize) -> Option<&[u8]> {
            let s = self.0.get(self.1..self.1.checked_add(n)?)?;
            self.1 += n;
            Some(s)
        }
        fn u8(&mut self) -> Option<u8> {
            self.take(1).map(|s| s[0])
        }
        fn uint(&mut self, n: usize) -> Option<u32> {
            Some(
                self.take(n)?
                    .iter()
                    .fold(0u32, |a, b| (a << 8) | u32::from(*b)),
            )
        }
    }
    let mut out = Vec::new();
    if b.is_empty() {
        return Some(out);
    }
    let mut r = Reader(b, 0);
    if r.u8()? != 1 {
        return None;
    }
    let mut prefixes = Vec::new();
    for _ in 0..r.uint(2)? {
        let n = r.u8()?;
        prefixes.push(r.take(usize::from(n))?.to_vec());
    }
    for _ in 0..r.uint(4)? {
        let kind = r.u8()?;
        let name_bytes = if kind == 1 {
            r.take(32)?.to_vec()
        } else {
            let n = r.u8()?;
            r.take(usize::from(n))?.to_vec()
        };
        let name = if kind == 1 {
            name_bytes.iter().map(|b| format!("{b:02x}")).collect()
        } else {
            name_bytes.iter().map(|&b| char::from(b)).collect()
        };
        let length = r.uint(4)?;
        let prefix = prefixes.get(r.uint(2)? as usize)?;
        let tail = if r.u8()? == 1 {
            name_bytes
        } else {
            let n = (length.min(65) as usize).saturating_sub(prefix.len());
            r.take(n)?.to_vec()
        };
        out.push(ProofHeader {
            kind,
            name,
            length,
            header: [prefix.as_slice(), &tail].concat(),
        });
    }
    Some(out)
}

/// The proof headers the page checks against the site's proof files: each record names a file
/// the site holds, of that length, beginning with those bytes; and every anchor's proof the site
/// holds has a record (else the page would say it has none where this command checks it).
/// `dates`: on a page that reads its records from the site, the dates whose posts it carries;
/// it carries their proofs' headers and no other anchor's (docs/page.md#fetched-records).
fn check_proof_headers(
    block: &[u8],
    ledger_dir: &BoxFolder,
    anchors: Option<&BoxFolder>,
    dates: Option<&std::collections::BTreeSet<String>>,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<()> {
    let wanted = |name: &str| {
        dates.is_none_or(|d| name.strip_suffix(".txt.ots").is_some_and(|n| d.contains(n)))
    };
    let Some(records) = decode_proof_headers(block) else {
        problems.push(problem(
            "page_copy_mismatch",
            "its data block proof-headers is not the packed list of proof headers the page reads"
                .into(),
        ));
        return Ok(());
    };
    let proofs = match ledger_dir.sub("witness")? {
        Some(w) => w.sub("proofs")?,
        None => None,
    };
    let mut carried = std::collections::BTreeSet::new();
    for rec in &records {
        let (folder, file, shown) = match rec.kind {
            0 => (
                anchors,
                rec.name.clone(),
                format!("ledger/anchors/{}", rec.name),
            ),
            1 => (
                proofs.as_ref(),
                format!("{}.ots", rec.name),
                format!("ledger/witness/proofs/{}.ots", rec.name),
            ),
            _ => (
                proofs.as_ref(),
                rec.name.clone(),
                format!("ledger/witness/proofs/{}", rec.name),
            ),
        };
        let shown = crate::terminal::escape(&shown);
        if rec.kind == 0 {
            carried.insert(rec.name.clone());
            if !wanted(&rec.name) {
                problems.push(problem(
                    "page_copy_mismatch",
                    format!("it carries the header of {shown}, which is not the proof of one of the newest posts it carries (docs/page.md#fetched-records)"),
                ));
                continue;
            }
        }
        // Only a name of the layout's grammar is looked up (a record cannot make this command
        // read outside the proofs' folders).
        let bytes = match folder {
            Some(f) if crate::published::layout::is_output_path(&shown) => {
                f.read(&file, FileClass::Proof)?
            }
            _ => None,
        };
        let Some(bytes) = bytes else {
            problems.push(problem(
                "page_copy_mismatch",
                format!("it carries the header of a proof {shown} that the site does not hold"),
            ));
            continue;
        };
        let head = &bytes[..bytes.len().min(65)];
        if u64::from(rec.length) != bytes.len() as u64 || rec.header != head {
            problems.push(problem(
                "page_copy_mismatch",
                format!(
                    "the proof header it carries for {shown} is not the file's: {} bytes with first bytes {} in the page, {} bytes with first bytes {} in the file",
                    rec.length,
                    hex::encode(&rec.header),
                    bytes.len(),
                    hex::encode(head)
                ),
            ));
        }
    }
    if let Some(a) = anchors {
        for l in a.list()? {
            if l.file
                && l.utf8
                && l.name.ends_with(".txt.ots")
                && !carried.contains(&l.name)
                && wanted(&l.name)
            {
                problems.push(problem(
                    "page_copy_mismatch",
                    format!("it carries no header for ledger/anchors/{}, so it cannot check the proof this command checks", l.name),
                ));
            }
        }
    }
    Ok(())
}

/// A block that must be the bytes of a file of the site (absent and empty are the same: the
/// page reads an absent block as empty).
fn same_as(
    problems: &mut Vec<FileProblem>,
    id: &str,
    file: &str,
    got: Option<Vec<u8>>,
    want: Option<&[u8]>,
) {
    let got = got.unwrap_or_default();
    let want = want.unwrap_or_default();
    if got != want {
        problems.push(problem(
            "page_copy_mismatch",
            format!(
                "its data block {id} is not {file}: {} bytes with sha256 {} in the page, {} bytes with sha256 {} in the file",
                got.len(),
                sha(&got),
                want.len(),
                sha(want)
            ),
        ));
    }
}

/// `layout-json` against the files read; true for a light page.
fn check_layout(
    carried: bool,
    parsed: Option<&serde_json::Value>,
    read: &[PublishedFile],
    problems: &mut Vec<FileProblem>,
) -> bool {
    let mode = parsed.and_then(|v| v.get("mode")).and_then(|m| m.as_str());
    match mode {
        // The page's own default, when it carries no layout (docs/page.md "The light page").
        None if !carried => return false,
        Some("embedded") => return false,
        Some("light") => {}
        _ => {
            problems.push(problem(
                "page_layout_mismatch",
                "its data block layout-json is not {\"mode\":\"embedded\"} nor a light page's list of files".into(),
            ));
            return false;
        }
    }
    let listed = parsed
        .and_then(|v| v.get("files"))
        .and_then(|f| f.as_array());
    let Some(listed) = listed else {
        problems.push(problem(
            "page_layout_mismatch",
            "its data block layout-json lists no ledger files".into(),
        ));
        return true;
    };
    if listed.len() != read.len() {
        problems.push(problem(
            "page_layout_mismatch",
            format!(
                "its list of the ledger's files (layout-json) names {} files; the site's published ledger is {}",
                listed.len(),
                read.len()
            ),
        ));
        return true;
    }
    for (item, file) in listed.iter().zip(read) {
        let differs = layout_item_differs(item, file);
        if !differs.is_empty() {
            problems.push(problem(
                "page_layout_mismatch",
                format!(
                    "its list of the ledger's files (layout-json) gives {} {}",
                    file.path,
                    differs.join(", ")
                ),
            ));
        }
    }
    true
}

/// A light page's list of the withheld list's files (`layout-json`'s `withheld_files`) against
/// STATS.json's `withheld_files`, which lists them when the list is in more than one file
/// (docs/scale.md#withheld-files): the page reads the files by its own list, this command by the
/// file's.
fn check_withheld_list(
    layout: Option<&serde_json::Value>,
    stats: Option<&serde_json::Value>,
    problems: &mut Vec<FileProblem>,
) {
    use crate::published::withheld_files::WithheldFile;
    let carried = layout.and_then(|v| v.get("withheld_files")).cloned();
    let listed = stats
        .and_then(|v| v.get("withheld_files").cloned())
        .filter(|v| v.as_array().is_some_and(|a| a.len() > 1));
    let as_files =
        |v: &serde_json::Value| serde_json::from_value::<Vec<WithheldFile>>(v.clone()).ok();
    let same = match (&carried, &listed) {
        (None, None) => true,
        (Some(a), Some(b)) => as_files(a).is_some() && as_files(a) == as_files(b),
        _ => false,
    };
    if !same {
        problems.push(problem(
            "page_layout_mismatch",
            "its list of the withheld list's files (layout-json's withheld_files) is not STATS.json's withheld_files".into(),
        ));
    }
}

/// The fields of one `layout-json` item that are not the file's as read: path, bytes and sha256
/// always; lines, seqs and head when the item gives any of them (a ledger in one file may be
/// listed without them, docs/page.md "The light page").
fn layout_item_differs(item: &serde_json::Value, file: &PublishedFile) -> Vec<String> {
    use serde_json::Value as J;
    let seq = |s: Option<i64>| s.map_or(J::Null, J::from);
    let mut want = vec![
        ("path", J::from(file.path.clone())),
        ("bytes", J::from(file.bytes)),
        ("sha256", J::from(file.sha256.clone())),
    ];
    let facts = [
        ("lines", J::from(file.lines)),
        ("first_seq", seq(file.first_seq)),
        ("last_seq", seq(file.last_seq)),
        ("head", J::from(file.head.clone())),
    ];
    if facts.iter().any(|(k, _)| item.get(k).is_some()) {
        want.extend(facts);
    }
    const KEYS: [&str; 7] = [
        "bytes",
        "first_seq",
        "head",
        "last_seq",
        "lines",
        "path",
        "sha256",
    ];
    let stray = item
        .as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .filter(|k| !KEYS.contains(&k.as_str()))
        .map(|k| {
            format!(
                "a key STATS.json's files do not have ({})",
                crate::terminal::escape(k)
            )
        });
    // A seq left out reads as null, as STATS.json's reader takes it.
    let given = |k: &str| match item.get(k) {
        None if k.ends_with("_seq") => Some(&J::Null),
        v => v,
    };
    want.into_iter()
        .filter(|(k, v)| given(k) != Some(v))
        .map(|(k, v)| {
            let shown = item.get(k).map_or("nothing".to_string(), |g| g.to_string());
            format!("{k} {shown} (read: {v})")
        })
        .chain(stray)
        .collect()
}

/// The blocks every page, or a layer's page, carries: the days' rules always (zone null for a
/// zone the tz database does not know: without them the browser's own data decided the days),
/// readable as the page reads them; the witness layer's block exactly where the site publishes
/// the layer (a page without it showed no layer beside the layer's files). docs/page.md.
fn check_layer_blocks(
    tz_rules: Option<&[u8]>,
    witness: bool,
    ledger_dir: &BoxFolder,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<()> {
    match tz_rules {
        None => problems.push(problem(
            "page_copy_mismatch",
            "it carries no tz-rules-json data block: every page exhibit builds carries the rules its days come from, and without them the browser's own time-zone data would decide them".to_string(),
        )),
        // As the page reads it: JSON of UTF-8, an object (or a list, read as no rules).
        Some(b) if crate::site_check::page_days::PageDays::of_block(b).is_none() => problems.push(problem(
            "page_copy_mismatch",
            "its tz-rules-json data block is not rules the page can read: the browser's own time-zone data would decide its days".to_string(),
        )),
        Some(_) => {}
    }
    if witness != ledger_dir.sub("witness")?.is_some() {
        problems.push(problem(
            "page_copy_mismatch",
            if witness {
                "it carries the witness layer's data block witness-json, but the site publishes no ledger/witness/".to_string()
            } else {
                "it carries no witness-json data block it can read, but the site publishes the witness layer in ledger/witness/".to_string()
            },
        ));
    }
    Ok(())
}

/// A data block the page's `obj(jsonBlock(id))` gives a value for: JSON text of UTF-8 that is an
/// object or an array, and not an object whose `__error` is truthy (the page's mark of a block
/// it could not read).
fn page_reads_object(block: &[u8]) -> bool {
    use serde_json::Value as J;
    let truthy = |v: &J| match v {
        J::Null | J::Bool(false) => false,
        J::Number(n) => n.as_f64() != Some(0.0),
        J::String(s) => !s.is_empty(),
        _ => true,
    };
    match serde_json::from_slice::<J>(block) {
        Ok(J::Array(_)) => true,
        Ok(J::Object(o)) => !o.get("__error").is_some_and(truthy),
        _ => false,
    }
}

/// The sealed preregistration the page carries (`witness-json`'s `prereg_md`, which the page
/// hashes against its proof's name, `prereg_<sha256>.ots`) against the site's
/// `ledger/witness/WITNESS_PREREG.md`: a changed copy failed the page while this command passed
/// the site (docs/scale.md#the-page-against-the-site).
fn check_prereg(
    witness: Option<Vec<u8>>,
    ledger_dir: &BoxFolder,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<()> {
    let summary = witness.and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    let Some(carried) = summary
        .as_ref()
        .and_then(|v| v.get("prereg_md"))
        .and_then(|t| t.as_str())
        .filter(|t| !t.is_empty())
    else {
        return Ok(());
    };
    let file = match ledger_dir.sub("witness")? {
        Some(w) => w.read("WITNESS_PREREG.md", FileClass::OutputFile)?,
        None => None,
    };
    if file.as_deref() != Some(carried.as_bytes()) {
        problems.push(problem(
            "page_copy_mismatch",
            format!(
                "its data block witness-json carries a WITNESS_PREREG.md of {} bytes with sha256 {}; ledger/witness/WITNESS_PREREG.md {}",
                carried.len(),
                sha(carried.as_bytes()),
                file.as_deref().map_or("is not there".into(), |f| format!(
                    "is {} bytes with sha256 {}",
                    f.len(),
                    sha(f)
                ))
            ),
        ));
    }
    Ok(())
}

/// The tz rules the site's page derives days from (docs/scale.md#the-pages-tz-rules): `None`
/// when there is no page, or its block is not rules the page reads.
pub fn page_days(html: &[u8]) -> Option<crate::site_check::page_days::PageDays> {
    match data_block(html, "tz-rules-json") {
        Some(Ok(block)) => crate::site_check::page_days::PageDays::of_block(&block),
        _ => None,
    }
}

/// The site's page, read once for every check of it (the days as the ledger streams, the copies
/// after), so that one page is judged, not two reads of it; `None` for a site without one.
pub fn read_page(site: &BoxFolder) -> anyhow::Result<Option<Vec<u8>>> {
    site.read(PAGE, FileClass::Page)
}

/// The first line of `ledger/ledger.jsonl`, with its LF (at most 1 MiB is read for it).
fn first_line(ledger_dir: &BoxFolder) -> anyhow::Result<Vec<u8>> {
    use std::io::BufRead;
    let mut line = Vec::new();
    if let Some(f) = ledger_dir.open("ledger.jsonl", FileClass::Ledger)? {
        let mut r = std::io::BufReader::new(std::io::Read::take(f, 1 << 20));
        r.read_until(b'\n', &mut line)?;
    }
    Ok(line)
}

/// `anchor-posts-json` (each day's post, as the page checks it) against `anchors/<date>.txt`:
/// the same days, each with the file's text.
fn check_posts(
    posts: Option<&[u8]>,
    anchors: Option<&BoxFolder>,
    fetched: bool,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<std::collections::BTreeSet<String>> {
    let carried: serde_json::Map<String, serde_json::Value> = match posts {
        None => serde_json::Map::new(),
        Some(b) => match serde_json::from_slice(b) {
            Ok(m) => m,
            Err(_) => {
                problems.push(problem(
                    "page_copy_mismatch",
                    "its data block anchor-posts-json is not a JSON object of posts by day".into(),
                ));
                return Ok(Default::default());
            }
        },
    };
    let mut files = std::collections::BTreeMap::new();
    if let Some(a) = anchors {
        for l in a.list()? {
            if let Some(date) = l.name.strip_suffix(".txt")
                && l.file
                && l.utf8
            {
                let text = a.read(&l.name, FileClass::AnchorPost)?.unwrap_or_default();
                files.insert(
                    date.to_string(),
                    String::from_utf8_lossy(&text).into_owned(),
                );
            }
        }
    }
    // The same rule the build carries by (`carried_post_dates`).
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let kept: std::collections::BTreeSet<String> =
        crate::publication::render::carried_post_dates(&names, fetched)
            .iter()
            .map(|d| d.to_string())
            .collect();
    files.retain(|d, _| kept.contains(d));
    for (date, text) in &files {
        match carried.get(date).and_then(|v| v.as_str()) {
            Some(t) if t == text => {}
            Some(_) => problems.push(problem(
                "page_copy_mismatch",
                format!("its post for {date} (anchor-posts-json) is not ledger/anchors/{date}.txt"),
            )),
            None => problems.push(problem(
                "page_copy_mismatch",
                format!("it carries no post for {date}, which ledger/anchors/{date}.txt posts: the page would not check that head"),
            )),
        }
    }
    for date in carried.keys().filter(|d| !files.contains_key(*d)) {
        problems.push(problem(
            "page_copy_mismatch",
            format!(
                "it carries a post for {} that the site's ledger/anchors/ does not hold{}",
                crate::terminal::escape(date),
                if fetched {
                    " among its newest posts (docs/page.md#fetched-records)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_block_is_carried_as_the_pages_obj_reads_it() {
        // Catches a check that takes a block's presence for the page's reading of it.
        for (b, read) in [
            (&b"{}"[..], true),
            (b"[]", true),
            (b"{\"index\":{}}", true),
            (b"{\"__error\":0}", true),
            (b"{\"__error\":\"x\"}", false),
            (b"{\"prereg\" {}}", false),
            (b"null", false),
            (b"\"text\"", false),
            (b"", false),
            (b"{\"a\":\"\xff\"}", false),
        ] {
            assert_eq!(
                super::page_reads_object(b),
                read,
                "{:?}",
                String::from_utf8_lossy(b)
            );
        }
    }

    use super::*;

    #[test]
    fn a_block_is_the_first_script_with_that_id_outside_comments() {
        let html = b"<p>x</p><!-- <script id=a type=application/octet-stream>QUJD</script> -->\
<script type=application/octet-stream id=\"a\">REVG</script><script id=a>R0hJ</script>";
        assert_eq!(data_block(html, "a"), Some(Ok(b"DEF".to_vec())));
        assert_eq!(data_block(html, "b"), None);
        let bad = b"<script id=a type=application/octet-stream>*not base64*</script>";
        assert_eq!(data_block(bad, "a"), Some(Err(())));
        // `<scripts>` or an id inside another attribute's value is not that element.
        let other = b"<scripts id=a>QUJD</scripts><script title='id=a' id=b>QUJD</script>";
        assert_eq!(data_block(other, "a"), None);
        // A `>` inside a quoted value does not end the tag (the browser reads this block
        // first); a closing tag in capitals closes the element.
        let quoted = b"<script title=\">\" id=a type=application/octet-stream>QUJD</SCRIPT ><script id=a>REVG</script>";
        assert_eq!(data_block(quoted, "a"), Some(Ok(b"ABC".to_vec())));
        // Text inside another script is not an element.
        let inside = b"<script>var s = '<script id=a>QUJD';</script><script id=a>REVG</script>";
        assert_eq!(data_block(inside, "a"), Some(Ok(b"DEF".to_vec())));
    }

    #[test]
    fn proof_headers_decode_as_the_build_packs_them() {
        let digest = "ab".repeat(32);
        let mut committing =
            b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94\x01\x08".to_vec();
        committing.extend(std::iter::repeat_n(0xab_u8, 32));
        committing.extend_from_slice(b"more bytes of the proof");
        let mut t = crate::published::output_tree::Tree::default();
        t.put("ledger/anchors/2026-10-24.txt.ots", committing.clone());
        t.put("ledger/anchors/2026-10-25.txt.ots", b"short".to_vec());
        t.put(
            format!("ledger/witness/proofs/{digest}.ots"),
            committing.clone(),
        );
        t.put(
            format!("ledger/witness/proofs/prereg_{digest}.ots"),
            [&committing[..40], b"x"].concat(),
        );
        for with_witness in [true, false] {
            let packed = crate::publication::render::proof_headers(&t, with_witness, None);
            let got = decode_proof_headers(&packed).expect("decodes");
            let mut want = vec![
                (0, "2026-10-24.txt.ots".to_string(), committing.clone()),
                (0, "2026-10-25.txt.ots".to_string(), b"short".to_vec()),
            ];
            if with_witness {
                want.push((1, digest.clone(), committing.clone()));
            }
            want.push((
                2,
                format!("prereg_{digest}.ots"),
                [&committing[..40], b"x"].concat(),
            ));
            let got: Vec<_> = got
                .into_iter()
                .map(|r| {
                    assert_eq!(r.header.len(), (r.length as usize).min(65));
                    (r.kind, r.name, r.header)
                })
                .collect();
            let want: Vec<_> = want
                .into_iter()
                .map(|(k, n, b)| (k, n, b[..b.len().min(65)].to_vec()))
                .collect();
            assert_eq!(got, want, "with_witness {with_witness}");
            // Cut anywhere, the block is refused, never read past its end.
            for cut in 0..packed.len() {
                assert!(
                    decode_proof_headers(&packed[..cut]).is_none_or(|r| cut == 0 && r.is_empty())
                );
            }
        }
    }

    /// The table the page's decoder answers too (tests/js/base64.test.cjs): one rule on both
    /// sides, case for case (issue 48, class 18; docs/page.md "Base64").
    #[test]
    fn base64_answers_the_shared_table() {
        let table: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/vectors/base64.json"
        )))
        .unwrap();
        assert_eq!(table["format"], "exhibit-base64/v1");
        for case in table["cases"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let got = base64(text.as_bytes())
                .ok()
                .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>());
            assert_eq!(
                got.as_deref(),
                case["bytes_hex"].as_str(),
                "{text:?}: {}",
                case["why"]
            );
        }
    }

    #[test]
    fn base64_reads_what_the_build_writes_and_refuses_the_rest() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"abcd", &[0, 255, 128, 7, 9]] {
            let text = crate::published::encode::base64(bytes);
            assert_eq!(base64(text.as_bytes()), Ok(bytes.to_vec()), "{text}");
            let unpadded = text.trim_end_matches('=');
            assert_eq!(base64(unpadded.as_bytes()), Ok(bytes.to_vec()));
        }
        assert_eq!(base64(b"QU JD\n"), Ok(b"ABC".to_vec()));
        for bad in [&b"QUJD="[..], b"Q", b"QU=J", b"QUJ$", b"QUJD===="] {
            assert!(base64(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
