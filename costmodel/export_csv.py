"""CSV export: tidy tables of a result — one row per fabric × year, and one row per fabric.

Cells that a spreadsheet would read as a formula (text starting with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return) are prefixed with an apostrophe, so a scenario named
``=HYPERLINK(...)`` stays text (OWASP "CSV injection").
"""

from __future__ import annotations

import csv
import io

from .results import Result
from .tco import CATEGORIES

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """A cell value that no spreadsheet will evaluate (numbers pass through unchanged).

    >>> safe_cell("=HYPERLINK(1)"), safe_cell("-x"), safe_cell(-3.5), safe_cell("ok")
    ("'=HYPERLINK(1)", "'-x", -3.5, 'ok')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _write(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: safe_cell(v) for k, v in row.items()})
    return buf.getvalue()


def yearly_csv(result: Result) -> str:
    """One row per fabric × year: cost by category and total, in the price book's currency."""
    rows = []
    for f in result.fabrics:
        for y in f.yearly:
            rows.append({
                "scenario": result.name, "currency": result.currency, "fabric": f.id, "family": f.family,
                "year": y["year"], **{c: y[c] for c in CATEGORIES}, "total": y["total"],
            })
    return _write(rows)


def results_csv(result: Result) -> str:
    """One row per fabric: totals, breakdown and the main performance and reliability figures."""
    keys = ("nic_gbps", "allreduce_busbw_gbs", "step_time_s", "gpu_utilization", "mfu", "run_days", "runs_per_year",
            "goodput", "interruptions_per_year", "checkpoint_interval_h", "switches", "cpu_overhead_share",
            "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour")
    rows = []
    for f in result.fabrics:
        rows.append({
            "scenario": result.name, "currency": result.currency, "scope": result.scope, "baseline": result.baseline,
            "fabric": f.id, "family": f.family, "name": f.name, "tco_total": f.tco_total, "npv": f.npv,
            "delta_vs_baseline": f.delta_vs_baseline, "payback_years": f.payback_years, "fits_plan": f.fits_plan,
            **{f"breakdown_{c}": f.breakdown[c] for c in CATEGORIES}, **{k: f.metrics[k] for k in keys},
        })
    return _write(rows)
