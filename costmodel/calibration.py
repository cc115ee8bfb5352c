"""A fabric's nccl-tests measurement in a scenario: what is stored, and what the model reads from it.

:func:`measurement` turns a :class:`~costmodel.nccl_tests.Fit` into the document a scenario stores
under ``measurements[fabric]`` (:class:`~costmodel.schema.Measurement`: the fit, never the log).
``inputs.build`` then uses, for that fabric only:

- ``efficiency`` = :func:`efficiency` (the measured bus bandwidth over the NICs' line rate, with this
  scenario's port speed, NICs and GPUs per node; its range collapses, so Monte Carlo does not draw
  it) and **no loss model** (a measurement already includes whatever loss the fabric had);
- the NCCL base latency per collective = the measured ``alpha_us`` less the ring steps across its
  hosts that the model adds itself (``Inputs.measured_alpha_s``, ``measured_hosts``;
  :func:`costmodel.stages.step_time.base_latency`), so a Monte Carlo draw of the catalog's base
  latency leaves a measured fabric alone.

Only ring collectives (all-reduce, all-gather, reduce-scatter) are used: the model has no all-to-all
traffic yet, so an ``alltoall_perf`` or ``sendrecv_perf`` log is refused with a message saying so.
Units: µs, GB/s (10⁹ B/s), Gb/s as in nccl-tests and the catalog. See docs/calibration.md.
"""

from __future__ import annotations

from . import quantities
from .errors import NcclLogError
from .nccl_tests import ALLOWED, RING_COLLECTIVES, Fit, efficiency_of

#: the keys of :meth:`Fit.to_dict` a scenario stores (schema.Measurement)
STORED = ("collective", "ranks", "hosts", "gpu", "nccl_version", "alpha_us", "busbw_GBps", "rows_used", "summary",
          "warnings")


def measurement(fit: Fit) -> dict:
    """The JSON document of ``fit`` for ``scenario.measurements[fabric]``.

    Raises :class:`~costmodel.errors.NcclLogError` (field ``nccl_log``) when the log's collective is
    unknown (code ``nccl_log_collective_unknown``: choose it) or not a ring collective
    (``nccl_log_not_ring``: the model does not use all-to-all or send/receive yet).
    """
    coll = fit.log.collective
    ring = ", ".join(RING_COLLECTIVES)
    if coll is None:
        raise NcclLogError("nccl_log: the log does not say which collective it measured (all-gather and alltoall "
                           f"print the same columns); choose it: one of {ring}", "nccl_log_collective_unknown",
                           ALLOWED, choices=ring)
    if coll not in RING_COLLECTIVES:
        raise NcclLogError(f"nccl_log: a {coll}_perf log is read but not used: the model has no {coll} traffic "
                           f"yet; calibrate with a ring collective: one of {ring} (all_reduce_perf is usual)",
                           "nccl_log_not_ring", ALLOWED, got=coll, choices=ring)
    doc = fit.to_dict()
    return {k: doc[k] for k in STORED}


def efficiency(measured, port_gbps: float, nics_per_node: float, gpus_per_node: float) -> float:
    """The fabric efficiency [0-1] a stored measurement gives (``nccl_tests.efficiency``), held within
    the registry's bounds of ``fabric.efficiency`` (a two-node tree log can exceed the line rate).

    ``measured``: a :class:`~costmodel.schema.Measurement`; ``port_gbps`` [Gb/s]; counts per node.
    """
    lo, hi = quantities.spec("fabric.efficiency").bounds()
    eta = efficiency_of(measured.collective, measured.busbw_GBps, float(port_gbps), float(nics_per_node),
                        float(gpus_per_node))
    return float(min(max(eta, lo), hi))
