"""Excel workbook with live formulas: change an input in Excel or LibreOffice and the totals follow.

Sheets: ``Inputs`` (scenario and price inputs, editable; the model's per-fabric drivers as
values), one sheet of yearly cash flows per fabric whose cells are formulas over ``Inputs``,
``Summary`` (TCO, Δ vs baseline, NPV, a native chart; the cost of a run:
:mod:`costmodel.exports.unit_cost_table`), ``Training`` (the training plan, each
fabric's layout, step time, MFU/HFU, memory and bill of materials, as values:
:mod:`costmodel.exports.training_sheet`) and ``Catalog`` (every default with its
source and date). Quantities that come from parts of the model too complex for a formula —
step time, goodput, busy hours, energy before PUE, CPU share, lost hours, bill of materials —
are values, and the sheet says so. The cost formulas are not written here: each cell prints the
formula of its category from the money ledger (:mod:`costmodel.money.ledger`), the same formula the
model evaluates, so the workbook and the model cannot drift apart. Money is in the price book's
currency unless converted at export. User text is written as text (``write_string``), never as a formula.

Language: ``lang="zh"`` writes every sheet name, header, label, unit and note in Chinese, ``"en"``
in English. The texts come from ``data/export_labels.yaml`` rather than the app's locale files,
so the model package stays free of ``webui`` and the command line writes a Chinese workbook on
its own; fabric names come from the catalog (``name`` / ``name_zh``). Formulas reach the inputs
through defined names, so they are the same in both languages.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

import xlsxwriter
import yaml
from xlsxwriter.utility import xl_rowcol_to_cell

from costmodel import quantities
from costmodel.api import evaluate
from costmodel.catalog.currency import is_money_unit, shown_rate
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.exports.bom_sheet import bom_sheet
from costmodel.exports.fincarbon_sheet import carbon_sheet, summary_after_tax, tax_columns
from costmodel.exports.reliability_sheet import reliability_sheet
from costmodel.exports.rent_sheet import rent_sheet
from costmodel.exports.training_sheet import training_sheet
from costmodel.exports.unit_cost_table import unit_cost_table
from costmodel.exports.work_sheet import work_sheet
from costmodel.money import ledger
from costmodel.pipeline.facility_checks import ClusterFacts, cluster_facts
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import CATEGORIES, compute
from costmodel.scenario import price_books, titles
from costmodel.scenario.schema import Scenario

MONEY_FORMATS = {"USD": '"$"#,##0', "CNY": '"¥"#,##0', "EUR": '"€"#,##0'}
LABELS_FILE = DATA_DIR / "export_labels.yaml"
LANGUAGES = ("en", "zh")
# The editable input rows come from the registry (data/quantities.yaml, ``excel``): label key,
# Inputs field, unit key (export_labels.yaml ``units``) and whether a user may edit the cell.
SCALAR_INPUTS = tuple(  # (name, Inputs field, unit, editable); labels in export_labels.yaml
    (q.excel.key, q.model.field, q.excel.unit, q.excel.editable) for q in quantities.excel_rows(per_fabric=False)
)
_MODEL_ROWS = (  # per fabric, values the model computes: (key, unit, editable)
    ("endpoints", "count", False),
    ("spare_nodes", "count", False),  # hot-spare servers (reliability by fabric)
    ("switches", "count", False),
    ("reused_switches", "count", False),
    ("dac_cables", "count", False),
    ("aec_cables", "count", False),
    ("aoc_cables", "count", False),
    ("switch_modules", "count", False),
    ("node_modules", "count", False),
    ("module_port_ratio", "ratio", False),
    ("fibre_links", "count", False),
    ("links", "count", False),
    ("frontend_nodes", "count", False),
    ("kwh_network", "kWh", False),
    ("kwh_site", "kWh", False),
    ("kwh_site_busy", "kWh", False),  # the same, the cluster training all year (the cost of a run)
    ("busy_h", "h", False),
    ("cpu_share", "0-1", False),
    ("lost_h", "h", False),
    ("wait_h", "h", False),
    ("vch", "currency/h", True),
    ("run_h", "h", False),  # one run's wall-clock hours (the cost of a run)
    ("cooled_kw", "kW", False),  # peak IT power whose cooling is built (cooling capex)
)
FABRIC_INPUTS = (  # per fabric: (key, unit, editable); the registry's rows, then the model's
    *((q.excel.key, q.excel.unit, q.excel.editable) for q in quantities.excel_rows(per_fabric=True)),
    *_MODEL_ROWS,
)


@functools.cache
def labels(lang: str) -> dict:
    """The workbook's texts in ``lang`` (``en`` or ``zh``) from ``data/export_labels.yaml``."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)} (got {lang!r})")
    with LABELS_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader)[lang]


