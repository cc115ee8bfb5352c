"""Method: the equations, the published figures the defaults agree with, the bandwidth
sensitivity of a published run, and the source article's claims beside the model's figures."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from costmodel import runs, sensitivity
from costmodel.anchors import anchors as compute_anchors
from costmodel.catalog import load_catalog
from costmodel.claims import check_all
from costmodel.formatting import format_percent_sig, format_sig
from costmodel.presets import get_preset
from webui import labels, session
from webui.charts import lite
from webui.i18n import catalog, fmt_number
from webui.sensitivity_chart import bandwidth_chart

t = session.translator()
names = labels.fabric_names(t)

st.title(t("method.title"))
st.markdown(t("method.intro"))

st.subheader(t("method.equations"), anchor="equations")


def _tx(key: str) -> str:
    """A word inside an equation, in the page's language, as LaTeX text."""
    return r"\text{" + t(f"method.tex.{key}") + "}"


W = {k: _tx(k) for k in ("recompute", "peak", "dp", "fsdp", "loss", "bucket", "comm", "p2p", "net", "days_per_run",
                         "bw", "port", "gpu", "node", "congestion", "window", "a2a", "sharp",
                         "nic", "switch", "soft", "init", "repair", "hang", "setup", "poisson")}
EQUATIONS = [
    ("eq_compute", r"m = \frac{B}{s\,d\,b},\quad d = \frac{N g}{t\,p},\qquad F_{MFU} = 6P + 12\,l\,s\,h,\quad "
                   rf"F_{{HFU}} = F_{{MFU}}\,(1 + \tfrac{{r}}{{3}}),\qquad T_{{mb}} = \frac{{F_{{HFU}}\,b\,s}}"
                   rf"{{t\,p\,F_{{{W['peak']}}}\,e_c}}"),
    ("eq_bytes", rf"V_{{{W['dp']}}} = 2\,\frac{{d-1}}{{d}}\,\frac{{P\,b_g}}{{t\,p}}\,\frac{{g}}{{k}},\qquad "
                 rf"V_{{{W['fsdp']}}} = m\,\frac{{d-1}}{{d}}\,\frac{{P\,(2 b_w + b_g)}}{{t\,p}}\,\frac{{g}}{{k}}"),
    (
        "eq_bandwidth",
        rf"{W['bw']} = r\cdot R_{{{W['port']}}}\cdot\eta\cdot f_{{{W['loss']}}}\cdot c_{{{W['congestion']}}},"
        rf"\quad f_{{{W['loss']}}}^{{RoCE}} = \frac{{1}}{{1+pW}},"
        rf"\quad f_{{{W['loss']}}}^{{TCP}} = \min\!\left(1, \frac{{n\,\frac{{MSS}}{{RTT}}\frac{{C}}{{\sqrt{{p}}}}}}"
        rf"{{R_{{{W['port']}}}\,\eta}}\right)",
    ),
    (
        "eq_comm",
        rf"t_{{{W['comm']}}} = \frac{{V}}{{q_{{{W['sharp']}}}\,{W['bw']}}} + "
        rf"\left\lceil\frac{{S}}{{{W['bucket']}}}\right\rceil "
        r"\big(\alpha_0 + \min(2(d-1), 2\lceil\log_2 d\rceil)\,L\big)",
    ),
    (
        "eq_a2a",
        rf"t_{{{W['a2a']}}} = \frac{{l}}{{p}}(4 + 2r)\,\frac{{b\,s}}{{t}}\,h\,b_a\,k\,\frac{{e - e_n}}{{e}}\,"
        rf"\frac{{1}}{{\min(1, r_n/g)\,R_{{{W['port']}}}\,\eta_{{{W['a2a']}}}}}",
    ),
    (
        "eq_step",
        r"\begin{gathered}"
        rf"T = \big(m + \tfrac{{p-1}}{{v}}\big)"
        rf"\big(T_{{mb}} + T_{{TP}} + t_{{{W['p2p']}}} + (1-o)\,t_{{{W['a2a']}}}\big) \\"
        rf" + e + \sigma\,(t_{{{W['comm']}}} - e),\quad "
        rf"e = \max\!\big(t_{{{W['comm']}}} - W_{{{W['window']}}},\ \tfrac{{t_{{{W['comm']}}}}}{{n_b}}\big) \\"
        rf"W_{{{W['window']}}} = f_{{bwd}}\,T_{{mb}},"
        r"\quad MFU = \frac{F_{MFU}\,B}{T\,N g\,F}"
        r"\end{gathered}",
    ),
    ("eq_failures", rf"\Lambda = N g\,\lambda_{{{W['gpu']}}} + N\,\lambda_{{{W['node']}}} "
                    rf"+ N r\,\lambda_{{{W['nic']}}} + \textstyle\sum_c L_c\lambda_c + X\lambda_x "
                    rf"+ S\,\lambda_{{{W['switch']}}} + N g\,\lambda_{{{W['soft']}}},\qquad M = 1/\Lambda"),
    (
        "eq_restart",
        rf"R_c = R_0 + t_{{{W['init']}}}\,N g + q_c\,P(K \ge s)\,T_{{{W['repair']}}}"
        rf" + [c = {W['soft']}]\,T_{{{W['hang']}}},\quad K \sim {W['poisson']}\big(\textstyle\sum_c q_c\Lambda_c"
        rf"T_{{{W['repair']}}}\big),\quad s = \lceil f N\rceil,\quad R = \frac{{\sum_c \Lambda_c R_c}}{{\Lambda}}",
    ),
    (
        "eq_daly",
        r"\tau = \sqrt{2\delta M}\left[1 + \tfrac13\sqrt{\tfrac{\delta}{2M}} + \tfrac19\tfrac{\delta}{2M}\right] "
        r"- \delta",
    ),
    (
        "eq_goodput",
        r"G = \frac{\tau}{M\,e^{R/M}\,(e^{(\tau+\delta)/M} - 1)},\qquad "
        rf"{W['days_per_run']} = \frac{{D}}{{B}}\,\frac{{T}}{{86400\,G}} + \frac{{T_{{{W['setup']}}}}}{{24}}",
    ),
    ("eq_energy", rf"E = \big(N(h_b P_b + (8760-h_b) P_i) + 8760\,P_{{{W['net']}}}\big)\cdot PUE \cdot c_{{kWh}}"),
    ("eq_npv", r"TCO = \sum_{t=0}^{H} C_t,\qquad NPV = -\sum_{t=0}^{H}\frac{C_t}{(1+r)^t}"),
    (
        "eq_time",
        r"v = \rho\,N g,\qquad C_{wait} = h_b\,\frac{t_{exp}}{T}\,v,\qquad C_{lost} = h_{lost}\,v,\qquad "
        r"C_{CPU} = s_{CPU}\,(c_{CPU}\,h_b\,v + N P_{CPU}\,h_b\,PUE\,c_{kWh})",
    ),
    (
        "eq_work",
        r"N^{*} = \min\{N : n_{runs}\,T_{run}(N) \le 8760\ h,\ T_{run}(N) \le T_{target},\ "
        r"M(N) \le M_{GPU}\},\qquad C_{work} = TCO(N^{*}) - C_{wait} - C_{lost} - C_{CPU}",
    ),
    (
        "eq_rent",
        r"c_{own} = \frac{C_{cash}/H}{N g \cdot 8760\,u},\qquad "
        r"u^{*} = \frac{C_{cash}/H}{\rho_{rent}\,N g \cdot 8760},\qquad "
        r"C_{rent} = \rho_{rent}\,n_{runs}\,T_{run}^{ref}\,N g",
    ),
]
for key, latex in EQUATIONS:
    st.markdown(f"**{t(f'method.{key}')}**")
    st.latex(latex)
