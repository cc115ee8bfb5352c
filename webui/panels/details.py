"""Compare's details: the bill of materials, own vs rent, tax and carbon, specifications and
reliability, one tab each. Only the open tab's panel runs (``st.tabs(on_change="rerun")``), so a
rerun draws one panel, not five; the open tab survives a language switch."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from webui.session import keys

PANELS = {"bom": "bom.title", "rent": "rent.title", "fincarbon": "fincarbon.title", "specs": "compare.specs",
          "reliability": "reliability.title"}  # panel id → its title (the tab's label)
NAME = "compare_details"  # the tabs' widget name (keyed by its labels, see webui.session.keys)
OPEN = "compare_details_open"  # the open panel's id: carries the choice into the next language's tabs


def show(t: Callable[..., str], panels: Mapping[str, Callable[[], None]]) -> str:
    """One tab per panel id of ``panels`` (in :data:`PANELS` order); runs only the open tab's
    renderer and returns its id."""
    ids = [p for p in PANELS if p in panels]
    labels = [t(PANELS[p]) for p in ids]
    key = keys.label_key(NAME, labels)
    for old in keys.keys_of(st.session_state, NAME):
        if old != key:  # the tabs of another language (or another set of panels)
            del st.session_state[old]
    last = st.session_state.get(OPEN)
    default = labels[ids.index(last)] if last in ids and key not in st.session_state else None
    tabs = st.tabs(labels, default=default, key=key, on_change="rerun")
    opened = next((p for p, tab in zip(ids, tabs, strict=True) if tab.open), ids[0])
    st.session_state[OPEN] = opened
    for p, tab in zip(ids, tabs, strict=True):
        if p == opened:
            with tab:
                panels[p]()
    return opened
