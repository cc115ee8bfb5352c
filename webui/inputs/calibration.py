"""The Assumptions page's "Measured fabrics" section: paste or upload nccl-tests output per fabric,
see its fit, store it in the scenario (through :mod:`webui.session.state`, the single writer) or remove it.

Each fabric has two slots: a ring collective's log (``all_reduce_perf`` …: efficiency and NCCL
latency, ``scenario.measurements``) and an ``alltoall_perf`` log (the mixture-of-experts all-to-all
efficiency, ``scenario.alltoall_measurements``). The log is read by :mod:`costmodel.physics.nccl_tests` and
never stored: the scenario keeps the fit (see :mod:`costmodel.physics.calibration`). A log that cannot be
read gets one message naming the field and what is accepted; nothing already stored changes.
"""

from __future__ import annotations

import streamlit as st

from costmodel.catalog.loader import Catalog
from costmodel.errors import ScenarioError
from costmodel.physics import calibration, host_link, nccl_tests
from costmodel.scenario.schema import Scenario
from webui.i18n import labels
from webui.i18n.text import md_escape
from webui.i18n.translator import Translator, fmt_number
from webui.session import notices
from webui.session import state as session

COLLECTIVES = ("auto", *nccl_tests.RING_COLLECTIVES, "alltoall")
_ERR = "calib_err_{}"
_NONCE = "calib_nonce_{}"
#: widget key prefix of the all-to-all slot (the ring slot's keys are calib_text_<fabric> …)
A2A = "a2a_"


def line_rate(scenario: Scenario, fid: str, cat: Catalog) -> tuple[float, float, float]:
    """(useful rate of one NIC [Gb/s], NICs per node, GPUs per node) of fabric ``fid`` in ``scenario``, as the
    model reads them: the NIC's rate is the lesser of its port and its host slot (a measurement's efficiency
    is a share of it)."""
    gpu = cat.gpus[scenario.cluster.gpu]
    port = scenario.overrides.fabrics.get(fid, {}).get("port_gbps", cat.fabrics[fid].port_gbps.typical)
    changed = scenario.overrides.gpus.get(scenario.cluster.gpu, {})
    slot = host_link.slot_bytes_s(changed.get("nic_pcie_gen", gpu.nic_pcie_gen.typical),
                                  changed.get("nic_pcie_lanes", gpu.nic_pcie_lanes.typical),
                                  cat.model["pcie_efficiency"].typical)
    port = min(port, float(slot) * host_link.BITS_PER_BYTE / 1e9)
    nics = scenario.cluster.nics_per_node or gpu.default_nics_per_node.typical
    gpus = scenario.cluster.gpus_per_node or gpu.default_gpus_per_node.typical
    return float(port), float(nics), float(gpus)


def label(t: Translator, m) -> str:
    """The "measured" label of a stored measurement (or of a parsed ``nccl_tests.Log``) in the page's
    language: the log's header in one line (English: its own ``summary``; other languages: composed
    from the same fields)."""
    if t.lang == "en":
        return m.summary
    parts = [f"{m.collective}_perf" if m.collective else "nccl-tests"]
    if m.ranks is not None:
        parts.append(t("calib.run", ranks=m.ranks, hosts=m.hosts) if m.hosts is not None
                     else t("calib.run_ranks", ranks=m.ranks))
    if m.nccl_version:
        parts.append(f"NCCL {m.nccl_version}")
    if m.gpu:
        parts.append(nccl_tests.short_gpu(m.gpu))
    return " · ".join(parts)


def note_lines(t: Translator, codes) -> str:
    """The importer's notes as a Markdown list in the page's language."""
    return "\n".join(f"- {t.get(f'calib.note.{c}', c)}" for c in codes)


def _over_line_rate(t: Translator, eta: float, port: float, nics: float, key: str = "calib.over_line_rate") -> None:
    """A warning when the measured bandwidth is above what this scenario's NICs carry (η > 1 is held at 1)."""
    if eta > 1.0:
        st.warning(t(key, eta=f"{eta:.0%}", nics=fmt_number(nics), port=fmt_number(port)), icon="⚠️")


def _store(fid: str, table: dict, field: str = "measurements", prefix: str = "") -> None:
    """Callback: put ``table`` in as ``scenario.<field>``; a refusal is shown by the section."""
    key = prefix + fid
    try:
        session.change(field, table)
        st.session_state.pop(_ERR.format(key), None)
        st.session_state[f"calib_text_{key}"] = ""
        st.session_state[_NONCE.format(key)] = st.session_state.get(_NONCE.format(key), 0) + 1  # a new uploader
    except ScenarioError as exc:
        st.session_state[_ERR.format(key)] = exc


def _source(fid: str, t: Translator, prefix: str = "") -> str | bytes:
    key = prefix + fid
    label = "calib.a2a_paste" if prefix else "calib.paste"
    text = st.text_area(t(label), key=f"calib_text_{key}", height=140, help=t("calib.paste_help"))
    nonce = st.session_state.get(_NONCE.format(key), 0)
    notices.uploader_style(t)  # Streamlit's own English texts hidden, the button in the page's language
    upload = st.file_uploader(t("calib.upload"), key=f"calib_file_{key}_{nonce}", help=t("calib.upload_help"))
    return upload.getvalue() if upload is not None else (text or "")


