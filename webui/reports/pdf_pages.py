"""Where a printed document's anchors landed: the page number of each named destination of a PDF
written by Chromium (Skia), read without a PDF library.

Chromium writes an element that a link points to (``<a href="#sec-3">``) as a named destination of
the catalog's ``/Dests`` dictionary, ``/sec-3 [12 0 R /XYZ x y 0]``: the page object it lies on.
The page's number is its place in the page tree (``/Pages`` → ``/Kids``, depth first).
"""

from __future__ import annotations

import re

_REF = rb"(\d+)\s+\d+\s+R"


def _object(pdf: bytes, number: int) -> bytes:
    """The text of object ``number`` up to its end or its stream (dictionaries only; b"" if absent)."""
    m = re.search(rb"(?:^|[\r\n])%d\s+0\s+obj" % number, pdf)
    if m is None:
        return b""
    ends = [i for i in (pdf.find(b"endobj", m.end()), pdf.find(b"stream", m.end())) if i >= 0]
    return pdf[m.end():min(ends)] if ends else b""


def _ref(body: bytes, key: bytes) -> int | None:
    m = re.search(rb"/" + key + rb"\s+" + _REF, body)
    return int(m.group(1)) if m else None


def page_objects(pdf: bytes) -> list[int]:
    """The page objects' numbers in page order (the last cross-reference section's catalog)."""
    roots = re.findall(rb"/Root\s+" + _REF, pdf)
    if not roots:
        return []
    pages_root = _ref(_object(pdf, int(roots[-1])), b"Pages")
    out: list[int] = []

    def walk(number: int, depth: int) -> None:
        body = _object(pdf, number)
        if depth > 32 or not body:
            return
        kids = re.search(rb"/Kids\s*\[([^\]]*)\]", body)
        if re.search(rb"/Type\s*/Pages\b", body) and kids:
            for kid in re.findall(_REF, kids.group(1)):
                walk(int(kid), depth + 1)
        elif re.search(rb"/Type\s*/Page\b", body):
            out.append(number)

    if pages_root is not None:
        walk(pages_root, 0)
    return out


def named_pages(pdf: bytes) -> dict[str, int]:
    """Each named destination's page number (1 = the first page)."""
    roots = re.findall(rb"/Root\s+" + _REF, pdf)
    if not roots:
        return {}
    catalog = _object(pdf, int(roots[-1]))
    dests_ref = _ref(catalog, b"Dests")
    dests = _object(pdf, dests_ref) if dests_ref is not None else b""
    index = {obj: i + 1 for i, obj in enumerate(page_objects(pdf))}
    out = {}
    for name, page in re.findall(rb"/([A-Za-z0-9_.#-]+)\s*\[\s*" + _REF, dests):
        if int(page) in index:
            out[re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), name).decode()] = index[int(page)]
    return out
