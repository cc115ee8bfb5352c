"""The numbered quote's lines on the PDF's cover: quote number, customer, project, validity and author.

``proposal`` is a :class:`store.proposals.Proposal` (or None: a plain report, nothing added); its text is
the sales engineer's and is escaped."""

from __future__ import annotations

import html

from webui.i18n.translator import Translator


def cover_lines(t: Translator, proposal) -> str:
    """A small table of the quote's fields for the cover ('' without a quote)."""
    if proposal is None:
        return ""
    rows = [("handoff.cover_number", proposal.number), ("handoff.cover_customer", proposal.customer),
            ("handoff.cover_project", proposal.project), ("handoff.cover_valid", proposal.valid_until),
            ("handoff.cover_author", proposal.author_name)]
    cells = "".join(f"<tr><th>{html.escape(t(key))}</th><td>{html.escape(str(value))}</td></tr>"
                    for key, value in rows)
    return f"<table class='proposal' style='width:auto;margin:4pt 0 6pt'>{cells}</table>"
