"""Serving sizing: the batch each instance runs under the SLA, the servers that meet a demand, and
what a million tokens costs, per fabric. One vectorised pass over arrays that broadcast.

Shapes: every field of :class:`~costmodel.serving.inputs.ServingInputs` broadcasts with the others
(fabric figures typically ``(F,)`` or ``(1, F)``, demand levels ``(D, 1)``, Monte Carlo draws
``(S, 1)``); the candidate batch sizes add a trailing axis internally and are reduced away. Every
result is an array of the broadcast shape. Units: seconds, requests per second, tokens, servers,
currency per hour and per million tokens.

The equations, each with its source, are in docs/model.md, section "Serving".
"""

from __future__ import annotations

import numpy as np

from costmodel.serving import physics
from costmodel.serving.inputs import ServingInputs
from costmodel.serving.money import costs

SECONDS_PER_HOUR = 3600.0  # a unit conversion


def instance_gpus(x: ServingInputs) -> tuple[np.ndarray, np.ndarray]:
    """GPUs of one instance and its servers [count]: the fewest servers whose usable memory holds the
    weights and one sequence of the mean prompt plus output, or ``instance_servers`` when larger."""
    kv = physics.kv_bytes_per_token(x.n_layers, x.kv_heads, x.head_dim, x.kv_latent, x.kv_bytes)
    need = x.total_params * x.weight_bytes + kv * (x.prompt + x.output)
    per_server = x.gpus_per_server * x.memory_bytes * x.memory_utilization
    servers = np.maximum(np.ceil(need / per_server), x.instance_servers)
    return servers * x.gpus_per_server, servers


def _link(x: ServingInputs) -> dict[str, np.ndarray]:
    return {"latency_s": x.latency_s, "post_s": x.post_s, "message_rate": x.message_rate, "a2a_Bps": x.a2a_Bps,
            "gpu_Bps": x.gpu_Bps, "nvlink_Bps": x.nvlink_Bps,
            "nvlink_latency_s": x.nvlink_latency_s}


def _shape(x: ServingInputs) -> dict[str, np.ndarray]:
    return {"n_layers": x.n_layers, "moe_layers": x.moe_layers, "experts": x.experts, "top_k": x.top_k,
            "hidden": x.hidden}


def prefill_s(x: ServingInputs, gpus, kv) -> tuple[np.ndarray, np.ndarray]:
    """Prefill of one prompt on one instance [s] (compute at the prefill MFU plus its exposed
    communication) and, for disaggregated serving, the KV transfer to the decode instance [s]."""
    flops = physics.prefill_flops(x.active_params, x.n_layers, x.heads, x.head_dim, x.prompt)
    compute = flops / (gpus * x.peak_flops * x.prefill_mfu)
    comm = physics.comm_s(_shape(x), x.prompt, gpus, x.domain_gpus, _link(x), x.dispatch_bytes,
                          x.combine_bytes, x.combine_bytes)
    return compute + comm, physics.kv_transfer_s(x.prompt, kv, x.n_layers, gpus, _link(x))


def decode_step_s(x: ServingInputs, gpus, kv, batch) -> np.ndarray:
    """One decode step of ``batch`` sequences on one instance [s]: the slower of reading HBM (weights
    and KV at the mean context ``L_p + L_out/2``) and computing, plus the step's communication."""
    ctx = x.prompt + 0.5 * x.output
    read = physics.step_read_bytes(x.total_params, x.active_params, x.experts, x.top_k, x.weight_bytes, batch,
                                   ctx, kv)
    t_mem = read / (gpus * x.hbm_Bps * x.hbm_efficiency)
    flops = batch * (2.0 * x.active_params + physics.attention_flops(x.n_layers, x.heads, x.head_dim, ctx))
    t_cmp = flops / (gpus * x.peak_flops * x.decode_mfu)
    comm = physics.comm_s(_shape(x), batch, gpus, x.domain_gpus, _link(x), x.dispatch_bytes, x.combine_bytes,
                          x.combine_bytes)
    return np.maximum(t_mem, t_cmp) + comm


