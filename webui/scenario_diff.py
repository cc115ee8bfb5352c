"""Side-by-side comparison of two scenarios: the assumptions that differ and the results."""

from __future__ import annotations

import json

import pandas as pd


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


def result_rows(a: dict, b: dict) -> pd.DataFrame:
    """One row per fabric of either result (``Result.to_dict()`` form): TCO, Δ, days and cost per run.

    Money is in the model currency; a fabric missing on one side has None there.
    """
    ra = {f["id"]: f for f in a["fabrics"]}
    rb = {f["id"]: f for f in b["fabrics"]}
    rows = []
    for fid in list(ra) + [f for f in rb if f not in ra]:
        fa, fb = ra.get(fid, {}), rb.get(fid, {})
        tco_a, tco_b = fa.get("tco_total"), fb.get("tco_total")
        rows.append({
            "fabric": fid, "tco_a": tco_a, "tco_b": tco_b,
            "delta": None if tco_a is None or tco_b is None else tco_b - tco_a,
            "run_days_a": fa.get("run_days"), "run_days_b": fb.get("run_days"),
            "cost_per_run_a": fa.get("cost_per_run"), "cost_per_run_b": fb.get("cost_per_run"),
        })
    return pd.DataFrame(rows)
