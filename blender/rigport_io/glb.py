# Reads and rewrites a GLB container (glTF 2.0 binary, spec section 4.4) to keep only some animations.
import json
import struct

GLB_MAGIC = 0x46546C67
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942


def read(path):
    """(document dict, BIN chunk bytes or None) of a GLB file."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != GLB_MAGIC or version != 2 or length > len(data):
        raise ValueError(f"{path}: not a GLB 2.0 file")
    doc, binary, pos = None, None, 12
    while pos + 8 <= length:
        size, kind = struct.unpack_from("<II", data, pos)
        chunk = data[pos + 8:pos + 8 + size]
        if kind == CHUNK_JSON and doc is None:
            doc = json.loads(chunk.decode("utf-8"))
        elif kind == CHUNK_BIN and binary is None:
            binary = chunk
        pos += 8 + size
    if doc is None:
        raise ValueError(f"{path}: GLB without a JSON chunk")
    return doc, binary


def write(path, doc, binary):
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)  # chunks are 4-byte aligned; JSON pads with spaces
    parts = [struct.pack("<II", len(text), CHUNK_JSON), text]
    if binary is not None:
        binary = bytes(binary) + b"\0" * (-len(binary) % 4)
        parts += [struct.pack("<II", len(binary), CHUNK_BIN), binary]
    body = b"".join(parts)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", GLB_MAGIC, 2, 12 + len(body)) + body)


def parse_names(text):
    """A comma-separated list of animation names; empty means all."""
    return [n.strip() for n in text.split(",") if n.strip()]


def keep_animations(path, names):
    """Keep only the animations named in NAMES (in place); returns the names not found.

    Dropped animations leave their accessors unused, which glTF allows."""
    doc, binary = read(path)
    anims = doc.get("animations", [])
    have = {a.get("name", "") for a in anims}
    kept = [a for a in anims if a.get("name", "") in names]
    if kept:
        doc["animations"] = kept
    else:
        doc.pop("animations", None)
    write(path, doc, binary)
    return [n for n in names if n not in have]
