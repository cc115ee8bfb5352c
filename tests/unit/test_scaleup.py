"""The scale-up domain (costmodel/scenario/scaleup.py, the ``scaleup_gpus`` terms of
costmodel/physics/performance.py and experts.py): the server and the NVLink domain told apart.

Laws: a domain of one server reproduces the model without a domain, bit for bit; a larger domain never
raises the scale-out bytes per step of a fixed layout, nor its scale-out time; the same 576 B200 GPUs in
domains of 72 (an NVL72-class rack of 4- or 8-GPU trays) spend a smaller share of the step on the scale-out
fabric than in 8-GPU servers, on every fabric; the field is refused, by name, where it is not a whole
number of servers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.physics import layout, performance
from costmodel.pipeline import inputs
from costmodel.pipeline.stages.batch import batch_nodes, float_inputs
from costmodel.pipeline.stages.step_time import step_args
from costmodel.pipeline.stages.topology import topology
from costmodel.scenario import scaleup

CAT = load_catalog()
FABRICS = ["tcp-100", "roce-200", "iwarp-100", "ib-ndr-400"]


def _doc(gpu="b200", gpus=576, g=8, domain=None, params=70.0, parallelism="best", **workload) -> dict:
    d = costmodel.Scenario().model_dump(mode="json")
    d["cluster"].update(gpu=gpu, nodes=gpus // g, gpus_per_node=g, nics_per_node=g, scaleup_domain_gpus=domain)
    d["fabrics"], d["baseline"] = FABRICS, FABRICS[0]
    d["workload"].update(model_params_b=params, parallelism=parallelism, **workload)
    return d


def _shares(doc: dict) -> dict[str, float]:
    return {f.id: f.metrics["scaleout_share"] for f in costmodel.evaluate(costmodel.scenario_from_dict(doc)).fabrics}


# --- the catalog and the field

def test_every_catalog_part_has_a_sourced_domain_of_whole_servers():
    for gid, gpu in CAT.gpus.items():
        d, g = gpu.scaleup_domain_gpus.typical, gpu.default_gpus_per_node.typical
        assert d >= g and d % g == 0, gid
        assert gpu.scaleup_domain_gpus.source in CAT.references, gid


def test_an_empty_field_is_the_server_unless_the_catalog_domain_is_rack_scale():
    h100 = CAT.gpus["h100"]
    assert scaleup.domain_gpus(None, 8, h100) == 8.0
    assert scaleup.domain_gpus(None, 4, h100) == 4.0  # a 4-GPU H100 server is its own domain, as before
    rack = h100.model_copy(update={"scaleup_domain_gpus": h100.scaleup_domain_gpus.model_copy(update={"typical": 72})})
    assert scaleup.domain_gpus(None, 4, rack) == 72.0
    assert scaleup.domain_gpus(None, 16, rack) == 16.0  # 72 is no whole number of 16-GPU servers
    assert scaleup.domain_gpus(24, 8, h100) == 24.0


@pytest.mark.parametrize(("g", "domain"), [(8, 12), (8, 4), (4, 6), (8, 385)])
def test_a_domain_that_is_no_whole_number_of_servers_is_refused_by_name(g, domain):
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario_from_dict(_doc(g=g, domain=domain))
    assert "cluster.scaleup_domain_gpus" in str(err.value)


@pytest.mark.parametrize(("g", "domain"), [(8, 8), (8, 72), (4, 72), (8, 384), (4, 4)])
def test_whole_numbers_of_servers_up_to_384_are_accepted(g, domain):
    assert costmodel.scenario_from_dict(_doc(g=g, domain=domain)).cluster.scaleup_domain_gpus == domain


# --- a domain of one server is the model as it was

def _server_gpus(preset: str) -> int:
    return int(inputs.build(costmodel.load_preset(preset)).inputs.gpus_per_node.ravel()[0])


def _domain(preset: str) -> float:
    s = costmodel.load_preset(preset)
    return scaleup.domain_gpus(s.cluster.scaleup_domain_gpus, _server_gpus(preset), CAT.gpus[s.cluster.gpu])


ONE_SERVER = [p for p in costmodel.list_presets() if _domain(p) == _server_gpus(p)]
RACK_SCALE = [p for p in costmodel.list_presets() if _domain(p) > _server_gpus(p)]


def test_the_presets_are_split_by_their_domain():
    assert {"gb200-nvl72-8racks", "gb300-nvl72-8racks", "cloudmatrix384-2"} <= set(RACK_SCALE)
    assert {"seed-case3-128xH100", "b300-128", "ascend910b-128"} <= set(ONE_SERVER)
    assert sorted(ONE_SERVER + RACK_SCALE) == sorted(costmodel.list_presets())


@pytest.mark.parametrize("preset", ONE_SERVER)
def test_a_domain_of_one_server_gives_the_same_results_bit_for_bit(preset):
    base = costmodel.load_preset(preset)
    doc = base.model_dump(mode="json")
    g = int(inputs.build(base).inputs.gpus_per_node.ravel()[0])
    doc["cluster"]["scaleup_domain_gpus"] = g
    old, new = costmodel.evaluate(base), costmodel.evaluate(costmodel.scenario_from_dict(doc))
    for a, b in zip(old.fabrics, new.fabrics, strict=True):
        assert a.metrics == b.metrics and a.tco_total == b.tco_total and a.breakdown == b.breakdown


# --- the physics: a larger domain never adds scale-out traffic

def _args(doc: dict) -> dict:
    p = inputs.build(costmodel.scenario_from_dict(doc)).inputs
    own = float_inputs(p)
    p, _ = batch_nodes(own)
    return layout.step_kwargs(step_args(p, topology(own))[3])


MOE = dict(experts=64, top_k=6, active_params_b=10.0, expert_parallel=32)
_BASE = {"dense": _args(_doc(g=8, gpus=512, params=70.0, parallelism="dp")),
         "moe": _args(_doc(g=8, gpus=512, params=200.0, parallelism="dp", **MOE))}


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["dense", "moe"]), tp=st.sampled_from([1.0, 2.0, 4.0, 8.0]),
       pp=st.sampled_from([1.0, 2.0, 4.0, 8.0]), zero=st.sampled_from([1.0, 3.0]),
       dedup=st.sampled_from([0.0, 1.0]), servers=st.integers(1, 8), more=st.integers(1, 6))
def test_a_larger_domain_never_raises_scale_out_bytes_or_time(kind, tp, pp, zero, dedup, servers, more):
    args = dict(_BASE[kind], tp=tp, pp=pp, vp=1.0, zero=zero, node_dedup=dedup)
    small = performance.step_time(**{**args, "scaleup_gpus": 8.0 * servers})
    large = performance.step_time(**{**args, "scaleup_gpus": 8.0 * servers * more})
    assert np.all(large["bytes_node"] <= small["bytes_node"] * (1 + 1e-12))
    assert np.all(large["t_scaleout"] <= small["t_scaleout"] * (1 + 1e-12) + 1e-15)
    assert np.all(large["t_step"] <= small["t_step"] * (1 + 1e-12))
    assert np.all((small["scaleout_share"] >= 0) & (small["scaleout_share"] <= 1))


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["dense", "moe"]), tp=st.sampled_from([1.0, 2.0, 4.0, 8.0]),
       pp=st.sampled_from([1.0, 2.0, 8.0]), zero=st.sampled_from([0.0, 1.0, 3.0]))
def test_the_server_as_domain_is_the_model_without_a_domain(kind, tp, pp, zero):
    args = dict(_BASE[kind], tp=tp, pp=pp, vp=1.0, zero=zero)
    without = performance.step_time(**{k: v for k, v in args.items() if k != "scaleup_gpus"})
    server = performance.step_time(**{**args, "scaleup_gpus": args["gpus_per_node"]})
    for key, value in without.items():
        np.testing.assert_array_equal(server[key], value, err_msg=key)


def test_a_domain_holding_the_whole_group_sends_nothing_across_it():
    # 512 GPUs in one domain: tensor, data and expert parallelism all stay on NVLink
    args = dict(_BASE["moe"], tp=4.0, pp=1.0, vp=1.0, zero=1.0, scaleup_gpus=512.0)
    s = performance.step_time(**args)
    assert np.all(s["bytes_node"] == 0) and np.all(s["t_scaleout"] == 0)


def test_the_search_keeps_tensor_parallel_inside_the_domain():
    cand = {k: np.array([v]) for k, v in dict(tp=8.0, pp=1.0, vp=1.0, zero=1.0, micro_seqs=1.0, recompute=0.0).items()}
    base = dict(_BASE["dense"], **cand)
    assert layout.whole({**base, "scaleup_gpus": 8.0}).all()
    assert not layout.whole({**base, "scaleup_gpus": 12.0}).any()  # 8 does not divide a domain of 12


# --- the acceptance figure: NVL72-class domains against 8-GPU servers

@pytest.mark.parametrize("params", [70.0, 405.0])
def test_576_gpus_in_domains_of_72_wait_less_on_every_fabric_than_in_8_gpu_servers(params):
    servers = _shares(_doc(g=8, params=params))
    for g in (4, 8):
        racks = _shares(_doc(g=g, domain=72, params=params))
        print(f"576 x B200, {params:g} B: 8-GPU servers {servers}; domains of 72 ({g}-GPU trays) {racks}")
        for fid in FABRICS:
            assert racks[fid] < servers[fid], (fid, racks[fid], servers[fid])


def test_the_share_is_in_the_results_and_the_csv():
    result = costmodel.evaluate(costmodel.scenario_from_dict(_doc(g=4, domain=72)))
    from costmodel.exports.csv import results_csv
    text = results_csv(result)
    assert "scaleout_share" in text.splitlines()[0]
    assert all(0.0 <= f.metrics["scaleout_share"] < 1.0 for f in result.fabrics)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_so_when_the_fabric_matters_little_and_when_it_matters(lang):
    from webui.i18n.translator import Translator
    from webui.sections import scaleout

    t = Translator(lang)
    small = load_catalog().constant("scaleout_small_share")
    racks = costmodel.evaluate(costmodel.scenario_from_dict(_doc(g=4, domain=72)))
    servers = costmodel.evaluate(costmodel.scenario_from_dict(_doc(g=8)))
    assert max(f.metrics["scaleout_share"] for f in racks.fabrics) < small
    assert max(f.metrics["scaleout_share"] for f in servers.fabrics) >= small
    for res, key in ((racks, "scaleup.small"), (servers, "scaleup.large")):
        worst = max(f.metrics["scaleout_share"] for f in res.fabrics)
        assert scaleout.scaleout_note(t, res) == t(key, share=scaleout.format_share(worst, 1))
    assert "72" in scaleout.scaleout_caption(t, racks)
    header, rows = scaleout.scaleout_table(t, racks, {})
    assert len(header) == 3 and [r[0] for r in rows] == FABRICS
