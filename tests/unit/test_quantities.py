"""The registry of quantities (costmodel/data/quantities.yaml) and everything generated from it.

Consistency: registry ↔ schema ↔ break-even ↔ uncertainty ↔ inputs.build ↔ Excel ↔ widgets;
every label key resolves in English and Chinese; the loader refuses malformed entries; and the
four bounds the registry corrected are enforced with a message naming the field and the range.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel

from costmodel import quantities
from costmodel.analysis import breakeven, uncertainty
from costmodel.catalog.loader import FabricSpec, GpuSpec, Quantity, load_catalog
from costmodel.catalog.price_schema import FabricPrices, GpuPrices
from costmodel.errors import CatalogError, ScenarioError
from costmodel.exports import workbook as export_xlsx
from costmodel.pipeline import inputs
from costmodel.scenario import schema
from costmodel.scenario.presets import list_presets, load_preset
from costmodel.scenario.schema import DerivedPriceBook, Scenario
from costmodel.scenario.validation import field_bounds, validate_scenario
from webui.i18n.translator import catalog

REG = quantities.registry()
SECTIONS = {"cluster": schema.Cluster, "workload": schema.Workload, "facility": schema.Facility,
            "operations": schema.Operations, "finance": schema.Finance, "serving": schema.Serving}
CATALOG_TYPES = {"fabric": FabricSpec, "fabric_price": FabricPrices, "gpu": GpuSpec, "gpu_price": GpuPrices}


def _numeric(ann) -> bool:
    args = typing.get_args(ann) or (ann,)
    return any(a in (int, float) for a in args)


# --- the registry itself

def test_every_scenario_number_and_catalog_quantity_is_in_the_registry():
    numeric = {f"{sec}.{name}" for sec, model in SECTIONS.items()
               for name, info in model.model_fields.items() if _numeric(info.annotation)}
    assert numeric == {q.id for q in REG.values() if q.group == "scenario"}
    for group, model in CATALOG_TYPES.items():
        names = {n for n, info in model.model_fields.items() if info.annotation is Quantity}
        assert names == set(quantities.group(group)), group
    model_used = {"activation_bytes", "nvlink_efficiency", "nvlink_latency_us", "sm_share_network", "weight_bytes",
                  "fsdp_collective_efficiency", "nccl_proxy_cores_per_gpu", "nccl_net_step_latency_us",
                  "bucket_mib", "nccl_base_latency_us",
                  "mathis_constant", "checkpoint_bytes_per_param", "gpu_failure_rate_per_gpu_hour",
                  "node_failure_rate_per_node_hour", "d_model_per_layer"}
    assert model_used <= set(quantities.group("model")) <= set(load_catalog().model)


def test_every_bounded_entry_says_why_and_every_model_field_exists():
    fields = {f.name for f in dataclasses.fields(inputs.Inputs)}
    for q in REG.values():
        if q.lo is not None or q.hi is not None:
            assert len(q.note) > 10, q.id
        if q.model is not None:
            assert q.model.field in fields, q.id
            assert q.model.scale > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_entry_has_a_label_that_resolves(lang):
    texts = catalog(lang)
    missing = [(q.id, key) for q in REG.values() for key in (q.label, q.display_label) if key and key not in texts]
    assert missing == []


def test_help_of_every_scenario_input_resolves():
    """Chinese help is a locale key; English help is the key or else the schema's description."""
    zh, en = catalog("zh"), catalog("en")
    for q in REG.values():
        if q.group != "scenario":
            continue
        assert q.help in zh, q.id
        sec, name = q.id.split(".")
        assert q.help in en or SECTIONS[sec].model_fields[name].description, q.id


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_the_solver_and_the_tornado_show_has_a_label_and_a_unit(lang):
    texts = catalog(lang)
    for q in quantities.solvable():
        assert f"param.{q.model.field}" in texts and f"unit.{q.model.unit}" in texts, q.id
    for q in quantities.swung("scenario"):
        assert f"param.{q.model.field}" in texts, q.id
    ranged = {u.name for name in list_presets() for u in inputs.build(load_preset(name)).uncertain}
    assert ranged and all(f"param.{name}" in texts for name in ranged)


