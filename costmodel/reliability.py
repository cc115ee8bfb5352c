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
