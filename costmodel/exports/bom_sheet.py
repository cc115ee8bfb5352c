"""The workbook's ``Bill of materials`` sheet: per fabric, every network item with its
count, unit price and extended price, their total (= the network capex) and the network's yearly
running costs — the basis of a quote.

Counts and unit prices are live references to the named cells of the ``Inputs`` sheet (the prices
a user may edit, the counts the model computes), extended prices and the total are formulas; the
cached values are the model's (:mod:`costmodel.money.bom`). Texts: ``data/export_bom_labels.yaml``.
"""

from __future__ import annotations

import functools

import yaml
from xlsxwriter.utility import xl_rowcol_to_cell

from costmodel import quantities
from costmodel.catalog.loader import DATA_DIR
from costmodel.money import bom

LABELS_FILE = DATA_DIR / "export_bom_labels.yaml"


@functools.cache
def labels(lang: str) -> dict:
    """The sheet's texts in ``lang`` (``en`` or ``zh``)."""
    with LABELS_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader)[lang]


def _name_of(field: str, j: int) -> str:
    """The Inputs sheet's defined name of an :class:`~costmodel.pipeline.inputs.Inputs` field or ledger driver
    for fabric ``j`` (``export_xlsx``: scalar inputs ``in_<key>``, per-fabric ones ``f<j>_<key>``)."""
    for q in quantities.excel_rows(per_fabric=True):
        if q.model.field == field:
            return f"f{j}_{q.excel.key}"
    for q in quantities.excel_rows(per_fabric=False):
        if q.model.field == field:
            return f"in_{q.excel.key}"
    return f"f{j}_{field}"  # a driver: a model row of the Inputs sheet


def _price_formula(price_name: str, j: int) -> str:
    """A unit price's formula: a named price of the Inputs sheet, or (a server-side optical module) the
    switch-side module's price × the ratio of their ports."""
    if price_name == "node_module_price":
        return f"={_name_of('optic_price', j)}*{_name_of('module_port_ratio', j)}"
    return f"={_name_of(price_name, j)}"


def _item(tx: dict, key: str, fr, lang: str) -> str:
    """An item's label; an optical module line names its module type."""
    label = tx["items"][key]
    module = fr.modules.get(key)
    if not module:
        return label
    return f"{label}: {module['name_zh' if lang == 'zh' else 'name']}"


def _count_formula(count_name: str, j: int) -> str:
    if count_name == "new_switches":
        return f"={_name_of('switches', j)}-{_name_of('reused_switches', j)}"
    return f"={_name_of(count_name, j)}"


def _facility_rows(ws, tx: dict, fr, j: int, row: int, book, fmts) -> int:
    """The facility's lines after the network's total (the cooling built, when costed): live count, price
    and extended formulas like the bill's; returns the last row written."""
    count_f, money = fmts
    for key, count_name, price_name in bom.FACILITY_LINES:
        line = fr.bom_facility.get(key)
        if not line or line["extended"] == 0:
            continue
        row += 1
        ws.write_string(row, 0, tx["items"][key])
        ws.write_formula(row, 1, _count_formula(count_name, j), count_f, line["count"])
        ws.write_formula(row, 2, _price_formula(price_name, j), money, line["unit_price"] * book.rate)
        ws.write_formula(row, 3, f"={xl_rowcol_to_cell(row, 1)}*{xl_rowcol_to_cell(row, 2)}", money,
                         line["extended"] * book.rate)
    return row


def bom_sheet(book, st, res, lang: str) -> None:
    """Write the ``Bill of materials`` sheet of ``book`` (an ``export_xlsx._Book``) for the structure
    ``st`` and result ``res``; money converted at ``book.rate`` (the Inputs sheet's prices already are)."""
    wb, tx, fmt = book.wb, labels(lang), book.fmt
    bold, money, note = fmt["bold"], fmt["money"], fmt["note"]
    count_f = wb.add_format({"num_format": "#,##0"})
    ws = wb.add_worksheet(tx["sheet"])
    ws.write_string(0, 0, tx["title"].format(cur=book.shown), bold)
    ws.write_string(1, 0, tx["note"], note)
    row = 3
    for j, fid in enumerate(st.fabric_ids):
        fr = res.fabric(fid)
        ws.write_string(row, 0, book.fabric_name[fid], bold)
        row += 1
        ws.write_row(row, 0, [tx["col_item"], tx["col_count"], tx["col_unit_price"], tx["col_extended"]], bold)
        first = row + 1
        for key, count_name, price_name in bom.LINES:
            line = fr.bom_priced[key]
            if line["count"] == 0 and line["extended"] == 0:
                continue  # nothing of this item in this fabric
            row += 1
            ws.write_string(row, 0, _item(tx, key, fr, lang))
            ws.write_formula(row, 1, _count_formula(count_name, j), count_f, line["count"])
            if price_name is None:
                ws.write_number(row, 2, 0.0, money)
            else:
                ws.write_formula(row, 2, _price_formula(price_name, j), money, line["unit_price"] * book.rate)
            ws.write_formula(row, 3, f"={xl_rowcol_to_cell(row, 1)}*{xl_rowcol_to_cell(row, 2)}", money,
                             line["extended"] * book.rate)
        row += 1
        ws.write_string(row, 0, tx["total"], bold)
        ws.write_formula(row, 3, f"=SUM({xl_rowcol_to_cell(first, 3)}:{xl_rowcol_to_cell(row - 1, 3)})", money,
                         fr.network_capex_purchase * book.rate)
        row += 1
        ws.write_string(row, 0, tx["model_total"], note)
        ws.write_number(row, 3, fr.network_capex_purchase * book.rate, money)
        row = _facility_rows(ws, tx, fr, j, row, book, (count_f, money))
        row += 2
        ws.write_string(row, 0, tx["running"], bold)
        for key in bom.RUNNING:
            row += 1
            ws.write_string(row, 0, tx["items"][key])
            ws.write_number(row, 3, fr.running[key] * book.rate, money)
        row += 3
    ws.set_column(0, 0, 48)
    ws.set_column(1, 3, 16)
