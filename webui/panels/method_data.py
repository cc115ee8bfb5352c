"""What the Method page shows, computed once per process (and per language): the anchors, the
published runs, the bandwidth sensitivity with its chart, and the article's claims. None of it
depends on the session's scenario, so a rerun of the page only draws it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.catalog.formatting import format_percent_sig, format_sig
from costmodel.catalog.loader import load_catalog
from costmodel.evidence import runs, sensitivity
from costmodel.evidence.anchors import anchors as compute_anchors
from costmodel.evidence.claims import check_all
from costmodel.serving import published as serving_published
from webui.charts.bandwidth import bandwidth_chart
from webui.charts.base import lite
from webui.i18n import labels
from webui.i18n.translator import Translator, catalog, fmt_number


@st.cache_data(show_spinner=False)
def anchors() -> list[dict]:
    return [a.__dict__ for a in compute_anchors()]


@st.cache_data(show_spinner=False)
def published_runs() -> tuple[list[dict], dict]:
    checks, efficiency = runs.check_runs()
    return [c.__dict__ | {"error": c.error, "within": c.within} for c in checks], efficiency


@st.cache_data(show_spinner=False)
def run_summary() -> tuple[float, list[str], int]:
    """Mean |relative error| of the checked runs, the ids outside their tolerance, how many were checked."""
    return runs.summary(runs.check_runs()[0])


@st.cache_data(show_spinner=False)
def serving_runs() -> list[dict]:
    """Published serving measurements beside the serving model (costmodel.serving.published)."""
    return serving_published.compare()


@st.cache_data(show_spinner=False)
def serving_table(lang: str) -> pd.DataFrame:
    """One row per published serving measurement: what ran, the measured and modelled tokens/s per server."""
    t = Translator(lang)
    return pd.DataFrame([
        {
            t("runs.serving_col_run"): r["name_zh"] if t.lang == "zh" else r["name"],
            t("runs.serving_col_role"): t(f"runs.serving_role_{r['role']}"),
            t("runs.col_published"): fmt_number(r["measured"], 0),
            t("runs.col_model"): fmt_number(r["modelled"], 0) if r["modelled"] == r["modelled"] else "—",
            t("runs.col_error"): f"{r['error']:+.1%}" if r["error"] == r["error"] else t("runs.serving_unreachable"),
        }
        for r in serving_runs()
    ])


@st.cache_data(show_spinner=False)
def bandwidth(run_id: str):
    """The sensitivity curve of a published run, its fabrics' markers and the run's node count."""
    return sensitivity.curve(run_id), sensitivity.markers(run_id), sensitivity.reference(run_id)[0].cluster.nodes


@st.cache_data(show_spinner=False)
def claims() -> list[dict]:
    return [c.__dict__ for c in check_all()]


@st.cache_data(show_spinner=False)
def anchor_table(lang: str) -> pd.DataFrame:
    t = Translator(lang)
    return pd.DataFrame([
        {
            t("method.col_anchor"): t(f"method.anchor_{a['key']}"),
            t("method.col_source"): t.get(f"method.src_{a['key']}", a["source"]) + ": "
            + t.get(f"method.pub_{a['key']}", a["published"]),
            t("method.col_model"): f"{a['model']:,.1f} " + t.get(f"method.unit_{a['unit']}", a["unit"]),
        }
        for a in anchors()
    ])


def _run_figure(t: Translator, metric: str, x: float) -> str:
    if metric == "mfu":
        return format_percent_sig(x)
    return t(f"runs.unit_{metric}", x=fmt_number(x, {"tokens_per_gpu_s": 0, "step_time_s": 2}.get(metric, 1)))


@st.cache_data(show_spinner=False)
def run_table(lang: str) -> pd.DataFrame:
    t = Translator(lang)
    return pd.DataFrame([
        {
            t("runs.col_run"): r["text_zh"] if t.lang == "zh" else r["text"],
            t("runs.col_published"): _run_figure(t, r["metric"], r["published"]),
            t("runs.col_model"): _run_figure(t, r["metric"], r["model"]),
            t("runs.col_error"): (f"{r['error'] * 100:+.1f} " + t("runs.points")) if r["metric"] == "mfu"
            else f"{r['error']:+.1%}",
            t("runs.col_verdict"): t(f"runs.role_{r['role']}") if r["role"] != "check"
            else t("runs.within" if r["within"] else "runs.miss"),
            t("runs.col_mfu"): f"{format_percent_sig(r['mfu'])} / {format_percent_sig(r['hfu'])}",
        }
        for r in published_runs()[0]
    ])


@st.cache_data(show_spinner=False)
def bandwidth_spec(run_id: str, lang: str) -> dict:
    """The bandwidth chart's Plotly spec for ``run_id`` in ``lang``."""
    t = Translator(lang)
    curve, markers, _ = bandwidth(run_id)
    families = {f: q.family for f, q in load_catalog().fabrics.items()}
    texts = {k[len("sensitivity."):]: t(k) for k in catalog("en") if k.startswith("sensitivity.")}
    texts["_lang"] = t.lang
    return lite(bandwidth_chart, curve, markers, sensitivity.calculon_inputs(run_id), labels.fabric_names(t),
                families, texts).to_dict()


def _claimed(claimed) -> str:
    if isinstance(claimed, list | tuple):
        return f"{format_sig(claimed[0])} – {format_sig(claimed[1])}"
    return format_sig(claimed)


def _reference_cell(t: Translator, c: dict) -> str:
    """The claim under its preset's reference design: the model's figure and its verdict ("—" without one)."""
    if c["reference"] is None:
        return "—"
    verdict = t("method.reproduced") if c["reference_reproduced"] else t("method.not_reproduced")
    return f"{format_sig(c['reference'])} ({verdict})"


def reference_notes(lang: str) -> list[str]:
    """One line per preset with a reference design: which design its claims are also checked under."""
    t = Translator(lang)
    seen = {}
    for c in claims():
        if c["reference"] is not None:
            seen.setdefault(c["preset"], c["reference_text_zh"] if t.lang == "zh" else c["reference_text"])
    return [t("method.reference_note", case=t(f"preset.{pid}"), design=text) for pid, text in seen.items()]


@st.cache_data(show_spinner=False)
def claim_table(lang: str) -> pd.DataFrame:
    t = Translator(lang)
    names = labels.fabric_names(t)
    return pd.DataFrame([
        {
            t("method.col_case"): t(f"preset.{c['preset']}"),
            t("method.col_claim"): c["text_zh"] if t.lang == "zh" and c["text_zh"] else c["text"],
            t("method.col_fabric"): names.get(c["fabric"], c["fabric"]),
            t("method.col_claimed"): _claimed(c["claimed"]),
            t("method.col_modelled"): format_sig(c["modelled"]),
            t("method.col_verdict"): t("method.reproduced") if c["reproduced"] else t("method.not_reproduced"),
            t("method.col_reference"): _reference_cell(t, c),
            t("method.col_why"): labels.claim_why(t, c["why"]),
        }
        for c in claims()
    ])
