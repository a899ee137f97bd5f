#!/usr/bin/env python3
"""Prove one line of an exhibit in log n, by hand, without exhibit (docs/tree.md).

    python3 scripts/prove-by-hand.py https://<owner>.github.io/<repo> 2002
    python3 scripts/prove-by-hand.py ./docs 2002          # a clone's folder works too

Fetches the checkpoint, the one lines/ file that holds the seq, and the tiles the root needs;
re-derives the line's entry_id from its bytes; and recomputes the checkpoint's root with that
leaf in place (RFC 6962). Python's standard library only; about 10 small files read.
"""
import base64, hashlib, json, sys, urllib.request

SITE, SEQ = sys.argv[1].rstrip("/"), int(sys.argv[2])
read_bytes = 0


def fetch(rel):
    global read_bytes
    path = f"{SITE}/ledger/tree/{rel}"
    if "://" in SITE:
        with urllib.request.urlopen(path) as r:
            data = r.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    read_bytes += len(data)
    return data


def number(n):  # tlog-tiles: 1234067 -> x001/x234/067
    parts = [f"{n % 1000:03d}"]
    while n >= 1000:
        n //= 1000
        parts.insert(0, f"x{n % 1000:03d}")
    return "/".join(parts)


def tile_path(kind, n, width):
    return f"{kind}/{number(n)}" + ("" if width == 256 else f".p/{width}")


sha = lambda b: hashlib.sha256(b).digest()
origin, size, root, head = fetch("checkpoint").decode().split("\n")[:4]
size, root = int(size), base64.b64decode(root)
assert 1 <= SEQ <= size, f"the checkpoint's tree holds seqs 1..{size}"

# The line, from the lines/ file of its 256 seqs, and its entry_id re-derived: the sha256 of the
# canonical dump of the line without its entry_id (docs/protocol.md#chain).
group = (SEQ - 1) // 256
lines = fetch(tile_path("lines", group, min(256, size - group * 256))).split(b"\n")
line = next(l for l in lines if l and json.loads(l).get("seq") == SEQ)
obj = json.loads(line)
assert json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() == line
core = dict(obj)
core.pop("entry_id")
entry = sha(json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
assert entry.hex() == obj["entry_id"], "the line's entry_id is not its core's sha256"
leaf = sha(b"\x00" + entry)

tiles = {}


def stored(level, index):  # the stored hash of the full subtree of 256^level leaves `index`
    n, width = index // 256, min(256, (size >> (8 * level)) - index // 256 * 256)
    key = tile_path(f"tile/{level}", n, width)
    if key not in tiles:
        tiles[key] = fetch(key)
    at = (index % 256) * 32
    return tiles[key][at:at + 32]


def mth(lo, hi):  # RFC 6962's hash of leaves [lo, hi), our leaf in place of the tree's
    if hi - lo == 1 and lo == SEQ - 1:
        return leaf
    k = hi - lo
    if k & (k - 1) == 0 and not (lo <= SEQ - 1 < hi):
        h = k.bit_length() - 1  # a full subtree: a stored hash, or a few of one tile's
        level = h // 8
        hashes = [stored(level, (lo >> (8 * level)) + i) for i in range(1 << (h - 8 * level))]
        while len(hashes) > 1:
            hashes = [sha(b"\x01" + hashes[i] + hashes[i + 1]) for i in range(0, len(hashes), 2)]
        return hashes[0]
    split = 1 << ((k - 1).bit_length() - 1)
    return sha(b"\x01" + mth(lo, lo + split) + mth(lo + split, hi))


ok = mth(0, size) == root
print(f"{origin}: seq {SEQ} entry_id {entry.hex()}")
print(f"  {'INCLUDED' if ok else 'NOT INCLUDED'}: the root recomputed with this line's leaf "
      f"{'is' if ok else 'is not'} the checkpoint's ({size} seqs); {read_bytes} bytes read")
sys.exit(0 if ok else 1)
