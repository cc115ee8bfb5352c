"""The scale-out fabric's share of a training step, per fabric, for the Compare page and the PDF alike:
a small table (the fabric, its share of the step spent waiting on scale-out communication that compute
does not hide, those seconds) and one sentence that says plainly whether the fabric matters much here.
Plain text: the page's Markdown and the PDF's HTML each escape it."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.catalog.formatting import format_number, format_share
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.results import Result
from webui.i18n.translator import Translator


def scaleout_table(t: Translator, res: Result, names: Mapping[str, str]) -> tuple[list[str], list[list[str]]]:
    """(header, rows): each fabric's scale-out share of the step [%] and its scale-out wait per step [s]."""
    header = [t("scaleup.column_fabric"), t("scaleup.column_share"), t("scaleup.column_exposed")]
    rows = [[names.get(f.id, f.id), format_share(f.metrics["scaleout_share"], 1),
             format_number(f.metrics["scaleout_share"] * f.metrics["step_time_s"], 3)] for f in res.fabrics]
    return header, rows


def scaleout_caption(t: Translator, res: Result) -> str:
    """What the share measures, with the scale-up domain's size."""
    return t("scaleup.caption", domain=format_number(res.scaleup_domain_gpus or res.gpus_per_node, 0))


def scaleout_note(t: Translator, res: Result) -> str:
    """The honest reading: the fabric matters little where every fabric's share is below
    ``model.scaleout_small_share`` (data/defaults.yaml), else how much of a step it takes at most."""
    worst = max((f.metrics["scaleout_share"] for f in res.fabrics), default=0.0)
    small = worst < load_catalog().constant("scaleout_small_share")
    return t("scaleup.small" if small else "scaleup.large", share=format_share(worst, 1))


__all__ = ["scaleout_caption", "scaleout_note", "scaleout_table"]
