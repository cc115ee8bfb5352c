"""Scenario inputs drawn from the registry of quantities (``costmodel/data/quantities.yaml``):
label and help keys, display scale (e.g. a fraction shown in %) and bounds come from it, the texts
from the locale catalogs. A change goes through :func:`webui.session.state.change`
(``Scenario.with_change``: repaired and validated against the whole scenario); an invalid one is
shown inline and never replaces the last valid scenario. Widgets never write the scenario or each
other's state: their keys carry the scenario's revision."""

from __future__ import annotations

import math
import typing

import streamlit as st
from pydantic import BaseModel

from costmodel import quantities
from costmodel.errors import ScenarioError
from costmodel.scenario.schema import Scenario
from costmodel.scenario.validation import field_bounds
from webui.i18n import labels
from webui.i18n.bound_text import bound, plain
from webui.i18n.text import md_escape
from webui.session import keys
from webui.session import state as session

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


def spec(path: str) -> quantities.QuantitySpec | None:
    """The registry entry of a scenario field, or None for a field that is not a quantity (a choice)."""
    return quantities.registry().get(path)


def bounds(path: str) -> tuple[float | None, float | None]:
    """The bounds of a field in its stored unit: the registry's (the schema's are generated from them)."""
    q = spec(path)
    return q.bounds() if q is not None else field_bounds(path)


def display_scale(path: str) -> float:
    """Display units per stored unit of a field (100 for a fraction shown in %)."""
    q = spec(path)
    return q.display_scale if q is not None else 1.0


def get(scenario: Scenario, path: str):
    obj = scenario
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def key_of(path: str) -> str:
    """The widget key of scenario field ``path`` at the scenario's revision (:func:`webui.session.state.widget_key`)."""
    return session.widget_key(_PREFIX + path)


def apply(path: str, value) -> str | None:
    """Set one field through :func:`webui.session.state.change` (the model repairs what it makes
    inconsistent); return an error message, keeping the last valid scenario, if it is invalid."""
    try:
        repaired = session.change(path, value)
    except ScenarioError as exc:
        return labels.error_text(session.translator(), exc)  # the field's label and range, translated
    if repaired:  # the adjusted values show at once: the change started a new revision
        t = session.translator()
        st.toast(t("w.adjusted", fields=", ".join(t(f"field.{p}") for p in repaired)), icon="ℹ️")
    return None


def on_change(path: str, key: str | None = None, scale: float = 1.0) -> None:
    """A scenario widget changed: apply its value (``key``: the widget's own key, default
    :func:`key_of`; ``scale``: display units per model unit, e.g. 100 for a fraction shown in %)."""
    key = key or key_of(path)
    value = st.session_state[key]
    optional = type(None) in typing.get_args(field_info(path).annotation)
    error = None
    if value is None and not optional:  # a deselected choice: keep the current value
        pass
    else:
        error = _not_whole(path, value, scale) or _out_of_range(path, value, scale)
        if error is None and _is_int(path) and isinstance(value, float):
            value = int(value)  # a whole number typed into the (float) box of a count
        if error is None:
            error = apply(path, value / scale if scale != 1.0 and value is not None else value)
    # the widget always shows what the model uses: a refused value starts a new revision, so the
    # widgets are built again from the scenario; the refusal is explained once
    if (value is None and not optional) or error:
        session.refresh()
    _remember(path, error)


def set_all(path: str, value) -> None:
    """Set a field from a button (not its widget): the change, or its refusal, shows in every widget
    (a new revision)."""
    error = apply(path, value)
    session.refresh()
    _remember(path, error)


def _remember(path: str, error: str | None) -> None:
    """Keep the refusal of the change just made for :func:`show_error` (none: forget the last one)."""
    st.session_state[KEY_ERRORS] = {path: error} if error else {}


def _is_int(path: str) -> bool:
    """Whether a scenario field holds a whole number (a count)."""
    ann = field_info(path).annotation
    return next((a for a in typing.get_args(ann) if a is not type(None)), ann) is int


def _range_texts(t, path: str, scale: float) -> tuple[str, str]:
    """The field's lower and upper bound in display units, as people read them ("—" when open)."""
    lo, hi = bounds(path)
    return ("—" if lo is None else bound(lo * scale, t.lang)), ("—" if hi is None else bound(hi * scale, t.lang))


def _not_whole(path: str, value, scale: float) -> str | None:
    """A message naming the field and its range when a count gets a fraction (``2.5`` nodes): the
    browser would otherwise cut it to 2 without a word."""
    if not isinstance(value, float) or not _is_int(path) or (math.isfinite(value) and value.is_integer()):
        return None
    t = session.translator()
    lo, hi = _range_texts(t, path, scale)
    return t("wr.not_whole", field=_label(t, path, scale), value=plain(value), lo=lo, hi=hi)


