//! Reads that stay in the box (docs/build.md#safety): a file inside a box folder (the anchors
//! folder, the witness store, the sources, a published exhibit's `ledger/`) is opened without
//! following a symlink, must be a regular file — a FIFO would block the build, a device such as
//! `/dev/zero` would read without end — and may not exceed its class's size ceiling. The same
//! reads serve `exhibit verify SITE`, where the tree is a stranger's clone. A box folder whose
//! files are published ([`BoxFolder::published_from`]) also refuses a file with more than one
//! link: another name shares it, and it may be a private file's (`hard_link`).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// What a file is to exhibit; each class has its ceiling (docs/build.md#safety lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileClass {
    /// `exhibit.toml`.
    Config,
    /// The gate's `ledger.jsonl` (the build holds it in memory), or a published one.
    Ledger,
    /// The gate's `config.json` (for `--public-texts`).
    GateConfig,
    /// A gate source under `sources/` (one message's text).
    Source,
    /// `anchors/<date>.txt`: one line of a fixed form.
    AnchorPost,
    /// An OpenTimestamps proof (`anchors/<date>.txt.ots`, `witness/proofs/*.ots`).
    Proof,
    /// The witness store's `index.json`.
    WitnessIndex,
    /// `REPORT.md`, `WITNESS_PREREG.md`.
    WitnessText,
    /// `runs.jsonl`.
    RunLog,
    /// `seal.jsonl`.
    Seal,
    /// `withheld.json`.
    Withheld,
    /// A published exhibit's `anchors/index.json` (read by `verify SITE`).
    AnchorsIndex,
    /// `public_texts/<sha256>.txt` in a published exhibit.
    PublicText,
    /// A published exhibit's `public_texts/index.json` or one of its parts (read by `verify SITE`).
    TextsIndex,
    /// A file of an exhibit DIR, read for `--dry-run`.
    OutputFile,
    /// A published exhibit's `index.html` (read by `verify SITE`, docs/scale.md#the-page-against-the-site).
    Page,
}

impl FileClass {
    pub const ALL: [FileClass; 16] = [
        FileClass::Config,
        FileClass::Ledger,
        FileClass::GateConfig,
        FileClass::Source,
        FileClass::AnchorPost,
        FileClass::Proof,
        FileClass::WitnessIndex,
        FileClass::WitnessText,
        FileClass::RunLog,
        FileClass::Seal,
        FileClass::Withheld,
        FileClass::AnchorsIndex,
        FileClass::PublicText,
        FileClass::TextsIndex,
        FileClass::OutputFile,
        FileClass::Page,
    ];

    /// The largest file of this class exhibit reads, in bytes.
    pub const fn ceiling(self) -> u64 {
        match self {
            FileClass::Config | FileClass::GateConfig => MIB,
            FileClass::Ledger => 16 * GIB,
            FileClass::Source | FileClass::PublicText => 4 * MIB,
            FileClass::AnchorPost => 4 * KIB,
            FileClass::Proof => MIB,
            FileClass::WitnessIndex | FileClass::Withheld | FileClass::TextsIndex => 4 * GIB,
            FileClass::WitnessText | FileClass::Seal => MIB,
            // Read as it is published, not held (8 bytes a line kept): the ceiling the store's
            // index has, not one sized for a read into memory (docs/scale.md#the-run-log-is-not-held).
            FileClass::RunLog => 4 * GIB,
            FileClass::AnchorsIndex => 64 * MIB,
            FileClass::OutputFile => 32 * GIB,
            // A page over GitHub's 100 MiB limit on a file cannot have been pushed.
            FileClass::Page => 128 * MIB,
        }
    }

