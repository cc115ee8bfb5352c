"""The PDF report's section "Reliability by fabric": per fabric, interruptions per year
by cause, the mean restart, hot-spare servers, setup hours per run and goodput — the Compare
page's table (:mod:`webui.panels.reliability_panel`), its texts in ``locales/{en,zh}/reliability.yaml``."""

from __future__ import annotations

import html
from collections.abc import Callable

from costmodel.catalog.formatting import format_number, format_share
from costmodel.physics.reliability import CAUSES
from webui.i18n.translator import Translator

COLUMNS = (*(f"cause.{c}" for c in CAUSES), "total", "restart_h", "spares", "setup_h", "goodput")


def fabric_rows(res, names: dict[str, str]) -> list[list[str]]:
    """Per fabric: name, interruptions per year by cause and in all, mean restart [h], hot spares,
    setup per run [h], goodput."""
    out = []
    for f in res.fabrics:
        m = f.metrics
        out.append([names[f.id], *(format_number(m[f"interruptions_{c}_per_year"], 2) for c in CAUSES),
                    format_number(m["interruptions_per_year"], 2), format_number(m["restart_hours"], 2),
                    format_number(m["spare_nodes"], 0), format_number(m["setup_hours_per_run"], 1),
                    format_share(m["goodput"], 2)])
    return out


def reliability_section(t: Translator, res, names: dict[str, str], table: Callable[..., str]) -> str:
    """The section's HTML; ``table`` is the report's table builder (escapes every cell)."""
    e = html.escape
    header = [t("reliability.fabric"), *(t(f"reliability.{k}") for k in COLUMNS)]
    return "".join([
        f"<h2>{e(t('reliability.title'))}</h2>",
        table(header, fabric_rows(res, names), numeric_from=1, widths=[14] + [86 // len(COLUMNS)] * len(COLUMNS)),
        f"<p class='muted'>{e(t('reliability.note'))}</p>",
    ])
