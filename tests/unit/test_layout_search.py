"""The layout search (parallelism "best", costmodel/physics/layout.py) and the memory of a layout.

Memory against published figures (ZeRO's 16 bytes per parameter and its Figure 1; Korthikanti et
al.'s activations per layer); the search never returns a layout that does not fit memory, and
is never slower than a fixed layout of its grid that fits (evaluated through the normal path);
a known case computed by hand; a scenario where nothing fits is flagged, not a crash.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.errors import CatalogError
from costmodel.physics import layout, transformer
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import Scenario

CAT = load_catalog()
GIB, GB = 2.0**30, 1e9


def _scenario(nodes=8, gpu="h100", fabrics=("tcp-100", "roce-200", "ib-ndr-400"), **workload) -> Scenario:
    data = Scenario().model_dump(mode="json")
    data["cluster"].update(nodes=nodes, gpu=gpu)
    data["fabrics"], data["baseline"] = list(fabrics), fabrics[0]
    data["workload"].update(workload)
    return costmodel.scenario_from_dict(data)


# --- memory of a layout against published figures

def test_state_memory_is_zeros_sixteen_bytes_per_parameter_and_its_figure_1():
    # ZeRO (Rajbhandari et al. 2020) sec. 3.1: 7.5 B parameters with Adam in mixed precision need
    # 16 bytes each, 120 GB without sharding; Figure 1 (N_d = 64): 31.4, 16.6, 1.9 GB by stage.
    assert transformer.state_bytes_per_gpu(7.5e9, 1, 1, 1, 0) / GB == pytest.approx(120.0)
    by_stage = [transformer.state_bytes_per_gpu(7.5e9, 1, 1, 64, z) / GB for z in (1, 2, 3)]
    assert np.round(by_stage, 1).tolist() == [31.4, 16.6, 1.9]


def test_activation_memory_is_korthikantis_per_layer_figure_times_the_layers_in_1f1b():
    # Korthikanti et al. 2022 (Table 2): per layer s b h (34 + 5 a s / h) / t with tensor + sequence
    # parallelism, 34 s b h / t with selective recomputation; less the two 1-byte dropout masks of a
    # model trained without dropout: 32 (+ 5 s / d_head with the scores stored). 1F1B's first stage
    # holds p micro-batches of l/p layers, i.e. all l layers' worth, whatever p (sec. 4.2.3);
    # interleaving multiplies it by 1 + (p - 1)/(p v) once there are enough micro-batches, and holds
    # every micro-batch there is when there are fewer (Megatron's warm-up cap); full recomputation
    # keeps 2 s b h / t per layer.
    s, b, h, n_l, t = 2048, 1, 12288, 96, 8
    per_layer = 32 * s * b * h / t
    one_stage = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 1, 1, 1, 0)
    eight_stages = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 8, 1, 64, 0)
    assert one_stage == pytest.approx(per_layer * n_l)
    assert eight_stages == pytest.approx(per_layer * n_l)  # was × (1 + 7/8) before the fix
    interleaved = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 8, 3, 64, 0)
    assert interleaved == pytest.approx(per_layer * n_l * (1 + 7 / 24))
    few = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 8, 3, 8, 0)  # m = p: every micro-batch
    assert few == pytest.approx(per_layer * n_l)
    recomputed = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 1, 1, 1, 1)
    assert recomputed == pytest.approx(2 * s * b * h / t * n_l + per_layer)
    stored = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 1, 1, 1, 0, scores=1.0, head_dim=128)
    assert stored == pytest.approx((32 + 5 * s / 128) * s * b * h / t * n_l)
    fp8 = transformer.activation_bytes_per_gpu(s, b, h, n_l, t, 1, 1, 1, 0, linear_bytes=1.0)
    assert fp8 == pytest.approx((32 - 14 / 2) * s * b * h / t * n_l)  # the linear layers' inputs in FP8


def test_dualpipe_holds_p_plus_one_micro_batches_and_two_weight_copies():
    # DeepSeek-V3 report, table 2: DualPipe's activations are those of PP + 1 micro-batches of a
    # stage (1F1B: PP), its parameters 2×; the optimizer state is sharded over both copies.
    s, h, n_l, t, p = 4096, 7168, 64, 1, 16
    one_f = transformer.activation_bytes_per_gpu(s, 1, h, n_l, t, p, 1, 100, 0)
    dual = transformer.activation_bytes_per_gpu(s, 1, h, n_l, t, p, 1, 100, 0, dualpipe=1.0)
    assert dual / one_f == pytest.approx((p + 1) / p)
    one = transformer.state_bytes_per_gpu(1e9, 1, 1, 8, 1)
    two = transformer.state_bytes_per_gpu(1e9, 1, 1, 8, 1, weight_copies=2.0)
    assert two - one == pytest.approx(1e9 * (2 + 2))  # weights and gradients twice, optimizer once


def test_expert_state_shards_over_the_experts_own_data_parallel_replicas():
    # an expert split over ep GPUs has dp/ep data-parallel replicas (Megatron's expert data
    # parallel): its optimizer state shards over those, not over all dp
    dense = transformer.state_bytes_per_gpu(1e9, 1, 1, 128, 1)
    expert = transformer.state_bytes_per_gpu(1e9, 1, 1, 128, 1, expert_params=1e9, ep=64)
    assert dense == pytest.approx(1e9 * (4 + 12 / 128))
    assert expert == pytest.approx(1e9 * (4 + 12 / 2))


def test_the_grid_is_read_from_its_data_file_with_sources(tmp_path):
    g = layout.load_grid()
    assert set(np.unique(g.tp)) == {1, 2, 4, 8} and set(np.unique(g.zero)) == {1, 3}
    assert not np.any((g.pp == 1) & (g.vp > 1))  # interleaving only with a pipeline
    bad = tmp_path / "grid.yaml"
    text = layout.GRID_FILE.read_text(encoding="utf-8").replace("source: zero-2020", "source: nowhere-2099")
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"grid\.zero: unknown source key 'nowhere-2099'"):
        layout.load_grid(bad)


# --- the search

def _memory_independently(s: Scenario, m: dict) -> float:
    """Memory per GPU [GB] of the layout in metrics ``m``, from transformer's functions alone."""
    p = costmodel.pipeline.inputs.build(s).inputs
    tp, pp, dp, vp, z = (m[k] for k in ("layout_tp", "layout_pp", "layout_dp", "layout_vp", "layout_zero"))
    b, mb, rec = m["layout_micro_seqs"], m["layout_microbatches"], m["layout_recompute"]
    params, layers = float(p.params[0, 0]), float(p.n_layers[0, 0])
    state = transformer.state_bytes_per_gpu(params, tp, pp, dp, z, grad_bytes=s.workload.grad_bytes)
    act = transformer.activation_bytes_per_gpu(s.workload.seq_len, b, float(p.hidden[0, 0]), layers, tp, pp, vp,
                                               mb, rec)
    gathered = 2 * params / (tp * layers) * 2 if z >= 3 else 0.0
    return float(state + act + gathered) / GB


