//! A passage whose lookup key and contexts more released texts share than the page reads
//! (docs/tree.md#excerpts, docs/page.md "Prove one message on a light page"): the page checks
//! the first 16 by the text map, reads no line for them, names the rest as not read
//! (`data-excerpt="crowded"`) and asks for more words; a longer paste's other kept keys narrow
//! the seqs to the one that holds it. The crowd is made by adding rows to the lookup's bucket
//! (the generated box has no key so widely shared once contexts apply).

use exhibit_protocol::excerpt;
use exhibit_protocol::tree::TreeFile;

use crate::excerpt_page::{answer, build, candidates, cli_seq, paste_reads, released, size};
use crate::light_page::Server;

/// A run of 20 words of a released text, filed at a seq with at least 20 released texts before
/// it, whose least key is that of its middle 12 words and which has another kept key: (the 12
/// words, the 20 words, the seq).
fn runs(site: &std::path::Path, n: u64, texts: &[(String, String)]) -> (String, String, u64) {
    for (sha, text) in texts {
        let w = excerpt::words(text);
        for at in 0..w.len().saturating_sub(19) {
            let long = w[at..at + 20].join(" ");
            let short = w[at + 4..at + 16].join(" ");
            let (Some(l), Some(s)) = (excerpt::lookup(&long), excerpt::lookup(&short)) else {
                continue;
            };
            let others = excerpt::winnowed(&excerpt::shingle_keys(&w[at..at + 20]));
            if l.key != s.key || others.len() < 2 {
                continue;
            }
            let named = candidates(site, n, s.key, (s.before, s.after));
            let Some(&(seq, _)) = named.iter().find(|(_, t)| t.as_deref() == Some(sha)) else {
                continue;
            };
            if named.len() == 1 && seq > 600 && cli_seq(site, &long) == Some(seq) {
                return (short, long, seq);
            }
        }
    }
    panic!("no run of 20 words with its middle's key and another kept key");
}

#[test]
fn a_crowded_passage_asks_for_more_words_and_more_words_find_it() {
    // Catches: a page that reads every candidate's line when the key is crowded (1.5 MB at a
    // million lines before this), or that reads past 16 texts; one that says a crowded key is a
    // plain miss (no "paste more" and data-excerpt missed); one that never narrows a longer
    // paste by its other keys (the 20 words would be crowded too).
    let s = build();
    let n = size(&s.site);
    let texts = released(&s.site);
    let (short, long, seq) = runs(&s.site, n, &texts);
    let l = excerpt::lookup(&short).unwrap();
    // 24 other seqs with a released text, before the true one, whose texts do not hold the
    // words: rows of the same key and contexts in the lookup's first bucket.
    let read_map = |q: u64| {
        let f = excerpt::text_map_file(n, q).unwrap();
        let b = std::fs::read(s.site.join("ledger/tree").join(f.path())).unwrap();
        excerpt::text_map_digest(&b, q).unwrap()
    };
    let crowd: Vec<u64> = (1..seq)
        .filter(|&q| {
            read_map(q).is_some_and(|d| {
                texts
                    .iter()
                    .find(|(h, _)| *h == d.to_string())
                    .is_some_and(|(_, t)| excerpt::place_in(t, &short).is_none())
            })
        })
        .take(24)
        .collect();
    assert_eq!(crowd.len(), 24, "24 released texts before seq {seq}");
    let bucket: TreeFile = excerpt::excerpt_lookup(n, l.key)[0].clone();
    let path = s.site.join("ledger/tree").join(bucket.path());
    let good = std::fs::read(&path).unwrap();
    let mut crowded = good.clone();
    // The true row's own contexts (the 20 words hold both), so that no context tells the crowd
    // from the true seq: only the 20 words' other keys can.
    let both = excerpt::lookup(&long).unwrap();
    assert!(both.before.is_some() && both.after.is_some(), "{both:?}");
    let ctx = (u64::from(both.before.unwrap()) << 48) | (u64::from(both.after.unwrap()) << 32);
    for q in &crowd {
        crowded.extend_from_slice(&l.key.to_be_bytes());
        crowded.extend_from_slice(&(ctx | q).to_be_bytes());
    }
    std::fs::write(&path, &crowded).unwrap();
    let server = Server::start(&s.site);

    let (f, read) = paste_reads(&server, &short);
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "none", "{r}\n{}", answer(&f));
    assert_eq!(r["data-excerpt"], "crowded", "{r}");
    let dom = f["dom"].as_str().unwrap();
    assert!(
        dom.contains("paste more of the message"),
        "asks for more words"
    );
    assert!(
        read.iter()
            .all(|(p, _)| !p.starts_with("ledger/tree/lines/")),
        "no line read for a crowd: {read:?}"
    );
    let texts_read = read
        .iter()
        .filter(|(p, _)| p.starts_with("ledger/public_texts/"))
        .count();
    assert!(texts_read <= 16, "at most 16 texts: {texts_read}");
    let bytes: u64 = read.iter().map(|(_, b)| b).sum();
    assert!(bytes < 512 * 1024, "{bytes} bytes");

    // The 20 words around them: the same least key and contexts, narrowed by another key.
    let (f, read) = paste_reads(&server, &long);
    std::fs::write(&path, &good).unwrap();
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "excerpt", "{r}\n{}", answer(&f));
    assert_eq!(r["data-seq"], seq.to_string(), "{r}");
    assert_eq!(r["data-proof"], "included", "{r}");
    assert_eq!(
        read.iter()
            .filter(|(p, _)| p.starts_with("ledger/public_texts/"))
            .count(),
        1,
        "narrowed to the one text: {read:?}"
    );
}
