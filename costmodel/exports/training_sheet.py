"""The workbook's ``Training`` sheet: the training plan, the cluster's topology inputs,
the nccl-tests measurements, each fabric's layout, step time, MFU/HFU and GPU memory, and its bill
of materials.

Every figure is a number with a number format (booleans are 1/0 shown as on/off or yes/no); the
sheet holds values, not formulas: the step time, layout, memory and bill of materials come from
the model. Texts are in ``data/export_labels.yaml`` (``training``); user text (a measurement's
log header) is written as text.
"""

from __future__ import annotations

from costmodel.exports import layout_text as layout
from costmodel.pipeline.stages.topology import BOM_KEYS
from costmodel.scenario.schema import Scenario

#: workload rows: (field, unit key of ``training.units``, number format); None fields say "auto"
WORKLOAD_ROWS = (
    ("model_params_b", "billions", "#,##0.###"),
    ("active_params_b", "billions", "#,##0.###"),
    ("tokens_per_run_b", "billions", "#,##0.###"),
    ("global_batch_tokens_m", "millions of tokens", "#,##0.###"),
    ("seq_len", "tokens", "#,##0"),
    ("micro_batch_seqs", "seqs", "#,##0"),
    ("parallelism", "option", None),
    ("tensor_parallel", "count", "#,##0"),
    ("pipeline_stages", "count", "#,##0"),
    ("virtual_stages", "count", "#,##0"),
    ("full_recompute", "on/off", "on_off"),
    ("layers", "count", "#,##0"),
    ("hidden_size", "count", "#,##0"),
    ("compute_efficiency", "0-1", "0.00"),
    ("grad_bytes", "B", "0.##"),
    ("experts", "count", "#,##0"),
    ("top_k", "count", "#,##0"),
    ("expert_parallel", "count", "#,##0"),
    ("a2a_overlap", "0-1", "0.00"),
    ("moe_node_dedup", "on/off", "on_off"),
)
#: cluster rows: (field, unit key, number format); gpus/NICs per node are the effective counts
CLUSTER_ROWS = (
    ("nodes", "count", "#,##0"),
    ("gpus_per_node", "count", "#,##0"),
    ("nics_per_node", "count", "#,##0"),
    ("oversubscription", "ratio", "0.0#"),
    ("nodes_per_rack", "count", "#,##0"),
    ("spare_switch_frac", "share", "0.0%"),
    ("spare_cable_frac", "share", "0.0%"),
    ("spare_optic_frac", "share", "0.0%"),
    ("in_network_reduction", "on/off", "on_off"),
)
#: per-fabric result rows: (metric key of FabricResult.metrics, number format)
RESULT_ROWS = (
    ("layout_tp", "#,##0"),
    ("layout_pp", "#,##0"),
    ("layout_dp", "#,##0"),
    ("layout_vp", "#,##0"),
    ("layout_zero", "0"),
    ("layout_micro_seqs", "#,##0.#"),
    ("layout_microbatches", "#,##0.#"),
    ("layout_recompute", "yes_no"),
    ("step_time_s", "#,##0.000"),
    ("compute_time_s", "#,##0.000"),
    ("comm_time_s", "#,##0.000"),
    ("exposed_comm_s", "#,##0.000"),
    ("mfu", "0.0%"),
    ("hfu", "0.0%"),
    ("memory_gb_per_gpu", "#,##0.0"),
    ("memory_usable_gb", "#,##0.0"),
    ("fits_memory", "yes_no"),
)
#: what an empty optional workload field means
_EMPTY = {"experts": "dense", "active_params_b": "all_params"}


def layout_text(tt: dict, m: dict) -> str:
    """One fabric's layout as one line ("TP 8 × PP 4 × DP 16, ZeRO-1, micro-batch 1") from its
    metrics ``m``; ``tt`` is the ``training`` block of the workbook's texts (``layout_*``), written by
    :func:`costmodel.exports.layout_text.layout_text` as the app's pages write it."""
    return layout.layout_text({k: tt[f"layout_{k}"] for k in layout.KEYS}, m)


