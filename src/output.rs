//! The output tree: every file a build publishes, held in memory or named on disk (a segmented
//! exhibit's made files already written beside DIR: crate::made_files), and DIR's files listed to
//! compare with it. DIR is written as a static log is (crate::dir_write,
//! docs/build.md#the-write): a refused build writes nothing, a killed or failed one leaves every
//! file old or new, never half-written. `--dry-run` compares the tree with DIR instead and writes
//! nothing.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

use crate::box_read::{BoxFolder, FileClass};
use crate::dir_stat::DirRecords;
use crate::open_folders::{folder_and_name, is_regular, stat_in};
use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, Mode, OFlags};

/// What one path of a tree holds: bytes this build made, or a file on disk that is read when it
/// is needed. At a million lines the witness proofs alone are half a gigabyte; they are checked
/// once as they are read from the store and copied when DIR is written, never all held at once
/// (docs/scale.md#memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Bytes(Vec<u8>),
    File(DiskFile),
    /// Bytes this build makes again when it writes them, not held in between (a witness index
    /// part: docs/scale.md#memory).
    Remade(Remade),
    /// Spans of the gate's ledger, read from it when needed and held to the digest of the first
    /// read (docs/scale.md#the-gates-ledger-is-not-held).
    Ledger(crate::gate_ledger::LedgerSpans),
    /// A name in DIR that is not a regular file or a folder (a symlink, a FIFO, a socket, a
    /// device): never followed nor read, and never in a tree the build writes. Its size is 0 and
    /// it holds no bytes. A build removes it (or renames a file over it) without following it,
    /// so the review lists it as removed (docs/operator.md#dry-run).
    NotAFile(NotAFile),
}

/// What a name in DIR that is not a regular file is, in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAFile(pub &'static str);

impl NotAFile {
    /// What `file_type` is, in words; `None` for a regular file or a folder.
    pub fn of(file_type: rustix::fs::FileType) -> Option<NotAFile> {
        use rustix::fs::FileType;
        Some(NotAFile(match file_type {
            FileType::RegularFile | FileType::Directory => return None,
            FileType::Symlink => "symlink",
            FileType::Fifo => "FIFO",
            FileType::Socket => "socket",
            FileType::CharacterDevice | FileType::BlockDevice => "device",
            FileType::Unknown => "special file",
        }))
    }
}

/// A file made from data the build keeps anyway: made once for its size and sha256, then again
/// only when it must be written; the second making must give the same bytes.
#[derive(Clone)]
pub struct Remade {
    make: std::sync::Arc<dyn Fn() -> Result<Vec<u8>> + Send + Sync>,
    /// The same making, written into a file as it goes rather than held whole, where the
    /// maker can (a run-log file of 16 MiB: docs/scale.md#nothing-made-to-be-dropped).
    stream: Option<std::sync::Arc<MakeInto>>,
    len: u64,
    sha256: exhibit_protocol::Digest,
}

/// A making that writes its bytes into `out` as it makes them.
pub type MakeInto = dyn Fn(&mut dyn Write) -> Result<()> + Send + Sync;

/// Counts and hashes what passes into the writer it wraps.
pub(crate) struct Hashing<'w> {
    out: &'w mut dyn Write,
    pub(crate) len: u64,
    pub(crate) hasher: sha2::Sha256,
}

impl<'w> Hashing<'w> {
    pub(crate) fn new(out: &'w mut dyn Write) -> Hashing<'w> {
        Hashing {
            out,
            len: 0,
            hasher: <sha2::Sha256 as sha2::Digest>::new(),
        }
    }
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        sha2::Digest::update(&mut self.hasher, &buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Remade {
    pub fn new(make: impl Fn() -> Vec<u8> + Send + Sync + 'static) -> Remade {
        let bytes = make();
        Remade {
            len: bytes.len() as u64,
            sha256: exhibit_protocol::Digest::of(&bytes),
            make: std::sync::Arc::new(move || Ok(make())),
            stream: None,
        }
    }

    /// [`Remade::known`] whose making writes into a file as it goes: written, it is never
    /// held whole (docs/scale.md#nothing-made-to-be-dropped).
    pub fn streamed(
        len: u64,
        sha256: exhibit_protocol::Digest,
        make_into: impl Fn(&mut dyn Write) -> Result<()> + Send + Sync + 'static,
    ) -> Remade {
        let stream: std::sync::Arc<MakeInto> = std::sync::Arc::new(make_into);
        let into_bytes = stream.clone();
        let mut remade = Remade::known(len, sha256, move || {
            let mut bytes = Vec::new();
            into_bytes(&mut bytes)?;
            Ok(bytes)
        });
        remade.stream = Some(stream);
        remade
    }

    /// Its bytes written into `out`, made again: they must be the bytes first made, or an
    /// error (and what `out` received is not the file: the caller drops it).
    pub(crate) fn write_into(&self, out: &mut dyn Write) -> Result<()> {
        let Some(stream) = &self.stream else {
            return Ok(out.write_all(&self.bytes()?)?);
        };
        let mut hashing = Hashing::new(out);
        stream(&mut hashing)?;
        let sha256 = exhibit_protocol::Digest(sha2::Digest::finalize(hashing.hasher).into());
        self.held_to((hashing.len, sha256))
    }

    /// The size and sha256 of a second making, held to the first's.
    fn held_to(&self, (len, sha256): (u64, exhibit_protocol::Digest)) -> Result<()> {
        if len != self.len || sha256 != self.sha256 {
            bail!(
                "a file made twice came out different the second time (sha256 {} first): its source changed while the build ran, or this is exhibit's fault; nothing was written — run the build again, and report it if it happens again",
                self.sha256
            );
        }
        Ok(())
    }

    /// A file whose size and sha256 were taken as it was first made (in a pass over its
    /// source), made again from its source when it is needed; a making may fail (its source
    /// is read again).
    pub fn known(
        len: u64,
        sha256: exhibit_protocol::Digest,
        make: impl Fn() -> Result<Vec<u8>> + Send + Sync + 'static,
    ) -> Remade {
        Remade {
            make: std::sync::Arc::new(make),
            stream: None,
            len,
            sha256,
        }
    }

    fn bytes(&self) -> Result<Vec<u8>> {
        let bytes = (self.make)()?;
        self.held_to((bytes.len() as u64, exhibit_protocol::Digest::of(&bytes)))?;
        Ok(bytes)
    }
}

impl std::fmt::Debug for Remade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Remade({} bytes, sha256 {})", self.len, self.sha256)
    }
}

impl PartialEq for Remade {
    fn eq(&self, other: &Remade) -> bool {
        self.len == other.len && self.sha256 == other.sha256
    }
}

impl Eq for Remade {}

/// A file on disk that a tree names without holding its bytes: a witness store's proof (its
/// sha256 known, from the read that checked it) or a file of DIR listed for the review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskFile {
    /// The folder and the file's name in it: read again through [`BoxFolder`], with the same
    /// checks as the first read (no symlink, a regular file, within the class's ceiling).
    /// Shared by every file of one folder (a million proofs name one folder).
    pub folder: std::sync::Arc<Path>,
    pub name: FileName,
    pub class: FileClass,
    pub len: u64,
    /// The sha256 of the bytes that were checked; a later read must give the same bytes.
    pub sha256: Option<exhibit_protocol::Digest>,
    /// The first [`DiskFile::HEAD`] bytes (the page's proof headers are made from them), and
    /// how many of them there are; `None` once let go ([`DiskFile::forget_head`]): a segmented
    /// exhibit's page never carries a per-line proof's header, and at a million proofs the
    /// bytes are 65 MB.
    pub head: Option<Box<[u8; DiskFile::HEAD]>>,
    pub head_len: u8,
}

/// A file's name in its folder, held without an allocation of its own when it is a digest's: a
/// witness proof's `<64 lowercase hex>.ots` or a released text's `<64 lowercase hex>.txt` is kept
/// as the digest's 32 bytes (a million such names are 80 MB as strings). Any other name is kept
/// as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileName {
    Proof([u8; 32]),
    PublicText([u8; 32]),
    Other(Box<str>),
}

impl FileName {
    pub fn new(name: &str) -> FileName {
        let hex = |b: u8| matches!(b, b'0'..=b'9' | b'a'..=b'f');
        let digest = |stem: &str| {
            (stem.len() == 64 && stem.bytes().all(hex))
                .then(|| stem.parse::<exhibit_protocol::Digest>().ok())
                .flatten()
        };
        if let Some(d) = name.strip_suffix(".ots").and_then(digest) {
            return FileName::Proof(d.0);
        }
        if let Some(d) = name.strip_suffix(".txt").and_then(digest) {
            return FileName::PublicText(d.0);
        }
        FileName::Other(name.into())
    }

    /// The name as written on disk.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            FileName::Proof(d) => Cow::Owned(format!("{}.ots", exhibit_protocol::Digest(*d))),
            FileName::PublicText(d) => Cow::Owned(format!("{}.txt", exhibit_protocol::Digest(*d))),
            FileName::Other(t) => Cow::Borrowed(t),
        }
    }
}

impl DiskFile {
    /// How many leading bytes a [`DiskFile`] keeps (an OpenTimestamps header: docs/page.md).
    pub const HEAD: usize = 65;

    /// A file whose bytes were just read and checked: what is kept of them.
    pub fn checked(
        folder: &std::sync::Arc<Path>,
        name: &str,
        class: FileClass,
        bytes: &[u8],
    ) -> DiskFile {
        let mut head = Box::new([0u8; Self::HEAD]);
        let head_len = bytes.len().min(Self::HEAD);
        head[..head_len].copy_from_slice(&bytes[..head_len]);
        DiskFile {
            folder: folder.clone(),
            name: FileName::new(name),
            class,
            len: bytes.len() as u64,
            sha256: Some(exhibit_protocol::Digest::of(bytes)),
            head: Some(head),
            head_len: head_len as u8,
        }
    }

    /// A file of DIR, read again as an output file; its sha256 when known (from DIR's record
    /// or from the bytes the build made), no header kept.
    pub fn of_dir(
        folder: std::sync::Arc<Path>,
        name: &str,
        len: u64,
        sha256: Option<exhibit_protocol::Digest>,
    ) -> DiskFile {
        DiskFile::of_dir_named(folder, FileName::new(name), len, sha256)
    }

    /// [`DiskFile::of_dir`] with the name already made.
    pub fn of_dir_named(
        folder: std::sync::Arc<Path>,
        name: FileName,
        len: u64,
        sha256: Option<exhibit_protocol::Digest>,
    ) -> DiskFile {
        DiskFile {
            folder,
            name,
            class: FileClass::OutputFile,
            len,
            sha256,
            head: None,
            head_len: 0,
        }
    }

    pub fn path(&self) -> PathBuf {
        self.folder.join(&*self.name.text())
    }

    /// Lets the header bytes go; a later [`Content::head`] reads the file again.
    pub fn forget_head(&mut self) {
        self.head = None;
        self.head_len = 0;
    }

    /// The file's bytes, read again; an error when it is gone or no longer holds the bytes
    /// that were checked (it changed while the build ran: nothing is written).
    pub fn read(&self) -> Result<Vec<u8>> {
        let bytes = BoxFolder::named(&self.folder)?
            .and_then(|f| f.read(&self.name.text(), self.class).transpose())
            .transpose()?
            .with_context(|| format!("{}: vanished while the build ran", self.path().display()))?;
        let same = bytes.len() as u64 == self.len
            && self
                .sha256
                .is_none_or(|d| exhibit_protocol::Digest::of(&bytes) == d);
        if !same {
            bail!(
                "{}: changed while the build ran (it was checked holding other bytes); nothing was written — run the build again",
                self.path().display()
            );
        }
        Ok(bytes)
    }
}

impl Content {
    pub fn len(&self) -> u64 {
        match self {
            Content::Bytes(b) => b.len() as u64,
            Content::File(f) => f.len,
            Content::Remade(r) => r.len,
            Content::Ledger(l) => l.len(),
            Content::NotAFile(_) => 0,
        }
    }

