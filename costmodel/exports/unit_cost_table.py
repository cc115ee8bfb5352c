"""The workbook's cost of a run, under the Summary's tables, as live formulas.

Per fabric: the cash cost over the horizon (its cash-flow sheet's TCO less the columns of the time
costs), the same with the cluster training all year, the cost of a cluster-hour of training, the
run's hours (a model value on ``Inputs``), the cost per run and per million tokens, and the runs per
year of the schedule (a model value). The formulas are :data:`costmodel.money.unit_cost.STEPS`,
printed with each name replaced by its cell, so the workbook computes what the model does. Texts in
``data/export_labels.yaml`` (``unit_cost``).
"""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from costmodel.money import unit_cost
from costmodel.money.ledger import TIME_CATEGORIES
from costmodel.pipeline.tco import CATEGORIES

#: the table's columns after the fabric's name: a figure of unit_cost.STEPS, or a model value
COLUMNS: tuple[str, ...] = ("cash_total", "busy_cash", "cost_per_cluster_hour", "run_h", "cost_per_run",
                            "cost_per_mtok", "runs_per_year")


#: rows the Summary's chart covers from its anchor in row 4 (480 × 288 px at 20 px a row), and a spare one
CHART_ROWS = 16


def first_row(n_fabrics: int) -> int:
    """The table's title row (0-based): below the Summary's TCO table, its after-tax table and its chart."""
    return max(2 * n_fabrics + 8, 4 + CHART_ROWS)


def cash_formula(tco_cell: str, horizon_years: int) -> str:
    """The cash cost over the horizon on a cash-flow sheet: its TCO cell less the sums of the time
    costs' columns (header in row 2, year ``t`` in row ``3 + t``, categories from column 1)."""
    sheet = tco_cell.rsplit("!", 1)[0]
    sums = [f"SUM({sheet}!{xl_rowcol_to_cell(3, 1 + CATEGORIES.index(c))}:"
            f"{xl_rowcol_to_cell(3 + horizon_years, 1 + CATEGORIES.index(c))})" for c in TIME_CATEGORIES]
    return f"={tco_cell}-" + "-".join(sums)


def unit_cost_table(book, st, res, tco_cells: dict[str, str], refs_by_fabric: dict[str, dict[str, str]],
                    tokens_per_run: float) -> None:
    """Write the table into the Summary sheet of ``book`` (an ``export_xlsx._Book``) for ``res``; the
    run's tokens [tokens] are a model value."""
    tx, fmt, rate = book.tx["unit_cost"], book.fmt, book.rate
    sm = book.wb.get_worksheet_by_name(book.tx["sheet_summary"])
    top = first_row(len(st.fabric_ids))
    sm.write_string(top, 0, tx["title"], fmt["bold"])
    sm.write_string(top + 1, 0, tx["tokens"], fmt["bold"])
    sm.write_number(top + 1, 1, float(tokens_per_run), book.wb.add_format({"num_format": "#,##0"}))
    tokens_cell = xl_rowcol_to_cell(top + 1, 1, row_abs=True, col_abs=True)
    head = top + 2
    sm.write_row(head, 0, [tx["col_fabric"], *(tx[f"col_{c}"].format(cur=book.shown) for c in COLUMNS)], fmt["bold"])
    hours = book.wb.add_format({"num_format": "#,##0.0"})
    runs = book.wb.add_format({"num_format": "0.00"})
    cents = book.wb.add_format({"num_format": fmt["money"].num_format + ".00"})
    for i, fid in enumerate(st.fabric_ids):
        r, m = head + 1 + i, res.fabric(fid).metrics
        cells = {c: xl_rowcol_to_cell(r, 1 + k) for k, c in enumerate(COLUMNS)}
        run_h = refs_by_fabric[fid]["run_h"]  # the model's value on Inputs; the column shows it
        refs = refs_by_fabric[fid] | cells | {"horizon": "horizon", "tokens_per_run": tokens_cell}
        sm.write_string(r, 0, book.fabric_name[fid])
        sm.write_formula(r, 1, cash_formula(tco_cells[fid], st.horizon_years), fmt["money"], m["cash_total"] * rate)
        busy_cash = m["cost_per_cluster_hour"] * unit_cost.HOURS_PER_YEAR * st.horizon_years
        sm.write_formula(r, 2, "=" + unit_cost.STEPS["busy_cash"].excel(refs), fmt["money"], busy_cash * rate)
        sm.write_formula(r, 3, "=" + unit_cost.STEPS["cost_per_cluster_hour"].excel(refs), fmt["money"],
                         m["cost_per_cluster_hour"] * rate)
        sm.write_formula(r, 4, "=" + run_h, hours, m["run_days"] * 24.0 if m["run_days"] is not None else "")
        for k, c, cell_fmt in ((5, "cost_per_run", fmt["money"]), (6, "cost_per_mtok", cents)):
            value = m[c]
            sm.write_formula(r, k, "=" + unit_cost.STEPS[c].excel(refs), cell_fmt,
                             value * rate if value is not None else "")
        sm.write_number(r, 7, m["runs_per_year"] or 0.0, runs)
    sm.write_string(head + 1 + len(st.fabric_ids), 0, tx["note"], fmt["note"])
    sm.set_column(4, len(COLUMNS), 18)
