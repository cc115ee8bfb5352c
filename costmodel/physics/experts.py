"""Mixture of experts: the dispatch and combine all-to-alls of expert parallelism, and how much of them
compute can hide.

Units: seconds [s], bytes [B], bytes per second [B/s]; counts per token. Arrays broadcast.

* **Traffic.** A GPU holds ``1/t`` of a micro-batch's tokens (sequence parallel); each goes to ``k``
  experts spread evenly over the ``e`` expert-parallel GPUs, ``e_node`` of them on one node, so over
  ``N = e / e_node`` nodes. A plain all-to-all sends a token once per remote expert,
  ``k (e − e_node)/e`` times; a node-deduplicated dispatch (DeepEP) once per distinct remote node
  among its experts [1, 2].
* **Distinct nodes.** With the experts placed independently and uniformly over the nodes (the
  occupancy of ``k`` balls in ``N`` bins), the distinct nodes ``D`` of a token have
  ``E[D] = N (1 − (1 − 1/N)^k)``. Node-limited routing sends a token to at most ``M`` nodes
  (DeepSeek-V3, ``M = 4``: the router first picks the ``M`` nodes with the highest sums of their
  best expert scores, then the ``k`` experts among them [1, sec. 2.1.2, 3.2.2]), so it reaches
  ``min(M, D)`` nodes; the mean is ``E[min(M, D)]``, not ``min(M, E[D])`` (which overstates
  it), from the occupancy distribution. By symmetry the token's own node is any of the ``N``, so
  ``(N − 1)/N`` of those nodes are remote. The limit changes nothing for a plain all-to-all (one
  copy per expert either way).
* **Overlap.** DualPipe and Megatron's 1F1B overlap run one micro-batch's all-to-alls beside
  another micro-batch's forward and backward compute ``W`` [1, 3]. A share ``o`` (``a2a_overlap``)
  of the schedule pairs the two, so the paired communication ``o T_a2a`` can hide only behind the
  paired compute ``o W``: hidden ``H = o · min(T_a2a, W)``. While paired, the communication kernels
  hold a share ``σ`` of the SMs (DeepSeek-V3: 20 of an H800's 132 [1, sec. 3.5.1]), so the compute
  beside them loses ``σ H``. Per micro-batch on the critical path::

      exposed = T_a2a − H + σ H = max(T_a2a − o W, (1 − o) T_a2a) + σ o min(T_a2a, W)

  ``o = 0`` gives ``T_a2a``; ``exposed ≥ T_a2a − W``; more all-to-all time never gives less.

References
----------
.. [1] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437 (node-limited routing
   sec. 2.1.2; 4 nodes, 20 communication SMs, DualPipe sec. 3.2; SMs of 132, sec. 3.5.1).
.. [2] DeepSeek-AI, DeepEP README (node-deduplicated dispatch; all-to-all at one NIC per GPU).
.. [3] NVIDIA Megatron-Core MoE model zoo (1F1B all-to-all overlap).
"""

from __future__ import annotations

import numpy as np


def expected_nodes(n_nodes, top_k, max_nodes):
    """Expected distinct nodes a token's ``k`` experts are on, at most ``M`` of them [count].

    ``n_nodes`` ``N`` (>= 1), ``top_k`` ``k`` (whole), ``max_nodes`` ``M`` (0 = no limit). Without a
    limit ``N (1 − (1 − 1/N)^k)``; with one ``E[min(M, D)]`` over the occupancy distribution of
    ``D``, built expert by expert: with ``i`` nodes reached, the next expert reaches a new one with
    probability ``(N − i)/N`` (clipped to [0, 1] for a fractional ``N``).

    >>> round(float(expected_nodes(8.0, 8.0, 4.0)), 4), round(float(expected_nodes(8.0, 8.0, 0.0)), 4)
    (3.9798, 5.2511)
    """
    n = np.maximum(np.asarray(n_nodes, dtype=float), 1.0)
    k = np.asarray(top_k, dtype=float)
    m = np.asarray(max_nodes, dtype=float)
    free = n * (1.0 - (1.0 - 1.0 / n) ** k)
    limited = m > 0
    if not np.any(limited & (m < np.minimum(k, np.ceil(n)))):  # the limit never binds
        return free
    n, k, m = np.broadcast_arrays(n, k, m)
    used = np.arange(int(np.ceil(np.max(k))) + 1, dtype=float)  # nodes reached so far
    new = np.clip((n[..., None] - used) / n[..., None], 0.0, 1.0)  # the next expert reaches a new node
    prob = np.zeros(n.shape + used.shape)
    prob[..., 0] = 1.0
    for j in range(1, used.size):
        moved = prob * (1.0 - new)
        moved[..., 1:] += prob[..., :-1] * new[..., :-1]
        prob = np.where((j <= k + 1e-9)[..., None], moved, prob)
    capped = np.sum(prob * np.minimum(used, m[..., None]), axis=-1)
    return np.where(limited, np.minimum(capped, free), free)  # equal for whole N and M >= k