    /// The sha256 when it is known without reading or hashing.
    fn known_sha256(&self) -> Option<exhibit_protocol::Digest> {
        match self {
            Content::File(f) => f.sha256,
            Content::Remade(r) => Some(r.sha256),
            Content::Ledger(l) => l.known_sha256(),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, read from disk for a file.
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>> {
        Ok(match self {
            Content::Bytes(b) => Cow::Borrowed(b),
            Content::File(f) => Cow::Owned(f.read()?),
            Content::Remade(r) => Cow::Owned(r.bytes()?),
            Content::Ledger(l) => Cow::Owned(l.bytes()?),
            Content::NotAFile(NotAFile(kind)) => {
                anyhow::bail!("a {kind}, not a regular file: never followed nor read")
            }
        })
    }

    /// The first `n` bytes (at most [`DiskFile::HEAD`] for a file).
    pub fn head(&self, n: usize) -> Cow<'_, [u8]> {
        match self {
            Content::Bytes(b) => Cow::Borrowed(&b[..b.len().min(n)]),
            Content::File(f) => match &f.head {
                Some(head) => Cow::Borrowed(&head[..usize::from(f.head_len).min(n)]),
                None => Cow::Owned(
                    f.read()
                        .map(|b| b[..b.len().min(n)].to_vec())
                        .unwrap_or_default(),
                ),
            },
            Content::Remade(r) => {
                let bytes = r.bytes().unwrap_or_default();
                Cow::Owned(bytes[..bytes.len().min(n)].to_vec())
            }
            Content::Ledger(l) => Cow::Owned(l.head(n).unwrap_or_default()),
            Content::NotAFile(_) => Cow::Borrowed(&[]),
        }
    }

    pub fn sha256(&self) -> Result<exhibit_protocol::Digest> {
        match self {
            Content::Bytes(b) => Ok(exhibit_protocol::Digest::of(b)),
            Content::File(DiskFile {
                sha256: Some(d), ..
            }) => Ok(*d),
            Content::File(f) => Ok(exhibit_protocol::Digest::of(&f.read()?)),
            Content::Remade(r) => Ok(r.sha256),
            Content::Ledger(l) => l.sha256(),
            Content::NotAFile(_) => Ok(exhibit_protocol::Digest::of(&self.bytes()?)),
        }
    }

    /// The two hold the same bytes (sizes first; digests when both are known; else the bytes).
    pub fn same(&self, other: &Content) -> Result<bool> {
        // A name that is not a file holds no bytes: the same as nothing, not as an empty file.
        if let (Content::NotAFile(a), Content::NotAFile(b)) = (self, other) {
            return Ok(a == b);
        }
        if matches!(self, Content::NotAFile(_)) || matches!(other, Content::NotAFile(_)) {
            return Ok(false);
        }
        if self.len() != other.len() {
            return Ok(false);
        }
        Ok(match (self, other) {
            (Content::Bytes(a), Content::Bytes(b)) => a == b,
            (a, b) if a.known_sha256().is_some() && b.known_sha256().is_some() => {
                a.known_sha256() == b.known_sha256()
            }
            // One digest known: hash the other's bytes rather than make or read both.
            (a, b) if a.known_sha256().is_some() => a.known_sha256() == Some(b.sha256()?),
            (a, b) if b.known_sha256().is_some() => b.known_sha256() == Some(a.sha256()?),
            (a, b) => a.bytes()? == b.bytes()?,
        })
    }
}

/// Relative path (with `/`) → content, in path order. Most files are held in a map; a segmented
/// exhibit's per-line witness proofs — a million at a million lines — and the released texts DIR
/// already holds are held as sorted lists, one per folder ([`ListedFiles`]: about 70 bytes a
/// file, against 215 to 330 in the map with its path), and every listing merges them with the
/// map in path order (docs/scale.md#the-proofs-folder-as-a-list, docs/scale.md#texts-listed).
#[derive(Debug, Default, Clone)]
pub struct Tree {
    held: BTreeMap<String, Content>,
    /// At most one list per [`ListedFolder`], in the folders' order (found by halving).
    listed: Vec<ListedFiles>,
}

impl Tree {
    pub fn put(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.put_content(path, Content::Bytes(bytes.into()));
    }

    pub fn put_file(&mut self, path: impl Into<String>, file: DiskFile) {
        self.put_content(path, Content::File(file));
    }

    /// Puts `content` at `path`, replacing what the tree held there (held or listed).
    pub fn put_content(&mut self, path: impl Into<String>, content: Content) {
        let path = path.into();
        if let Some(list) = self.list_of_mut(&path) {
            list.remove(&path);
        }
        self.held.insert(path, content);
    }

    /// Puts many files at once, as [`Tree::put_content`] would one by one (of two at one path
    /// the later wins), into full nodes of the map: taken from the list's end a slice at a
    /// time, the list given back as it shortens, so the files are never held twice — a
    /// million-line exhibit's public texts, put one by one, held the whole list beside a map
    /// half of whose room was empty (docs/scale.md#put-at-once).
    pub fn put_many(&mut self, mut files: Vec<(String, Content)>) {
        const SLICE: usize = 8192;
        sort_keeping_last(&mut files, |a, b| a.0.cmp(&b.0));
        if !self.listed.is_empty() {
            for (path, _) in &files {
                if let Some(list) = self.list_of_mut(path) {
                    list.remove(path);
                }
            }
        }
        while !files.is_empty() {
            let slice = files.split_off(files.len().saturating_sub(SLICE));
            files.shrink_to_fit();
            // Sorted, each path once: the map is built full, and appended by one merge.
            let mut part: BTreeMap<String, Content> = slice.into_iter().collect();
            self.held.append(&mut part);
        }
    }

    /// Puts a list of files under its folder, replacing what the tree held at the same paths
    /// (as [`Tree::put_content`] would, one by one).
    /// Names read from the chain's lines are held as digests instead, so that the lists do
    /// not keep the lines when the build lets them go (docs/scale.md#ids-by-line): one copy per
    /// table, shared by the lists that shared it (a segmented exhibit's proof folders all name
    /// from the store's ids: docs/scale.md#ids-shared).
    pub fn hold_names_alone(&mut self) {
        type Table = std::sync::Arc<crate::sorted_ids::SortedIds>;
        let mut copies: Vec<(Table, Table)> = Vec::new();
        for list in &mut self.listed {
            let ListedNames::Shared(names) = &list.names else {
                continue;
            };
            if names.held_as_digests() >= names.len() {
                continue;
            }
            let copy = match copies.iter().find(|(from, _)| Table::ptr_eq(from, names)) {
                Some((_, copy)) => copy.clone(),
                None => {
                    let copy: Table = std::sync::Arc::new(names.alone());
                    copies.push((names.clone(), copy.clone()));
                    copy
                }
            };
            list.names = ListedNames::Shared(copy);
        }
    }

    /// The tree's lists of files, one per listed folder.
    pub(crate) fn lists(&self) -> &[ListedFiles] {
        &self.listed
    }

    pub fn put_listed(&mut self, list: ListedFiles) {
        let prefix = format!("{}/", list.folder_path);
        let shadowed: Vec<String> = self
            .held_under(&prefix)
            .filter(|(p, _)| list.find(p).is_some())
            .map(|(p, _)| p.to_string())
            .collect();
        for p in shadowed {
            self.held.remove(&p);
        }
        match self.listed.binary_search_by_key(&list.folder, |l| l.folder) {
            // A second list of one folder (no build makes one): of another folder on disk, its
            // files go to the map.
            Ok(at) => {
                let old = &mut self.listed[at];
                for e in &list.entries {
                    let path = list.path(e);
                    old.remove(&path);
                    if !(*old.store == *list.store
                        && old.class == list.class
                        && old.push_named(list.name(e), e.sha256, e.len))
                    {
                        self.held.insert(path, list.content(e));
                    }
                }
                old.finish();
            }
            Err(at) => self.listed.insert(at, list),
        }
    }

    /// The list of the folder `path` lies right in, if the tree has one.
    fn list_of(&self, path: &str) -> Option<&ListedFiles> {
        let folder = ListedFolder::of_folder(folder_and_name(path).0)?;
        let at = self
            .listed
            .binary_search_by_key(&folder, |l| l.folder)
            .ok()?;
        Some(&self.listed[at])
    }

    fn list_of_mut(&mut self, path: &str) -> Option<&mut ListedFiles> {
        let folder = ListedFolder::of_folder(folder_and_name(path).0)?;
        let at = self
            .listed
            .binary_search_by_key(&folder, |l| l.folder)
            .ok()?;
        Some(&mut self.listed[at])
    }

    /// The bytes this build made for `path`; `None` for a path it does not hold *or* holds as a
    /// file on disk (the files it writes itself — indexes, STATS.json, the ledger's files —
    /// are always bytes; [`Tree::read`] reads any).
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        match self.held.get(path) {
            Some(Content::Bytes(b)) => Some(b),
            _ => None,
        }
    }

    /// What the tree holds at `path`, held or listed.
    pub fn entry(&self, path: &str) -> Option<Cow<'_, Content>> {
        if let Some(c) = self.held.get(path) {
            return Some(Cow::Borrowed(c));
        }
        let list = self.list_of(path)?;
        list.find(path).map(|e| Cow::Owned(list.content(e)))
    }

    pub fn contains(&self, path: &str) -> bool {
        self.held.contains_key(path) || self.list_of(path).is_some_and(|l| l.find(path).is_some())
    }

    /// How many files the tree holds.
    pub fn len(&self) -> usize {
        self.held.len() + self.listed.iter().map(|l| l.entries.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every file, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, Content>)> + '_ {
        self.iter_under("")
    }

    /// The files whose path starts with `prefix`, in path order.
    pub fn iter_under<'t>(
        &'t self,
        prefix: &str,
    ) -> impl Iterator<Item = (Cow<'t, str>, Cow<'t, Content>)> + 't {
        // The lists' files merged in path order: the proofs folder's own files interleave
        // with its buckets' (`…/proofs/000001/…` sorts among `…/proofs/<hex>.ots`), so the
        // lists are not taken one after the other (docs/scale.md#the-proofs-folder-as-a-list).
        let mut listed = Merged::new(self.listed.iter().map(|l| l.iter_under(prefix)))
            .map(|(p, c)| (Cow::Owned(p), Cow::Owned(c)))
            .peekable();
        let mut held = self
            .held_under(prefix)
            .map(|(p, c)| (Cow::Borrowed(p), Cow::Borrowed(c)))
            .peekable();
        std::iter::from_fn(move || {
            let held_first = match (held.peek(), listed.peek()) {
                (None, None) => return None,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((h, _)), Some((l, _))) => h <= l,
            };
            if held_first {
                held.next()
            } else {
                listed.next()
            }
        })
    }

    /// The files the map holds under `prefix` (never a listed file: for the folders the build
    /// makes itself, such as `ledger/segments/`), borrowed, in path order.
    pub fn held_under<'t>(
        &'t self,
        prefix: &str,
    ) -> impl Iterator<Item = (&'t str, &'t Content)> + 't {
        let prefix_owned = prefix.to_string();
        self.held
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(p, _)| p.starts_with(&prefix_owned))
            .map(|(p, c)| (p.as_str(), c))
    }

    /// What the map holds at `path` (never a listed file: for the files the build makes
    /// itself), borrowed.
    pub fn held(&self, path: &str) -> Option<(&str, &Content)> {
        self.held.get_key_value(path).map(|(p, c)| (p.as_str(), c))
    }

    /// Every path with its bytes, files on disk read (for tests and small trees).
    pub fn into_bytes(self) -> Result<BTreeMap<String, Vec<u8>>> {
        self.iter()
            .map(|(p, c)| Ok((p.into_owned(), c.bytes()?.into_owned())))
            .collect()
    }

    /// The bytes of `path`, read from disk when the tree holds it as a file.
    pub fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>> {
        match self.entry(path) {
            Some(Cow::Borrowed(c)) => c.bytes().map(Some),
            Some(Cow::Owned(c)) => Ok(Some(Cow::Owned(c.bytes()?.into_owned()))),
            None => Ok(None),
        }
    }
}

/// Listings each in path order, merged in path order (a k-way merge: a tree's lists are one per
/// folder, a few hundred at a million lines). No path is in two of them.
struct Merged<I: Iterator<Item = (String, Content)>> {
    listings: Vec<I>,
    /// Each listing's next file, held until it is given.
    next: Vec<Option<Content>>,
    /// The listings' next paths, the least first, with their listing's position.
    heads: std::collections::BinaryHeap<std::cmp::Reverse<(String, usize)>>,
}

impl<I: Iterator<Item = (String, Content)>> Merged<I> {
    fn new(listings: impl Iterator<Item = I>) -> Merged<I> {
        let mut merged = Merged {
            listings: listings.collect(),
            next: Vec::new(),
            heads: std::collections::BinaryHeap::new(),
        };
        merged.next = vec![None; merged.listings.len()];
        for k in 0..merged.listings.len() {
            merged.advance(k);
        }
        merged
    }

    fn advance(&mut self, k: usize) {
        if let Some((path, content)) = self.listings[k].next() {
            self.next[k] = Some(content);
            self.heads.push(std::cmp::Reverse((path, k)));
        }
    }
}

impl<I: Iterator<Item = (String, Content)>> Iterator for Merged<I> {
    type Item = (String, Content);

    fn next(&mut self) -> Option<(String, Content)> {
        let std::cmp::Reverse((path, k)) = self.heads.pop()?;
        let content = self.next[k].take()?;
        self.advance(k);
        Some((path, content))
    }
}

/// What two trees hold at each path either holds, in path order: `(path, old, new)`.
pub type Joined<'t> = (
    Cow<'t, str>,
    Option<Cow<'t, Content>>,
    Option<Cow<'t, Content>>,
);

/// Both trees' files side by side, in path order (one pass over each: no set of paths).
pub fn joined<'t>(old: &'t Tree, new: &'t Tree) -> impl Iterator<Item = Joined<'t>> + 't {
    join_in_path_order::<std::convert::Infallible>(old.iter().map(Ok), new).map(|j| match j {
        Ok(j) => j,
        Err(never) => match never {},
    })
}

/// Files listed in path order (DIR's as walked, [`crate::dir_walk::DirWalk`]: never all held)
/// beside the tree's, in path order; the listing's error where it failed.
pub fn joined_with_listing<'t>(
    old: impl Iterator<Item = Result<(String, Content)>> + 't,
    new: &'t Tree,
) -> impl Iterator<Item = Result<Joined<'t>>> + 't {
    join_in_path_order(
        old.map(|f| f.map(|(p, c)| (Cow::Owned(p), Cow::Owned(c)))),
        new,
    )
}

