"""Excel workbook with live formulas: change an input in Excel or LibreOffice and the totals follow.

Sheets: ``Inputs`` (scenario and price inputs, editable; the model's per-fabric drivers as
values), one sheet of yearly cash flows per fabric whose cells are formulas over ``Inputs``,
``Summary`` (TCO, Δ vs baseline, NPV, a native chart) and ``Catalog`` (every default with its
source and date). Quantities that come from parts of the model too complex for a formula —
step time, goodput, busy hours, energy before PUE, CPU share, lost hours, bill of materials —
are values, and the sheet says so. Money is in the price book's currency. User text is written
as text (``write_string``), never as a formula.
"""

from __future__ import annotations

import io

import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell

from . import price_books
from .api import evaluate
from .catalog import load_catalog
from .inputs import build
from .schema import Scenario
from .tco import CATEGORIES

MONEY_FORMATS = {"USD": '"$"#,##0', "CNY": '"¥"#,##0', "EUR": '"€"#,##0'}
SCALAR_INPUTS = (  # (name, Inputs field, label, unit, editable)
    ("nodes", "nodes", "Nodes", "count", False),
    ("server_price", "server_price", "Server price", "currency", True),
    ("host_kw", "host_power_kw", "Host power per server", "kW", True),
    ("cpu_cost_share", "host_cpu_cost_share", "Host CPU share of server price", "0-1", True),
    ("cpu_power_share", "host_cpu_power_share", "CPU share of host power", "0-1", True),
    ("pue", "pue", "PUE", "ratio", True),
    ("price_kwh", "electricity_price", "Electricity price", "currency/kWh", True),
    ("maint", "maintenance_frac", "Maintenance per year", "share of capex", True),
    ("cluster_staff", "cluster_ops_per_node_year", "Systems staff per node-year", "currency", True),
    ("net_staff", "network_ops_per_node_year", "Network staff per node-year", "currency", True),
    ("discount", "discount_rate", "Discount rate", "per year", True),
    ("residual", "residual_frac", "Resale value at the end", "share of capex", True),
    ("inst_rate", "instalment_rate", "Instalment interest", "per year", True),
    ("inst_months", "instalment_months", "Instalment term", "months", True),
)
FABRIC_INPUTS = (  # per fabric: (key, label, unit, editable)
    ("nic_price", "NIC price", "currency", True),
    ("switch_price", "Switch price", "currency", True),
    ("cable_price", "Cable price (per node link)", "currency", True),
    ("optic_price", "Transceiver price", "currency", True),
    ("install_per_node", "Installation per node", "currency", True),
    ("ops_factor", "Operations factor", "ratio", True),
    ("endpoints", "NIC ports (model)", "count", False),
    ("switches", "Switches (model)", "count", False),
    ("cables", "Node links (model)", "count", False),
    ("transceivers", "Transceivers (model)", "count", False),
    ("kwh_it", "Energy per year before PUE (model)", "kWh", False),
    ("busy_h", "Busy hours per year (model)", "h", False),
    ("cpu_share", "Host CPU used by the transport (model)", "0-1", False),
    ("lost_h", "Lost cluster-hours per year (model)", "h", False),
    ("vch", "Value of a lost cluster-hour", "currency/h", True),
)


def _safe_name(text: str, limit: int = 31) -> str:
    bad = '[]:*?/\\'
    return "".join("_" if c in bad else c for c in text)[:limit]


