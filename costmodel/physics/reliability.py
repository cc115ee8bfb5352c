"""Interruptions, checkpoint interval and goodput of a synchronous training job.

Failures are Poisson with job rate ``Λ`` [1/h]; the job MTBF is ``M = 1/Λ``. A checkpoint takes
``δ`` seconds to write, a restart ``R`` seconds. Arrays broadcast; times are in seconds unless a
name says otherwise.

References
----------
.. [1] J.W. Young, "A first order approximation to the optimum checkpoint interval",
   Commun. ACM 17(9):530-531, 1974. doi:10.1145/361147.361115
.. [2] J.T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
   dumps", Future Generation Computer Systems 22(3):303-312, 2006.
   doi:10.1016/j.future.2004.11.016
.. [3] A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, Table 5.
"""

from __future__ import annotations

import numpy as np

from costmodel.physics import poisson


def young_interval(save_s, mtbf_s):
    """Young's (1974) optimum compute time between checkpoints, ``sqrt(2 δ M)`` [s].

    >>> round(float(young_interval(60.0, 3600.0 * 24)), 1)
    3219.9
    """
    return np.sqrt(2.0 * np.asarray(save_s, float) * np.asarray(mtbf_s, float))


def daly_interval(save_s, mtbf_s):
    """Daly's (2006) higher-order optimum compute time between checkpoints [s].

    Parameters
    ----------
    save_s : checkpoint write time ``δ`` [s]
    mtbf_s : job mean time between failures ``M`` [s]

    Returns
    -------
    ``τ = sqrt(2δM) [1 + (1/3) sqrt(δ/(2M)) + (1/9) δ/(2M)] − δ`` for ``δ < 2M``, else ``M``
    (Daly 2006, eq. 37) [s].

    >>> round(float(daly_interval(60.0, 86400.0)), 1)
    3180.1
    >>> float(daly_interval(500.0, 100.0))
    100.0
    """
    d = np.asarray(save_s, dtype=float)
    m = np.asarray(mtbf_s, dtype=float)
    x = d / (2.0 * m)
    tau = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return np.where(d < 2.0 * m, tau, m)


def goodput(interval_s, save_s, restart_s, mtbf_s):
    """Share of wall time that advances the job, under exponential failures [0-1].

    Daly's (2006, eq. 13) expected wall time for solve time ``T_s`` is
    ``T_w = M e^{R/M} (e^{(τ+δ)/M} − 1) T_s / τ``; goodput is ``T_s / T_w``. Without failures
    (``M → ∞``) it tends to ``τ / (τ + δ)``.

    >>> round(float(goodput(3600.0, 60.0, 600.0, 1e12)), 6)
    0.983607
    """
    tau = np.asarray(interval_s, dtype=float)
    m = np.asarray(mtbf_s, dtype=float)
    d = np.asarray(save_s, dtype=float)
    r = np.asarray(restart_s, dtype=float)
    with np.errstate(over="ignore"):
        wall = m * np.exp(r / m) * np.expm1((tau + d) / m)
    return tau / wall  # 0 when the expected wall time overflows: the job never finishes


def job_failure_rate(nodes, gpus_per_node, endpoints, gpu_rate, node_rate, endpoint_rate):
    """Job-interrupting failure rates [1/h]: ``(total, network)``.

    ``Λ = N g λ_gpu + N λ_node + E λ_net``; the network part ``E λ_net`` counts NIC, cable and
    switch faults per NIC port (Llama 3: 42 of 419 unexpected interruptions).
    """
    network = endpoints * endpoint_rate
    total = nodes * gpus_per_node * gpu_rate + nodes * node_rate + network
    return total, network


# --- reliability by fabric: failures per component, restart by cause, hot spares

#: causes of a job interruption, in the order tables list them
CAUSES = ("gpu", "host", "nic", "links", "switches", "soft")
#: per-fabric metrics of :func:`costmodel.pipeline.stages.reliability.cause_metrics`
RELIABILITY_METRIC_KEYS = (
    *(f"interruptions_{c}_per_year" for c in CAUSES), *(f"restart_hours_{c}" for c in CAUSES),
    "restart_hours", "spare_nodes", "no_spare_share", "setup_hours_per_run", "setup_share_of_run",
)


