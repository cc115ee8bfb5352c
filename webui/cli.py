"""The app's command line: ``python -m webui.cli report --pdf FILE [--pptx FILE] [--xlsx FILE] [--csv FILE] …``.

The PDF report is a view with charts (plotly, drawn and printed by Debian's Chromium), so it is
made here, beside the app's chart builders; the cost model's own command line
(``python -m costmodel``) makes the CSV and Excel files without the app. Every file of one call
carries the scenario's title as the app shows it (a preset's name in the page's language).
Bad input exits with code 2 and one message naming the field and its allowed range.
"""

from __future__ import annotations

import argparse
import sys

from costmodel import cli, evaluate
from costmodel.errors import problem, problems_error
from webui.i18n.labels import error_text
from webui.i18n.translator import Translator
from webui.session import share
from webui.session.titles import scenario_title


def _title(scenario, args) -> str:
    """The scenario's title in the report's language (a preset's translated name), as the app shows it."""
    return scenario_title(scenario, args.preset or share.BLANK, Translator(args.lang))


def cmd_report(args) -> None:
    if not (args.pdf or args.pptx or args.csv or args.results_csv or args.xlsx):
        raise problems_error(problem("", "give at least one output: --pdf, --xlsx, --pptx, --csv or --results-csv FILE",
                                     "cli_no_output", options="--pdf, --xlsx, --pptx, --csv, --results-csv"))
    scenario = cli.scenario_of(args)
    res = evaluate(scenario)
    currency, rate = cli.report_money(args, res)
    title = _title(scenario, args)
    cli.write_tables(args, scenario, res, currency, rate, title)
    if args.pdf:
        from webui.reports.html import report_pdf  # plotly and Chromium only when asked for

        cli.write_file(args.pdf, report_pdf(scenario, args.lang, args.preset, currency, rate, title))
    if args.pptx:
        from webui.reports.deck import deck_bytes

        cli.write_file(args.pptx, deck_bytes(scenario, args.lang, args.preset, currency, rate, title))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m webui.cli", description="Fabric TCO Planner reports")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("report", help="A4 PDF report with charts, assumptions and the article's claims; "
                                      "CSV and Excel files titled as the app titles them")
    cli.report_args(p)
    p.add_argument("--pdf", help="A4 PDF report with charts, assumptions and the article's claims")
    p.add_argument("--pptx", help="PowerPoint deck (16:9) with native, editable charts, in the brand of assets/")
    p.set_defaults(func=cmd_report)
    return ap


def explain(exc: Exception, args: argparse.Namespace) -> str:
    """The refusal line in the report's language (``--lang``): the field and its allowed range."""
    t = Translator(getattr(args, "lang", "en"))
    return t("cli.error", error=error_text(t, exc))


def main(argv: list[str] | None = None) -> int:
    """Run a command; exit code 2 on bad input (as ``python -m costmodel``), the message in ``--lang``."""
    return cli.main(argv, build_parser(), explain)


if __name__ == "__main__":
    sys.exit(main())
