//! `exhibit verify SITE`: every released text against the published send lines
//! (docs/scale.md#texts-without-a-line). A text is filed under the `sent_sha256` of the line that
//! sent it; one that no published send line carries was never shown to have been sent, whatever
//! its bytes hash to, so the page would list among the released texts words the ledger does not
//! vouch for. The page checks the texts it carries the same way (`renderTextsCheck` in
//! assets/page.js).

use exhibit_protocol::Digest;
use exhibit_protocol::verify::Entry;

use crate::site_check::outcome::FileProblem;

/// The names of `public_texts/`' texts, listed once (docs/scale.md#read-once), each digest
/// marked once a published send line carries it: 33 bytes a text, held while the ledger streams.
pub struct TextLines {
    /// The `<digest>.txt` names, as digests: sorted, without repeats.
    names: Vec<Digest>,
    claimed: Vec<bool>,
    /// The first published send line's seq that carries each name (docs/tree.md#excerpts).
    first: Vec<Option<u64>>,
    /// The other `.txt` names, sorted: each already fails as a text that does not hash to its
    /// name; none can be claimed.
    others: Vec<String>,
}

impl TextLines {
    /// The `.txt` names of `public_texts/` (its index and index parts are checked elsewhere).
    pub fn of_names(names: impl Iterator<Item = String>) -> TextLines {
        let mut t = TextLines {
            names: Vec::new(),
            claimed: Vec::new(),
            first: Vec::new(),
            others: Vec::new(),
        };
        names.for_each(|n| t.add(n));
        t.sorted()
    }

    /// The folder's texts, listed once, one name at a time (a digest is kept, not its name).
    pub fn of_folder(
        folder: Option<&crate::operator_box::read::BoxFolder>,
    ) -> anyhow::Result<TextLines> {
        let mut t = TextLines::of_names(std::iter::empty());
        if let Some(folder) = folder {
            folder.visit(|l| t.add(l.name))?;
        }
        Ok(t.sorted())
    }

    fn add(&mut self, name: String) {
        match name.strip_suffix(".txt").map(str::parse::<Digest>) {
            Some(Ok(d)) => self.names.push(d),
            Some(Err(_)) => self.others.push(name),
            None => {}
        }
    }

    fn sorted(mut self) -> TextLines {
        self.names.sort_unstable();
        self.names.dedup();
        self.others.sort_unstable();
        self.claimed = vec![false; self.names.len()];
        self.first = vec![None; self.names.len()];
        self
    }

    /// Every text's file name, in name order (lowercase hex sorts as its bytes do).
    pub fn file_names(&self) -> impl Iterator<Item = String> + '_ {
        let mut digests = self.names.iter().map(|d| format!("{d}.txt")).peekable();
        let mut others = self.others.iter().peekable();
        std::iter::from_fn(move || match (digests.peek(), others.peek()) {
            (Some(d), Some(o)) if o.as_str() < d.as_str() => others.next().cloned(),
            (Some(_), _) => digests.next(),
            (None, _) => others.next().cloned(),
        })
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
            if let Some(seq) = entry.seq.and_then(|s| u64::try_from(s).ok()) {
                self.first[at].get_or_insert(seq);
            }
        }
    }

    /// The seq of the first published send line that carries this text, if one does.
    pub fn first_seq(&self, text: &Digest) -> Option<u64> {
        let at = self.names.binary_search(text).ok()?;
        self.first[at]
    }

    /// One problem for each text no published send line carries.
    pub fn finish(self, problems: &mut Vec<FileProblem>) {
        for (name, claimed) in self.names.iter().zip(self.claimed.iter().copied()) {
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
        let mut t = TextLines::of_names(names.iter().cloned());
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

    #[test]
    fn every_txt_name_is_listed_once_in_name_order() {
        let [a, b] = [b"a", b"b"].map(|w| Digest::of(w).to_string());
        let names = [
            format!("{b}.txt"),
            "zz.txt".to_string(),
            format!("{a}.txt"),
            "0.txt".to_string(),
            "index.json".to_string(),
            "A.TXT".to_string(),
            format!("{}.txt", a.to_uppercase()),
        ];
        let mut want: Vec<String> = names
            .iter()
            .filter(|n| n.ends_with(".txt"))
            .cloned()
            .collect();
        want.sort();
        let t = TextLines::of_names(names.into_iter());
        assert_eq!(t.file_names().collect::<Vec<_>>(), want);
    }
}
