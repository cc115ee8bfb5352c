"""Cluster: set up the scenario — presets, every input with unit, help and bounds."""

from __future__ import annotations

import streamlit as st

from costmodel.catalog.loader import load_catalog
from costmodel.money.cluster_hour import default_value_of_cluster_hour
from costmodel.pipeline.facility_inputs import typical_capex_per_kw
from costmodel.pipeline.inputs import ZERO_STAGE
from costmodel.scenario import scaleup
from webui.i18n import chrome_texts, labels
from webui.inputs import widgets
from webui.inputs.fincarbon_inputs import grid_inputs, tax_inputs
from webui.sections import facility
from webui.session import keys, quote, titles
from webui.session import state as session

MAX_FABRICS = next(m.max_length for m in widgets.field_info("fabrics").metadata if hasattr(m, "max_length"))

t = session.translator()
cat = load_catalog()
scenario = session.scenario()
book = quote.item_book(scenario, cat)  # placeholders show list prices to a customer, never a quote
gpu = cat.gpus[scenario.cluster.gpu]
gpu_prices = book.gpus[scenario.cluster.gpu]

st.title(t("cluster.title"))
st.caption(t("cluster.intro", currency=book.currency))
for line in facility.warning_lines(t, scenario, cat):  # a site that cannot hold this cluster
    st.warning(line, icon="⚠️")

with st.container(border=True):
    top = st.columns([3, 2])
    with top[0]:
        shown_name = titles.scenario_title(scenario, session.preset(), t)  # own, the preset's here, or made
        name_key = keys.label_key(widgets.key_of("name"), [shown_name])
        st.text_input(t("field.name"), value=shown_name, max_chars=200, key=name_key,  # cleared: the made name
                      placeholder=titles.made_name(scenario, t), on_change=widgets.on_change, args=("name", name_key))
    with top[1]:
        widgets.choice(t, "scope", ["cluster", "fabric"], horizontal=True)
    top = st.columns([3, 2])
    with top[0]:
        fabric_names = labels.fabric_names(t)
        offered = [f for f in cat.fabrics if gpu.carries(f)]  # only what the part's server can carry
        fabrics_key = keys.label_key(widgets.key_of("fabrics"), [fabric_names[f] for f in offered])
        st.multiselect(t("field.fabrics"), offered, default=scenario.fabrics, key=fabrics_key,
                       format_func=fabric_names.get, on_change=widgets.on_change, args=("fabrics", fabrics_key),
                       max_selections=MAX_FABRICS, help=t("help.fabrics"), select_all=False)
        if len(offered) < len(cat.fabrics):
            st.caption(t("parts.fabrics_offered", gpu=labels.gpu_name(t, scenario.cluster.gpu), n=len(offered),
                         total=len(cat.fabrics)))
        every = offered[:MAX_FABRICS]
        chrome_texts.select_all_button(t, "fabrics_all", lambda: widgets.set_all("fabrics", every),
                                       disabled=set(every) <= set(scenario.fabrics), limit=MAX_FABRICS)
        widgets.show_error("fabrics")
    with top[1]:
        widgets.choice(t, "baseline", list(scenario.fabrics), labels=fabric_names)

left, middle, right = st.columns(3)
with left, st.container(border=True):
    st.subheader(t("group.cluster"))
    widgets.choice(t, "cluster.gpu", list(cat.gpus), labels={k: labels.gpu_name(t, k) for k in cat.gpus})
    widgets.number(t, "cluster.nodes")
    widgets.number(t, "cluster.gpus_per_node", placeholder_value=gpu.default_gpus_per_node.typical)
    widgets.number(t, "cluster.nics_per_node", placeholder_value=gpu.default_nics_per_node.typical)
    widgets.number(t, "cluster.scaleup_domain_gpus", placeholder_value=scaleup.domain_gpus(
        None, scenario.cluster.gpus_per_node or gpu.default_gpus_per_node.typical, gpu))
    widgets.number(t, "cluster.server_price", placeholder_value=gpu_prices.server_price.typical)
    widgets.number(t, "cluster.host_power_kw", placeholder_value=gpu.host_power_kw.typical)
    widgets.number(t, "cluster.host_cpu_cost_share")
    widgets.number(t, "cluster.host_cpu_power_share")
    widgets.number(t, "cluster.oversubscription")
    widgets.toggle(t, "cluster.in_network_reduction")
    widgets.number(t, "cluster.nodes_per_rack")
    widgets.number(t, "cluster.spare_switch_frac")
    widgets.number(t, "cluster.spare_cable_frac")
    widgets.number(t, "cluster.spare_optic_frac")
    widgets.number(t, "cluster.hot_spare_node_frac")  # reliability by fabric
    widgets.toggle(t, "cluster.frontend_network")  # bill of materials
    widgets.toggle(t, "cluster.reuse_existing_switches")
    if scenario.cluster.reuse_existing_switches:
        widgets.number(t, "cluster.existing_switch_gbps")

tp_default = 1 if scenario.workload.parallelism == "fsdp" else (
    scenario.cluster.gpus_per_node or int(gpu.default_gpus_per_node.typical))
