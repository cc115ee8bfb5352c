"""CSV export: tidy tables of a result — one row per fabric × year, and one row per fabric.

Money is converted to the display currency at export (``currency``, ``rate`` = display units per
price-book unit) and rounded to cents; shares to 4 decimals, other figures to 6 significant
digits, so a spreadsheet shows what the pages show. :func:`csv_bytes` writes UTF-8 with a
byte-order mark: without it Excel on a Chinese Windows reads the file as GBK and garbles
``–``, ``×`` and every Chinese character.

Every row begins with the scenario's title (``title``, default: its name) and what it is: the GPU,
nodes, GPUs per node, the model's parameters [billions], GPUs per scale-up domain, and, given the
``scenario``, its cooling (``air``/``liquid``, built for the cluster or not), the PUE the model uses
[ratio], the site's rack power limit [kW] and the compute racks [count] (empty cells without it), so the
first row names the cluster.

Cells that a spreadsheet would read as a formula are prefixed with an apostrophe (OWASP "CSV
injection"): text whose first character other than white space is ``=``, ``+``, ``-``, ``@``, a
full-width or small form of them (``＝ ＋ － ＠ ﹦ ﹢ ﹣``, as Excel folds them) or a minus sign, or
that starts with a tab, carriage return or line feed.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import unicodedata

import yaml

from costmodel.catalog.currency import shown_rate
from costmodel.catalog.loader import DATA_DIR
from costmodel.pipeline.facility_checks import cluster_facts
from costmodel.pipeline.results import Result
from costmodel.pipeline.tco import CATEGORIES
from costmodel.scenario.schema import Scenario

HEADERS_FILE = DATA_DIR / "csv_headers.yaml"
_FORMULA_CHARS = frozenset("=+-@\u2212")
_CONTROL_START = ("\t", "\r", "\n")
BOM = "\ufeff"
MONEY_DIGITS = 2  # cents
SHARE_DIGITS = 4
SIGNIFICANT = 6


def _first_visible(text: str) -> str:
    """The first character of ``text`` that is not white space (full-width space included), folded by
    NFKC (so ``＝`` reads ``=``); empty for blank text."""
    for ch in text:
        if not ch.isspace():
            return unicodedata.normalize("NFKC", ch)[:1]
    return ""


def safe_cell(value):
    """A cell value that no spreadsheet will evaluate (numbers pass through unchanged).

    >>> safe_cell("=HYPERLINK(1)"), safe_cell("-x"), safe_cell(-3.5), safe_cell("ok")
    ("'=HYPERLINK(1)", "'-x", -3.5, 'ok')
    >>> safe_cell("  =1+1"), safe_cell("＝1+1"), safe_cell("\\t1")
    ("'  =1+1", "'＝1+1", "'\\t1")
    """
    if isinstance(value, str) and (value.startswith(_CONTROL_START) or _first_visible(value) in _FORMULA_CHARS):
        return "'" + value
    return value


def _round(value, digits: int | None = None):
    """``value`` rounded: to ``digits`` decimals, else to :data:`SIGNIFICANT` significant digits."""
    if isinstance(value, bool) or not isinstance(value, float | int) or not math.isfinite(value):
        return value
    if digits is not None:
        out = round(float(value), digits)
    elif value == 0:
        return 0
    else:
        out = round(float(value), SIGNIFICANT - 1 - math.floor(math.log10(abs(value))))
    return int(out) if out == int(out) and abs(out) < 1e15 else out


def _write(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: safe_cell(v) for k, v in row.items()})
    return buf.getvalue()


def csv_bytes(text: str) -> bytes:
    """A CSV text as the bytes of a file Excel opens correctly in any locale (UTF-8 with BOM)."""
    return (BOM + text).encode("utf-8")


def _check(currency: str | None, rate: float, result: Result) -> tuple[str, float]:
    return shown_rate(result.currency, currency, rate)


def _head(result: Result, title: str | None, scenario: Scenario | None) -> dict:
    """The columns every row begins with: the title, then the cluster, the model, the scale-up domain and
    the site (cooling, PUE, rack power limit [kW], racks; empty without ``scenario``)."""
    site = {"cooling": "", "build_cooling": "", "pue": "", "rack_power_limit_kw": "", "racks": ""}
    if scenario is not None:
        f = cluster_facts(scenario)
        site = {"cooling": f.cooling, "build_cooling": f.built, "pue": _round(f.pue),
                "rack_power_limit_kw": _round(f.rack_power_limit_kw), "racks": f.racks}
    return {"scenario": title or result.name, "gpu": result.gpu, "nodes": result.nodes,
            "gpus_per_node": result.gpus_per_node, "model_params_b": _round(result.model_params_b),
            "scaleup_domain_gpus": result.scaleup_domain_gpus, **site}


def yearly_csv(result: Result, currency: str | None = None, rate: float = 1.0, title: str | None = None,
               lang: str = "en", scenario: Scenario | None = None) -> str:
    """One row per fabric × year: cost by category and total, in ``currency`` (default: the price book's);
    ``lang="zh"``: Chinese headers, fabric names and yes/no (:func:`_in_language`); ``scenario`` (the
    result's) fills the site's columns."""
    cur, rate = _check(currency, rate, result)
    rows = []
    for f in result.fabrics:
        for y in f.yearly:
            rows.append({
                **_head(result, title, scenario), "currency": cur, "fabric": f.id, "family": f.family,
                "year": y["year"], **{c: _round(y[c] * rate, MONEY_DIGITS) for c in CATEGORIES},
                "total": _round(y["total"] * rate, MONEY_DIGITS),
            })
    return _write(_in_language(rows, result, lang))


MONEY_METRICS = frozenset({"cost_per_cluster_hour", "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour",
                           "tco_after_tax", "npv_after_tax", "tax_shield"})  # the last three: after tax
SHARE_METRICS = frozenset({"gpu_utilization", "mfu", "hfu", "kernel_efficiency", "goodput", "cpu_overhead_share",
                           "scaleout_share"})


def results_csv(result: Result, currency: str | None = None, rate: float = 1.0, title: str | None = None,
                lang: str = "en", scenario: Scenario | None = None) -> str:
    """One row per fabric: totals, breakdown and the main performance and reliability figures (the
    scale-out share of a step among them), money in ``currency`` (default: the price book's);
    ``lang="zh"``: Chinese headers and names; ``scenario`` (the result's) fills the site's columns."""
    cur, rate = _check(currency, rate, result)
    keys = ("nic_gbps", "allreduce_busbw_gbs", "step_time_s", "gpu_utilization", "mfu", "run_days", "runs_per_year",
            "goodput", "interruptions_per_year", "checkpoint_interval_h", "switches", "cpu_overhead_share",
            "cost_per_cluster_hour", "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour",
            "layout_tp", "layout_pp", "layout_dp",
            "layout_vp", "layout_zero", "layout_micro_seqs", "layout_recompute", "memory_gb_per_gpu", "fits_memory",
            # finance and carbon
            "tco_after_tax", "npv_after_tax", "tax_shield", "co2_kg_per_run", "co2_kg_per_year", "co2_kg_horizon",
            "scaleout_share")

    def metric(k: str, v):
        if k in MONEY_METRICS:
            return _round(v * rate, MONEY_DIGITS)
        return _round(v, SHARE_DIGITS if k in SHARE_METRICS else None)

    def money(v):
        return _round(None if v is None else v * rate, MONEY_DIGITS)

    rows = []
    for f in result.fabrics:
        rows.append({
            **_head(result, title, scenario), "currency": cur, "scope": result.scope, "baseline": result.baseline,
            "fabric": f.id, "family": f.family, "name": f.name, "tco_total": money(f.tco_total), "npv": money(f.npv),
            "delta_vs_baseline": money(f.delta_vs_baseline), "payback_years": _round(f.payback_years, 2),
            "fits_plan": f.fits_plan, **{f"breakdown_{c}": money(f.breakdown[c]) for c in CATEGORIES},
            **{k: metric(k, f.metrics[k]) for k in keys},
        })
    return _write(_in_language(rows, result, lang))


@functools.cache
def _headers(lang: str) -> dict[str, str]:
    with HEADERS_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader)[lang]


def _in_language(rows: list[dict], result: Result, lang: str) -> list[dict]:
    """``rows`` for a reader of ``lang``: English keeps the column ids; Chinese gets the headers of
    ``data/csv_headers.yaml``, each fabric's Chinese name, the scope in words and 是/否 for yes/no
    and the cooling in words (ids such as ``tcp-100`` stay in their own column, for a program reading the file)."""
    if lang == "en":
        return rows
    if lang != "zh":
        raise ValueError(f"lang must be en or zh (got {lang!r})")
    head = _headers(lang)
    names = {f.id: f.name_zh or f.name for f in result.fabrics}
    scope = {"cluster": head["scope_cluster"], "fabric": head["scope_fabric"]}
    cooling = {"air": head["cooling_air"], "liquid": head["cooling_liquid"]}

    def cell(key: str, value, row: dict):
        if isinstance(value, bool):
            return head["answer_yes"] if value else head["answer_no"]
        if key in ("name", "baseline"):
            return names.get(row["fabric"] if key == "name" else value, value)
        if key == "cooling":
            return cooling.get(value, value)
        return scope.get(value, value) if key == "scope" else value

    return [{head[k]: cell(k, v, row) for k, v in row.items()} for row in rows]
