"""Assumptions: the catalog and the price book as editable tables, with sources and dates.

A section below reads nccl-tests output per fabric into ``measurements`` (webui/inputs/calibration.py).
Edits become the scenario's ``overrides`` (validated; invalid ones are shown and not applied)
and flow into every page of the session and into the share link. Reset returns to the catalog.
The four tables are lazy tabs: only the open one is built and drawn on a rerun.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario import price_books
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS, FABRIC_PRICE_BOUNDS, GPU_OVERRIDE_BOUNDS, GPU_PRICE_BOUNDS
from webui.i18n import labels
from webui.i18n.text import md_escape
from webui.inputs import calibration
from webui.panels import lazy_tabs
from webui.session import quote
from webui.session import state as session

t = session.translator()
cat = load_catalog()
scenario = session.scenario()
book = price_books.for_scenario(scenario, cat)
prices = quote.item_book(scenario, cat)  # a customer sees list prices of a quote's items, never the quote
names = labels.fabric_names(t)
gpu_id = scenario.cluster.gpu

st.title(t("assumptions.title"))
st.caption(t("assumptions.intro", book=md_escape(book.name_zh if t.lang == "zh" and book.name_zh else book.name),
             currency=book.currency))

TABLES = {
    # tab key: (overrides field, items, catalog lookup, bounds)
    "fabrics": ("fabrics", scenario.fabrics, lambda i: cat.fabrics[i], FABRIC_OVERRIDE_BOUNDS),
    "fabric_prices": ("fabric_prices", scenario.fabrics, lambda i: prices.fabrics[i], FABRIC_PRICE_BOUNDS),
    "gpus": ("gpus", [gpu_id], lambda i: cat.gpus[i], GPU_OVERRIDE_BOUNDS),
    "gpu_prices": ("gpu_prices", [gpu_id], lambda i: prices.gpus[i], GPU_PRICE_BOUNDS),
}


def _frame(field: str, items, lookup, bounds) -> pd.DataFrame:
    current = getattr(scenario.overrides, field)
    rows = []
    for item in items:
        entry = lookup(item)
        for q in bounds:
            quantity = getattr(entry, q)
            value = current.get(item, {}).get(q, quantity.typical)
            ref = cat.references[quantity.source]
            rows.append({
                "item": item, "quantity": q, "value": float(value), "default": quantity.typical,
                "low": quantity.lo, "high": quantity.hi, "source": labels.reference_title(t, ref),
                "kind": t(f"kind.{ref.kind}"),
                "as_of": quantity.as_of, "edited": item in current and q in current[item],
            })
    return pd.DataFrame(rows)


def _overrides_from(edited: pd.DataFrame) -> dict:
    """Rows whose value differs from the catalog's become overrides (validated by the schema)."""
    out: dict[str, dict[str, float]] = {}
    for row in edited.itertuples(index=False):
        if pd.notna(row.value) and float(row.value) != float(row.default):
            out.setdefault(row.item, {})[row.quantity] = float(row.value)
    return out


def _apply(field: str, table: dict) -> None:
    try:
        session.change(f"overrides.{field}", table)
        st.session_state.pop(f"assume_err_{field}", None)
    except ScenarioError as exc:
        st.session_state[f"assume_err_{field}"] = labels.error_text(t, exc)


def table_panel(key: str) -> None:
    """The editable table of tab ``key`` of :data:`TABLES`, its measurements and its refusal message."""
    field, items, lookup, bounds = TABLES[key]
    if field.endswith("_prices") and quote.hidden(scenario):
        st.info(t("quote.hidden"), icon="🔒")
    df = _frame(field, items, lookup, bounds)
    df["item"] = [names.get(i, cat.gpus[i].name if i in cat.gpus else i) for i in df["item"]]
    ids = [*items]
    shown = df.assign(quantity=[t.get(f"q.{q}", q) for q in df["quantity"]])
    edited = st.data_editor(
        shown, key=session.widget_key(f"assume_{key}"), hide_index=True, width="stretch",
        disabled=[c for c in shown if c != "value"],
        height=min(38 + 35 * len(shown), 720),
        column_config={
            "item": st.column_config.TextColumn(t("assumptions.col_item")),
            "quantity": st.column_config.TextColumn(t("assumptions.col_quantity")),
            "value": st.column_config.NumberColumn(t("assumptions.col_value"), format="%.6g", required=True),
            "default": st.column_config.NumberColumn(t("assumptions.col_default"), format="%.6g"),
            "low": st.column_config.NumberColumn(t("assumptions.col_low"), format="%.6g"),
            "high": st.column_config.NumberColumn(t("assumptions.col_high"), format="%.6g"),
            "source": st.column_config.TextColumn(t("assumptions.col_source"), width="medium"),
            "kind": st.column_config.TextColumn(t("assumptions.col_kind")),
            "as_of": st.column_config.TextColumn(t("assumptions.col_as_of")),
            "edited": st.column_config.CheckboxColumn(t("assumptions.col_edited")),
        },
    )
    # map the displayed rows back to ids and quantity names
    edited = edited.assign(item=[ids[i // len(bounds)] for i in range(len(edited))],
                           quantity=[list(bounds)[i % len(bounds)] for i in range(len(edited))])
    current = getattr(scenario.overrides, field)
    # overrides of items not shown here (a fabric no longer compared, another GPU) are kept
    table = {k: v for k, v in current.items() if k not in items} | _overrides_from(edited)
    if table != current:
        _apply(field, table)
        if f"assume_err_{field}" not in st.session_state:
            st.rerun()
    if field == "fabrics":  # the model uses a measurement instead of these figures' efficiency and loss
        for fid, m in scenario.measurements.items():
            st.caption(t("calib.measured_by", fabric=md_escape(names[fid]),
                         summary=md_escape(calibration.label(t, m))))
        calibration.alltoall_table_captions(t, scenario, names)
    err = st.session_state.pop(f"assume_err_{field}", None)  # shown once
    if err:
        st.error(t("assumptions.invalid", error=md_escape(err)), icon="⚠️")
        session.refresh()  # a new revision: the table shows the values in use again


NAME, TITLES = lazy_tabs.ASSUMPTIONS
lazy_tabs.show(t, NAME, {k: (TITLES[k], lambda k=k: table_panel(k)) for k in TITLES})

with st.expander(t("assumptions.media_title")):
    st.caption(t("assumptions.media_intro"))
    media_rows = [(f"{rate} Gb/s", name, getattr(row, name)) for rate, row in sorted(cat.media.items())
                  for name in type(row).model_fields]
    media_rows += [(t("assumptions.media_layout"), name, getattr(cat.layout, name))
                   for name in type(cat.layout).model_fields]
    st.dataframe(pd.DataFrame([{
        t("assumptions.col_item"): item, t("assumptions.col_quantity"): t(f"media.{name}"),
        t("assumptions.col_default"): q.typical,
        t("assumptions.col_source"): labels.reference_title(t, cat.references[q.source]),
        t("assumptions.col_kind"): t(f"kind.{cat.references[q.source].kind}"), t("assumptions.col_as_of"): q.as_of,
    } for item, name, q in media_rows]), hide_index=True, width="stretch")

if st.button(t("assumptions.reset"), icon=":material/restart_alt:", key="assume_reset",
             disabled=scenario.overrides.is_empty()):
    session.replace(with_change(scenario, "overrides", {}).scenario, pin=False)  # a new revision: every table anew
    for key in TABLES:
        st.session_state.pop(f"assume_err_{TABLES[key][0]}", None)
    st.rerun()

calibration.section(t, scenario, cat)
