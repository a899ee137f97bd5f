//! Public texts (docs/protocol.md#public-texts, docs/protocol.md#proving-one-message; issue 5): the released bytes of the
//! allow-listed public sends, re-derived from the gate's own copies, guarded, append-only.
//!
//! The stages, in order: read the gate's `config.json`; classify every `send` line (allow-listed,
//! or one class of `off_allow_list`); group the allow-listed lines by `sent_sha256` and re-derive
//! each text from `sources/` (as written, or with the gate's single trailer); fall back to HEAD's
//! copy for a text published before; run the text guard, honouring operator readings from HEAD's
//! committed index and `--allow-text`; refuse what would rewrite history (a published text that
//! newly trips the guard or left the allow-list, a file under `public_texts/` no index lists)
//! unless `--allow-rewrite`; then emit the files, the index, the stats and the page data.
//!
//! Every decision where docs/protocol.md#public-texts is silent is written in `docs/public-texts.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value as J, json};

use super::{Layer, LayerContext, LayerOutput, LayerStats};
use crate::publication::decide::SharedText;
use crate::published::encode::{Count, base64, of, pretty};
use crate::published::output_tree::Content;
use crate::site_write::staged_files::MadeFiles;
use crate::terminal::refusal::Refusal;
use exhibit_protocol::Digest;
use exhibit_protocol::canonical::{Object, Value};
use exhibit_protocol::guard::{self, Finding};

mod files;
mod gate;
mod head;
mod index;
mod rederive;
mod release;

use files::*;
pub use gate::*;
use head::*;
pub use index::*;
use rederive::*;
use release::*;

/// Where the layer's files live inside DIR.
pub const FOLDER: &str = "ledger/public_texts";
pub const INDEX: &str = "ledger/public_texts/index.json";
pub const SCHEMA: &str = "exhibit/public_texts/v1";
pub const NOTE: &str = "These texts are the agent's bytes as they left the gate (each file is named by the sha256 of its own bytes), released because their lines are allow-listed public sends. They are not statements of the lab: the publisher changes none of them, and a word inside one is the agent's, not a claim of the protocol or of this page.";

/// Why a `send` line's text is off the allow-list (docs/protocol.md#public-texts), written as
/// its snake_case word. Ordered by that word, as the index and the counts list the classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffList {
    Canary,
    OperatorDm,
    NotInConfig,
    DestClassNotPublic,
    NoSentBytes,
}

/// Off-list classes, in the order a line is tested against them.
pub const OFF_CLASSES: [OffList; 5] = [
    OffList::Canary,
    OffList::OperatorDm,
    OffList::NotInConfig,
    OffList::DestClassNotPublic,
    OffList::NoSentBytes,
];

impl OffList {
    /// The word the index, the counts and the refusals write.
    pub fn as_str(self) -> &'static str {
        match self {
            OffList::Canary => "canary",
            OffList::OperatorDm => "operator_dm",
            OffList::NotInConfig => "not_in_config",
            OffList::DestClassNotPublic => "dest_class_not_public",
            OffList::NoSentBytes => "no_sent_bytes",
        }
    }
}

impl Ord for OffList {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for OffList {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for OffList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for OffList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What is held by a text's sha256 names it; `seq` orders a text's values.
trait OfText {
    fn sha(&self) -> Digest;
    fn seq(&self) -> i64;
}

/// The public-texts layer: `--public-texts`.
pub struct PublicTexts;

impl Layer for PublicTexts {
    fn folder(&self) -> &'static str {
        "public_texts"
    }

    fn flag(&self) -> &'static str {
        "--public-texts"
    }

    fn build(&self, ctx: &LayerContext<'_>) -> Result<LayerOutput> {
        build(ctx)
    }
}

