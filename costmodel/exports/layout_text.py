"""The training layout a fabric ran at as one line ("TP 8 × PP 4 × DP 16, ZeRO-1, micro-batch 1"),
written once for the app's pages (webui/i18n/layouts.py, texts from the locale files ``layout.*``) and the
workbook (costmodel/exports/training_sheet.py, texts from data/export_labels.yaml ``training.layout_*``)."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.catalog.formatting import format_number

#: the texts :func:`layout_text` reads: ``text`` ({tp}, {pp}, {dp}), ``chunks`` ({vp}), ``zero``
#: ({zero}), ``micro`` ({b}), ``recompute`` (no placeholder) and the separator ``sep``
KEYS = ("text", "chunks", "zero", "micro", "recompute", "sep")


def count_text(value: float | None) -> str:
    """A count: whole numbers without decimals, others with one (a micro-batch clipped by the batch);
    an em dash when missing."""
    if value is None:
        return "—"
    return format_number(value, 0 if abs(value - round(value)) < 1e-9 else 1)


def layout_text(texts: Mapping[str, str], m: Mapping[str, float | None]) -> str:
    """One fabric's layout from its metrics ``m`` (``layout_tp``, ``layout_pp``, ``layout_dp``,
    ``layout_vp``, ``layout_zero``, ``layout_micro_seqs`` [sequences], ``layout_recompute`` 0/1) in the
    language of ``texts`` (the :data:`KEYS`); interleaved chunks only above 1, recomputation only when on."""
    parts = [texts["text"].format(tp=count_text(m["layout_tp"]), pp=count_text(m["layout_pp"]),
                                  dp=count_text(m["layout_dp"]))]
    if (m["layout_vp"] or 1) > 1:
        parts.append(texts["chunks"].format(vp=count_text(m["layout_vp"])))
    parts.append(texts["zero"].format(zero=count_text(m["layout_zero"])))
    parts.append(texts["micro"].format(b=count_text(m["layout_micro_seqs"])))
    if m["layout_recompute"]:
        parts.append(texts["recompute"])
    return texts["sep"].join(parts)
