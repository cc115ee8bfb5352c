"""Fitting a fabric's latency and bus bandwidth to the rows of an nccl-tests log (a :class:`Fit`).

Units: sizes in bytes, times in µs, bandwidths in GB/s (10⁹ B/s), as nccl-tests prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.physics.nccl_tests.records import Log, Note, refuse, settings


@dataclass(frozen=True)
class Fit:
    """The α–β fit of a :class:`Log`: ``t(size) = alpha_us + size·bus_factor / busbw_GBps`` [µs].

    ``busbw_GBps`` is the asymptotic bus bandwidth [GB/s], ``busbw_max_GBps`` the largest measured;
    ``rel_rms`` the relative RMS error of the line over the ``rows_used`` rows; ``warnings`` those
    of the log and of the fit.
    """

    log: Log
    alpha_us: float
    busbw_GBps: float  # GB/s, spelled as nccl-tests prints it
    busbw_max_GBps: float
    rel_rms: float
    rows_used: int
    warnings: tuple[Note, ...]

    def time_us(self, size_bytes) -> np.ndarray:
        """Time [µs] the fitted line gives for message sizes ``size_bytes`` [B] (broadcasts)."""
        x = np.asarray(size_bytes, dtype=float) * self.log.bus_factor
        return self.alpha_us + x / (self.busbw_GBps * 1e3)

    @property
    def summary(self) -> str:
        return self.log.summary

    def to_dict(self) -> dict:
        """JSON-safe summary to store with a scenario (numbers rounded to what the log can carry)."""
        log = self.log
        return {"collective": log.collective, "ranks": log.ranks, "hosts": log.hosts, "gpu": log.gpu,
                "nccl_version": log.nccl_version, "algorithm": log.algorithm, "placement": log.placement,
                "alpha_us": round(self.alpha_us, 3), "busbw_GBps": round(self.busbw_GBps, 3),
                "busbw_max_GBps": round(self.busbw_max_GBps, 3), "bus_factor": round(log.bus_factor, 6),
                "rel_rms": round(self.rel_rms, 4), "rows_used": self.rows_used, "summary": log.summary,
                "warnings": [w.code for w in self.warnings]}


def fit(log: Log) -> Fit:
    """Fit ``t = α + size·factor/B`` to ``log``'s rows (``factor``: the log's busbw/algbw).

    B [GB/s] is fitted on the bandwidth-bound rows (busbw at least ``bandwidth_rows_min_share`` of
    the largest), by least squares on relative errors (weights 1/t²) reweighted with Huber weights so
    that a stray row does not pull it; α [µs] is the median of ``t − size·factor/B`` over the
    latency-bound rows (transfer at most ``latency_rows_max_transfer_share`` of the shortest time). The mid
    sizes, where NCCL changes protocol, are left to the line: ``rel_rms`` shows how far they sit.
    """
    conf = settings()
    s = np.array([r.size for r in log.rows], dtype=float)
    t = np.array([r.time_us for r in log.rows])
    b = np.array([r.busbw for r in log.rows])
    x = s * log.bus_factor  # bytes on the bus
    bmax = float(b.max())
    band = b >= conf["bandwidth_rows_min_share"] * bmax
    if band.sum() < 2:
        band = s >= np.sort(s)[-2]
    beta, alpha_band = _robust_line(x[band], t[band], conf["huber_k"])
    if not beta > 0:
        raise refuse("time does not grow with message size in the bandwidth-bound rows: the bandwidth "
                      "cannot be fitted", "nccl_log_unfittable")
    notes = list(log.notes)
    # latency-bound: the transfer term is a small share of the shortest time (a proxy for α that,
    # unlike each row's own time, a stray slow row cannot inflate)
    latency = beta * x <= conf["latency_rows_max_transfer_share"] * float(t.min())
    if latency.any():
        alpha = max(float(np.median(t[latency] - beta * x[latency])), 0.0)
    else:
        alpha = max(alpha_band, 0.0)
        notes.append(Note("nccl_note_no_small_rows", "no latency-bound rows (small messages): the latency is the "
                          "intercept of the large-message line and overstates NCCL's small-message latency; "
                          "run from -b 8"))
    rel = (t - alpha - beta * x) / t
    busbw = 1e-3 / beta  # B/µs → GB/s
    notes += _fit_notes(log, len(t), busbw, bmax, conf)
    return Fit(log=log, alpha_us=alpha, busbw_GBps=busbw, busbw_max_GBps=bmax,
               rel_rms=float(np.sqrt(np.mean(rel ** 2))), rows_used=len(t), warnings=tuple(notes))


def _robust_line(x: np.ndarray, t: np.ndarray, k: float, rounds: int = 20) -> tuple[float, float]:
    """(β [µs/B], α [µs]) of ``t ≈ α + βx`` minimising relative errors with Huber reweighting;
    α ≥ 0 (a negative intercept refits the line through the origin)."""
    w = np.ones_like(t)
    alpha = beta = 0.0
    for _ in range(rounds):
        sw = np.sqrt(w)
        design = np.column_stack([sw / t, sw * x / t])
        (alpha, beta), *_ = np.linalg.lstsq(design, sw, rcond=None)
        if alpha < 0:
            alpha, beta = 0.0, float(np.sum(w * x / t) / np.sum(w * (x / t) ** 2))
        r = (t - alpha - beta * x) / t
        scale = 1.4826 * float(np.median(np.abs(r - np.median(r))))
        if scale <= 1e-9:
            break
        new = np.minimum(1.0, k * scale / np.maximum(np.abs(r), 1e-300))
        if np.allclose(new, w, atol=1e-6):
            break
        w = new
    return float(beta), float(alpha)


def _fit_notes(log: Log, n_rows: int, busbw: float, bmax: float, conf: dict) -> list[Note]:
    """Warnings about a fit: one or two nodes, few rows, a bandwidth [GB/s] beyond the largest measured."""
    notes = []
    if log.hosts == 1:
        notes.append(Note("nccl_note_single_node", "single node: this log measures NVLink/PCIe inside one "
                          "server, not the fabric"))
    elif log.hosts is not None and log.hosts < conf["ring_min_hosts"]:
        if log.collective in ("alltoall", "sendrecv"):
            notes.append(Note("nccl_note_two_nodes_nvlink", f"{log.hosts} nodes: part of each rank's traffic stays "
                              "on NVLink, so busbw can exceed the NIC line rate (nccl-tests #321); measure on more "
                              "nodes", {"hosts": log.hosts}))
        elif log.collective in (None, "all_reduce") and (log.algorithm or "") != "ring":
            notes.append(Note("nccl_note_two_nodes_tree", f"{log.hosts} nodes: NCCL may use tree/NVLS and "
                              "overstate the network; measure on ≥ 3 nodes or with NCCL_ALGO=Ring "
                              "(nccl-tests #196)", {"hosts": log.hosts}))
    if n_rows < conf["few_rows"]:
        notes.append(Note("nccl_note_few_rows", f"only {n_rows} rows: the fit rests on few points",
                          {"rows": n_rows}))
    if busbw > conf["extrapolation_warn"] * bmax:
        notes.append(Note("nccl_note_extrapolated", f"the fitted {busbw:.1f} GB/s is beyond the largest measured "
                          f"{bmax:.1f} GB/s: busbw was still rising; run larger sizes (-e 8G)",
                          {"fitted": round(busbw, 1), "measured": round(bmax, 1)}))
    return notes
