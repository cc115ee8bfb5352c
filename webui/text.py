"""Showing user-supplied text safely: Streamlit never renders raw HTML here, but Markdown would
still turn ``[x](javascript:…)`` or ``![](http://…)`` in a scenario name into a link or image."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


def md_escape(text: str) -> str:
    """Escape every Markdown control character so ``text`` shows literally.

    >>> md_escape("**bold** [x](javascript:alert(1)) <b>")
    '\\\\*\\\\*bold\\\\*\\\\* \\\\[x\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) \\\\<b\\\\>'
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")
