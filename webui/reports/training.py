"""The PDF report's section "Training plan and step time": the plan as a compact
two-pair table (the cluster's scale-up domain, cooling, PUE, rack power limit and racks among its
inputs), the nccl-tests measurements, and per fabric its layout, step time, compute, exposed
communication, the scale-out share of a step, MFU, HFU and GPU memory (used / usable, fits). Texts in
``locales/{en,zh}/report_training.yaml`` and the Cluster page's field labels; every cell is
HTML-escaped (a measurement's log header is user text)."""

from __future__ import annotations

import html
from collections.abc import Callable

import costmodel
from costmodel.catalog.formatting import format_number, format_share
from costmodel.pipeline.facility_checks import cluster_facts
from costmodel.pipeline.inputs import build
from webui.i18n.layouts import layout_text
from webui.i18n.translator import Translator
from webui.sections import cluster_facts as facts_text
from webui.sections.scaleout import scaleout_caption, scaleout_note

#: the plan's rows: (group, field, how the value is shown)
WORKLOAD_FIELDS = ("model_params_b", "active_params_b", "tokens_per_run_b", "global_batch_tokens_m", "seq_len",
                   "micro_batch_seqs", "parallelism", "tensor_parallel", "pipeline_stages", "virtual_stages",
                   "full_recompute", "recompute", "precision", "dualpipe", "zero_stage", "layers", "hidden_size",
                   "compute_efficiency", "experts", "top_k", "expert_parallel", "a2a_overlap", "moe_node_dedup",
                   "moe_max_nodes", "fused_attention", "sequence_parallel")
CLUSTER_FIELDS = ("nodes", "gpus_per_node", "nics_per_node", "oversubscription", "nodes_per_rack",
                  "spare_switch_frac", "spare_cable_frac", "spare_optic_frac", "in_network_reduction")
_EMPTY = {"experts": "rtrain.dense", "active_params_b": "rtrain.all_params", "moe_max_nodes": "rtrain.no_limit",
          "compute_efficiency": "rtrain.from_shapes"}
_SHARES = {"spare_switch_frac", "spare_cable_frac", "spare_optic_frac"}


def _value(t: Translator, group: str, key: str, value) -> str:
    """One plan value as text in the report's language."""
    if value is None:
        return t(_EMPTY.get(key, "rtrain.auto"))
    if isinstance(value, bool):
        return t("rtrain.on" if value else "rtrain.off")
    if isinstance(value, str):
        return t.get(f"opt.{group}.{key}.{value}", value)
    if key in _SHARES:
        return format_share(value, 1)
    return format_number(value, 0) if float(value).is_integer() else f"{value:,.4g}"


def plan_rows(t: Translator, scenario: costmodel.Scenario) -> list[tuple[str, str]]:
    """(label, value) of the GPU (its catalog name), every topology input of ``scenario``, its scale-up
    domain, cooling, PUE, rack power limit and racks, then the training plan; GPUs and NICs per node,
    the domain and the PUE as the model uses them (an empty field means the GPU's reference design)."""
    p = build(scenario).inputs
    effective = {"gpus_per_node": float(p.gpus_per_node.ravel()[0]), "nics_per_node": float(p.nics_per_node.ravel()[0])}
    gpu = (t("field.cluster.gpu"), costmodel.catalog.loader.load_catalog().gpus[scenario.cluster.gpu].name)
    cluster = [(t(f"field.cluster.{k}"), _value(t, "cluster", k, getattr(scenario.cluster, k) if
                                                getattr(scenario.cluster, k) is not None else effective.get(k)))
               for k in CLUSTER_FIELDS]
    workload = [(t(f"field.workload.{k}"), _value(t, "workload", k, getattr(scenario.workload, k)))
                for k in WORKLOAD_FIELDS]
    site = facts_text.rows(t, cluster_facts(scenario))
    return [gpu, *cluster, *site, *workload]  # what the cluster is first: the GPU, then the nodes


def fabric_rows(t: Translator, res, names: dict[str, str]) -> list[list[str]]:
    """Per fabric: name (marked when measured), layout, step [s], compute [s], exposed comm. [s], the
    scale-out share of a step [%], MFU, HFU, memory [GB], fits."""
    out = []
    for f in res.fabrics:
        m = f.metrics
        out.append([
            names[f.id] + (t("rtrain.measured_mark") if f.measured else ""), layout_text(t, m),
            format_number(m["step_time_s"], 3), format_number(m["compute_time_s"], 3),
            format_number(m["exposed_comm_s"], 3), format_share(m["scaleout_share"], 1),
            format_share(m["mfu"], 1), format_share(m["hfu"], 1),
            f"{format_number(m['memory_gb_per_gpu'], 1)} / {format_number(m['memory_usable_gb'], 1)}",
            t("rtrain.yes" if m["fits_memory"] else "rtrain.no"),
        ])
    return out


def training_section(t: Translator, scenario: costmodel.Scenario, res, names: dict[str, str],
                     table: Callable[..., str]) -> str:
    """The section's HTML; ``table`` is the report's table builder (escapes every cell)."""
    e = html.escape
    parts = [f"<h2 style='page-break-before:always'>{e(t('rtrain.title'))}</h2>",
             f"<p class='muted'>{e(t('rtrain.intro'))}</p>",
             f"<p><b>{e(t('rtrain.plan'))}</b></p>"]
    rows = plan_rows(t, scenario)
    half = (len(rows) + 1) // 2
    left, right = rows[:half], rows[half:] + [("", "")] * (2 * half - len(rows))
    parts.append(table([t("rtrain.col_input"), t("rtrain.col_value")] * 2,
                       [[a, b, c, d] for (a, b), (c, d) in zip(left, right, strict=True)],
                       numeric_from=4, widths=[32, 18, 32, 18]))
    if scenario.workload.parallelism == "best":
        parts.append(f"<p class='muted'>{e(t('layout.search_note'))}</p>")
    measured = list(scenario.measurements.items())
    if measured:
        parts.append("<ul>" + "".join(
            f"<li>{e(t('rtrain.measured', fabric=names[fid], summary=m.summary, alpha=format_number(m.alpha_us, 1), busbw=format_number(m.busbw_GBps, 1)))}</li>"  # noqa: E501
            for fid, m in measured) + "</ul>")
    else:
        parts.append(f"<p class='muted'>{e(t('rtrain.no_measurements'))}</p>")
    parts.append(f"<p><b>{e(t('rtrain.results'))}</b></p>")
    head = [t(f"rtrain.{k}") for k in ("col_fabric", "col_layout", "col_step", "col_compute", "col_exposed")]
    head += [t("cluster26.col_scaleout"), *(t(f"rtrain.{k}") for k in ("col_mfu", "col_hfu", "col_memory", "col_fits"))]
    parts.append(table(head, fabric_rows(t, res, names), numeric_from=2, text_after=9,
                       widths=[13, 22, 7, 8, 9, 9, 7, 7, 11, 7]))
    parts.append(f"<p class='muted'>{e(scaleout_caption(t, res))} {e(scaleout_note(t, res))}</p>")
    return "".join(parts)
