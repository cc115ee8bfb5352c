"""Method: the equations, the published figures the defaults agree with, and the source
article's claims beside the model's figures."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.anchors import anchors as compute_anchors
from costmodel.claims import check_all
from costmodel.presets import get_preset
from webui import labels, session

t = session.translator()
names = labels.fabric_names(t)

st.title(t("method.title"))
st.markdown(t("method.intro"))

st.subheader(t("method.equations"))
EQUATIONS = [
    ("eq_compute", r"T_c = \frac{k\,P\,B}{N\,g\,F_{peak}\,e_c},\quad k = 6\ (8\ \text{with full recompute})"),
    ("eq_bytes", r"V_{dp} = 2\,\frac{d-1}{d}\,\frac{P\,b}{p},\qquad V_{fsdp} = 3\,\frac{N-1}{N}\,P\,b"),
    (
        "eq_bandwidth",
        r"BW = r\cdot R_{port}\cdot\eta\cdot f_{loss},\quad f_{loss}^{RoCE} = \frac{1}{1+pW},\quad "
        r"f_{loss}^{TCP} = \min\!\left(1, \frac{n\,\frac{MSS}{RTT}\frac{C}{\sqrt{p}}}{R_{port}\,\eta}\right)",
    ),
    (
        "eq_comm",
        r"t_{comm} = \frac{V}{BW} + \left\lceil\frac{S}{bucket}\right\rceil \min(2(d-1), 2\lceil\log_2 d\rceil)"
        r"\,\alpha",
    ),
    (
        "eq_step",
        r"T = T_c(1+\tfrac{p-1}{m}) + \max(0,\ t_{comm} - o\,T_c) + t_{p2p},\qquad u = T_c/T,\quad "
        r"MFU = e_c\,u",
    ),
    ("eq_failures", r"\Lambda = N g\,\lambda_{gpu} + N\,\lambda_{node} + N r\,\lambda_{port},\qquad M = 1/\Lambda"),
    (
        "eq_daly",
        r"\tau = \sqrt{2\delta M}\left[1 + \tfrac13\sqrt{\tfrac{\delta}{2M}} + \tfrac19\tfrac{\delta}{2M}\right] "
        r"- \delta",
    ),
    (
        "eq_goodput",
        r"G = \frac{\tau}{M\,e^{R/M}\,(e^{(\tau+\delta)/M} - 1)},\qquad "
        r"\text{days per run} = \frac{D}{B}\,\frac{T}{86400\,G}",
    ),
    ("eq_energy", r"E = \big(N(h_b P_b + (8760-h_b) P_i) + 8760\,P_{net}\big)\cdot PUE \cdot c_{kWh}"),
    ("eq_npv", r"TCO = \sum_{t=0}^{H} C_t,\qquad NPV = -\sum_{t=0}^{H}\frac{C_t}{(1+r)^t}"),
]
for key, latex in EQUATIONS:
    st.markdown(f"**{t(f'method.{key}')}**")
    st.latex(latex)
st.caption(t("method.full_doc"))

st.subheader(t("method.anchors"))


@st.cache_data(show_spinner=False)
def _anchors() -> list[dict]:
    return [a.__dict__ for a in compute_anchors()]


anchors = pd.DataFrame(
    [
        {
            t("method.col_anchor"): t(f"method.anchor_{a['key']}"),
            t("method.col_source"): f"{a['source']}: {a['published']}",
            t("method.col_model"): f"{a['model']:,.1f} {a['unit']}",
        }
        for a in _anchors()
    ]
)
st.dataframe(anchors, hide_index=True, width="stretch", key="method_anchors")

st.subheader(t("method.claims"))
st.caption(t("method.claims_intro"))


@st.cache_data(show_spinner=False)
def _claims() -> list[dict]:
    return [c.__dict__ for c in check_all()]


rows = []
for c in _claims():
    claimed = c["claimed"]
    claimed_text = f"{claimed[0]:,.4g} – {claimed[1]:,.4g}" if isinstance(claimed, list | tuple) else f"{claimed:,.4g}"
    rows.append(
        {
            t("method.col_case"): t(f"preset.{c['preset']}"),
            t("method.col_claim"): c["text_zh"] if t.lang == "zh" and c["text_zh"] else c["text"],
            t("method.col_fabric"): names.get(c["fabric"], c["fabric"]),
            t("method.col_claimed"): claimed_text,
            t("method.col_modelled"): f"{c['modelled']:,.4g}",
            t("method.col_verdict"): t("method.reproduced") if c["reproduced"] else t("method.not_reproduced"),
            t("method.col_why"): c["explanation"],
        }
    )
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="method_claims")
with st.expander(t("method.quotes")):
    for pid in sorted({c["preset"] for c in _claims()}):
        st.markdown(f"**{t(f'preset.{pid}')}**")
        st.text(get_preset(pid).quote)