pub fn build(ctx: &LayerContext<'_>) -> Result<LayerOutput> {
    let plan = ctx.plan;
    let (cfg, sources) = gate_inputs(plan)?;
    let head = read_head(ctx)?;
    crate::terminal::progress::stage_done("public texts: HEAD's index");
    let dir = plan.out.display().to_string();
    let rewrite = plan.allow_rewrite.as_deref();

    let mut classes = classify_lines(ctx, &cfg, &head.published)?;
    crate::terminal::progress::stage_done("public texts: classified");
    let mut out = LayerOutput::default();
    let mut texts = Texts {
        guarded_before: guarded_before(ctx.previous.git_dir()),
        ..Texts::default()
    };
    if part_seqs(ctx).is_some() {
        texts.dir_holds = Some(crate::site_write::dir_record::DirHolds::open(
            ctx.previous.git_dir(),
            &plan.out,
        ));
    }
    // The allow-listed lines are let go as their texts are settled, and the lists by sha once
    // step 3 has read them: at a million lines they are 120 MB, held for nothing while the
    // index is made (docs/scale.md#memory).
    let allow_listed: usize = classes.groups.len();
    // A flag per HEAD text, in HEAD's order: a set of their digests was 32 bytes and more a
    // text, held while every source is read (docs/scale.md#sized-to-what-is-asked).
    let still_listed: Vec<bool> = head
        .published
        .keys()
        .map(|sha| classes.groups.contains(sha))
        .collect();
    let groups = std::mem::take(&mut classes.groups);
    // At most one release per text, made once: a list grown by doubling holds up to half as
    // much again for nothing (docs/scale.md#memory).
    texts.releases.reserve_exact(groups.groups().count());
    // The clean texts' list too: 32 bytes a text, a list grown by doubling held up to twice that
    // on the layer's peak (docs/scale.md#carried-verdicts).
    texts.guarded_now.reserve_exact(groups.groups().count());
    for (sha, lines) in groups.groups() {
        if let Some(found) = text_of(
            sources, &head, &sha, lines, &dir, rewrite, &mut texts, &mut out,
        )? {
            guard_and_release(
                ctx, &head, &classes, &sha, lines, found, &dir, &mut texts, &mut out,
            )?;
        }
    }
    // The releases' walk through DIR's record is done: DIR's copies are compared below. The
    // allow-listed lines by sha were read by that walk alone: let go now, not when the layer
    // returns (25 MB at a million lines, on the layer's peak: docs/scale.md#texts-listed).
    texts.dir_holds = None;
    drop(groups);
    no_longer_allow_listed(
        &head,
        &classes,
        &still_listed,
        &dir,
        rewrite,
        &mut texts,
        &mut out,
    );
    crate::terminal::progress::stage_done("public texts: sources read and guarded");
    classes.off_by_sha = BySha::default();
    classes.class_of_sha = BTreeMap::new();
    let disk = unlisted_files(
        plan,
        &classes.off,
        part_seqs(ctx),
        &head,
        &dir,
        rewrite,
        &mut texts,
        &mut out,
    )?;
    crate::terminal::progress::stage_done("public texts: unlisted files");
    disk_copies(ctx, &disk, &head, &dir, &mut texts, &mut out)?;
    // HEAD's index and DIR's names are not needed to finish: let go before the index is made.
    drop(disk);
    drop(head);
    // Nor HEAD's folder listings, which the reads of HEAD's texts by path filled (the
    // `public_texts/` folder's is 25 MB at a million lines); a later read lists again.
    ctx.previous.let_go_of_listings();
    crate::terminal::progress::stage_done("public texts: DIR's copies");
    for sha in &plan.allow_text {
        if !texts.allow_text_used.contains(sha) {
            out.notes.push(format!(
                "public texts: --allow-text {sha} names no text this build withholds; nothing to release on it"
            ));
        }
    }
    texts.guarded_before = Vec::new();
    out.carried.extend(guarded_carried(
        ctx.previous.git_dir(),
        std::mem::take(&mut texts.guarded_now),
    ));
    // A segmented exhibit's index parts that DIR already holds are named as DIR's files.
    let holds = part_seqs(ctx)
        .map(|_| crate::site_write::dir_record::DirHolds::open(ctx.previous.git_dir(), &plan.out));
    finish(
        ctx.verified.lines.len(),
        &classes,
        allow_listed,
        texts,
        rewrite,
        part_seqs(ctx).zip(holds),
        ctx.made.filter(|_| ctx.segmented),
        out,
    )
}

