"""The workbook's after-tax columns and ``Carbon`` sheet, as live formulas.

On each fabric's cash-flow sheet, right of the yearly total: ``Depreciation`` (the ledger's
straight-line depreciation of servers and network equipment), ``Deductions`` (depreciation +
instalment interest + the recurring categories' cells of the row), ``Tax shield``
(``in_tax_rate × deductions``) and ``After-tax total`` (total − shield), with the after-tax TCO
and NPV under the pre-tax ones, and again under the Summary's table. The ``Carbon`` sheet: per
fabric, facility energy per year (the ledger's ``energy_kwh``), the grid factor, kg CO₂e per
year, runs per year (a model value), per run and over the horizon. Formulas come from
:mod:`costmodel.money.ledger`; cached values are the model's. Texts in ``data/export_labels.yaml``
(``fincarbon``).
"""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from costmodel.money import ledger
from costmodel.pipeline.tco import CAPEX_CATEGORIES, CATEGORIES

_TAX_COLUMNS = ("depreciation", "deductions", "tax_shield", "total_after_tax")


def tax_columns(sh, payment: str, horizon_years: int, refs: dict[str, str], fr, rate: float, discount: str,
                tx: dict, fmt: dict) -> tuple[str, str]:
    """Write the after-tax columns beside one fabric's cash flows (laid out as
    ``export_xlsx._cash_flow_sheet``: header row 2, year ``t`` in row ``3 + t``, the categories then
    the total from column 1) and the after-tax TCO and NPV rows; returns their absolute references."""
    ft = tx["fincarbon"]
    money, bold = fmt["money"], fmt["bold"]
    tot_col = len(CATEGORIES) + 1
    col = {k: tot_col + 1 + i for i, k in enumerate(_TAX_COLUMNS)}
    sh.write_row(2, col["depreciation"], [ft[k] for k in _TAX_COLUMNS], bold)
    capex = ledger.excel_capex_deductions(payment, horizon_years, refs)
    recurring_cols = [1 + i for i, c in enumerate(CATEGORIES) if c not in CAPEX_CATEGORIES]
    for year, cells in enumerate(capex):
        r = 3 + year
        cached = fr.yearly_tax[year]
        dep = xl_rowcol_to_cell(r, col["depreciation"])
        sh.write_formula(r, col["depreciation"], "=" + cells["depreciation"], money, cached["depreciation"] * rate)
        recurring = "+".join(xl_rowcol_to_cell(r, c) for c in recurring_cols)
        interest = "" if cells["interest"] == "0" else f"+{cells['interest']}"
        sh.write_formula(r, col["deductions"], f"={dep}{interest}+{recurring}", money, cached["deductions"] * rate)
        sh.write_formula(r, col["tax_shield"], f"={refs['tax_rate']}*{xl_rowcol_to_cell(r, col['deductions'])}",
                         money, cached["tax_shield"] * rate)
        sh.write_formula(r, col["total_after_tax"],
                         f"={xl_rowcol_to_cell(r, tot_col)}-{xl_rowcol_to_cell(r, col['tax_shield'])}", money,
                         cached["total_after_tax"] * rate)
    c = col["total_after_tax"]
    top, bottom, year1 = (xl_rowcol_to_cell(3 + y, c) for y in (0, horizon_years, 1))
    r = 5 + horizon_years + 2  # below the pre-tax TCO and NPV rows
    sh.write_string(r, 0, ft["tco_after_tax"], bold)
    sh.write_formula(r, c, f"=SUM({top}:{bottom})", money, fr.metrics["tco_after_tax"] * rate)
    sh.write_string(r + 1, 0, ft["npv_after_tax"], bold)
    npv = f"=-(NPV({discount},{year1}:{bottom})+{top})" if horizon_years else f"=-{top}"
    sh.write_formula(r + 1, c, npv, money, fr.metrics["npv_after_tax"] * rate)
    sh.set_column(tot_col + 1, c, 16)
    sheet = "'" + sh.get_name().replace("'", "''") + "'"
    return tuple(f"{sheet}!{xl_rowcol_to_cell(row, c, row_abs=True, col_abs=True)}" for row in (r, r + 1))


