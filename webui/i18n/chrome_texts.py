"""Streamlit's own English texts that a page cannot set, written in the page's language.

The status widget's "Stop" / "Stopping..." button (shown while a run takes longer than half a
second) has no label parameter: its text is replaced by CSS content from the locale catalogs. The
multiselect's "Select all" is turned off where it is used (``select_all=False``) and the page offers
its own button (:func:`select_all_button`).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from webui.i18n.translator import Translator


def _css_text(text: str) -> str:
    """``text`` as a CSS string (no quote or backslash can end it)."""
    return '"' + text.replace("\\", "").replace('"', "").replace("\n", " ") + '"'


def style(t: Translator) -> None:
    """Write the status widget's Stop button in the page's language (every page, once per run)."""
    button = '[data-testid="stStatusWidget"] button'
    st.html(
        "<style>"
        f"{button}{{font-size:0}}"
        f"{button}::after{{content:{_css_text(t('chrome.stop'))};font-size:0.875rem}}"
        f"{button}:disabled::after{{content:{_css_text(t('chrome.stopping'))}}}"
        "</style>"
    )


def select_all_button(t: Translator, key: str, on_click: Callable[[], None], *, disabled: bool,
                      limit: int) -> None:
    """A "Select all (at most ``limit``)" button in the page's language, in place of the
    multiselect's English bulk action."""
    st.button(t("chrome.select_all", n=limit), key=key, on_click=on_click, disabled=disabled,
              icon=":material/done_all:")
