//! Which crate folds the look-alikes the identifier guard must see through, which damages the
//! ASCII identifiers are made of, and at what cost (docs/guard.md#why-these-crates).

use unicode_normalization::UnicodeNormalization;

fn nfkc(c: char) -> String { c.to_string().nfkc().collect() }
fn skel(c: char) -> String {
    let k = nfkc(c);
    k.chars().map(|d| if d.is_ascii() { d.to_string() } else {
        let s: String = unicode_security::confusable_detection::skeleton(&d.to_string()).collect();
        if s.chars().count() == 1 && s.is_ascii() { s } else { d.to_string() }
    }).collect()
}
fn skel_whole(c: char) -> String { unicode_security::confusable_detection::skeleton(&c.to_string()).collect() }
fn dec(c: char) -> String {
    match decancer::cure_char(c, decancer::Options::default()) {
        decancer::Translation::Character(x) => x.to_string(),
        decancer::Translation::String(s) => s.to_string(),
        decancer::Translation::None => String::new(),
    }
}

fn main() {
    // (look-alike, the ASCII it must read as)
    let must: &[(char, &str)] = &[
        ('\u{0421}', "C"), ('\u{03BF}', "o"), ('\u{043E}', "o"), ('\u{0435}', "e"), ('\u{04BB}', "h"),
        ('\u{0455}', "s"), ('\u{0430}', "a"), ('\u{0440}', "p"), ('\u{03C5}', "u"), ('\u{216D}', "C"),
        ('\u{2215}', "/"), ('\u{2044}', "/"), ('\u{FF0F}', "/"), ('\u{29F5}', "\\"), ('\u{2216}', "\\"),
        ('\u{FE68}', "\\"), ('\u{FF3C}', "\\"), ('\u{2236}', ":"), ('\u{A789}', ":"), ('\u{FF1A}', ":"),
        ('\u{FE55}', ":"), ('\u{3002}', "."), ('\u{FF61}', "."), ('\u{FF0E}', "."), ('\u{FE52}', "."),
        ('\u{FE6B}', "@"), ('\u{FF20}', "@"), ('\u{2460}', "1"), ('\u{2776}', "1"), ('\u{0665}', "5"),
        ('\u{06F5}', "5"), ('\u{096B}', "5"), ('\u{0E55}', "5"), ('\u{1D7D7}', "9"), ('\u{2075}', "5"),
        ('\u{FF15}', "5"), ('\u{2010}', "-"), ('\u{2013}', "-"), ('\u{2212}', "-"), ('\u{FF0B}', "+"),
        ('\u{1369}', "1"), ('\u{24FF}', "0"),
    ];
    // ASCII that must stay itself (digits and the characters identifiers are made of)
    let keep: Vec<char> = "0123456789@./\\:-+_mMlI1Oo".chars().collect();
    for (name, f) in [("nfkc", nfkc as fn(char) -> String), ("nfkc+skeleton(non-ASCII only)", skel), ("skeleton (whole)", skel_whole), ("decancer", dec)] {
        let ok: Vec<_> = must.iter().filter(|(c, want)| f(*c).eq_ignore_ascii_case(want)).collect();
        let miss: Vec<String> = must.iter().filter(|(c, want)| !f(*c).eq_ignore_ascii_case(want)).map(|(c, _)| format!("U+{:04X}->{:?}", *c as u32, f(*c))).collect();
        let changed: Vec<String> = keep.iter().filter(|&&c| f(c) != c.to_string()).map(|&c| format!("{c:?}->{:?}", f(c))).collect();
        // speed: 200k mixed characters
        let text: Vec<char> = (0..200_000u32).map(|i| must[(i as usize * 7) % must.len()].0).chain("owner@example.com 2026-11-08 ".chars().cycle().take(200_000)).collect();
        let t = std::time::Instant::now();
        let mut n = 0usize;
        for &c in &text { n += f(c).len(); }
        let el = t.elapsed();
        println!("{name}: folds {}/{} look-alikes; misses {:?}; ASCII changed {:?}; {:.1} ns/char ({n})", ok.len(), must.len(), miss, changed, el.as_nanos() as f64 / text.len() as f64);
    }
}
