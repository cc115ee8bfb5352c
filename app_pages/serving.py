"""Serving: an inference service on the cluster's GPU and each compared fabric — its inputs (the
scenario's ``serving`` section), the servers, latencies and cost per million tokens per fabric, the
equal-SLA comparison against the baseline, the latency–throughput chart and a recommendation."""

from __future__ import annotations

import streamlit as st

from costmodel.catalog.loader import load_catalog
from costmodel.catalog.serving_data import PRECISIONS
from costmodel.catalog.serving_data import load as load_serving
from webui import compute
from webui.charts.base import lite
from webui.charts.serving import latency_throughput
from webui.i18n import labels
from webui.i18n.text import markdown_table, md_escape
from webui.inputs import widgets
from webui.sections import serving as rows
from webui.session import state as session

t = session.translator()
money = session.money()
cat = load_catalog()
scenario = session.scenario()
gpu = cat.gpus[scenario.cluster.gpu]
names = labels.fabric_names(t)
short = labels.fabric_short_names(t)

st.title(t("serving.title"))
st.caption(t("serving.intro", gpu=labels.gpu_name(t, scenario.cluster.gpu)))

# --- inputs: each change goes into the session's scenario (and so into the share link)
with st.container(border=True):
    st.subheader(t("serving.inputs"))
    models = {k: t.get(f"serving.model_name.{k.replace('.', '_')}", m.name) for k, m in load_serving().models.items()}
    top = st.columns([2, 2, 2])
    with top[0]:
        widgets.choice(t, "serving.model", list(models), labels=models)
    with top[1]:
        offered = [p for p in PRECISIONS if gpu.peak_tflops(p) is not None]
        widgets.choice(t, "serving.precision", offered, horizontal=True)
    with top[2]:
        widgets.toggle(t, "serving.disaggregated")
    demand, lengths, targets = st.columns(3)
    with demand:
        widgets.number(t, "serving.peak_rps")
        widgets.number(t, "serving.avg_rps")
    with lengths:
        widgets.number(t, "serving.prompt_tokens")
        widgets.number(t, "serving.output_tokens")
    with targets:
        widgets.number(t, "serving.ttft_s")
        widgets.number(t, "serving.tpot_s")

scenario = session.scenario()  # after a change above
skey = compute.key(scenario)
answers = compute.serving(skey, _scenario=scenario)

# --- per fabric
with st.container(border=True):
    st.subheader(t("serving.results"))
    st.markdown(f"**{md_escape(rows.recommendation(t, answers, names, money))}**")
    for line in rows.misses(t, answers, scenario, names):
        st.warning(md_escape(line), icon="⚠️")
    st.markdown(markdown_table(*rows.table(t, answers, short, money)))
    notes = [rows.instance_line(t, answers, scenario), rows.same_servers(t, answers), rows.year_cost(t, answers, money)]
    st.caption(md_escape(" ".join(n for n in notes if n)))

# --- the same demand and targets, each fabric against the baseline
if len(scenario.fabrics) > 1:
    with st.container(border=True):
        st.subheader(t("serving.equal_title", base=names[scenario.baseline]))
        st.markdown(markdown_table(*rows.equal_sla_table(t, answers, short, money)))
        st.caption(t("serving.equal_note"))

# --- latency against throughput
curve = compute.serving_curve(skey, _scenario=scenario)
L = labels.chart_labels(t)
L.update({"serving_title": t("serving.chart_title"), "serving_x": t("serving.axis_tps"),
          "serving_y": t("serving.axis_tpot"), "serving_sla": t("serving.sla", ms="{ms}"),
          "serving_point": t("serving.point"), "serving_batch": t("serving.hover_batch", batch="{batch}")})
families = {f: cat.fabrics[f].family for f in scenario.fabrics}
points = [(r.output_tokens_per_s_per_gpu, r.tpot_s) for r in answers.fabrics]
st.plotly_chart(lite(latency_throughput, curve, points, list(scenario.fabrics), names, families,
                     scenario.serving.tpot_s, L), key="chart_serving", width="stretch")
st.caption(t("serving.chart_note"))
widgets.clear_errors()
