"""The training layout a fabric ran at, as one translated line ("TP 8 × PP 4 × DP 16, ZeRO-1,
micro-batch 1"), and its GPU memory (metrics ``layout_*``, ``memory_gb_per_gpu``)."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.exports import layout_text as layout
from webui.i18n.translator import Translator, fmt_number


def layout_text(t: Translator, m: Mapping[str, float | None]) -> str:
    """The layout of one fabric's metrics ``m`` in the current language (the locale's ``layout.*``
    texts, written by :func:`costmodel.exports.layout_text.layout_text` as the workbook writes it)."""
    return layout.layout_text({k: t(f"layout.{k}") for k in layout.KEYS}, m)


def memory_text(t: Translator, m: Mapping[str, float | None]) -> str:
    """GPU memory a fabric's layout uses and what is usable, in GB."""
    return t("layout.memory", used=fmt_number(m["memory_gb_per_gpu"], 1), usable=fmt_number(m["memory_usable_gb"], 1))