with middle, st.container(border=True):
    st.subheader(t("group.workload"))
    widgets.number(t, "workload.model_params_b")
    widgets.number(t, "workload.tokens_per_run_b")
    widgets.number(t, "workload.global_batch_tokens_m")
    widgets.number(t, "workload.compute_efficiency")
    # the precisions this GPU has (the current one too, so a refused document still shows it)
    precisions = [x for x in ("bf16", "fp8", "fp4")
                  if gpu.peak_tflops(x) is not None or x == scenario.workload.precision]
    widgets.choice(t, "workload.precision", precisions, horizontal=True)
    widgets.choice(t, "workload.parallelism", ["dp", "fsdp", "pipeline", "best"])
    searched = scenario.workload.parallelism == "best"
    if searched:
        st.caption(t("layout.search_note"))
    else:
        widgets.number(t, "workload.tensor_parallel", placeholder_value=tp_default)
    if scenario.workload.parallelism == "pipeline":
        widgets.number(t, "workload.pipeline_stages")
        widgets.number(t, "workload.virtual_stages")
        widgets.toggle(t, "workload.dualpipe")
    if not searched:
        widgets.number(t, "workload.micro_batch_seqs")
    widgets.number(t, "workload.seq_len")
    widgets.number(t, "workload.hidden_size")
    widgets.number(t, "workload.layers")
    widgets.number(t, "workload.experts")
    if scenario.workload.experts:
        widgets.number(t, "workload.top_k")
        widgets.number(t, "workload.expert_parallel")
        widgets.number(t, "workload.active_params_b")
        widgets.number(t, "workload.a2a_overlap")
        widgets.toggle(t, "workload.moe_node_dedup")
        widgets.number(t, "workload.moe_max_nodes")
    if not searched:
        widgets.choice(t, "workload.recompute", ["none", "selective", "full"], horizontal=True)
        if scenario.workload.full_recompute:  # a document saved before the choice: the old switch overrides it
            widgets.toggle(t, "workload.full_recompute")
        widgets.number(t, "workload.zero_stage", placeholder_value=ZERO_STAGE[scenario.workload.parallelism])
    widgets.toggle(t, "workload.fused_attention")  # both set the kernel efficiency from the shapes
    widgets.toggle(t, "workload.sequence_parallel")
    widgets.choice(t, "workload.schedule", ["plan", "always_busy"], horizontal=True)
    widgets.number(t, "workload.runs_per_year")  # the plan: also the equal-work comparison's
    widgets.number(t, "workload.target_run_days")
    widgets.number(t, "workload.grad_bytes")

with right, st.container(border=True):
    st.subheader(t("group.facility"))
    cooling = cat.cooling[scenario.facility.cooling]
    widgets.choice(t, "facility.cooling", ["air", "liquid"], horizontal=True)
    widgets.number(t, "facility.pue", placeholder_value=cooling.pue.typical)
    widgets.number(t, "facility.rack_power_limit_kw")
    st.caption(facility.rack_line(t, scenario, cat))
    widgets.toggle(t, "facility.build_cooling")
    if scenario.facility.build_cooling:
        widgets.number(t, "facility.cooling_capex_per_kw",
                       placeholder_value=round(typical_capex_per_kw(scenario, cat, book.currency)))
    widgets.number(t, "facility.electricity_price_per_kwh")
    widgets.number(t, "facility.gpu_busy_power_frac")
    widgets.number(t, "facility.gpu_idle_power_frac")
    grid_inputs(t, scenario)  # finance and carbon

left, middle, right = st.columns(3)
with left, st.container(border=True):
    st.subheader(t("group.operations"))
    widgets.number(t, "operations.cluster_ops_cost_per_node_year")
    widgets.number(t, "operations.network_ops_cost_per_node_year")
    widgets.number(t, "operations.maintenance_frac_per_year")
    widgets.number(t, "operations.network_staff_fte")  # staff floor
    widgets.number(t, "operations.cluster_staff_fte")
    widgets.number(t, "operations.staff_cost_per_fte_year")
    widgets.number(t, "operations.checkpoint_write_gbs_per_node")
    widgets.number(t, "operations.restart_minutes")
    widgets.number(t, "operations.node_repair_hours")  # reliability by fabric
    vch = default_value_of_cluster_hour(scenario, book, cat)  # at the prices this viewer may see
    widgets.number(t, "operations.value_of_cluster_hour", placeholder_value=round(vch, 2))

with middle, st.container(border=True):
    st.subheader(t("group.finance"))
    widgets.number(t, "finance.horizon_years")
    widgets.number(t, "finance.discount_rate")
    widgets.choice(t, "finance.payment", ["upfront", "instalments"], horizontal=True)
    if scenario.finance.payment == "instalments":
        widgets.number(t, "finance.instalment_months")
        widgets.number(t, "finance.instalment_rate_annual")
    widgets.number(t, "finance.residual_value_frac")
    tax_inputs(t, scenario)  # finance and carbon

with right, st.container(border=True):
    st.subheader(t("group.context"))
    st.caption(t("cluster.context_note"))
    widgets.toggle(t, "context.budget_tight")
    widgets.toggle(t, "context.existing_ethernet")
    widgets.choice(t, "context.ops_team", ["weak", "strong"], horizontal=True)

widgets.clear_errors()
