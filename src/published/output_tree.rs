//! The output tree: every file a build publishes, held in memory or named on disk (a segmented
//! exhibit's made files already written beside DIR: crate::site_write::staged_files), and DIR's files listed to
//! compare with it. DIR is written as a static log is (crate::site_write,
//! docs/build.md#the-write): a refused build writes nothing, a killed or failed one leaves every
//! file old or new, never half-written. `--dry-run` compares the tree with DIR instead and writes
//! nothing.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::layout::folder_and_name;

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
    Ledger(crate::operator_box::gate_ledger::LedgerSpans),
    /// A name in DIR that is not a regular file or a folder (a symlink, a FIFO, a socket, a
    /// device): never followed nor read, and never in a tree the build writes. Its size is 0 and
    /// it holds no bytes. A build removes it (or renames a file over it) without following it,
    /// so the review lists it as removed (docs/operator.md#dry-run).
    NotAFile(NotAFile),
}

impl Content {
    /// Held bytes without the room their making left spare: a file serialised into a buffer
    /// grown by doubling keeps up to half of it empty, and the tree holds its files to the
    /// end of the build (at a million lines the anchors' index, 9 MB, held 18 MB:
    /// docs/scale.md#memory).
    fn fit(&mut self) {
        if let Content::Bytes(bytes) = self
            && bytes.capacity() > bytes.len()
        {
            bytes.shrink_to_fit();
        }
    }

    fn fitted(mut self) -> Content {
        self.fit();
        self
    }
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
                "a file made twice came out different the second time (sha256 {} first): its source changed while the build ran, a state an earlier build carried in the git folder is wrong (docs/tree.md#carried), or this is exhibit's fault; nothing was written — run the build again; if it fails again, remove the folder exhibit/ in the repository's git folder (only time is lost) and report it",
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
    pub(crate) fn known_sha256(&self) -> Option<exhibit_protocol::Digest> {
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

    /// The bytes as a reader: a file of spans of the gate's ledger a chunk at a time, held at
    /// its end to the digest of its first read (docs/scale.md#the-self-check-streamed); any
    /// other content as [`Content::bytes`] gives it.
    pub fn reader(&self) -> Result<Box<dyn std::io::BufRead + '_>> {
        Ok(match self {
            Content::Ledger(spans) => Box::new(spans.reader()),
            other => Box::new(std::io::Cursor::new(other.bytes()?)),
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
    pub(crate) held: BTreeMap<String, Content>,
    /// At most one list per [`ListedFolder`], in the folders' order (found by halving).
    pub(crate) listed: Vec<ListedFiles>,
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
        let content = content.fitted();
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
        for (_, content) in &mut files {
            content.fit();
        }
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

    /// Lets go of the chain's lines that the lists' names are read from: each shared table of
    /// names is made to read the lines' entry_ids alone, taken from the lines as they are let
    /// go (crate::published::entry_ids::rest_on_ids_alone, docs/scale.md#ids-by-line). The
    /// tables are taken out of the lists meanwhile, so that each is held once, and given back,
    /// each still shared by the lists that shared it (a segmented exhibit's proof folders all
    /// name from the store's ids: docs/scale.md#ids-shared). Returns what the ids are read from
    /// now (the ids alone, or the lines) and whether the lines were let go; when something
    /// else holds them, the lists keep reading them.
    pub fn let_go_of_lines<T: 'static>(
        &mut self,
        lines: std::sync::Arc<Vec<T>>,
        entry_id: impl Fn(&T) -> exhibit_protocol::Digest,
    ) -> (
        std::sync::Arc<dyn crate::published::entry_ids::LineIds>,
        bool,
    )
    where
        Vec<T>: crate::published::entry_ids::LineIds,
    {
        type Table = std::sync::Arc<crate::published::entry_ids::SortedIds>;
        let mut tables: Vec<Table> = Vec::new();
        // Which table each list named from, by its place in `tables`.
        let mut named: Vec<Option<usize>> = Vec::with_capacity(self.listed.len());
        for list in &mut self.listed {
            let taken = match std::mem::replace(&mut list.names, ListedNames::Own(Vec::new())) {
                ListedNames::Shared(names) => names,
                own => {
                    list.names = own;
                    named.push(None);
                    continue;
                }
            };
            match tables.iter().position(|t| Table::ptr_eq(t, &taken)) {
                Some(at) => named.push(Some(at)),
                None => {
                    named.push(Some(tables.len()));
                    tables.push(taken);
                }
            }
        }
        let ids = crate::published::entry_ids::rest_on_ids_alone(&mut tables, lines, entry_id);
        for (list, at) in self.listed.iter_mut().zip(named) {
            if let Some(at) = at {
                list.names = ListedNames::Shared(tables[at].clone());
            }
        }
        ids
    }

    /// The tree's lists of files, one per listed folder.
    pub(crate) fn lists(&self) -> &[ListedFiles] {
        &self.listed
    }

    /// Puts a list of files under its folder, replacing what the tree held at the same paths
    /// (as [`Tree::put_content`] would, one by one).
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

/// Files listed in path order (DIR's as walked, [`crate::site_write::dir_walk::DirWalk`]: never all held)
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
                    crate::published::layout::ProofPlace::of_folder(sub)?,
                ))
            }
        }
    }

    /// The listed folder of the proofs published at `place`.
    pub fn of_proof_place(place: crate::published::layout::ProofPlace) -> ListedFolder {
        match place {
            crate::published::layout::ProofPlace::Flat => ListedFolder::WitnessProofs,
            crate::published::layout::ProofPlace::Bucket(b) => ListedFolder::WitnessProofBucket(b),
            crate::published::layout::ProofPlace::Other => ListedFolder::WitnessProofOther,
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
            // Six digits, as crate::published::layout::ProofPlace::rel names a bucket.
            ListedFolder::WitnessProofBucket(b) => {
                Cow::Owned(format!("ledger/witness/proofs/{b:06}"))
            }
            ListedFolder::WitnessProofOther => Cow::Owned(format!(
                "ledger/witness/proofs/{}",
                crate::published::layout::OTHER_PROOFS
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
    pub(crate) folder: ListedFolder,
    /// The folder's path in the tree ([`ListedFolder::path`]), made once.
    folder_path: Box<str>,
    /// The folder on disk its files are read again from.
    pub(crate) store: std::sync::Arc<Path>,
    /// The class its files are read again with: a store's proofs, or DIR's files (a released
    /// text DIR holds; DIR's files listed for the review, [`read_tree`]).
    pub(crate) class: FileClass,
    /// The names the entries point into.
    pub(crate) names: ListedNames,
    entries: Vec<ListedFile>,
}

/// Where a list's names are kept: its own, or a sorted table of digests it shares with the
/// list that made them (the witness layer's proofs are named by the store's ids, which the
/// store's index already holds: 32 bytes a proof not held twice, docs/scale.md#ids-shared).
#[derive(Debug, Clone)]
pub(crate) enum ListedNames {
    /// Each file's name, in the order pushed.
    Own(Vec<[u8; 32]>),
    /// Sorted, each once: a name's position is its order.
    Shared(std::sync::Arc<crate::published::entry_ids::SortedIds>),
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
pub(crate) struct ListedFile {
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
        names: std::sync::Arc<crate::published::entry_ids::SortedIds>,
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

    pub(crate) fn find(&self, path: &str) -> Option<&ListedFile> {
        self.position(path).map(|i| &self.entries[i])
    }

    pub(crate) fn remove(&mut self, path: &str) {
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
