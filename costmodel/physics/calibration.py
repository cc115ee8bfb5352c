"""A fabric's nccl-tests measurement in a scenario: what is stored, and what the model reads from it.

:func:`measurement` turns a :class:`~costmodel.physics.nccl_tests.Fit` into the document a scenario stores
under ``measurements[fabric]`` (:class:`~costmodel.scenario.schema.Measurement`: the fit, never the log).
``inputs.build`` then uses, for that fabric only:

- ``efficiency`` = :func:`efficiency` (the measured bus bandwidth over the NICs' line rate, with this
  scenario's port speed, NICs and GPUs per node; its range collapses, so Monte Carlo does not draw
  it) and **no loss model** (a measurement already includes whatever loss the fabric had);
- the NCCL base latency per collective = the measured ``alpha_us`` less the ring steps across its
  hosts that the model adds itself (``Inputs.measured_alpha_s``, ``measured_hosts``;
  :func:`costmodel.pipeline.stages.step_time.base_latency`), so a Monte Carlo draw of the catalog's base
  latency leaves a measured fabric alone.

That slot takes ring collectives (all-reduce, all-gather, reduce-scatter). A second slot per fabric,
``alltoall_measurements[fabric]`` (:func:`alltoall_measurement`,
:class:`~costmodel.scenario.schema.AlltoallMeasurement`),
takes an ``alltoall_perf`` log and sets only the fabric's all-to-all efficiency (the mixture-of-experts
dispatch and combine, ``fabrics.yaml`` ``alltoall_efficiency``): :func:`alltoall_efficiency`, the
network's share of the measured busbw over one GPU's NIC line rate
(:func:`costmodel.physics.nccl_tests.alltoall_efficiency_of`). A ``sendrecv_perf`` log is refused.
Units: µs, GB/s (10⁹ B/s), Gb/s as in nccl-tests and the catalog. See docs/calibration.md.
"""

from __future__ import annotations

from costmodel import quantities
from costmodel.errors import NcclLogError
from costmodel.physics.nccl_tests import ALLOWED, RING_COLLECTIVES, Fit, alltoall_efficiency_of, efficiency_of

#: the keys of :meth:`Fit.to_dict` a scenario stores (schema.Measurement)
STORED = ("collective", "ranks", "hosts", "gpu", "nccl_version", "alpha_us", "busbw_GBps", "rows_used", "summary",
          "warnings")


def measurement(fit: Fit) -> dict:
    """The JSON document of ``fit`` for ``scenario.measurements[fabric]``.

    Raises :class:`~costmodel.errors.NcclLogError` (field ``nccl_log``) when the log's collective is
    unknown (code ``nccl_log_collective_unknown``: choose it) or not a ring collective
    (``nccl_log_not_ring``: an alltoall log belongs in :func:`alltoall_measurement`).
    """
    coll = fit.log.collective
    ring = ", ".join(RING_COLLECTIVES)
    if coll is None:
        raise NcclLogError("nccl_log: the log does not say which collective it measured (all-gather and alltoall "
                           f"print the same columns); choose it: one of {ring}", "nccl_log_collective_unknown",
                           ALLOWED, choices=ring)
    if coll not in RING_COLLECTIVES:
        where = ("put it in the fabric's all-to-all box" if coll == "alltoall"
                 else f"the model has no {coll} traffic")
        raise NcclLogError(f"nccl_log: a {coll}_perf log is read but not used here ({where}); calibrate the "
                           f"fabric's efficiency with a ring collective: one of {ring} (all_reduce_perf is usual)",
                           "nccl_log_not_ring", ALLOWED, got=coll, choices=ring)
    doc = fit.to_dict()
    return {k: doc[k] for k in STORED}


def efficiency(measured, port_gbps: float, nics_per_node: float, gpus_per_node: float) -> float:
    """The fabric efficiency [0-1] a stored measurement gives (``nccl_tests.efficiency``), held within
    the registry's bounds of ``fabric.efficiency`` (a two-node tree log can exceed the line rate).

    ``measured``: a :class:`~costmodel.scenario.schema.Measurement`; ``port_gbps`` [Gb/s]; counts per node.
    """
    lo, hi = quantities.spec("fabric.efficiency").bounds()
    eta = efficiency_of(measured.collective, measured.busbw_GBps, float(port_gbps), float(nics_per_node),
                        float(gpus_per_node))
    return float(min(max(eta, lo), hi))


def alltoall_measurement(fit: Fit) -> dict:
    """The JSON document of an alltoall_perf ``fit`` for ``scenario.alltoall_measurements[fabric]``.

    Raises :class:`~costmodel.errors.NcclLogError` (field ``nccl_log``) when the log is not of
    alltoall_perf (code ``nccl_log_not_alltoall``; a log that does not name its test is taken as
    alltoall only when the user chose it) or does not show 2 or more hosts (``nccl_log_alltoall_hosts``:
    without Rank lines the share of traffic that crossed the network is unknown, and on one host none did).
    """
    coll = fit.log.collective
    if coll != "alltoall":
        got = f"{coll}_perf" if coll else "a log that does not name its test"
        raise NcclLogError(f"nccl_log: the all-to-all measurement takes an alltoall_perf log, not {got}; choose "
                           "\"all-to-all\" for a log that does not say which collective it ran",
                           "nccl_log_not_alltoall", ALLOWED, got=f"{coll}_perf" if coll else "?")
    hosts, ranks = fit.log.hosts, fit.log.ranks
    if hosts is None or ranks is None or hosts < quantities.spec("measurement.alltoall_hosts").bounds()[0]:
        raise NcclLogError("nccl_log: an alltoall_perf log is used only when its Rank lines show 2 or more hosts "
                           f"(this one: {hosts if hosts is not None else 'unknown'}); the share of its traffic "
                           "that crossed the network depends on the ranks per host",
                           "nccl_log_alltoall_hosts", ALLOWED, got=str(hosts if hosts is not None else "?"))
    doc = fit.to_dict()
    return {k: doc[k] for k in STORED}


def alltoall_efficiency(measured, port_gbps: float, nics_per_node: float, gpus_per_node: float) -> float:
    """The all-to-all efficiency [0-1] a stored alltoall measurement gives
    (``nccl_tests.alltoall_efficiency_of``: ``busbw·(n−g)/(n−1) / (port/8 · min(1, nics/gpus))``), held
    within the registry's bounds of ``fabric.alltoall_efficiency``.

    ``measured``: a :class:`~costmodel.scenario.schema.AlltoallMeasurement`; ``port_gbps`` [Gb/s]; counts per node.
    """
    lo, hi = quantities.spec("fabric.alltoall_efficiency").bounds()
    eta = alltoall_efficiency_of(measured.busbw_GBps, measured.ranks, measured.hosts, float(port_gbps),
                                 float(nics_per_node), float(gpus_per_node))
    return float(min(max(eta, lo), hi))