def _safe_name(text: str, limit: int = 31) -> str:
    bad = '[]:*?/\\'
    return "".join("_" if c in bad else c for c in text)[:limit]


def fabric_sheet_names(fabric_ids, names: dict[str, str]) -> dict[str, str]:
    """Each fabric's sheet name: its name in the workbook's language (an id such as ``tcp-100`` means
    nothing to a reader), "/" written as the look-alike "∕" that Excel allows, at most 31 characters,
    unique regardless of case.

    >>> fabric_sheet_names(["a", "b"], {"a": "RoCEv2 200 Gb/s", "b": "rocev2 200 gb/s"})
    {'a': 'RoCEv2 200 Gb∕s', 'b': 'rocev2 200 gb∕s 2'}
    """
    out: dict[str, str] = {}
    seen: set[str] = set()
    for fid in fabric_ids:
        base = _safe_name(names.get(fid, fid).replace("/", "\u2215"))
        name, n = base, 2
        while name.lower() in seen:
            name = f"{base[:28]} {n}"
            n += 1
        seen.add(name.lower())
        out[fid] = name
    return out


def _sheet_ref(name: str) -> str:
    """A sheet name as a formula reference, always quoted (Chinese names need it)."""
    return "'" + name.replace("'", "''") + "'"


def _cash_flow_sheet(sh, cells_by_year: list[dict[str, str]], fr, rate: float, discount: str, tx: dict,
                     fmt: dict) -> tuple[str, str]:
    """Write one fabric's yearly cash flows (ledger formulas, model values cached), its TCO and
    NPV; returns the absolute references of the TCO and NPV cells."""
    bold, money = fmt["bold"], fmt["money"]
    sh.write_row(2, 0, [tx["year"], *(tx["categories"][c] for c in CATEGORIES), tx["total"]], bold)
    tot_col = len(CATEGORIES) + 1
    for year, cells in enumerate(cells_by_year):
        r = 3 + year
        sh.write_number(r, 0, year)
        for c, cat_name in enumerate(CATEGORIES, start=1):
            sh.write_formula(r, c, cells[cat_name], money, fr.yearly[year][cat_name] * rate)
        first, last = xl_rowcol_to_cell(r, 1), xl_rowcol_to_cell(r, len(CATEGORIES))
        sh.write_formula(r, tot_col, f"=SUM({first}:{last})", money, fr.yearly[year]["total"] * rate)
    h = len(cells_by_year) - 1
    top, bottom = xl_rowcol_to_cell(3, tot_col), xl_rowcol_to_cell(3 + h, tot_col)
    r = 5 + h
    sh.write_string(r, 0, tx["tco"], bold)
    sh.write_formula(r, tot_col, f"=SUM({top}:{bottom})", money, fr.tco_total * rate)
    sh.write_string(r + 1, 0, tx["npv"], bold)
    year1 = xl_rowcol_to_cell(4, tot_col)
    sh.write_formula(r + 1, tot_col, f"=-(NPV({discount},{year1}:{bottom})+{top})" if h else f"=-{top}",
                     money, fr.npv * rate)
    sh.set_column(0, 0, 24)
    sh.set_column(1, tot_col, 16)
    sheet_ref = _sheet_ref(sh.get_name())
    return tuple(f"{sheet_ref}!{xl_rowcol_to_cell(row, tot_col, row_abs=True, col_abs=True)}" for row in (r, r + 1))


@dataclass(frozen=True)
class _Book:
    """What every sheet of one workbook writes with: the workbook, its texts, its money and formats."""

    wb: xlsxwriter.Workbook
    tx: dict
    shown: str  # the currency shown
    rate: float  # display units per price-book unit
    fabric_name: dict[str, str]
    fmt: dict[str, object]  # bold, money, edit, edit_money, note
    lang: str = "en"  # the workbook's language

    def unit_text(self, unit: str) -> str:
        return self.tx["units"][unit].format(cur=self.shown)

    def conv(self, value: float, unit: str) -> float:
        return value * self.rate if is_money_unit(unit) else value


