"""Inputs broadcast once to the batch shape ``(S, F)``, so no later stage stretches shapes."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..inputs import Inputs


def broadcast_inputs(p: Inputs) -> Inputs:
    """Every input array broadcast to the common shape ``(S, F)`` (read-only views).

    Parameters
    ----------
    p : Inputs
        Scenario-level arrays of shape ``(S, 1)`` or ``(1, 1)``, fabric-level ``(1, F)`` or
        ``(S, F)``; any array-like (a number, say) that broadcasts with them.

    Returns
    -------
    Inputs
        The same quantities, each of shape ``(S, F)`` with ``S`` the most rows and ``F`` the most
        columns among the inputs.

    Notes
    -----
    ``np.broadcast_arrays`` makes views without copying; every stage after this one computes
    element-wise on ``(S, F)`` arrays, so every result has that shape too.

    >>> from costmodel.inputs import build
    >>> from costmodel.schema import Scenario
    >>> p = build(Scenario()).inputs
    >>> b = broadcast_inputs(p.replace(nodes=np.array([[2.], [4.], [8.]])))
    >>> b.nodes.shape, b.pue.shape, b.nic_price.shape
    ((3, 4), (3, 4), (3, 4))
    """
    names = [f.name for f in dataclasses.fields(p)]
    arrays = [np.asarray(getattr(p, n), dtype=float) for n in names]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    # an array already of the batch shape is kept as it is (stages never write to their inputs)
    return Inputs(**{n: a if a.shape == shape else np.broadcast_to(a, shape)
                     for n, a in zip(names, arrays, strict=True)})


def fields_of(p: Inputs) -> dict[str, np.ndarray]:
    """The inputs as a name → array mapping (no copies)."""
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(p)}


def compact(a: np.ndarray) -> np.ndarray:
    """The smallest view of a broadcast array that broadcasts back to it: every axis the
    broadcast repeated (stride 0) cut to length 1. For work that is the same along that axis.

    >>> a = np.broadcast_to(np.array([[1.0], [2.0]]), (2, 3))
    >>> compact(a).shape
    (2, 1)
    """
    a = np.asarray(a)
    cut = (slice(0, 1) if st == 0 and n > 1 else slice(None) for st, n in zip(a.strides, a.shape, strict=True))
    return a[tuple(cut)]


def compact_inputs(p: Inputs) -> Inputs:
    """Every input at its smallest broadcastable view (:func:`compact`): a stage that reads only
    what a batch does not vary (the topology in a Monte Carlo run) computes it once."""
    return Inputs(**{name: compact(a) for name, a in fields_of(p).items()})


def expand(obj, shape: tuple[int, ...]):
    """A stage's result with every array (and every array in a dict field) broadcast to ``shape``
    (read-only views)."""
    def grow(v):
        if isinstance(v, np.ndarray):
            return np.broadcast_to(v, shape)
        if isinstance(v, dict):
            return {k: grow(x) for k, x in v.items()}
        return v

    return dataclasses.replace(obj, **{f.name: grow(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
