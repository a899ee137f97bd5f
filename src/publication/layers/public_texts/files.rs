//! The released texts as files under `public_texts/`: written once under their sha256, the ones DIR
//! already holds compared without reading, and files no index lists refused (docs/public-texts.md).

use super::*;

/// One text of the index's `published` list, written with its keys sorted, as the index has
/// always been (serde_json keeps no insertion order). Its file's name is written from its
/// digest, and its other seqs, which most texts have none of, are one pointer: 104 bytes a
/// text where they were 176 (190,000 texts held at once at a million lines:
/// docs/scale.md#sized-to-what-is-asked).
#[derive(Debug, Clone)]
pub(super) struct PublishedText {
    pub(super) bytes: usize,
    pub(super) day: SharedText,
    pub(super) form: Form,
    pub(super) seqs: OtherSeqs,
    pub(super) sent_sha256: Digest,
    pub(super) seq: i64,
    pub(super) source: TextSource,
}

impl Serialize for PublishedText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PublishedText", 9)?;
        st.serialize_field("bytes", &self.bytes)?;
        st.serialize_field("day", &self.day)?;
        st.serialize_field("file", &TextFileName(self.sent_sha256))?;
        st.serialize_field("form", &self.form)?;
        st.serialize_field("off_list_seqs", self.seqs.off_list())?;
        st.serialize_field("other_seqs", self.seqs.other())?;
        st.serialize_field("sent_sha256", &self.sent_sha256)?;
        st.serialize_field("seq", &self.seq)?;
        st.serialize_field("source", &self.source)?;
        st.end()
    }
}

/// A released text's other seqs: the off-list lines that carry it and its other allow-listed
/// lines; nothing held when there are none.
#[derive(Debug, Clone, Default)]
pub(super) struct OtherSeqs(Option<Box<[Vec<i64>; 2]>>);

impl OtherSeqs {
    pub(super) fn new(off_list: Vec<i64>, other: Vec<i64>) -> OtherSeqs {
        if off_list.is_empty() && other.is_empty() {
            return OtherSeqs(None);
        }
        OtherSeqs(Some(Box::new([off_list, other])))
    }

    pub(super) fn off_list(&self) -> &[i64] {
        self.0.as_ref().map_or(&[], |s| &s[0])
    }

    pub(super) fn other(&self) -> &[i64] {
        self.0.as_ref().map_or(&[], |s| &s[1])
    }
}

/// A released text's file name, `<sha256>.txt`: written from the digest when the index is, not
/// held as a string per text (docs/scale.md#memory).
#[derive(Debug, Clone, Copy)]
pub(super) struct TextFileName(pub(super) Digest);

impl Serialize for TextFileName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}.txt", self.0))
    }
}

pub(super) fn file_of(dir: &str, sha: &Digest) -> String {
    format!("{dir}/{FOLDER}/{sha}.txt")
}

/// Step 4: files under public_texts/ that no index lists (on disk, or at HEAD). Returns the
/// files on disk.
#[allow(clippy::too_many_arguments)]
pub(super) fn unlisted_files(
    plan: &crate::publication::BuildPlan,
    off: &BTreeMap<OffList, Vec<i64>>,
    part_seqs: Option<u64>,
    head: &HeadState,
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<FolderNames> {
    // The texts' names are compared by their digests (docs/scale.md#giving-memory-back).
    let mut released: Vec<Digest> = texts.releases.iter().map(Release::sha).collect();
    released.sort_unstable();
    // The index's parts this build writes (docs/public-texts.md#parts); a part HEAD or DIR
    // holds that this build does not write is a stray like any other file.
    let part_names: BTreeSet<String> = match part_seqs {
        Some(k) => part_numbers(off, texts, k)
            .map(|n| format!("index/{n:06}.json"))
            .collect(),
        None => BTreeSet::new(),
    };
    let listed = |name: &str| match text_name(name) {
        Some(sha) => released.binary_search(&sha).is_ok() || head.published.contains_key(&sha),
        None => name == "index.json" || part_names.contains(name),
    };
    let disk_dir = plan.out.join(FOLDER);
    let disk = disk_names(&disk_dir)?;
    let mut strays: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for name in disk.names().filter(|n| !listed(n)) {
        strays.insert((name, "on disk"));
    }
    for name in head.files.names().filter(|n| !listed(n)) {
        strays.insert((name, "at HEAD"));
    }
    for (name, place) in &strays {
        if let Some(reason) = rewrite {
            if *place == "at HEAD" {
                texts.dropped.push(json!({"file": name, "reason": "not_listed_by_any_index", "rewrite_reason": reason}));
            }
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} ({place}) is listed by no index; removed (--allow-rewrite)"
            ));
        } else {
            out.refusals.push(Refusal::new(
"text_stray_file",
                format!("{dir}/{FOLDER}/{name}"),
                "",
                format!("a file under public_texts/ ({place}) that neither HEAD's index nor this build's lists (docs/protocol.md#public-texts)"),
                "remove the file, or --allow-rewrite REASON",
            ));
        }
    }
    Ok(disk)
}