def operating_point(x: ServingInputs) -> dict[str, np.ndarray]:
    """Each instance at the largest grid batch that meets the TPOT target and fits memory.

    Colocated (chunked prefill [4]): a step also carries the prompts of the ``B / L_out`` requests
    that start per step, ``TPOT = t_step(B) + (B / L_out) t_prefill``; disaggregated: ``TPOT =
    t_step(B)`` on the decode instance. ``batch`` is NaN and ``reachable`` False where no batch meets
    TPOT or TTFT (``t_prefill``, plus the KV transfer when disaggregated) exceeds its target.
    """
    gpus, servers = instance_gpus(x)
    kv = physics.kv_bytes_per_token(x.n_layers, x.kv_heads, x.head_dim, x.kv_latent, x.kv_bytes)
    t_pf, t_kv = prefill_s(x, gpus, kv)
    disagg = np.asarray(x.disaggregated) > 0
    ex = _last_axis
    b = x.batch_grid
    t_step = decode_step_s(_expand(x), ex(gpus), ex(kv), b)
    tpot_b = t_step + np.where(ex(disagg), 0.0, b / ex(x.output) * ex(t_pf))
    free = gpus * x.memory_bytes * x.memory_utilization - x.total_params * x.weight_bytes
    fits = b <= ex(free / (kv * (x.prompt + x.output)))
    ok = fits & (tpot_b <= ex(x.tpot_s))
    idx = np.where(ok.any(axis=-1), b.size - 1 - np.argmax(ok[..., ::-1], axis=-1), 0)
    found = ok.any(axis=-1)

    def take(a):
        return np.take_along_axis(np.broadcast_to(a, ok.shape), idx[..., None], axis=-1)[..., 0]

    ttft = t_pf + np.where(disagg, t_kv, 0.0)
    reachable = found & (ttft <= x.ttft_s)
    batch = np.where(found, take(np.broadcast_to(b, ok.shape)), np.nan)
    return {"instance_gpus": gpus, "instance_servers": servers, "kv_bytes_per_token": kv, "prefill_s": t_pf,
            "kv_transfer_s": np.where(disagg, t_kv, 0.0), "ttft_s": ttft, "batch": batch,
            "step_s": np.where(found, take(t_step), np.nan), "tpot_s": np.where(found, take(tpot_b), np.nan),
            "reachable": reachable, "disaggregated": np.broadcast_to(disagg, reachable.shape)}


def _last_axis(a) -> np.ndarray:
    """``a`` as floats with a trailing unit axis, to meet the batch grid."""
    return np.asarray(a, dtype=float)[..., None]


def _expand(x: ServingInputs) -> ServingInputs:
    """``x`` with a trailing unit axis on every array."""
    return x.map(_last_axis)


def _instances(rps, capacity) -> np.ndarray:
    """Instances of one role that serve ``rps`` at ``capacity`` each, at least one [count]."""
    return np.maximum(1.0, np.ceil(rps / capacity))


def serve(x: ServingInputs) -> dict[str, np.ndarray]:
    """Every serving answer of ``x``: the operating point (:func:`operating_point`), the capacity of
    an instance [requests/s], the servers that meet the peak demand under the SLA (∞ where it is
    unreachable), tokens/s per GPU, and the costs (:func:`costmodel.serving.money.costs`).

    Servers: colocated ``n_inst · max(1, ⌈λ_peak / C⌉)`` with ``C = B / (L_out · TPOT)``;
    disaggregated ``n_inst · (max(1, ⌈λ_peak / C_pf⌉) + max(1, ⌈λ_peak / C_dec⌉))`` with
    ``C_pf = 1 / t_prefill`` and ``C_dec = B / (L_out · t_step)``. Zero demand keeps the minimum
    deployment (one instance of each role): the idle cluster.
    """
    op = operating_point(x)
    disagg = op["disaggregated"]
    with np.errstate(invalid="ignore", divide="ignore"):
        cap = op["batch"] / (x.output * op["tpot_s"])  # decode (colocated: all) requests/s of an instance
        cap_pf = 1.0 / op["prefill_s"]
        n_pf, n_dec = _instances(x.peak_rps, cap_pf), _instances(x.peak_rps, cap)
        instances = np.where(disagg, n_pf + n_dec, n_dec)
        servers = np.where(op["reachable"], instances * op["instance_servers"], np.inf)
        prefill_share = np.where(disagg, n_pf / instances,
                                 op["batch"] / x.output * op["prefill_s"] / op["tpot_s"])
        out_tps = op["batch"] / op["tpot_s"] / op["instance_gpus"]
        fleet_tps = x.peak_rps * (x.prompt + x.output) / (servers * x.gpus_per_server)
    answers = {**op, "capacity_rps": cap, "prefill_capacity_rps": np.where(disagg, cap_pf, np.nan),
               "servers": servers,
               "gpus": servers * x.gpus_per_server, "prefill_share": np.where(op["reachable"], prefill_share, np.nan),
               "output_tokens_per_s_per_gpu": np.where(op["reachable"], out_tps, np.nan),
               "fleet_tokens_per_s_per_gpu": np.where(op["reachable"], fleet_tps, np.nan)}
    answers.update(costs(x, answers))
    shape = np.broadcast_shapes(*(np.shape(v) for v in answers.values()))
    return {k: np.broadcast_to(v, shape) for k, v in answers.items()}  # read-only views, one shape


__all__ = ["decode_step_s", "instance_gpus", "operating_point", "prefill_s", "serve"]
