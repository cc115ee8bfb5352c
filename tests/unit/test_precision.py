"""The workload's precision and recomputation as the model runs them: FP8 computes at the GPU's FP8
peak times the sourced efficiency ratio, caches the linear layers' inputs in one byte and keeps an
FP8 weight copy; recomputation none / selective / full orders memory and FLOPs as Korthikanti et al.
(arXiv:2205.05198) give them."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.physics import transformer
from costmodel.pipeline.inputs import build
from costmodel.scenario.changes import with_change

CAT = load_catalog()
PRESET = "seed-case3-128xH100"


def _metrics(**changes) -> dict:
    s = costmodel.load_preset(PRESET)
    for path, value in changes.items():
        s = with_change(s, f"workload.{path}", value).scenario
    return costmodel.evaluate(s).fabrics[0].metrics


def test_fp8_computes_at_its_peak_times_the_efficiency_ratio():
    """At a typed kernel efficiency FP8 runs at its peak × the efficiency ratio; from the matrix shapes the
    memory-bound part of a layer does not speed up, so the gain is smaller, never larger."""
    bf16, fp8 = _metrics(compute_efficiency=0.5), _metrics(precision="fp8", compute_efficiency=0.5)
    gpu = CAT.gpus["h100"]
    speed = gpu.peak_fp8_tflops.typical / gpu.peak_bf16_tflops.typical * CAT.model["fp8_efficiency_ratio"].typical
    assert bf16["compute_time_s"] / fp8["compute_time_s"] == pytest.approx(speed, rel=1e-9)
    assert 1.2 < speed < 1.8  # FP8-LM: Transformer Engine's FP8 ran 1.28–1.40× BF16 end to end
    shaped = _metrics()["compute_time_s"] / _metrics(precision="fp8")["compute_time_s"]
    assert 1.0 < shaped <= speed * (1 + 1e-12)


def test_fp8_memory_is_its_activations_in_fp8_plus_a_weight_copy():
    """FP8 stores the linear layers' inputs (14 of the 32 bytes per s·b·h/t) in 1 byte instead of 2
    (DeepSeek-V3 sec. 3.3.3) and adds a 1-byte weight copy per parameter (Transformer Engine)."""
    bf16, fp8 = _metrics(), _metrics(precision="fp8")
    p = build(costmodel.load_preset(PRESET)).inputs
    t, pp, vp, m, b = (bf16[k] for k in ("layout_tp", "layout_pp", "layout_vp", "layout_microbatches",
                                          "layout_micro_seqs"))
    held = float(transformer.held_layer_microbatches(float(p.n_layers[0, 0]), pp, vp, m))
    saved = 14 / 2 * float(p.seq_len[0, 0]) * b * float(p.hidden[0, 0]) / t * held
    copy = CAT.model["low_precision_weight_copy_bytes"].typical * float(p.params[0, 0]) / (t * pp)
    assert (fp8["memory_gb_per_gpu"] - bf16["memory_gb_per_gpu"]) * 1e9 == pytest.approx(copy - saved, rel=1e-9)


def test_recomputation_orders_memory_and_flops():
    none, selective, full = (_metrics(recompute=m) for m in ("none", "selective", "full"))
    assert none["memory_gb_per_gpu"] > selective["memory_gb_per_gpu"] > full["memory_gb_per_gpu"]
    extra = CAT.model["selective_recompute_flops_frac"].typical
    assert none["hfu"] == pytest.approx(none["mfu"], rel=1e-12)
    assert selective["hfu"] == pytest.approx(selective["mfu"] * (1 + extra), rel=1e-12)
    assert full["hfu"] == pytest.approx(full["mfu"] * 4 / 3, rel=1e-12)


def test_the_old_full_recompute_switch_still_means_full():
    assert _metrics(full_recompute=True)["hfu"] == pytest.approx(_metrics(recompute="full")["hfu"], rel=1e-12)
