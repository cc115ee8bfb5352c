"""One-shot messages that survive the rerun an action triggers, and file imports read once.

A callback or an action before ``st.rerun()`` leaves a notice with :func:`flash`; the page shows
it at the top on its next run with :func:`show` and forgets it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

import store

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


def upload(t, label: str, key: str, read: Callable[[bytes], T], help: str | None = None) -> T | None:
    """A JSON file uploader whose new file is read once by ``read`` (a :mod:`store.documents` importer).

    Returns the validated object the first run after a new file arrives, else None; a refused file
    shows its message (field and allowed range) and changes nothing.
    """
    up = st.file_uploader(label, type=["json"], key=key, help=help)
    if up is None or st.session_state.get(f"{key}_done") == up.file_id:
        return None
    st.session_state[f"{key}_done"] = up.file_id
    try:
        return read(up.getvalue())
    except store.ImportRejected as exc:
        st.error(t("scn.import_bad", error=md_escape(str(exc))), icon="🚫")
        return None