FIXED = st.fixed_dictionaries({
    "parallelism": st.sampled_from(["dp", "fsdp", "pipeline"]),
    "tensor_parallel": st.sampled_from([1, 2, 4, 8]),
    "pipeline_stages": st.sampled_from([2, 4, 8, 16]),
    "virtual_stages": st.sampled_from([1, 2, 4]),
    "micro_batch_seqs": st.sampled_from([1, 2, 4, 8]),
    "full_recompute": st.booleans(),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.integers(1, 32), gpu=st.sampled_from(["a100-40", "a100-80", "h100", "b200"]),
    params_b=st.floats(0.5, 300), batch_m=st.floats(0.5, 16), seq=st.sampled_from([2048, 4096, 8192]),
    fabrics=st.lists(st.sampled_from(sorted(CAT.fabrics)), min_size=1, max_size=4, unique=True), fixed=FIXED,
)
def test_the_search_fits_memory_and_is_never_slower_than_a_fixed_layout_it_could_choose(
        nodes, gpu, params_b, batch_m, seq, fabrics, fixed):
    work = {"model_params_b": params_b, "global_batch_tokens_m": batch_m, "seq_len": seq}
    if fixed["parallelism"] != "pipeline" or fixed["pipeline_stages"] > nodes:
        fixed = {**fixed, "parallelism": "dp" if fixed["parallelism"] == "pipeline" else fixed["parallelism"]}
    best = costmodel.evaluate(_scenario(nodes, gpu, tuple(fabrics), parallelism="best", **work))
    s_fixed = _scenario(nodes, gpu, tuple(fabrics), **work, **fixed)
    fix = costmodel.evaluate(s_fixed)
    g, dp_ = 8, None
    tp = fixed["tensor_parallel"]
    pp = fixed["pipeline_stages"] if fixed["parallelism"] == "pipeline" else 1
    dp_ = nodes * g / (tp * pp)
    seqs = batch_m * 1e6 / seq
    on_grid = dp_ == int(dp_) and fixed["micro_batch_seqs"] <= seqs / dp_
    for fb, ff in zip(best.fabrics, fix.fabrics, strict=True):
        mb, mf = fb.metrics, ff.metrics
        if mb["fits_memory"]:
            assert mb["memory_gb_per_gpu"] <= mb["memory_usable_gb"]
            assert _memory_independently(s_fixed, mb) == pytest.approx(mb["memory_gb_per_gpu"], rel=1e-9)
            assert _memory_independently(s_fixed, mb) <= mb["memory_usable_gb"] * (1 + 1e-12)
        if on_grid and mf["fits_memory"]:
            assert mb["fits_memory"] == 1.0
            assert mb["step_time_s"] <= mf["step_time_s"] * (1 + 1e-9), (fb.id, mb, mf)


def test_a_7b_model_on_8_h100_nodes_is_not_split_8_ways_when_less_tensor_parallel_is_faster():
    # Llama-2-7B shape (h 4096, 32 layers), 4 M tokens of 4096 per step, 8 × 8 H100. By hand:
    # TP 8 spends 4 all-reduces of b s h activations per layer and micro-batch on NVLink, not
    # hidden; with b = 1 that alone is 122 micro-batches × 128 × 2·7/8·33.6 MB / (450 GB/s · η).
    # a typed kernel efficiency (the same for every layout) keeps the bound below exact
    s = _scenario(8, "h100", ("ib-ndr-400",), parallelism="best", model_params_b=7.0, global_batch_tokens_m=4.0,
                  seq_len=4096, hidden_size=4096, layers=32, compute_efficiency=0.5)
    m = costmodel.evaluate(s).fabrics[0].metrics
    gpu, model = CAT.gpus["h100"], CAT.model
    peak = gpu.peak_bf16_tflops.typical * 1e12 * s.workload.compute_efficiency
    tokens = 4e6
    flops_per_token = 6 * 7e9 + 12 * 32 * 4096 * 4096
    compute_s = flops_per_token * tokens / (64 * peak)  # any layout's pure compute, no bubble
    nvlink = gpu.intra_node_gbs.typical * 1e9 * model["nvlink_efficiency"].typical
    micro_batches_tp8 = tokens / 4096 / 8  # d = 8 replicas, b = 1 (a larger b only adds memory)
    tp8_allreduce_s = micro_batches_tp8 * 4 * 32 * 2 * 7 / 8 * (4096 * 4096 * 2) / nvlink
    assert m["fits_memory"] == 1.0 and m["layout_tp"] < 8
    assert m["step_time_s"] < compute_s + tp8_allreduce_s  # TP 8's lower bound: it would be slower
    assert m["step_time_s"] >= compute_s


def test_nothing_fits_is_flagged_with_finite_figures():
    s = _scenario(1, "a100-40", ("tcp-100", "ib-ndr-400"), parallelism="best", model_params_b=500.0)
    for f in costmodel.evaluate(s).fabrics:
        m = f.metrics
        assert m["fits_memory"] == 0.0
        assert m["memory_gb_per_gpu"] > m["memory_usable_gb"]
        assert np.isfinite(m["step_time_s"]) and np.isfinite(f.tco_total)


def test_a_fixed_layout_that_does_not_fit_says_so():
    s = _scenario(8, "a100-40", ("ib-ndr-400",), parallelism="dp", tensor_parallel=1, model_params_b=30.0)
    m = costmodel.evaluate(s).fabrics[0].metrics
    assert m["fits_memory"] == 0.0 and m["memory_gb_per_gpu"] > 30 * 2 + 30 * 2  # full weights + grads
    ok = costmodel.evaluate(with_change(s, "workload.parallelism", "best").scenario).fabrics[0].metrics
    assert ok["fits_memory"] == 1.0


def test_each_fabric_gets_its_own_layout_and_a_sweep_in_chunks_agrees_with_evaluate(monkeypatch):
    s = with_change(costmodel.load_preset("seed-intro-32xA100"), "workload.parallelism", "best").scenario
    res = costmodel.evaluate(s)
    layouts = {tuple(f.metrics[k] for k in ("layout_tp", "layout_pp", "layout_vp")) for f in res.fabrics}
    assert len(layouts) > 1  # a slow fabric prefers less data-parallel traffic
    monkeypatch.setattr(layout, "CHUNK_ELEMENTS", 64)  # many chunks of rows
    df = costmodel.sweep(s, nodes=[8, 16, 32, 48]).set_index(["nodes", "fabric"])
    for f in res.fabrics:
        row = df.loc[(32, f.id)]
        for k in ("step_time_s", "layout_tp", "layout_pp", "layout_dp", "layout_micro_seqs", "memory_gb_per_gpu"):
            assert row[k] == pytest.approx(f.metrics[k], rel=1e-12), k


def test_monte_carlo_keeps_each_fabrics_layout_from_the_typical_values():
    from costmodel.analysis.uncertainty import _draw, layout_at_typical, monte_carlo
    from costmodel.pipeline.inputs import build
    from costmodel.pipeline.tco import compute

    s = with_change(costmodel.load_preset("seed-intro-32xA100"), "workload.parallelism", "best").scenario
    built = build(s)
    p, st_fixed = layout_at_typical(built.inputs, built.structure)
    searched, fixed = compute(built.inputs, built.structure).metrics, compute(p, st_fixed).metrics
    for k in ("step_time_s", "layout_tp", "layout_pp", "layout_vp", "layout_micro_seqs", "memory_gb_per_gpu"):
        assert np.array_equal(searched[k], fixed[k]), k
    mc = monte_carlo(s, draws=300, seed=3)
    drawn = _draw(built.uncertain, 300, np.random.default_rng(3))  # the same draws
    assert np.array_equal(mc.tco, compute(p.replace(**drawn), st_fixed).tco)
    assert not np.array_equal(mc.tco, compute(built.inputs.replace(**drawn), built.structure).tco)


def test_a_gpu_memory_override_moves_the_fit():
    s = _scenario(8, "a100-40", ("ib-ndr-400",), parallelism="dp", tensor_parallel=1, model_params_b=30.0)
    need = costmodel.evaluate(s).fabrics[0].metrics["memory_gb_per_gpu"]
    reserve = CAT.model["memory_reserve_frac"].typical
    data = s.model_dump(mode="json")
    binary = GIB / GB  # the datasheets' GB of HBM are GiB (nvidia-smi: an H100 "80 GB" has 81,559 MiB)
    for gb, fits in ((need / (1 - reserve) / binary * 1.01, 1.0), (need / (1 - reserve) / binary * 0.99, 0.0)):
        data["overrides"] = {"gpus": {"a100-40": {"memory_gb": gb}}}
        m = costmodel.evaluate(costmodel.scenario_from_dict(data)).fabrics[0].metrics
        assert m["memory_usable_gb"] == pytest.approx(gb * binary * (1 - reserve)) and m["fits_memory"] == fits


def test_the_results_csv_carries_each_fabrics_layout():
    import csv
    import io

    from costmodel.exports.csv import results_csv

    s = with_change(costmodel.load_preset("seed-intro-32xA100"), "workload.parallelism", "best").scenario
    res = costmodel.evaluate(s)
    rows = {r["fabric"]: r for r in csv.DictReader(io.StringIO(results_csv(res)))}
    for f in res.fabrics:
        for k in ("layout_tp", "layout_pp", "layout_dp", "layout_zero", "layout_micro_seqs", "fits_memory"):
            assert float(rows[f.id][k]) == f.metrics[k], k
