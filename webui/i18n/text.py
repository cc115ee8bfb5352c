"""Showing user-supplied text safely: Streamlit never renders raw HTML here, but Markdown would
still turn ``[x](javascript:…)`` or ``![](http://…)`` in a scenario name into a link or image."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


_WJ = "\u2060"  # WORD JOINER: invisible, but no URL or e-mail address spans it
_AUTOLINK = re.compile(r"(?i)(www)(?=\.)|(?<=:)(?=//)|(?<=@)")


def inert(text: str) -> str:
    """Break what GitHub-flavoured Markdown turns into links by itself (``www.x``, ``scheme://``,
    ``a@b``) with an invisible word joiner, so user text never becomes a clickable link.

    >>> inert("www.evil.com") == "www\u2060.evil.com"
    True
    >>> "\u2060" in inert("https://x.io") and "\u2060" in inert("a@b.co")
    True
    """
    return _AUTOLINK.sub(lambda m: (m.group(1) or "") + _WJ, text)


def md_escape(text: str) -> str:
    """Escape every Markdown control character (and break autolinks) so ``text`` shows literally.

    >>> md_escape("**bold** [x](javascript:alert(1)) <b>")
    '\\\\*\\\\*bold\\\\*\\\\* \\\\[x\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) \\\\<b\\\\>'
    """
    return _MD_SPECIAL.sub(r"\\\1", inert(str(text))).replace("\n", " ")


def markdown_table(header: list[str], rows: list[list[str]], total: list[str] | None = None) -> str:
    """A Markdown table: the header as given (our own labels), the cells escaped; first column
    left-aligned, the others right-aligned (a small table needs no Arrow round trip on every rerun);
    ``total``: a last row in bold (its empty cells stay empty).

    >>> print(markdown_table(["a", "b"], [["x|y", "1"]], ["Total", "1"]))
    | a | b |
    |:--|--:|
    | x\\|y | 1 |
    | **Total** | **1** |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":--"] + ["--:"] * (len(header) - 1)) + "|",
             *["| " + " | ".join(md_escape(str(c)) for c in row) + " |" for row in rows]]
    if total:
        lines.append("| " + " | ".join(f"**{md_escape(c)}**" if c else "" for c in total) + " |")
    return "\n".join(lines)
