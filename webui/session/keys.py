"""Widget keys for choices whose labels can change: language, a new version number, a rename.

Streamlit keeps a select box's value on the client as the *label* it showed and sends that label
back on the next interaction; when the labels have changed meanwhile (a language switch turns
"Case 1 …" into "案例 1 …") the label no longer maps to an option and the widget returns the raw
label string instead of the option id. Keying such widgets by their labels gives the client a
fresh widget whenever the labels change, so a stale label can never come back as a value.

Scenario widgets are also keyed by the scenario's revision (:func:`webui.session.state.widget_key`):
when the scenario is replaced, its widgets are new ones built from it; no key is ever popped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, MutableMapping

SEP = "#"


def label_key(name: str, labels: Iterable[str]) -> str:
    """``name#<digest of the labels>``: the same while the labels stay the same.

    >>> label_key("w.baseline", ["RoCE", "InfiniBand"]) == label_key("w.baseline", ["RoCE", "InfiniBand"])
    True
    >>> label_key("w.baseline", ["RoCE"]) != label_key("w.baseline", ["RoCE 200G"])
    True
    >>> label_key("sb_preset", ["a"]).startswith("sb_preset#")
    True
    """
    digest = hashlib.blake2s("\x1f".join(labels).encode("utf-8"), digest_size=5).hexdigest()
    return f"{name}{SEP}{digest}"


def keys_of(state: MutableMapping, name: str) -> list[str]:
    """Every key in ``state`` that belongs to widget ``name`` (plain or label-keyed)."""
    return [k for k in state if isinstance(k, str) and (k == name or k.startswith(name + SEP))]


def carry(state: MutableMapping, name: str, key: str, options: list) -> None:
    """Give a new label key the choice its earlier key held (still one of ``options``), once."""
    if key in state:
        return
    for old in keys_of(state, name):
        if state[old] in options:
            state[key] = state[old]
            break
    for old in keys_of(state, name):
        if old != key:
            del state[old]


def selectbox(dg, label: str, options: list, *, name: str, format_func, index: int = 0, keep: bool = True,
              **kwargs):
    """``dg.selectbox`` under a label key that keeps the user's choice across label changes
    (``keep=False``: a change of labels starts again from ``index``)."""
    import streamlit as st

    key = label_key(name, [format_func(o) for o in options])
    if keep:
        carry(st.session_state, name, key, options)
    else:
        for old in keys_of(st.session_state, name):
            if old != key:
                del st.session_state[old]
    if key in st.session_state:
        index = 0  # the carried choice wins; a default beside it would only warn
    return dg.selectbox(label, options, index=index, format_func=format_func, key=key, **kwargs)