/// Step 5: disk copies that differ from the released bytes are rewritten from memory, said.
/// A copy is compared by DIR's record when its stat data is unchanged since the last build
/// wrote it, else read, one at a time (docs/scale.md#comparing-without-reading): the texts on
/// disk are never all held at once. On a segmented exhibit (its page carries no text) a text
/// DIR holds is named as DIR's file and its bytes let go (docs/scale.md#memory).
pub(super) fn disk_copies(
    ctx: &LayerContext<'_>,
    disk: &FolderNames,
    head: &HeadState,
    dir: &str,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<()> {
    let mut holds =
        crate::site_write::dir_record::DirHolds::open(ctx.previous.git_dir(), &ctx.plan.out);
    let mut folders = crate::site_write::dir_folders::OpenFolders::existing(&ctx.plan.out);
    let folder = crate::operator_box::read::BoxFolder::named(&ctx.plan.out.join(FOLDER))?;
    let let_go = part_seqs(ctx).is_some();
    if let_go {
        texts.dir_folder = Some(ctx.plan.out.join(FOLDER).into());
    }
    // DIR's copy is named, not the one written into the build's folder of made files (which
    // goes with that folder): a text is one or the other, never both.
    let held_by_dir = |r: &mut Release| {
        if let_go {
            r.in_dir = true;
            r.made = false;
            r.bytes = Vec::new();
        }
    };
    for r in &mut texts.releases {
        let name = format!("{}.txt", r.sha());
        // Already named as DIR's file when it was released.
        if r.in_dir || !disk.contains(&name) {
            continue;
        }
        // The text's name is its sha256: DIR's record is compared with it, not with a second
        // hash of the bytes.
        let rel = format!("{FOLDER}/{name}");
        if holds.holding(&rel, r.sha(), r.bytes.len() as u64).is_some() {
            held_by_dir(r);
            continue;
        }
        let regular = match folders.get(FOLDER) {
            Ok(Some(fd)) => crate::site_write::dir_folders::stat_in(fd, &name)
                .is_ok_and(|stat| crate::site_write::dir_folders::is_regular(&stat)),
            _ => false,
        };
        // Only a regular file is read (no symlink followed, within the ceiling); anything else
        // in its place holds no bytes (docs/build.md#safety).
        let on_disk = match &folder {
            Some(folder) if regular => folder
                .read(&name, crate::operator_box::read::FileClass::OutputFile)?
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        // Compared by digest: the text's name is the sha256 of its bytes, which a text written
        // into the build's folder of made files no longer holds (`made`: let go as released).
        // Compared with those empty bytes, every copy DIR held read as changed, and a build
        // without DIR's record (a checkout, a clone) said so of 170,000 texts at a million lines.
        if Digest::of(&on_disk) == r.sha() {
            held_by_dir(r);
            continue;
        }
        let head_blob = head.bytes_of(&r.sha())?;
        let head_is_released = head_blob.is_some_and(|b| Digest::of(&b) == r.sha());
        if head_is_released && Digest::of(&crlf_to_lf(&on_disk)) == r.sha() {
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} had CRLF line endings on disk (a checkout converted it); restored from HEAD's bytes, not a rewrite"
            ));
        } else {
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} on disk differed from the released bytes; rewritten from the released bytes"
            ));
        }
    }
    Ok(())
}