def _in_use(t: Translator, scenario: Scenario, cat: Catalog, fid: str, m) -> None:
    port, nics, gpus = line_rate(scenario, fid, cat)
    catalog_eta = scenario.overrides.fabrics.get(fid, {}).get("efficiency", cat.fabrics[fid].efficiency.typical)
    base = cat.model["nccl_base_latency_us"].typical
    st.success(t("calib.in_use", alpha=fmt_number(m.alpha_us, 1), base=fmt_number(base, 1),
                 busbw=fmt_number(m.busbw_GBps, 1), eta=f"{calibration.efficiency(m, port, nics, gpus):.1%}",
                 catalog_eta=f"{catalog_eta:.1%}", rows=m.rows_used), icon=":material/lab_research:")
    _over_line_rate(t, nccl_tests.efficiency_of(m.collective, m.busbw_GBps, port, nics, gpus), port, nics)
    if m.warnings:
        st.markdown(t("calib.notes") + "\n" + note_lines(t, m.warnings))
    rest = {k: v.model_dump(mode="json") for k, v in scenario.measurements.items() if k != fid}
    st.button(t("calib.remove"), key=f"calib_remove_{fid}", icon=":material/delete:", on_click=_store,
              args=(fid, rest))


def _fabric(t: Translator, scenario: Scenario, cat: Catalog, fid: str) -> None:
    m = scenario.measurements.get(fid)
    if m is not None:
        _in_use(t, scenario, cat, fid, m)
    err = st.session_state.pop(_ERR.format(fid), None)
    if err is not None:
        st.error(t("calib.not_applied", error=md_escape(labels.error_text(t, err))), icon="⚠️")
    source = _source(fid, t)
    coll = st.selectbox(t("calib.collective"), COLLECTIVES, key=f"calib_coll_{fid}",
                        format_func=lambda c: t(f"calib.coll.{c}"), help=t("calib.collective_help"))
    if not (source.strip() if isinstance(source, str) else source):
        return
    try:
        fit = nccl_tests.fit(nccl_tests.parse(source, None if coll == "auto" else coll))
    except ValueError as exc:  # NcclLogError: one message, naming the field and what it accepts
        st.error(t("calib.refused", error=md_escape(labels.error_text(t, exc))), icon="⚠️")
        return
    port, nics, gpus = line_rate(scenario, fid, cat)
    eta = nccl_tests.efficiency(fit, port, int(nics), int(gpus))
    st.info(t("calib.preview", alpha=fmt_number(fit.alpha_us, 1), busbw=fmt_number(fit.busbw_GBps, 1),
              bmax=fmt_number(fit.busbw_max_GBps, 1), eta=f"{eta:.1%}", nics=fmt_number(nics),
              port=fmt_number(port), rows=fit.rows_used, rms=f"{fit.rel_rms:.0%}") + "  \n"
            + t("calib.measured", summary=md_escape(label(t, fit.log))), icon=":material/query_stats:")
    _over_line_rate(t, eta, port, nics)
    if fit.warnings:
        st.markdown(t("calib.notes") + "\n" + note_lines(t, [w.code for w in fit.warnings]))
    try:
        doc = calibration.measurement(fit)
    except ValueError as exc:  # a collective the model does not use yet (alltoall), or unknown
        st.warning(t("calib.refused", error=md_escape(labels.error_text(t, exc))), icon="⚠️")
        return
    table = {k: v.model_dump(mode="json") for k, v in scenario.measurements.items()} | {fid: doc}
    st.button(t("calib.use"), key=f"calib_use_{fid}", type="primary", icon=":material/check:", on_click=_store,
              args=(fid, table))


def _a2a_in_use(t: Translator, scenario: Scenario, cat: Catalog, fid: str, m) -> None:
    port, nics, gpus = line_rate(scenario, fid, cat)
    catalog_eta = scenario.overrides.fabrics.get(fid, {}).get("alltoall_efficiency",
                                                             cat.fabrics[fid].alltoall_efficiency.typical)
    raw = nccl_tests.alltoall_efficiency_of(m.busbw_GBps, m.ranks, m.hosts, port, nics, gpus)
    share = nccl_tests.alltoall_network_share(m.ranks, m.hosts)
    st.success(t("calib.a2a_in_use", busbw=fmt_number(m.busbw_GBps, 1), share=f"{share:.0%}",
                 eta=f"{calibration.alltoall_efficiency(m, port, nics, gpus):.1%}",
                 catalog_eta=f"{catalog_eta:.1%}", rows=m.rows_used), icon=":material/lab_research:")
    _over_line_rate(t, raw, port, nics, "calib.a2a_over_line_rate")
    if m.warnings:
        st.markdown(t("calib.notes") + "\n" + note_lines(t, m.warnings))
    rest = {k: v.model_dump(mode="json") for k, v in scenario.alltoall_measurements.items() if k != fid}
    st.button(t("calib.remove"), key=f"calib_remove_{A2A}{fid}", icon=":material/delete:", on_click=_store,
              args=(fid, rest, "alltoall_measurements", A2A))


