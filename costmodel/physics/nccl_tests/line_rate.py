"""A fitted bus bandwidth as a share of the line rate of the scenario's NICs (the fabric efficiency).

Units: bandwidths in GB/s (10⁹ B/s) as nccl-tests prints them, port speeds in Gb/s, shares in [0-1].
"""

from __future__ import annotations

import math

from costmodel.errors import InputError
from costmodel.physics.nccl_tests.fitting import Fit
from costmodel.physics.nccl_tests.records import RING_COLLECTIVES


def efficiency(fit: Fit, port_gbps: float, nics_per_node: int, gpus_per_node: int) -> float:
    """Fitted busbw as a share of the line rate it can reach (dimensionless, 0.96 ≈ good IB).

    ``port_gbps``: one NIC port's line rate [Gb/s]; ``nics_per_node``, ``gpus_per_node``: counts
    of the scenario's nodes. Both forms compare bandwidth per GPU with the NIC line rate per GPU:

    - ring collectives (all-reduce, all-gather, reduce-scatter): nccl-tests' busbw is a per-rank
      figure, but NCCL runs one ring per NIC and only one hop per node and ring crosses the network,
      so a node's busbw is bounded by the **sum** of its NICs; busbw per GPU is busbw/gpus_per_node,
      i.e. η = busbw / (nics · port_gbps/8). ~24 GB/s per 200G NIC and 46–48 GB/s per 400G NIC are
      the expected busbw (nccl-tests #119, #290);
    - alltoall: :func:`alltoall_efficiency_of` (the network's share of busbw over one GPU's NIC
      line rate); sendrecv: η = busbw / (port_gbps/8 · min(1, nics/gpus)).
    An unknown collective is taken as a ring.
    """
    log = fit.log
    if log.collective == "alltoall":
        return alltoall_efficiency_of(fit.busbw_GBps, log.ranks, log.hosts, port_gbps, nics_per_node, gpus_per_node)
    return efficiency_of(log.collective, fit.busbw_GBps, port_gbps, nics_per_node, gpus_per_node)


def _check_hardware(port_gbps, nics_per_node, gpus_per_node) -> None:
    """Raise :class:`~costmodel.errors.InputError` unless the port speed and counts are positive numbers."""
    for name, value in (("port_gbps", port_gbps), ("nics_per_node", nics_per_node), ("gpus_per_node", gpus_per_node)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise InputError(f"{name} must be a positive number (got {value!r})", name, "a positive number")


def efficiency_of(collective: str | None, busbw_GBps: float, port_gbps: float, nics_per_node: float,
                  gpus_per_node: float) -> float:
    """:func:`efficiency` of a stored ring or sendrecv fit: its ``collective`` and bus bandwidth
    ``busbw_GBps`` [GB/s] (an alltoall's needs its ranks and hosts: :func:`alltoall_efficiency_of`)."""
    _check_hardware(port_gbps, nics_per_node, gpus_per_node)
    per_gpu_line = port_gbps / 8 * nics_per_node / gpus_per_node  # GB/s
    if collective in RING_COLLECTIVES or collective is None:
        return busbw_GBps / gpus_per_node / per_gpu_line
    return busbw_GBps / (port_gbps / 8 * min(1.0, nics_per_node / gpus_per_node))


def alltoall_network_share(ranks: float, hosts: float) -> float:
    """Share of an alltoall_perf run's busbw that crossed the network: ``(n − g)/(n − 1)`` for
    ``n = ranks`` on ``hosts`` hosts of ``g = n/hosts`` ranks each (0 on one host) [0-1].

    nccl-tests (doc/PERFORMANCE.md; ``AlltoAllGetBw`` in src/alltoall.cu): each rank sends ``S`` bytes,
    ``S/n`` to every rank, itself included; ``algbw = S/t`` and ``busbw = algbw·(n−1)/n``, the bytes
    that leave the rank. Of them ``S·(g−1)/n`` go to peers on the same host (NVLink, far faster) and
    ``S·(n−g)/n`` cross the network, which therefore sets ``t`` (sjeaugey in nccl-tests #130: "the
    portion that's going through the network will determine the global time"). So one GPU's network
    bandwidth is ``algbw·(n−g)/n = busbw·(n−g)/(n−1)``: on 2 hosts of 8 GPUs busbw is 15/8 ≈ 2× it,
    as #130 says, and on many hosts the factor tends to 1.
    """
    if isinstance(ranks, bool) or isinstance(hosts, bool) or hosts < 1 or hosts > ranks:
        raise InputError(f"ranks ({ranks!r}) and hosts ({hosts!r}) must be counts with 1 ≤ hosts ≤ ranks",
                         "hosts", "1 to ranks")
    g = ranks / hosts
    return (ranks - g) / (ranks - 1) if ranks > 1 else 0.0


def alltoall_efficiency_of(busbw_GBps: float, ranks: int | None, hosts: int | None, port_gbps: float,
                           nics_per_node: float, gpus_per_node: float) -> float:
    """The all-to-all efficiency (``fabrics.yaml`` ``alltoall_efficiency``) an alltoall_perf run gives [0-1]:

    ``η = busbw · (n − g)/(n − 1) / (port_gbps/8 · min(1, nics/gpus))``

    the network bandwidth per GPU (:func:`alltoall_network_share`; ``busbw_GBps`` [GB/s] at large
    sizes, the fit's asymptote) over the line rate one GPU reaches (NCCL's all-to-all does not
    aggregate several NICs per GPU, nccl-tests #267), the same line rate the model divides the
    remote bytes by (``costmodel.physics.performance.step_time``, ``a2a_bw_gpu_Bps``). ``port_gbps`` [Gb/s]
    and the counts per node are the scenario's. Without ``ranks``/``hosts`` (no Rank lines) the
    share is unknown and busbw itself is used (an upper bound).
    """
    _check_hardware(port_gbps, nics_per_node, gpus_per_node)
    share = 1.0 if ranks is None or hosts is None else alltoall_network_share(ranks, hosts)
    return busbw_GBps * share / (port_gbps / 8 * min(1.0, nics_per_node / gpus_per_node))