def training_sheet(book, scenario: Scenario, p, st, res) -> None:
    """Write the ``Training`` sheet of the workbook ``book`` (an ``export_xlsx._Book``) for
    ``scenario``, its inputs ``p`` (effective GPUs and NICs per node), structure ``st`` and result ``res``."""
    wb, tx = book.wb, book.tx
    tt = tx["training"]
    bold, note = book.fmt["bold"], book.fmt["note"]
    formats = {}

    def nf(code: str | None):
        if code is None:
            return None
        code = tt[code] if code in ("on_off", "yes_no") else code
        if code not in formats:
            formats[code] = wb.add_format({"num_format": code})
        return formats[code]

    head_r = wb.add_format({"bold": True, "align": "right", "text_wrap": True, "valign": "bottom"})
    unit_f = wb.add_format({"indent": 1})
    text_r = wb.add_format({"align": "right"})
    wrap_r = wb.add_format({"align": "right", "text_wrap": True, "valign": "top"})
    ws = wb.add_worksheet(tx["sheet_training"])
    ws.write_string(0, 0, tt["title"], bold)
    ws.write_string(1, 0, tt["step_note"], note)


    def value_row(r: int, label: str, value, unit: str, code: str | None, empty: str = "auto") -> None:
        ws.write_string(r, 0, label)
        if value is None:
            ws.write_string(r, 1, tt[empty], text_r)
        elif isinstance(value, str):
            ws.write_string(r, 1, tt["parallelism"].get(value, value), text_r)
        else:
            ws.write_number(r, 1, float(value), nf(code))
        ws.write_string(r, 2, tt["units"][unit], unit_f)

    def header(row: int) -> None:
        ws.write_string(row, 0, tx["col_input"], bold)
        ws.write_string(row, 1, tx["col_value"], head_r)
        ws.write_string(row, 2, tx["col_unit"], wb.add_format({"bold": True, "indent": 1}))

    def fabric_header(row: int) -> None:
        ws.write_string(row, 0, tx["col_fabric"], bold)
        ws.write_row(row, 1, names, head_r)
        ws.set_row(row, 30)

    fids = list(st.fabric_ids)
    names = [book.fabric_name[f] for f in fids]
    r = 3
    ws.write_string(r, 0, tt["plan"], bold)
    header(r + 1)
    r += 1
    wl = scenario.workload
    for key, unit, code in WORKLOAD_ROWS:
        r += 1
        value_row(r, tt["workload"][key], getattr(wl, key), unit, code, _EMPTY.get(key, "auto"))

    if wl.parallelism == "best":
        r += 1
        ws.write_string(r, 0, tt["search_note"], note)
    r += 2
    ws.write_string(r, 0, tt["topology"], bold)
    header(r + 1)
    r += 1
    effective = {"gpus_per_node": float(p.gpus_per_node.ravel()[0]), "nics_per_node": float(p.nics_per_node.ravel()[0])}
    cl = scenario.cluster
    for key, unit, code in CLUSTER_ROWS:
        r += 1
        value = getattr(cl, key)
        if value is None:
            value = effective.get(key)
        value_row(r, tt["cluster"][key], value, unit, code)

    r += 2
    ws.write_string(r, 0, tt["measurements"], bold)
    r += 1
    ws.write_row(r, 0, [tx["col_fabric"], tt["col_collective"]], bold)
    ws.write_row(r, 2, [tt["col_alpha"], tt["col_busbw"], tt["col_hosts"], tt["col_ranks"]], head_r)
    ws.write_string(r, 6, tt["col_summary"], wb.add_format({"bold": True, "indent": 1}))
    for fid, name in zip(fids, names, strict=True):
        r += 1
        ws.write_string(r, 0, name)
        m = scenario.measurements.get(fid)
        if m is None:
            ws.write_string(r, 1, tt["no_measurement"], note)
            continue
        ws.write_string(r, 1, m.collective)
        ws.write_number(r, 2, m.alpha_us, nf("#,##0.0"))
        ws.write_number(r, 3, m.busbw_GBps, nf("#,##0.00"))
        for c, v in ((4, m.hosts), (5, m.ranks)):
            if v is None:
                ws.write_string(r, c, "—", text_r)
            else:
                ws.write_number(r, c, v, nf("#,##0"))
        ws.write_string(r, 6, m.summary, unit_f)

    r += 2
    ws.write_string(r, 0, tt["results"], bold)
    r += 1
    fabric_header(r)
    r += 1
    ws.write_string(r, 0, tt["metrics"]["layout"], wb.add_format({"valign": "top"}))
    ws.set_row(r, 45)
    for j, fid in enumerate(fids):
        ws.write_string(r, 1 + j, layout_text(tt, res.fabric(fid).metrics), wrap_r)
    for key, code in RESULT_ROWS:
        r += 1
        ws.write_string(r, 0, tt["metrics"][key])
        for j, fid in enumerate(fids):
            v = res.fabric(fid).metrics[key]
            if v is None:
                ws.write_string(r, 1 + j, "—", text_r)
            else:
                ws.write_number(r, 1 + j, float(v), nf(code))
    r += 1
    ws.write_string(r, 0, tt["metrics"]["measured"])
    for j, fid in enumerate(fids):
        ws.write_number(r, 1 + j, 0 if res.fabric(fid).measured is None else 1, nf("yes_no"))

    r += 2
    ws.write_string(r, 0, tt["bom"], bold)
    r += 1
    fabric_header(r)
    for key in BOM_KEYS:
        r += 1
        ws.write_string(r, 0, f"{tt['bom_keys'][key]} [{tt['units']['count']}]")
        for j, fid in enumerate(fids):
            ws.write_number(r, 1 + j, float(res.fabric(fid).bom.get(key, 0.0)), nf("#,##0"))
    ws.set_column(0, 0, 56)
    ws.set_column(1, max(len(fids), 5), 24)
    ws.set_column(6, 6, 48)  # the log header of a measurement