def _alltoall(t: Translator, scenario: Scenario, cat: Catalog, fid: str) -> None:
    """The all-to-all slot of fabric ``fid``: an alltoall_perf log sets its all-to-all efficiency."""
    st.markdown("**" + t("calib.a2a_title") + "**")
    st.caption(t("calib.a2a_intro"))
    m = scenario.alltoall_measurements.get(fid)
    if m is not None:
        _a2a_in_use(t, scenario, cat, fid, m)
    err = st.session_state.pop(_ERR.format(A2A + fid), None)
    if err is not None:
        st.error(t("calib.not_applied", error=md_escape(labels.error_text(t, err))), icon="⚠️")
    source = _source(fid, t, A2A)
    if not (source.strip() if isinstance(source, str) else source):
        return
    try:
        fit = nccl_tests.fit(nccl_tests.parse(source, "alltoall"))  # the log's own name wins
        doc = calibration.alltoall_measurement(fit)
    except ValueError as exc:  # NcclLogError: one message, naming the field and what it accepts
        st.error(t("calib.refused", error=md_escape(labels.error_text(t, exc))), icon="⚠️")
        return
    port, nics, gpus = line_rate(scenario, fid, cat)
    eta = nccl_tests.efficiency(fit, port, int(nics), int(gpus))
    st.info(t("calib.a2a_preview", busbw=fmt_number(fit.busbw_GBps, 1), bmax=fmt_number(fit.busbw_max_GBps, 1),
              share=f"{nccl_tests.alltoall_network_share(fit.log.ranks, fit.log.hosts):.0%}",
              ranks=fit.log.ranks, hosts=fit.log.hosts, eta=f"{eta:.1%}", port=fmt_number(port),
              nics=fmt_number(nics), gpus=fmt_number(gpus),
              rows=fit.rows_used, rms=f"{fit.rel_rms:.0%}") + "  \n"
            + t("calib.measured", summary=md_escape(label(t, fit.log))), icon=":material/query_stats:")
    _over_line_rate(t, eta, port, nics, "calib.a2a_over_line_rate")
    if fit.warnings:
        st.markdown(t("calib.notes") + "\n" + note_lines(t, [w.code for w in fit.warnings]))
    table = {k: v.model_dump(mode="json") for k, v in scenario.alltoall_measurements.items()} | {fid: doc}
    st.button(t("calib.use"), key=f"calib_use_{A2A}{fid}", type="primary", icon=":material/check:", on_click=_store,
              args=(fid, table, "alltoall_measurements", A2A))


def section(t: Translator, scenario: Scenario, cat: Catalog) -> None:
    """Per compared fabric: its measurements in use (with Remove) and a log to read (with Use), for
    the ring slot and the all-to-all slot."""
    st.subheader(t("calib.title"))
    st.caption(t("calib.intro"))
    names = labels.fabric_names(t)
    for fid in scenario.fabrics:
        m = scenario.measurements.get(fid)
        a2a = scenario.alltoall_measurements.get(fid)
        title = names[fid] + (" · " + t("calib.measured", summary=label(t, m)) if m is not None else "") + (
            " · " + t("calib.a2a_measured", summary=label(t, a2a)) if a2a is not None else "")
        measured = m is not None or a2a is not None
        with st.expander(md_escape(title), expanded=measured, icon=":material/lab_research:" if measured else None):
            _fabric(t, scenario, cat, fid)
            _alltoall(t, scenario, cat, fid)


def alltoall_caption(t: Translator, scenario: Scenario, f) -> None:
    """Compare's card line for a fabric result ``f`` whose all-to-all efficiency was measured."""
    if f.measured_alltoall:
        m = scenario.alltoall_measurements.get(f.id)
        st.caption(t("calib.a2a_measured", summary=md_escape(label(t, m) if m else f.measured_alltoall)))


def alltoall_note(t: Translator, scenario: Scenario, fabrics, names: dict) -> None:
    """Compare's note under the specs table: the fabrics whose all-to-all efficiency was measured."""
    measured = [f for f in fabrics if f.measured_alltoall]
    if measured:
        st.caption(t("calib.a2a_compare_note") + "  \n" + "  \n".join(
            t("calib.measured_by", fabric=md_escape(names[f.id]), summary=md_escape(
                label(t, scenario.alltoall_measurements[f.id]) if f.id in scenario.alltoall_measurements
                else f.measured_alltoall)) for f in measured))


def alltoall_table_captions(t: Translator, scenario: Scenario, names: dict) -> None:
    """Under the Assumptions page's fabric table: each fabric whose all-to-all efficiency a measurement
    sets (it is used instead of the table's ``alltoall_efficiency``)."""
    for fid, m in scenario.alltoall_measurements.items():
        st.caption(t("calib.a2a_measured_by", fabric=md_escape(names[fid]), summary=md_escape(label(t, m))))