def carbon_sheet(book, st, res, refs_by_fabric: dict[str, dict[str, str]]) -> None:
    """The ``Carbon`` sheet: one row per fabric, energy × grid factor as formulas over ``Inputs``."""
    ft = book.tx["fincarbon"]
    ws = book.wb.add_worksheet(ft["sheet_carbon"])
    bold = book.fmt["bold"]
    ws.write_string(0, 0, ft["carbon_title"].format(years=st.horizon_years), bold)
    heads = ("col_fabric", "col_kwh", "col_factor", "col_kg_year", "col_runs", "col_kg_run", "col_t_horizon")
    ws.write_row(2, 0, [ft[h] for h in heads], bold)
    number = book.wb.add_format({"num_format": "#,##0"})
    factor_fmt = book.wb.add_format({"num_format": "0.0000"})
    energy = ledger.expanded("energy_kwh")
    for i, fid in enumerate(st.fabric_ids):
        r, refs, m = 3 + i, refs_by_fabric[fid], res.fabric(fid).metrics
        kwh, factor, kg, runs = (xl_rowcol_to_cell(r, c) for c in (1, 2, 3, 4))
        ws.write_string(r, 0, book.fabric_name[fid])
        ws.write_formula(r, 1, "=" + energy.excel(refs), number, m["energy_kwh_per_year"])
        ws.write_formula(r, 2, "=" + refs["grid_kg_per_kwh"], factor_fmt,
                         m["co2_kg_per_year"] / m["energy_kwh_per_year"] if m["energy_kwh_per_year"] else 0.0)
        ws.write_formula(r, 3, f"={kwh}*{factor}", number, m["co2_kg_per_year"])
        ws.write_number(r, 4, m["runs_per_year"] or 0.0, book.wb.add_format({"num_format": "0.00"}))
        per_run = m["co2_kg_per_run"]
        ws.write_formula(r, 5, f'=IF({runs}>0,{kg}/{runs},"")', number, per_run if per_run is not None else "")
        ws.write_formula(r, 6, f"={kg}*horizon/1000", number, m["co2_kg_horizon"] / 1000.0)
    ws.write_string(4 + len(st.fabric_ids), 0, ft["carbon_note"], book.fmt["note"])
    ws.set_column(0, 0, 28)
    ws.set_column(1, 6, 18)


def summary_after_tax(book, st, res, tco_cells: dict[str, str], after_tax: dict[str, tuple[str, str]]) -> None:
    """Under the Summary sheet's table: per fabric the pre-tax TCO, the after-tax TCO, the tax
    shield (their difference) and the after-tax NPV, formulas over the cash-flow sheets."""
    ft, money, bold = book.tx["fincarbon"], book.fmt["money"], book.fmt["bold"]
    sm = book.wb.get_worksheet_by_name(book.tx["sheet_summary"])
    top = 5 + len(st.fabric_ids)
    sm.write_row(top, 0, [book.tx["col_fabric"], ft["tco_after_tax"], ft["tax_shield"], ft["npv_after_tax"]], bold)
    for i, fid in enumerate(st.fabric_ids):
        r, m = top + 1 + i, res.fabric(fid).metrics
        tco_after, npv_after = after_tax[fid]
        sm.write_string(r, 0, book.fabric_name[fid])
        sm.write_formula(r, 1, f"={tco_after}", money, m["tco_after_tax"] * book.rate)
        sm.write_formula(r, 2, f"={tco_cells[fid]}-{tco_after}", money, m["tax_shield"] * book.rate)
        sm.write_formula(r, 3, f"={npv_after}", money, m["npv_after_tax"] * book.rate)
