"""The batch's shape: :func:`batch_nodes` (what the model runs on: the node count stretched to
``(S, F)``, every other input at its own shape) or :func:`broadcast_inputs` (every input at ``(S, F)``,
for checking the stages on full-shape arrays); and the rows of a batch taken apart."""

from __future__ import annotations

import dataclasses

import numpy as np

from costmodel.pipeline.inputs import Inputs


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
    Broadcasting makes views without copying (the inputs of one shape are stacked first, so there is
    one broadcast per shape); every stage after this one computes element-wise on ``(S, F)``
    arrays, so every result has that shape too.

    >>> from costmodel.pipeline.inputs import build
    >>> from costmodel.scenario.schema import Scenario
    >>> p = build(Scenario()).inputs
    >>> b = broadcast_inputs(p.replace(nodes=np.array([[2.], [4.], [8.]])))
    >>> b.nodes.shape, b.discount_rate.shape, b.nic_price.shape
    ((3, 4), (3, 4), (3, 4))
    """
    fields = fields_of(float_inputs(p))
    shape = np.broadcast_shapes(*{a.shape for a in fields.values()})
    out, groups = {}, {}
    for name, a in fields.items():
        if a.shape == shape:  # already of the batch shape: kept as it is (stages never write to their inputs)
            out[name] = a
        else:
            groups.setdefault(a.shape, []).append(name)
    # one broadcast per input shape, not one per input: the inputs of a shape stacked, broadcast to
    # (k, S, F) once, then each taken as a view (read-only, like the broadcast itself)
    for names in groups.values():
        block = np.broadcast_to(np.stack([fields[n] for n in names]), (len(names), *shape))
        out.update({n: block[i] for i, n in enumerate(names)})
    return Inputs(**out)


def batch_nodes(p: Inputs) -> tuple[Inputs, tuple[int, ...]]:
    """The inputs at their own shapes but the node count broadcast to the batch shape ``(S, F)`` (the
    stages read the batch shape from it), and that shape: what depends on no varied input is computed
    once, on its small shape (a fabric's prices at ``(1, F)``), and broadcasts where it meets the rest.

    >>> from costmodel.pipeline.inputs import build
    >>> from costmodel.scenario.schema import Scenario
    >>> p, shape = batch_nodes(float_inputs(build(Scenario()).inputs.replace(nodes=np.array([[2.], [4.]]))))
    >>> shape, p.nodes.shape, p.nic_price.shape
    ((2, 4), (2, 4), (1, 4))
    """
    shape = np.broadcast_shapes(*(a.shape for a in fields_of(p).values()))
    return p.replace(nodes=np.broadcast_to(p.nodes, shape)), shape


def float_inputs(p: Inputs) -> Inputs:
    """Every input as a float array of its own shape (no broadcast): the smallest views a stage that
    reads only what a batch does not vary can compute on (the topology in a Monte Carlo run)."""
    return Inputs(**{name: np.asarray(a, dtype=float) for name, a in fields_of(p).items()})


def fields_of(p: Inputs) -> dict[str, np.ndarray]:
    """The inputs as a name → array mapping (no copies)."""
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(p)}


def take_rows(obj, rows: slice, n: int):
    """``obj`` (a stage's result, an array, or a dict of them) cut to the batch rows ``rows``: every
    array of at least two dimensions whose first axis is the batch's ``n`` rows is sliced; everything
    else (per-year schedules, scalars, names) is kept as it is.

    >>> a = np.arange(6.0).reshape(3, 2)
    >>> take_rows({"a": a, "y": np.ones(3)}, slice(1, 2), 3)["a"].tolist()
    [[2.0, 3.0]]
    """
    if isinstance(obj, np.ndarray):
        return obj[rows] if obj.ndim >= 2 and obj.shape[0] == n else obj
    if isinstance(obj, dict):
        return {k: take_rows(v, rows, n) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: take_rows(getattr(obj, f.name), rows, n)
                                           for f in dataclasses.fields(obj) if f.init})
    return obj