st.caption(t("method.full_doc"))

st.subheader(t("method.anchors"), anchor="anchors")


@st.cache_data(show_spinner=False)
def _anchors() -> list[dict]:
    return [a.__dict__ for a in compute_anchors()]


anchors = pd.DataFrame(
    [
        {
            t("method.col_anchor"): t(f"method.anchor_{a['key']}"),
            t("method.col_source"): t.get(f"method.src_{a['key']}", a["source"]) + ": "
            + t.get(f"method.pub_{a['key']}", a["published"]),
            t("method.col_model"): f"{a['model']:,.1f} " + t.get(f"method.unit_{a['unit']}", a["unit"]),
        }
        for a in _anchors()
    ]
)
st.dataframe(anchors, hide_index=True, width="stretch", key="method_anchors")

st.subheader(t("runs.title"), anchor="runs")
st.markdown(t("runs.intro"))


@st.cache_data(show_spinner=False)
def _runs() -> tuple[list[dict], dict]:
    checks, efficiency = runs.check_runs()
    return [c.__dict__ | {"error": c.error, "within": c.within} for c in checks], efficiency


def _run_figure(metric: str, x: float) -> str:
    if metric == "mfu":
        return format_percent_sig(x)
    return t(f"runs.unit_{metric}", x=fmt_number(x, {"tokens_per_gpu_s": 0, "step_time_s": 2}.get(metric, 1)))


