"""Side-by-side comparison of two scenarios: the assumptions that differ (the results' differences
are the model's: :func:`costmodel.pipeline.results.differences`)."""

from __future__ import annotations

import json


def flatten(doc: dict, prefix: str = "") -> dict[str, object]:
    """Dotted paths to leaf values; lists and empty dicts are leaves (shown as JSON).

    >>> flatten({"a": {"b": 1, "c": [1, 2]}, "d": {}})
    {'a.b': 1, 'a.c': '[1, 2]', 'd': '{}'}
    """
    out: dict[str, object] = {}
    for key, value in doc.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, path + "."))
        elif isinstance(value, list | dict):
            out[path] = json.dumps(value, ensure_ascii=False)
        else:
            out[path] = value
    return out


def assumption_rows(a: dict, b: dict) -> list[tuple[str, object, object]]:
    """(field, value in A, value in B) for every field whose values differ, in path order.

    >>> assumption_rows({"x": 1, "y": {"z": 2}}, {"x": 1, "y": {"z": 3}})
    [('y.z', 2, 3)]
    """
    fa, fb = flatten(a), flatten(b)
    return [(k, fa.get(k), fb.get(k)) for k in sorted(fa.keys() | fb.keys()) if fa.get(k) != fb.get(k)]