def workbook_bytes(scenario: Scenario, currency: str | None = None, rate: float = 1.0, lang: str = "en",
                   title: str | None = None) -> bytes:
    """The workbook of one scenario as ``.xlsx`` bytes, its texts in ``lang`` (``en`` or ``zh``);
    ``title`` is the scenario's display title (default: its name), written as text.

    ``currency``/``rate`` convert money at export (display units per price-book unit): every
    money input is written converted, so the formulas compute in the chosen currency.
    """
    tx = labels(lang)
    res = evaluate(scenario)
    built = build(scenario)
    p, st = built.inputs, built.structure
    cat = load_catalog()
    if (currency or st.currency) not in MONEY_FORMATS:
        raise ValueError(f"currency must be one of {', '.join(MONEY_FORMATS)} (got {currency!r})")
    shown, rate = shown_rate(st.currency, currency, rate)
    title = title or scenario.name
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    fmt = {"bold": wb.add_format({"bold": True}), "money": wb.add_format({"num_format": MONEY_FORMATS[shown]}),
           "edit": wb.add_format({"bg_color": "#FFF7D6"}),
           "edit_money": wb.add_format({"bg_color": "#FFF7D6", "num_format": MONEY_FORMATS[shown]}),
           "note": wb.add_format({"italic": True, "font_color": "#666666"})}
    book = _Book(wb, tx, shown, rate, fabric_names(lang, cat), fmt, lang)
    names, fab_names = _inputs_sheet(book, title, p, st, compute(p, st).drivers, cluster_facts(scenario, cat))
    _setup_row(book.wb.worksheets()[0], 5, scenario, lang, fmt["bold"])  # the cluster and the model, on the first sheet

    # one cash-flow sheet per fabric, its formulas from the money ledger
    refs = {field: names[key] for key, field, _, _ in SCALAR_INPUTS} | {"scope_cluster": "scope_cluster"}
    tco_cells, npv_cells, after_tax = {}, {}, {}
    sheets = fabric_sheet_names(st.fabric_ids, book.fabric_name)
    refs_by_fabric = {fid: refs | {key: fab_names[(fid, key)] for key, _, _ in FABRIC_INPUTS} for fid in st.fabric_ids}
    for fid in st.fabric_ids:
        sh = wb.add_worksheet(sheets[fid])
        sh.write_string(0, 0, tx["fabric_title"].format(name=book.fabric_name[fid], cur=shown), fmt["bold"])
        fab_refs = refs_by_fabric[fid]
        tco_cells[fid], npv_cells[fid] = _cash_flow_sheet(
            sh, ledger.excel_cash_flows(st.payment, st.horizon_years, fab_refs), res.fabric(fid), rate,
            names["discount"], tx, fmt)
        after_tax[fid] = tax_columns(sh, st.payment, st.horizon_years, fab_refs, res.fabric(fid), rate,
                                     names["discount"], tx, fmt)
    _summary_sheet(book, title, st, res, tco_cells, npv_cells)
    _setup_row(book.wb.get_worksheet_by_name(tx["sheet_summary"]), 2, scenario, lang, fmt["bold"])
    summary_after_tax(book, st, res, tco_cells, after_tax)
    unit_cost_table(book, st, res, tco_cells, refs_by_fabric, float(p.tokens_per_run.ravel()[0]))  # cost of a run
    training_sheet(book, scenario, p, st, res, cluster_facts(scenario, cat))
    work_sheet(book, res)  # the same work, each fabric sized to deliver it
    rent_sheet(book, scenario, res, lang)  # own vs rent
    reliability_sheet(book, st, res)
    bom_sheet(book, st, res, lang)
    carbon_sheet(book, st, res, refs_by_fabric)
    _catalog_sheet(book, st, cat, price_books.for_scenario(scenario, cat))
    wb.close()
    return buf.getvalue()


def _setup_row(ws, row: int, scenario: Scenario, lang: str, bold) -> None:
    """Row ``row`` of ``ws``: what the scenario is (nodes × GPUs of which GPU, the model's size), as text."""
    ws.write_string(row, 0, titles.texts(lang)["setup_label"], bold)
    ws.write_string(row, 1, titles.setup_line(scenario, lang))


