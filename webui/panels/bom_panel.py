"""Compare: the priced bill of materials of one fabric — every item with its count, unit
price and extended price, the total (= the fabric's network capex) and the network's yearly running
costs. Texts: ``webui/i18n/locales/{en,zh}/bom.yaml``; numbers: :mod:`costmodel.money.bom` via the result."""

from __future__ import annotations

import streamlit as st

from costmodel.money import bom
from costmodel.pipeline.results import Result
from webui.i18n.text import markdown_table
from webui.i18n.translator import Translator
from webui.sections.bom import facility_rows, rows
from webui.session import keys, quote
from webui.session import state as session

__all__ = ["render", "rows"]


def render(res: Result, t: Translator, money, names: dict[str, str]) -> None:
    """The Bill of materials section of Compare: a fabric chooser and its priced bill."""
    st.subheader(t("bom.title"))
    ids = [f.id for f in res.fabrics]
    choice = keys.selectbox(st, t("bom.fabric"), ids, name="compare_bom_fabric", format_func=names.get)
    fr = res.fabric(choice)
    # a customer sees a negotiated quote's totals, never its item prices (webui/session/quote.py)
    prices = not quote.hidden(session.scenario())
    header = [t("bom.col.item"), t("bom.col.count")]
    if prices:
        header += [t("bom.col.unit_price"), t("bom.col.extended")]
    total = [t("bom.total"), money(fr.network_capex_purchase)] if not prices else \
        [t("bom.total"), "", "", money(fr.network_capex_purchase)]
    st.markdown(markdown_table(header, rows(fr, t, money, prices), total))
    cooling = facility_rows(fr, t, money, prices)  # the cooling built for the cluster, after the network's total
    if cooling:
        st.markdown(markdown_table(header if prices else [t("bom.col.item"), t("bom.col.extended")], cooling))
    st.caption(t("bom.note"))
    if not prices:
        st.info(t("bom.quote_hidden"), icon="🔒")
    st.markdown(markdown_table([t("bom.col.running"), t("bom.col.per_year")],
                               [[t(f"bom.item.{k}"), money(fr.running[k])] for k in bom.RUNNING]))
