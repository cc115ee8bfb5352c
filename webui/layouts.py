"""The training layout a fabric ran at, as one translated line ("TP 8 × PP 4 × DP 16, ZeRO-1,
micro-batch 1"), and its GPU memory (metrics ``layout_*``, ``memory_gb_per_gpu``, issue 12)."""

from __future__ import annotations

from collections.abc import Mapping

from .i18n import Translator, fmt_number


def _n(value: float | None) -> str:
    """A count: whole numbers without decimals, others with one (a micro-batch clipped by the batch)."""
    if value is None:
        return "—"
    return fmt_number(value, 0 if abs(value - round(value)) < 1e-9 else 1)


def layout_text(t: Translator, m: Mapping[str, float | None]) -> str:
    """The layout of one fabric's metrics ``m`` in the current language."""
    parts = [t("layout.text", tp=_n(m["layout_tp"]), pp=_n(m["layout_pp"]), dp=_n(m["layout_dp"]))]
    if (m["layout_vp"] or 1) > 1:
        parts.append(t("layout.chunks", vp=_n(m["layout_vp"])))
    parts.append(t("layout.zero", zero=_n(m["layout_zero"])))
    parts.append(t("layout.micro", b=_n(m["layout_micro_seqs"])))
    if m["layout_recompute"]:
        parts.append(t("layout.recompute"))
    return t("layout.sep").join(parts)


def memory_text(t: Translator, m: Mapping[str, float | None]) -> str:
    """GPU memory a fabric's layout uses and what is usable, in GB."""
    return t("layout.memory", used=fmt_number(m["memory_gb_per_gpu"], 1), usable=fmt_number(m["memory_usable_gb"], 1))
