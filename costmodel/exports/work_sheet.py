"""The workbook's "Equal work" sheet: each fabric's cluster sized in whole nodes to
deliver the plan (:mod:`costmodel.pipeline.equal_work`) and the cash cost of that work. Values, not
formulas: the search over node counts is the model's, and the sheet says so. Texts in
``data/export_labels.yaml`` (``work``)."""

from __future__ import annotations

import math

from costmodel.pipeline.equal_work import CASH_CATEGORIES


def work_sheet(book, res) -> None:
    """Write the sheet into ``book`` (an ``export_xlsx._Book``) for the result ``res``."""
    if res.equal_work is None:
        return
    wb, fmt, tx = book.wb, book.fmt, book.tx["work"]
    ew = res.equal_work
    ws = wb.add_worksheet(tx["sheet"])
    ws.write_string(0, 0, tx["title"], fmt["bold"])
    target = ew.target_run_days
    plan = tx["plan"].format(runs=f"{ew.runs_per_year:g}", years=res.horizon_years,
                             target=tx["target"].format(days=f"{target:g}") if target is not None else tx["no_target"])
    ws.write_string(1, 0, plan, fmt["note"])
    ws.write_string(2, 0, tx["values_note"].format(max=f"{ew.max_nodes:,}"), fmt["note"])
    header = [tx["fabric"], tx["nodes"], tx["cost"].format(cur=book.shown), tx["per_run"].format(cur=book.shown),
              tx["days"], tx["load"], *[book.tx["categories"][c] for c in CASH_CATEGORIES]]
    ws.write_row(4, 0, header, fmt["bold"])
    pct = wb.add_format({"num_format": "0.0%"})
    days = wb.add_format({"num_format": "0.0"})
    for j, fid in enumerate(ew.fabric_ids):
        r = 5 + j
        ws.write_string(r, 0, book.fabric_name.get(fid, fid) + (" ★" if j == ew.cheapest else ""))
        if not ew.feasible[j]:
            ws.write_string(r, 1, tx["none"].format(max=f"{ew.max_nodes:,}"))
            continue
        ws.write_number(r, 1, int(ew.nodes[j]))
        ws.write_number(r, 2, float(ew.cost[j]) * book.rate, fmt["money"])
        ws.write_number(r, 3, float(ew.work_cost_per_run[j]) * book.rate, fmt["money"])
        ws.write_number(r, 4, float(ew.run_days[j]), days)
        ws.write_number(r, 5, float(ew.plan_load[j]), pct)
        for k, c in enumerate(CASH_CATEGORIES):
            v = float(ew.breakdown[c][j])
            if math.isfinite(v):
                ws.write_number(r, 6 + k, v * book.rate, fmt["money"])
    ws.write_string(6 + len(ew.fabric_ids), 0, tx["star"], fmt["note"])
    ws.set_column(0, 0, 28)
    ws.set_column(1, len(header), 15)
