"""One-shot messages that survive the rerun an action triggers, and file imports read once.

A callback or an action before ``st.rerun()`` leaves a notice with :func:`flash`; the page shows
it at the top on its next run with :func:`show` and forgets it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

import store
from store.documents import MAX_IMPORT_BYTES

from .labels import error_text
from .text import md_escape

T = TypeVar("T")
_KEY = "notice"


def flash(kind: str, text: str) -> None:
    """Keep ``text`` (Markdown, already escaped) for the next run; ``kind``: success, info, warning, error."""
    st.session_state[_KEY] = (kind, text)


def show() -> None:
    """Show and forget the pending notice, if any."""
    if _KEY in st.session_state:
        kind, text = st.session_state.pop(_KEY)
        getattr(st, kind)(text)


def uploader_style(t) -> None:
    """Hide the uploader's own English texts ("Drag and drop file here", "Limit 1MB per file", which
    is the server's limit, not the importer's) and write the button's text in the page's language;
    the page states the real limit in a caption (Streamlit has no translations of its own texts)."""
    st.html(
        "<style>"
        '[data-testid="stFileUploaderDropzoneInstructions"]{display:none}'
        '[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"]{display:none}'
        '[data-testid="stFileUploaderDropzone"] button span[data-has-shortcut]::after{content:"'
        + t("upload.browse").replace("\\", "").replace('"', "") + '"}'
        "</style>"
    )


def upload(t, label: str, key: str, read: Callable[[bytes], T], help: str | None = None) -> T | None:
    """A JSON file uploader whose new file is read once by ``read`` (a :mod:`store.documents` importer).

    Returns the validated object the first run after a new file arrives, else None. Every file
    read gets a fresh, empty uploader (so the list never grows); a refused file reruns the page
    and its message (field and allowed range, in the page's language) shows once under the new
    uploader, and nothing changes. Texts: ``upload.*`` keys; the limit is the importer's.
    """
    turn = st.session_state.get(f"{key}_turn", 0)
    uploader_style(t)
    up = st.file_uploader(label, type=["json"], key=f"{key}_{turn}", help=help)
    st.caption(t("upload.limit", kb=MAX_IMPORT_BYTES // 1024))
    refused = st.session_state.pop(f"{key}_refused", None)
    if up is None:
        if refused:
            st.error(t("scn.import_bad", error=md_escape(refused)), icon="🚫")
        return None
    st.session_state[f"{key}_turn"] = turn + 1  # the next run shows a new, empty uploader
    try:
        return read(up.getvalue())
    except store.ImportRejected as exc:
        st.session_state[f"{key}_refused"] = error_text(t, exc)
        st.rerun()
