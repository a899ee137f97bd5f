//! What exhibit reads of an OpenTimestamps proof: its header and the digest it commits to
//! (docs/protocol.md#ots-header: the magic, version and hash-op bytes and the 32-byte digest
//! after them, against the proof's name); the shape of the rest, since every byte it publishes
//! must be accounted for (docs/build.md#safety): [`parse_body`] walks the tree of operations and
//! attestations to its end and hands back the bytes a person could read in it (calendar
//! addresses, operation arguments, unknown attestations' payloads), for the build to guard; and
//! what the tree evaluates to ([`evaluate`], docs/anchoring.md): every operation applied from the
//! committed digest, each attestation with the message it attests — for a Bitcoin attestation,
//! the merkle root that block must carry. Whether the block carries it is the one fact exhibit
//! cannot know: the stranger compares it on a block explorer, or with an OpenTimestamps client
//! and their own node. Both walks are one ([`walk`]), so they refuse exactly the same proofs.

use crate::Digest;

/// `00 'OpenTimestamps' 00 00 'Proof' 00 bf 89 e2 e8 84 e8 92 94` (31 bytes).
pub const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
/// The only major version the header check accepts.
pub const VERSION: u8 = 0x01;
/// The hash op of a file digest: sha256.
pub const OP_SHA256: u8 = 0x08;
/// Magic, version, op, 32-byte digest.
pub const HEADER_LEN: usize = 31 + 1 + 1 + 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtsProblem {
    TooShort,
    BadMagic,
    BadVersion(u8),
    NotSha256(u8),
    DigestMismatch,
}

impl OtsProblem {
    pub fn code(self) -> &'static str {
        match self {
            OtsProblem::TooShort => "too_short",
            OtsProblem::BadMagic => "bad_magic",
            OtsProblem::BadVersion(_) => "bad_version",
            OtsProblem::NotSha256(_) => "not_sha256",
            OtsProblem::DigestMismatch => "digest_mismatch",
        }
    }
}

impl std::fmt::Display for OtsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OtsProblem::TooShort => write!(
                f,
                "shorter than an OpenTimestamps header ({HEADER_LEN} bytes)"
            ),
            OtsProblem::BadMagic => write!(f, "does not start with the OpenTimestamps magic"),
            OtsProblem::BadVersion(v) => write!(f, "version byte is {v:#04x}, expected 0x01"),
            OtsProblem::NotSha256(op) => {
                write!(f, "file hash op is {op:#04x}, expected 0x08 (sha256)")
            }
            OtsProblem::DigestMismatch => write!(f, "commits to another digest"),
        }
    }
}

impl std::error::Error for OtsProblem {}