def test_catalog_numbers_lie_within_the_registry_bounds():
    """The bounds refuse typos, never a published number (every price book and catalog item)."""
    cat = load_catalog()
    items = [("fabric", f) for f in cat.fabrics.values()] + [("gpu", g) for g in cat.gpus.values()]
    for book in cat.price_books.values():
        items += [("fabric_price", f) for f in book.fabrics.values()] + [("gpu_price", g) for g in book.gpus.values()]
    checked = 0
    for group, item in items:
        for name, q in quantities.group(group).items():
            if q.lo is None:
                continue
            value = getattr(item, name)
            for x in (value.lo, value.typical, value.hi):
                q.check(x)
                checked += 1
    assert checked > 100


def _write(tmp_path, body: str):
    path = tmp_path / "quantities.yaml"
    path.write_text("quantities:\n" + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(("body", "words"), [
    ("  - {id: cluster.nodes, unit: count, min: 1, max: 10}\n", "needs a note"),
    ("  - {id: cluster.nodes, unit: count, min: 10, max: 1, note: x}\n", "min < max"),
    ("  - {id: cluster.nodes, unit: count, min: 1, max: 10, note: x, lo: 3}\n", "unknown keys"),
    ("  - {id: cluster.nodes, unit: count, min: 1.5, max: 10, note: x, integer: true}\n", "whole-number"),
    ("  - {id: cluster.nodes, unit: count, min: '1', max: 10, note: x}\n", "finite number"),
    ("  - {id: fabric.x, unit: W, min: 0, max: 1, note: x, swing: scenario, model: {field: x, scale: 1, unit: W}}\n",
     "only scenario inputs"),
    ("  - {id: workload.x, unit: t, min: 0, min_exclusive: true, max: 1, note: x, swing: scenario,"
     " model: {field: x, scale: 1, unit: t}}\n", "solve.floor"),
    ("  - {id: nowhere.x, unit: W}\n", "allowed heads"),
    ("  - {id: cluster.nodes, unit: count, description: x}\n  - {id: cluster.nodes, unit: count, description: x}\n",
     "defined twice"),
    ("  - {id: cluster.nodes, unit: count}\n", "needs a description"),
    ("  - {id: cluster.nodes, unit: count, description: '  '}\n", "needs a description"),
    ("  - {id: fabric.x, unit: W, empty: true}\n", "only for scenario inputs"),
    ("  - {id: cluster.nodes, unit: count, description: x, empty: 'yes'}\n", "true or false"),
    ("  - {id: cluster.nodes, unit: count, description: x, widget: {digits: 9}}\n", "widget.digits"),
    ("  - {id: cluster.nodes, unit: count, description: x, widget: {step: 0}}\n", "widget.step"),
    ("  - {id: cluster.nodes, unit: count, description: x, widget: {width: 3}}\n", "digits and step only"),
])
def test_the_loader_refuses_a_malformed_entry_naming_it(tmp_path, body, words):
    with pytest.raises(CatalogError, match=words):
        quantities.load(_write(tmp_path, body))


def test_the_loader_reads_a_good_entry(tmp_path):
    path = _write(tmp_path, "  - {id: facility.pue, description: a ratio, unit: ratio, min: 1.0, max: 3.0,"
                            " note: by definition, model: {field: pue, scale: 1, unit: ratio},"
                            " solve: {zero_window_hi: 3.0}}\n")
    q = quantities.load(path)["facility.pue"]
    assert (q.bounds(), q.field_kwargs(), q.model_bounds(), q.label) == (
        (1.0, 3.0), {"ge": 1.0, "le": 3.0}, (1.0, 3.0), "field.facility.pue")
    assert dataclasses.is_dataclass(q) and q.__dataclass_params__.frozen


# --- generated tables agree with the registry

def test_schema_bounds_are_the_registry_bounds():
    for q in REG.values():
        if q.group != "scenario":
            continue
        assert field_bounds(q.id) == q.bounds(), q.id
        sec, name = q.id.split(".")
        metadata = SECTIONS[sec].model_fields[name].metadata
        assert any(getattr(m, "gt" if q.lo_exclusive else "ge", None) == q.lo for m in metadata), q.id
    for group in ("fabric", "gpu", "fabric_price", "gpu_price"):
        assert {k: (q.lo, q.hi) for k, q in quantities.group(group).items() if q.override} == {
            "fabric": schema.FABRIC_OVERRIDE_BOUNDS, "gpu": schema.GPU_OVERRIDE_BOUNDS,
            "fabric_price": schema.FABRIC_PRICE_BOUNDS, "gpu_price": schema.GPU_PRICE_BOUNDS}[group]
    assert schema.BOOK_GPU_PRICE_BOUNDS == {k: (q.lo, q.hi) for k, q in quantities.group("gpu_price").items() if q.book}
    assert schema.MAX_DISCOUNT_PCT == quantities.spec("price_book.discount_pct").hi


def test_break_even_parameters_are_the_solvable_entries():
    assert list(breakeven.PARAMETERS) == [q.model.field for q in quantities.solvable()]
    for q in quantities.solvable():
        info = breakeven.PARAMETERS[q.model.field]
        lo, hi = q.bounds()
        assert info.lo_bound == (q.solve.floor if q.lo_exclusive else pytest.approx(lo * q.model.scale))
        assert info.hi_bound == pytest.approx(hi * q.model.scale)
        assert (info.unit, info.per_fabric, info.integer) == (q.model.unit, q.per_fabric, q.integer)


def test_tornado_swings_are_the_registry_swings():
    assert uncertainty.SCENARIO_SWINGS == {q.model.field: q.model_bounds() for q in quantities.swung("scenario")}
    range_fields = {q.model.field for q in quantities.swung("range")}
    every = list(load_catalog().fabrics)  # in scenarios of at most 12 compared fabrics
    scenarios = [Scenario(fabrics=every[i:i + 12], baseline=every[i]) for i in range(0, len(every), 12)]
    for s in (*scenarios, *(load_preset(p) for p in list_presets())):
        for u in inputs.build(s).uncertain:  # whatever Monte Carlo draws, the registry lets it swing
            assert u.name in range_fields, u.name


def test_inputs_build_scales_every_direct_input_by_the_registry():
    data = Scenario().model_dump(mode="json")
    data["workload"].update(model_params_b=13.0, global_batch_tokens_m=3.0, tokens_per_run_b=700.0)
    data["operations"].update(restart_minutes=7.0, checkpoint_write_gbs_per_node=2.5)
    data["overrides"] = {"fabrics": {"tcp-100": {"latency_us": 42.0}}, "gpus": {"h100": {"tdp_w": 650.0}}}
    s = validate_scenario(data)
    p = inputs.build(s).inputs
    assert p.params[0, 0] == 13e9 and p.batch_tokens[0, 0] == 3e6 and p.restart_s[0, 0] == 420.0
    assert p.ckpt_write_Bps_per_node[0, 0] == 2.5e9 and p.tokens_per_run[0, 0] == 700e9
    assert p.latency_s[0, s.fabrics.index("tcp-100")] == pytest.approx(42e-6) and p.gpu_tdp_kw[0, 0] == 0.65
    for q in quantities.direct("scenario"):
        value = s
        for part in q.id.split("."):
            value = getattr(value, part)
        assert getattr(p, q.model.field)[0, 0] == value * q.model.scale, q.id


def test_excel_input_rows_are_the_registry_rows():
    assert [r[0] for r in export_xlsx.SCALAR_INPUTS] == [q.excel.key for q in quantities.excel_rows(False)]
    per_fabric = [q for q in REG.values() if q.excel and q.per_fabric]
    assert [r[0] for r in export_xlsx.FABRIC_INPUTS[: len(per_fabric)]] == [q.model.field for q in per_fabric]
    for lang in export_xlsx.LANGUAGES:
        tx = export_xlsx.labels(lang)
        for q in REG.values():
            if q.excel:
                assert q.excel.key in tx["inputs"] and q.excel.unit in tx["units"], (lang, q.id)


def _number_calls(root):
    """(path, kwargs) of every ``widgets.number(t, "<path>", …)`` on the pages."""
    for page in sorted((root / "app_pages").glob("*.py")):
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "number"
                    and ast.unparse(node.func.value) == "widgets"):
                yield node.args[1].value, {k.arg: ast.literal_eval(k.value) for k in node.keywords
                                           if k.arg == "percent"}


