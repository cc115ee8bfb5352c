"""Command line: ``python -m costmodel {presets,preset,compare,sweep,claims,report,risk}``.

Bad input exits with code 2 and one message naming the field and its allowed range. The PDF
report is a view with charts: ``python -m webui.cli report --pdf FILE`` (:mod:`webui.cli`) makes
it; this package never imports the app.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Callable

import numpy as np
import pandas as pd

from costmodel import quantities
from costmodel.analysis.uncertainty import MAX_DRAWS, monte_carlo, tornado
from costmodel.api import evaluate, load_scenario, sweep
from costmodel.catalog.currency import reference_rate
from costmodel.catalog.formatting import format_money, format_number, format_share, format_sig
from costmodel.errors import CostModelError, ScenarioError, problem, problems_error
from costmodel.evidence.claims import check_all
from costmodel.exports.csv import csv_bytes, results_csv, yearly_csv
from costmodel.scenario.presets import get_preset, list_presets, load_preset

MAX_SWEEP_SPEC_POINTS = 1_000_000
EXIT_BAD_INPUT = 2


def scenario_of(args):
    """The scenario of a command: its file, or the preset ``--preset`` names (one of the two)."""
    if args.preset and args.scenario:
        raise problems_error(problem("", "give either a scenario file or --preset, not both", "cli_file_and_preset"))
    if args.preset:
        return load_preset(args.preset)
    if not args.scenario:
        raise problems_error(problem("", "give a scenario file (JSON) or --preset ID", "cli_no_scenario"))
    return load_scenario(args.scenario)


def parse_nodes(spec: str) -> np.ndarray:
    """Node counts from ``A:B`` (every integer), ``A:B:STEP`` or ``A,B,C``.

    >>> parse_nodes("2:5").tolist(), parse_nodes("2:10:4").tolist(), parse_nodes("8,2").tolist()
    ([2, 3, 4, 5], [2, 6, 10], [8, 2])
    """
    try:
        if ":" in spec:
            parts = [int(x) for x in spec.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            lo, hi = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1
            if hi < lo or (hi - lo) // step + 1 > MAX_SWEEP_SPEC_POINTS:
                raise ValueError
            return np.arange(lo, hi + 1, step)
        values = [int(x) for x in spec.split(",")]
        if not values or len(values) > MAX_SWEEP_SPEC_POINTS:
            raise ValueError
        return np.array(values)
    except ValueError:
        raise ScenarioError([("--nodes", f"expected A:B, A:B:STEP or A,B,C with whole numbers "
                                         f"(at most {MAX_SWEEP_SPEC_POINTS:,} values), got "
                                         f"{spec[:40]!r}")]) from None


def _compare_table(res) -> str:
    cur = res.currency
    rows = {
        "family": [f.family for f in res.fabrics],
        f"TCO {res.horizon_years} y": [format_money(f.tco_total, cur) for f in res.fabrics],
        "Δ vs baseline": [format_money(f.delta_vs_baseline, cur) for f in res.fabrics],
        "NPV": [format_money(f.npv, cur) for f in res.fabrics],
        "payback (y)": [format_number(f.payback_years) for f in res.fabrics],
    }
    for cat in res.fabrics[0].breakdown:
        rows[f"  {cat}"] = [format_money(f.breakdown[cat], cur) for f in res.fabrics]
    m = lambda key: [f.metrics[key] for f in res.fabrics]  # noqa: E731
    rows.update({
        "NIC Gb/s per node": [format_number(x, 0) for x in m("nic_gbps")],
        "all-reduce busbw GB/s": [format_number(x, 1) for x in m("allreduce_busbw_gbs")],
        "step time s": [format_number(x, 2) for x in m("step_time_s")],
        "GPU utilisation": [format_share(x) for x in m("gpu_utilization")],
        "MFU": [format_share(x) for x in m("mfu")],
        "days per run": [format_number(x, 2) for x in m("run_days")],
        "runs per year": [format_number(x, 2) for x in m("runs_per_year")],
        "fits plan": ["yes" if f.fits_plan else "NO" for f in res.fabrics],
        "goodput": [format_share(x) for x in m("goodput")],
        "interruptions / y": [format_number(x, 2) for x in m("interruptions_per_year")],
        "checkpoint every h": [format_number(x, 2) for x in m("checkpoint_interval_h")],
        "switches": [format_number(x, 0) for x in m("switches")],
        "CPU overhead": [format_share(x, 2) for x in m("cpu_overhead_share")],
        "cost per cluster-hour": [format_money(x, cur) for x in m("cost_per_cluster_hour")],
        "cost per run": [format_money(x, cur) for x in m("cost_per_run")],
    })
    ew = res.equal_work
    if ew is not None:  # the same work: each fabric sized to deliver the plan
        rows.update({
            "equal work: nodes": [format_number(n, 0) if ok else "none" for n, ok in zip(ew.nodes, ew.feasible,
                                                                                        strict=True)],
            "equal work: cost": [format_money(x, cur) for x in ew.cost],
            "equal work: cost per planned run": [format_money(x, cur) for x in ew.work_cost_per_run],
            "equal work: days/run": [format_number(x, 2) for x in ew.run_days],
        })
    df = pd.DataFrame(rows, index=[f.id for f in res.fabrics]).T
    rec = res.recommendation
    lines = [f"{res.name} — scope {res.scope}, {res.currency}, price book {res.price_book}, "
             f"baseline {res.baseline}", df.to_string(), "",
             f"seed rule: {rec.rule or '—'} ({rec.rule_family}); cost-optimal: "
             f"{rec.cost_optimal} (by {rec.metric})"]
    lines += [f"  - {r}" for r in rec.reasons]
    return "\n".join(lines)


def cmd_presets(args) -> None:
    for pid in list_presets():
        print(f"{pid}\t{get_preset(pid).title}")


def cmd_preset(args) -> None:
    print(json.dumps(load_preset(args.id).model_dump(mode="json"), indent=2, ensure_ascii=False))


def cmd_compare(args) -> None:
    res = evaluate(scenario_of(args))
    if args.format == "json":
        print(json.dumps(res.to_dict(), indent=2, ensure_ascii=False, allow_nan=False))
    elif args.format == "csv":
        sys.stdout.write(res.table().to_csv(index=False))
    else:
        print(_compare_table(res))


def cmd_sweep(args) -> None:
    df = sweep(scenario_of(args), parse_nodes(args.nodes))
    if args.format == "json":
        print(df.to_json(orient="records"))
    elif args.format == "table":
        cols = ["nodes", "fabric", "tco_total", "delta_vs_baseline", "run_days", "cost_per_run"]
        print(df[cols].to_string(index=False))
    else:
        sys.stdout.write(df.to_csv(index=False))


def _fmt_claim(x) -> str:
    if isinstance(x, tuple | list):
        lo, hi = x
        return f"≥ {lo:,.4g}" if hi >= 1e11 else f"{lo:,.4g} – {hi:,.4g}"
    return f"{x:,.4g}"


def claims_markdown(checks) -> str:
    """The claims table as Markdown (docs/validation.md embeds it)."""
    lines = ["| case | claim | model figure | claimed | modelled | verdict | why |",
             "|---|---|---|---|---|---|---|"]
    for c in checks:
        verdict = "reproduced (±25 %)" if c.reproduced else "**not reproduced**"
        why = c.explanation.replace("|", "/")
        lines.append(f"| {c.preset} | {c.text} | {c.metric} on {c.fabric} | {_fmt_claim(c.claimed)} | "
                     f"{c.modelled:,.4g} | {verdict} | {why} |")
    return "\n".join(lines)


def cmd_claims(args) -> None:
    checks = check_all()
    if args.format == "json":
        print(json.dumps([c.__dict__ for c in checks], indent=2, ensure_ascii=False))
        return
    if args.format == "markdown":
        print(claims_markdown(checks))
        return
    for c in checks:
        verdict = "reproduced (±25 %)" if c.reproduced else "NOT reproduced"
        print(f"[{c.preset}] {c.text}\n    {c.metric} on {c.fabric}: claimed "
              f"{_fmt_claim(c.claimed)}, modelled {c.modelled:,.4g} → {verdict}\n"
              f"    why: {c.explanation}")


def cmd_risk(args) -> None:
    scenario = scenario_of(args)
    if not 1 <= args.draws <= MAX_DRAWS:
        raise ScenarioError([("--draws", f"allowed: 1 to {MAX_DRAWS:,} (got {args.draws})")])
    mc = monte_carlo(scenario, draws=args.draws, seed=args.seed)
    print(f"Monte Carlo, {args.draws:,} draws, seed {args.seed} ({mc.currency})")
    summary = mc.summary()
    money_cols = [c for c in summary.columns if c not in ("fabric", "prob_cheaper_than_baseline")]
    print(summary.to_string(index=False, formatters={**{c: "{:,.0f}".format for c in money_cols},
                                                     "prob_cheaper_than_baseline": "{:.4f}".format}))
    print("\nTornado of ΔTCO vs baseline")
    cols = ["parameter", "fabric", "low_value", "high_value", "delta_low", "delta_high"]
    table = tornado(scenario, args.fabric).head(args.top)[cols].fillna({"fabric": "—"})
    # plain numbers, never 3.2e+06: inputs to 4 significant digits, money to the unit
    print(table.to_string(index=False, formatters={"low_value": format_sig, "high_value": format_sig,
                                                   "delta_low": "{:,.0f}".format, "delta_high": "{:,.0f}".format}))


def _reference_rate(model_currency: str, currency: str) -> float:
    return reference_rate(model_currency, currency)


def write_file(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        reason = errno.errorcode.get(exc.errno or 0, "")
        raise problems_error(problem("", f"cannot write {path}: {exc.strerror}", "cli_cannot_write", file=path,
                                     reason=exc.strerror or "", errno=reason)) from None
    print(f"wrote {path}")


def report_money(args, res) -> tuple[str, float]:
    """The files' currency and rate (display units per price-book unit) from ``--currency``/``--fx``."""
    currency = args.currency or res.currency
    rate = 1.0 if currency == res.currency else (args.fx if args.fx is not None else _reference_rate(res.currency,
                                                                                                     currency))
    lo, hi = quantities.spec("money.fx_rate").bounds()
    if not lo <= rate <= hi:
        raise problems_error(problem("--fx", f"allowed: {lo:g} to {hi:g} (got {rate:g})", "cli_range", lo=lo, hi=hi,
                                     got=f"{rate:g}"))
    return currency, rate


