"""Compare's "Own vs rent" panel: per fabric the owned cost per GPU-hour and the utilisation at which
owning beats renting, the rental price ranges of the scenario's GPU with their dates and sources, and
the cost of renting the scenario's yearly work (figures from :mod:`costmodel.rent`)."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from costmodel import rent
from costmodel.catalog import load_catalog
from webui.i18n import Translator, fmt_number
from webui.labels import fabric_names, reference_title
from webui.money import Money
from webui.text import md_escape


def _table(rows: list[dict[str, str]]) -> str:
    """A Markdown table (first column left-aligned, the others right-aligned)."""
    header = list(rows[0])
    return "\n".join([
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":--"] + ["--:"] * (len(header) - 1)) + "|",
        *["| " + " | ".join(row.values()) + " |" for row in rows],
    ])


def _share(x: float) -> str:
    return "—" if not math.isfinite(x) else f"{x:.0%}"


def _range(typical: str, low: str, high: str) -> str:
    """``typical (low–high)``, or the typical value alone when the range is one value."""
    return typical if low == high == typical else f"{typical} ({low}–{high})"


def figures(result, scenario) -> rent.OwnVsRent | None:
    """The panel's figures, or None when own vs rent does not apply (fabric scope, no rental price)."""
    if result.scope != "cluster" or scenario.cluster.gpu not in rent.load_rental_table().gpus:
        return None
    return rent.for_scenario(result, scenario)


def render(t: Translator, money: Money, scenario, result) -> None:
    """The panel on Compare (one call line in app_pages/compare.py)."""
    cat = load_catalog()
    table = rent.load_rental_table()
    gpu = scenario.cluster.gpu
    st.subheader(t("rent.title"))
    if result.scope != "cluster":
        st.info(t("rent.fabric_scope"), icon="ℹ️")
        return
    if gpu not in table.gpus:
        st.info(t("rent.no_prices", gpu=md_escape(cat.gpus[gpu].name),
                  stored=", ".join(cat.gpus[g].name for g in table.gpus)), icon="ℹ️")
        return
    o = rent.for_scenario(result, scenario)
    names = fabric_names(t)
    ref = o.reference[0]
    st.caption(t("rent.intro", gpu=md_escape(cat.gpus[gpu].name), gpus=fmt_number(o.gpus),
                 reference=names.get(ref, ref or "—")))

    def per_hour(v: float) -> str:
        return money(v, digits=2)

    cls_name = {c: t(f"rent.class.{c}") for c in o.classes}
    # rental prices of this GPU, with the month read and the source
    src_no = {s: i + 1 for i, s in enumerate(dict.fromkeys(o.sources))}
    st.markdown(_table([{
        t("rent.col.class"): cls_name[c],
        t("rent.col.low"): per_hour(o.prices[k, 0]),
        t("rent.col.typical"): per_hour(o.prices[k, 1]),
        t("rent.col.high"): per_hour(o.prices[k, 2]),
        t("rent.col.as_of"): o.as_of[k],
        t("rent.col.source"): f"[{src_no[o.sources[k]]}]",
    } for k, c in enumerate(o.classes)]))

    # per fabric: the owned cost per GPU-hour and the break-even utilisation per rental class
    rows = []
    for i, fid in enumerate(o.fabric_ids):
        row = {
            t("rent.col.fabric"): md_escape(names.get(fid, fid)),
            t("rent.col.owned_year"): money.short(o.owned_cash_per_year[i]),
            t("rent.col.owned_hour"): per_hour(o.owned_per_gpu_hour[i]),
            t("rent.col.owned_busy"): per_hour(o.owned_per_busy_gpu_hour[i]),
            t("rent.col.owned_useful"): per_hour(o.owned_per_useful_gpu_hour[i]),
            t("rent.col.busy"): _share(o.busy_share[i]),
        }
        for k, c in enumerate(o.classes):
            be = o.break_even[i, k]
            row[t("rent.col.break_even", cls=t(f"rent.short.{c}"))] = _range(_share(be[1]), _share(be[2]), _share(be[0]))
        rows.append(row)
    st.markdown(f"**{t('rent.owned_heading')}**")
    st.markdown(_table(rows))

    # the cost of renting each fabric's yearly work, per class: typical (low–high)
    rows = []
    for i, fid in enumerate(o.fabric_ids):
        row = {
            t("rent.col.fabric"): md_escape(names.get(fid, fid)),
            t("rent.col.rent_hours"): fmt_number(o.rent_gpu_hours_per_year[i]),
        }
        for k, c in enumerate(o.classes):
            v = o.rent_cost_per_year[i, k]
            row[cls_name[c]] = _range(money.short(v[1]), money.short(v[0]), money.short(v[2]))
        row[t("rent.col.owned_year")] = money.short(o.owned_cash_per_year[i])
        rows.append(row)
    st.markdown(f"**{t('rent.rent_heading')}**")
    st.markdown(_table(rows))
    cheapest = int(np.nanargmin(o.owned_cash_per_year)) if np.isfinite(o.owned_cash_per_year).any() else None
    if cheapest is not None:
        k = o.classes.index("specialist") if "specialist" in o.classes else 0
        ratio = o.rent_cost_per_year[cheapest, k, 1] / o.owned_cash_per_year[cheapest]
        st.caption(t("rent.summary", fabric=names.get(o.fabric_ids[cheapest], o.fabric_ids[cheapest]),
                     cls=cls_name[o.classes[k]], ratio=fmt_number(ratio, 2)))
    st.caption(t("rent.notes", mode=t(f"rent.mode.{o.rented_efficiency}"), currency=money.currency))
    refs = [f"[{n}] {reference_title(t, cat.references[s])}" for s, n in src_no.items()]  # our data, not user text
    st.caption("  \n".join(refs))
