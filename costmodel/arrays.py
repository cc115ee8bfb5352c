"""Array helpers of the vectorised model (no model knowledge)."""

from __future__ import annotations

import numpy as np


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
