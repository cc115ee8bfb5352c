"""The model evaluated against a catalog passed in (ORBIT-style), the packaged catalog untouched.

A temporary copy of the packaged data files gains two fabrics: ``roce-400-twin``, the same
figures and prices as ``roce-400`` under another id, and ``roce-400-dear``, the same with
switches at twice the price. A scenario naming them is validated and evaluated end to end
against that catalog: the twin costs exactly what ``roce-400`` costs, the dear one more by the
extra switch capex; the packaged catalog and its files do not know either.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

import costmodel
from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario.validation import parse_scenario_text, validate_price_book

TWIN, DEAR = "roce-400-twin", "roce-400-dear"


def _digest(directory) -> str:
    h = hashlib.sha256()
    for path in sorted(directory.rglob("*.yaml")):
        h.update(path.relative_to(directory).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def packaged_digest() -> str:
    return _digest(DATA_DIR)


@pytest.fixture(scope="module")
def test_catalog(tmp_path_factory, packaged_digest):
    data = tmp_path_factory.mktemp("catalog") / "data"
    shutil.copytree(DATA_DIR, data)
    fab_path = data / "fabrics.yaml"
    fabrics = yaml.safe_load(fab_path.read_text(encoding="utf-8"))
    for fid, name in ((TWIN, "RoCEv2 400 Gb/s (twin)"), (DEAR, "RoCEv2 400 Gb/s (dear switches)")):
        fabrics["fabrics"][fid] = {**fabrics["fabrics"]["roce-400"], "name": name, "name_zh": name}
    fab_path.write_text(yaml.safe_dump(fabrics, allow_unicode=True), encoding="utf-8")
    for book_path in (data / "pricebooks").glob("*.yaml"):
        book = yaml.safe_load(book_path.read_text(encoding="utf-8"))
        prices = book["fabrics"]["roce-400"]
        book["fabrics"][TWIN] = dict(prices)
        switch = dict(prices["switch_price"])
        switch.update({k: 2 * switch[k] for k in ("typical", "low", "high") if k in switch})
        book["fabrics"][DEAR] = {**prices, "switch_price": switch}
        book_path.write_text(yaml.safe_dump(book, allow_unicode=True), encoding="utf-8")
    return load_catalog(data)


def _data(**changes) -> dict:
    data = costmodel.load_preset("seed-case2-24xA100").model_dump(mode="json")
    data.update(fabrics=["tcp-100", "roce-400", TWIN, DEAR], baseline="tcp-100", **changes)
    return data


def test_a_scenario_with_a_new_fabric_is_validated_and_evaluated_end_to_end(test_catalog, packaged_digest):
    scenario = costmodel.scenario_from_dict(_data(), catalog=test_catalog)
    res = costmodel.evaluate(scenario, catalog=test_catalog)
    by_id = {f.id: f for f in res.fabrics}
    assert list(by_id) == ["tcp-100", "roce-400", TWIN, DEAR]
    assert by_id[TWIN].name == "RoCEv2 400 Gb/s (twin)" and by_id[TWIN].family == "roce"
    assert by_id[TWIN].tco_total == by_id["roce-400"].tco_total  # same figures, same money
    assert by_id[TWIN].metrics == by_id["roce-400"].metrics
    assert by_id[TWIN].payback_years == by_id["roce-400"].payback_years
    # twice the switch price: only the network's capex (and what scales with it) grows
    assert by_id[DEAR].tco_total > by_id[TWIN].tco_total
    switch_price = test_catalog.price_books["public"].fabrics["roce-400"].switch_price.typical
    extra = by_id[TWIN].metrics["switches"] * switch_price  # [USD] the second price of every switch
    assert by_id[TWIN].metrics["switches"] >= 1
    assert by_id[DEAR].network_capex_purchase - by_id[TWIN].network_capex_purchase == pytest.approx(extra, rel=1e-12)
    assert by_id[DEAR].breakdown["energy"] == by_id[TWIN].breakdown["energy"]
    # the sweep reads the same catalog
    table = costmodel.sweep(scenario, [8, 24], catalog=test_catalog)
    row = table[(table.nodes == 24) & (table.fabric == TWIN)].iloc[0]
    assert row.tco_total == pytest.approx(by_id[TWIN].tco_total, rel=1e-12)
    assert _digest(DATA_DIR) == packaged_digest


def test_validators_check_ids_against_the_injected_catalog(test_catalog):
    """Overrides, a sales price book and the fabric list name the new fabric: accepted with its
    catalog, refused (naming the field) without it."""
    data = _data(overrides={"fabrics": {TWIN: {"switch_radix": 32.0}}, "fabric_prices": {DEAR: {"nic_price": 1.0}},
                            "gpus": {}, "gpu_prices": {}},
                 custom_price_book={"name": "Deal", "fabrics": {TWIN: {"switch_price": 1000.0}}})
    scenario = costmodel.scenario_from_dict(data, catalog=test_catalog)
    assert scenario.overrides.fabrics[TWIN] == {"switch_radix": 32.0}
    res = costmodel.evaluate(scenario, catalog=test_catalog)
    assert {f.id for f in res.fabrics} == {"tcp-100", "roce-400", TWIN, DEAR}
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario_from_dict(data)
    assert f"custom_price_book: fabrics.{TWIN}: unknown id" in str(err.value)
    assert f"overrides.fabrics.{TWIN}: unknown id" in str(err.value)
    for path in ("overrides.fabrics", "overrides.fabric_prices", "custom_price_book.fabrics"):
        only = {k: v for k, v in data.items() if k not in ("overrides", "custom_price_book")}
        only = {**only, "fabrics": ["tcp-100", "roce-400"]}
        if path.startswith("overrides"):
            only["overrides"] = {"fabrics": {}, "gpus": {}, "gpu_prices": {}, "fabric_prices": {},
                                 path.split(".")[1]: data["overrides"][path.split(".")[1]]}
        else:
            only["custom_price_book"] = data["custom_price_book"]
        costmodel.scenario_from_dict(only, catalog=test_catalog)
        with pytest.raises(ScenarioError, match="unknown id"):
            costmodel.scenario_from_dict(only)
    book = {"name": "Deal", "fabrics": {DEAR: {"switch_price": 5.0}}}
    assert validate_price_book(book, test_catalog).fabrics[DEAR] == {"switch_price": 5.0}
    with pytest.raises(ScenarioError, match="unknown id"):
        validate_price_book(book)
    text = costmodel.Scenario.model_validate(_data(), context={"catalog": test_catalog}).model_dump_json()
    assert parse_scenario_text(text, catalog=test_catalog).fabrics[2] == TWIN


def test_the_packaged_catalog_is_untouched_and_refuses_the_new_fabric(test_catalog, packaged_digest):
    packaged = load_catalog()
    assert TWIN not in packaged.fabrics and TWIN in test_catalog.fabrics
    assert TWIN not in packaged.price_books["public"].fabrics
    assert set(test_catalog.fabrics) - set(packaged.fabrics) == {TWIN, DEAR}
    scenario = costmodel.scenario_from_dict(_data(), catalog=test_catalog)
    with pytest.raises(ScenarioError, match=f"fabrics: unknown fabric '{TWIN}'"):
        costmodel.evaluate(scenario)  # evaluated against the packaged catalog: refused, not a KeyError
    plain = costmodel.load_preset("seed-case2-24xA100")
    assert costmodel.evaluate(plain).to_dict() == costmodel.evaluate(plain, catalog=packaged).to_dict()
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario_from_dict({"fabrics": ["x"], "baseline": "x"}, catalog=test_catalog)
    assert TWIN in str(err.value)  # the message lists the injected catalog's ids
    assert _digest(DATA_DIR) == packaged_digest


def test_seed_rule_tiers_come_from_the_catalog_passed_in(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    defaults = yaml.safe_load((data / "defaults.yaml").read_text(encoding="utf-8"))
    defaults["seed_rule"]["large_nodes"]["typical"] = 16
    defaults["seed_rule"]["large_nodes"].pop("low", None)
    defaults["seed_rule"]["large_nodes"].pop("high", None)
    (data / "defaults.yaml").write_text(yaml.safe_dump(defaults, allow_unicode=True), encoding="utf-8")
    scenario = costmodel.load_preset("seed-case2-24xA100")  # 24 nodes: over 16, under the packaged 32
    assert costmodel.evaluate(scenario, catalog=load_catalog(data)).recommendation.rule_family == "infiniband"
    reasons = costmodel.evaluate(scenario, catalog=load_catalog(data)).recommendation.reason_codes
    assert reasons[0].code == "rule_large" and reasons[0].values["large"] == 16
    assert costmodel.evaluate(scenario).recommendation.reason_codes[0].code != "rule_large"


def test_importing_the_model_reads_no_catalog(root):
    """Every module of the model imports without reading a data file (the catalog loads on first use)."""
    modules = sorted(p.stem for p in (root / "costmodel").glob("*.py") if p.stem not in ("__main__",))
    code = ("import importlib; from costmodel.catalog.loader import load_catalog\n"
            f"for m in {modules!r}: importlib.import_module('costmodel.' + m if m != '__init__' else 'costmodel')\n"
            "print(load_catalog.cache_info().misses)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout


def test_defaults_are_the_packaged_catalogs(test_catalog):
    blank = costmodel.Scenario()
    cat = load_catalog()
    assert blank.cluster.nodes == int(cat.default("cluster", "nodes"))
    assert blank.fabrics == list(cat.blank_scenario["fabrics"]) and blank.baseline == cat.blank_scenario["baseline"]
    assert isinstance(blank.finance.horizon_years, int) and isinstance(blank.facility.electricity_price_per_kwh, float)
    assert np.isfinite(costmodel.evaluate(blank, catalog=test_catalog).fabrics[0].tco_total)
