//! A proof evaluated (docs/anchoring.md): from the digest its header commits to, every
//! operation applied along every path of its tree, so that each attestation is given with the
//! message it attests. For a Bitcoin attestation that message must be the merkle root of the
//! block at its height — the one fact no verifier of an exhibit can know by itself, which a
//! stranger compares on a block explorer ([`explorer_urls`]).

use super::{BodyProblem, Leaf, Message, Op, OtsProblem, Step, committed_digest, walk};
use crate::Digest;
use sha2::Digest as _;

/// The two block explorers whose pages a Bitcoin attestation links, by height: each shows the
/// block's merkle root in the byte order [`Attestation::Bitcoin`] gives it. Their name and the
/// address a height is appended to.
pub const EXPLORERS: [(&str, &str); 2] = [
    ("mempool.space", "https://mempool.space/block/"),
    ("blockstream.info", "https://blockstream.info/block-height/"),
];

/// The explorers' pages of the Bitcoin block at `height` ([`EXPLORERS`]).
pub fn explorer_urls(height: u64) -> [String; 2] {
    EXPLORERS.map(|(_, base)| format!("{base}{height}"))
}

/// One attestation of an evaluated proof, in the order of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attestation {
    /// The message at this attestation must be the merkle root of the Bitcoin block at
    /// `height`. `merkle_root` is that message byte-reversed: the order in which block explorers
    /// and `bitcoin-cli getblockheader` show a merkle root (the header holds it the other way,
    /// as `ots info` prints it).
    Bitcoin { height: u64, merkle_root: [u8; 32] },
    /// A calendar's receipt: nothing is attested yet. `commitment` is the message the calendar
    /// holds (what an OpenTimestamps client asks it about, to upgrade the proof).
    Pending {
        calendar_url: String,
        commitment: Vec<u8>,
    },
    /// A Litecoin block header attestation: reported, not linked.
    Litecoin { height: u64 },
    /// An attestation of a tag the reference client does not know.
    Unknown { tag: [u8; 8] },
}

/// What a proof evaluates to: the digest its header commits to and every attestation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    pub digest: Digest,
    pub attestations: Vec<Attestation>,
}

/// Why a proof does not evaluate: its header ([`OtsProblem`]) or the rest ([`BodyProblem`]).
/// The codes of the two never coincide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalProblem {
    Header(OtsProblem),
    Body(BodyProblem),
}

impl EvalProblem {
    pub fn code(self) -> &'static str {
        match self {
            EvalProblem::Header(p) => p.code(),
            EvalProblem::Body(p) => p.code(),
        }
    }
}

impl std::fmt::Display for EvalProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalProblem::Header(p) => p.fmt(f),
            EvalProblem::Body(p) => p.fmt(f),
        }
    }
}

impl std::error::Error for EvalProblem {}

impl Message for Vec<u8> {
    fn size(&self) -> usize {
        self.len()
    }

    fn apply(&self, op: &Op<'_>) -> Vec<u8> {
        match op {
            Op::Append(a) => [self.as_slice(), a].concat(),
            Op::Prepend(a) => [*a, self.as_slice()].concat(),
            Op::Reverse => self.iter().rev().copied().collect(),
            Op::Hexlify => hex::encode(self).into_bytes(),
            Op::Sha1 => sha1::Sha1::digest(self).to_vec(),
            Op::Ripemd160 => ripemd::Ripemd160::digest(self).to_vec(),
            Op::Sha256 => sha2::Sha256::digest(self).to_vec(),
            Op::Keccak256 => sha3::Keccak256::digest(self).to_vec(),
        }
    }
}

/// Evaluates a whole proof: its header checked ([`committed_digest`]), then every operation
/// applied from that digest along every path of the tree ([`super::walk`]: bounded, no
/// recursion), each attestation returned with what it attests. Refuses exactly what
/// [`super::parse_body`] refuses; pure, and no input makes it panic.
pub fn evaluate(bytes: &[u8]) -> Result<Evaluated, EvalProblem> {
    let digest = committed_digest(bytes).map_err(EvalProblem::Header)?;
    let mut attestations = Vec::new();
    walk(bytes, digest.0.to_vec(), &mut |step| {
        let Step::Leaf(leaf, msg) = step else {
            return;
        };
        attestations.push(match leaf {
            Leaf::Bitcoin(height) => {
                // The walk hands a Bitcoin attestation only a 32-byte message.
                let mut merkle_root = [0u8; 32];
                for (to, from) in merkle_root.iter_mut().zip(msg.iter().rev()) {
                    *to = *from;
                }
                Attestation::Bitcoin {
                    height,
                    merkle_root,
                }
            }
            Leaf::Pending(uri) => Attestation::Pending {
                // URI_CHARS are ASCII.
                calendar_url: uri.iter().map(|&c| char::from(c)).collect(),
                commitment: msg.clone(),
            },
            Leaf::Litecoin(height) => Attestation::Litecoin { height },
            Leaf::Unknown(tag, _) => Attestation::Unknown { tag },
        });
    })
    .map_err(EvalProblem::Body)?;
    Ok(Evaluated {
        digest,
        attestations,
    })
}

