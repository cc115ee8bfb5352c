"""The text of an uploaded file in the encodings Windows editors save: UTF-8 (with or without a
byte-order mark), UTF-16 (Notepad's "Unicode", little or big endian, with or without a mark) and
GBK/GB 18030 (Notepad's "ANSI" on a Chinese Windows).

Every decoding is strict. A file that is not UTF-8 is read as GBK (decoded as its superset GB 18030)
only when every character it gives is ASCII or in GB 2312 — simplified Chinese and its punctuation:
bytes in another legacy encoding (Shift-JIS, Latin-1 …) are refused rather than read as mojibake.
"""

from __future__ import annotations

import codecs

#: Encodings a file can be read in, as :func:`decode` names them.
UTF8, UTF16LE, UTF16BE, GB18030 = "UTF-8", "UTF-16LE", "UTF-16BE", "GBK"
_CODECS = {UTF8: "utf-8", UTF16LE: "utf-16-le", UTF16BE: "utf-16-be", GB18030: "gb18030"}
_BOMS = ((codecs.BOM_UTF8, UTF8), (codecs.BOM_UTF16_LE, UTF16LE), (codecs.BOM_UTF16_BE, UTF16BE))
def decode(raw: bytes) -> tuple[str, str]:
    """(text, encoding) of ``raw``; raises :class:`UnicodeDecodeError` (its ``start``: the first
    byte that fits no encoding tried; for GB 18030 text that is not Chinese, UTF-8's).

    >>> decode("{}".encode("utf-16"))[1], decode("{}".encode("utf-16-be"))[1], decode(b"\\xef\\xbb\\xbf{}")
    ('UTF-16LE', 'UTF-16BE', ('{}', 'UTF-8'))
    >>> decode('{"name": "集群"}'.encode("gbk"))
    ('{"name": "集群"}', 'GBK')
    """
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom):].decode(_CODECS[name]), name
    name = _utf16_without_mark(raw)
    if name is not None:
        return raw.decode(_CODECS[name]), name
    try:
        return raw.decode("utf-8"), UTF8
    except UnicodeDecodeError as not_utf8:
        try:
            text = raw.decode("gb18030")
        except UnicodeDecodeError:
            raise not_utf8 from None
        if not _common_chinese(text):
            raise not_utf8 from None
        return text, GB18030


# punctuation GBK gives where GB 2312 has look-alikes (· — – €): read as punctuation, not as text
_GBK_PUNCTUATION = dict.fromkeys(map(ord, "\u00b7\u2014\u2013\u20ac"), " ")


def _common_chinese(text: str) -> bool:
    """Whether every character is ASCII or in GB 2312 (simplified Chinese and its punctuation, the
    text a Chinese Windows user types): Shift-JIS or Latin-1 bytes read as GBK give rarer characters."""
    try:
        text.translate(_GBK_PUNCTUATION).encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def _utf16_without_mark(raw: bytes) -> str | None:
    """UTF-16 without a byte-order mark, told by where the zero byte of the first (ASCII) character
    is — a JSON or YAML file starts with one (``{``, a space, a letter); UTF-8 text has no zero byte."""
    if len(raw) < 2 or (raw[0] == 0) == (raw[1] == 0):
        return None
    return UTF16LE if raw[1] == 0 else UTF16BE
