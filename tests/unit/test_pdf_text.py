"""The PDF's text layer in real characters: ToUnicode maps that name a CJK radical, a stroke or a
Latin ligature are rewritten by an incremental update; everything else stays byte for byte."""

from __future__ import annotations

import io
import zlib

from pypdf import PdfReader

from webui.reports import pdf_text

# the map Chromium wrote for a Noto Sans CJK subset: 网 as the Kangxi radical, 见 as the radical
# supplement's form, ﬁ as one character; 络 and A as they are (a bfchar block and a bfrange)
CMAP = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<00> <FF>
endcodespacerange
3 beginbfchar
<01> <2F79>
<02> <7EDC>
<03> <2EC5>
endbfchar
1 beginbfrange
<04> <05> <FB01>
endbfrange
1 beginbfrange
<06> <07> [<0041> <2F00>]
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end"""


def _pdf(cmap: bytes) -> bytes:
    """A one-page PDF whose font draws codes 01..07 with ``cmap`` as its ToUnicode map."""
    stream = zlib.compress(cmap)
    content = b"BT /F1 12 Tf 72 720 Td <01020304060703> Tj ET"
    objects = [
        b"<</Type /Catalog /Pages 2 0 R>>",
        b"<</Type /Pages /Kids [3 0 R] /Count 1>>",
        b"<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>",
        b"<</Length %d>>\nstream\n" % len(content) + content + b"\nendstream",
        b"<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R>>",
        b"<</Filter /FlateDecode\n/Length %d>> stream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_radicals_and_ligatures_become_real_characters():
    before = _pdf(CMAP)
    assert "⽹" in PdfReader(io.BytesIO(before)).pages[0].extract_text()  # the problem, reproduced
    after = pdf_text.real_text(before)
    assert after.startswith(before)  # an incremental update: the printed bytes are untouched
    text = PdfReader(io.BytesIO(after)).pages[0].extract_text()
    assert "网络见fi" in text and "A一" in text, text
    assert not any(0x2E80 <= ord(c) <= 0x2FDF or 0xFB00 <= ord(c) <= 0xFB06 for c in text), text


def test_a_pdf_without_look_alikes_is_returned_as_it_is():
    clean = _pdf(CMAP.replace(b"<2F79>", b"<7F51>").replace(b"<2EC5>", b"<89C1>").replace(b"<FB01>", b"<0066>")
                 .replace(b"<2F00>", b"<4E00>"))
    assert pdf_text.real_text(clean) == clean
    assert pdf_text.real_text(b"not a pdf") == b"not a pdf"


def test_the_equivalents_come_from_the_unicode_data_file():
    eq = pdf_text.equivalents()
    assert eq[0x2F79] == 0x7F51 and eq[0x2EC5] == 0x89C1 and eq[0x2ED4] == 0x95E8  # 网 见 门
    assert all(0x2E80 <= k <= 0x2FDF or 0x31C0 <= k <= 0x31EF for k in eq)
    assert pdf_text.real("⻓⻚⽂") == "长页文"
