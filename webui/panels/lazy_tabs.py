"""Tabs that run only the open tab's panel (``st.tabs(on_change="rerun")``): a page with several
costly panels computes and draws one per rerun, not all. The open tab survives a language switch
(the tabs are keyed by their labels, see :mod:`webui.session.keys`, and the open panel's id is kept)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from webui.session import keys


def open_key(name: str) -> str:
    """Session-state key holding the id of tabs ``name``'s open panel."""
    return f"{name}_open"


def show(t: Callable[..., str], name: str, panels: Mapping[str, tuple[str, Callable[[], None]]]) -> str:
    """One tab per panel (id → (title key, renderer)), in the mapping's order; runs only the open
    tab's renderer and returns its id."""
    ids = list(panels)
    labels = [t(panels[p][0]) for p in ids]
    key = keys.label_key(name, labels)
    for old in keys.keys_of(st.session_state, name):
        if old != key:  # the tabs of another language
            del st.session_state[old]
    last = st.session_state.get(open_key(name))
    default = labels[ids.index(last)] if last in ids and key not in st.session_state else None
    tabs = st.tabs(labels, default=default, key=key, on_change="rerun")
    opened = next((p for p, tab in zip(ids, tabs, strict=True) if tab.open), ids[0])
    st.session_state[open_key(name)] = opened
    with tabs[ids.index(opened)]:
        panels[opened][1]()
    return opened


#: the pages' tabs: name → {panel id: title key}, in order (the first opens by default)
RISK = ("risk_sections", {"tornado": "risk.tornado", "mc": "risk.mc", "work_mc": "work_mc.title"})
SCALE = ("scale_sections", {"sweep": "chart.scale_title", "solver": "scale.solver"})
ASSUMPTIONS = ("assume_tables", {k: f"assumptions.tab_{k}" for k in ("fabrics", "fabric_prices", "gpus", "gpu_prices")})
