"""The same work re-sized in every draw as a table: the rows of the Risk page's table from
:meth:`costmodel.analysis.work_resize.ResizedMonteCarlo.summary`. Texts in
``locales/{en,zh}/work_resize.yaml``; no Streamlit here."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from webui.i18n.translator import Translator


def header(t: Translator) -> list[str]:
    return [t("work_resize.col_fabric"), t("work_resize.col_nodes_p10"), t("work_resize.col_nodes_p50"),
            t("work_resize.col_nodes_p90"), t("work_resize.col_cost_p10"), t("work_resize.col_cost_p50"),
            t("work_resize.col_cost_p90"), t("work_resize.col_first"), t("work_resize.col_found"),
            t("work_resize.col_flagged")]


def _nodes(x: float) -> str:
    return f"{x:,.0f}" if math.isfinite(x) else "—"


def rows(t: Translator, summary: pd.DataFrame, names: dict[str, str], money: Callable[[float], str]
         ) -> list[list[str]]:
    """One row per fabric: name, P10/P50/P90 of the re-sized nodes and of the cost of the work (over the
    draws where a size was found), P(cheapest), P(a size found), share of flagged draws; a fabric no
    draw can size reads "not within N nodes" and dashes."""
    def cost(x: float) -> str:  # one line in a narrow column: "¥4,868 万", not "¥4,868" over "万"
        return money(x).replace(" ", "\u00a0")

    out = []
    for r in summary.itertuples(index=False):
        if r.prob_found > 0:
            out.append([names[r.fabric], _nodes(r.nodes_p10), _nodes(r.nodes_p50), _nodes(r.nodes_p90),
                        cost(r.p10), cost(r.p50), cost(r.p90), f"{r.prob_first:.0%}", f"{r.prob_found:.0%}",
                        f"{r.prob_flagged:.0%}"])
        else:
            out.append([names[r.fabric], t("work_resize.none", max=f"{r.max_nodes:,}"), *["—"] * 8])
    return out


def note(t: Translator, years: int) -> str:
    """What the table measures."""
    return t("work_resize.note", years=years)