/// Merges two listings in path order, each path once; the old side's first error is passed on.
fn join_in_path_order<'t, E>(
    old: impl Iterator<Item = std::result::Result<(Cow<'t, str>, Cow<'t, Content>), E>> + 't,
    new: &'t Tree,
) -> impl Iterator<Item = std::result::Result<Joined<'t>, E>> + 't {
    let (mut a, mut b) = (old.peekable(), new.iter().peekable());
    std::iter::from_fn(move || {
        let order = match (a.peek(), b.peek()) {
            (None, None) => return None,
            (Some(Err(_)), _) => return a.next().map(|e| e.map(|(p, c)| (p, Some(c), None))),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(Ok((x, _))), Some((y, _))) => x.cmp(y),
        };
        Some(Ok(match order {
            std::cmp::Ordering::Less => match a.next()? {
                Ok((p, c)) => (p, Some(c), None),
                Err(e) => return Some(Err(e)),
            },
            std::cmp::Ordering::Greater => b.next().map(|(p, c)| (p, None, Some(c)))?,
            std::cmp::Ordering::Equal => {
                let (p, x) = match a.next()? {
                    Ok(pc) => pc,
                    Err(e) => return Some(Err(e)),
                };
                let (_, y) = b.next()?;
                (p, Some(x), Some(y))
            }
        }))
    })
}

/// Two trees are equal when they hold the same files, however each holds them.
impl PartialEq for Tree {
    fn eq(&self, other: &Tree) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Tree {}

/// A folder whose files are named by a digest and may be held as one list ([`ListedFiles`]).
/// A tree holds at most one list per folder, in this order (not the order of their paths: the
/// proofs folder's flat files and its subfolders' files interleave, so a tree's files are its
/// lists merged in path order, [`Tree::iter_under`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListedFolder {
    /// `ledger/public_texts/<sha256>.txt`: the released texts DIR already holds
    /// (docs/scale.md#texts-listed).
    PublicTexts,
    /// `ledger/witness/proofs/<entry_id>.ots`: a segmented exhibit's per-line witness proofs
    /// at the protocol's flat path (docs/scale.md#the-proofs-folder-as-a-list).
    WitnessProofs,
    /// `ledger/witness/proofs/NNNNNN/<entry_id>.ots`: the proofs of one seq bucket
    /// (docs/witness.md#proof-folders), each bucket its own list.
    WitnessProofBucket(u32),
    /// `ledger/witness/proofs/other/<entry_id>.ots`: the proofs of records no line names.
    WitnessProofOther,
}

impl ListedFolder {
    /// The listed folder at `folder` (a path of the tree, no trailing `/`), if it is one.
    pub fn of_folder(folder: &str) -> Option<ListedFolder> {
        match folder {
            "ledger/public_texts" => Some(ListedFolder::PublicTexts),
            "ledger/witness/proofs" => Some(ListedFolder::WitnessProofs),
            _ => {
                let sub = folder.strip_prefix("ledger/witness/proofs/")?;
                Some(ListedFolder::of_proof_place(
                    crate::layout::ProofPlace::of_folder(sub)?,
                ))
            }
        }
    }

    /// The listed folder of the proofs published at `place`.
    pub fn of_proof_place(place: crate::layout::ProofPlace) -> ListedFolder {
        match place {
            crate::layout::ProofPlace::Flat => ListedFolder::WitnessProofs,
            crate::layout::ProofPlace::Bucket(b) => ListedFolder::WitnessProofBucket(b),
            crate::layout::ProofPlace::Other => ListedFolder::WitnessProofOther,
        }
    }

    /// `path` is a file one of the folders lists: right in it, and named by a digest of its
    /// kind (`ledger/public_texts/index.json` is not listed: it is named otherwise).
    pub fn holds_path(path: &str) -> bool {
        let (folder, name) = folder_and_name(path);
        ListedFolder::of_folder(folder).is_some_and(|f| f.digest_of(&FileName::new(name)).is_some())
    }

    /// The folder's path in the tree.
    pub fn path(self) -> Cow<'static, str> {
        match self {
            ListedFolder::PublicTexts => Cow::Borrowed("ledger/public_texts"),
            ListedFolder::WitnessProofs => Cow::Borrowed("ledger/witness/proofs"),
            // Six digits, as crate::layout::ProofPlace::rel names a bucket.
            ListedFolder::WitnessProofBucket(b) => {
                Cow::Owned(format!("ledger/witness/proofs/{b:06}"))
            }
            ListedFolder::WitnessProofOther => Cow::Owned(format!(
                "ledger/witness/proofs/{}",
                crate::layout::OTHER_PROOFS
            )),
        }
    }

    /// The digest a file of this folder is named by; `None` for a name of another shape.
    fn digest_of(self, name: &FileName) -> Option<[u8; 32]> {
        match (self, name) {
            (ListedFolder::PublicTexts, FileName::PublicText(d)) => Some(*d),
            (ListedFolder::PublicTexts, _) => None,
            (_, FileName::Proof(d)) => Some(*d),
            _ => None,
        }
    }

    fn name_of(self, digest: [u8; 32]) -> FileName {
        match self {
            ListedFolder::PublicTexts => FileName::PublicText(digest),
            _ => FileName::Proof(digest),
        }
    }
}

/// The files of one [`ListedFolder`] that are named by their digest, as one list sorted by
/// name: per file its name, its size and its sha256, all in one folder on disk. What a
/// [`DiskFile`] of such a file would say, without a map node and a path per file.
#[derive(Debug, Clone)]
pub struct ListedFiles {
    folder: ListedFolder,
    /// The folder's path in the tree ([`ListedFolder::path`]), made once.
    folder_path: Box<str>,
    /// The folder on disk its files are read again from.
    store: std::sync::Arc<Path>,
    /// The class its files are read again with: a store's proofs, or DIR's files (a released
    /// text DIR holds; DIR's files listed for the review, [`read_tree`]).
    class: FileClass,
    /// The names the entries point into.
    names: ListedNames,
    entries: Vec<ListedFile>,
}

/// Where a list's names are kept: its own, or a sorted table of digests it shares with the
/// list that made them (the witness layer's proofs are named by the store's ids, which the
/// store's index already holds: 32 bytes a proof not held twice, docs/scale.md#ids-shared).
#[derive(Debug, Clone)]
enum ListedNames {
    /// Each file's name, in the order pushed.
    Own(Vec<[u8; 32]>),
    /// Sorted, each once: a name's position is its order.
    Shared(std::sync::Arc<crate::sorted_ids::SortedIds>),
}

impl ListedNames {
    fn at(&self, k: u32) -> [u8; 32] {
        match self {
            ListedNames::Own(names) => names[k as usize],
            ListedNames::Shared(names) => names.at(k as usize).0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ListedFile {
    /// The name's position in the list's [`ListedNames`].
    name: u32,
    sha256: [u8; 32],
    /// 4 bytes (40 a file, where a u64 made 44): a proof is within its ceiling, far under
    /// 4 GiB; a file of 4 GiB or more is handed back to the tree's map.
    len: u32,
}

/// Two lists are equal when they list the same files of the same folder, however each keeps
/// its names.
impl PartialEq for ListedFiles {
    fn eq(&self, other: &ListedFiles) -> bool {
        (self.folder, &self.store, self.class) == (other.folder, &other.store, other.class)
            && self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|(a, b)| (self.name(a), a.sha256, a.len) == (other.name(b), b.sha256, b.len))
    }
}

impl Eq for ListedFiles {}

impl ListedFiles {
    /// An empty list of `folder`'s files, read again from `store` as `class`.
    pub fn new(
        folder: ListedFolder,
        store: &std::sync::Arc<Path>,
        class: FileClass,
    ) -> ListedFiles {
        ListedFiles {
            folder,
            folder_path: folder.path().into(),
            store: store.clone(),
            class,
            names: ListedNames::Own(Vec::new()),
            entries: Vec::new(),
        }
    }

    /// An empty list whose files are named by digests of `names` (sorted, each once; a table
    /// that is not is not shared, and the list keeps names of its own): a file of another name
    /// is handed back, for the tree's map.
    pub fn naming_from(
        folder: ListedFolder,
        store: &std::sync::Arc<Path>,
        class: FileClass,
        names: std::sync::Arc<crate::sorted_ids::SortedIds>,
    ) -> ListedFiles {
        let mut list = ListedFiles::new(folder, store, class);
        if names.len() < u32::MAX as usize && names.is_strictly_sorted() {
            list.names = ListedNames::Shared(names);
        }
        list
    }

    /// An empty list of `folder`, its files read again from where this list's are, as this
    /// list's are, named from the same names (a shared table is shared, not checked again: a
    /// segmented exhibit's proof buckets share the store's ids, docs/scale.md#ids-shared).
    pub fn of_folder(&self, folder: ListedFolder) -> ListedFiles {
        ListedFiles {
            folder,
            folder_path: folder.path().into(),
            store: self.store.clone(),
            class: self.class,
            names: match &self.names {
                ListedNames::Own(_) => ListedNames::Own(Vec::new()),
                ListedNames::Shared(names) => ListedNames::Shared(names.clone()),
            },
            entries: Vec::new(),
        }
    }

    /// Adds a checked file of the list's folder on disk named by a digest (a proof's header
    /// let go), its sha256 known; any other file is handed back, for the tree's map.
    pub fn push(&mut self, file: DiskFile) -> std::result::Result<(), DiskFile> {
        match (
            self.folder.digest_of(&file.name),
            file.sha256,
            &file.head,
            u32::try_from(file.len),
        ) {
            (Some(name), Some(sha256), None, Ok(len))
                if file.class == self.class
                    && *file.folder == *self.store
                    && self.push_named(name, sha256.0, len) =>
            {
                Ok(())
            }
            _ => Err(file),
        }
    }

    /// Adds a file by its name, sha256 and size; `false` (nothing added) for a name a shared
    /// table does not hold, or past what positions can count.
    fn push_named(&mut self, name: [u8; 32], sha256: [u8; 32], len: u32) -> bool {
        let at = match &mut self.names {
            ListedNames::Own(names) => {
                let Ok(at) = u32::try_from(names.len()) else {
                    return false;
                };
                if at == u32::MAX {
                    return false;
                }
                names.push(name);
                at
            }
            ListedNames::Shared(names) => match names.binary_search_by(|d| d.0.cmp(&name)) {
                Ok(at) => at as u32,
                Err(_) => return false,
            },
        };
        self.entries.push(ListedFile {
            name: at,
            sha256,
            len,
        });
        true
    }

    /// Puts the list in name order, the last of equal names kept (as a map's insert would).
    pub fn finish(&mut self) {
        // The witness layer pushes in the index's order, which is name order: then nothing
        // moves (and no second list is made beside a million entries).
        let ListedFiles { names, entries, .. } = self;
        sort_keeping_last(entries, |a, b| names.at(a.name).cmp(&names.at(b.name)));
        entries.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn reserve(&mut self, n: usize) {
        self.entries.reserve_exact(n);
        if let ListedNames::Own(names) = &mut self.names {
            names.reserve_exact(n);
        }
    }

    fn name(&self, e: &ListedFile) -> [u8; 32] {
        self.names.at(e.name)
    }

    fn position(&self, path: &str) -> Option<usize> {
        let name = path
            .strip_prefix(&*self.folder_path)
            .and_then(|n| n.strip_prefix('/'))?;
        let name = self.folder.digest_of(&FileName::new(name))?;
        self.entries
            .binary_search_by(|e| self.name(e).cmp(&name))
            .ok()
    }

    /// The folder the list's files are published in.
    pub(crate) fn folder(&self) -> ListedFolder {
        self.folder
    }

    /// That folder's path in the tree (no trailing `/`).
    pub(crate) fn folder_path(&self) -> &str {
        &self.folder_path
    }

    /// The name of the `i`th file in name order (the list is finished).
    pub(crate) fn name_at(&self, i: usize) -> Option<FileName> {
        let e = self.entries.get(i)?;
        Some(self.folder.name_of(self.name(e)))
    }

    /// The list holds a file of this name.
    pub(crate) fn holds(&self, name: &FileName) -> bool {
        self.folder.digest_of(name).is_some_and(|d| {
            self.entries
                .binary_search_by(|e| self.name(e).cmp(&d))
                .is_ok()
        })
    }

    fn find(&self, path: &str) -> Option<&ListedFile> {
        self.position(path).map(|i| &self.entries[i])
    }

    fn remove(&mut self, path: &str) {
        if let Some(i) = self.position(path) {
            self.entries.remove(i);
        }
    }

    fn path(&self, e: &ListedFile) -> String {
        format!(
            "{}/{}",
            self.folder_path,
            self.folder.name_of(self.name(e)).text()
        )
    }

    fn content(&self, e: &ListedFile) -> Content {
        Content::File(DiskFile {
            folder: self.store.clone(),
            name: self.folder.name_of(self.name(e)),
            class: self.class,
            len: u64::from(e.len),
            sha256: Some(exhibit_protocol::Digest(e.sha256)),
            head: None,
            head_len: 0,
        })
    }

    /// Each file's path and what a tree entry would hold, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (String, Content)> + '_ {
        self.iter_under("")
    }

    /// [`ListedFiles::iter`]'s files whose path starts with `prefix`: all of them when the
    /// folder lies under it, else those whose name starts with what `prefix` says past the
    /// folder, found by halving (names in order are a range), none when `prefix` lies aside.
    fn iter_under<'l>(&'l self, prefix: &str) -> impl Iterator<Item = (String, Content)> + use<'l> {
        let in_folder = prefix
            .strip_prefix(&*self.folder_path)
            .and_then(|rest| rest.strip_prefix('/'));
        let range = match in_folder {
            Some(start) => {
                let text = |e: &ListedFile| self.folder.name_of(self.name(e)).text().into_owned();
                let from = self.entries.partition_point(|e| *text(e) < *start);
                let to =
                    from + self.entries[from..].partition_point(|e| text(e).starts_with(start));
                from..to
            }
            None if folder_under(&self.folder_path, prefix) => 0..self.entries.len(),
            None => 0..0,
        };
        self.entries[range]
            .iter()
            .map(|e| (self.path(e), self.content(e)))
    }
}

