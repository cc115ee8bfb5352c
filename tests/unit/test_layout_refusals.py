"""A training layout that cannot exist on the cluster is refused, naming the field and what is allowed
(only where the new layout fields are set: older documents open as before)."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario.validation import validate_scenario
from webui.i18n.translator import catalog


def _doc(**workload) -> dict:
    d = costmodel.Scenario().model_dump()  # 8 nodes × 8 H100
    d["workload"].update(workload)
    return d


@pytest.mark.parametrize(("workload", "field", "text"), [
    ({"tensor_parallel": 3}, "workload.tensor_parallel", "must divide the 8 GPUs of a node (1, 2, 4, 8)"),
    ({"tensor_parallel": 12}, "workload.tensor_parallel", "or be a multiple of them"),
    ({"parallelism": "pipeline", "pipeline_stages": 8, "tensor_parallel": 16}, "workload.tensor_parallel",
     "at most 8 with 8 pipeline stages on 64 GPUs"),
    ({"experts": 8, "expert_parallel": 65}, "workload.expert_parallel", "at most the 64 GPUs of a pipeline stage"),
    ({"experts": 8, "active_params_b": 7.5}, "workload.active_params_b", "at most the model size (7 B)"),
])
def test_an_impossible_layout_is_refused_with_the_field_and_the_allowed_values(workload, field, text):
    with pytest.raises(ScenarioError) as err:
        validate_scenario(_doc(**workload))
    assert str(err.value).startswith(field) and text in str(err.value)


@pytest.mark.parametrize("workload", [
    {"tensor_parallel": 16},  # across two nodes, over the fabric
    {"parallelism": "pipeline", "pipeline_stages": 8, "tensor_parallel": 8},
    {"experts": 8, "expert_parallel": 64, "active_params_b": 7},
    {"expert_parallel": 4096},  # a dense model ignores the expert fields
])
def test_a_possible_layout_is_accepted(workload):
    assert validate_scenario(_doc(**workload)).workload.model_dump().items() >= workload.items()


@pytest.mark.parametrize("code", ["tp_not_divisor", "tp_above_gpus", "ep_above_gpus", "active_above_total"])
def test_each_refusal_has_an_english_and_a_chinese_text(code):
    keys = [k for k in catalog("en") if k.endswith("." + code)]
    assert keys and all(k in catalog("zh") for k in keys)


@pytest.mark.parametrize(("gpu", "precision", "ok"), [
    ("a100-80", "fp8", False), ("a10", "fp8", False), ("h100", "fp4", False),
    ("h100", "fp8", True), ("h200", "fp8", True), ("b200", "fp4", True), ("a100-80", "bf16", True),
])
def test_a_precision_the_gpu_lacks_is_refused_naming_the_gpu(gpu, precision, ok):
    d = _doc(precision=precision)
    d["cluster"]["gpu"] = gpu
    if ok:
        assert validate_scenario(d).workload.precision == precision
        return
    with pytest.raises(ScenarioError) as err:
        validate_scenario(d)
    name = load_catalog().gpus[gpu].name
    assert str(err.value).startswith("workload.precision") and name in str(err.value)
    assert f"no {precision.upper()} tensor cores" in str(err.value)


def test_the_precision_refusal_has_an_english_and_a_chinese_text():
    assert "err.precision_unsupported" in catalog("en") and "err.precision_unsupported" in catalog("zh")
