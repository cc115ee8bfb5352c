"""Fabric TCO Planner — Streamlit entry point.

Until the dashboard issue lands this page shows the model's comparison table for a preset;
all numbers come from :func:`costmodel.evaluate`.
"""

from __future__ import annotations

import streamlit as st

import costmodel
from costmodel.formatting import format_money, format_number, format_share
from costmodel.presets import get_preset

st.set_page_config(page_title="Fabric TCO Planner", layout="wide")


@st.cache_data(max_entries=32, show_spinner=False)
def _evaluate(preset_id: str) -> dict:
    return costmodel.evaluate(costmodel.load_preset(preset_id)).to_dict()


st.title("Fabric TCO Planner")
st.caption("5-year TCO of a GPU training cluster per network fabric — TCP Ethernet, RoCE, "
           "iWARP, InfiniBand.")
preset_id = st.selectbox("Preset", costmodel.list_presets(),
                         format_func=lambda pid: get_preset(pid).title)
res = _evaluate(preset_id)
cur = res["currency"]
rows = {
    f["id"]: {
        "Fabric": f["name"],
        f"TCO {res['horizon_years']} y": format_money(f["tco_total"], cur),
        "Δ vs baseline": format_money(f["delta_vs_baseline"], cur),
        "Days per run": format_number(f["run_days"]),
        "GPU utilisation": format_share(f["gpu_utilization"]),
        "Interruptions / year": format_number(f["interruptions_per_year"]),
        "CPU overhead": format_share(f["cpu_overhead_share"], 2),
    }
    for f in res["fabrics"]
}
st.dataframe(list(rows.values()), hide_index=True, width="stretch")
rec = res["recommendation"]
st.subheader("Recommendation")
st.write(f"Seed rule: **{rec['rule'] or '—'}** · cost-optimal: **{rec['cost_optimal']}**")
for reason in rec["reasons"]:
    st.markdown(f"- {reason}", unsafe_allow_html=False)