/// The files of the folder at `folder` (no trailing `/`) have paths starting with `prefix`
/// whatever their names: `folder/` starts with `prefix`.
fn folder_under(folder: &str, prefix: &str) -> bool {
    match prefix.len().cmp(&(folder.len() + 1)) {
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => prefix.starts_with(folder) && prefix.ends_with('/'),
        std::cmp::Ordering::Less => folder.starts_with(prefix),
    }
}

/// `items` in the order `cmp` gives, of equal ones the last pushed kept (as a map's insert
/// would); a list already in strict order is left as it is, no second list made beside it.
fn sort_keeping_last<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if items.is_sorted_by(|a, b| cmp(a, b).is_lt()) {
        return;
    }
    // A stable sort keeps equal items in the order pushed; reversed, the last pushed comes
    // first and is the one `dedup` keeps.
    items.sort_by(&cmp);
    items.reverse();
    items.dedup_by(|a, b| cmp(a, b).is_eq());
    items.reverse();
}

/// Lists every file under `dir` (a missing DIR is an empty tree), without reading them: each
/// is read when a comparison needs its bytes. DIR has passed [`check_out_dir`]: it is exhibit's;
/// symlinks and special files in it are not listed. A file whose stat data is the one the last
/// build recorded (`crate::dir_stat`, in `git_dir`) carries the sha256 recorded with it, so the
/// review compares it without reading it (docs/scale.md#comparing-without-reading). The review
/// itself walks DIR without listing it into a tree ([`joined_with_listing`]).
pub fn read_tree(dir: &Path, git_dir: Option<&Path>) -> Result<Tree> {
    let mut tree = Tree::default();
    // DIR's per-line proofs (flat, in buckets, in `other/`) and released texts whose sha256 the
    // record knows are listed, a list per folder, as the build's are
    // (docs/scale.md#the-proofs-folder-as-a-list, #texts-listed).
    let mut lists: BTreeMap<ListedFolder, ListedFiles> = BTreeMap::new();
    for file in crate::dir_walk::DirWalk::new(dir, git_dir, &[])? {
        // A name that is not a file is not listed: it holds no bytes to compare.
        let (rel, Content::File(file)) = file? else {
            continue;
        };
        let Some(folder) = ListedFolder::of_folder(folder_and_name(&rel).0) else {
            tree.put_file(rel, file);
            continue;
        };
        let list = lists
            .entry(folder)
            .or_insert_with(|| ListedFiles::new(folder, &file.folder, FileClass::OutputFile));
        if let Err(file) = list.push(file) {
            tree.put_file(rel, file);
        }
    }
    for mut list in lists.into_values() {
        list.finish();
        if !list.is_empty() {
            tree.put_listed(list);
        }
    }
    Ok(tree)
}

/// The name of the file a folder of made files holds while exhibit owns it (never in DIR).
const TEMP_MARKER: &str = ".exhibit-temporary";

/// Where a build's made files wait for the write stage (crate::made_files): beside DIR,
/// `.<DIR name>.exhibit-made-<pid>`.
pub(crate) fn made_files_path(dir: &Path, pid: u32) -> Result<PathBuf> {
    let (parent, name) = parent_and_name(dir)?;
    Ok(parent.join(format!(".{name}.exhibit-made-{pid}")))
}

/// Makes a temporary folder of this build's, its marker first; one this process's number
/// already names (left by a killed process that had it) is cleared first.
pub(crate) fn make_temp_folder(path: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        // A symlink under this name is not followed (clearing it would clear its target), nor
        // is a file removed: neither is a folder exhibit made.
        if !meta.is_dir() {
            bail!(
                "{}: exists and is not a folder (a symlink or a file), so it is not exhibit's temporary folder; left as it is — remove it and build again",
                path.display()
            );
        }
        // As for a leftover (clean_leftovers): only a folder that is plainly exhibit's.
        if !plainly_exhibits(path) {
            bail!(
                "{}: named like exhibit's temporary folder but holds files exhibit did not write; left as it is — move it away and build again",
                path.display()
            );
        }
        remove_temp_tree(path).with_context(|| format!("{}: cannot clear", path.display()))?;
    }
    std::fs::create_dir(path).with_context(|| format!("{}: cannot create", path.display()))?;
    std::fs::write(
        path.join(TEMP_MARKER),
        format!(
            "a folder of files exhibit build made (process {}); the next build removes it\n",
            std::process::id()
        ),
    )
    .with_context(|| format!("{}: cannot create", path.display()))
}

/// `.<dir_name>.exhibit-made-<pid>` → the pid.
fn leftover_pid(dir_name: &str, entry: &str) -> Option<u32> {
    let pid = entry.strip_prefix(&format!(".{dir_name}.exhibit-made-"))?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// A folder that is an exhibit's tree: its `ledger/SNAPSHOTS.jsonl` is a regular file of JSON
/// lines, each a snapshot (an object with `built_at` and `digests`).
pub fn holds_exhibit(dir: &Path) -> bool {
    let Ok(Some(ledger)) = BoxFolder::named(dir).and_then(|d| match d {
        Some(d) => d.sub("ledger"),
        None => Ok(None),
    }) else {
        return false;
    };
    let Ok(Some(bytes)) = ledger.read("SNAPSHOTS.jsonl", FileClass::OutputFile) else {
        return false;
    };
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            serde_json::from_slice::<serde_json::Value>(l).is_ok_and(|v| {
                v.get("built_at").is_some_and(serde_json::Value::is_string)
                    && v.get("digests").is_some_and(serde_json::Value::is_object)
            })
        })
}

/// A folder whose files are all temporary files of exhibit's write stage (a first build killed
/// before its journal was in place: docs/build.md#the-write), and folders.
fn only_temporaries(dir: &Path) -> bool {
    WalkDir::new(dir).follow_links(false).into_iter().all(|e| {
        e.is_ok_and(|e| {
            e.file_type().is_dir()
                || (e.file_type().is_file()
                    && crate::dir_write::temp_of(e.file_name().as_encoded_bytes()).is_some())
        })
    })
}

/// An absolute, lexically normalised form of `path`, resolved through its nearest existing
/// ancestor (so symlinked ancestors compare as what they are).
fn resolved(path: &Path) -> Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(path)
    };
    let mut normal = PathBuf::new();
    for c in absolute.components() {
        match c {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other.as_os_str()),
        }
    }
    let mut existing = normal.as_path();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        let Some(parent) = existing.parent() else {
            break;
        };
        if let Some(name) = existing.file_name() {
            rest.push(name.to_owned());
        }
        existing = parent;
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    Ok(out)
}

/// A sample of what a folder holds, for a refusal: up to five names, and the count.
fn sample(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return "(cannot list it)".into();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| crate::terminal::escape(n).into_owned())
        .collect();
    format!(
        "{}{} ({} entr{})",
        shown.join(", "),
        if names.len() > 5 { ", …" } else { "" },
        names.len(),
        if names.len() == 1 { "y" } else { "ies" }
    )
}

const OUT_RULE: &str = "--out must name a folder that is absent, empty, or an exhibit this tool wrote, outside the box and any .git (docs/build.md#safety)";

/// DIR is exhibit's only when exhibit made it (docs/build.md#safety): absent, empty, holding an
/// exhibit (a valid `ledger/SNAPSHOTS.jsonl`), being written by a build that was interrupted
/// (`journaled`: its journal is there, docs/build.md#the-journal) or holding nothing but
/// temporary files of one, and neither a symlink, nor a `.git`, nor inside
/// one, nor holding one, nor the box or any part of it (`box_paths`: what exhibit.toml names),
/// nor inside a box folder. Checked before anything is read from or written to DIR.
pub fn check_out_dir(dir: &Path, box_paths: &[(&str, &Path)], journaled: bool) -> Result<()> {
    let shown = crate::terminal::escape(&dir.display().to_string()).into_owned();
    let meta = std::fs::symlink_metadata(dir);
    if let Ok(m) = &meta {
        if m.file_type().is_symlink() {
            bail!(
                "{shown}: is a symlink (to {}); exhibit writes only into a real folder; {OUT_RULE}",
                std::fs::read_link(dir)
                    .map(|t| crate::terminal::escape(&t.display().to_string()).into_owned())
                    .unwrap_or_default()
            );
        }
        if !m.is_dir() {
            bail!("{shown}: exists and is not a folder; {OUT_RULE}");
        }
    }
    let full = resolved(dir)?;
    if full.components().any(|c| c.as_os_str() == ".git") {
        bail!("{shown}: is or lies inside a .git folder (a repository's own store); {OUT_RULE}");
    }
    if full.parent().is_none() {
        bail!("{shown}: is the root folder; {OUT_RULE}");
    }
    for (what, path) in box_paths {
        let p = resolved(path)?;
        if p.starts_with(&full) {
            bail!(
                "{shown}: is or contains the box's {what} ({}); exhibit never writes over its own inputs; {OUT_RULE}",
                crate::terminal::escape(&path.display().to_string())
            );
        }
        if p.is_dir() && full.starts_with(&p) {
            bail!(
                "{shown}: lies inside the box's {what} ({}); {OUT_RULE}",
                crate::terminal::escape(&path.display().to_string())
            );
        }
    }
    if meta.is_err() {
        // DIR is made, its parents are not: a mistyped path is said, not created
        // (docs/operator.md#first-publication).
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            bail!(
                "{shown}: its parent folder {} does not exist; exhibit creates DIR but never the folders above it (is the path mistyped? create the parent first); {OUT_RULE}",
                crate::terminal::escape(&parent.display().to_string())
            );
        }
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir).with_context(|| format!("{shown}: cannot list"))?;
    if entries.next().is_none() {
        return Ok(());
    }
    if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
        bail!(
            "{shown}: holds a .git (a repository: {}); --out must be a folder inside the checkout, not the checkout itself; {OUT_RULE}",
            sample(dir)
        );
    }
    if !holds_exhibit(dir) && !journaled && !only_temporaries(dir) {
        bail!(
            "{shown}: holds files exhibit did not write (no valid ledger/SNAPSHOTS.jsonl): {}; {OUT_RULE}",
            sample(dir)
        );
    }
    // An exhibit's tree is exhibit's size: walk it for a repository hidden inside.
    for entry in WalkDir::new(dir).follow_links(false) {
        let entry = entry.with_context(|| format!("{shown}: cannot list"))?;
        if entry.file_name() == ".git" {
            bail!(
                "{shown}: holds a repository ({}); exhibit never removes a .git; {OUT_RULE}",
                crate::terminal::escape(&entry.path().display().to_string())
            );
        }
    }
    Ok(())
}

/// Removes the folders of made files an interrupted build of this DIR left beside it — only
/// folders named `.<DIR>.exhibit-made-<pid>` whose process is gone and that are exhibit's (its
/// marker, an exhibit tree, or empty) — and says so. Returns the lines said.
pub fn clean_leftovers(dir: &Path, dry_run: bool) -> Result<Vec<String>> {
    let (parent, name) = parent_and_name(dir)?;
    let mut said = Vec::new();
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Ok(said);
    };
    let mut found: Vec<(String, u32)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| leftover_pid(&name, &n).map(|pid| (n, pid)))
        .collect();
    found.sort();
    for (entry, pid) in found {
        if pid == std::process::id() || crate::dir_write::alive(pid) {
            continue;
        }
        let path = parent.join(&entry);
        let shown = crate::terminal::escape(&path.display().to_string()).into_owned();
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let ours = is_dir && plainly_exhibits(&path);
        if !ours {
            said.push(format!(
                "{shown}: named like exhibit's folder of made files but holds files exhibit did not write; left as it is"
            ));
        } else if dry_run {
            said.push(format!(
                "{shown}: a folder of made files an interrupted build left (process {pid} is gone); a build would remove it"
            ));
        } else {
            remove_temp_tree(&path).with_context(|| {
                format!("{shown}: cannot remove a leftover folder of made files")
            })?;
            said.push(format!(
                "{shown}: removed a folder of made files an interrupted build left (process {pid} is gone)"
            ));
        }
    }
    Ok(said)
}

