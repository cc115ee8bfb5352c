"""Compare: the reliability table per fabric — interruptions per year by cause, restart hours,
hot spares, setup hours per run and goodput (reliability by fabric)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from costmodel.physics.reliability import CAUSES
from webui.i18n.text import markdown_table
from webui.i18n.translator import fmt_number


def rows(t: Callable[..., str], fabrics: Sequence, names: Mapping[str, str]) -> list[dict[str, str]]:
    """One row per fabric, column titles in the page's language, plain text (escaped when drawn)."""
    out = []
    for f in fabrics:
        m = f.metrics
        row = {t("reliability.fabric"): names[f.id]}
        row.update({t(f"reliability.cause.{c}"): fmt_number(m[f"interruptions_{c}_per_year"], 2) for c in CAUSES})
        row.update({
            t("reliability.total"): fmt_number(m["interruptions_per_year"], 2),
            t("reliability.restart_h"): fmt_number(m["restart_hours"], 2),
            t("reliability.spares"): fmt_number(m["spare_nodes"]),
            t("reliability.setup_h"): fmt_number(m["setup_hours_per_run"], 1),
            t("reliability.goodput"): f"{m['goodput']:.2%}",
        })
        out.append(row)
    return out


def render(t: Callable[..., str], fabrics: Sequence, names: Mapping[str, str]) -> None:
    """The section: a heading, the table (Markdown: small, no Arrow round trip) and its note."""
    table = rows(t, fabrics, names)
    if not table:
        return
    st.subheader(t("reliability.title"))
    st.markdown(markdown_table(list(table[0]), [list(row.values()) for row in table]))
    st.caption(t("reliability.note"))
