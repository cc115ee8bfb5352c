"""Compare's headline: the same work, each fabric's cluster sized in whole nodes to deliver it
(rows and plan from :mod:`webui.sections.equal_work`, shared with the PDF report)."""

from __future__ import annotations

import streamlit as st

from costmodel.pipeline.results import Result
from webui.i18n.text import markdown_table, md_escape
from webui.i18n.translator import fmt_number
from webui.sections.equal_work import plan_text, rows


def show(t, money, res: Result, names: dict[str, str], slowdowns: list[str] = ()) -> None:
    """The equal-work table with its plan and how to read it; ``slowdowns``: why a fabric is slower on
    the scenario's nodes than on the cluster sized for the work (plain text, one line each)."""
    if res.equal_work is None:
        return
    with st.container(border=True):
        st.subheader(t("work.title"))
        st.caption(plan_text(t, res))
        table = rows(t, money, res, names)
        st.markdown(markdown_table(list(table[0]), [list(row.values()) for row in table]))
        st.caption(t("work.note", nodes=fmt_number(res.nodes)))
        if slowdowns:
            st.info("  \n".join(md_escape(line) for line in slowdowns), icon=":material/speed:")