def write_tables(args, scenario, res, currency: str, rate: float, title: str) -> None:
    """Write the CSV and Excel files ``args`` asks for (``--csv``, ``--results-csv``, ``--xlsx``)."""
    if args.csv:
        write_file(args.csv, csv_bytes(yearly_csv(res, currency, rate, title, args.lang, scenario)))
    if args.results_csv:
        write_file(args.results_csv, csv_bytes(results_csv(res, currency, rate, title, args.lang, scenario)))
    if args.xlsx:
        from costmodel.exports.workbook import workbook_bytes  # xlsxwriter only when asked for

        write_file(args.xlsx, workbook_bytes(scenario, currency, rate, lang=args.lang, title=title))


def cmd_report(args) -> None:
    if args.pdf:
        raise ScenarioError([("--pdf", "the PDF report is made by the app's command line: "
                                       "python -m webui.cli report --pdf FILE (same options)")])
    if not (args.csv or args.results_csv or args.xlsx):
        raise problems_error(problem("", "give at least one output: --xlsx, --csv or --results-csv FILE",
                                     "cli_no_output", options="--xlsx, --csv, --results-csv"))
    scenario = scenario_of(args)
    res = evaluate(scenario)
    currency, rate = report_money(args, res)
    write_tables(args, scenario, res, currency, rate, _title(scenario, args))