/// `STATS.json`'s `public_texts` (and each `SNAPSHOTS.jsonl` line's), also the index's
/// `counts`: every count with its denominator. Fields alphabetical, as the files have always
/// been written (serde_json keeps no insertion order; a test checks the order).
#[derive(Debug, Clone, Serialize)]
pub struct TextsStats {
    allow_listed: Count,
    off_allow_list: BTreeMap<OffList, Count>,
    public_send_lines: Count,
    published: Count,
    #[serde(skip_serializing_if = "Option::is_none")]
    rewrite_reason: Option<String>,
    send_lines: Count,
    send_lines_withheld_by_line_rules: Count,
    texts: TextCounts,
    unreconstructable: Count,
    withheld: Count,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_s_source_is_written_as_the_index_always_named_it() {
        // Catches a source written in another shape than the string it replaced (the index's
        // bytes would change for every released text): the gate's two file names and HEAD.
        let d = Digest::of(b"x");
        let written = |s: TextSource| serde_json::to_string(&s).unwrap();
        assert_eq!(written(TextSource::Md(d)), format!("\"sources/{d}.md\""));
        assert_eq!(
            written(TextSource::DraftMd(d)),
            format!("\"sources/{d}.draft.md\"")
        );
        assert_eq!(written(TextSource::Head), "\"HEAD\"");
        assert_eq!(TextSource::Head.file_name(), None);
    }

