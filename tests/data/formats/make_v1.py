"""Make the format-1 fixtures with the code of commit 45aa0b2 (the last main before format versions).

Run from a worktree of that commit (its code, not today's):
    git worktree add /tmp/v1 45aa0b2 && ln -s /work/main/.venv /tmp/v1/.venv
    cd /tmp/v1 && .venv/bin/python /work/main/tests/data/formats/make_v1.py /work/main/tests/data/formats/v1
Writes ``<name>.json`` exports, ``store.sql`` (the text dump of a SQLite store with saved versions, a price book and a
read-only token) and ``manifest.json``: per fixture, its share link and the TCO per fabric [currency]
and days per run [days] that this code computed. Not run by the tests; kept to show how they were made.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import costmodel
from costmodel.scenario.schema import DerivedPriceBook
from store import documents
from store.repository import open_store
from webui.session import share


def _edited() -> dict[str, tuple[str, costmodel.Scenario]]:
    """A few edited scenarios: (preset they start from, scenario)."""
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
    }


def _figures(scenario: costmodel.Scenario) -> dict:
    r = costmodel.evaluate(scenario)
    return {"currency": r.currency, "horizon_years": r.horizon_years,
            "fabrics": {f.id: {"tco_total": f.tco_total, "run_days": f.metrics["run_days"]} for f in r.fabrics}}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cases = {p: (p, share.preset_scenario(p)) for p in share.preset_ids()} | _edited()
    manifest = {"made_by": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                          check=True).stdout.strip(),
                "note": "format 1: no format marker anywhere; links are ?p=<preset>&s=<token>",
                "exports": {}, "store": {}}
    for name, (preset, scenario) in cases.items():
        (out / f"{name}.json").write_bytes(documents.export_scenario(scenario))
        public = costmodel.scenario.price_books.quote_only(scenario)  # what a link carries (no sales book)
        manifest["exports"][name] = {
            "file": f"{name}.json", "preset": preset, "token": share.encode(scenario, preset),
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
    book = db.save_price_book(owner, cases["blank-fabrics-book"][1].custom_price_book)
    token = db.create_share_token(owner, quoted.scenario_id)
    manifest["store"] = {
        "file": "store.sql", "owner": owner, "price_book": book.id,
        "versions": [{"scenario_id": v.scenario_id, "version": v.version, "sha256": v.sha256,
                      "results": _figures(v.scenario())} for v in (first, second, quoted)],
        "share_token": {"token": token, "scenario_id": quoted.scenario_id,
                        "results": _figures(db.open_share_token(token).scenario())}}
    db.engine.dispose()
    import sqlite3  # keep the store as SQLite's text dump: no database file in the repository

    con = sqlite3.connect(db_path)
    dump = "\n".join(con.iterdump()) + "\n"
    con.close()
    (out / "store.sql").write_text("-- The format-1 store made by 45aa0b2's code (this script), as SQLite's own dump:\n"
                                   "-- text, not a database file; tests/format_fixtures.py restores it.\n" + dump,
                                   encoding="utf-8")
    for extra in ("store.db", "store.db-wal", "store.db-shm"):
        (out / extra).unlink(missing_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(out / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