/// A folder (not a symlink: the caller checked) under a temporary name is exhibit's to remove
/// only when it is plainly so: it holds the marker, or an exhibit tree, or nothing.
fn plainly_exhibits(path: &Path) -> bool {
    path.join(TEMP_MARKER).is_file()
        || holds_exhibit(path)
        || std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// Removes a folder of made files with its marker last, so a removal cut short is still
/// recognised.
pub(crate) fn remove_temp_tree(path: &Path) -> Result<()> {
    std::fs::write(
        path.join(TEMP_MARKER),
        b"a folder of files exhibit build made\n",
    )
    .with_context(|| format!("{}: cannot mark", path.display()))?;
    for entry in
        std::fs::read_dir(path).with_context(|| format!("{}: cannot list", path.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot list", path.display()))?;
        if entry.file_name() == TEMP_MARKER {
            continue;
        }
        let p = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        }
        .with_context(|| format!("{}: cannot remove", p.display()))?;
    }
    std::fs::remove_file(path.join(TEMP_MARKER))
        .with_context(|| format!("{}: cannot remove", path.display()))?;
    std::fs::remove_dir(path).with_context(|| format!("{}: cannot remove", path.display()))
}

fn parent_and_name(dir: &Path) -> Result<(PathBuf, String)> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dir
        .file_name()
        .with_context(|| format!("{}: not a folder name", dir.display()))?
        .to_string_lossy()
        .into_owned();
    Ok((parent, name))
}

/// A path of the tree must be one of the output's own forms (crate::layout): checked again here,
/// the last step before a name becomes a file, so no name can lead outside DIR.
fn check_paths(tree: &Tree) -> Result<()> {
    for (rel, _) in tree.iter() {
        if !crate::layout::is_output_path(&rel) {
            bail!(
                "{:?}: not a path of the output tree (docs/build.md#safety); nothing was written",
                crate::terminal::escape(&rel)
            );
        }
    }
    Ok(())
}

/// Writes `tree` as DIR (docs/build.md#the-write: crate::dir_write), its plan journaled at
/// `journal`. DIR must have passed [`check_out_dir`]. Returns what a person should be told.
///
/// What an earlier build recorded of DIR's files (`crate::dir_stat`, kept in `git_dir`) tells an
/// unchanged file without reading it.
pub fn write_tree(
    dir: &Path,
    tree: &Tree,
    git_dir: Option<&Path>,
    journal: &Path,
) -> Result<Vec<String>> {
    check_paths(tree)?;
    write_journaled(dir, tree, DirRecords::open(git_dir, dir), journal)
}

fn write_journaled(
    dir: &Path,
    tree: &Tree,
    known: DirRecords,
    journal: &Path,
) -> Result<Vec<String>> {
    if let Ok(m) = std::fs::symlink_metadata(dir)
        && (m.file_type().is_symlink() || !m.is_dir())
    {
        bail!("{}: exists and is not a folder", dir.display());
    }
    refuse_mounts_inside(dir)?;
    let made = made_files_path(dir, std::process::id())?;
    crate::dir_write::write(dir, tree, known, journal, &made)
}

/// A filesystem mounted inside DIR (a bind mount of a home folder, a tmpfs) is refused before
/// anything is written: the build removes the names of DIR it does not produce, and removing a
/// mount point's would empty whatever is mounted there (docs/build.md#safety). Read from the kernel's list of mounts, which
/// names bind mounts of the same filesystem too (a device number would not tell them).
fn refuse_mounts_inside(dir: &Path) -> Result<()> {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return Ok(()); // no DIR yet: nothing can be mounted inside it
    };
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Ok(());
    };
    if let Some(inside) = mounts_below(&table, &real).first() {
        bail!(
            "{}: another filesystem is mounted inside the output folder; exhibit never crosses into one (removing what the build does not produce would empty it: docs/build.md#safety); unmount it or move the mount out of the folder, then build again",
            crate::terminal::escape(&inside.display().to_string())
        );
    }
    Ok(())
}

/// The mount points of a `/proc/self/mountinfo` table strictly below `dir` (the fifth field,
/// its space, tab, newline and backslash written as octal escapes).
fn mounts_below(table: &str, dir: &Path) -> Vec<PathBuf> {
    let unescape = |field: &str| -> Vec<u8> {
        let b = field.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let octal = b
                .get(i + 1..i + 4)
                .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
            match (b[i], octal) {
                (b'\\', Some(d)) => {
                    out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                    i += 4;
                }
                (c, _) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        out
    };
    table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| {
            use std::os::unix::ffi::OsStringExt;
            PathBuf::from(std::ffi::OsString::from_vec(unescape(field)))
        })
        .filter(|m| m != dir && m.starts_with(dir))
        .collect()
}

/// Links a file this build made (crate::made_files) into DIR's folder `to` as `name` (its
/// temporary name): true when the link names a regular file of the size the build wrote (else
/// the caller copies it, reading it back held to its sha256). The made folder is the build's own
/// and its files were written from the bytes whose sha256 the tree records
/// (docs/scale.md#made-as-written).
pub(crate) fn link_made(file: &DiskFile, to: BorrowedFd<'_>, name: &str) -> bool {
    let from = file.path();
    if rustix::fs::linkat(rustix::fs::CWD, &from, to, name, AtFlags::empty()).is_err() {
        return false;
    }
    let linked = stat_in(to, name)
        .is_ok_and(|s| is_regular(&s) && s.st_size as u64 == file.len && s.st_mode & 0o111 == 0);
    if !linked {
        let _ = rustix::fs::unlinkat(to, name, AtFlags::empty());
    }
    linked
}

/// DIR's `name` in its folder `from` (`rel` in DIR) holds exactly `content`'s bytes, so the
/// build does not touch it (docs/build.md#the-write): told by the last build's record when it
/// still describes the file (docs/scale.md#comparing-without-reading), else read and compared.
/// Only a regular, non-executable file qualifies (git would record an executable's mode).
pub(crate) fn unchanged(
    known: &mut DirRecords,
    rel: &str,
    from: BorrowedFd<'_>,
    name: &str,
    content: &Content,
) -> bool {
    match recorded(known, rel, from, name, content) {
        Some((same, _)) => same,
        None => same_bytes(from, name, content).is_some(),
    }
}

/// What the last build's record tells of `name` in DIR's folder `from` (`rel` in DIR) without
/// reading it: `None` when there is no record or the file changed since (it is read and
/// compared); else whether it holds `content`'s bytes (its recorded sha256 is `content`'s),
/// with its stat data. Like [`same_bytes`], only a regular, non-executable file of the same
/// size qualifies; the stat data is read without following a symlink.
fn recorded(
    known: &mut DirRecords,
    rel: &str,
    from: BorrowedFd<'_>,
    name: &str,
    content: &Content,
) -> Option<(bool, rustix::fs::Stat)> {
    let recorded = known.get(rel)?;
    let stat = stat_in(from, name).ok()?;
    if !is_regular(&stat)
        || stat.st_size as u64 != content.len()
        || stat.st_mode & 0o111 != 0
        || !recorded.describes(&stat)
    {
        return None;
    }
    Some((content.sha256().is_ok_and(|d| d == recorded.sha256), stat))
}