def test_every_number_widget_is_a_registry_entry_shown_in_its_display_scale(root):
    from webui.inputs import widgets

    calls = list(_number_calls(root))
    assert len(calls) > 25
    for path, kw in calls:
        q = quantities.spec(path)
        assert widgets.bounds(path) == q.bounds()
        if "percent" in kw:
            assert (100.0 if kw["percent"] else 1.0) == q.display_scale, path
    assert widgets.display_scale("finance.discount_rate") == 100.0
    assert widgets.display_scale("cluster.nodes") == 1.0


def test_widget_labels_come_from_the_registry():
    from webui.i18n.translator import Translator
    from webui.inputs import widgets

    t = Translator("zh")
    assert widgets._label(t, "finance.discount_rate", 100.0) == catalog("zh")["wr.pct.finance.discount_rate"]
    assert widgets._label(t, "cluster.nodes") == catalog("zh")[quantities.spec("cluster.nodes").label]


# --- the corrected bounds are enforced, naming the field and the range

CORRECTED = [  # (overrides table, item, quantity, new upper bound, old upper bound)
    ("fabrics", "ib-ndr-400", "ops_factor", 10.0, 100.0),
    ("fabrics", "tcp-100", "cpu_cores_per_100gbps", 100.0, 1_000.0),
    ("fabrics", "ib-ndr-400", "switch_power_w", 1e5, 1e6),
    ("gpu_prices", "h100", "rental_per_gpu_hour", 1e4, 1e6),
]


