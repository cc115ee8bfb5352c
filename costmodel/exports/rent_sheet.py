"""The workbook's "Own vs rent" sheet: the rental prices of the scenario's GPU (inputs,
yellow), the GPU count and hours per year, and per fabric the owned cash per year, the owned cost
per GPU-hour, the rented GPU-hours of its yearly work, and per rental class and price level the rent
per year and the break-even utilisation as live formulas over those cells (values from
:mod:`costmodel.analysis.rent` cached). Texts in ``data/export_labels_rent.yaml``."""

from __future__ import annotations

import functools

import yaml
from xlsxwriter.utility import xl_rowcol_to_cell

from costmodel.analysis import rent
from costmodel.catalog.loader import DATA_DIR, load_catalog

LABELS_FILE = DATA_DIR / "export_labels_rent.yaml"


@functools.cache
def labels(lang: str) -> dict:
    """The sheet's texts in ``lang`` (``en`` or ``zh``)."""
    with LABELS_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader)[lang]


def _price_rows(ws, book, tx, o, cat, lang: str, r: int) -> tuple[int, dict]:
    """The rental prices per class and level (inputs, in the book's currency per GPU-hour) from row
    ``r``; returns the last row written and the absolute cell of each (class index, level index)."""
    fmt = book.fmt
    ws.write_string(r, 0, tx["prices"], fmt["bold"])
    r += 1
    ws.write_row(r, 0, [tx[k] for k in ("col_class", "col_low", "col_typical", "col_high", "col_as_of",
                                        "col_source")], fmt["bold"])
    price_cell = {}
    for k, cls in enumerate(o.classes):
        r += 1
        ws.write_string(r, 0, tx["classes"][cls])
        for lv in range(3):
            ws.write_number(r, 1 + lv, float(o.prices[k, lv]) * book.rate, fmt["edit_money"])
            price_cell[k, lv] = xl_rowcol_to_cell(r, 1 + lv, row_abs=True, col_abs=True)
        ws.write_string(r, 4, o.as_of[k])
        ref_obj = cat.references[o.sources[k]]
        ws.write_string(r, 5, ref_obj.title_zh if lang == "zh" and ref_obj.title_zh else ref_obj.title)
    return r, price_cell


def _fabric_columns(tx, o) -> list[str]:
    """The per-fabric table's headers: owned cost, busy share, rented hours, then per rental class the
    rent and the break-even utilisation at each price level."""
    cols = [tx[k] for k in ("col_fabric", "col_owned_year", "col_owned_hour", "col_owned_useful", "col_busy",
                            "col_rent_hours")]
    levels = ("low", "typical", "high")
    for cls in o.classes:
        cols += [tx["col_rent"].format(cls=tx["classes"][cls], level=tx["levels"][lv]) for lv in levels]
        cols += [tx["col_break_even"].format(cls=tx["classes"][cls], level=tx["levels"][lv]) for lv in levels]
    return cols


def _fabric_row(ws, book, o, i: int, r: int, cells: dict, pct, hours_f) -> None:
    """Fabric ``i``'s row ``r``: owned cash per year and per GPU-hour [currency], busy share [0-1],
    rented GPU-hours per year, and per class and level the rent per year and the break-even utilisation
    as formulas over the price, GPU-count and hours ``cells`` (values cached)."""
    money = book.fmt["money"]
    price_cell, gpus_cell, hours_cell = cells["price"], cells["gpus"], cells["hours"]
    cash = float(o.owned_cash_per_year[i]) * book.rate
    hours = float(o.rent_gpu_hours_per_year[i])
    fid = o.fabric_ids[i]
    ws.write_string(r, 0, book.fabric_name.get(fid, fid))
    ws.write_number(r, 1, cash, money)
    cash_cell = xl_rowcol_to_cell(r, 1)
    ws.write_formula(r, 2, f"={cash_cell}/({gpus_cell}*{hours_cell})", money,
                     float(o.owned_per_gpu_hour[i]) * book.rate)
    ws.write_number(r, 3, float(o.owned_per_useful_gpu_hour[i]) * book.rate, money)
    ws.write_number(r, 4, float(o.busy_share[i]), pct)
    ws.write_number(r, 5, hours, hours_f)
    hours_here = xl_rowcol_to_cell(r, 5)
    c = 6
    for k in range(len(o.classes)):
        for lv in range(3):
            ws.write_formula(r, c, f"={price_cell[k, lv]}*{hours_here}", money,
                             float(o.rent_cost_per_year[i, k, lv]) * book.rate)
            c += 1
        for lv in range(3):
            ws.write_formula(r, c, f"={cash_cell}/({price_cell[k, lv]}*{gpus_cell}*{hours_cell})", pct,
                             float(o.break_even[i, k, lv]))
            c += 1


def rent_sheet(book, scenario, res, lang: str) -> None:
    """Write the sheet into ``book`` (an ``export_xlsx._Book``) for ``scenario`` and its result ``res``;
    money in the book's currency (``book.rate`` per model unit)."""
    wb, fmt = book.wb, book.fmt
    tx = labels(lang)
    cat = load_catalog()
    ws = wb.add_worksheet(tx["sheet"])
    ws.write_string(0, 0, tx["title"].format(cur=book.shown), fmt["bold"])
    gpu = scenario.cluster.gpu
    gpu_name = cat.gpus[gpu].name
    if res.scope != "cluster":
        ws.write_string(1, 0, tx["not_cluster"], fmt["note"])
        return
    if gpu not in rent.load_rental_table().gpus:
        ws.write_string(1, 0, tx["no_prices"].format(gpu=gpu_name), fmt["note"])
        return
    o = rent.for_scenario(res, scenario)
    ref = o.reference[0]
    ws.write_string(1, 0, tx["intro"].format(gpus=f"{o.gpus:,}", gpu=gpu_name,
                                             reference=book.fabric_name.get(ref, ref or "—")), fmt["note"])
    pct = wb.add_format({"num_format": "0%"})
    hours_f = wb.add_format({"num_format": "#,##0"})
    head = wb.add_format({"bold": True, "text_wrap": True, "valign": "bottom", "align": "right"})
    r, price_cell = _price_rows(ws, book, tx, o, cat, lang, 3)
    r += 2
    ws.write_string(r, 0, tx["gpus"])
    ws.write_number(r, 1, o.gpus, fmt["edit"])
    gpus_cell = xl_rowcol_to_cell(r, 1, row_abs=True, col_abs=True)
    r += 1
    ws.write_string(r, 0, tx["hours"])
    ws.write_number(r, 1, rent.HOURS_PER_YEAR, hours_f)
    cells = {"price": price_cell, "gpus": gpus_cell, "hours": xl_rowcol_to_cell(r, 1, row_abs=True, col_abs=True)}
    r += 2
    ws.write_string(r, 0, tx["per_fabric"], fmt["bold"])
    r += 1
    cols = _fabric_columns(tx, o)
    ws.write_row(r, 0, cols, head)
    ws.set_row(r, 60)
    for i in range(len(o.fabric_ids)):
        r += 1
        _fabric_row(ws, book, o, i, r, cells, pct, hours_f)
    r += 2
    ws.write_string(r, 0, tx["note"], fmt["note"])
    ws.set_column(0, 0, 30)
    ws.set_column(1, len(cols), 16)
