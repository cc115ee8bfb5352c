"""Make the format-3 fixtures with the code of commit a72e2d8 (the last main that wrote format 3).

Run from a worktree of that commit (its code, not today's; the script refuses any other format):
    git worktree add /tmp/fmt3 a72e2d8
    cd /tmp/fmt3 && FABRIC_TCO_DB=/tmp/fmt3-app.db FABRIC_TCO_USERS=/tmp/fmt3-users.json PYTHONPATH=. \\
        /work/main/.venv/bin/python /work/main/tests/data/formats/make_v3.py /work/main/tests/data/formats/v3
Writes ``<name>.json`` (the bytes the Scenarios page's export button gave: ``documents.export_scenario``),
``store.sql`` (the text dump of a SQLite store with saved versions and their results summaries, a price
book and a read-only token) and ``manifest.json``: per fixture its share link (the query string the
sidebar's "Share" box showed, read from that app run under Streamlit's AppTest), and the TCO per fabric
[currency] and days per run [days] that this code computed. Not run by the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import costmodel
from costmodel.scenario import formats
from costmodel.scenario.schema import DerivedPriceBook
from store import documents
from store.repository import open_store
from webui.session import share


def _edited() -> dict[str, tuple[str, costmodel.Scenario]]:
    """Edited scenarios: (preset they start from, scenario). The last three set the fields format 4
    renamed (``pipeline_microbatches``) or reads differently (pipeline stages)."""
    intro = share.preset_scenario("seed-intro-32xA100")
    case3 = share.preset_scenario("seed-case3-128xH100")
    blank = share.preset_scenario("blank")
    book = DerivedPriceBook(name="ACME Q4 quote", discounts={"nics": 12.5, "switches": 20.0},
                            fabrics={"roce-200": {"nic_price": 900.0}})
    return {
        "intro-48-nodes": ("seed-intro-32xA100", intro.model_copy(update={
            "name": "Intro at 48 nodes",
            "cluster": intro.cluster.model_copy(update={"nodes": 48}),
            "facility": intro.facility.model_copy(update={"pue": 1.25})})),
        "case3-overrides": ("seed-case3-128xH100", costmodel.scenario_from_dict({
            **case3.model_dump(mode="json"), "name": "H100 with overrides",
            "overrides": {"fabrics": {"roce-400": {"efficiency": 0.8, "nic_power_w": 30.0}},
                          "gpus": {"h100": {"tdp_w": 650.0}},
                          "fabric_prices": {"ib-ndr-400": {"switch_price": 30000.0}}}})),
        "blank-fabrics-book": ("blank", costmodel.scenario_from_dict({
            **blank.model_dump(mode="json"), "name": "Blank with two fabrics and a quote",
            "fabrics": ["tcp-100", "roce-200"], "baseline": "tcp-100",
            "finance": {**blank.finance.model_dump(mode="json"), "horizon_years": 4, "discount_rate": 0.07},
            "custom_price_book": book.model_dump(mode="json")})),
        "case3-96-microbatches": ("seed-case3-128xH100", costmodel.scenario_from_dict({
            **case3.model_dump(mode="json"), "name": "H100 pipeline, 96 micro-batches",
            "workload": {**case3.workload.model_dump(mode="json"), "pipeline_microbatches": 96}})),
        "intro-pipeline-4-stages": ("seed-intro-32xA100", costmodel.scenario_from_dict({
            **intro.model_dump(mode="json"), "name": "Intro as 4 pipeline stages",
            "workload": {**intro.workload.model_dump(mode="json"), "parallelism": "pipeline",
                         "pipeline_stages": 4, "pipeline_microbatches": 16}})),
        "blank-dp-microbatches": ("blank", costmodel.scenario_from_dict({
            **blank.model_dump(mode="json"), "name": "Data parallel with micro-batches set",
            "workload": {**blank.workload.model_dump(mode="json"), "pipeline_microbatches": 8}})),
    }


def _figures(scenario: costmodel.Scenario) -> dict:
    r = costmodel.evaluate(scenario)
    return {"currency": r.currency, "horizon_years": r.horizon_years,
            "fabrics": {f.id: {"tco_total": f.tco_total, "run_days": f.metrics["run_days"]} for f in r.fabrics}}


def _share_query(preset: str, scenario: costmodel.Scenario) -> str:
    """The query string the sidebar's share box showed for this scenario (English, USD), from the app."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path.cwd() / "app.py"), default_timeout=120)
    at.query_params["lang"] = "en"
    at.session_state["scenario"] = scenario
    at.session_state["preset"] = preset
    at.switch_page("app_pages/compare.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    urls = [c.value for c in at.sidebar.code if c.value.startswith("?p=") or "?p=" in c.value]
    assert len(urls) == 1, urls
    return urls[0].split("?", 1)[1]


def main(out: Path) -> None:
    # refuse today's code: only commit a72e2d8's wrote format 3 (checked here, not at import, so that
    # the test run's doctest collection can import this file)
    if formats.CURRENT != 3:
        raise SystemExit(f"run with commit a72e2d8's code (format 3), not format {formats.CURRENT}")
    if not Path(costmodel.__file__).resolve().is_relative_to(Path.cwd().resolve()):
        raise SystemExit("run from the a72e2d8 worktree")
    out.mkdir(parents=True, exist_ok=True)
    cases = {p: (p, share.preset_scenario(p)) for p in share.preset_ids()} | _edited()
    manifest = {"made_by": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                          check=True).stdout.strip(),
                "note": "format 3: files carry \"format\": 3; links are ?p=<preset>&s=3.<token>; store versions "
                        "have format 3 and a results summary",
                "exports": {}, "store": {}}
    for name, (preset, scenario) in cases.items():
        (out / f"{name}.json").write_bytes(documents.export_scenario(scenario))
        public = scenario.model_copy(update={"custom_price_book": None})  # a link: list prices (quote.public_copy)
        query = _share_query(preset, scenario)
        params = dict(part.split("=", 1) for part in query.split("&"))
        assert params["p"] == preset and share.decode(preset, params["s"]) == public, name
        manifest["exports"][name] = {
            "file": f"{name}.json", "preset": preset, "link": query, "token": params["s"],
            "results": _figures(scenario), "link_results": _figures(public)}
    db_path = out / "store.db"
    db_path.unlink(missing_ok=True)
    db = open_store(f"sqlite:///{db_path}")
    owner = "local:alice"
    intro = cases["intro-48-nodes"][1]
    first = db.save_scenario(owner, intro, note="first")
    second = db.save_scenario(owner, intro.model_copy(update={"name": "Intro at 48 nodes, 4 years",
                              "finance": intro.finance.model_copy(update={"horizon_years": 4})}),
                              first.scenario_id, note="shorter horizon")
    quoted = db.save_scenario(owner, cases["blank-fabrics-book"][1], note="with a quote")
    piped = db.save_scenario(owner, cases["case3-96-microbatches"][1], note="96 micro-batches")
    book = db.save_price_book(owner, cases["blank-fabrics-book"][1].custom_price_book)
    token = db.create_share_token(owner, piped.scenario_id)
    manifest["store"] = {
        "file": "store.sql", "owner": owner, "price_book": book.id,
        "versions": [{"scenario_id": v.scenario_id, "version": v.version, "sha256": v.sha256, "case": case,
                      "results": _figures(v.scenario())}
                     for v, case in ((first, "intro-48-nodes"), (second, None), (quoted, "blank-fabrics-book"),
                                     (piped, "case3-96-microbatches"))],
        "share_token": {"token": token, "scenario_id": piped.scenario_id, "case": "case3-96-microbatches",
                        "results": _figures(db.open_share_token(token).scenario())}}
    db.engine.dispose()
    con = sqlite3.connect(db_path)  # kept as SQLite's text dump: no database file in the repository
    dump = "\n".join(con.iterdump()) + "\n"
    con.close()
    (out / "store.sql").write_text("-- The format-3 store made by a72e2d8's code (make_v3.py), as SQLite's own dump:\n"
                                   "-- text, not a database file; tests/format_fixtures.py restores it.\n" + dump,
                                   encoding="utf-8")
    for extra in ("store.db", "store.db-wal", "store.db-shm"):
        (out / extra).unlink(missing_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(out / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("FABRIC_TCO_DB", "/tmp/fmt3-app.db")
    main(Path(sys.argv[1]))