/// The stat data of `name` in `folder` when it is a regular, non-executable file (opened
/// without following a symlink or blocking on a FIFO) holding exactly `content`'s bytes (for a
/// file on disk whose sha256 is known, the sha256 of DIR's copy is compared, and the source is
/// not read).
fn same_bytes(folder: BorrowedFd<'_>, name: &str, content: &Content) -> Option<rustix::fs::Stat> {
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(folder, name, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&file).ok()?;
    // Not an executable file either: git would record its mode (100755) where a fresh copy is
    // a plain file (100644).
    if !is_regular(&stat) || stat.st_size as u64 != content.len() || stat.st_mode & 0o111 != 0 {
        return None;
    }
    let mut held = Vec::with_capacity(content.len() as usize);
    std::fs::File::from(file)
        .take(content.len() + 1)
        .read_to_end(&mut held)
        .ok()?;
    let same = match (content, content.known_sha256()) {
        (Content::Bytes(bytes), _) => held == *bytes,
        // A proof checked from the store, a part made again: compared by digest, not re-read.
        (_, Some(d)) => {
            held.len() as u64 == content.len() && exhibit_protocol::Digest::of(&held) == d
        }
        (_, None) => content.bytes().is_ok_and(|b| *b == *held),
    };
    same.then_some(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tree` written as DIR, its journal beside DIR (as for a DIR in no repository).
    fn write_checked(dir: &Path, tree: &Tree, known: DirRecords) -> Result<()> {
        let name = dir.file_name().unwrap().to_string_lossy();
        let journal = dir.with_file_name(format!(".{name}.exhibit-journal"));
        write_journaled(dir, tree, known, &journal).map(|_| ())
    }

    #[test]
    fn mounts_below_dir_are_found_escapes_read_and_dir_itself_is_not_one() {
        let table = "22 1 0:21 / /proc rw - proc proc rw\n\
45 27 0:40 / /srv/site rw - tmpfs none rw\n\
46 27 0:41 / /srv/site/ledger/x rw - tmpfs none rw\n\
47 27 8:1 /home/op /srv/site/my\\040home rw - ext4 /dev/sda1 rw\n\
48 27 0:42 / /srv/site2/y rw - tmpfs none rw\n";
        assert_eq!(
            mounts_below(table, Path::new("/srv/site")),
            [
                PathBuf::from("/srv/site/ledger/x"),
                PathBuf::from("/srv/site/my home")
            ]
        );
        assert!(mounts_below(table, Path::new("/srv/other")).is_empty());
    }
    use std::sync::Arc;

    #[test]
    fn a_failed_write_leaves_dir_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), b"old").unwrap();
        let mut tree = Tree::default();
        tree.put("ok.txt", b"x".to_vec());
        // A path that cannot be created (a file where a folder must go).
        tree.put("ok.txt/inner", b"y".to_vec());
        // An unchanged file (the paths are not the output's: written past that check, so that
        // the write itself refuses the shape before a byte is written).
        tree.put("keep.txt", b"old".to_vec());
        assert!(write_checked(&dir, &tree, DirRecords::none()).is_err());
        assert_eq!(read_tree(&dir, None).unwrap().len(), 1);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"old");
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir.join("keep.txt")).unwrap();
        assert_eq!(meta.nlink(), 1);
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no journal left beside DIR");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file"
        );
    }

    /// A store's proof kept on disk: checked once, read again when DIR is written.
    fn kept_proof(folder: &Path, name: &str, bytes: &[u8]) -> DiskFile {
        std::fs::write(folder.join(name), bytes).unwrap();
        DiskFile::checked(&Arc::from(folder), name, FileClass::Proof, bytes)
    }

    #[test]
    fn a_kept_file_is_copied_and_one_that_changed_since_its_check_fails_the_build() {
        let tmp = tempfile::tempdir().unwrap();
        let (store, dir) = (tmp.path().join("store"), tmp.path().join("site"));
        std::fs::create_dir(&store).unwrap();
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"checked bytes"));
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(
            std::fs::read(dir.join("p/a.ots")).unwrap(),
            b"checked bytes"
        );
        // A copy, not a link: the store's file may be rewritten by the tail later.
        assert_ne!(inode(&dir.join("p/a.ots")), inode(&store.join("a.ots")));

        // Same size, other bytes, after the check: a build that wrote them would publish bytes
        // nobody checked. It fails and DIR keeps what it held.
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"checked bytes"));
        // New to DIR, written under its temporary name before b.ots fails.
        tree.put("p/a1.ots", b"new".to_vec());
        tree.put_file("p/b.ots", kept_proof(&store, "b.ots", b"other"));
        std::fs::write(store.join("b.ots"), b"OTHER").unwrap();
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(
            format!("{err:#}").contains("changed while the build ran"),
            "{err:#}"
        );
        assert!(!dir.join("p/b.ots").exists());
        assert_eq!(
            std::fs::read(dir.join("p/a.ots")).unwrap(),
            b"checked bytes"
        );
        // Gone since its check: the same.
        std::fs::remove_file(store.join("b.ots")).unwrap();
        assert!(write_checked(&dir, &tree, DirRecords::none()).is_err());
        let leftovers = std::fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(leftovers, 2, "store and site only: no journal left");
        // The failed build's temporary files are gone: a1.ots's was written before b.ots failed.
        let names: Vec<String> = std::fs::read_dir(dir.join("p"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.ots"], "no temporary file left");
    }

    #[test]
    fn a_kept_file_equal_to_dirs_copy_is_linked_without_reading_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let (store, dir) = (tmp.path().join("store"), tmp.path().join("site"));
        std::fs::create_dir(&store).unwrap();
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"proof"));
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let before = inode(&dir.join("p/a.ots"));
        // DIR's copy is compared by its sha256 with the checked bytes': the store's file is
        // not needed (removing it shows it is not read).
        std::fs::remove_file(store.join("a.ots")).unwrap();
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(inode(&dir.join("p/a.ots")), before);
    }

    /// An empty list of the per-line proofs of the store folder `store`, as the witness layer
    /// makes it.
    fn proof_list(store: &Arc<Path>) -> ListedFiles {
        ListedFiles::new(ListedFolder::WitnessProofs, store, FileClass::Proof)
    }

    /// The published path of the proof named by the digest `[d; 32]`.
    fn proof_path(d: u8) -> String {
        format!(
            "{}/{}.ots",
            ListedFolder::WitnessProofs.path(),
            exhibit_protocol::Digest([d; 32])
        )
    }

    /// `n` proofs named by digests written into `store`, kept as the witness layer keeps them
    /// for a segmented exhibit (header let go), in the order given.
    fn proofs_in(store: &Path, digests: &[u8]) -> Vec<(String, DiskFile)> {
        digests
            .iter()
            .map(|&d| {
                let name = format!("{}.ots", exhibit_protocol::Digest([d; 32]));
                let mut file = kept_proof(store, &name, &[d; 3]);
                file.forget_head();
                (
                    format!("{}/{name}", ListedFolder::WitnessProofs.path()),
                    file,
                )
            })
            .collect()
    }

    /// Released texts named by their sha256 written into `folder`, kept as the public-texts
    /// layer keeps the texts DIR holds (a file of DIR's, its sha256 known), in the order given.
    fn texts_in(folder: &Path, texts: &[&str]) -> Vec<(String, DiskFile)> {
        texts
            .iter()
            .map(|text| {
                let sha256 = exhibit_protocol::Digest::of(text.as_bytes());
                let name = format!("{sha256}.txt");
                std::fs::write(folder.join(&name), text).unwrap();
                let file =
                    DiskFile::of_dir(Arc::from(folder), &name, text.len() as u64, Some(sha256));
                (format!("{}/{name}", ListedFolder::PublicTexts.path()), file)
            })
            .collect()
    }

    /// The same files, held in the map one by one and listed, with neighbours on both sides of
    /// the proofs folder and of the texts folder (a name sorting just before and just after
    /// each, and a name not a digest's inside each).
    fn held_and_listed(store: &Path) -> (Tree, Tree) {
        let proofs = proofs_in(store, &[0x00, 0x7f, 0xab, 0xff]);
        let texts = texts_in(store, &["Hello", "See you at nine", "ok"]);
        let mut held = Tree::default();
        let mut listed = Tree::default();
        for t in [&mut held, &mut listed] {
            t.put("ledger/witness/index.json", b"{}".to_vec());
            t.put("ledger/witness/proofs-not.txt", b"x".to_vec());
            t.put("ledger/witness/proofs/prereg_x.ots", b"p".to_vec());
            t.put("ledger/witness/proofs/0zz.ots", b"q".to_vec());
            t.put("ledger/witness/runs.jsonl", b"r".to_vec());
            t.put("ledger/segments/000001.jsonl", b"s".to_vec());
            t.put("ledger/public_texts.txt", b"t".to_vec());
            t.put("ledger/public_texts/index.json", b"{}".to_vec());
            t.put("ledger/public_texts/index/000001.json", b"{}".to_vec());
            t.put("ledger/public_texts/zz.txt", b"u".to_vec());
            t.put("ledger/public_textsz/a.txt", b"v".to_vec());
        }
        let mut list = proof_list(&Arc::from(store));
        for (path, file) in proofs {
            held.put_file(path, file.clone());
            list.push(file).unwrap();
        }
        list.finish();
        listed.put_listed(list);
        let mut list = ListedFiles::new(
            ListedFolder::PublicTexts,
            &Arc::from(store),
            FileClass::OutputFile,
        );
        for (path, file) in texts {
            held.put_file(path, file.clone());
            list.push(file).unwrap();
        }
        list.finish();
        listed.put_listed(list);
        assert_eq!(listed.listed.len(), 2);
        (held, listed)
    }

    #[test]
    fn proof_buckets_listed_beside_the_flat_list_and_the_map_iterate_in_path_order() {
        // The flat proofs folder's files interleave with its buckets' (`proofs/000000/…` sorts
        // between `proofs/<hex>.ots` names): the lists taken one after the other, in the
        // folders' order, were out of path order (docs/scale.md#the-proofs-folder-as-a-list).
        // Caught: lists concatenated, a prefix that drops or keeps a bucket wrongly, a lookup
        // by path that misses a bucket's proof.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let placed = |d: u8, folder: ListedFolder| {
            let name = format!("{}.ots", exhibit_protocol::Digest([d; 32]));
            let mut file = kept_proof(tmp.path(), &name, &[d; 3]);
            file.forget_head();
            (format!("{}/{name}", folder.path()), file)
        };
        let lists = [
            (
                ListedFolder::WitnessProofs,
                &[0x00, 0x01, 0x0f, 0x7f, 0xff][..],
            ),
            (ListedFolder::WitnessProofBucket(0), &[0x02, 0xaa][..]),
            (ListedFolder::WitnessProofBucket(1), &[0x03, 0x04, 0xfe][..]),
            (ListedFolder::WitnessProofOther, &[0x05][..]),
        ];
        let mut held = Tree::default();
        let mut listed = Tree::default();
        for t in [&mut held, &mut listed] {
            for path in [
                "ledger/witness/index.json",
                "ledger/witness/proofs.json",
                "ledger/witness/proofs/000000.json",
                "ledger/witness/proofs/000000/zz.ots",
                "ledger/witness/proofs/0000001/a.ots",
                "ledger/witness/proofs/000001/README",
                "ledger/witness/proofs/0f0f.ots",
                "ledger/witness/proofs/other/README",
                "ledger/witness/proofs/prereg_x.ots",
                "ledger/witness/runs.jsonl",
            ] {
                t.put(path, b"m".to_vec());
            }
        }
        let flat = proof_list(&store);
        for (folder, digests) in lists {
            let mut list = flat.of_folder(folder);
            for &d in digests {
                let (path, file) = placed(d, folder);
                held.put_file(path, file.clone());
                list.push(file).unwrap();
            }
            list.finish();
            listed.put_listed(list);
        }
        assert_eq!(listed.listed.len(), 4);
        assert_eq!(listed.held.len(), 10, "every proof listed");
        let paths = |t: &Tree, prefix: &str| -> Vec<String> {
            t.iter_under(prefix).map(|(p, _)| p.into_owned()).collect()
        };
        let all = paths(&listed, "");
        let in_order: BTreeMap<String, ()> = all.iter().map(|p| (p.clone(), ())).collect();
        assert_eq!(all, in_order.into_keys().collect::<Vec<_>>(), "path order");
        assert_eq!(all.len(), 21);
        assert_eq!(listed, held);
        for prefix in [
            "",
            "ledger/witness/proofs",
            "ledger/witness/proofs/",
            "ledger/witness/proofs/0",
            "ledger/witness/proofs/000000",
            "ledger/witness/proofs/000000/",
            "ledger/witness/proofs/000001/0",
            "ledger/witness/proofs/0000001",
            "ledger/witness/proofs/other/",
            "ledger/witness/proofs/f",
            "ledger/witness/proofs/000000/aaaa",
            "ledger/witness/q",
        ] {
            assert_eq!(paths(&listed, prefix), paths(&held, prefix), "{prefix}");
        }
        for (path, content) in held.iter() {
            assert_eq!(listed.entry(&path).as_deref(), Some(&*content), "{path}");
            assert!(listed.contains(&path));
        }
        let bucketed = placed(0xaa, ListedFolder::WitnessProofBucket(0)).0;
        assert!(ListedFolder::holds_path(&bucketed));
        assert!(!ListedFolder::holds_path(
            "ledger/witness/proofs/000000/zz.ots"
        ));
        // Put over: the listed proof is replaced, never held twice.
        listed.put(bucketed.clone(), b"new".to_vec());
        assert_eq!(listed.len(), 21);
        assert_eq!(listed.get(&bucketed), Some(&b"new"[..]));
    }

    #[test]
    fn a_listed_proofs_folder_reads_as_the_same_files_held_one_by_one() {
        // Catches a merge that puts the list before or after the folder's neighbours, a
        // prefix filter that drops the list (or keeps it outside the prefix), and a lookup
        // that misses a listed name.
        let tmp = tempfile::tempdir().unwrap();
        // A folder is found again by its path (a tree finds a path's list so).
        for f in [
            ListedFolder::PublicTexts,
            ListedFolder::WitnessProofs,
            ListedFolder::WitnessProofBucket(0),
            ListedFolder::WitnessProofBucket(244),
            ListedFolder::WitnessProofOther,
        ] {
            assert_eq!(ListedFolder::of_folder(&f.path()), Some(f), "{f:?}");
        }
        assert_eq!(ListedFolder::of_folder("ledger/witness/proofs/00001"), None);
        assert_eq!(ListedFolder::of_folder("ledger/witness"), None);
        let (held, listed) = held_and_listed(tmp.path());
        assert_eq!(held.len(), 18);
        assert_eq!(listed.len(), held.len());
        let all = |t: &Tree| -> Vec<(String, Content)> {
            t.iter()
                .map(|(p, c)| (p.into_owned(), c.into_owned()))
                .collect()
        };
        assert_eq!(all(&listed), all(&held));
        assert!(all(&held).windows(2).all(|w| w[0].0 < w[1].0), "path order");
        for prefix in [
            "",
            "ledger/",
            "ledger/witness/",
            "ledger/witness/proofs",
            "ledger/witness/proofs/",
            "ledger/witness/proofs/7",
            "ledger/witness/proofs/ff",
            "ledger/witness/r",
            "ledger/segments/",
            "ledger/p",
            "ledger/public_texts",
            "ledger/public_texts/",
            "ledger/public_texts/i",
            "ledger/public_texts/index",
            "nothing/",
        ] {
            let under = |t: &Tree| -> Vec<String> {
                t.iter_under(prefix).map(|(p, _)| p.into_owned()).collect()
            };
            assert_eq!(under(&listed), under(&held), "under {prefix:?}");
        }
        for (path, content) in all(&held) {
            assert!(listed.contains(&path), "{path}");
            assert_eq!(listed.entry(&path).unwrap().into_owned(), content, "{path}");
            assert_eq!(
                listed.read(&path).unwrap().unwrap().into_owned(),
                content.bytes().unwrap().into_owned()
            );
        }
        let missing = proof_path(1);
        assert!(!listed.contains(&missing) && listed.entry(&missing).is_none());
        // The uppercase spelling of a listed name is another file.
        let upper = format!(
            "{}/{}.ots",
            ListedFolder::WitnessProofs.path(),
            "AB".repeat(32)
        );
        assert!(!listed.contains(&upper));
        // A listed name in the other listed folder, or with the other folder's suffix, is
        // another file.
        for (path, _) in all(&held) {
            for (from, to) in [
                ("ledger/public_texts/", "ledger/witness/proofs/"),
                ("ledger/witness/proofs/", "ledger/public_texts/"),
                (".txt", ".ots"),
                (".ots", ".txt"),
            ] {
                let moved = path.replace(from, to);
                assert_eq!(listed.contains(&moved), held.contains(&moved), "{moved}");
            }
        }
        assert_eq!(listed, held);
    }

    #[test]
    fn many_files_put_at_once_are_the_files_put_one_by_one() {
        // Catches a put of many that loses the files of all but one slice (more files than a
        // slice), keeps the earlier of two files at one path, leaves the tree's own file where
        // the list has one, drops what the tree held before, or leaves a listed proof beside a
        // file put at its path (the tree would write the path twice).
        let tmp = tempfile::tempdir().unwrap();
        let (mut one_by_one, mut at_once) = held_and_listed(tmp.path());
        let mut files: Vec<(String, Content)> = (0..20_000u32)
            .rev()
            .map(|k| {
                let path = format!(
                    "ledger/public_texts/{:08x}.txt",
                    k.wrapping_mul(2_654_435_761)
                );
                (path, Content::Bytes(k.to_le_bytes().to_vec()))
            })
            .collect();
        files.push((
            "ledger/public_texts/0000000a.txt".into(),
            Content::Bytes(b"first".to_vec()),
        ));
        files.push((
            "ledger/witness/index.json".into(),
            Content::Bytes(b"theirs".to_vec()),
        ));
        files.push((proof_path(0xab), Content::Bytes(b"over a proof".to_vec())));
        files.push((
            "ledger/public_texts/0000000a.txt".into(),
            Content::Bytes(b"second".to_vec()),
        ));
        for (path, content) in files.clone() {
            one_by_one.put_content(path, content);
        }
        at_once.put_many(files);
        assert_eq!(at_once.len(), one_by_one.len());
        assert_eq!(at_once, one_by_one);
        assert_eq!(
            at_once.get("ledger/public_texts/0000000a.txt"),
            Some(&b"second"[..])
        );
        assert_eq!(
            at_once.get("ledger/witness/index.json"),
            Some(&b"theirs"[..])
        );
        assert_eq!(at_once.get(&proof_path(0xab)), Some(&b"over a proof"[..]));
        // Already sorted, each path once: the same again.
        let mut sorted = Tree::default();
        let mut by_one = Tree::default();
        let files: Vec<(String, Content)> = (0..9_000u32)
            .map(|k| (format!("t/{k:06}"), Content::Bytes(vec![k as u8])))
            .collect();
        for (path, content) in files.clone() {
            by_one.put_content(path, content);
        }
        sorted.put("t/000005", b"mine".to_vec());
        sorted.put_many(files);
        assert_eq!(sorted, by_one);
    }

    #[test]
    fn a_path_put_over_a_listed_proof_replaces_it_and_a_list_put_over_held_files_replaces_them() {
        // Catches a tree that would hold (and write) one path twice.
        let tmp = tempfile::tempdir().unwrap();
        let (mut held, mut listed) = held_and_listed(tmp.path());
        let path = proof_path(0x7f);
        held.put(path.clone(), b"carried".to_vec());
        listed.put(path.clone(), b"carried".to_vec());
        assert_eq!(listed.len(), 18);
        assert_eq!(listed.get(&path), Some(&b"carried"[..]));
        assert_eq!(listed, held);
        // Likewise a path put over a listed text, in the other list.
        let (text, _) = texts_in(tmp.path(), &["ok"]).remove(0);
        held.put(text.clone(), b"made again".to_vec());
        listed.put(text.clone(), b"made again".to_vec());
        assert_eq!(listed.len(), 18);
        assert_eq!(listed.get(&text), Some(&b"made again"[..]));
        assert_eq!(listed, held);

        let mut tree = Tree::default();
        tree.put(path.clone(), b"old".to_vec());
        let mut list = proof_list(&Arc::from(tmp.path()));
        for (_, file) in proofs_in(tmp.path(), &[0x7f]) {
            list.push(file).unwrap();
        }
        tree.put_listed(list);
        assert_eq!(tree.len(), 1);
        assert_eq!(
            tree.read(&path).unwrap().unwrap().into_owned(),
            vec![0x7f; 3]
        );
        assert_eq!(
            tree.get(&path),
            None,
            "a listed proof is a file on disk, not bytes"
        );

        // A second list: of the same store, it replaces the first's proofs of the same name and
        // adds the rest; of another store, its proofs are held in the map. No path twice.
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let mut same = proof_list(&Arc::from(tmp.path()));
        for (_, mut file) in proofs_in(tmp.path(), &[0x7f, 0x01]) {
            file.len = 9;
            same.push(file).unwrap();
        }
        same.finish();
        tree.put_listed(same);
        let mut elsewhere = proof_list(&Arc::from(other.as_path()));
        for (_, file) in proofs_in(&other, &[0x01, 0x02]) {
            elsewhere.push(file).unwrap();
        }
        elsewhere.finish();
        tree.put_listed(elsewhere);
        let got: Vec<(String, u64)> = tree
            .iter()
            .map(|(p, c)| (p.into_owned(), c.len()))
            .collect();
        let name = proof_path;
        assert_eq!(got, vec![(name(1), 3), (name(2), 3), (name(0x7f), 9)]);
        assert_eq!(tree.len(), 3);
        assert_eq!(
            tree.entry(&name(1)).unwrap().bytes().unwrap().into_owned(),
            vec![1; 3]
        );
    }

    #[test]
    fn only_a_checked_digest_named_proof_of_the_lists_folder_is_listed() {
        // Catches a list that would take a file it cannot say again exactly: another folder's,
        // one whose header is still needed, one not named by a digest, one never checked, one
        // whose length a listed entry cannot hold.
        let tmp = tempfile::tempdir().unwrap();
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let mut list = proof_list(&Arc::from(tmp.path()));
        let (_, good) = proofs_in(tmp.path(), &[1]).remove(0);
        let (_, foreign) = proofs_in(&other, &[2]).remove(0);
        let with_head = kept_proof(
            tmp.path(),
            &format!("{}.ots", exhibit_protocol::Digest([3; 32])),
            b"h",
        );
        let mut text = kept_proof(tmp.path(), "prereg_x.ots", b"t");
        text.forget_head();
        let mut unchecked = good.clone();
        unchecked.sha256 = None;
        // A file of 4 GiB or more (a DIR's, listed for the review) is not cut to 4 bytes.
        let mut huge = good.clone();
        huge.len = 1 << 32;
        for file in [foreign, with_head, text, unchecked, huge] {
            assert!(list.push(file).is_err());
        }
        assert!(list.push(good).is_ok());
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn random_trees_read_the_same_held_or_listed() {
        // A differential check of the merge: many random trees, each held one path at a time
        // and with its digest-named proofs listed, must list, filter, find and compare alike.
        // Paths crowd the folder's edges (names sorting just before and after `proofs/`, text
        // names inside it, digests of extreme bytes); prefixes cut anywhere in those paths.
        // Half the lists name their files from a shared table (the witness layer's store ids,
        // with ids no file has between them): one that gives a file its neighbour's name, or
        // sorts by position where the table is not the order, fails.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let outside = [
            "index.html",
            "ledger/STATS.json",
            "ledger/witness/index.json",
            "ledger/witness/proofs-x",
            "ledger/witness/proofs.json",
            "ledger/witness/proofsz/a.ots",
            "ledger/witness/runs/000001.jsonl",
            "ledger/witness/proofs/prereg_1.ots",
            "ledger/witness/proofs/0.ots",
            "ledger/witness/proofs/zz.ots",
            "ledger/witness/proofs/sub/x.ots",
        ];
        let byte = |n: u64| [0x00u8, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xf0, 0xfe, 0xff][n as usize];
        for round in 0..200u32 {
            let mut held = Tree::default();
            let mut listed = Tree::default();
            for path in outside.iter().filter(|_| next(2) == 0) {
                held.put(*path, path.as_bytes().to_vec());
                listed.put(*path, path.as_bytes().to_vec());
            }
            let mut digests = Vec::new();
            for _ in 0..next(6) {
                let mut d = [byte(next(9)); 32];
                d[31] = byte(next(9));
                digests.push(d);
            }
            let mut list = if next(2) == 0 {
                proof_list(&store)
            } else {
                let mut table: Vec<exhibit_protocol::Digest> = digests
                    .iter()
                    .copied()
                    .chain((0..next(4)).map(|_| [byte(next(9)); 32]))
                    .map(exhibit_protocol::Digest)
                    .collect();
                table.sort_unstable();
                table.dedup();
                // Every other round the table reads its digests from lines that hold them
                // in reverse, as the witness layer's does (docs/scale.md#ids-by-line).
                let ids = crate::sorted_ids::SortedIds::own(table.clone());
                let ids = if round.is_multiple_of(2) {
                    ids
                } else {
                    let lines: Vec<exhibit_protocol::Digest> =
                        table.iter().rev().copied().collect();
                    let n = lines.len();
                    ids.by_line(Arc::new(TestLines(lines)), move |k| Some(n - 1 - k))
                };
                ListedFiles::naming_from(
                    ListedFolder::WitnessProofs,
                    &store,
                    FileClass::Proof,
                    Arc::new(ids),
                )
            };
            for d in &digests {
                let file = DiskFile {
                    folder: store.clone(),
                    name: FileName::Proof(*d),
                    class: FileClass::Proof,
                    len: next(1000),
                    sha256: Some(exhibit_protocol::Digest([d[0]; 32])),
                    head: None,
                    head_len: 0,
                };
                let path = format!(
                    "{}/{}.ots",
                    ListedFolder::WitnessProofs.path(),
                    exhibit_protocol::Digest(*d)
                );
                held.put_file(path, file.clone());
                list.push(file).unwrap();
            }
            list.finish();
            listed.put_listed(list);
            let all = |t: &Tree| -> Vec<(String, Content)> {
                t.iter()
                    .map(|(p, c)| (p.into_owned(), c.into_owned()))
                    .collect()
            };
            let want = all(&held);
            assert_eq!(all(&listed), want);
            assert_eq!(listed.len(), held.len());
            assert!(want.windows(2).all(|w| w[0].0 < w[1].0));
            for (path, _) in want.iter().take(4) {
                let cut = &path[..next(path.len() as u64 + 1) as usize];
                let under = |t: &Tree| -> Vec<String> {
                    t.iter_under(cut).map(|(p, _)| p.into_owned()).collect()
                };
                assert_eq!(under(&listed), under(&held), "under {cut:?}");
            }
            let probe = format!(
                "{}/{}.ots",
                ListedFolder::WitnessProofs.path(),
                exhibit_protocol::Digest([byte(next(9)); 32])
            );
            assert_eq!(listed.contains(&probe), held.contains(&probe), "{probe}");
            assert_eq!(
                listed.entry(&probe).map(Cow::into_owned),
                held.entry(&probe).map(Cow::into_owned)
            );
            let side: Vec<_> = joined(&held, &listed)
                .map(|(p, a, b)| {
                    (
                        p.into_owned(),
                        a.map(Cow::into_owned),
                        b.map(Cow::into_owned),
                    )
                })
                .collect();
            assert!(
                side.iter().all(|(_, a, b)| a.is_some() && a == b),
                "{side:?}"
            );
        }
    }

    /// Lines holding digests, for a table that reads its digests from them.
    #[derive(Debug)]
    struct TestLines(Vec<exhibit_protocol::Digest>);

    impl crate::sorted_ids::LineIds for TestLines {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn entry_id(&self, line: usize) -> exhibit_protocol::Digest {
            self.0[line]
        }
    }

    #[test]
    fn a_list_naming_from_a_shared_table_hands_back_a_name_it_lacks_and_lists_as_its_own() {
        // Catches a shared table that takes a name it does not hold (given a neighbour's
        // position), a list that trusts a table out of order (its lookups would miss), and
        // lists that hold the same files but compare unequal for how they keep names.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let proofs = proofs_in(tmp.path(), &[1, 3, 9]);
        let table = |ds: &[u8]| {
            Arc::new(crate::sorted_ids::SortedIds::own(
                ds.iter()
                    .map(|&d| exhibit_protocol::Digest([d; 32]))
                    .collect(),
            ))
        };
        let mut shared = ListedFiles::naming_from(
            ListedFolder::WitnessProofs,
            &store,
            FileClass::Proof,
            table(&[1, 2, 3, 4]),
        );
        assert!(matches!(shared.names, ListedNames::Shared(_)));
        let mut own = proof_list(&store);
        for (k, (_, file)) in proofs.iter().enumerate() {
            own.push(file.clone()).unwrap();
            assert_eq!(shared.push(file.clone()).is_ok(), k < 2, "{k}");
        }
        shared.finish();
        own.remove(&proof_path(9));
        assert_eq!(shared, own);
        assert!(shared.find(&proof_path(3)).is_some());
        assert!(shared.find(&proof_path(2)).is_none());
        // A table out of order (or with a name twice) is not shared: the list keeps its own.
        for bad in [table(&[3, 1]), table(&[1, 1, 3])] {
            let mut list = ListedFiles::naming_from(
                ListedFolder::WitnessProofs,
                &store,
                FileClass::Proof,
                bad,
            );
            assert!(matches!(list.names, ListedNames::Own(_)));
            for (_, file) in &proofs {
                list.push(file.clone()).unwrap();
            }
            list.finish();
            assert_eq!(list.len(), 3);
            assert!(list.find(&proof_path(9)).is_some());
        }
    }

    #[test]
    fn a_list_pushed_out_of_order_is_sorted_and_keeps_the_last_of_a_name() {
        let tmp = tempfile::tempdir().unwrap();
        let proofs = proofs_in(tmp.path(), &[9, 3, 9, 1]);
        let mut list = proof_list(&Arc::from(tmp.path()));
        for (_, file) in &proofs {
            list.push(file.clone()).unwrap();
        }
        // The second 9 (pushed last of its name) holds other bytes than the first.
        let mut last = proofs[2].1.clone();
        last.len = 7;
        list.push(last).unwrap();
        list.finish();
        let got: Vec<(String, u64)> = list.iter().map(|(p, c)| (p, c.len())).collect();
        let name = proof_path;
        assert_eq!(got, vec![(name(1), 3), (name(3), 3), (name(9), 7)]);
    }

    #[test]
    fn a_tree_with_listed_proofs_is_written_and_compared_file_by_file() {
        // Catches a write stage or a review that walks the map alone.
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        std::fs::create_dir(&store).unwrap();
        let dir = tmp.path().join("site");
        let (held, listed) = held_and_listed(&store);
        write_checked(&dir, &listed, DirRecords::none()).unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        assert_eq!(on_disk.len(), held.len());
        for (path, content) in held.iter() {
            assert_eq!(
                std::fs::read(dir.join(&*path)).unwrap(),
                content.bytes().unwrap().into_owned(),
                "{path}"
            );
        }
        let side_by_side: Vec<_> = joined(&on_disk, &listed)
            .map(|(p, a, b)| (p.into_owned(), a.is_some(), b.is_some()))
            .collect();
        assert_eq!(side_by_side.len(), held.len());
        assert!(
            side_by_side.iter().all(|(_, a, b)| *a && *b),
            "{side_by_side:?}"
        );
        // One listed proof missing from DIR, one file only DIR has.
        let gone = proof_path(0xab);
        std::fs::remove_file(dir.join(&gone)).unwrap();
        std::fs::write(dir.join("ledger/extra.txt"), b"e").unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        let differ: Vec<_> = joined(&on_disk, &listed)
            .filter(|(_, a, b)| a.is_none() || b.is_none())
            .map(|(p, a, _)| (p.into_owned(), a.is_some()))
            .collect();
        assert_eq!(
            differ,
            vec![("ledger/extra.txt".to_string(), true), (gone, false)]
        );
    }

    #[test]
    fn a_tree_entry_stays_small() {
        // A million proofs are a million entries of the tree's map: each byte here is a
        // megabyte there (docs/scale.md#memory). Catches a header held inline again; the name,
        // kept as a digest, adds 16 bytes here and saves an 80-byte allocation per proof.
        let size = std::mem::size_of::<Content>();
        assert!(
            size <= 112,
            "Content is {size} bytes (152 when the header was inline and the name a String)"
        );
        // A proof whose header was let go reads it again from its file, by its name kept as a
        // digest.
        let tmp = tempfile::tempdir().unwrap();
        let hex = "0a".repeat(32);
        let mut file = kept_proof(tmp.path(), &format!("{hex}.ots"), b"0123456789");
        assert!(matches!(file.name, FileName::Proof(_)));
        assert_eq!(file.path(), tmp.path().join(format!("{hex}.ots")));
        file.forget_head();
        assert_eq!(&*Content::File(file).head(4), b"0123");
        // Only the exact shape is kept as a digest; every other name as it is, byte for byte.
        for name in [
            format!("{}.ots", "0A".repeat(32)),
            format!("prereg_{hex}.ots"),
            format!("{hex}.ots.ots"),
            format!("{}.ots", &hex[1..]),
            "p.ots".to_string(),
        ] {
            let n = FileName::new(&name);
            assert!(matches!(n, FileName::Other(_)), "{name}");
            assert_eq!(n.text(), name);
        }
        assert_eq!(
            FileName::new(&format!("{hex}.ots")).text(),
            format!("{hex}.ots")
        );
    }

    #[test]
    fn contents_compare_by_their_bytes_whatever_holds_them() {
        let tmp = tempfile::tempdir().unwrap();
        // Two spans of the gate's ledger, the withheld line between them left out.
        let gate = tmp.path().join("ledger.jsonl");
        std::fs::write(&gate, b"head\nline one\nwithheld\nline two\n").unwrap();
        let ledger = Arc::new(crate::gate_ledger::GateLedger::open(&gate).unwrap());
        let shared = Content::Ledger(crate::gate_ledger::LedgerSpans::new(
            ledger,
            vec![(0, 14), (23, 32)],
        ));
        let bytes = Content::Bytes(b"head\nline one\nline two\n".to_vec());
        let file = Content::File(kept_proof(tmp.path(), "f", b"head\nline one\nline two\n"));
        assert_eq!(shared.len(), bytes.len());
        assert_eq!(&*shared.bytes().unwrap(), b"head\nline one\nline two\n");
        assert_eq!(shared.sha256().unwrap(), bytes.sha256().unwrap());
        assert_eq!(&*shared.head(7), b"head\nli");
        for (a, b) in [(&shared, &bytes), (&bytes, &file), (&shared, &file)] {
            assert!(a.same(b).unwrap() && b.same(a).unwrap());
        }
        // One byte off, same size: not the same, however it is held.
        let off = Content::Bytes(b"head\nline one\nline twO\n".to_vec());
        for other in [&shared, &bytes, &file] {
            assert!(!off.same(other).unwrap() && !other.same(&off).unwrap());
        }
        // DIR's file listed by read_tree (no digest): read and compared.
        let listed = read_tree(tmp.path(), None).unwrap();
        assert!(listed.entry("f").unwrap().same(&shared).unwrap());
        assert!(!listed.entry("f").unwrap().same(&off).unwrap());
    }

    #[test]
    fn a_remade_file_is_made_again_to_be_written_and_must_come_out_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = made.clone();
        let remade = Remade::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            b"part bytes".to_vec()
        });
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        let mut tree = Tree::default();
        tree.put_content("part.json", Content::Remade(remade.clone()));
        assert!(
            tree.entry("part.json")
                .unwrap()
                .same(&Content::Bytes(b"part bytes".to_vec()))
                .unwrap()
        );
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), b"part bytes");
        let after_write = made.load(std::sync::atomic::Ordering::SeqCst);
        // DIR holds it already: compared by digest and linked, not made a third time.
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), after_write);

        // A maker that is not deterministic is caught before a byte is written.
        let flip = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let unstable = Remade::new(move || {
            let n = flip.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!("made {n}").into_bytes()
        });
        let mut tree = Tree::default();
        tree.put_content("part.json", Content::Remade(unstable));
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(format!("{err:#}").contains("came out different"), "{err:#}");
        assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), b"part bytes");

        // Written as it is made (docs/scale.md#nothing-made-to-be-dropped): what the making
        // writes is the file, and it is held to the first making's size and sha256 all the
        // same. Catches a streamed file written without the check, or a check against the
        // wrong bytes.
        let streamed = |writes: &'static [u8]| {
            Remade::streamed(
                14,
                exhibit_protocol::Digest::of(b"streamed bytes"),
                move |out| Ok(out.write_all(writes)?),
            )
        };
        let mut tree = Tree::default();
        tree.put("part.json", b"part bytes".to_vec());
        tree.put_content(
            "streamed.json",
            Content::Remade(streamed(b"streamed bytes")),
        );
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(
            std::fs::read(dir.join("streamed.json")).unwrap(),
            b"streamed bytes"
        );
        let mut tree = Tree::default();
        tree.put("part.json", b"part bytes".to_vec());
        tree.put_content("other.json", Content::Remade(streamed(b"streamed bytez")));
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(format!("{err:#}").contains("came out different"), "{err:#}");
        assert!(!dir.join("other.json").exists());
        assert_eq!(
            std::fs::read(dir.join("streamed.json")).unwrap(),
            b"streamed bytes"
        );
    }

    fn inode(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).unwrap().ino()
    }

    #[test]
    fn an_unchanged_file_is_not_touched_and_a_changed_one_written_anew() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let mut tree = Tree::default();
        tree.put("same.txt", b"same bytes".to_vec());
        tree.put("changed.txt", b"old".to_vec());
        tree.put("ledger/inner.txt", b"inner".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let (same, changed) = (
            inode(&dir.join("same.txt")),
            inode(&dir.join("changed.txt")),
        );

        // Same size, other bytes: a size-only comparison would keep "old".
        tree.put("changed.txt", b"new".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        assert_eq!(on_disk.len(), tree.len());
        for (path, content) in tree.iter() {
            assert!(
                on_disk.entry(&path).unwrap().same(&content).unwrap(),
                "{path}"
            );
        }
        assert_eq!(inode(&dir.join("same.txt")), same, "not touched");
        assert_ne!(inode(&dir.join("changed.txt")), changed, "written anew");
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir.join("same.txt")).unwrap();
        assert_eq!(meta.nlink(), 1, "no second name");

        // An executable file (git would keep its mode) is written anew, as a plain file.
        use std::os::unix::fs::PermissionsExt;
        let same = dir.join("same.txt");
        std::fs::set_permissions(&same, std::fs::Permissions::from_mode(0o755)).unwrap();
        let before = inode(&same);
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_ne!(inode(&same), before);
        assert_eq!(
            std::fs::metadata(&same).unwrap().permissions().mode() & 0o111,
            0
        );
    }

    #[test]
    fn a_file_reached_through_a_symlinked_folder_is_not_taken_for_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let mut tree = Tree::default();
        tree.put("ledger/inner.txt", b"inner".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        // Someone's own folder, holding a file with the very bytes, put in place of ledger/.
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("inner.txt"), b"inner").unwrap();
        std::fs::remove_dir_all(dir.join("ledger")).unwrap();
        std::os::unix::fs::symlink(&theirs, dir.join("ledger")).unwrap();
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_ne!(
            inode(&dir.join("ledger/inner.txt")),
            inode(&theirs.join("inner.txt")),
            "their file is not linked into the exhibit"
        );
        assert_eq!(std::fs::read(theirs.join("inner.txt")).unwrap(), b"inner");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(theirs.join("inner.txt")).unwrap().nlink(),
            1
        );
    }

    /// `tree` recorded as DIR's content after a pause longer than a clock tick (so that the
    /// racy rule keeps the records), then the records as the next build opens them.
    fn recorded_as(git: &Path, dir: &Path, tree: &Tree) -> DirRecords {
        std::thread::sleep(std::time::Duration::from_millis(30));
        crate::dir_stat::save(Some(git), dir, tree).unwrap();
        DirRecords::open(Some(git), dir)
    }

    #[test]
    fn dirs_recorded_proofs_are_listed_and_read_as_the_same_files() {
        // DIR's listing for the review: a per-line proof the record knows is listed (72 bytes,
        // not a map entry), one it does not know stays in the map, and either way the listing
        // says the same files, sizes and digests as a listing without the list would. Catches
        // a listing that loses DIR's proofs, lists an unrecorded one (its sha256 unknown: the
        // review would trust nothing), or reads them as the store's class.
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        std::fs::create_dir(&store).unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        std::fs::create_dir(&git).unwrap();
        let (held, listed) = held_and_listed(&store);
        write_checked(&dir, &listed, DirRecords::none()).unwrap();
        recorded_as(&git, &dir, &held);
        // Written after the record: not known, so kept in the map.
        let late = proof_path(0x42);
        std::fs::write(dir.join(&late), b"late").unwrap();
        let on_disk = read_tree(&dir, Some(&git)).unwrap();
        let list = on_disk
            .listed
            .iter()
            .find(|l| l.folder == ListedFolder::WitnessProofs)
            .expect("DIR's proofs listed");
        assert_eq!(list.len(), 4);
        assert_eq!(list.class, FileClass::OutputFile);
        // DIR's released texts likewise, read from DIR's folder, not the store's.
        let texts = on_disk
            .listed
            .iter()
            .find(|l| l.folder == ListedFolder::PublicTexts)
            .expect("DIR's texts listed");
        assert_eq!(texts.len(), 3);
        assert_eq!(*texts.store, *dir.join(&*ListedFolder::PublicTexts.path()));
        assert!(matches!(on_disk.held.get(&late), Some(Content::File(f)) if f.sha256.is_none()));
        let plain = read_tree(&dir, None).unwrap();
        assert!(plain.listed.is_empty());
        assert_eq!(on_disk.len(), plain.len());
        for ((p, a), (q, b)) in on_disk.iter().zip(plain.iter()) {
            assert_eq!((&p, a.len()), (&q, b.len()));
            assert_eq!(a.bytes().unwrap(), b.bytes().unwrap(), "{p}");
        }
        // The review compares DIR's listed proofs with the build's by digest: nothing differs
        // but the late file.
        let changes = joined(&on_disk, &listed)
            .filter_map(|(p, a, b)| match (a, b) {
                (Some(a), Some(b)) if a.same(&b).unwrap() => None,
                _ => Some(p.into_owned()),
            })
            .collect::<Vec<_>>();
        assert_eq!(changes, vec![late]);
    }

    #[test]
    fn a_recorded_file_is_compared_by_its_record_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("a.txt", b"yyy".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        // A record claiming DIR's a.txt holds "xxx" (as no build would write it): believed, as
        // git believes its index, so DIR's file is linked without being read.
        let mut claimed = Tree::default();
        claimed.put("a.txt", b"xxx".to_vec());
        let known = recorded_as(&git, &dir, &claimed);
        let before = inode(&dir.join("a.txt"));
        write_checked(&dir, &claimed, known).unwrap();
        assert_eq!(
            inode(&dir.join("a.txt")),
            before,
            "linked on the record's word"
        );
        assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"yyy");
    }

    #[test]
    fn a_listed_file_carries_its_recorded_sha256_only_while_its_stat_data_is_the_recorded() {
        // The dry run's listing of DIR: a file the record still describes is compared by the
        // recorded sha256 (a record claiming other bytes is believed, which shows it is not
        // read); one edited since, even with its mtime put back, carries none and is read.
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("a.txt", b"aaa".to_vec());
        tree.put("ledger/witness/index.json", b"index".to_vec());
        tree.put("ledger/witness/index/000001.json", b"part".to_vec());
        tree.put("z.txt", b"zzz".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let mut claimed = tree.clone();
        claimed.put("z.txt", b"xxx".to_vec());
        recorded_as(&git, &dir, &claimed);
        crate::stat_records::rewrite_keeping_mtime(&dir.join("a.txt"), b"AAA").unwrap();
        let listed = read_tree(&dir, Some(&git)).unwrap();
        let sha = |rel: &str| listed_sha256(&listed, rel);
        assert_eq!(sha("z.txt"), Some(exhibit_protocol::Digest::of(b"xxx")));
        // The walk follows the records' order: `index.json` comes before the folder `index/`
        // (walked in name order, the folder would come first and `index.json`'s record be
        // passed by).
        assert_eq!(
            sha("ledger/witness/index.json"),
            Some(exhibit_protocol::Digest::of(b"index"))
        );
        assert_eq!(
            sha("ledger/witness/index/000001.json"),
            Some(exhibit_protocol::Digest::of(b"part"))
        );
        assert_eq!(sha("a.txt"), None, "edited since: read");
        assert!(
            !listed
                .entry("a.txt")
                .unwrap()
                .same(&tree.entry("a.txt").unwrap())
                .unwrap()
        );
        // Without records nothing carries a digest.
        assert_eq!(
            listed_sha256(&read_tree(&dir, None).unwrap(), "z.txt"),
            None
        );
    }

    /// The sha256 a listed file of DIR carries (none when it must be read to be compared).
    fn listed_sha256(listed: &Tree, rel: &str) -> Option<exhibit_protocol::Digest> {
        match &*listed.entry(rel).unwrap() {
            Content::File(f) => f.sha256,
            other => panic!("{rel}: {other:?}"),
        }
    }

    #[test]
    fn a_recorded_file_holding_other_bytes_or_edited_since_is_written_anew() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("kept.txt", b"kept".to_vec());
        tree.put("next.txt", b"old".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let known = recorded_as(&git, &dir, &tree);
        // The build now makes other bytes of the same size: the record's sha256 is not theirs.
        tree.put("next.txt", b"new".to_vec());
        // Someone edited DIR's kept.txt in place (same size) after the record, mtime put back.
        let kept = dir.join("kept.txt");
        crate::stat_records::rewrite_keeping_mtime(&kept, b"evil").unwrap();
        write_checked(&dir, &tree, known).unwrap();
        assert_eq!(std::fs::read(dir.join("next.txt")).unwrap(), b"new");
        assert_eq!(
            std::fs::read(&kept).unwrap(),
            b"kept",
            "read, compared, rewritten"
        );
    }
}