def workbook_bytes(scenario: Scenario, currency: str | None = None, rate: float = 1.0) -> bytes:
    """The workbook of one scenario as ``.xlsx`` bytes.

    ``currency``/``rate`` convert money at export (display units per price-book unit): every
    money input is written converted, so the formulas compute in the chosen currency.
    """
    res = evaluate(scenario)
    built = build(scenario)
    p, st = built.inputs, built.structure
    cat = load_catalog()
    book = price_books.for_scenario(scenario, cat)
    h = st.horizon_years
    cluster_scope = 1 if st.scope == "cluster" else 0
    shown = currency or st.currency
    if shown not in MONEY_FORMATS or not 0 < rate < float("inf"):
        raise ValueError(f"currency must be one of {', '.join(MONEY_FORMATS)} with a positive rate")
    if shown == st.currency:
        rate = 1.0

    def conv(value: float, unit: str) -> float:
        return value * rate if unit.startswith("currency") else value

    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    bold = wb.add_format({"bold": True})
    money = wb.add_format({"num_format": MONEY_FORMATS[shown]})
    edit = wb.add_format({"bg_color": "#FFF7D6"})
    edit_money = wb.add_format({"bg_color": "#FFF7D6", "num_format": MONEY_FORMATS[shown]})
    note = wb.add_format({"italic": True, "font_color": "#666666"})

    # --- Inputs
    ws = wb.add_worksheet("Inputs")
    ws.write_string(0, 0, "Scenario", bold)
    ws.write_string(0, 1, scenario.name)
    ws.write_string(1, 0, "Currency", bold)
    ws.write_string(1, 1, shown if shown == st.currency else f"{shown} (1 {st.currency} = {rate:g} {shown})")
    ws.write_string(2, 0, "Scope", bold)
    ws.write_string(2, 1, st.scope)
    ws.write_string(3, 0, "Cluster scope (1) or fabric only (0)", bold)
    ws.write_number(3, 1, cluster_scope)
    wb.define_name("scope_cluster", "=Inputs!$B$4")
    ws.write_string(4, 0, "Horizon (years; the rows of the cash-flow sheets)", bold)
    ws.write_number(4, 1, h)
    wb.define_name("horizon", "=Inputs!$B$5")
    ws.write_string(4, 3, "model value: the model's step time and reliability depend on it", note)
    row = 6
    ws.write_row(row, 0, ["Input", "Value", "Unit", "Note"], bold)
    names: dict[str, str] = {}
    for key, field, label, unit, editable in SCALAR_INPUTS:
        row += 1
        value = conv(float(getattr(p, field)[0, 0]), unit)
        ws.write_string(row, 0, label)
        fmt = (edit_money if unit == "currency" else edit) if editable else None
        ws.write_number(row, 1, value, fmt)
        ws.write_string(row, 2, unit)
        if not editable:
            ws.write_string(row, 3, "model value: change it in the app (it moves performance and reliability)", note)
        name = f"in_{key}"
        wb.define_name(name, f"=Inputs!{xl_rowcol_to_cell(row, 1, row_abs=True, col_abs=True)}")
        names[key] = name
    ws.write_string(row + 1, 3, "Yellow cells are inputs: change them and every total follows.", note)

    row += 3
    ws.write_string(row, 0, "Per fabric", bold)
    ws.write_row(row, 1, list(st.fabric_ids), bold)
    m = {f.id: f.metrics for f in res.fabrics}
    per_fabric = {
        "endpoints": lambda j, fid: float(p.nodes[0, 0] * p.nics_per_node[0, 0]),
        "switches": lambda j, fid: m[fid]["switches"],
        "cables": lambda j, fid: m[fid]["cables"],
        "transceivers": lambda j, fid: m[fid]["transceivers"],
        "kwh_it": lambda j, fid: m[fid]["energy_kwh_per_year"] / float(p.pue[0, 0]),
        "busy_h": lambda j, fid: m[fid]["busy_hours_per_year"],
        "cpu_share": lambda j, fid: m[fid]["cpu_overhead_share"],
        "lost_h": lambda j, fid: m[fid]["lost_hours_per_year" if cluster_scope else "network_lost_hours_per_year"],
        "vch": lambda j, fid: m[fid]["value_of_cluster_hour"],
    }
    fab_names: dict[tuple[str, str], str] = {}
    for key, label, unit, editable in FABRIC_INPUTS:
        row += 1
        ws.write_string(row, 0, f"{label} [{unit}]")
        for j, fid in enumerate(st.fabric_ids):
            value = conv(per_fabric[key](j, fid) if key in per_fabric else float(getattr(p, key)[0, j]), unit)
            fmt = (edit_money if unit.startswith("currency") else edit) if editable else None
            ws.write_number(row, 1 + j, float(value), fmt)
            name = f"f{j}_{key}"
            wb.define_name(name, f"=Inputs!{xl_rowcol_to_cell(row, 1 + j, row_abs=True, col_abs=True)}")
            fab_names[(fid, key)] = name
    ws.set_column(0, 0, 44)
    ws.set_column(1, 1 + len(st.fabric_ids), 16)
    ws.set_column(3, 3, 60)

    # --- one cash-flow sheet per fabric
    tco_cells, npv_cells = {}, {}
    for j, fid in enumerate(st.fabric_ids):
        sh = wb.add_worksheet(_safe_name(fid))
        sheet_ref = f"'{sh.get_name()}'"
        sh.write_string(0, 0, f"{fid}: yearly cash flows [{shown}], formulas over the Inputs sheet", bold)
        header = ["year", *CATEGORIES, "total"]
        sh.write_row(2, 0, header, bold)

        def f(key: str, _j: int = j, _fid: str = fid) -> str:
            return fab_names[(_fid, key)]

        n = names["nodes"]
        compute_amount = f"({n}*{names['server_price']}*scope_cluster)"
        network_amount = (f"({f('endpoints')}*{f('nic_price')}+{f('switches')}*{f('switch_price')}"
                          f"+{f('cables')}*{f('cable_price')}+{f('transceivers')}*{f('optic_price')}"
                          f"+{n}*{f('install_per_node')})")
        for year in range(h + 1):
            r = 3 + year
            sh.write_number(r, 0, year)
            if st.payment == "upfront":
                share = "1" if year == 0 else "0"
            else:
                months = names["inst_months"]
                interest = names["inst_rate"]
                paid = f"MIN(12,MAX(0,{months}-12*({year}-1)))" if year else "0"
                share = f"IF({interest}>0,-PMT({interest}/12,{months},1),1/{months})*{paid}"
            resale = f"-{names['residual']}" if year == h else "0"
            rec = "0" if year == 0 else "1"
            cells = {
                "compute_capex": f"={compute_amount}*({share}+{resale})",
                "network_capex": f"={network_amount}*({share}+{resale})",
                "energy": f"={rec}*{f('kwh_it')}*{names['pue']}*{names['price_kwh']}",
                "cpu_overhead": (f"={rec}*{f('cpu_share')}*{n}*({names['server_price']}*{names['cpu_cost_share']}"
                                 f"/horizon+{names['host_kw']}*{names['cpu_power_share']}*{f('busy_h')}"
                                 f"*{names['pue']}*{names['price_kwh']})"),
                "interruptions": f"={rec}*{f('lost_h')}*{f('vch')}",
                "operations": (f"={rec}*({names['maint']}*({network_amount}+scope_cluster*{n}*{names['server_price']})"
                               f"+{n}*{names['net_staff']}*{f('ops_factor')}+scope_cluster*{n}*{names['cluster_staff']})"),
            }
            yearly = res.fabric(fid).yearly[year]
            for c, cat_name in enumerate(CATEGORIES, start=1):
                sh.write_formula(r, c, cells[cat_name], money, yearly[cat_name] * rate)
            first, last = xl_rowcol_to_cell(r, 1), xl_rowcol_to_cell(r, len(CATEGORIES))
            sh.write_formula(r, len(CATEGORIES) + 1, f"=SUM({first}:{last})", money, yearly["total"] * rate)
        tot_col = len(CATEGORIES) + 1
        top, bottom = xl_rowcol_to_cell(3, tot_col), xl_rowcol_to_cell(3 + h, tot_col)
        r = 5 + h
        sh.write_string(r, 0, "TCO", bold)
        sh.write_formula(r, tot_col, f"=SUM({top}:{bottom})", money, res.fabric(fid).tco_total * rate)
        sh.write_string(r + 1, 0, "NPV (cash out negative)", bold)
        year1 = xl_rowcol_to_cell(4, tot_col)
        sh.write_formula(r + 1, tot_col, f"=-(NPV({names['discount']},{year1}:{bottom})+{top})" if h else f"=-{top}",
                         money, res.fabric(fid).npv * rate)
        tco_cells[fid] = f"{sheet_ref}!{xl_rowcol_to_cell(r, tot_col, row_abs=True, col_abs=True)}"
        npv_cells[fid] = f"{sheet_ref}!{xl_rowcol_to_cell(r + 1, tot_col, row_abs=True, col_abs=True)}"
        sh.set_column(0, 0, 24)
        sh.set_column(1, tot_col, 16)

    # --- Summary with a native chart
    sm = wb.add_worksheet("Summary")
    sm.write_string(0, 0, f"{scenario.name}", bold)
    sm.write_string(1, 0, f"{st.horizon_years}-year TCO in {shown}, baseline {res.baseline}, scope {st.scope}")
    sm.write_row(3, 0, ["fabric", "TCO", "Δ vs baseline", "NPV"], bold)
    base_cell = tco_cells[res.baseline]
    for i, fid in enumerate(st.fabric_ids):
        r = 4 + i
        fr = res.fabric(fid)
        sm.write_string(r, 0, fid)
        sm.write_formula(r, 1, f"={tco_cells[fid]}", money, fr.tco_total * rate)
        sm.write_formula(r, 2, f"={tco_cells[fid]}-{base_cell}", money, fr.delta_vs_baseline * rate)
        sm.write_formula(r, 3, f"={npv_cells[fid]}", money, fr.npv * rate)
    chart = wb.add_chart({"type": "column"})
    last = 3 + len(st.fabric_ids)
    chart.add_series({"name": "TCO", "categories": ["Summary", 4, 0, last, 0], "values": ["Summary", 4, 1, last, 1]})
    chart.set_title({"name": f"{st.horizon_years}-year TCO"})
    chart.set_legend({"none": True})
    sm.insert_chart(4, 5, chart)
    sm.set_column(0, 3, 18)
    sm.activate()

    # --- Catalog with sources
    cs = wb.add_worksheet("Catalog")
    cs.write_row(0, 0, ["item", "quantity", "typical", "low", "high", "source", "as of"], bold)
    r = 0
    for fid in st.fabric_ids:
        for group, entry in (("fabric", cat.fabrics[fid]), ("price", book.fabrics[fid])):
            for qname in type(entry).model_fields:
                q = getattr(entry, qname)
                if not hasattr(q, "typical"):
                    continue
                r += 1
                cs.write_string(r, 0, f"{fid} ({group})")
                cs.write_string(r, 1, qname)
                cs.write_row(r, 2, [q.typical, q.lo, q.hi])
                cs.write_string(r, 5, cat.references[q.source].title)
                cs.write_string(r, 6, q.as_of)
    cs.set_column(0, 1, 26)
    cs.set_column(5, 5, 90)
    wb.close()
    return buf.getvalue()
