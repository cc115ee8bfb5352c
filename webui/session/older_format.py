"""The notice "made with an older model": an exported file or a share link of an earlier format.

A file or a link carries a scenario's inputs but none of its figures (unlike a saved store
version, whose results summary :mod:`webui.session.recomputed` compares with the recomputation), so what
can be said of one written before :data:`costmodel.scenario.formats.CURRENT` is that an older model made it
and its figures are recomputed with today's. :func:`import_scenario` (the Scenarios page's
uploader) and :func:`open_link` (``?p=&s=`` on the first run) remember the format of what they
opened; :func:`show` states it in the sidebar while the session still holds that scenario
unchanged, until dismissed.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

import costmodel
from costmodel.scenario import formats
from store import documents
from webui.i18n.text import md_escape
from webui.session import share, titles

KEY = "older_format"


def remember(scenario: costmodel.Scenario, version: int, what: Literal["file", "link"],
             preset_id: str = share.BLANK) -> None:
    """Keep that ``scenario`` was opened from a ``what`` of format ``version`` (forgotten when current);
    ``preset_id``: the preset a link names (its name is then shown in the page's language)."""
    if version < formats.CURRENT:
        st.session_state[KEY] = {"what": what, "format": version, "preset": preset_id,
                                 "document": scenario.model_dump(mode="json")}
    else:
        st.session_state.pop(KEY, None)


def import_scenario(data: bytes) -> costmodel.Scenario:
    """:func:`store.documents.import_scenario` that remembers the file's format; raises ImportRejected."""
    scenario, version = documents.read_scenario(data)
    remember(scenario, version, "file")
    return scenario


def open_link(preset_id: str, token: str | None) -> costmodel.Scenario:
    """:func:`webui.session.share.decode` that remembers the link's format; raises :class:`share.LinkError`."""
    scenario = share.decode(preset_id, token)
    remember(scenario, share.token_format(token), "link", preset_id)
    return scenario


def show(t, scenario: costmodel.Scenario) -> None:
    """The pending notice while ``scenario`` (the session's) is still the one opened, with a dismiss button."""
    pending = st.session_state.get(KEY)
    if not pending:
        return
    if scenario.model_dump(mode="json") != pending["document"]:
        st.session_state.pop(KEY, None)  # edited or replaced: the notice no longer speaks of what is shown
        return
    name = titles.display_name(scenario, pending["preset"], t)
    st.info(t(f"oldfmt.{pending['what']}", name=md_escape(name), format=pending["format"], current=formats.CURRENT),
            icon="🕰️")
    if st.button(t("oldfmt.dismiss"), key="oldfmt_dismiss"):
        st.session_state.pop(KEY, None)
        st.rerun()
