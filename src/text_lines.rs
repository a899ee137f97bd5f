//! `exhibit verify SITE`: every released text against the published send lines
//! (docs/scale.md#texts-without-a-line). A text is filed under the `sent_sha256` of the line that
//! sent it; one that no published send line carries was never shown to have been sent, whatever
//! its bytes hash to, so the page would list among the released texts words the ledger does not
//! vouch for. The page checks the texts it carries the same way (`renderTextsCheck` in
//! assets/page.js).

use exhibit_protocol::Digest;
use exhibit_protocol::verify::Entry;

use crate::outcome::FileProblem;

/// The released texts' digests, each marked once a published send line carries it: 33 bytes a
/// text, held while the ledger streams.
pub struct TextLines {
    /// Sorted, without repeats.
    names: Vec<Digest>,
    claimed: Vec<bool>,
}

impl TextLines {
    /// The names of `public_texts/` that are `<digest>.txt`; any other name already fails as a
    /// text that does not hash to its name, or as a stray.
    pub fn of_names<'a>(names: impl Iterator<Item = &'a str>) -> TextLines {
        let mut names: Vec<Digest> = names
            .filter_map(|n| n.strip_suffix(".txt"))
            .filter_map(|stem| stem.parse::<Digest>().ok())
            .collect();
        names.sort_unstable();
        names.dedup();
        let claimed = vec![false; names.len()];
        TextLines { names, claimed }
    }

    /// A published line: a `send` line claims the text filed under its `sent_sha256`.
    pub fn entry(&mut self, entry: &Entry<'_>) {
        if self.names.is_empty() || entry.object.get_str("kind") != Some("send") {
            return;
        }
        let Some(sent) = entry.object.get_str("sent_sha256") else {
            return;
        };
        if let Ok(d) = sent.parse::<Digest>()
            && let Ok(at) = self.names.binary_search(&d)
        {
            self.claimed[at] = true;
        }
    }

    /// One problem for each text no published send line carries.
    pub fn finish(self, problems: &mut Vec<FileProblem>) {
        for (name, claimed) in self.names.iter().zip(self.claimed) {
            if !claimed {
                problems.push(FileProblem {
                    file: format!("ledger/public_texts/{name}.txt"),
                    code: "text_without_line".into(),
                    detail: "no published send line carries this sent_sha256: a released text is filed under the sent_sha256 of the line that sent it".into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use exhibit_protocol::verify::{Pass, Withheld, verify_reader};

    /// The problems of a ledger's lines after a header, against the texts named.
    fn unclaimed(lines: &[String], names: &[String]) -> Vec<String> {
        let mut ledger = String::from("{\"kind\":\"header\"}\n");
        for l in lines {
            ledger.push_str(l);
            ledger.push('\n');
        }
        let mut t = TextLines::of_names(names.iter().map(String::as_str));
        verify_reader(
            ledger.as_bytes(),
            &Withheld::default(),
            Pass::Entries(&mut |e, _| t.entry(e)),
        )
        .unwrap();
        let mut p = Vec::new();
        t.finish(&mut p);
        p.into_iter().map(|p| p.file).collect()
    }

    #[test]
    fn a_text_is_claimed_by_a_send_lines_sent_sha256_alone() {
        let [a, b, c] = [b"a", b"b", b"c"].map(|w| Digest::of(w).to_string());
        let file = |d: &str| format!("ledger/public_texts/{d}.txt");
        let names = [a.clone(), b.clone(), c.clone()].map(|d| format!("{d}.txt"));
        let lines = [
            format!(r#"{{"seq":1,"kind":"send","sent_sha256":"{a}"}}"#),
            // Another digest field of a send line does not claim a text.
            format!(r#"{{"seq":2,"kind":"send","checked_sha256":"{b}"}}"#),
            // Nor does a line of another kind.
            format!(r#"{{"seq":3,"kind":"note","sent_sha256":"{c}"}}"#),
        ];
        let mut want = vec![file(&b), file(&c)];
        want.sort();
        assert_eq!(unclaimed(&lines, &names), want);
        // Uppercase is another spelling, not the text's digest; a name that is not a digest is
        // left to the name check.
        let upper = format!(
            r#"{{"seq":4,"kind":"send","sent_sha256":"{}"}}"#,
            b.to_uppercase()
        );
        let odd = vec![format!("{a}.txt"), format!("{b}.txt"), "notes.txt".into()];
        assert_eq!(unclaimed(&[lines[0].clone(), upper], &odd), vec![file(&b)]);
        assert!(unclaimed(&lines[..1], &[]).is_empty());
    }
}
