"""The notice "recomputed with the current model": saved figures the current model changed.

A saved version keeps a summary of its results (:func:`costmodel.api.summarize`); when a
load (Scenarios page, ``?t=`` link) recomputes them differently by more than 0.1 %
(:func:`costmodel.scenario.formats.changes`), :func:`remember` keeps the changes in the session and
:func:`show` states them (TCO first, in the display currency) until dismissed.
"""

from __future__ import annotations

import dataclasses
import logging

import streamlit as st

from costmodel.scenario import formats
from webui.i18n.labels import fabric_names
from webui.i18n.money import Money
from webui.i18n.text import md_escape

log = logging.getLogger(__name__)
KEY = "recomputed_changes"


def remember(info) -> None:
    """Keep what the current model changed in a loaded store version (``VersionInfo``), or nothing."""
    try:
        found = info.recomputed()
    except Exception:  # a notice must never stop a load; the page still shows the figures
        log.warning("could not recompute the saved summary", exc_info=True)
        found = []
    if found:
        st.session_state[KEY] = {"name": info.name, "version": info.version,
                                 "changes": [dataclasses.asdict(c) for c in found]}
    else:
        st.session_state.pop(KEY, None)


def lines(t, money: Money, changes: list[formats.Change]) -> list[str]:
    """One sentence per changed figure (Markdown, escaped), in ``t``'s language."""
    names = fabric_names(t)
    out = []
    for c in changes:
        fabric = md_escape(names.get(c.fabric, c.fabric))
        if c.metric == "tco_total":
            out.append(t("fmtv.tco", fabric=fabric, was=money(c.was), now=money(c.now)))
        else:
            out.append(t("fmtv.days", fabric=fabric, was=_days(c.was), now=_days(c.now)))
    return out


def _days(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def show(t, money: Money) -> None:
    """The pending notice, if any, with a button that dismisses it."""
    pending = st.session_state.get(KEY)
    if not pending:
        return
    changes = [formats.Change(**c) for c in pending["changes"]]
    text = "  \n".join([t("fmtv.title", name=md_escape(pending["name"]), version=pending["version"]),
                        *lines(t, money, changes)])
    st.info(text, icon="🔁")
    if st.button(t("fmtv.dismiss"), key="fmtv_dismiss"):
        st.session_state.pop(KEY, None)
        st.rerun()
