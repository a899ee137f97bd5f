//! Witness cosignatures on the checkpoint (docs/anchoring.md#cosignatures): C2SP
//! tlog-cosignature's `cosignature/v1`, Ed25519. A witness's key is a verifier key of signature
//! type 0x04 (`<name>+<key id>+<base64 of 0x04 ‖ 32 bytes>`); its line under the checkpoint is
//! `— <name> <base64 of key id (4) ‖ time (8, big-endian) ‖ signature (64)>`, over the bytes
//! `cosignature/v1` LF `time <t>` LF and the checkpoint's body. Pure: no file, clock or network.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha2::Digest as _;

/// The signature type of an Ed25519 cosignature key (C2SP tlog-cosignature).
pub const COSIGNATURE_V1: u8 = 0x04;

/// A witness's public key, read from its verifier key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitnessKey {
    pub name: String,
    pub id: [u8; 4],
    pub key: [u8; 32],
    /// The verifier key as written.
    pub vkey: String,
}

/// `SHA-256(name ‖ LF ‖ type ‖ key)[..4]`, signed-note's key id.
pub fn key_id(name: &str, kind: u8, key: &[u8]) -> [u8; 4] {
    let mut h = sha2::Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([kind]);
    h.update(key);
    let d = h.finalize();
    [d[0], d[1], d[2], d[3]]
}

impl WitnessKey {
    /// A cosignature/v1 verifier key, or why it is not one.
    pub fn parse(vkey: &str) -> Result<WitnessKey, String> {
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id), Some(key64)) = (parts.next(), parts.next(), parts.next()) else {
            return Err("not `<name>+<key id>+<base64>`".into());
        };
        if !signed_note::is_key_name_valid(name) || name.contains(char::is_whitespace) {
            return Err("its name is empty or holds a space or a `+`".into());
        }
        if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("its key id is not 8 hex digits".into());
        }
        let Ok(bytes) = B64.decode(key64) else {
            return Err("its key is not standard padded base64".into());
        };
        match bytes.first() {
            Some(&COSIGNATURE_V1) => {}
            Some(&1) => {
                return Err(
                    "it is of signature type 0x01 (a log's Ed25519 key), not 0x04 (a cosignature/v1 witness key)"
                        .into(),
                );
            }
            Some(t) => {
                return Err(format!(
                    "signature type 0x{t:02x}, not 0x04 (cosignature/v1)"
                ));
            }
            None => return Err("its key is empty".into()),
        }
        let Ok(key) = <[u8; 32]>::try_from(&bytes[1..]) else {
            return Err(format!(
                "an Ed25519 key is 32 bytes, not {}",
                bytes.len() - 1
            ));
        };
        if ed25519_dalek::VerifyingKey::from_bytes(&key).is_err() {
            return Err("its key is no point of the curve".into());
        }
        let want = key_id(name, COSIGNATURE_V1, &key);
        if !hex::encode(want).eq_ignore_ascii_case(id) {
            return Err(format!(
                "the key id {id} is not the key's ({})",
                hex::encode(want)
            ));
        }
        Ok(WitnessKey {
            name: name.to_string(),
            id: want,
            key,
            vkey: vkey.to_string(),
        })
    }
}

/// What a witness signs: `cosignature/v1` LF `time <t>` LF, then the checkpoint's body.
pub fn signed_message(body: &[u8], time: u64) -> Vec<u8> {
    let mut m = format!("cosignature/v1\ntime {time}\n").into_bytes();
    m.extend_from_slice(body);
    m
}

/// A note's body (every byte up to and with the LF before the blank line) and its signature
/// lines; `None` when it has no blank line.
pub fn split_note(note: &[u8]) -> Option<(&[u8], Vec<&[u8]>)> {
    let at = note.windows(2).position(|w| w == b"\n\n")?;
    let sigs = &note[at + 2..];
    let sigs = sigs.strip_suffix(b"\n").unwrap_or(sigs);
    let lines = if sigs.is_empty() {
        Vec::new()
    } else {
        sigs.split(|&b| b == b'\n').collect()
    };
    Some((&note[..=at], lines))
}

/// A signature line's name and decoded blob (`— <name> <base64>`), or `None`.
pub fn read_line(line: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("\u{2014} ")?;
    let (name, b64) = rest.split_once(' ')?;
    let blob = B64.decode(b64).ok()?;
    Some((name.to_string(), blob))
}

/// One signature line held to a witness key over `body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineState {
    /// Not this witness's (another name).
    NotThisWitness,
    /// This witness's name, another key id (or a blob that is no cosignature/v1's).
    OtherKey,
    /// By this key, and it holds at this time.
    Holds(u64),
    /// By this key, and it does not hold over this body at its time (forged, or the body
    /// changed since it was signed).
    Broken,
}

