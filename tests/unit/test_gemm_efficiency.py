"""The kernel efficiency from a layer's matrix shapes: its laws, its wiring, and Korthikanti's per-layer times."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.physics import gemm_efficiency as ge
from costmodel.pipeline.kernel_inputs import kernel_arrays

CAT = load_catalog()


def _kernel(gpu: str = "a100-80", **over) -> dict:
    k = {n: float(v.ravel()[0]) for n, v in kernel_arrays(CAT, gpu).items()}
    return {**k, "fused_attention": 1.0, "sequence_parallel": 1.0, **over}


def _share(h, t, tokens, seq, rec=0.0, gpu="a100-80", **over):
    peak = CAT.gpus[gpu].peak_bf16_tflops.typical * 1e12
    return ge.layer_share(h, t, tokens, seq, rec, peak_flops=peak, **_kernel(gpu, **over))


SHAPES = dict(h=st.sampled_from([1024.0, 2048.0, 4096.0, 5120.0, 8192.0, 12288.0, 16384.0, 25600.0]),
              t=st.sampled_from([1.0, 2.0, 4.0, 8.0]), b=st.sampled_from([1.0, 2.0, 4.0]),
              seq=st.sampled_from([1024.0, 2048.0, 4096.0, 8192.0]), rec=st.sampled_from([0.0, 1.0]),
              gpu=st.sampled_from(sorted(CAT.gpus)))


@settings(max_examples=80, deadline=None)
@given(**SHAPES)
def test_the_share_is_below_the_best_kernel_and_above_zero(h, t, b, seq, rec, gpu):
    k = _kernel(gpu)
    s = _share(h, t, b * seq, seq, rec, gpu)
    assert 0.0 < s <= max(k["gemm_share"], k["attn_share"]) + 1e-12


@settings(max_examples=80, deadline=None)
@given(**SHAPES)
def test_fusing_attention_splitting_norms_and_faster_memory_never_slow_a_layer(h, t, b, seq, rec, gpu):
    base = dict(fused_attention=0.0, sequence_parallel=0.0)
    s = _share(h, t, b * seq, seq, rec, gpu, **base)
    assert _share(h, t, b * seq, seq, rec, gpu, fused_attention=1.0, sequence_parallel=0.0) >= s * (1 - 1e-12)
    assert _share(h, t, b * seq, seq, rec, gpu, fused_attention=0.0, sequence_parallel=1.0) >= s * (1 - 1e-12)
    faster = _kernel(gpu)["hbm_Bps"] * 2.0
    assert _share(h, t, b * seq, seq, rec, gpu, hbm_Bps=faster, **base) >= s * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 20000), n=st.integers(1, 20000), gpu=st.sampled_from(sorted(CAT.gpus)))
def test_quantization_is_a_share_and_whole_waves_of_whole_tiles_lose_nothing(m, n, gpu):
    k = _kernel(gpu)
    q = ge.quantization(m, n, k["gemm_sms"], k["tile_m"], k["tile_n"])
    assert 0.0 < q <= 1.0
    whole = ge.quantization(k["tile_m"] * k["gemm_sms"], k["tile_n"], k["gemm_sms"], k["tile_m"], k["tile_n"])
    assert whole == pytest.approx(1.0)


def test_wider_layers_run_closer_to_peak():
    """The memory-bound work per token grows with h / t, the GEMM work with h² / t: a wider layer at the
    same tensor split spends a larger share of its time in GEMMs."""
    shares = [_share(h, 8.0, 2048.0, 2048.0, fused_attention=0.0) for h in (4096.0, 12288.0, 25600.0)]
    assert shares[0] < shares[1] < shares[2]


@pytest.mark.parametrize(("sp", "published_ms"), [(0.0, 19.6), (1.0, 19.0)])
def test_korthikanti_22b_layer_time(sp, published_ms):
    """Korthikanti et al. Table 4: one 22 B layer (h 6,144, TP 8, micro-batch 4 × 2,048, no recomputation),
    forward and backward 19.6 ms, 19.0 ms with sequence parallelism, tensor-parallel all-reduces included.
    The model: the layer's FLOPs at its shape efficiency plus four all-reduces of b s h over NVLink."""
    h, t, tokens = 6144.0, 8.0, 8192.0
    share = _share(h, t, tokens, 2048.0, fused_attention=0.0, sequence_parallel=sp)
    flops = 3.0 * (24.0 * h * h + 4.0 * 2048.0 * h) * tokens / t
    gpu = CAT.gpus["a100-80"]
    nvlink = gpu.intra_node_gbs.typical * 1e9 * CAT.model["nvlink_efficiency"].typical
    tp = 4.0 * 2.0 * (t - 1.0) / t * tokens * h * 2.0 / nvlink
    layer_ms = (flops / (gpu.peak_bf16_tflops.typical * 1e12 * share) + tp) * 1e3
    assert layer_ms == pytest.approx(published_ms, rel=0.05)


def _scenario(**workload) -> costmodel.Scenario:
    data = costmodel.Scenario().model_dump(mode="json")
    data["cluster"].update(nodes=8, gpu="h100")
    data["fabrics"], data["baseline"] = ["ib-ndr-400"], "ib-ndr-400"
    data["workload"].update(workload)
    return costmodel.scenario_from_dict(data)


def test_empty_means_from_the_shapes_and_a_typed_value_overrides():
    assert costmodel.Scenario().workload.compute_efficiency is None
    blank = costmodel.evaluate(_scenario()).fabrics[0].metrics
    typed = costmodel.evaluate(_scenario(compute_efficiency=0.42)).fabrics[0].metrics
    assert typed["kernel_efficiency"] == pytest.approx(0.42)
    h = float(np.cbrt(CAT.model["d_model_per_layer"].typical * 7e9 / 12.0))
    s = costmodel.Scenario().workload
    expected = _share(h, blank["layout_tp"], blank["layout_micro_seqs"] * s.seq_len, s.seq_len, gpu="h100")
    assert blank["kernel_efficiency"] == pytest.approx(float(expected), rel=1e-12)
    # the same layout at the shape efficiency typed in gives the same step
    again = costmodel.evaluate(_scenario(compute_efficiency=blank["kernel_efficiency"])).fabrics[0].metrics
    assert again["step_time_s"] == pytest.approx(blank["step_time_s"], rel=1e-12)


def test_every_gpu_has_its_kernel_figures_with_sources():
    assert set(CAT.kernels) == set(CAT.gpus)
    for k in CAT.kernels.values():
        assert 0.0 < k.mamf_share.typical < 1.0 and k.hbm_gbs.typical > 0 and k.sm_count.typical >= 1
