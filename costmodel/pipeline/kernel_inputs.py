"""The GPU's kernel figures as model inputs: what :mod:`costmodel.physics.gemm_efficiency` reads."""

from __future__ import annotations

import numpy as np

from costmodel.catalog.loader import Catalog

GIGA = 1e9  # GB/s → B/s


def kernel_arrays(cat: Catalog, gpu: str) -> dict[str, np.ndarray]:
    """The GPU's kernel figures and the layer constants of ``data/gemm_efficiency.yaml``, ``(1, 1)``."""
    k, const = cat.kernels[gpu], {n: q.typical for n, q in cat.kernel_constants.items()}
    return {name: np.full((1, 1), float(v)) for name, v in dict(
        gemm_share=k.mamf_share.typical, gemm_sms=k.sm_count.typical, attn_share=k.attention_efficiency.typical,
        hbm_Bps=k.hbm_gbs.typical * GIGA * const["hbm_efficiency"], tile_m=const["tile_m"], tile_n=const["tile_n"],
        act_bytes_h=const["activation_bytes_per_h"], replicated_bytes_h=const["replicated_bytes_per_h"],
        score_bytes=const["score_bytes_per_head"],
        head_dim=cat.model["attention_head_dim"].typical, passes_fwd=const["passes_forward"],
        passes_bwd=const["passes_backward"],
    ).items()}