/// The digest a proof commits to, after checking magic, version and op.
pub fn committed_digest(bytes: &[u8]) -> Result<Digest, OtsProblem> {
    if bytes.len() < 31 || &bytes[..31] != MAGIC {
        return Err(if bytes.len() < 31 && MAGIC.starts_with(bytes) {
            OtsProblem::TooShort
        } else {
            OtsProblem::BadMagic
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(OtsProblem::TooShort);
    }
    if bytes[31] != VERSION {
        return Err(OtsProblem::BadVersion(bytes[31]));
    }
    if bytes[32] != OP_SHA256 {
        return Err(OtsProblem::NotSha256(bytes[32]));
    }
    let mut digest = [0u8; 32];
    digest.copy_from_slice(&bytes[33..65]);
    Ok(Digest(digest))
}

/// Checks that a proof's header is right and that it commits to `expected`.
pub fn check(bytes: &[u8], expected: &Digest) -> Result<(), OtsProblem> {
    if committed_digest(bytes)? == *expected {
        Ok(())
    } else {
        Err(OtsProblem::DigestMismatch)
    }
}

/// [`check`] against the digest a file's name states (`<digest>.ots`): the header is checked
/// first, and a name that is not a digest is a mismatch, as any other wrong digest is.
pub fn check_named(bytes: &[u8], named: &str) -> Result<(), OtsProblem> {
    let committed = committed_digest(bytes)?;
    match named.parse::<Digest>() {
        Ok(digest) if digest == committed => Ok(()),
        _ => Err(OtsProblem::DigestMismatch),
    }
}

// ---- the body: everything after the header --------------------------------------------------

/// The tag of a pending attestation (a calendar's receipt; its payload is the calendar's URI).
pub const PENDING_TAG: [u8; 8] = [0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e];
/// The tag of a Bitcoin block header attestation (its payload is the block height).
pub const BITCOIN_TAG: [u8; 8] = [0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01];
/// The tag of a Litecoin block header attestation (its payload is the block height).
pub const LITECOIN_TAG: [u8; 8] = [0x06, 0x86, 0x9a, 0x0d, 0x73, 0xd7, 0x1b, 0x45];
/// The longest message an operation may produce (the reference client's limit).
pub const MAX_MSG_LEN: usize = 4096;
/// The longest attestation payload (the reference client's limit).
pub const MAX_PAYLOAD_LEN: usize = 8192;
/// The longest calendar URI (the reference client's limit).
pub const MAX_URI_LEN: usize = 1000;
/// The bytes a calendar URI may hold (the reference client's `ALLOWED_URI_CHARS`: no query,
/// fragment, percent-encoding, user or IPv6 notation).
pub const URI_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._/:";
/// The most operations on one path from the header to an attestation: the reference client
/// reads timestamps at most 256 deep (the header's and 255 below it), so 255 operations.
pub const MAX_DEPTH: usize = 255;
/// The most operations in a whole proof, over every path: exhibit's own bound (the reference
/// client has none), far above any proof a calendar writes (hello-world.txt.ots has 38), so that
/// a 1 MiB proof cannot make a verifier hash gigabytes.
pub const MAX_OPS: usize = 10_000;
/// The most attestations in a whole proof: exhibit's own bound, as [`MAX_OPS`].
pub const MAX_ATTESTATIONS: usize = 1_000;

/// Why the bytes after a proof's header are not one whole OpenTimestamps timestamp, or do not
/// evaluate to one. The walk stops at the first; both verifiers find the same first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyProblem {
    /// The bytes end inside an operation, an attestation or a fork.
    Truncated,
    /// A tag that is neither an operation, an attestation nor a fork marker.
    UnknownTag(u8),
    /// A length or height written in more bytes than any real one needs.
    BadVarint,
    /// An operation's argument is empty or longer than a message may be, or its result is.
    MessageTooLong,
    /// More operations on one path than the reference client follows.
    TooDeep,
    /// More operations in the whole proof than [`MAX_OPS`].
    TooManyOps,
    /// More attestations in the whole proof than [`MAX_ATTESTATIONS`].
    TooManyAttestations,
    /// An attestation's payload is longer than allowed, or not wholly its declared content (a
    /// calendar URI, a block height).
    BadPayload,
    /// A calendar URI holds a byte the reference client refuses (only [`URI_CHARS`]).
    BadCalendar,
    /// A Bitcoin attestation on a message that is not 32 bytes (its length): no block's merkle
    /// root can equal it.
    BitcoinNotDigest(usize),
    /// Bytes after the timestamp ends.
    TrailingBytes,
}

impl BodyProblem {
    pub fn code(self) -> &'static str {
        match self {
            BodyProblem::Truncated => "truncated",
            BodyProblem::UnknownTag(_) => "unknown_tag",
            BodyProblem::BadVarint => "bad_varint",
            BodyProblem::MessageTooLong => "message_too_long",
            BodyProblem::TooDeep => "too_deep",
            BodyProblem::TooManyOps => "too_many_ops",
            BodyProblem::TooManyAttestations => "too_many_attestations",
            BodyProblem::BadPayload => "bad_payload",
            BodyProblem::BadCalendar => "bad_calendar",
            BodyProblem::BitcoinNotDigest(_) => "bitcoin_not_digest",
            BodyProblem::TrailingBytes => "trailing_bytes",
        }
    }
}

impl std::fmt::Display for BodyProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyProblem::Truncated => write!(f, "ends inside its tree of operations"),
            BodyProblem::UnknownTag(t) => write!(
                f,
                "holds an unknown tag {t:#04x} where an operation, an attestation or a fork must be"
            ),
            BodyProblem::BadVarint => write!(f, "holds a number longer than nine bytes"),
            BodyProblem::MessageTooLong => write!(
                f,
                "holds an operation whose argument is empty or whose argument or result passes {MAX_MSG_LEN} bytes"
            ),
            BodyProblem::TooDeep => {
                write!(f, "nests more than {MAX_DEPTH} operations on one path")
            }
            BodyProblem::TooManyOps => write!(f, "holds more than {MAX_OPS} operations"),
            BodyProblem::TooManyAttestations => {
                write!(f, "holds more than {MAX_ATTESTATIONS} attestations")
            }
            BodyProblem::BadPayload => write!(
                f,
                "holds an attestation whose payload is too long or not wholly what its tag says (a calendar address, a block height)"
            ),
            BodyProblem::BadCalendar => write!(
                f,
                "names a calendar whose address holds a character the reference client refuses (letters, digits and -._/: only)"
            ),
            BodyProblem::BitcoinNotDigest(n) => write!(
                f,
                "holds a Bitcoin attestation on a {n}-byte message, which no block's 32-byte merkle root can equal"
            ),
            BodyProblem::TrailingBytes => write!(f, "has bytes after its timestamp ends"),
        }
    }
}

