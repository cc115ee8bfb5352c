"""The PDF report's text layer in real characters: search and copy of "网络" work.

Chromium's PDF backend (Skia) writes each embedded font's ``/ToUnicode`` map from the font's cmap,
taking the lowest code point that maps to a glyph. Noto Sans CJK shares a glyph between 网 (U+7F51)
and the Kangxi radical ⽹ (U+2F79), so the PDF said "⽹络": a search for 网络 found nothing, and a
copy pasted look-alikes. Latin ligatures came out as one character ("Inﬁniband"). :func:`real_text`
rewrites every ToUnicode map that names a CJK radical or stroke (to its equivalent unified
ideograph, ``pdf_text.yaml``, from the Unicode Character Database) or a Latin ligature (to its
letters), as an *incremental update*: the new maps are appended with a new cross-reference section,
the printed bytes stay as they are. What a reader draws does not change; only what it extracts.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import zlib
from pathlib import Path

import yaml

_LIGATURES = range(0xFB00, 0xFB07)  # ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ: their letters (NFKC)
_BLOCK = 100  # entries per bfchar block (the CMap format's limit)
_HEX = rb"<([0-9A-Fa-f]+)>"


@functools.cache
def equivalents() -> dict[int, int]:
    """CJK radical or stroke code point → its equivalent unified ideograph (``pdf_text.yaml``)."""
    data = yaml.load(Path(__file__).with_name("pdf_text.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    return {int(k): int(v) for k, v in data["equivalents"].items()}


def real(text: str) -> str:
    """``text`` with radicals and strokes as their unified ideographs and ligatures as their letters.

    >>> real("\u2f79\u7edc Inﬁniband")
    '网络 Infiniband'
    """
    eq = equivalents()
    return "".join(chr(eq[ord(c)]) if ord(c) in eq else unicodedata.normalize("NFKC", c)
                   if ord(c) in _LIGATURES else c for c in text)


def _unicode(hex_text: bytes) -> str:
    return bytes.fromhex(hex_text.decode()).decode("utf-16-be", errors="surrogatepass")


def _entries(cmap: bytes) -> dict[tuple[int, int], str] | None:
    """``(code, width in hex digits) → text`` of a ToUnicode CMap's bfchar and bfrange entries (None: a
    form this module does not read)."""
    out: dict[tuple[int, int], str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        pairs = re.findall(_HEX, block)
        if len(pairs) % 2:
            return None
        for src, dst in zip(pairs[::2], pairs[1::2], strict=True):
            out[(int(src, 16), len(src))] = _unicode(dst)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for lo, hi, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[[^\]]*\])", block):
            start, end = int(lo, 16), int(hi, 16)
            if dst.startswith(b"["):
                for i, d in enumerate(re.findall(_HEX, dst)):
                    out[(start + i, len(lo))] = _unicode(d)
                continue
            first = bytes.fromhex(dst[1:-1].decode())
            for i in range(end - start + 1):  # the last byte pair counts up
                unit = int.from_bytes(first[-2:], "big") + i
                out[(start + i, len(lo))] = (first[:-2] + unit.to_bytes(2, "big")).decode("utf-16-be", "surrogatepass")
    return out


def fixed_cmap(cmap: bytes) -> bytes | None:
    """The CMap with real characters (its entries as bfchar blocks), or None when nothing needs a change."""
    entries = _entries(cmap)
    head, tail = cmap.find(b"endcodespacerange"), cmap.find(b"endcmap")
    if not entries or head < 0 or tail < 0:
        return None
    fixed = {k: real(v) for k, v in entries.items()}
    if fixed == entries:
        return None
    items = sorted(fixed.items())
    body = b""
    for i in range(0, len(items), _BLOCK):
        chunk = items[i:i + _BLOCK]
        body += f"\n{len(chunk)} beginbfchar\n".encode()
        body += b"".join(f"<{code:0{width}X}> <{text.encode('utf-16-be', 'surrogatepass').hex().upper()}>\n".encode()
                         for (code, width), text in chunk)
        body += b"endbfchar"
    head += len(b"endcodespacerange")
    return cmap[:head] + body + b"\n" + cmap[tail:]


def _xref(pdf: bytes) -> tuple[dict[int, int], int, bytes]:
    """Object number → byte offset from the last classic cross-reference table, its offset, and its trailer."""
    start = int(re.findall(rb"startxref\s+(\d+)", pdf)[-1])
    if not pdf.startswith(b"xref", start):
        raise ValueError("not a classic cross-reference table")
    end = pdf.index(b"trailer", start)
    offsets: dict[int, int] = {}
    rows = pdf[start + 4:end].split()
    i = 0
    while i < len(rows):
        first, count = int(rows[i]), int(rows[i + 1])
        for k in range(count):
            offset, _gen, kind = rows[i + 2 + 3 * k:i + 5 + 3 * k]
            if kind == b"n":
                offsets[first + k] = int(offset)
        i += 2 + 3 * count
    trailer = pdf[end:pdf.index(b"startxref", end)]
    return offsets, start, trailer


def _stream(pdf: bytes, offset: int) -> tuple[bytes, bool] | None:
    """The decoded data of the stream object at ``offset`` and whether it was Flate-compressed."""
    m = re.compile(rb"\d+\s+\d+\s+obj\s*<<(.*?)>>\s*stream\r?\n", re.S).match(pdf, offset)
    if m is None:
        return None
    length = re.search(rb"/Length\s+(\d+)(?!\s+\d+\s+R)", m.group(1))
    if length is None:
        return None
    raw = pdf[m.end():m.end() + int(length.group(1))]
    flate = b"/FlateDecode" in m.group(1)
    return (zlib.decompress(raw) if flate else raw), flate


def real_text(pdf: bytes) -> bytes:
    """``pdf`` (as Chromium prints it) with its ToUnicode maps in real characters; unchanged when none
    needs it or the file is of a form this module does not read (it never breaks a report)."""
    try:
        offsets, xref_at, trailer = _xref(pdf)
    except (ValueError, IndexError):
        return pdf
    changed: dict[int, bytes] = {}
    for num in sorted({int(n) for n in re.findall(rb"/ToUnicode\s+(\d+)\s+0\s+R", pdf)}):
        found = _stream(pdf, offsets[num]) if num in offsets else None
        new = fixed_cmap(found[0]) if found else None
        if new is not None:
            data = zlib.compress(new) if found[1] else new
            changed[num] = (f"{num} 0 obj\n<</Length {len(data)}" + (" /Filter /FlateDecode" if found[1] else "")
                            + ">>\nstream\n").encode() + data + b"\nendstream\nendobj\n"
    if not changed:
        return pdf
    out = bytearray(pdf if pdf.endswith(b"\n") else pdf + b"\n")
    xref = [b"xref\n"]
    for num, obj in changed.items():
        xref.append(f"{num} 1\n{len(out):010d} 00000 n \n".encode())
        out += obj
    keep = b" ".join(re.findall(rb"/(?:Size|Root|Info|ID)\s+(?:\d+\s+\d+\s+R|\d+|\[[^\]]*\])", trailer))
    new_xref = len(out)
    out += b"".join(xref) + b"trailer\n<<" + keep + f" /Prev {xref_at}>>\nstartxref\n{new_xref}\n%%EOF\n".encode()
    return bytes(out)
