"""Scenario inputs drawn from the schema: label, unit, help text and bounds come from
``costmodel.schema`` (bounds) and the locale catalogs (labels, help). A change is validated
against the whole scenario; an invalid one is shown inline and never replaces the last valid
scenario."""

from __future__ import annotations

import typing

import streamlit as st
from pydantic import BaseModel

from costmodel.errors import ScenarioError
from costmodel.schema import Scenario
from costmodel.validation import field_bounds, validate_scenario

from . import keys, session

KEY_ERRORS = "w_errors"
_PREFIX = "w."


def field_info(path: str):
    """The pydantic FieldInfo of a dotted scenario path, e.g. ``cluster.nodes``."""
    model: type[BaseModel] = Scenario
    info = None
    for part in path.split("."):
        info = model.model_fields[part]
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
    return info


def bounds(path: str) -> tuple[float | None, float | None]:
    """The schema's bounds of a field (one reader of them: costmodel.validation)."""
    return field_bounds(path)


def get(scenario: Scenario, path: str):
    obj = scenario
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _set(data: dict, path: str, value) -> dict:
    parts = path.split(".")
    node = data
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return data


def _repair(data: dict) -> list[str]:
    """Adjust fields that a change made inconsistent, instead of refusing the change.

    Returns the paths it changed: the baseline when it was removed from the fabrics, instalment
    months beyond the horizon, pipeline stages beyond the node count.
    """
    changed = []
    if data["fabrics"] and data["baseline"] not in data["fabrics"]:
        data["baseline"] = data["fabrics"][0]
        changed.append("baseline")
    fin = data["finance"]
    if fin["payment"] == "instalments" and fin["instalment_months"] > 12 * fin["horizon_years"]:
        fin["instalment_months"] = 12 * fin["horizon_years"]
        changed.append("finance.instalment_months")
    work = data["workload"]
    if work["parallelism"] == "pipeline" and work["pipeline_stages"] > data["cluster"]["nodes"]:
        work["pipeline_stages"] = data["cluster"]["nodes"]
        changed.append("workload.pipeline_stages")
    return changed


def apply(path: str, value) -> str | None:
    """Set one field (repairing what it makes inconsistent); return an error message and keep
    the last valid scenario if the result is invalid."""
    data = _set(session.scenario().model_dump(mode="json"), path, value)
    repaired = _repair(data)
    try:
        session.set_scenario(validate_scenario(data))
    except ScenarioError as exc:
        return str(exc)
    for other in repaired:  # show the adjusted values
        keys.forget(st.session_state, _PREFIX + other)
    if repaired:
        t = session.translator()
        st.toast(t("w.adjusted", fields=", ".join(t(f"field.{p}") for p in repaired)), icon="ℹ️")
    return None


def on_change(path: str, key: str | None = None) -> None:
    """A scenario widget changed: apply its value (``key``: a label-keyed widget's own key)."""
    key = key or _PREFIX + path
    value = st.session_state[key]
    optional = type(None) in typing.get_args(field_info(path).annotation)
    error = None
    if value is None and not optional:  # a deselected choice: keep the current value
        pass
    else:
        error = apply(path, value)
    # the widget always shows what the model uses; a refused value is explained once
    if (value is None and not optional) or error:
        st.session_state[key] = get(session.scenario(), path)
    st.session_state[KEY_ERRORS] = {path: error} if error else {}


def reset_widgets() -> None:
    """Forget widget states so they show the (new) scenario's values."""
    stale = (_PREFIX, "assume_")  # scenario inputs and the Assumptions tables
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(stale)]:
        del st.session_state[key]
    st.session_state[KEY_ERRORS] = {}


def _help(t, path: str, extra: str = "") -> str:
    info = field_info(path)
    text = t.get(f"help.{path}", info.description or "")
    lo, hi = bounds(path)
    if lo is not None or hi is not None:
        text += "  \n" + t("w.allowed", lo="—" if lo is None else f"{lo:,g}", hi="—" if hi is None else f"{hi:,g}")
    return text + (f"  \n{extra}" if extra else "")


def number(t, path: str, *, placeholder_value=None, digits: int | None = None, step=None) -> None:
    """A number input for a numeric scenario field (int or float, optionally empty)."""
    info = field_info(path)
    ann = info.annotation
    optional = type(None) in typing.get_args(ann)
    base = next((a for a in typing.get_args(ann) if a is not type(None)), ann)
    is_int = base is int
    lo, hi = bounds(path)
    current = get(session.scenario(), path)
    kwargs = {}
    if is_int:
        kwargs.update(step=step or 1, format="%d")
        lo = None if lo is None else int(lo)
        hi = None if hi is None else int(hi)
        value = None if current is None else int(current)
    else:
        lo = None if lo is None else float(lo)
        hi = None if hi is None else float(hi)
        value = None if current is None else float(current)
        kwargs.update(step=float(step) if step else None, format=f"%.{digits}f" if digits is not None else None)
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if optional and placeholder_value is not None:
        kwargs["placeholder"] = t("w.default_value", value=f"{placeholder_value:,g}")
    key = _PREFIX + path
    extra = t("w.empty_means_default") if optional else ""
    st.number_input(t(f"field.{path}"), min_value=lo, max_value=hi, value=value, key=key,
                    on_change=on_change, args=(path,), help=_help(t, path, extra), **kwargs)
    show_error(path)


def choice(t, path: str, options: list, *, labels=None, horizontal: bool = False) -> None:
    """A select box (or segmented control) for a Literal or catalog-id field."""
    current = get(session.scenario(), path)
    fmt = (lambda o: labels.get(o, o)) if labels else (lambda o: t.get(f"opt.{path}.{o}", str(o)))
    key = keys.label_key(_PREFIX + path, [fmt(o) for o in options])  # new labels: a new widget
    if horizontal:
        st.segmented_control(t(f"field.{path}"), options, default=current, key=key, format_func=fmt,
                             on_change=on_change, args=(path, key), help=_help(t, path), selection_mode="single")
    else:
        st.selectbox(t(f"field.{path}"), options, index=options.index(current), key=key, format_func=fmt,
                     on_change=on_change, args=(path, key), help=_help(t, path))
    show_error(path)


def toggle(t, path: str) -> None:
    st.toggle(t(f"field.{path}"), value=bool(get(session.scenario(), path)), key=_PREFIX + path,
              on_change=on_change, args=(path,), help=_help(t, path))
    show_error(path)


def show_error(path: str) -> None:
    """Show the error of the change just refused (once: :func:`clear_errors` runs after the page)."""
    err = st.session_state.get(KEY_ERRORS, {}).get(path)
    if err:
        st.error(session.translator()("w.refused", error=err), icon="⚠️")


def clear_errors() -> None:
    """Forget refused-change messages once they have been shown."""
    st.session_state[KEY_ERRORS] = {}