def link_failure_rate(counts, rates, transceivers, xcvr_rate):
    """Failures of cables and optics [1/h]: ``Σ_c L_c λ_c + X λ_x``.

    ``counts`` and ``rates`` map the media classes ``dac``, ``aec``, ``aoc`` to installed links
    [count] and failures per cable-hour [1/h]; a fibre link fails through its two transceivers
    ``X`` (rate ``λ_x`` each, the fibre and connectors included).

    >>> rate = link_failure_rate({"dac": 10.0, "aec": 0.0, "aoc": 2.0}, {"dac": 1e-8, "aec": 1e-7, "aoc": 5e-7},
    ...                          4.0, 2.5e-7)
    >>> round(float(rate) * 1e6, 9)
    2.1
    """
    total = np.asarray(transceivers, dtype=float) * xcvr_rate
    for c in ("dac", "aec", "aoc"):
        total = total + np.asarray(counts[c], dtype=float) * rates[c]
    return total


def hot_spares(nodes, frac):
    """Hot-spare servers bought: ``⌈frac · N⌉`` [count] (a share of the nodes, rounded up).

    >>> hot_spares(np.array([8.0, 100.0]), 0.01).tolist()
    [1.0, 1.0]
    >>> float(hot_spares(8.0, 0.0))
    0.0
    """
    return np.ceil(np.asarray(frac, dtype=float) * np.asarray(nodes, dtype=float) - 1e-9).clip(min=0.0)


def no_spare_probability(mean_in_repair, spares):
    """Share of node-replacing failures that find no hot spare free: ``P(K ≥ s)`` [0-1].

    Failed servers are repaired in parallel (an M/G/∞ repair shop), so the number in repair
    ``K`` is Poisson with mean ``μ = Λ_repl · T_repair``; a failure finds a spare iff ``K < s``.

    >>> round(float(no_spare_probability(0.5, 1)), 6)  # 1 − e^{−0.5}
    0.393469
    >>> float(no_spare_probability(3.0, 0))
    1.0
    """
    mu = np.asarray(mean_in_repair, dtype=float)
    s = np.asarray(spares, dtype=float)
    mu, s = np.broadcast_arrays(mu, s)
    # beyond μ + 12√μ + 30 spares the tail is below 1e-30: sum the Poisson pmf only that far, in logs
    # (e^{−μ} alone would underflow for μ > 745)
    kmax = int(np.max(np.minimum(s, np.ceil(mu + 12.0 * np.sqrt(mu) + 30.0)), initial=0.0))
    log_mu = np.log(np.maximum(mu, 1e-300))  # μ = 0: every pmf but k = 0 underflows to 0
    if mu.size * kmax <= _BLOCK:  # small batch (one scenario): every k in one array op
        k = np.arange(kmax, dtype=float).reshape((-1,) + (1,) * mu.ndim)
        log_fact = poisson.log_factorial(kmax)[:kmax]  # ln k!, each to the last bit (as the large batch's)
        log_pmf = k * log_mu - mu - log_fact.reshape(k.shape)
        return np.clip(1.0 - np.where(k < s, np.exp(log_pmf), 0.0).sum(axis=0), 0.0, 1.0)
    # large batch (sweep, Monte Carlo): each row sums only its own terms that matter
    return poisson.tail(mu, s).reshape(mu.shape)


_BLOCK = 1 << 16  # numbers (k × batch) up to which no_spare_probability sums every k at once


def mean_restart(rates, restart_by_cause):
    """Rate-weighted mean restart time ``R̄ = Σ Λ_c R_c / Σ Λ_c`` [s].

    >>> float(mean_restart({"a": 1.0, "b": 3.0}, {"a": 100.0, "b": 500.0}))
    400.0
    """
    total = sum(np.asarray(rates[c], dtype=float) for c in rates)
    weighted = sum(np.asarray(rates[c], dtype=float) * restart_by_cause[c] for c in rates)
    return weighted / total