impl std::error::Error for BodyProblem {}

/// One operation of a proof's tree, as the reference client defines it (`op.py`), with its
/// argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op<'a> {
    /// `f0`: the message, then the argument.
    Append(&'a [u8]),
    /// `f1`: the argument, then the message.
    Prepend(&'a [u8]),
    /// `f2`: the message's bytes in reverse order (deprecated by the reference client, still read).
    Reverse,
    /// `f3`: the message as lowercase hex text.
    Hexlify,
    /// `02`
    Sha1,
    /// `03`
    Ripemd160,
    /// `08`
    Sha256,
    /// `67`
    Keccak256,
}

impl Op<'_> {
    /// The length of the message this operation makes of one of `len` bytes.
    pub fn result_len(&self, len: usize) -> usize {
        match self {
            Op::Append(a) | Op::Prepend(a) => len.saturating_add(a.len()),
            Op::Reverse => len,
            Op::Hexlify => len.saturating_mul(2),
            Op::Sha1 | Op::Ripemd160 => 20,
            Op::Sha256 | Op::Keccak256 => 32,
        }
    }
}

/// One attestation of a proof's tree, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf<'a> {
    /// A calendar's receipt: its URI (only [`URI_CHARS`]).
    Pending(&'a [u8]),
    /// The message is the merkle root of the Bitcoin block at this height.
    Bitcoin(u64),
    /// The same, of a Litecoin block.
    Litecoin(u64),
    /// A tag the reference client does not know (or, as Ethereum's, calls dubious): its payload.
    Unknown([u8; 8], &'a [u8]),
}

/// What the walk carries from the header to each attestation: a length alone ([`parse_body`]) or
/// the message itself (the evaluator).
pub(crate) trait Message: Sized {
    fn size(&self) -> usize;
    fn apply(&self, op: &Op<'_>) -> Self;
}

impl Message for usize {
    fn size(&self) -> usize {
        *self
    }
    fn apply(&self, op: &Op<'_>) -> usize {
        op.result_len(*self)
    }
}

/// A step of the walk, in the order of the file.
pub(crate) enum Step<'a, 'm, M> {
    Op(Op<'a>),
    Leaf(Leaf<'a>, &'m M),
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, BodyProblem> {
        let b = *self.bytes.get(self.at).ok_or(BodyProblem::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], BodyProblem> {
        let end = self.at.checked_add(n).ok_or(BodyProblem::Truncated)?;
        let out = self.bytes.get(self.at..end).ok_or(BodyProblem::Truncated)?;
        self.at = end;
        Ok(out)
    }

    /// An unsigned LEB128 number of at most nine bytes (63 bits).
    fn varuint(&mut self) -> Result<u64, BodyProblem> {
        let mut n = 0u64;
        for i in 0..9 {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(BodyProblem::BadVarint)
    }

    /// A length, then that many bytes; a length over `max` is `over`, read no further.
    fn varbytes(&mut self, max: usize, over: BodyProblem) -> Result<&'a [u8], BodyProblem> {
        let n = self.varuint()?;
        match usize::try_from(n) {
            Ok(n) if n <= max => self.take(n),
            _ => Err(over),
        }
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// One attestation (after its `00`): its tag and payload. A known tag's payload must be wholly
/// its content: a URI of [`URI_CHARS`] (at most [`MAX_URI_LEN`] bytes), or a block height.
fn attestation<'a>(r: &mut Reader<'a>) -> Result<Leaf<'a>, BodyProblem> {
    let tag = r.take(8)?;
    let payload = r.varbytes(MAX_PAYLOAD_LEN, BodyProblem::BadPayload)?;
    let mut inner = Reader {
        bytes: payload,
        at: 0,
    };
    let leaf = if tag == PENDING_TAG {
        let uri = inner
            .varbytes(MAX_URI_LEN, BodyProblem::BadPayload)
            .map_err(|_| BodyProblem::BadPayload)?;
        if !uri.iter().all(|c| URI_CHARS.contains(c)) {
            return Err(BodyProblem::BadCalendar);
        }
        Leaf::Pending(uri)
    } else if tag == BITCOIN_TAG || tag == LITECOIN_TAG {
        let height = inner.varuint().map_err(|_| BodyProblem::BadPayload)?;
        if tag == BITCOIN_TAG {
            Leaf::Bitcoin(height)
        } else {
            Leaf::Litecoin(height)
        }
    } else {
        let mut t = [0u8; 8];
        t.copy_from_slice(tag);
        return Ok(Leaf::Unknown(t, payload));
    };
    if inner.done() {
        Ok(leaf)
    } else {
        Err(BodyProblem::BadPayload)
    }
}

/// The operation of `tag`, its argument read: an argument is 1 to [`MAX_MSG_LEN`] bytes.
fn operation<'a>(tag: u8, r: &mut Reader<'a>) -> Result<Op<'a>, BodyProblem> {
    Ok(match tag {
        0xf0 | 0xf1 => {
            let arg = r.varbytes(MAX_MSG_LEN, BodyProblem::MessageTooLong)?;
            if arg.is_empty() {
                return Err(BodyProblem::MessageTooLong);
            }
            if tag == 0xf0 {
                Op::Append(arg)
            } else {
                Op::Prepend(arg)
            }
        }
        0xf2 => Op::Reverse,
        0xf3 => Op::Hexlify,
        0x02 => Op::Sha1,
        0x03 => Op::Ripemd160,
        0x08 => Op::Sha256,
        0x67 => Op::Keccak256,
        _ => return Err(BodyProblem::UnknownTag(tag)),
    })
}

/// Walks a whole proof after its header (which [`committed_digest`] checks) from `start`, the
/// message the header commits to: every operation and attestation in the order of the file,
/// handed to `step` with the message it applies to, to the last leaf and nothing after it.
/// Iterative; at most [`MAX_DEPTH`] operations on a path, [`MAX_OPS`] and [`MAX_ATTESTATIONS`]
/// in all, every length bounded: no input makes it recurse or panic, and it holds at most one
/// message a level of the path it is on. Each step checks, in this order: the tag (and a fork's
/// second tag), then an attestation's payload and a Bitcoin message's length, then the count;
/// or an operation's argument, its result's length, the depth, then the count.
pub(crate) fn walk<'a, M: Message>(
    bytes: &'a [u8],
    start: M,
    step: &mut dyn FnMut(Step<'a, '_, M>),
) -> Result<(), BodyProblem> {
    let mut r = Reader {
        bytes: bytes.get(HEADER_LEN..).ok_or(BodyProblem::Truncated)?,
        at: 0,
    };
    let (mut ops, mut leaves) = (0usize, 0usize);
    // The timestamps still to be read: the message each starts from, and how many operations
    // lie above it. A fork (`ff`) keeps its timestamp on the stack; the last branch replaces it.
    let mut open: Vec<(M, usize)> = vec![(start, 0)];
    while let Some((msg, depth)) = open.pop() {
        let mut tag = r.byte()?;
        let fork = tag == 0xff;
        if fork {
            tag = r.byte()?;
        }
        if tag == 0x00 {
            let leaf = attestation(&mut r)?;
            if matches!(leaf, Leaf::Bitcoin(_)) && msg.size() != 32 {
                return Err(BodyProblem::BitcoinNotDigest(msg.size()));
            }
            leaves += 1;
            if leaves > MAX_ATTESTATIONS {
                return Err(BodyProblem::TooManyAttestations);
            }
            step(Step::Leaf(leaf, &msg));
            if fork {
                open.push((msg, depth));
            }
            continue;
        }
        let op = operation(tag, &mut r)?;
        if op.result_len(msg.size()) > MAX_MSG_LEN {
            return Err(BodyProblem::MessageTooLong);
        }
        if depth >= MAX_DEPTH {
            return Err(BodyProblem::TooDeep);
        }
        ops += 1;
        if ops > MAX_OPS {
            return Err(BodyProblem::TooManyOps);
        }
        step(Step::Op(op));
        let next = msg.apply(&op);
        if fork {
            open.push((msg, depth));
        }
        open.push((next, depth + 1));
    }
    if r.done() {
        Ok(())
    } else {
        Err(BodyProblem::TrailingBytes)
    }
}

/// The readable parts of a proof's body, for the publisher to guard: nothing else in it is
/// more than a tag, an opcode, a length or a block height.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Body<'a> {
    /// Each pending attestation's calendar URI, as written.
    pub calendars: Vec<&'a [u8]>,
    /// Each append or prepend argument.
    pub arguments: Vec<&'a [u8]>,
    /// Each attestation of an unknown tag: its payload, whole.
    pub unknown_payloads: Vec<&'a [u8]>,
    /// Bitcoin attestations' heights.
    pub bitcoin_heights: Vec<u64>,
}

