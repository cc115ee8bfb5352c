"""The priced bill of materials as table rows, for Compare (:mod:`webui.panels.bom_panel`) and
the PDF report (:mod:`webui.sections.bom`); no Streamlit here."""

from __future__ import annotations

import html
from collections.abc import Callable

from costmodel.money import bom
from webui.i18n.translator import Translator, fmt_number


def item_label(fr, key: str, t: Translator) -> str:
    """A bill line's label; an optical module line names the fabric's module type (e.g. a twin-port
    800G OSFP) in the translator's language."""
    module = fr.modules.get(key)
    label = t(f"bom.item.{key}")
    return label if not module else t("bom.module_item", item=label,
                                      module=module["name_zh" if t.lang == "zh" else "name"])


def rows(fr, t: Translator, money, prices: bool = True) -> list[list[str]]:
    """The table's rows for one fabric result ``fr``: item, count and — unless ``prices`` is False —
    unit price and extended price (display currency); items of which the fabric has none are left out."""
    out = []
    for key, _, _ in bom.LINES:
        line = fr.bom_priced[key]
        if line["count"] == 0 and line["extended"] == 0:
            continue
        row = [item_label(fr, key, t), fmt_number(line["count"])]
        out.append([*row, money(line["unit_price"]), money(line["extended"])] if prices else row)
    return out


def facility_rows(fr, t: Translator, money, prices: bool = True) -> list[list[str]]:
    """The facility's lines shown after the network's total (:data:`costmodel.money.bom.FACILITY_LINES`):
    the cooling built for the cluster, when it is costed; empty otherwise."""
    out = []
    for key, _, _ in bom.FACILITY_LINES:
        line = fr.bom_facility.get(key)
        if not line or line["extended"] == 0:
            continue
        label = t(f"bom.item.{key}")
        out.append([label, fmt_number(line["count"]), money(line["unit_price"]), money(line["extended"])] if prices
                   else [label, money(line["extended"])])
    return out


def bom_section(t: Translator, res, names: dict[str, str], table: Callable, money, prices: bool) -> str:
    """The report's "Bill of materials" section: per fabric its items, counts and — unless ``prices``
    is False (a negotiated quote) — unit and extended prices, and the total (= network capex)."""
    e = html.escape
    parts = [f"<h2>{e(t('bom.title'))}</h2><p class='muted'>{e(t('bom.note'))}</p>"]
    header = [t("bom.col.item"), t("bom.col.count")] + ([t("bom.col.unit_price"), t("bom.col.extended")]
                                                         if prices else [])
    for f in res.fabrics:
        body = rows(f, t, money, prices)
        total = [t("bom.total"), *([""] * (len(header) - 2)), money(f.network_capex_purchase)]
        parts.append(f"<p><b>{e(names[f.id])}</b></p>")
        parts.append(table(header, [*body, total, *facility_rows(f, t, money, prices)]))
    return "".join(parts)
