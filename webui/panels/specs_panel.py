"""Compare: the specifications table per fabric — NIC speed, all-reduce bus bandwidth, latency, CPU
overhead, loss rate, switches, tiers, step time and goodput — with the notes on measured fabrics."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from costmodel.catalog.formatting import format_percent_sig
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.results import Result
from webui.i18n.text import markdown_table, md_escape
from webui.i18n.translator import Translator, fmt_number
from webui.inputs import calibration

_COLUMNS = ("fabric", "nic_gbps", "busbw", "latency", "cpu", "loss", "switches", "tiers", "step", "goodput")
SLOT_MARK = " †"  # the NIC's host slot, not its port, limits it (note under the table)


def rows(res: Result, names: Mapping[str, str]) -> list[list[str]]:
    """One row per fabric, in the order of :data:`_COLUMNS` (plain text; escaped when drawn)."""
    cat = load_catalog()
    out = []
    for f in res.fabrics:
        m = f.metrics
        nic = fmt_number(m["nic_gbps"]) + (SLOT_MARK if m["slot_limited"] else "")
        out.append([names[f.id], nic, fmt_number(m["allreduce_busbw_gbs"], 1),
                    fmt_number(m["latency_us"], 1), f"{m['cpu_overhead_share']:.2%}",
                    format_percent_sig(cat.fabrics[f.id].loss_rate.typical), fmt_number(m["switches"]),
                    fmt_number(m["tiers"]), fmt_number(m["step_time_s"], 2), f"{m['goodput']:.2%}"])
    return out


def slot_note(t: Translator, scenario, res: Result, names: Mapping[str, str]) -> str:
    """The note on fabrics whose NICs the host PCIe slot limits ("" when none): the slot's link and its
    achieved rate per NIC, in the page's language."""
    limited = [f for f in res.fabrics if f.metrics["slot_limited"]]
    if not limited:
        return ""
    gpu = scenario.cluster.gpu
    spec, changed = load_catalog().gpus[gpu], scenario.overrides.gpus.get(gpu, {})
    gen = changed.get("nic_pcie_gen", spec.nic_pcie_gen.typical)
    lanes = changed.get("nic_pcie_lanes", spec.nic_pcie_lanes.typical)
    return t("compare.slot_limited", mark=SLOT_MARK.strip(), fabrics=t("claim_why.sep").join(
        md_escape(names[f.id]) for f in limited), gen=fmt_number(gen), lanes=fmt_number(lanes),
        slot=fmt_number(limited[0].metrics["host_slot_gbs"], 1))


def render(t: Translator, scenario, res: Result, names: Mapping[str, str]) -> None:
    """The section: a heading, the table (Markdown: small, no Arrow round trip), its note and which
    fabrics run on measured figures."""
    st.subheader(t("compare.specs"))
    st.markdown(markdown_table([t(f"spec.{c}") for c in _COLUMNS], rows(res, names)))
    st.caption(t("compare.specs_note"))
    note = slot_note(t, scenario, res, names)
    if note:
        st.caption(note)
    measured = [f for f in res.fabrics if f.measured]
    if measured:
        st.caption(t("calib.compare_note") + "  \n" + "  \n".join(
            t("calib.measured_by", fabric=md_escape(names[f.id]), summary=md_escape(
                calibration.label(t, scenario.measurements[f.id]) if f.id in scenario.measurements else f.measured))
            for f in measured))
    calibration.alltoall_note(t, scenario, res.fabrics, names)