/// The released texts as files: moved, not copied (at a million lines, 120 MB), or, when DIR
/// already holds them, listed by digest as DIR's files (68 bytes a text, where a path and a map
/// entry each were about 300: docs/scale.md#texts-listed). The releases are taken from the
/// list's end and its room given back as it shortens, so that they and the files they become
/// are not both held whole.
pub(super) fn release_files(
    mut releases: Vec<Release>,
    dir_folder: Option<&std::sync::Arc<Path>>,
    made: Option<&MadeFiles>,
    out: &mut LayerOutput,
) -> Result<()> {
    const SLICE: usize = 8192;
    let in_dir = releases
        .iter()
        .filter(|r| r.in_dir && dir_folder.is_some())
        .count();
    let in_made = releases
        .iter()
        .filter(|r| r.made && !(r.in_dir && dir_folder.is_some()))
        .count();
    let made_folder = match made {
        Some(made) if in_made > 0 => Some(made.folder(FOLDER)?),
        _ => None,
    };
    // The tree holds one list a folder: DIR's texts when it names any (a daily rebuild, whose
    // few new texts go to the tree's map as the made folder's files), else the made folder's
    // (a first build: docs/scale.md#made-as-written).
    let list_is_dir = in_dir > 0;
    let list_folder = if list_is_dir {
        dir_folder
    } else {
        made_folder.as_ref()
    };
    let mut listed = list_folder.map(|folder| {
        crate::published::output_tree::ListedFiles::new(
            crate::published::output_tree::ListedFolder::PublicTexts,
            folder,
            crate::operator_box::read::FileClass::OutputFile,
        )
    });
    if let Some(list) = &mut listed {
        list.reserve(if list_is_dir { in_dir } else { in_made });
    }
    out.files
        .reserve_exact(releases.len().saturating_sub(in_dir + in_made));
    while let Some(mut r) = releases.pop() {
        if releases.len().is_multiple_of(SLICE) {
            releases.shrink_to_fit();
        }
        let name = format!("{}.txt", r.sha());
        let on_disk = match (r.in_dir, r.made) {
            (true, _) => dir_folder.map(|f| (f, list_is_dir)),
            (false, true) => made_folder.as_ref().map(|f| (f, !list_is_dir)),
            (false, false) => None,
        };
        match on_disk {
            Some((folder, in_list)) => {
                let file = crate::published::output_tree::DiskFile::of_dir(
                    folder.clone(),
                    &name,
                    r.entry.bytes as u64,
                    Some(r.sha()),
                );
                // A text over 4 GiB is no list's: it goes to the tree's map.
                let unlisted = match listed.as_mut().filter(|_| in_list) {
                    Some(list) => list.push(file).err(),
                    None => Some(file),
                };
                if let Some(file) = unlisted {
                    out.contents
                        .push((format!("{FOLDER}/{name}"), Content::File(file)));
                }
            }
            None => out
                .files
                .push((format!("{FOLDER}/{name}"), std::mem::take(&mut r.bytes))),
        }
    }
    if let Some(mut list) = listed.filter(|l| !l.is_empty()) {
        list.finish();
        out.listed = vec![list];
    }
    Ok(())
}

/// Every file under `dir` on disk (relative names with `/`), symlinks and special files
/// included, none read.
pub(super) fn disk_names(dir: &Path) -> Result<FolderNames> {
    let mut names = Vec::new();
    if !dir.is_dir() {
        return Ok(FolderNames::default());
    }
    // Unsorted: a sorted walk holds every entry of a folder at once (170,000 paths at a million
    // lines); the names are sorted as they are kept (docs/scale.md#giving-memory-back).
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        if entry.file_type().is_dir() {
            continue;
        }
        let rel: PathBuf = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        names.push(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
        );
    }
    Ok(names.into_iter().collect())
}

/// A text's file name, `<sha256>.txt` (lowercase hex, as the build names it), as its digest.
pub(super) fn text_name(name: &str) -> Option<Digest> {
    name.strip_suffix(".txt")?.parse().ok()
}

/// A folder's file names (relative, joined with `/`), each text's `<sha256>.txt` held as its
/// digest: 32 bytes a text, not a string in a set's node. At a million lines the sets of
/// names step 4 compared (this build's, HEAD's index's, HEAD's folder's and DIR's) were about
/// 90 MB for a moment (docs/scale.md#giving-memory-back).
#[derive(Debug, Default)]
pub(super) struct FolderNames {
    /// Sorted, each once.
    pub(super) texts: Vec<Digest>,
    /// Every other name.
    pub(super) other: BTreeSet<String>,
}

impl FromIterator<String> for FolderNames {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Self {
        let mut folder = FolderNames::default();
        for name in names {
            match text_name(&name) {
                Some(sha) => folder.texts.push(sha),
                None => {
                    folder.other.insert(name);
                }
            }
        }
        folder.texts.sort_unstable();
        folder.texts.dedup();
        folder.texts.shrink_to_fit();
        folder
    }
}

impl FolderNames {
    pub(super) fn contains(&self, name: &str) -> bool {
        match text_name(name) {
            Some(sha) => self.texts.binary_search(&sha).is_ok(),
            None => self.other.contains(name),
        }
    }

    /// Every name, each made as it is read (the texts', then the others).
    pub(super) fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.texts
            .iter()
            .map(|sha| format!("{sha}.txt"))
            .chain(self.other.iter().cloned())
    }
}
