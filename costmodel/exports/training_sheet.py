"""The workbook's ``Training`` sheet: the training plan, the cluster's topology inputs (with the
scale-up domain, servers per rack and compute racks as the model takes them), the nccl-tests
measurements, each fabric's layout, step time, scale-out share of a step, MFU/HFU and GPU memory, and
its bill of materials.

Every figure is a number with a number format (booleans are 1/0 shown as on/off or yes/no); the
sheet holds values, not formulas: the step time, layout, memory and bill of materials come from
the model. Texts are in ``data/export_labels.yaml`` (``training``); user text (a measurement's
log header) is written as text.
"""

from __future__ import annotations

from costmodel.exports import layout_text as layout
from costmodel.pipeline.facility_checks import ClusterFacts
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
    ("recompute", "option", None),
    ("precision", "option", None),
    ("dualpipe", "on/off", "on_off"),
    ("zero_stage", "count", "0"),
    ("layers", "count", "#,##0"),
    ("hidden_size", "count", "#,##0"),
    ("compute_efficiency", "0-1", "0.00"),
    ("fused_attention", "on/off", "on_off"),
    ("sequence_parallel", "on/off", "on_off"),
    ("grad_bytes", "B", "0.##"),
    ("experts", "count", "#,##0"),
    ("top_k", "count", "#,##0"),
    ("expert_parallel", "count", "#,##0"),
    ("a2a_overlap", "0-1", "0.00"),
    ("moe_node_dedup", "on/off", "on_off"),
    ("moe_max_nodes", "count", "#,##0"),
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
    ("scaleout_share", "0.0%"),
    ("mfu", "0.0%"),
    ("hfu", "0.0%"),
    ("kernel_efficiency", "0.0%"),
    ("memory_gb_per_gpu", "#,##0.0"),
    ("memory_usable_gb", "#,##0.0"),
    ("fits_memory", "yes_no"),
)
#: what an empty optional workload field means
_EMPTY = {"experts": "dense", "active_params_b": "all_params", "moe_max_nodes": "no_limit",
          "compute_efficiency": "from_shapes"}


def layout_text(tt: dict, m: dict) -> str:
    """One fabric's layout as one line ("TP 8 × PP 4 × DP 16, ZeRO-1, micro-batch 1") from its
    metrics ``m``; ``tt`` is the ``training`` block of the workbook's texts (``layout_*``), written by
    :func:`costmodel.exports.layout_text.layout_text` as the app's pages write it."""
    return layout.layout_text({k: tt[f"layout_{k}"] for k in layout.KEYS}, m)


class _Sheet:
    """The ``Training`` worksheet being written: its workbook, texts and shared cell formats."""

    def __init__(self, book, fids: list[str]) -> None:
        self.wb, self.tx = book.wb, book.tx
        self.tt = self.tx["training"]
        self.bold, self.note = book.fmt["bold"], book.fmt["note"]
        self.formats: dict[str, object] = {}
        self.head_r = self.wb.add_format({"bold": True, "align": "right", "text_wrap": True, "valign": "bottom"})
        self.unit_f = self.wb.add_format({"indent": 1})
        self.text_r = self.wb.add_format({"align": "right"})
        self.wrap_r = self.wb.add_format({"align": "right", "text_wrap": True, "valign": "top"})
        self.ws = self.wb.add_worksheet(self.tx["sheet_training"])
        self.fids = fids
        self.names = [book.fabric_name[f] for f in fids]

    def nf(self, code: str | None):
        """The cell format of number format ``code`` (``on_off``/``yes_no`` from the texts), made once."""
        if code is None:
            return None
        code = self.tt[code] if code in ("on_off", "yes_no") else code
        if code not in self.formats:
            self.formats[code] = self.wb.add_format({"num_format": code})
        return self.formats[code]

    def value_row(self, r: int, label: str, value, unit: str, code: str | None, empty: str = "auto") -> None:
        """One input row: label, value (a number, an option's text, or ``empty``'s text for None), unit."""
        ws, tt = self.ws, self.tt
        ws.write_string(r, 0, label)
        if value is None:
            ws.write_string(r, 1, tt[empty], self.text_r)
        elif isinstance(value, str):
            ws.write_string(r, 1, {**tt["parallelism"], **tt["choices"]}.get(value, value), self.text_r)
        else:
            ws.write_number(r, 1, float(value), self.nf(code))
        ws.write_string(r, 2, tt["units"][unit], self.unit_f)

    def header(self, row: int) -> None:
        """The input / value / unit header of an input table."""
        self.ws.write_string(row, 0, self.tx["col_input"], self.bold)
        self.ws.write_string(row, 1, self.tx["col_value"], self.head_r)
        self.ws.write_string(row, 2, self.tx["col_unit"], self.wb.add_format({"bold": True, "indent": 1}))

    def fabric_header(self, row: int) -> None:
        """The header of a per-fabric table: one column per fabric."""
        self.ws.write_string(row, 0, self.tx["col_fabric"], self.bold)
        self.ws.write_row(row, 1, self.names, self.head_r)
        self.ws.set_row(row, 30)


def _plan_rows(sh: _Sheet, scenario: Scenario, r: int) -> int:
    """The training plan's inputs from row ``r``; returns the last row written."""
    sh.ws.write_string(r, 0, sh.tt["plan"], sh.bold)
    sh.header(r + 1)
    r += 1
    wl = scenario.workload
    for key, unit, code in WORKLOAD_ROWS:
        r += 1
        sh.value_row(r, sh.tt["workload"][key], getattr(wl, key), unit, code, _EMPTY.get(key, "auto"))
    if wl.parallelism == "best":
        r += 1
        sh.ws.write_string(r, 0, sh.tt["search_note"], sh.note)
    return r


