"""Where two curves swap places: the one rule for cumulative-cost crossovers (months), break-even
node counts (a node sweep) and break-even input values (the solver's grid).

A *sign change* of a difference ``d = a − b`` sampled on a grid is a pair of grid indices: the
last finite, nonzero sample before the change, and the first finite sample after it (a zero,
or the next nonzero sample of the other sign). Touching zero without changing sign, and
non-finite samples, are not sign changes. Pure numpy (the sweep helper reads the model's
tidy sweep table).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd


class NodeBreakEven(NamedTuple):
    """A node count at which ``fabric`` and the baseline swap places (the first count after the swap)."""

    fabric: str
    nodes: int


def sign_changes(d) -> tuple[np.ndarray, np.ndarray]:
    """Grid indices ``(a, b)`` bracketing each change of sign of ``d``.

    ``a`` is the last finite nonzero sample before the change, ``b`` the first finite sample
    after ``a`` (a zero, or the nonzero sample of the other sign).

    >>> [i.tolist() for i in sign_changes(np.array([2.0, 1.0, 0.0, -1.0, 0.0, -2.0, 3.0]))]
    [[1, 5], [2, 6]]
    >>> [i.tolist() for i in sign_changes([1.0, 0.0, 2.0])]  # a touch is not a change
    [[], []]
    >>> [i.tolist() for i in sign_changes([1.0, float("nan"), -1.0])]  # across a gap
    [[0], [2]]
    >>> [i.tolist() for i in sign_changes([1.0, float("nan"), 0.0, -1.0])]  # the zero after the gap
    [[0], [2]]
    """
    d = np.asarray(d, dtype=float)
    finite = np.isfinite(d)
    nz = np.flatnonzero(finite & (d != 0))
    a, c = nz[:-1], nz[1:]
    flip = np.sign(d[a]) != np.sign(d[c])
    a = a[flip]
    after = np.flatnonzero(finite)
    return a, after[np.searchsorted(after, a, side="right")]


def node_break_evens(sweep: pd.DataFrame, baseline: str, metric: str = "tco_total") -> list[NodeBreakEven]:
    """Node counts where each fabric and ``baseline`` swap places on ``metric``, from a node sweep.

    ``sweep`` is :func:`costmodel.sweep`'s table (columns ``nodes``, ``fabric`` and the metric).
    ``metric`` is ``tco_total``, ``cost_per_run`` or ``delta_vs_baseline`` (which changes sign
    exactly where ``tco_total`` does). Each break-even is reported at the first swept node
    count on the other side (nodes are whole numbers; the sweep is not refined further).

    >>> df = pd.DataFrame({"nodes": [2, 4, 8] * 2, "fabric": ["a"] * 3 + ["b"] * 3,
    ...                    "tco_total": [10.0, 20.0, 40.0, 15.0, 22.0, 30.0]})
    >>> node_break_evens(df, "a")
    [NodeBreakEven(fabric='b', nodes=8)]
    """
    column = "tco_total" if metric == "delta_vs_baseline" else metric
    wide = sweep.pivot(index="nodes", columns="fabric", values=column).sort_index()
    nodes = wide.index.to_numpy()
    out = []
    for fid in wide.columns:
        if fid == baseline:
            continue
        _, after = sign_changes((wide[fid] - wide[baseline]).to_numpy())
        out += [NodeBreakEven(fid, int(nodes[i])) for i in after]
    return out


__all__ = ["NodeBreakEven", "node_break_evens", "sign_changes"]