/// Parses a whole proof after its header (which [`committed_digest`] checks): the tree of
/// operations and attestations to its last leaf, and nothing after it, by the rules of [`walk`]
/// — on lengths alone, so it refuses exactly what [`evaluate`] refuses, without hashing.
/// Allocates nothing beyond the lists it returns (each entry a slice of `bytes`).
pub fn parse_body(bytes: &[u8]) -> Result<Body<'_>, BodyProblem> {
    let mut body = Body::default();
    walk(bytes, 32usize, &mut |step| match step {
        Step::Op(Op::Append(a) | Op::Prepend(a)) => body.arguments.push(a),
        Step::Op(_) => {}
        Step::Leaf(Leaf::Pending(uri), _) => body.calendars.push(uri),
        Step::Leaf(Leaf::Bitcoin(h), _) => body.bitcoin_heights.push(h),
        Step::Leaf(Leaf::Litecoin(_), _) => {}
        Step::Leaf(Leaf::Unknown(_, payload), _) => body.unknown_payloads.push(payload),
    })?;
    Ok(body)
}

mod eval;
pub use eval::{Attestation, EXPLORERS, EvalProblem, Evaluated, evaluate, explorer_urls};

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn examples() -> &'static Path {
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/ots-examples"
        ))
    }

    #[test]
    fn real_proofs_commit_to_their_files() {
        let mut checked = 0;
        for entry in std::fs::read_dir(examples()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ots") {
                let target = path.with_extension("");
                let proof = std::fs::read(&path).unwrap();
                let digest = Digest::of(&std::fs::read(&target).unwrap());
                assert_eq!(check(&proof, &digest), Ok(()), "{}", path.display());
                // The same proof against another file's digest must fail.
                assert_eq!(
                    check(&proof, &Digest::of(b"other")),
                    Err(OtsProblem::DigestMismatch)
                );
                checked += 1;
            }
        }
        assert!(
            checked >= 8,
            "expected the shared examples, found {checked}"
        );
    }

    #[test]
    fn invalid_examples_are_refused_for_the_right_reason() {
        let dir = examples().join("invalid");
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        assert!(matches!(
            committed_digest(&read("bad-major-version.ots")),
            Err(OtsProblem::BadVersion(_))
        ));
        assert!(matches!(
            committed_digest(&read("invalid-file-digest-type.ots")),
            Err(OtsProblem::NotSha256(_))
        ));
        // Its header is well formed; what is wrong lies past the header, which the header check
        // does not read (`parse_body` refuses it).
        assert!(committed_digest(&read("exceeds-max-msg-length.ots")).is_ok());
    }

    #[test]
    fn truncated_and_foreign_bytes() {
        assert_eq!(committed_digest(b""), Err(OtsProblem::TooShort));
        assert_eq!(committed_digest(&MAGIC[..10]), Err(OtsProblem::TooShort));
        assert_eq!(
            committed_digest(b"%PDF-1.4 not a proof at all, long enough"),
            Err(OtsProblem::BadMagic)
        );
        let mut short = MAGIC.to_vec();
        short.extend_from_slice(&[1, 8, 0, 0]);
        assert_eq!(committed_digest(&short), Err(OtsProblem::TooShort));
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;
    use std::path::Path;

    fn real_proofs() -> Vec<(String, Vec<u8>)> {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/ots-examples"
        ));
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ots") {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
        assert!(out.len() >= 8);
        out
    }

    fn header() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[VERSION, OP_SHA256]);
        b.extend_from_slice(&[7; 32]);
        b
    }

    fn pending(uri: &[u8]) -> Vec<u8> {
        let mut b = vec![0x00];
        b.extend_from_slice(&PENDING_TAG);
        b.push(u8::try_from(uri.len() + 1).unwrap());
        b.push(u8::try_from(uri.len()).unwrap());
        b.extend_from_slice(uri);
        b
    }

    #[test]
    fn every_real_proof_parses_wholly() {
        for (name, bytes) in real_proofs() {
            let body = parse_body(&bytes).unwrap_or_else(|p| panic!("{name}: {p}"));
            assert!(
                !body.calendars.is_empty()
                    || !body.bitcoin_heights.is_empty()
                    || !body.unknown_payloads.is_empty(),
                "{name}"
            );
        }
        let known = real_proofs()
            .into_iter()
            .find(|(n, _)| n.ends_with("/known-and-unknown-notary.txt.ots"))
            .unwrap()
            .1;
        let body = parse_body(&known).unwrap();
        assert_eq!(
            body.calendars,
            vec![&b"https://bob.btc.calendar.opentimestamps.org"[..]]
        );
        assert_eq!(body.unknown_payloads.len(), 1);
    }

    #[test]
    fn every_cut_and_every_extra_byte_of_a_real_proof_is_refused() {
        for (name, bytes) in real_proofs() {
            for end in HEADER_LEN..bytes.len() {
                assert!(parse_body(&bytes[..end]).is_err(), "{name} cut at {end}");
            }
            for extra in [0x00u8, 0x08, 0xff, b'+'] {
                let mut long = bytes.clone();
                long.push(extra);
                assert_eq!(
                    parse_body(&long),
                    Err(BodyProblem::TrailingBytes),
                    "{name} + {extra:#x}"
                );
            }
        }
    }

    #[test]
    fn the_reference_clients_invalid_body_is_refused() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/ots-examples/invalid"
        ));
        let bytes = std::fs::read(dir.join("exceeds-max-msg-length.ots")).unwrap();
        assert_eq!(parse_body(&bytes), Err(BodyProblem::MessageTooLong));
    }

    #[test]
    fn hostile_shapes_are_refused_without_recursion_or_allocation() {
        // A chain of sha256 ops far deeper than the limit: refused, no stack overflow.
        let mut deep = header();
        deep.extend(std::iter::repeat_n(0x08, 100_000));
        deep.extend(pending(b"https://a.example.org"));
        assert_eq!(parse_body(&deep), Err(BodyProblem::TooDeep));
        // A fork chain as deep.
        let mut forks = header();
        for _ in 0..100_000 {
            forks.extend([0xff, 0x08]);
        }
        assert_eq!(parse_body(&forks), Err(BodyProblem::TooDeep));
        // A length that claims more than is there, or more than a payload may be.
        let mut huge = header();
        huge.extend([0xf0, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(parse_body(&huge).is_err());
        let mut long_varint = header();
        long_varint.push(0xf0);
        long_varint.extend([0x80; 20]);
        assert_eq!(parse_body(&long_varint), Err(BodyProblem::BadVarint));
        // An unknown op, and a fork marker followed by a fork marker.
        let mut unknown = header();
        unknown.push(0x42);
        assert_eq!(parse_body(&unknown), Err(BodyProblem::UnknownTag(0x42)));
        let mut ff = header();
        ff.extend([0xff, 0xff]);
        assert_eq!(parse_body(&ff), Err(BodyProblem::UnknownTag(0xff)));
        // A pending payload with bytes after its URI; a bitcoin payload with bytes after its
        // height.
        let mut extra = header();
        let mut p = pending(b"https://a.example.org");
        p[9] += 3;
        p.extend(b"+15");
        extra.extend(p);
        assert_eq!(parse_body(&extra), Err(BodyProblem::BadPayload));
        let mut btc = header();
        btc.push(0x00);
        btc.extend(BITCOIN_TAG);
        btc.extend([0x04, 0x81, 0x01, b'4', b'2']);
        assert_eq!(parse_body(&btc), Err(BodyProblem::BadPayload));
        // Nothing after the header at all.
        assert_eq!(parse_body(&header()), Err(BodyProblem::Truncated));
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = [
            0x00, 0x08, 0xf0, 0xf1, 0xff, 0x02, 0x67, 0x83, 0x05, 0x7f, 0x80,
        ];
        for _ in 0..20_000 {
            let mut b = header();
            let n = (next() % 200) as usize;
            for _ in 0..n {
                let r = next();
                b.push(if r % 3 == 0 {
                    alphabet[(r >> 8) as usize % alphabet.len()]
                } else {
                    (r >> 16) as u8
                });
            }
            let _ = parse_body(&b);
        }
    }
}
