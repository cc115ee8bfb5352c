"""Own vs rent as tables: the rows of Compare's panel (:mod:`webui.panels.rent_panel`) and the
PDF report's section, from :mod:`costmodel.analysis.rent`. Texts in ``locales/{en,zh}/rent.yaml``; no
Streamlit here, so the report builds without it."""

from __future__ import annotations

import html
import math
from collections.abc import Callable

import numpy as np

from costmodel.analysis import rent
from costmodel.catalog.formatting import format_number
from costmodel.catalog.loader import load_catalog
from webui.i18n.labels import reference_title
from webui.i18n.money import Money
from webui.i18n.translator import Translator


def share(x: float) -> str:
    """A utilisation as a whole percentage (``—`` when undefined)."""
    return "—" if not math.isfinite(x) else f"{x:.0%}"


def spread(typical: str, low: str, high: str) -> str:
    """``typical (low–high)``, or the typical value alone when the range is one value."""
    return typical if low == high == typical else f"{typical} ({low}–{high})"


def figures(result, scenario) -> rent.OwnVsRent | None:
    """The figures, or None when own vs rent does not apply (fabric scope, no rental price for the GPU)."""
    if result.scope != "cluster" or scenario.cluster.gpu not in rent.load_rental_table().gpus:
        return None
    return rent.for_scenario(result, scenario)


def not_applicable(t: Translator, result, scenario) -> str:
    """Why there is nothing to show (fabric scope, or no rental price stored for the GPU)."""
    if result.scope != "cluster":
        return t("rent.fabric_scope")
    cat = load_catalog()
    return t("rent.no_prices", gpu=cat.gpus[scenario.cluster.gpu].name,
             stored=", ".join(cat.gpus[g].name for g in rent.load_rental_table().gpus))


def sources(o: rent.OwnVsRent) -> dict[str, int]:
    """Reference key → its number in the tables' "Source" column, in the order of the classes."""
    return {s: i + 1 for i, s in enumerate(dict.fromkeys(o.sources))}


def price_rows(t: Translator, o: rent.OwnVsRent, money: Money) -> tuple[list[str], list[list[str]]]:
    """Rental prices of the GPU per class: low, typical, high per GPU-hour, month read, source number."""
    num = sources(o)
    header = [t(f"rent.col.{k}") for k in ("class", "low", "typical", "high", "as_of", "source")]
    rows = [[t(f"rent.class.{c}"), *[money(v, digits=2) for v in o.prices[k]], o.as_of[k], f"[{num[o.sources[k]]}]"]
            for k, c in enumerate(o.classes)]
    return header, rows


def owned_rows(t: Translator, o: rent.OwnVsRent, money: Money, names: dict[str, str]
               ) -> tuple[list[str], list[list[str]]]:
    """Per fabric: owned cash per year, cost per GPU-hour (every / busy / useful hour), busy share, and
    the break-even utilisation per class as ``typical (at the high price–at the low price)``."""
    header = [t(f"rent.col.{k}") for k in ("fabric", "owned_year", "owned_hour", "owned_busy", "owned_useful", "busy")]
    header += [t("rent.col.break_even", cls=t(f"rent.short.{c}")) for c in o.classes]
    rows = []
    for i, fid in enumerate(o.fabric_ids):
        be = o.break_even[i]
        rows.append([names.get(fid, fid), money.short(o.owned_cash_per_year[i]), money(o.owned_per_gpu_hour[i], 2),
                     money(o.owned_per_busy_gpu_hour[i], 2), money(o.owned_per_useful_gpu_hour[i], 2),
                     share(o.busy_share[i]),
                     *[spread(share(be[k, 1]), share(be[k, 2]), share(be[k, 0])) for k in range(len(o.classes))]])
    return header, rows


def rented_rows(t: Translator, o: rent.OwnVsRent, money: Money, names: dict[str, str]
                ) -> tuple[list[str], list[list[str]]]:
    """Per fabric: rented GPU-hours of its yearly work, the cost per class ``typical (low–high)``, owned cash."""
    header = [t("rent.col.fabric"), t("rent.col.rent_hours"), *[t(f"rent.class.{c}") for c in o.classes],
              t("rent.col.owned_year")]
    rows = [[names.get(fid, fid), format_number(o.rent_gpu_hours_per_year[i], 0),
             *[spread(*(money.short(v) for v in o.rent_cost_per_year[i, k, [1, 0, 2]])) for k in range(len(o.classes))],
             money.short(o.owned_cash_per_year[i])]
            for i, fid in enumerate(o.fabric_ids)]
    return header, rows


def summary(t: Translator, o: rent.OwnVsRent, names: dict[str, str]) -> str | None:
    """One sentence: renting the cheapest owned fabric's work from specialist clouds, as a multiple of owning."""
    if not np.isfinite(o.owned_cash_per_year).any():
        return None
    j = int(np.nanargmin(o.owned_cash_per_year))
    k = o.classes.index("specialist") if "specialist" in o.classes else 0
    ratio = o.rent_cost_per_year[j, k, 1] / o.owned_cash_per_year[j]
    return t("rent.summary", fabric=names.get(o.fabric_ids[j], o.fabric_ids[j]), cls=t(f"rent.class.{o.classes[k]}"),
             ratio=format_number(ratio, 2))


def intro(t: Translator, o: rent.OwnVsRent, names: dict[str, str]) -> str:
    ref = o.reference[0]
    return t("rent.intro", gpu=load_catalog().gpus[o.gpu].name, gpus=format_number(o.gpus, 0),
             reference=names.get(ref, ref or "—"))


def reference_lines(t: Translator, o: rent.OwnVsRent) -> list[str]:
    """``[n] title`` of each source, in the page's language."""
    refs = load_catalog().references
    return [f"[{n}] {reference_title(t, refs[s])}" for s, n in sources(o).items()]


def rent_section(t: Translator, scenario, res, names: dict[str, str], table: Callable[..., str], money: Money) -> str:
    """The PDF report's section "Own vs rent" as HTML; ``table`` is the report's table builder (escapes cells)."""
    e = html.escape
    parts = [f"<h2>{e(t('rent.title'))}</h2>"]
    o = figures(res, scenario)
    if o is None:
        return "".join([*parts, f"<p class='muted'>{e(not_applicable(t, res, scenario))}</p>"])
    parts.append(f"<p class='muted'>{e(intro(t, o, names))}</p>")
    parts.append(table(*price_rows(t, o, money), widths=[34, 13, 13, 13, 14, 13], text_after=4))
    parts.append(f"<p><b>{e(t('rent.owned_heading'))}</b></p>")
    parts.append(table(*owned_rows(t, o, money, names)))
    parts.append(f"<p><b>{e(t('rent.rent_heading'))}</b></p>")
    parts.append(table(*rented_rows(t, o, money, names)))
    line = summary(t, o, names)
    if line:
        parts.append(f"<p>{e(line)}</p>")
    parts.append(f"<p class='muted'>{e(t('rent.notes', mode=t(f'rent.mode.{o.rented_efficiency}'), currency=money.currency))}</p>")  # noqa: E501
    parts.append("<p class='muted'>" + "<br>".join(e(x) for x in reference_lines(t, o)) + "</p>")
    return "".join(parts)
