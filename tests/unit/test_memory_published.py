"""GPU memory of a layout: the published layouts that ran fit, one that cannot run does not, and the
memory moves the way physics says it must as the workload and the sharding change.

Published: Llama 3 405B on 16,384 H100 (TP 8 × PP 16 × DP 128, 8 k sequences, no activation
checkpointing, FSDP sharding optimizer state and gradients; arXiv:2407.21783 sec. 3.3.2, Table 4)
and DeepSeek-V3 on 2,048 H800 (PP 16 × EP 64 × DP 128, DualPipe, FP8; arXiv:2412.19437).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.evidence import runs
from costmodel.physics import layout

RUNS = {r["id"]: r for r in runs.load_runs()}


def _memory(run_id: str) -> dict:
    r = RUNS[run_id]
    return costmodel.evaluate(runs.scenario_of(r), catalog=runs.catalog_of(r)).fabrics[0].metrics


def test_the_published_layouts_fit_in_memory():
    for run_id in ("llama3-405b-16k", "deepseek-v3"):
        m = _memory(run_id)
        assert m["memory_gb_per_gpu"] <= m["memory_usable_gb"], (run_id, m["memory_gb_per_gpu"])
        assert m["fits_memory"] == 1.0


def test_a_405b_model_without_model_parallelism_does_not_fit_an_80_gb_gpu():
    # 405 B parameters on one GPU's worth of model state: 810 GB of BF16 weights alone
    w = dict(RUNS["llama3-405b-16k"]["workload"], tensor_parallel=1, pipeline_stages=1, parallelism="dp")
    w["global_batch_tokens_m"] = w.pop("global_batch_seqs") * w["seq_len"] / 1e6
    s = costmodel.scenario_from_dict({"cluster": {"nodes": 2048, "gpu": "h100"}, "workload": w,
                                      "fabrics": ["roce-400"], "baseline": "roce-400"})
    m = costmodel.evaluate(s).fabrics[0].metrics
    assert m["fits_memory"] == 0.0 and m["memory_gb_per_gpu"] > 10 * m["memory_usable_gb"]


def test_the_llama_layout_needs_its_published_sharding():
    """Without sharding the gradients (ZeRO-1 instead of Llama 3's stage 2) the same layout does
    not fit: the fit is the sharding as run, not a loose memory model."""
    r = dict(RUNS["llama3-405b-16k"], workload={**RUNS["llama3-405b-16k"]["workload"], "zero_stage": 1})
    m = costmodel.evaluate(runs.scenario_of(r)).fabrics[0].metrics
    assert m["memory_gb_per_gpu"] > m["memory_usable_gb"]


# --- laws: memory grows with the work a GPU holds and shrinks with the sharding

def _args(**over) -> dict:
    base = dict(nodes=64.0, gpus_per_node=8.0, tp=8.0, pp=4.0, vp=1.0, zero=1.0, micro_seqs=1.0, seq_len=4096.0,
                batch_tokens=64e6, params=70e9, n_layers=80.0, hidden=8192.0, recompute=0.0, param_bytes=2.0,
                grad_bytes=2.0, active_params=70e9, experts=0.0, top_k=0.0, ep=1.0, scores=0.0, head_dim=128.0,
                linear_bytes=2.0, dualpipe=0.0, extra_weight_bytes=0.0)
    return {k: np.asarray(float(v)) for k, v in {**base, **over}.items()}


def _mem(**over) -> float:
    """Memory per GPU [B]; the batch (15,625 sequences) leaves every replica whole micro-batches."""
    return float(layout.memory_of(_args(**over)))


LAYOUT = st.fixed_dictionaries({
    "tp": st.sampled_from([1.0, 2.0, 4.0, 8.0]), "pp": st.sampled_from([1.0, 2.0, 4.0, 8.0]),
    "vp": st.sampled_from([1.0, 2.0, 4.0]), "zero": st.sampled_from([0.0, 1.0, 2.0, 3.0]),
    "micro_seqs": st.sampled_from([1.0, 2.0, 4.0]), "recompute": st.sampled_from([0.0, 1.0]),
    "scores": st.sampled_from([0.0, 1.0]), "linear_bytes": st.sampled_from([1.0, 2.0]),
    "dualpipe": st.sampled_from([0.0, 1.0]), "experts": st.sampled_from([0.0, 64.0]),
})


def _fix(lay: dict) -> dict:
    lay = dict(lay)
    if lay["pp"] == 1.0:
        lay["vp"], lay["dualpipe"] = 1.0, 0.0
    if lay["experts"]:
        lay.update(active_params=12e9, top_k=8.0, ep=8.0)
    return lay


@settings(max_examples=60, deadline=None)
@given(lay=LAYOUT, grow=st.floats(1.01, 4.0))
def test_memory_never_falls_as_sequences_micro_batches_or_parameters_grow(lay, grow):
    lay = _fix(lay)
    base = _mem(**lay)
    assert _mem(**{**lay, "seq_len": 4096.0 * grow}) >= base * (1 - 1e-12)
    assert _mem(**{**lay, "micro_seqs": lay["micro_seqs"] * 2}) >= base * (1 - 1e-12)
    assert _mem(**{**lay, "params": 70e9 * grow, "active_params": lay.get("active_params", 70e9) * grow}) \
        >= base * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(lay=LAYOUT)
def test_memory_never_rises_with_more_tensor_pipeline_or_zero_sharding(lay):
    """On the same GPUs: twice the tensor split, a higher ZeRO stage, or (1F1B or DualPipe; the
    interleaved schedule's in-flight factor 1 + (p−1)/(p v) grows with p) twice the stages."""
    lay = _fix(lay)
    base = _mem(**lay)
    if lay["tp"] < 8.0:
        assert _mem(**{**lay, "tp": lay["tp"] * 2}) <= base * (1 + 1e-12)
    if lay["zero"] < 3.0:
        assert _mem(**{**lay, "zero": lay["zero"] + 1}) <= base * (1 + 1e-12)
    if lay["vp"] == 1.0 or lay["dualpipe"]:
        assert _mem(**{**lay, "pp": lay["pp"] * 2}) <= base * (1 + 1e-12)
