"""A new session's first paint without the heavy elements.

Plotly charts and data grids need large JavaScript chunks that the browser loads and parses
when the first one arrives; until then the page's text and KPI values wait too (measured by
``bench/first_content_bench.py``). So on a session's first run the pages draw a placeholder in
their place (:func:`ready` is False), and :func:`finish` (called by the frame after the page)
leaves a one-shot fragment whose timer, run by the browser once it has painted, reruns the whole
app with everything drawn. Later runs draw everything at once.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
import yaml

KEY_DONE = "first_paint_done"  # True once the session has had its full page
KEY_DEFERRED = "first_paint_deferred"  # something waited during this run
KEY_ARMED = "first_paint_armed"  # the one-shot fragment has been drawn
SETTINGS: dict = yaml.safe_load(Path(__file__).with_name("first_paint.yaml").read_text(encoding="utf-8"))["first_paint"]


def ready() -> bool:
    """False during a new session's first run: the caller draws :func:`placeholder` instead of a
    chart or data grid, which the next run (moments later) draws."""
    if st.session_state.get(KEY_DONE):
        return True
    st.session_state[KEY_DEFERRED] = True
    return False


def placeholder(t, height: int = 360) -> None:
    """The space of an element that the next run draws, with a short note [height in px]."""
    with st.container(height=height, border=False):
        st.caption(t("progress.first_paint"))


def finish() -> None:
    """End of the frame: after a first run that deferred something, ask for the full page."""
    if st.session_state.get(KEY_DONE):
        return
    if not st.session_state.pop(KEY_DEFERRED, False):
        st.session_state[KEY_DONE] = True  # nothing waited: every later run draws everything
        return
    _full_page()


@st.fragment(run_every=SETTINGS["next_run_s"])
def _full_page() -> None:
    """Drawn empty with the first paint; its first timed rerun reruns the whole app, which no longer
    draws it (so the timer stops)."""
    if st.session_state.get(KEY_ARMED):
        st.session_state[KEY_DONE] = True
        st.rerun(scope="app")
    st.session_state[KEY_ARMED] = True
