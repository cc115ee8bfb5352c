"""Method: the equations, the published figures the defaults agree with, the bandwidth
sensitivity of a published run, and the source article's claims beside the model's figures."""

from __future__ import annotations

import math

import streamlit as st

from costmodel.evidence import sensitivity
from costmodel.scenario.presets import get_preset
from webui.charts.base import LiteFigure
from webui.i18n import labels
from webui.panels import method_data
from webui.session import state as session

t = session.translator()
names = labels.fabric_names(t)

st.title(t("method.title"))
st.markdown(t("method.intro"))

st.subheader(t("method.equations"), anchor="equations")


def _tx(key: str) -> str:
    """A word inside an equation, in the page's language, as LaTeX text."""
    return r"\text{" + t(f"method.tex.{key}") + "}"


W = {k: _tx(k) for k in ("recompute", "peak", "dp", "fsdp", "loss", "bucket", "comm", "p2p", "net", "days_per_run",
                         "bw", "port", "slot", "gpu", "node", "congestion", "window", "a2a", "sharp", "or",
                         "nic", "switch", "soft", "init", "repair", "hang", "setup", "poisson")}
EQUATIONS = [
    ("eq_compute", r"m = \frac{B}{s\,d\,b},\quad d = \frac{N g}{t\,p},\qquad F_{MFU} = 6P + 12\,l\,s\,h,\quad "
                   rf"F_{{HFU}} = F_{{MFU}}\,(1 + \tfrac{{r}}{{3}}),\qquad T_{{mb}} = \frac{{F_{{HFU}}\,b\,s}}"
                   rf"{{t\,p\,F_{{{W['peak']}}}\,e_c}},\quad e_c = \rho\,e(h,\,t,\,b\,s)"),
    ("eq_bytes", rf"V_{{{W['dp']}}} = 2\,\frac{{d-1}}{{d}}\,\frac{{P\,b_g}}{{t\,p}}\,\frac{{g}}{{k}},\qquad "
                 rf"V_{{{W['fsdp']}}} = m\,\frac{{d-1}}{{d}}\,\frac{{P\,(2 b_w + b_g)}}{{t\,p}}\,\frac{{g}}{{k}}"),
    (
        "eq_bandwidth",
        rf"{W['bw']} = r\cdot\min(R_{{{W['port']}}},\,R_{{{W['slot']}}})\cdot\eta\cdot f_{{{W['loss']}}}"
        rf"\cdot c_{{{W['congestion']}}},"
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
        r"\begin{gathered}"
        rf"t_{{{W['a2a']}}} = \frac{{l}}{{p}}(4 + 2r)\,\frac{{b\,s}}{{t}}\,h\,b_a\,\kappa\,"
        rf"\frac{{1}}{{\min(1, r_n/g)\,\min(R_{{{W['port']}}},\,R_{{{W['slot']}}})\,\eta_{{{W['a2a']}}}}},\quad "
        rf"\kappa = k\,\frac{{e - e_n}}{{e}}\ {W['or']}\ \mathbb{{E}}[\min(M, D)]\,\frac{{N-1}}{{N}} \\"
        rf"x_{{{W['a2a']}}} = t_{{{W['a2a']}}} - H + \sigma_a H,\quad H = o\,\min(t_{{{W['a2a']}}},\ T_{{mb}})"
        r"\end{gathered}",
    ),
    (
        "eq_step",
        r"\begin{gathered}"
        rf"T = \big(m + \tfrac{{p-1}}{{v}}\big)"
        rf"\big(T_{{mb}} + T_{{TP}} + t_{{{W['p2p']}}} + x_{{{W['a2a']}}}\big) \\"
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
st.dataframe(method_data.anchor_table(t.lang), hide_index=True, width="stretch", key="method_anchors")

st.subheader(t("runs.title"), anchor="runs")
st.markdown(t("runs.intro"))
st.dataframe(method_data.run_table(t.lang), hide_index=True, width="stretch", key="method_runs")
run_mean, run_misses, run_n = method_data.run_summary()
st.caption(t("runs.caption", n=run_n, mean=f"{100 * run_mean:.1f} %", misses=len(run_misses)))

st.subheader(t("runs.serving_title"), anchor="serving-runs")
st.markdown(t("runs.serving_intro"))
st.dataframe(method_data.serving_table(t.lang), hide_index=True, width="stretch", key="method_serving_runs")
serving_errors = [abs(r["error"]) for r in method_data.serving_runs() if r["error"] == r["error"]]
st.caption(t("runs.serving_caption", n=len(serving_errors),
             mean=f"{100 * sum(serving_errors) / max(1, len(serving_errors)):.1f} %"))

st.subheader(t("sensitivity.title"), anchor="sensitivity")
ref_ids = list(sensitivity.settings()["references"])
run_id = st.selectbox(t("sensitivity.reference"), ref_ids, format_func=lambda r: t(f"sensitivity.ref.{r}"),
                      key=f"method_sensitivity_run_{t.lang}")
bw_curve, bw_markers, bw_nodes = method_data.bandwidth(run_id)
calculon = sensitivity.calculon_inputs(run_id)
st.plotly_chart(LiteFigure(method_data.bandwidth_spec(run_id, t.lang)), key="chart_bandwidth", width="stretch")
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
# a static table: every column wraps, so the verdict is never cut off and no number is scientific
st.table(method_data.claim_table(t.lang), hide_index=True)
for line in method_data.reference_notes(t.lang):
    st.caption(line)
with st.expander(t("method.quotes")):
    for pid in sorted({c["preset"] for c in method_data.claims()}):
        st.markdown(f"**{t(f'preset.{pid}')}**")
        st.text(get_preset(pid).quote)