/// `line` against `key` over `body`.
pub fn check_line(line: &[u8], body: &[u8], key: &WitnessKey) -> LineState {
    let Some((name, blob)) = read_line(line) else {
        return LineState::NotThisWitness;
    };
    if name != key.name {
        return LineState::NotThisWitness;
    }
    if blob.len() != 4 + 8 + 64 || blob[..4] != key.id {
        return LineState::OtherKey;
    }
    let time = u64::from_be_bytes(blob[4..12].try_into().unwrap_or([0xff; 8]));
    if time > i64::MAX as u64 {
        return LineState::Broken;
    }
    let Ok(vk) = ed25519_dalek::VerifyingKey::from_bytes(&key.key) else {
        return LineState::Broken;
    };
    let Ok(sig) = <[u8; 64]>::try_from(&blob[12..]) else {
        return LineState::Broken;
    };
    let sig = ed25519_dalek::Signature::from_bytes(&sig);
    use ed25519_dalek::Verifier as _;
    if vk.verify(&signed_message(body, time), &sig).is_ok() {
        LineState::Holds(time)
    } else {
        LineState::Broken
    }
}

/// A listed witness as the site names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListedWitness {
    // Declared in alphabetical order: STATS.json's keys are written sorted.
    pub key: String,
    pub name: String,
}

/// What the checkpoint's cosignatures say against the listed witnesses.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cosigned {
    /// Witnesses whose cosignature holds.
    pub k: usize,
    /// Witnesses listed.
    pub n: usize,
    /// The latest time a holding cosignature states (POSIX seconds), and as UTC text.
    pub latest: Option<u64>,
    pub latest_utc: Option<String>,
    /// The names of the witnesses that cosigned, in the list's order.
    pub by: Vec<String>,
    /// `(code, detail)` of each cosignature that does not hold.
    pub problems: Vec<(String, String)>,
}

/// Every signature line of `note` against every listed witness (docs/anchoring.md#cosignatures):
/// `cosignature_broken` (a line by a witness's key that does not hold over this body),
/// `cosignature_other_key` (a line in a listed witness's name by another key), and
/// `witness_key` (a listed key that is no cosignature/v1 key). Lines of other names (the
/// operator's, a witness not listed) are not cosignatures of a listed witness: not counted.
pub fn check_note(note: &[u8], listed: &[ListedWitness]) -> Cosigned {
    let mut out = Cosigned {
        n: listed.len(),
        ..Cosigned::default()
    };
    let (body, lines) = split_note(note).unwrap_or((note, Vec::new()));
    for w in listed {
        let key = match WitnessKey::parse(&w.key) {
            Ok(k) if k.name == w.name => k,
            Ok(k) => {
                out.problems.push((
                    "witness_key".into(),
                    format!(
                        "witness {:?}: its key is named {:?}, not {:?}",
                        w.name, k.name, w.name
                    ),
                ));
                continue;
            }
            Err(why) => {
                out.problems.push((
                    "witness_key".into(),
                    format!(
                        "witness {:?}: {} is not a cosignature key: {why}",
                        w.name, w.key
                    ),
                ));
                continue;
            }
        };
        let mut best: Option<u64> = None;
        for (i, line) in lines.iter().enumerate() {
            match check_line(line, body, &key) {
                LineState::NotThisWitness => {}
                LineState::Holds(t) => best = Some(best.map_or(t, |b| b.max(t))),
                LineState::OtherKey => out.problems.push((
                    "cosignature_other_key".into(),
                    format!(
                        "signature line {}: in the name of witness {:?}, and not by its key {} (docs/anchoring.md#cosignatures)",
                        i + 1,
                        w.name,
                        w.key
                    ),
                )),
                LineState::Broken => out.problems.push((
                    "cosignature_broken".into(),
                    format!(
                        "signature line {}: witness {:?}'s cosignature does not hold over this checkpoint: forged, or the checkpoint changed after it was cosigned (docs/anchoring.md#cosignatures)",
                        i + 1,
                        w.name
                    ),
                )),
            }
        }
        if let Some(t) = best {
            out.k += 1;
            out.by.push(w.name.clone());
            out.latest = Some(out.latest.map_or(t, |l| l.max(t)));
        }
    }
    out.latest_utc = out.latest.map(utc);
    out
}