impl Attestation {
    /// The attestation's kind as `--json` and verify.js name it: `bitcoin`, `pending`,
    /// `litecoin`, `unknown`.
    pub fn kind(&self) -> &'static str {
        match self {
            Attestation::Bitcoin { .. } => "bitcoin",
            Attestation::Pending { .. } => "pending",
            Attestation::Litecoin { .. } => "litecoin",
            Attestation::Unknown { .. } => "unknown",
        }
    }
}

/// The words a person reads: for a Bitcoin attestation, the block, the root it must carry and
/// where to compare it.
impl std::fmt::Display for Attestation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Attestation::Bitcoin {
                height,
                merkle_root,
            } => {
                let [a, b] = explorer_urls(*height);
                write!(
                    f,
                    "Bitcoin block {height}, merkle root {} — compare at {a}, {b}",
                    hex::encode(merkle_root)
                )
            }
            Attestation::Pending { calendar_url, .. } => write!(f, "pending at {calendar_url}"),
            Attestation::Litecoin { height } => write!(
                f,
                "Litecoin block {height} (not checked here: compare with an OpenTimestamps client)"
            ),
            Attestation::Unknown { tag } => {
                write!(
                    f,
                    "an attestation of unknown kind (tag {})",
                    hex::encode(tag)
                )
            }
        }
    }
}