def _topology_rows(sh: _Sheet, scenario: Scenario, p, r: int, facts: ClusterFacts) -> int:
    """The cluster's topology inputs from row ``r`` (effective GPUs and NICs per node from the inputs
    ``p`` where the scenario leaves them to the catalog), then the scale-up domain, servers per rack and
    compute racks of ``facts``; returns the last row written."""
    sh.ws.write_string(r, 0, sh.tt["topology"], sh.bold)
    sh.header(r + 1)
    r += 1
    effective = {"gpus_per_node": float(p.gpus_per_node.ravel()[0]), "nics_per_node": float(p.nics_per_node.ravel()[0])}
    cl = scenario.cluster
    for key, unit, code in CLUSTER_ROWS:
        r += 1
        value = getattr(cl, key)
        if value is None:
            value = effective.get(key)
        sh.value_row(r, sh.tt["cluster"][key], value, unit, code)
    for key, value in (("scaleup_domain_gpus", facts.domain_gpus), ("servers_per_rack", facts.servers_per_rack),
                       ("racks", facts.racks)):
        r += 1
        sh.value_row(r, sh.tt["cluster"][key], value, "count", "#,##0")
    return r


def _measurement_rows(sh: _Sheet, scenario: Scenario, r: int) -> int:
    """Each fabric's nccl-tests measurement (base latency [µs], bus bandwidth [GB/s], hosts, ranks, log
    header) from row ``r``; returns the last row written."""
    ws, tt = sh.ws, sh.tt
    ws.write_string(r, 0, tt["measurements"], sh.bold)
    r += 1
    ws.write_row(r, 0, [sh.tx["col_fabric"], tt["col_collective"]], sh.bold)
    ws.write_row(r, 2, [tt["col_alpha"], tt["col_busbw"], tt["col_hosts"], tt["col_ranks"]], sh.head_r)
    ws.write_string(r, 6, tt["col_summary"], sh.wb.add_format({"bold": True, "indent": 1}))
    for fid, name in zip(sh.fids, sh.names, strict=True):
        r += 1
        ws.write_string(r, 0, name)
        m = scenario.measurements.get(fid)
        if m is None:
            ws.write_string(r, 1, tt["no_measurement"], sh.note)
            continue
        ws.write_string(r, 1, m.collective)
        ws.write_number(r, 2, m.alpha_us, sh.nf("#,##0.0"))
        ws.write_number(r, 3, m.busbw_GBps, sh.nf("#,##0.00"))
        for c, v in ((4, m.hosts), (5, m.ranks)):
            if v is None:
                ws.write_string(r, c, "—", sh.text_r)
            else:
                ws.write_number(r, c, v, sh.nf("#,##0"))
        ws.write_string(r, 6, m.summary, sh.unit_f)
    return r


def _result_rows(sh: _Sheet, res, r: int) -> int:
    """Each fabric's layout, step time, MFU/HFU and memory from row ``r``; returns the last row written."""
    ws, tt = sh.ws, sh.tt
    ws.write_string(r, 0, tt["results"], sh.bold)
    r += 1
    sh.fabric_header(r)
    r += 1
    ws.write_string(r, 0, tt["metrics"]["layout"], sh.wb.add_format({"valign": "top"}))
    ws.set_row(r, 45)
    for j, fid in enumerate(sh.fids):
        ws.write_string(r, 1 + j, layout_text(tt, res.fabric(fid).metrics), sh.wrap_r)
    for key, code in RESULT_ROWS:
        r += 1
        ws.write_string(r, 0, tt["metrics"][key])
        for j, fid in enumerate(sh.fids):
            v = res.fabric(fid).metrics[key]
            if v is None:
                ws.write_string(r, 1 + j, "—", sh.text_r)
            else:
                ws.write_number(r, 1 + j, float(v), sh.nf(code))
    r += 1
    ws.write_string(r, 0, tt["metrics"]["measured"])
    for j, fid in enumerate(sh.fids):
        ws.write_number(r, 1 + j, 0 if res.fabric(fid).measured is None else 1, sh.nf("yes_no"))
    return r


def _bom_rows(sh: _Sheet, res, r: int) -> int:
    """Each fabric's bill of materials [count] from row ``r``; returns the last row written."""
    sh.ws.write_string(r, 0, sh.tt["bom"], sh.bold)
    r += 1
    sh.fabric_header(r)
    for key in BOM_KEYS:
        r += 1
        sh.ws.write_string(r, 0, f"{sh.tt['bom_keys'][key]} [{sh.tt['units']['count']}]")
        for j, fid in enumerate(sh.fids):
            sh.ws.write_number(r, 1 + j, float(res.fabric(fid).bom.get(key, 0.0)), sh.nf("#,##0"))
    return r


def training_sheet(book, scenario: Scenario, p, st, res, facts: ClusterFacts) -> None:
    """Write the ``Training`` sheet of the workbook ``book`` (an ``export_xlsx._Book``) for
    ``scenario``, its inputs ``p`` (effective GPUs and NICs per node), structure ``st``, result ``res``
    and its domain and racks ``facts``."""
    sh = _Sheet(book, list(st.fabric_ids))
    sh.ws.write_string(0, 0, sh.tt["title"], sh.bold)
    sh.ws.write_string(1, 0, sh.tt["step_note"], sh.note)
    r = _plan_rows(sh, scenario, 3)
    r = _topology_rows(sh, scenario, p, r + 2, facts)
    r = _measurement_rows(sh, scenario, r + 2)
    r = _result_rows(sh, res, r + 2)
    _bom_rows(sh, res, r + 2)
    sh.ws.set_column(0, 0, 56)
    sh.ws.set_column(1, max(len(sh.fids), 5), 24)
    sh.ws.set_column(6, 6, 48)  # the log header of a measurement