/// POSIX seconds as `YYYY-MM-DDTHH:MM:SSZ` (days from the civil calendar, no clock read).
pub fn utc(t: u64) -> String {
    let secs = t % 86_400;
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        exhibit_protocol::days::civil_from_days((t / 86_400) as i64),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// STATS.json's `tree.witnesses`: `None` when absent, `Err` when it is not a list of
/// `{"key", "name"}` strings.
pub fn listed_in_stats(stats: &serde_json::Value) -> Option<Result<Vec<ListedWitness>, String>> {
    let v = stats.pointer("/tree/witnesses")?;
    Some(
        serde_json::from_value::<Vec<ListedWitness>>(v.clone())
            .map_err(|e| format!("tree.witnesses is not a list of {{\"key\", \"name\"}}: {e}")),
    )
}

/// The words both verifiers say: "cosigned by k of n witnesses, the latest at <time>".
pub fn words(c: &Cosigned) -> String {
    let of = format!(
        "cosigned by {} of {} witness{}",
        c.k,
        c.n,
        if c.n == 1 { "" } else { "es" }
    );
    match &c.latest_utc {
        Some(t) => format!("{of}, the latest at {t}"),
        None => of,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A witness key and its signing half, from a fixed seed.
    pub(crate) fn witness(name: &str, seed: u8) -> (ed25519_dalek::SigningKey, String) {
        let sk = ed25519_dalek::SigningKey::from_bytes(&[seed; 32]);
        let pk = sk.verifying_key().to_bytes();
        let mut k = vec![COSIGNATURE_V1];
        k.extend_from_slice(&pk);
        let id = key_id(name, COSIGNATURE_V1, &pk);
        (sk, format!("{name}+{}+{}", hex::encode(id), B64.encode(k)))
    }

    fn line(sk: &ed25519_dalek::SigningKey, name: &str, body: &[u8], time: u64) -> String {
        use ed25519_dalek::Signer as _;
        let id = key_id(name, COSIGNATURE_V1, &sk.verifying_key().to_bytes());
        let sig = sk.sign(&signed_message(body, time));
        let mut blob = id.to_vec();
        blob.extend_from_slice(&time.to_be_bytes());
        blob.extend_from_slice(&sig.to_bytes());
        format!("\u{2014} {name} {}", B64.encode(blob))
    }

    const BODY: &[u8] = b"example.test/log\n3\nAAAA\nexhibit-head 3 ab\n";

    #[test]
    fn a_cosignature_holds_over_its_body_and_time_and_nothing_else() {
        let (sk, vkey) = witness("w.example/1", 7);
        let listed = [ListedWitness {
            name: "w.example/1".into(),
            key: vkey.clone(),
        }];
        let good = line(&sk, "w.example/1", BODY, 1_700_000_000);
        let note = [BODY, b"\n", good.as_bytes(), b"\n"].concat();
        let c = check_note(&note, &listed);
        assert_eq!((c.k, c.n, c.latest), (1, 1, Some(1_700_000_000)));
        assert_eq!(c.latest_utc.as_deref(), Some("2023-11-14T22:13:20Z"));
        assert_eq!(
            words(&c),
            "cosigned by 1 of 1 witness, the latest at 2023-11-14T22:13:20Z"
        );
        // Another body: the same line does not hold.
        let other = b"example.test/log\n4\nAAAA\nexhibit-head 4 ab\n";
        let moved = [&other[..], b"\n", good.as_bytes(), b"\n"].concat();
        let c = check_note(&moved, &listed);
        assert_eq!(c.k, 0);
        assert_eq!(c.problems[0].0, "cosignature_broken");
        // Another key in the witness's name.
        let (sk2, _) = witness("w.example/1", 8);
        let wrong = line(&sk2, "w.example/1", BODY, 1);
        let c = check_note(&[BODY, b"\n", wrong.as_bytes(), b"\n"].concat(), &listed);
        assert_eq!(c.problems[0].0, "cosignature_other_key");
        // A time changed after signing.
        let mut blob = B64.decode(&good["\u{2014} w.example/1 ".len()..]).unwrap();
        blob[11] ^= 1;
        let forged = format!("\u{2014} w.example/1 {}", B64.encode(blob));
        let c = check_note(&[BODY, b"\n", forged.as_bytes(), b"\n"].concat(), &listed);
        assert_eq!((c.k, c.problems[0].0.as_str()), (0, "cosignature_broken"));
    }

    #[test]
    fn a_witness_key_must_be_of_type_4_and_name_its_own_id() {
        let (_, vkey) = witness("w.example/1", 7);
        assert!(WitnessKey::parse(&vkey).is_ok());
        let (_, log_vkey) = signed_note::generate_key(&mut rand_core::OsRng, "w.example/1");
        assert!(WitnessKey::parse(&log_vkey).unwrap_err().contains("0x01"));
        let swapped = vkey.replacen("w.example/1", "w.example/2", 1);
        assert!(WitnessKey::parse(&swapped).unwrap_err().contains("key id"));
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
    }
}
