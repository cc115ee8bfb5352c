"""Layout search: per fabric, the fastest tensor × pipeline × data layout that fits GPU memory.

The candidates are every combination of the values in ``data/layout_grid.yaml`` (tensor
parallel ``t``, pipeline stages ``p``, interleaved chunks ``v`` (only with ``p > 1``), ZeRO
stage, sequences per micro-batch ``b``, full recomputation or not). A candidate is *whole* when
``t`` divides the ``D`` GPUs of the scale-up domain (the node's ``g`` where the two are one),
``p ≤`` nodes and ``p v ≤`` layers (uneven layer splits
allowed, as in Llama 3's 126 layers on 16 stages), ``d = N g / (t p)`` is whole and every
replica gets at least one whole micro-batch (``b ≤ B / (s d)``); it *fits* when weights,
gradients, optimizer state, activations and ZeRO-3's gathered layers (:mod:`costmodel.physics.transformer`)
take at most the GPU's memory less a reserve (``model.memory_reserve_frac``).

All candidates are evaluated in one call of :func:`costmodel.physics.performance.step_time` with a
trailing candidate axis ``(S, F, K)`` (rows in chunks when ``S F K`` is large, e.g. a Monte Carlo
batch); a candidate that is not whole or does not fit gets ``+∞``; the argmin over ``K`` is the
layout of each ``(S, F)``. Where no candidate fits, the whole candidate (else any) needing the
least memory is returned and ``found`` is False, so the figures stay finite and the views say so.

Units: memory [B]; the layout arrays are counts (``zero`` a stage 0–3, ``recompute`` 0/1).

References
----------
.. [1] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
   Using Megatron-LM", SC21, arXiv:2104.04473 (tensor parallel inside a node; 1F1B and the
   interleaved schedule).
.. [2] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
   MLSys 2023, arXiv:2205.05198 (activation memory).
.. [3] S. Rajbhandari et al., "ZeRO", SC20, arXiv:1910.02054 (state memory by stage).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from costmodel.arrays import compact
from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.errors import CatalogError
from costmodel.physics import performance, transformer

GRID_FILE = DATA_DIR / "layout_grid.yaml"
#: The keyword arguments of :func:`costmodel.physics.performance.step_time` a layout sets.
LAYOUT_KEYS = ("tp", "pp", "vp", "zero", "micro_seqs", "recompute")
#: Keys of a layout's arguments that only its memory reads (not the step time): attention scores
#: stored (1) or recomputed (0), the attention head width [elements], bytes of a cached linear-layer
#: input, DualPipe (1) or not, bytes per parameter of a cached low-precision weight copy.
MEMORY_KEYS = ("scores", "linear_bytes", "dualpipe", "extra_weight_bytes")  # head_dim: the kernels read it too
#: Elements of one ``(rows, F, K)`` array per chunk of the search (about 8 MB of float64).
CHUNK_ELEMENTS = 1 << 20
_TOL = 1e-9


@dataclass(frozen=True)
class Grid:
    """The candidate layouts, one ``(K,)`` array per name of :data:`LAYOUT_KEYS`."""

    tp: np.ndarray
    pp: np.ndarray
    vp: np.ndarray
    zero: np.ndarray
    micro_seqs: np.ndarray
    recompute: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in LAYOUT_KEYS}

    def __len__(self) -> int:
        return len(self.tp)


@dataclass(frozen=True)
class Found:
    """The layout chosen for each ``(S, F)``: ``args`` (the :data:`LAYOUT_KEYS` arrays) and
    ``found`` (False where no candidate of the grid is whole and fits memory)."""

    args: dict[str, np.ndarray]
    found: np.ndarray


@functools.cache
def load_grid(path: Path = GRID_FILE) -> Grid:
    """The candidates of ``data/layout_grid.yaml`` (read once; each list sourced and dated).

    >>> g = load_grid()
    >>> len(g) == 4 * (1 + 6 * 3) * 2 * 4 * 2
    True
    """
    with path.open(encoding="utf-8") as fh:
        raw = (yaml.load(fh, Loader=yaml.CSafeLoader) or {}).get("grid") or {}
    refs = load_catalog().references
    values = {}
    for key in LAYOUT_KEYS:
        entry = raw.get(key)
        if not isinstance(entry, dict) or not entry.get("values") or not entry.get("as_of"):
            raise CatalogError(f"{path.name}: grid.{key} needs values, source and as_of")
        if entry.get("source") not in refs:
            raise CatalogError(f"{path.name}: grid.{key}: unknown source key {entry.get('source')!r}")
        vals = [float(v) for v in entry["values"]]
        if any(v < 0 for v in vals) or (key != "recompute" and key != "zero" and any(v < 1 for v in vals)):
            raise CatalogError(f"{path.name}: grid.{key}: values must be at least 1 (zero, recompute: 0)")
        values[key] = vals
    rows = [c for c in itertools.product(*(values[k] for k in LAYOUT_KEYS))
            if not (c[1] == 1 and c[2] > 1)]  # interleaving needs two or more stages
    cols = np.array(rows, dtype=float).T
    return Grid(**dict(zip(LAYOUT_KEYS, cols, strict=True)))


def memory_bytes(args: dict, dp, micro_seqs, microbatches):
    """Memory per GPU of a layout [B]: state (ZeRO stage; routed experts split over ``ep`` and their
    state sharded over their ``d/ep`` replicas), activations of the first stage (the schedule's
    micro-batches in flight, :func:`costmodel.physics.transformer.held_layer_microbatches`) and
    ZeRO-3's gathered layers. ``args`` holds the keyword arguments of
    :func:`costmodel.physics.performance.step_time` and the :data:`MEMORY_KEYS`."""
    a = args
    tp, pp, vp = a["tp"], a["pp"], a["vp"]
    active = a["params"] if a.get("active_params") is None else a["active_params"]
    share = transformer.expert_share(a["params"], active, a.get("experts", 0.0), a.get("top_k", 0.0))
    ep = np.asarray(a.get("ep", 1.0), dtype=float)
    experts = a["params"] * share / ep
    dualpipe = a.get("dualpipe", 0.0)
    held = a["params"] * (1.0 - share) + experts  # the dense part and this GPU's experts
    state = transformer.state_bytes_per_gpu(
        held, tp, pp, dp, a["zero"], weight_bytes=a["param_bytes"],
        grad_bytes=a["grad_bytes"], expert_params=experts, ep=ep,
        weight_copies=np.where(np.asarray(dualpipe) > 0, 2.0, 1.0), extra_weight_bytes=a.get("extra_weight_bytes", 0.0))
    act = transformer.activation_bytes_per_gpu(
        a["seq_len"], micro_seqs, a["hidden"], a["n_layers"], tp, pp, vp, microbatches, a["recompute"],
        scores=a.get("scores", 0.0), head_dim=a.get("head_dim", np.inf),
        linear_bytes=a.get("linear_bytes", transformer.WEIGHT_BYTES),
        dualpipe=dualpipe)
    gathered = transformer.gathered_bytes_per_gpu(held, tp, a["n_layers"], a["zero"],
                                                  weight_bytes=a["param_bytes"])
    return state + act + gathered


def step_kwargs(args: dict) -> dict:
    """``args`` without the :data:`MEMORY_KEYS`: the keyword arguments of the step time."""
    return {k: v for k, v in args.items() if k not in MEMORY_KEYS}


def whole(args: dict):
    """True where the layout in ``args`` is one the search may choose: ``t`` divides the scale-up domain's
    ``D`` GPUs (``scaleup_gpus``, else the node's ``g``),
    ``p ≤ N``, ``p v ≤ l``, ``d = N g/(t p)`` whole and ``b ≤ B/(s d)`` (at least one micro-batch)."""
    a = args
    g, n, tp, pp = (np.asarray(a[k], dtype=float) for k in ("gpus_per_node", "nodes", "tp", "pp"))
    dom = np.asarray(a.get("scaleup_gpus", g), dtype=float)
    dp = n * g / (tp * pp)
    per_replica = a["batch_tokens"] / a["seq_len"] / dp
    return ((np.abs(dom / tp - np.round(dom / tp)) < _TOL) & (pp <= n) & (pp * a["vp"] <= a["n_layers"])
            & (np.abs(dp - np.round(dp)) < 1e-6) & (dp >= 1.0 - _TOL)
            & (a["micro_seqs"] <= per_replica * (1.0 + _TOL)))


def _memory_of(args: dict):
    """Memory per GPU [B] and wholeness of the layouts in ``args`` (no clamping of ``b``)."""
    dp = args["nodes"] * args["gpus_per_node"] / (args["tp"] * args["pp"])
    m = args["batch_tokens"] / args["seq_len"] / (dp * args["micro_seqs"])
    return memory_bytes(args, dp, args["micro_seqs"], m), whole(args)


def memory_of(args: dict) -> np.ndarray:
    """Memory per GPU [B] of the layout in ``args`` (the keyword arguments of
    :func:`costmodel.physics.performance.step_time`, arrays broadcasting to ``(S, F)``), with ``d`` and
    ``b = min(b, B/(s d))`` as the step time takes them; computed once per distinct row (a fixed
    layout's memory does not depend on the fabric), returned at the full shape."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in args.values()))
    a = {k: compact(v if np.ndim(v) == len(shape) else np.broadcast_to(v, shape))  # (k, S, F) already: no broadcast
         for k, v in ((k, np.asarray(v, dtype=float)) for k, v in args.items())}
    dp = a["nodes"] * a["gpus_per_node"] / (a["tp"] * a["pp"])
    seqs = a["batch_tokens"] / a["seq_len"]
    b = np.minimum(a["micro_seqs"], seqs / dp)
    return np.broadcast_to(memory_bytes(a, dp, b, seqs / (dp * b)), shape)


def _rows(a: np.ndarray, sl: slice) -> np.ndarray:
    return a if a.shape[0] == 1 else a[sl]


def search(args: dict, usable_bytes, grid: Grid | None = None) -> Found:
    """The fastest whole layout that fits ``usable_bytes`` per GPU, for each ``(S, F)``.

    Parameters
    ----------
    args : the keyword arguments of :func:`costmodel.physics.performance.step_time` (arrays that broadcast
        to ``(S, F)``); those of :data:`LAYOUT_KEYS` are replaced by the candidates.
    usable_bytes : GPU memory less the reserve [B], broadcasting to ``(S, F)``.
    grid : the candidates (default: :func:`load_grid`).

    Returns
    -------
    Found
    """
    cand = (grid or load_grid()).arrays()
    shape = np.broadcast_shapes(*(np.shape(v) for v in args.values()), np.shape(usable_bytes))
    if len(shape) != 2:
        raise ValueError(f"search expects (S, F) inputs, got shape {shape}")
    n_rows, n_fab = shape
    base = {k: compact(np.broadcast_to(np.asarray(v, dtype=float), shape))[..., None]
            for k, v in args.items() if k not in LAYOUT_KEYS}
    usable = compact(np.broadcast_to(np.asarray(usable_bytes, dtype=float), shape))[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mem, ok = _memory_of({**base, **cand})
        fits = ok & (mem <= usable)  # (S or 1, F or 1, K): memory rarely depends on the fabric
        keep = np.flatnonzero(fits.any(axis=(0, 1)))
        # where nothing fits: the whole candidate needing the least memory, else any
        fallback = np.argmin(np.where(ok, mem, np.inf), axis=-1)
        fallback = np.where(ok.any(axis=-1), fallback, np.argmin(mem, axis=-1))
        best = np.broadcast_to(fallback, shape).copy()
        found = np.zeros(shape, dtype=bool)
        if keep.size:
            sub = {k: v[keep] for k, v in cand.items()}
            fits_k = fits[..., keep]
            step = max(1, CHUNK_ELEMENTS // (n_fab * keep.size))
            for start in range(0, n_rows, step):
                sl = slice(start, min(n_rows, start + step))
                t = performance.step_time(**{k: _rows(v, sl) for k, v in step_kwargs(base).items()}, **sub)["t_step"]
                key = np.where(_rows(fits_k, sl), t, np.inf)
                key = np.broadcast_to(key, (sl.stop - sl.start, n_fab, keep.size))
                idx = np.argmin(key, axis=-1)
                ok_rows = np.isfinite(np.take_along_axis(key, idx[..., None], axis=-1)[..., 0])
                best[sl] = np.where(ok_rows, keep[idx], best[sl])
                found[sl] = ok_rows
    return Found(args={k: v[best] for k, v in cand.items()}, found=found)