@pytest.mark.parametrize(("table", "item", "name", "hi", "old"), CORRECTED)
def test_a_corrected_bound_is_enforced_with_the_field_and_range(table, item, name, hi, old):
    def scenario_with(value):
        data = Scenario().model_dump(mode="json")
        data["overrides"] = {table: {item: {name: value}}}
        return validate_scenario(data)

    assert scenario_with(hi).overrides  # the bound itself is allowed
    with pytest.raises(ScenarioError) as err:
        scenario_with(hi * 2)  # allowed before the registry (old bound: `old`)
    text = str(err.value)
    assert f"overrides.{table}.{item}.{name}" in text and f"≤ {hi:g}" in text and f"≤ {old:g}" not in text
    assert breakeven.PARAMETERS[quantities.spec(
        f"{'gpu_price' if table == 'gpu_prices' else 'fabric'}.{name}").model.field].hi_bound == hi


def test_a_sales_book_rental_rate_has_the_same_bound():
    DerivedPriceBook(name="ok", gpus={"h100": {"rental_per_gpu_hour": 1e4}})
    message = r"gpus\.h100\.rental_per_gpu_hour: 20000 is out of range; allowed: ≥ 0 and ≤ 10000"
    with pytest.raises(ValueError, match=message):
        DerivedPriceBook(name="typo", gpus={"h100": {"rental_per_gpu_hour": 2e4}})


def test_a_discount_beyond_the_registry_bound_names_the_category_and_range():
    with pytest.raises(ValueError, match=r"discounts\.nics: 96 is out of range; allowed: ≥ 0 and ≤ 95 \[%\]"):
        DerivedPriceBook(name="x", discounts={"nics": 96.0})


def test_the_solver_refuses_values_beyond_the_registry_bound():
    s = Scenario()
    with pytest.raises(ValueError, match=r"ops_factor: .*\[0, 10\] ratio"):
        breakeven.delta_curve(s, "ib-ndr-400", "ops_factor", [11.0])
    assert np.isfinite(breakeven.delta_curve(s, "ib-ndr-400", "ops_factor", [10.0])).all()


