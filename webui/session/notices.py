"""One-shot messages that survive the rerun an action triggers, and file imports read once.

A callback or an action before ``st.rerun()`` leaves a notice with :func:`flash`; the page shows
it at the top on its next run with :func:`show` and forgets it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st
from streamlit import config

import store
from costmodel.scenario import encodings
from store.documents import MAX_IMPORT_BYTES
from webui.i18n.labels import error_text
from webui.i18n.text import md_escape

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


def _css_text(text: str) -> str:
    """``text`` as a CSS string's content (no quote or backslash can end it)."""
    return '"' + text.replace("\\", "").replace('"', "").replace("\n", " ") + '"'


def uploader_style(t, scope: str | None = None, too_big: str | None = None) -> None:
    """Hide the uploader's own English texts ("Drag and drop file here", "Limit 1MB per file", which
    is the server's limit, not the importer's) and write the button's text in the page's language;
    the page states the real limit in a caption (Streamlit has no translations of its own texts).

    A file over the server's limit is refused by the browser with an English tooltip and never
    reaches the page: the refused file's chip gets ``too_big`` (default: the server's limit) in the
    page's language, and inside the container keyed ``scope`` an earlier refusal is hidden, so an
    old message never stands beside the new one."""
    mb = int(config.get_option("server.maxUploadSize"))
    chip = '[data-testid="stFileChips"]:has([data-testid="stFileChip"][aria-invalid="true"])'
    css = [
        '[data-testid="stFileUploaderDropzoneInstructions"]{display:none}',
        '[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"]{display:none}',
        '[data-testid="stFileUploaderDropzone"] button span[data-has-shortcut]::after{content:'
        + _css_text(t("upload.browse")) + "}",
        f"{chip}::after{{content:{_css_text(t('upload.over_server_limit', mb=mb))};color:#B42318;"
        "font-size:0.875rem;align-self:center;padding:0 0.5rem}",
    ]
    if scope:
        box = f".st-key-{scope}"
        if too_big:
            css.append(f"{box} {chip}::after{{content:{_css_text(too_big)}}}")
        refused_chip = '[data-testid="stFileChip"][aria-invalid="true"]'
        css.append(f'{box}:has({refused_chip}) [data-testid="stAlert"]{{display:none}}')
    st.html("<style>" + "".join(css) + "</style>")


def upload(t, label: str, key: str, read: Callable[[bytes], T], help: str | None = None) -> T | None:
    """A JSON file uploader whose new file is read once by ``read`` (a :mod:`store.documents` importer).

    Returns the validated object the first run after a new file arrives, else None. Every file
    read gets a fresh, empty uploader (so the list never grows); a refused file reruns the page
    and its message (field and allowed range, in the page's language) shows once under the new
    uploader, and nothing changes. Texts: ``upload.*`` keys; the limit is the importer's.
    """
    turn = st.session_state.get(f"{key}_turn", 0)
    kb = MAX_IMPORT_BYTES // 1024
    with st.container(key=f"{key}_box"):
        uploader_style(t, f"{key}_box", t("upload.too_big", kb=kb))
        up = st.file_uploader(label, type=["json"], key=f"{key}_{turn}", help=help)
        st.caption(t("upload.limit", kb=kb))
        refused = st.session_state.pop(f"{key}_refused", None)
        if up is None:
            if refused:
                st.error(t("scn.import_bad", error=md_escape(refused)), icon="🚫")
            return None
    st.session_state[f"{key}_turn"] = turn + 1  # the next run shows a new, empty uploader
    data = up.getvalue()
    try:
        value = read(data)
    except store.ImportRejected as exc:
        st.session_state[f"{key}_refused"] = error_text(t, exc)
        st.rerun()
    st.session_state[f"{key}_encoding"] = encoding_of(data)
    return value


def read_as(t, key: str) -> str:
    """" The file was read as GBK …" after a successful :func:`upload` of a file that was not UTF-8
    (nothing is read in another encoding without saying so); else ""."""
    name = st.session_state.pop(f"{key}_encoding", None)
    return " " + t("upload.read_as", encoding=name) if name and name != encodings.UTF8 else ""


def encoding_of(data: bytes) -> str | None:
    """The encoding an accepted file was read in (:func:`costmodel.scenario.encodings.decode`)."""
    try:
        return encodings.decode(bytes(data))[1]
    except UnicodeDecodeError:
        return None
