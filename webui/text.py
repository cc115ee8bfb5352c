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