def test_bounds_are_not_a_pydantic_model_of_their_own():
    """The registry is plain frozen data: nothing in it is a pydantic model or mutable."""
    q = quantities.spec("fabric.ops_factor")
    assert not isinstance(q, BaseModel)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.hi = 100.0  # type: ignore[misc]


def _doc_number(text: str) -> float:
    return float(text.replace(" ", "").replace("\u202f", ""))


def test_the_documented_bounds_are_the_registry_bounds(root):
    """docs/model.md §2.1 lists every scenario field's bounds; they must be the registry's."""
    rows = {}
    for line in (root / "docs" / "model.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and cells[1].startswith("`") and "…" in cells[3]:
            path = cells[1].split("`")[1]
            if path in REG:
                rows[path] = cells[3].split(" or ")[0].split(",")[0]
    assert set(rows) == {q.id for q in REG.values() if q.group == "scenario"}
    for path, text in rows.items():
        q = quantities.spec(path)
        lo_text, hi_text = (part.strip() for part in text.split("…"))
        assert lo_text.startswith(">") == q.lo_exclusive, path
        assert (_doc_number(lo_text.lstrip("> ")), _doc_number(hi_text)) == (q.lo, q.hi), path


# --- a quantity declared once: the scenario field and the model array come from the registry

def test_every_numeric_scenario_field_is_a_registry_entry_and_nothing_else():
    """A section's numeric fields are exactly its registry entries: type, emptiness, default and
    description as the registry says (the non-numeric fields are choices: bool or Literal)."""
    cat = load_catalog()
    for sec, model in SECTIONS.items():
        specs = {q.name: q for q in quantities.section(sec)}
        numeric = {name for name, f in model.model_fields.items()
                   if {int, float} & set(typing.get_args(f.annotation) or (f.annotation,))}
        assert numeric == set(specs), sec
        for name, q in specs.items():
            f = model.model_fields[name]
            kind = int if q.integer else float
            assert f.annotation == (kind | None if q.empty else kind), q.id
            assert f.description == q.description, q.id
            default = f.get_default(call_default_factory=True)
            assert default == (None if q.empty else kind(cat.default(sec, name))), q.id


def test_a_new_registry_entry_is_a_scenario_field_and_a_model_array(tmp_path):
    """Adding an input is a registry entry: the Scenario section gains the field (bounded, with its
    default) and Inputs gains the array, with no edit of schema.py or inputs.py (checked on a copy
    of the package whose quantities.yaml has one more entry)."""
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "costmodel", tmp_path / "costmodel", ignore=shutil.ignore_patterns("__pycache__"))
    registry = tmp_path / "costmodel" / "data" / "quantities.yaml"
    registry.write_text(registry.read_text(encoding="utf-8").replace(
        "  - id: facility.pue\n",
        "  - id: facility.water_price_per_m3\n"
        "    description: \"cooling water price [currency/m³]\"\n"
        "    empty: true\n"
        "    unit: currency/m³\n    min: 0\n    max: 100\n    note: test entry\n"
        "    model: {field: water_price, scale: 1, unit: currency/m³}\n"
        "  - id: facility.pue\n", 1), encoding="utf-8")
    code = (
        "import dataclasses\n"
        "from costmodel.scenario.schema import Scenario, Facility\n"
        "from costmodel.pipeline.inputs import Inputs\n"
        "f = Facility.model_fields['water_price_per_m3']\n"
        "print(f.description, Scenario().facility.water_price_per_m3)\n"
        "print('water_price' in {x.name for x in dataclasses.fields(Inputs)})\n"
        "try:\n"
        "    Facility(water_price_per_m3=-1.0)\n"
        "except Exception as e:\n"
        "    print('refused', 'greater than or equal to 0' in str(e))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["cooling water price [currency/m³] None", "True", "refused True"]