/// `{"kind": "bitcoin", "height", "merkle_root", "explorers": [url, url]}`,
/// `{"kind": "pending", "calendar_url", "commitment"}`, `{"kind": "litecoin", "height"}`,
/// `{"kind": "unknown", "tag"}`; bytes as lowercase hex (docs/anchoring.md).
impl serde::Serialize for Attestation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", self.kind())?;
        match self {
            Attestation::Bitcoin {
                height,
                merkle_root,
            } => {
                m.serialize_entry("height", height)?;
                m.serialize_entry("merkle_root", &hex::encode(merkle_root))?;
                m.serialize_entry("explorers", &explorer_urls(*height))?;
            }
            Attestation::Pending {
                calendar_url,
                commitment,
            } => {
                m.serialize_entry("calendar_url", calendar_url)?;
                m.serialize_entry("commitment", &hex::encode(commitment))?;
            }
            Attestation::Litecoin { height } => m.serialize_entry("height", height)?,
            Attestation::Unknown { tag } => m.serialize_entry("tag", &hex::encode(tag))?,
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        BITCOIN_TAG, HEADER_LEN, MAGIC, MAX_ATTESTATIONS, MAX_OPS, OP_SHA256, PENDING_TAG, VERSION,
        parse_body,
    };
    use super::*;
    use std::path::Path;

    fn example(name: &str) -> Vec<u8> {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/ots-examples"
        ));
        std::fs::read(dir.join(name)).unwrap()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Bitcoin block 358391's 80-byte header, as public block explorers and other OpenTimestamps
    /// implementations' tests give it (docs/anchoring.md says how it was checked): its double
    /// sha256 is the block's hash, below the target its nBits set, and bytes 36..68 are the
    /// merkle root in the header's byte order.
    const HEADER_358391: &str = "02000000b96394585a281b7e5f438fd1c9ed492645a1fd61cb3802040000000000000000007ee445d23ad061af4a36b809501fab1ac4f2d7e7a739817dd0cbb7ec661b8a1e376755f58616186272def6";

    #[test]
    fn hello_world_evaluates_to_block_358391_and_its_merkle_root() {
        let got = evaluate(&example("hello-world.txt.ots")).unwrap();
        assert_eq!(
            got.digest,
            Digest::of(&example("hello-world.txt")),
            "the digest the header commits to is the file's"
        );
        let [
            Attestation::Bitcoin {
                height,
                merkle_root,
            },
        ] = got.attestations.as_slice()
        else {
            panic!("{:?}", got.attestations)
        };
        assert_eq!(*height, 358_391);
        assert_eq!(
            hex::encode(merkle_root),
            "8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00"
        );
        // The real block's header carries that root (reversed: the header's own order), and
        // the header is the real block's: its double sha256 meets the target it states.
        let header = unhex(HEADER_358391);
        let mut internal = *merkle_root;
        internal.reverse();
        assert_eq!(&header[36..68], internal);
        let hash = sha2::Sha256::digest(sha2::Sha256::digest(&header));
        let mut shown: Vec<u8> = hash.to_vec();
        shown.reverse();
        assert_eq!(
            hex::encode(&shown),
            "000000000000000003e892881a8cdcdc117c06d444057c98b6f04a9ee75a2319"
        );
        // nBits 0x181686f5: target 0x1686f5 << 8 * (0x18 - 3); the hash, big-endian, is below.
        let bits = u32::from_le_bytes([header[72], header[73], header[74], header[75]]);
        let mut target = [0u8; 32];
        let exp = (bits >> 24) as usize;
        let mant = bits & 0x00ff_ffff;
        target[32 - exp] = (mant >> 16) as u8;
        target[33 - exp] = (mant >> 8) as u8;
        target[34 - exp] = mant as u8;
        assert!(shown.as_slice() < &target[..]);
        assert_eq!(
            got.attestations[0].to_string(),
            "Bitcoin block 358391, merkle root 8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00 — compare at https://mempool.space/block/358391, https://blockstream.info/block-height/358391"
        );
    }

    #[test]
    fn every_example_evaluates_as_its_attestations_say() {
        let kinds = |name: &str| -> Vec<String> {
            evaluate(&example(name))
                .unwrap()
                .attestations
                .iter()
                .map(|a| match a {
                    Attestation::Bitcoin { height, .. } => format!("bitcoin {height}"),
                    Attestation::Pending { calendar_url, .. } => format!("pending {calendar_url}"),
                    Attestation::Litecoin { height } => format!("litecoin {height}"),
                    Attestation::Unknown { tag } => format!("unknown {}", hex::encode(tag)),
                })
                .collect()
        };
        assert_eq!(kinds("empty.ots"), ["bitcoin 129405"]);
        // Another file's proof, stamped the same way: same block, another root — what a stranger
        // sees differ from the explorer's.
        assert_eq!(kinds("bad-stamp.txt.ots"), ["bitcoin 358391"]);
        assert_eq!(
            kinds("two-calendars.txt.ots"),
            [
                "pending https://alice.btc.calendar.opentimestamps.org",
                "pending https://bob.btc.calendar.opentimestamps.org"
            ]
        );
        assert_eq!(
            kinds("known-and-unknown-notary.txt.ots"),
            [
                "pending https://bob.btc.calendar.opentimestamps.org",
                "unknown 0102030405060708"
            ]
        );
        assert_eq!(
            kinds("incomplete.txt.ots"),
            ["pending https://alice.btc.calendar.opentimestamps.org"]
        );
        let Attestation::Bitcoin { merkle_root, .. } = evaluate(&example("bad-stamp.txt.ots"))
            .unwrap()
            .attestations[0]
        else {
            panic!()
        };
        assert_ne!(
            hex::encode(merkle_root),
            "8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00"
        );
        assert_eq!(
            evaluate(&example("invalid/exceeds-max-msg-length.ots")),
            Err(EvalProblem::Body(BodyProblem::MessageTooLong))
        );
        assert_eq!(
            evaluate(&example("invalid/bad-major-version.ots")).map_err(EvalProblem::code),
            Err("bad_version")
        );
    }

    fn header() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[VERSION, OP_SHA256]);
        b.extend_from_slice(&[7; 32]);
        b
    }

    fn bitcoin(height: u8) -> Vec<u8> {
        let mut b = vec![0x00];
        b.extend(BITCOIN_TAG);
        b.extend([1, height]);
        b
    }

    /// Each operation against hashes computed here by other means (fixed answers from the
    /// algorithms' published test vectors, or the operation written out).
    #[test]
    fn each_operation_computes_what_the_reference_client_does() {
        let m = b"abc".to_vec();
        let h = |op: Op<'_>| hex::encode(m.apply(&op));
        assert_eq!(h(Op::Sha1), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(h(Op::Ripemd160), "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc");
        assert_eq!(
            h(Op::Sha256),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            h(Op::Keccak256),
            "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
        );
        assert_eq!(h(Op::Reverse), hex::encode(b"cba"));
        assert_eq!(h(Op::Hexlify), hex::encode(b"616263"));
        assert_eq!(h(Op::Append(b"de")), hex::encode(b"abcde"));
        assert_eq!(h(Op::Prepend(b"de")), hex::encode(b"deabc"));
    }

    #[test]
    fn a_path_of_every_operation_reaches_its_attestation() {
        // sha1, ripemd160, reverse, hexlify, keccak256, then a 32-byte message: a Bitcoin
        // attestation; forked beside it, a pending one on the first sha1's result.
        let mut b = header();
        b.extend([0x02, 0xff, 0x00]);
        b.extend(PENDING_TAG);
        b.extend([0x16, 0x15]);
        b.extend(b"https://a.example.org");
        b.extend([0x03, 0xf2, 0xf3, 0xf1, 0x01, 0xaa, 0xf0, 0x01, 0xbb, 0x67]);
        b.extend(bitcoin(9));
        // The same walk by hand.
        let m0 = [7u8; 32].to_vec();
        let m1 = m0.apply(&Op::Sha1);
        let m2 = m1
            .apply(&Op::Ripemd160)
            .apply(&Op::Reverse)
            .apply(&Op::Hexlify)
            .apply(&Op::Prepend(&[0xaa]))
            .apply(&Op::Append(&[0xbb]))
            .apply(&Op::Keccak256);
        let mut root = [0u8; 32];
        root.copy_from_slice(&m2);
        root.reverse();
        let got = evaluate(&b).unwrap();
        assert_eq!(
            got.attestations,
            vec![
                Attestation::Pending {
                    calendar_url: "https://a.example.org".into(),
                    commitment: m1
                },
                Attestation::Bitcoin {
                    height: 9,
                    merkle_root: root
                }
            ]
        );
        assert!(parse_body(&b).is_ok());
    }

    #[test]
    fn the_bounds_fall_where_the_reference_client_puts_them() {
        // 255 operations on a path are read, 256 are not.
        for (n, ok) in [(255usize, true), (256, false)] {
            let mut b = header();
            b.extend(std::iter::repeat_n(0x08, n));
            b.extend(bitcoin(1));
            assert_eq!(evaluate(&b).is_ok(), ok, "{n}");
            assert_eq!(parse_body(&b).is_ok(), ok, "{n}");
        }
        // A message of 4096 bytes, not 4097; hexlify of 2048, not 2049.
        for (extra, ok) in [(4096 - 32, true), (4097 - 32, false)] {
            let mut b = header();
            b.push(0xf0);
            b.extend([0x80 | (extra & 0x7f) as u8, (extra >> 7) as u8]);
            b.extend(vec![1u8; extra]);
            b.push(0x08);
            b.extend(bitcoin(1));
            assert_eq!(evaluate(&b).is_ok(), ok, "{extra}");
        }
        // A Bitcoin attestation on 20 bytes.
        let mut b = header();
        b.push(0x02);
        b.extend(bitcoin(1));
        assert_eq!(
            evaluate(&b),
            Err(EvalProblem::Body(BodyProblem::BitcoinNotDigest(20)))
        );
        assert_eq!(parse_body(&b), Err(BodyProblem::BitcoinNotDigest(20)));
        // A calendar URI with a character the reference client refuses.
        let mut b = header();
        b.push(0x00);
        b.extend(PENDING_TAG);
        b.extend([0x0b, 0x0a]);
        b.extend(b"https://a?");
        assert_eq!(
            evaluate(&b),
            Err(EvalProblem::Body(BodyProblem::BadCalendar))
        );
        // Too many attestations, too many operations.
        let mut b = header();
        for _ in 0..MAX_ATTESTATIONS {
            b.push(0xff);
            b.extend(bitcoin(1));
        }
        b.extend(bitcoin(1));
        assert_eq!(
            evaluate(&b),
            Err(EvalProblem::Body(BodyProblem::TooManyAttestations))
        );
        // 200 operations a branch, 51 branches: past 10,000 operations on 51 attestations.
        let mut b = header();
        for _ in 0..=MAX_OPS / 200 {
            b.push(0xff);
            b.extend([0x08; 200]);
            b.extend(bitcoin(1));
        }
        b.extend(bitcoin(1));
        assert!(b.len() > HEADER_LEN);
        assert_eq!(
            evaluate(&b),
            Err(EvalProblem::Body(BodyProblem::TooManyOps))
        );
        assert_eq!(parse_body(&b), Err(BodyProblem::TooManyOps));
    }

    #[test]
    fn evaluate_and_parse_body_refuse_alike() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let hello = example("hello-world.txt.ots");
        for _ in 0..5_000 {
            let mut b = hello.clone();
            for _ in 0..1 + next() % 3 {
                let at = HEADER_LEN + (next() as usize) % (b.len() - HEADER_LEN);
                b[at] = next() as u8;
            }
            let e = evaluate(&b).map(|_| ()).map_err(|p| p.code());
            let p = parse_body(&b).map(|_| ()).map_err(|p| p.code());
            assert_eq!(e, p);
        }
    }
}