    pub const fn what(self) -> &'static str {
        match self {
            FileClass::Config => "exhibit.toml",
            FileClass::Ledger => "a ledger",
            FileClass::GateConfig => "the gate's config.json",
            FileClass::Source => "a gate source",
            FileClass::AnchorPost => "an anchor post",
            FileClass::Proof => "an OpenTimestamps proof",
            FileClass::WitnessIndex => "the witness store's index.json",
            FileClass::WitnessText => "a witness text (REPORT.md, WITNESS_PREREG.md)",
            FileClass::RunLog => "the tail's runs.jsonl",
            FileClass::Seal => "the tail's seal.jsonl",
            FileClass::Withheld => "a withheld.json",
            FileClass::AnchorsIndex => "a published anchors/index.json",
            FileClass::PublicText => "a released public text",
            FileClass::TextsIndex => "a published public_texts/index.json or one of its parts",
            FileClass::OutputFile => "a file of the output folder",
            FileClass::Page => "a published index.html",
        }
    }
}

/// Human size for messages: "4 KiB", "16 GiB", "1234 bytes".
pub fn size(bytes: u64) -> String {
    for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} bytes")
}

/// Opens `path` for reading: never through a symlink at its last component (O_NOFOLLOW), never
/// blocking on a FIFO (O_NONBLOCK), and only a regular file within the class's ceiling; with
/// `one_link`, only a file no other name shares (`hard_link`). `Ok(None)` when it does not exist.
fn open_checked(
    path: &Path,
    class: FileClass,
    follow: bool,
    one_link: bool,
) -> Result<Option<(File, std::fs::Metadata)>> {
    let mut flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::CLOEXEC;
    if !follow {
        flags |= rustix::fs::OFlags::NOFOLLOW;
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => bail!(
            "{}: is a symlink; exhibit follows no symlink inside the box or an exhibit (docs/build.md#safety): put the file itself there",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot open", path.display())),
    };
    let meta = file
        .metadata()
        .with_context(|| format!("{}: cannot stat", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{}: is not a regular file (a FIFO, a device, a socket or a folder); exhibit reads only regular files (docs/build.md#safety)",
            path.display()
        );
    }
    if one_link && meta.nlink() > 1 {
        bail!(
            "{}: has {} links [hard_link]: another name shares this file, which may be a private file's, and exhibit publishes no file of the box that lives elsewhere too (docs/build.md#safety): copy the file so it has one link (cp FILE FILE.copy && mv FILE.copy FILE)",
            path.display(),
            meta.nlink()
        );
    }
    if meta.len() > class.ceiling() {
        bail!(
            "{}: is {} bytes, over the ceiling of {} for {} (docs/build.md#safety)",
            path.display(),
            meta.len(),
            size(class.ceiling()),
            class.what()
        );
    }
    Ok(Some((file, meta)))
}

fn read_open(path: &Path, class: FileClass, file: File, len: u64) -> Result<Vec<u8>> {
    let ceiling = class.ceiling();
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(ceiling + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    if bytes.len() as u64 > ceiling {
        bail!(
            "{}: grew past the ceiling of {} for {} while it was read (docs/build.md#safety)",
            path.display(),
            size(ceiling),
            class.what()
        );
    }
    Ok(bytes)
}

/// A file the operator named (the config, the ledger, a `--withheld` file): a symlink there is
/// the operator's own doing and is followed, but it must end at a regular file within the
/// ceiling. `Ok(None)` when absent.
pub fn read_named(path: &Path, class: FileClass) -> Result<Option<Vec<u8>>> {
    match open_checked(path, class, true, false)? {
        Some((file, meta)) => read_open(path, class, file, meta.len()).map(Some),
        None => Ok(None),
    }
}

/// Opens a file the operator named for streaming (a bare ledger for `exhibit verify`).
pub fn open_named(path: &Path, class: FileClass) -> Result<File> {
    match open_checked(path, class, true, false)? {
        Some((file, _)) => Ok(file),
        None => bail!("{}: no such file", path.display()),
    }
}

/// A folder of the box (or of an exhibit): its files are read without following symlinks, and
/// a subfolder reached from it may not be a symlink either, so no read leaves it.
#[derive(Debug, Clone)]
pub struct BoxFolder {
    path: PathBuf,
    /// A folder of the box whose files the build publishes: a file with more than one link is
    /// refused (its subfolders inherit this).
    one_link: bool,
}

impl BoxFolder {
    /// The folder the operator named (followed once, as named). `Ok(None)` when absent.
    pub fn named(path: &Path) -> Result<Option<BoxFolder>> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(Some(BoxFolder {
                path: path.to_path_buf(),
                one_link: false,
            })),
            Ok(_) => bail!("{}: is not a folder", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("{}: cannot stat", path.display())),
        }
    }

    /// A folder of the box whose files the build copies to the site (the anchors folder, the
    /// witness store, the gate's sources): [`BoxFolder::named`], and besides a file another name
    /// shares — a hard link, perhaps to a private file — is refused, as a symlink is.
    pub fn published_from(path: &Path) -> Result<Option<BoxFolder>> {
        Ok(BoxFolder::named(path)?.map(|f| BoxFolder {
            one_link: true,
            ..f
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The subfolder `name` (one component): absent → `Ok(None)`; a symlink refuses.
    pub fn sub(&self, name: &str) -> Result<Option<BoxFolder>> {
        let path = self.path.join(one_component(&self.path, name)?);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => bail!(
                "{}: is a symlink; exhibit follows no symlink inside the box or an exhibit (docs/build.md#safety)",
                path.display()
            ),
            Ok(m) if m.is_dir() => Ok(Some(BoxFolder {
                path,
                one_link: self.one_link,
            })),
            Ok(_) => bail!("{}: is not a folder", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("{}: cannot stat", path.display())),
        }
    }

    /// The bytes of the file `name` (one component), or `Ok(None)` when absent.
    pub fn read(&self, name: &str, class: FileClass) -> Result<Option<Vec<u8>>> {
        Ok(self.read_with_stat(name, class)?.map(|(bytes, _)| bytes))
    }

    /// [`BoxFolder::read`], with the file's metadata as it was opened (the stat data a record
    /// of it keeps: crate::previous::file_records).
    pub fn read_with_stat(
        &self,
        name: &str,
        class: FileClass,
    ) -> Result<Option<(Vec<u8>, std::fs::Metadata)>> {
        let path = self.path.join(one_component(&self.path, name)?);
        match open_checked(&path, class, false, self.one_link)? {
            Some((file, meta)) => Ok(Some((read_open(&path, class, file, meta.len())?, meta))),
            None => Ok(None),
        }
    }

    /// The file `name` (one component) opened for streaming, with the same checks as
    /// [`BoxFolder::read`] and reads cut at the class's ceiling; `Ok(None)` when absent.
    pub fn open(&self, name: &str, class: FileClass) -> Result<Option<std::io::Take<File>>> {
        let path = self.path.join(one_component(&self.path, name)?);
        Ok(open_checked(&path, class, false, self.one_link)?
            .map(|(file, _)| file.take(class.ceiling())))
    }

    /// The names in the folder, sorted, as (name, is a symlink or not a regular file/folder).
    /// Names that are not UTF-8 are returned lossily with `utf8: false`.
    pub fn list(&self) -> Result<Vec<Listed>> {
        let mut out = Vec::new();
        self.visit(|listed| out.push(listed))?;
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Each name in the folder, in the order the folder gives them, handed over one at a time
    /// and not kept (a witness store's `proofs/` holds a million: docs/scale.md#memory).
    pub fn visit(&self, mut visit: impl FnMut(Listed)) -> Result<()> {
        for entry in std::fs::read_dir(&self.path)
            .with_context(|| format!("{}: cannot list", self.path.display()))?
        {
            let entry = entry.with_context(|| format!("{}: cannot list", self.path.display()))?;
            let kind = entry
                .file_type()
                .with_context(|| format!("{}: cannot list", self.path.display()))?;
            let (name, utf8) = match entry.file_name().into_string() {
                Ok(n) => (n, true),
                Err(n) => (n.to_string_lossy().into_owned(), false),
            };
            visit(Listed {
                name,
                utf8,
                file: kind.is_file(),
                dir: kind.is_dir(),
            });
        }
        Ok(())
    }
}

/// One name in a folder listing.
#[derive(Debug, Clone)]
pub struct Listed {
    pub name: String,
    pub utf8: bool,
    /// A regular file (not a symlink).
    pub file: bool,
    /// A folder (not a symlink).
    pub dir: bool,
}

fn one_component<'a>(folder: &Path, name: &'a str) -> Result<&'a str> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        bail!(
            "{}: {:?} is not a plain file name",
            folder.display(),
            crate::terminal::escape(name)
        );
    }
    Ok(name)
}

/// `Read::read` of a reader that is its own buffer: what `fill_buf` holds, copied and consumed.
pub(crate) fn read_buffered(
    reader: &mut impl std::io::BufRead,
    out: &mut [u8],
) -> std::io::Result<usize> {
    let n = {
        let available = reader.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        n
    };
    reader.consume(n);
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_a_second_link_is_refused_where_the_box_publishes_from() {
        // Caught: a hard link read as the file it seems (it is another name's, maybe a private
        // file's), in the folder or a subfolder of it, read whole or streamed; and the rule
        // spilling over onto an exhibit's folders, which a person may hard-link as a backup.
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("proofs")).unwrap();
        for rel in ["REPORT.md", "proofs/a.ots"] {
            let private = tmp
                .path()
                .join(format!("private-{}", rel.replace('/', "-")));
            std::fs::write(&private, "not the tail's").unwrap();
            std::fs::hard_link(&private, tmp.path().join(rel)).unwrap();
        }
        std::fs::write(tmp.path().join("single.md"), "one link").unwrap();
        let box_folder = BoxFolder::published_from(tmp.path()).unwrap().unwrap();
        let proofs = box_folder.sub("proofs").unwrap().unwrap();
        let errors = [
            box_folder
                .read("REPORT.md", FileClass::WitnessText)
                .unwrap_err(),
            box_folder
                .open("REPORT.md", FileClass::WitnessText)
                .unwrap_err(),
            proofs.read("a.ots", FileClass::Proof).unwrap_err(),
            proofs
                .read_with_stat("a.ots", FileClass::Proof)
                .unwrap_err(),
        ];
        for e in errors {
            let e = format!("{e:#}");
            assert!(e.contains("has 2 links [hard_link]"), "{e}");
            assert!(e.contains("copy the file so it has one link"), "{e}");
            assert!(!e.contains("not the tail's"), "{e}");
        }
        assert_eq!(
            box_folder
                .read("single.md", FileClass::WitnessText)
                .unwrap()
                .unwrap(),
            b"one link"
        );
        // An exhibit's folder (verify SITE, DIR) reads them as they are.
        let exhibit = BoxFolder::named(tmp.path()).unwrap().unwrap();
        assert!(exhibit.read("REPORT.md", FileClass::WitnessText).is_ok());
        let proofs = exhibit.sub("proofs").unwrap().unwrap();
        assert!(proofs.read("a.ots", FileClass::Proof).is_ok());
    }

    #[test]
    fn symlinks_fifos_and_oversized_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = BoxFolder::named(tmp.path()).unwrap().unwrap();
        std::fs::write(tmp.path().join("ok.txt"), "gate anchor").unwrap();
        assert_eq!(
            dir.read("ok.txt", FileClass::AnchorPost).unwrap().unwrap(),
            b"gate anchor"
        );
        assert!(dir.read("absent", FileClass::AnchorPost).unwrap().is_none());
        std::os::unix::fs::symlink(tmp.path().join("ok.txt"), tmp.path().join("link")).unwrap();
        let e = dir.read("link", FileClass::AnchorPost).unwrap_err();
        assert!(format!("{e:#}").contains("symlink"), "{e:#}");
        std::fs::write(tmp.path().join("big"), vec![b'x'; 5000]).unwrap();
        let e = dir.read("big", FileClass::AnchorPost).unwrap_err();
        assert!(format!("{e:#}").contains("ceiling of 4 KiB"), "{e:#}");
        let e = BoxFolder::named(Path::new("/dev"))
            .unwrap()
            .unwrap()
            .read("zero", FileClass::Proof)
            .unwrap_err();
        assert!(format!("{e:#}").contains("not a regular file"), "{e:#}");
        assert!(dir.read("../etc", FileClass::Proof).is_err());
    }
}