def _out_of_range(path: str, value, scale: float) -> str | None:
    """A message naming the field and its allowed range (in display units) when ``value`` is outside."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    lo, hi = bounds(path)
    lo_d = None if lo is None else lo * scale
    hi_d = None if hi is None else hi * scale
    if (lo_d is None or value >= lo_d) and (hi_d is None or value <= hi_d) and math.isfinite(value):
        return None
    t = session.translator()
    lo_s, hi_s = _range_texts(t, path, scale)
    return t("wr.out_of_range", field=_label(t, path, scale), value=plain(value), lo=lo_s, hi=hi_s)


def _label(t, path: str, scale: float = 1.0) -> str:
    """The field's label (the registry's key); a field shown scaled (e.g. in %) has its own label
    naming the display unit."""
    q = spec(path)
    if q is None:
        return t(f"field.{path}")
    if scale != 1.0 and scale == q.display_scale and q.display_label:
        return t(q.display_label)
    return t(q.label)


def _help(t, path: str, extra: str = "", scale: float = 1.0) -> str:
    info, q = field_info(path), spec(path)
    text = t.get(q.help if q is not None and q.help else f"help.{path}", info.description or "")
    lo, hi = bounds(path)
    if lo is not None or hi is not None:
        lo_s, hi_s = _range_texts(t, path, scale)
        text += "  \n" + t("w.allowed", lo=lo_s, hi=hi_s)
    return text + (f"  \n{extra}" if extra else "")


def number(t, path: str, *, placeholder_value=None, percent: bool | None = None) -> None:
    """A number input for a numeric scenario field (int or float, optionally empty), shown in the
    registry's display scale (``percent``: force a fraction to be shown in % or not), with the
    registry's decimals and step (``widget``). The widget
    has no min/max of its own: a value out of range reaches the server and is refused with a
    message naming the field and its range from the registry (the browser's own refusal is only
    a tooltip). A count's box holds a float: the browser reads what is typed with ``parseFloat``, so
    ``1e12`` and ``2.5`` reach the server as typed and are refused with the field's range (an integer
    box would read them with ``parseInt`` as 1 and 2)."""
    optional = type(None) in typing.get_args(field_info(path).annotation)
    is_int = _is_int(path)
    digits, step = quantities.spec(path).widget.digits, quantities.spec(path).widget.step
    scale = display_scale(path) if percent is None else (100.0 if percent else 1.0)
    current = get(session.scenario(), path)
    current = current * scale if current is not None else None
    kwargs = {}
    if is_int:
        kwargs.update(step=float(step or 1), format="%.0f")
        value = None if current is None else float(current)
    else:
        value = None if current is None else float(current)
        kwargs.update(step=float(step) if step else None, format=f"%.{digits}f" if digits is not None else None)
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if optional and placeholder_value is not None:
        kwargs["placeholder"] = t("w.default_value", value=plain(placeholder_value))
    wkey = key_of(path)
    extra = t("w.empty_means_default") if optional else ""
    st.number_input(_label(t, path, scale), value=value, key=wkey, on_change=on_change, args=(path, wkey, scale),
                    help=_help(t, path, extra, scale), **kwargs)
    show_error(path)


def choice(t, path: str, options: list, *, labels=None, horizontal: bool = False) -> None:
    """A select box (or segmented control) for a Literal or catalog-id field."""
    current = get(session.scenario(), path)
    fmt = (lambda o: labels.get(o, o)) if labels else (lambda o: t.get(f"opt.{path}.{o}", str(o)))
    wkey = keys.label_key(key_of(path), [fmt(o) for o in options])  # new labels: a new widget
    if horizontal:
        st.segmented_control(t(f"field.{path}"), options, default=current, key=wkey, format_func=fmt,
                             on_change=on_change, args=(path, wkey), help=_help(t, path), selection_mode="single")
    else:
        st.selectbox(t(f"field.{path}"), options, index=options.index(current), key=wkey, format_func=fmt,
                     on_change=on_change, args=(path, wkey), help=_help(t, path))
    show_error(path)


def toggle(t, path: str) -> None:
    wkey = key_of(path)  # passed along: a change in the same run may start a new revision first
    st.toggle(t(f"field.{path}"), value=bool(get(session.scenario(), path)), key=wkey,
              on_change=on_change, args=(path, wkey), help=_help(t, path))
    show_error(path)


def show_error(path: str) -> None:
    """Show the error of the change just refused (once: :func:`clear_errors` runs after the page)."""
    err = st.session_state.get(KEY_ERRORS, {}).get(path)
    if err:
        st.error(session.translator()("w.refused", error=md_escape(err)), icon="⚠️")


def clear_errors() -> None:
    """Forget refused-change messages once they have been shown."""
    st.session_state[KEY_ERRORS] = {}