def _title(scenario, args) -> str:
    """The files' title in their language (:func:`costmodel.scenario.titles.title`): the scenario's own name,
    a preset's title while it is that preset unchanged, else the name made from what it is."""
    from costmodel.scenario import titles

    return titles.title(scenario, args.lang, args.preset)


def scenario_args(p: argparse.ArgumentParser) -> None:
    """The scenario file or ``--preset`` arguments of a command."""
    p.add_argument("scenario", nargs="?", help="scenario JSON file")
    p.add_argument("--preset", help="preset id instead of a file")


def report_args(p: argparse.ArgumentParser) -> None:
    """The arguments of a ``report`` command: its scenario, files, language and money."""
    scenario_args(p)
    p.add_argument("--csv", help="tidy cash flows: one row per fabric × year, cost by category")
    p.add_argument("--results-csv", help="one row per fabric: totals, breakdown, main figures")
    p.add_argument("--xlsx", help="Excel workbook: inputs, live-formula cash flows per fabric, summary chart")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the PDF and Excel files")
    p.add_argument("--currency", choices=("USD", "CNY", "EUR"), help="money in every file (default: price book's)")
    p.add_argument("--fx", type=float, help="display units per price-book unit (default: reference rate)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m costmodel",
                                 description="Fabric TCO Planner cost model")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("presets", help="list preset ids").set_defaults(func=cmd_presets)
    p = sub.add_parser("preset", help="print a preset's scenario as JSON")
    p.add_argument("id")
    p.set_defaults(func=cmd_preset)

    p = sub.add_parser("compare", help="compare the scenario's fabrics")
    scenario_args(p)
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.set_defaults(func=cmd_compare)
    p = sub.add_parser("sweep", help="TCO against node count")
    scenario_args(p)
    p.add_argument("--nodes", required=True, help="A:B, A:B:STEP or A,B,C")
    p.add_argument("--format", choices=("csv", "json", "table"), default="csv")
    p.set_defaults(func=cmd_sweep)
    p = sub.add_parser("claims", help="the article's claims beside the model's figures")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.set_defaults(func=cmd_claims)
    p = sub.add_parser("report", help="export results: CSV and an Excel workbook with live formulas "
                                      "(the PDF: python -m webui.cli report)")
    report_args(p)
    p.add_argument("--pdf", help=argparse.SUPPRESS)  # refused with a pointer to webui.cli
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("risk", help="Monte Carlo summary and tornado")
    scenario_args(p)
    p.add_argument("--draws", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fabric", help="fabric for the tornado (default: first non-baseline)")
    p.add_argument("--top", type=int, default=12)
    p.set_defaults(func=cmd_risk)
    return ap


def _plain(exc: Exception, args: argparse.Namespace) -> str:
    """The refusal line in English."""
    return f"error: {exc}"


def main(argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None,
         explain: Callable[[Exception, argparse.Namespace], str] | None = None) -> int:
    """Run a command (of ``parser``, default :func:`build_parser`); exit code 2 on bad input, its
    refusal written by ``explain`` (default: ``error: `` and the English message)."""
    args = (parser or build_parser()).parse_args(argv)
    try:
        args.func(args)
    except (CostModelError, ValueError) as exc:  # a ScenarioError too
        print((explain or _plain)(exc, args), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    return 0