run_rows, run_eff = _runs()
run_table = pd.DataFrame([
    {
        t("runs.col_run"): r["text_zh"] if t.lang == "zh" else r["text"],
        t("runs.col_published"): _run_figure(r["metric"], r["published"]),
        t("runs.col_model"): _run_figure(r["metric"], r["model"]),
        t("runs.col_error"): (f"{r['error'] * 100:+.1f} " + t("runs.points")) if r["metric"] == "mfu"
        else f"{r['error']:+.1%}",
        t("runs.col_verdict"): t(f"runs.role_{r['role']}") if r["role"] != "check"
        else t("runs.within" if r["within"] else "runs.miss"),
        t("runs.col_mfu"): f"{format_percent_sig(r['mfu'])} / {format_percent_sig(r['hfu'])}",
    }
    for r in run_rows
])
st.dataframe(run_table, hide_index=True, width="stretch", key="method_runs")
gpus = load_catalog().gpus
st.caption(t("runs.caption", eff=", ".join(f"{gpus[g].name} {e:.3f}" for g, e in sorted(run_eff.items()))))

st.subheader(t("sensitivity.title"), anchor="sensitivity")


@st.cache_data(show_spinner=False)
def _sensitivity(run_id: str):
    return sensitivity.curve(run_id), sensitivity.markers(run_id), sensitivity.reference(run_id)[0].cluster.nodes


ref_ids = list(sensitivity.settings()["references"])
run_id = st.selectbox(t("sensitivity.reference"), ref_ids, format_func=lambda r: t(f"sensitivity.ref.{r}"),
                      key=f"method_sensitivity_run_{t.lang}")
bw_curve, bw_markers, bw_nodes = _sensitivity(run_id)
calculon = sensitivity.calculon_inputs(run_id)
families = {f: q.family for f, q in load_catalog().fabrics.items()}
S = {k[len("sensitivity."):]: t(k) for k in catalog("en") if k.startswith("sensitivity.")}
S["_lang"] = t.lang
st.plotly_chart(lite(bandwidth_chart, bw_curve, bw_markers, calculon, names, families, S),
                key="chart_bandwidth", width="stretch")
own = next(m for m in bw_markers if m.fabric == bw_curve.fabric)


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


share = pct(bw_curve.knee_share).replace(".0 %", " %")
st.markdown(t("sensitivity.fixed", nodes=f"{bw_nodes:,}", fabric=names.get(bw_curve.fabric, bw_curve.fabric)))
if math.isfinite(bw_curve.knee_gbs):
    st.markdown(t("sensitivity.knee_text", share=share, unbounded=pct(bw_curve.unbounded_mfu),
                  knee=f"{bw_curve.knee_gbs:.3g}", own=f"MFU {pct(own.mfu)}"))
else:
    st.markdown(t("sensitivity.knee_off_grid", share=share, unbounded=pct(bw_curve.unbounded_mfu)))
st.markdown(t("sensitivity.calculon_found", searched=calculon["searched"], share=share, knee=f"{bw_curve.knee_gbs:.3g}",
              unbounded=pct(bw_curve.unbounded_mfu), cal_unbounded=pct(calculon["unbounded"]),
              cal_knee=f"{calculon['knee_gbs']:.3g}") if calculon["curve"] else
            t("sensitivity.calculon_other_run", searched=calculon["searched"],
              run=t(f"sensitivity.ref.{calculon['run']}")))

st.subheader(t("method.claims"), anchor="claims")
st.caption(t("method.claims_intro"))


@st.cache_data(show_spinner=False)
def _claims() -> list[dict]:
    return [c.__dict__ for c in check_all()]


def _claimed(claimed) -> str:
    if isinstance(claimed, list | tuple):
        return f"{format_sig(claimed[0])} – {format_sig(claimed[1])}"
    return format_sig(claimed)


rows = []
for c in _claims():
    rows.append(
        {
            t("method.col_case"): t(f"preset.{c['preset']}"),
            t("method.col_claim"): c["text_zh"] if t.lang == "zh" and c["text_zh"] else c["text"],
            t("method.col_fabric"): names.get(c["fabric"], c["fabric"]),
            t("method.col_claimed"): _claimed(c["claimed"]),
            t("method.col_modelled"): format_sig(c["modelled"]),
            t("method.col_verdict"): t("method.reproduced") if c["reproduced"] else t("method.not_reproduced"),
            t("method.col_why"): labels.claim_why(t, c["why"]),
        }
    )
# a static table: every column wraps, so the verdict is never cut off and no number is scientific
st.table(pd.DataFrame(rows), hide_index=True)
with st.expander(t("method.quotes")):
    for pid in sorted({c["preset"] for c in _claims()}):
        st.markdown(f"**{t(f'preset.{pid}')}**")
        st.text(get_preset(pid).quote)