    #[test]
    fn a_dry_run_names_an_index_part_dir_holds_without_its_record_and_holds_any_other() {
        // A dry run after a checkout (no record, no folder of made files): a part DIR holds with
        // the same bytes is DIR's file, not bytes held (73 MB of parts at a million lines:
        // docs/scale.md#without-dirs-record-dry-run). Caught: a copy taken on its size alone, one
        // through a symlink, and the part held as bytes although DIR holds it.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let folder = dir.join("ledger/public_texts/index");
        std::fs::create_dir_all(&folder).unwrap();
        let part = |n: u8| {
            (
                format!("ledger/public_texts/index/00000{n}.json"),
                vec![b'a' + n; 40],
            )
        };
        let (same, changed, linked, absent) = (part(1), part(2), part(3), part(4));
        std::fs::write(dir.join(&same.0), &same.1).unwrap();
        std::fs::write(dir.join(&changed.0), vec![b'z'; 40]).unwrap();
        std::fs::write(tmp.path().join("elsewhere"), &linked.1).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), dir.join(&linked.0)).unwrap();
        let mut out = LayerOutput::default();
        let mut holds = crate::site_write::dir_record::DirHolds::open(None, &dir);
        for (path, bytes) in [same.clone(), changed, linked, absent] {
            let sha256 = Digest::of(&bytes);
            put_part(&mut out, &mut holds, None, path, bytes, sha256).unwrap();
        }
        let named: Vec<&str> = out.contents.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(named, [same.0.as_str()]);
        let Content::File(file) = &out.contents[0].1 else {
            panic!("{:?}", out.contents[0].1)
        };
        assert_eq!(file.read().unwrap(), same.1);
        let held: Vec<u8> = out
            .files
            .iter()
            .map(|(p, _)| p.as_bytes()[p.len() - 6])
            .collect();
        assert_eq!(held, b"234");
    }

    fn h(c: char) -> String {
        std::iter::repeat_n(c, 64).collect()
    }

    /// Catches a folder's names held by digest that takes a name the build never writes for a
    /// text's (upper-case hex, a sub-folder's, a second suffix) as that text's: such a file
    /// must stay a stray, refused, not pass as listed.
    #[test]
    fn folder_names_hold_a_texts_name_by_its_digest_and_nothing_else_as_it() {
        let a = h('a');
        let names: FolderNames = [
            format!("{a}.txt"),
            format!("{}.txt", h('A')),
            format!("sub/{a}.txt"),
            format!("{a}.txt.txt"),
            "index.json".to_string(),
            format!("{a}.txt"),
        ]
        .into_iter()
        .collect();
        assert_eq!(names.texts.len(), 1);
        assert!(names.contains(&format!("{a}.txt")));
        assert!(names.contains(&format!("{}.txt", h('A'))));
        assert!(!names.contains(&format!("{}.txt", h('b'))));
        assert!(!names.contains(&format!("{}.TXT", a)));
        let mut listed: Vec<String> = names.names().collect();
        listed.sort();
        let mut want = vec![
            format!("{a}.txt"),
            format!("{}.txt", h('A')),
            format!("sub/{a}.txt"),
            format!("{a}.txt.txt"),
            "index.json".to_string(),
        ];
        want.sort();
        assert_eq!(listed, want);
        assert_eq!(text_name(&format!("{}.txt", h('A'))), None);
    }

    /// Catches an unstable sort (a text's lines out of seq order: its first line, the one the
    /// index names, would change), a lookup that runs over into the next text or misses the
    /// first or last, and groups split or merged.
    #[test]
    fn values_by_sha_keep_each_texts_push_order_and_its_bounds() {
        let sha = |c: char| h(c).parse::<Digest>().unwrap();
        let mut by = BySha::default();
        // Interleaved, with many equal keys so a sort that is not stable shows it.
        for seq in 0..200_i64 {
            let text = ['7', '2', 'c', '2', 'f', '7'][(seq % 6) as usize];
            by.push(OffListSeq {
                sent: sha(text),
                seq,
            });
        }
        by.sort();
        assert_eq!(by.len(), 200);
        for (text, first) in [('7', 0), ('2', 1), ('c', 2), ('f', 4)] {
            let seqs: Vec<i64> = by.get(&sha(text)).iter().map(|o| o.seq).collect();
            let want: Vec<i64> = (0..200)
                .filter(|s| ['7', '2', 'c', '2', 'f', '7'][(s % 6) as usize] == text)
                .collect();
            assert_eq!(seqs, want, "{text}");
            assert_eq!(seqs[0], first);
            assert!(by.contains(&sha(text)));
        }
        for absent in ['0', '5', 'd', 'e'] {
            assert!(by.get(&sha(absent)).is_empty());
            assert!(!by.contains(&sha(absent)));
        }
        let groups: Vec<(Digest, usize)> = by.groups().map(|(s, g)| (s, g.len())).collect();
        assert_eq!(
            groups,
            [('2', 67), ('7', 67), ('c', 33), ('f', 33)].map(|(c, n)| (sha(c), n))
        );
        by.retain(|s| *s != sha('7'));
        assert!(!by.contains(&sha('7')));
        assert_eq!(by.get(&sha('c')).len(), 33);
    }

    #[test]
    fn trailer_form_is_the_gates() {
        assert_eq!(
            with_trailer(b"hi\n\n", &trailer(1, 2, 7)),
            "hi\n\n[gate: 1 of 2 numerals bound \u{b7} ledger 0007]".as_bytes()
        );
        assert_eq!(
            trailer(0, 0, 12345),
            "[gate: 0 of 0 numerals bound \u{b7} ledger 12345]"
        );
    }

    #[test]
    fn config_rejects_the_canary_or_dm_as_a_group() {
        let ok = format!(
            r#"{{"anchor_channel_hash":"{}","canary_hash":"{}","group_hashes":["{}"],"operator_dm_hash":"{}","words":[1]}}"#,
            h('a'),
            h('c'),
            h('b'),
            h('d')
        );
        let cfg = GateConfig::parse(ok.as_bytes()).unwrap();
        assert!(
            cfg.allows(&h('a').parse().unwrap())
                && cfg.allows(&h('b').parse().unwrap())
                && !cfg.allows(&h('c').parse().unwrap())
                && !cfg.allows(&h('e').parse().unwrap())
        );
        let bad = ok.replace(&format!("[\"{}\"]", h('b')), &format!("[\"{}\"]", h('c')));
        assert!(
            GateConfig::parse(bad.as_bytes())
                .unwrap_err()
                .contains("canary")
        );
        assert!(
            GateConfig::parse(b"{}")
                .unwrap_err()
                .contains("anchor_channel_hash")
        );
        assert!(GateConfig::parse(b"[").is_err());
    }

    #[test]
    fn index_and_counts_are_written_with_sorted_keys() {
        use crate::published::encode::keys_sorted;
        let counts = TextsStats {
            allow_listed: of(1, 2),
            off_allow_list: OFF_CLASSES.iter().map(|c| (*c, of(0, 2))).collect(),
            public_send_lines: of(2, 2),
            published: of(1, 1),
            rewrite_reason: Some("why".into()),
            send_lines: of(2, 3),
            send_lines_withheld_by_line_rules: of(0, 2),
            texts: TextCounts {
                allowed_by_operator: of(0, 1),
                carried_from_previous_build: of(0, 1),
                dropped: of(0, 1),
                published: 1,
            },
            unreconstructable: of(0, 1),
            withheld: of(0, 1),
        };
        let text = PublishedText {
            bytes: 2,
            day: "2026-11-08".into(),
            form: Form::Derived {
                copy: GateCopy::Checked,
                trailer: true,
            },
            seqs: OtherSeqs::new(vec![], vec![3]),
            sent_sha256: Digest::of(b"hi"),
            seq: 2,
            source: TextSource::Md(Digest::of(b"x")),
        };
        let seqs = [4];
        let withheld = [WithheldText {
            day: "2026-11-08".into(),
            other_seqs: vec![],
            reasons: vec!["email".into()],
            role: Form::Derived {
                copy: GateCopy::Draft,
                trailer: false,
            },
            sent_sha256: Digest::of(b"w"),
            seq: 5,
            why: "the text holds an email address".into(),
        }];
        let unreconstructable = [Unreconstructable::new(
            6,
            &Digest::of(b"u"),
            "no_source_file",
            "none of x.md is in the gate's sources",
        )];
        assert!(keys_sorted(&withheld) && keys_sorted(&unreconstructable));
        let index = TextsIndex {
            allowed_by_operator: &[],
            counts: &counts,
            dropped: &[],
            note: NOTE,
            off_allow_list: OFF_CLASSES
                .iter()
                .map(|c| {
                    (
                        *c,
                        OffClass {
                            count: 1,
                            seqs: &seqs,
                        },
                    )
                })
                .collect(),
            published: vec![&text],
            schema: SCHEMA,
            unreconstructable: &unreconstructable,
            withheld: &withheld,
        };
        assert!(keys_sorted(&counts) && keys_sorted(&text) && keys_sorted(&index));
        // A published text is written as it always was: the file named from its digest, both
        // lists of other seqs present, each in its place (caught: the lists swapped, or one
        // left out when the other is empty).
        let (h, x) = (Digest::of(b"hi"), Digest::of(b"x"));
        let entry = |seqs: OtherSeqs| {
            serde_json::to_string(&PublishedText {
                seqs,
                ..text.clone()
            })
            .unwrap()
        };
        let shape = |off: &str, other: &str| {
            format!(
                r#"{{"bytes":2,"day":"2026-11-08","file":"{h}.txt","form":"checked+trailer","off_list_seqs":[{off}],"other_seqs":[{other}],"sent_sha256":"{h}","seq":2,"source":"sources/{x}.md"}}"#
            )
        };
        assert_eq!(serde_json::to_string(&text).unwrap(), shape("", "3"));
        assert_eq!(entry(OtherSeqs::new(vec![7, 9], vec![])), shape("7,9", ""));
        assert_eq!(entry(OtherSeqs::default()), shape("", ""));
        // The form and the off-list classes are written as the words they always were.
        let written = serde_json::to_string(&index).unwrap();
        assert!(written.contains(r#""form":"checked+trailer""#), "{written}");
        assert!(
            written.contains(
                r#""off_allow_list":{"canary":{"count":1,"seqs":[4]},"dest_class_not_public":"#
            ),
            "{written}"
        );
    }

    #[test]
    fn crlf_is_folded() {
        assert_eq!(crlf_to_lf(b"a\r\nb\rc\r\n"), b"a\nb\rc\n");
    }
}