def _scope_text(book: _Book, st) -> str:
    return book.tx["scope_cluster"] if st.scope == "cluster" else book.tx["scope_fabric"]


def _inputs_sheet(book: _Book, title: str, p, st, drivers: dict,
                  facts: ClusterFacts) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The Inputs sheet: the scenario's header, the scalar inputs (the PUE's row says when it follows the
    cooling), the cooling (:func:`_cooling_rows`), the per-fabric inputs and model values, each number a
    named cell; returns the names of the scalar cells (by key) and of the fabric cells (by fabric, key)."""
    wb, tx, fmt = book.wb, book.tx, book.fmt
    bold, note = fmt["bold"], fmt["note"]
    ws = wb.add_worksheet(tx["sheet_inputs"])
    inputs = _sheet_ref(ws.get_name())
    ws.write_string(0, 0, tx["scenario"], bold)
    ws.write_string(0, 1, title)
    ws.write_string(1, 0, tx["currency"], bold)
    ws.write_string(1, 1, book.shown if book.shown == st.currency
                    else f"{book.shown} (1 {st.currency} = {book.rate:g} {book.shown})")
    ws.write_string(2, 0, tx["scope"], bold)
    ws.write_string(2, 1, _scope_text(book, st))
    ws.write_string(3, 0, tx["scope_flag"], bold)
    ws.write_number(3, 1, 1 if st.scope == "cluster" else 0)
    wb.define_name("scope_cluster", f"={inputs}!$B$4")
    ws.write_string(4, 0, tx["horizon"], bold)
    ws.write_number(4, 1, st.horizon_years)
    wb.define_name("horizon", f"={inputs}!$B$5")
    ws.write_string(4, 3, tx["horizon_note"], note)
    row = 6
    ws.write_row(row, 0, [tx["col_input"], tx["col_value"], tx["col_unit"], tx["col_note"]], bold)
    names: dict[str, str] = {}
    for key, field, unit, editable in SCALAR_INPUTS:
        row += 1
        ws.write_string(row, 0, tx["inputs"][key])
        cell_fmt = (fmt["edit_money"] if unit == "currency" else fmt["edit"]) if editable else None
        ws.write_number(row, 1, book.conv(float(getattr(p, field)[0, 0]), unit), cell_fmt)
        ws.write_string(row, 2, book.unit_text(unit))
        if not editable:
            ws.write_string(row, 3, tx["model_value_note"], note)
        elif key == "pue" and facts.pue_follows_cooling:
            ws.write_string(row, 3, tx["pue_follows_note"].format(kind=tx["cooling_kinds"][facts.cooling]), note)
        names[key] = f"in_{key}"
        wb.define_name(names[key], f"={inputs}!{xl_rowcol_to_cell(row, 1, row_abs=True, col_abs=True)}")
    row = _cooling_rows(book, ws, row, facts)
    ws.write_string(row + 1, 3, tx["yellow_note"], note)

    row += 3
    ws.write_string(row, 0, tx["per_fabric"], bold)
    ws.write_row(row, 1, [book.fabric_name[fid] for fid in st.fabric_ids], bold)
    fab_names: dict[tuple[str, str], str] = {}
    for key, unit, editable in FABRIC_INPUTS:  # drivers: the ledger's non-input names, as the model computes them
        row += 1
        ws.write_string(row, 0, f"{tx['inputs'][key]} [{book.unit_text(unit)}]")
        for j, fid in enumerate(st.fabric_ids):
            value = book.conv(float(drivers[key][0, j] if key in drivers else getattr(p, key)[0, j]), unit)
            cell_fmt = (fmt["edit_money"] if unit.startswith("currency") else fmt["edit"]) if editable else None
            ws.write_number(row, 1 + j, float(value), cell_fmt)
            fab_names[(fid, key)] = f"f{j}_{key}"
            wb.define_name(fab_names[(fid, key)],
                           f"={inputs}!{xl_rowcol_to_cell(row, 1 + j, row_abs=True, col_abs=True)}")
    ws.set_column(0, 0, 44)
    ws.set_column(1, 1 + len(st.fabric_ids), 16)
    ws.set_column(3, 3, 60)
    return names, fab_names


def _cooling_rows(book: _Book, ws, row: int, facts: ClusterFacts) -> int:
    """The cooling kind and whether it is built for the cluster, as text rows after row ``row`` (model
    values: the PUE and the cooling capex per kW above are the numbers they set); returns the last row."""
    tx, units = book.tx, book.tx["training"]["units"]
    for key, value, unit in (("cooling", tx["cooling_kinds"][facts.cooling], units["option"]),
                             ("build_cooling", tx["answer"]["yes" if facts.built else "no"], units["on/off"])):
        row += 1
        ws.write_string(row, 0, tx["inputs"][key])
        ws.write_string(row, 1, value)
        ws.write_string(row, 2, unit)
        ws.write_string(row, 3, tx["cooling_note"], book.fmt["note"])
    return row


def _summary_sheet(book: _Book, title: str, st, res, tco_cells: dict, npv_cells: dict) -> None:
    """The Summary sheet: TCO, Δ vs baseline and NPV per fabric as formulas over the cash-flow sheets,
    and a native column chart of the TCOs."""
    wb, tx, bold, money, rate = book.wb, book.tx, book.fmt["bold"], book.fmt["money"], book.rate
    sm = wb.add_worksheet(tx["sheet_summary"])
    sm.write_string(0, 0, title, bold)
    sm.write_string(1, 0, tx["summary_line"].format(years=st.horizon_years, cur=book.shown,
                                                    base=book.fabric_name[res.baseline], scope=_scope_text(book, st)))
    sm.write_row(3, 0, [tx["col_fabric"], tx["col_tco"], tx["col_delta"], tx["col_npv"]], bold)
    base_cell = tco_cells[res.baseline]
    for i, fid in enumerate(st.fabric_ids):
        r = 4 + i
        fr = res.fabric(fid)
        sm.write_string(r, 0, book.fabric_name[fid])
        sm.write_formula(r, 1, f"={tco_cells[fid]}", money, fr.tco_total * rate)
        sm.write_formula(r, 2, f"={tco_cells[fid]}-{base_cell}", money, fr.delta_vs_baseline * rate)
        sm.write_formula(r, 3, f"={npv_cells[fid]}", money, fr.npv * rate)
    chart = wb.add_chart({"type": "column"})
    last = 3 + len(st.fabric_ids)
    summary = sm.get_name()
    chart.add_series({"name": tx["col_tco"], "categories": [summary, 4, 0, last, 0],
                      "values": [summary, 4, 1, last, 1]})
    chart.set_title({"name": tx["chart_title"].format(years=st.horizon_years)})
    chart.set_legend({"none": True})
    sm.insert_chart(4, 5, chart)
    sm.set_column(0, 3, 18)
    sm.activate()


def _catalog_sheet(book: _Book, st, cat, price_book) -> None:
    """The Catalog sheet: every catalog and price-book quantity of the compared fabrics with its range,
    source and date (prices in the shown currency)."""
    tx, rate = book.tx, book.rate
    cs = book.wb.add_worksheet(tx["sheet_catalog"])
    cs.write_row(0, 0, [tx[k] for k in ("cat_item", "cat_quantity", "cat_typical", "cat_low", "cat_high",
                                        "cat_source", "cat_as_of")], book.fmt["bold"])
    r = 0
    for fid in st.fabric_ids:
        for group, entry in (("fabric", cat.fabrics[fid]), ("price", price_book.fabrics[fid])):
            for qname in type(entry).model_fields:
                q = getattr(entry, qname)
                if not hasattr(q, "typical"):
                    continue
                r += 1
                cs.write_string(r, 0, f"{book.fabric_name[fid]} ({tx['group_' + group]})")
                cs.write_string(r, 1, tx["quantities"].get(qname, qname))
                if group == "price":
                    cs.write_row(r, 2, [q.typical * rate, q.lo * rate, q.hi * rate], book.fmt["money"])
                else:
                    cs.write_row(r, 2, [q.typical, q.lo, q.hi])
                ref = cat.references[q.source]
                cs.write_string(r, 5, ref.title_zh if book.lang == "zh" and ref.title_zh else ref.title)
                cs.write_string(r, 6, q.as_of)
    cs.set_column(0, 1, 26)
    cs.set_column(5, 5, 90)