def remote_share(ep, ep_local, top_k, node_dedup, max_nodes=0.0):
    """Expert slots per token a GPU sends to other nodes [count], and ``remote``, ``local`` shares [0-1].

    Node-deduplicated dispatch: once per distinct remote node, ``E[min(M, D)] · (N − 1)/N`` for
    experts spread over ``N = ep/ep_local`` nodes (:func:`expected_nodes`); a plain all-to-all once
    per remote expert, ``k (ep − ep_local)/ep``. ``remote``, ``local``: shares of the ``ep`` expert
    GPUs on other nodes and on the sender's node other than itself.
    """
    remote = np.maximum(0.0, ep - ep_local) / ep
    local = np.maximum(0.0, ep_local - 1.0) / ep
    n_ep_nodes = np.maximum(1.0, ep / ep_local)
    distinct_remote = expected_nodes(n_ep_nodes, top_k, max_nodes) * (n_ep_nodes - 1.0) / n_ep_nodes
    return np.where(np.asarray(node_dedup) > 0, distinct_remote, top_k * remote), remote, local


def all_to_all_mb(moe, b, seq_len, tp, dom, ep, top_k, hidden, act_bytes, node_dedup, max_nodes, n_layers, pp,
                  rec, a2a_bw_gpu_Bps, nvlink, alpha_base_s, fabric_latency_s):
    """Dispatch and combine all-to-alls in every MoE layer's forward and backward (again under
    recomputation), of one micro-batch on one GPU.

    A "node" here is a scale-up domain of ``dom`` GPUs (the server where the two are one): the expert
    GPUs of the sender's domain are reached over ``nvlink``.

    Returns ``n_a2a`` (all-to-alls per micro-batch) [count], ``remote_bytes`` (a GPU's bytes to other
    domains per all-to-all) [B], ``t_mb`` (their time per micro-batch and GPU) [s]: the remote bytes at
    ``a2a_bw_gpu_Bps`` (one NIC at most), the copies to the domain's other expert GPUs over ``nvlink``
    [B/s], a base latency and one fabric latency each; and ``t_remote_mb``, the part of ``t_mb`` on
    the scale-out fabric (the remote bytes and, where there are any, the latencies) [s].
    """
    tokens = b * seq_len / tp
    ep_local = np.minimum(ep, np.maximum(1.0, dom / tp))  # ep ranks in one scale-up domain
    per_token_remote, remote, local = remote_share(ep, ep_local, top_k, node_dedup, max_nodes)
    routed = tokens * hidden * act_bytes * top_k  # bytes a GPU sends per all-to-all
    remote_bytes = tokens * hidden * act_bytes * per_token_remote
    n_a2a = moe * (n_layers / pp) * (4.0 + 2.0 * rec)
    t_mb = n_a2a * (remote_bytes / a2a_bw_gpu_Bps + routed * local / nvlink
                    + alpha_base_s + fabric_latency_s * (remote > 0))
    t_remote = n_a2a * (remote_bytes / a2a_bw_gpu_Bps + (alpha_base_s + fabric_latency_s) * (remote > 0))
    return {"n_a2a": n_a2a, "remote_bytes": remote_bytes, "t_mb": t_mb, "t_remote_mb": t_remote}


def exposed_mb(t_a2a, window_s, overlap, sm_share):
    """All-to-all time of one micro-batch on the critical path [s].

    ``t_a2a`` its all-to-all time, ``window_s`` the compute of the micro-batch it runs beside [s],
    ``overlap`` ``o`` the share of the schedule that pairs them [0-1], ``sm_share`` ``σ`` the SMs the
    communication kernels take while paired [0-1]:
    ``T_a2a − H + σ H`` with the hidden part ``H = o · min(T_a2a, W)``.

    >>> float(exposed_mb(30.0, 10.0, 1.0, 0.0)), float(exposed_mb(30.0, 10.0, 0.0, 0.5))
    (20.0, 30.0)
    """
    hidden = overlap * np.minimum(t_a2a, window_s)
    return t_a2a - hidden + sm_share * hidden
