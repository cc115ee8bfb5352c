"""The Assumptions page's "Measured fabrics" section: paste or upload nccl-tests output per fabric,
see its fit, store it in the scenario (through :mod:`webui.session`, the single writer) or remove it.

The log is read by :mod:`costmodel.nccl_tests` and never stored: the scenario keeps the fit
(``scenario.measurements``, see :mod:`costmodel.calibration`). A log that cannot be read gets one
message naming the field and what is accepted; nothing already stored changes.
"""

from __future__ import annotations

import streamlit as st

from costmodel import calibration, nccl_tests
from costmodel.catalog import Catalog
from costmodel.errors import ScenarioError
from costmodel.schema import Scenario

from . import labels, notices, session
from .i18n import Translator, fmt_number
from .text import md_escape

COLLECTIVES = ("auto", *nccl_tests.RING_COLLECTIVES, "alltoall")
_ERR = "calib_err_{}"
_NONCE = "calib_nonce_{}"


def line_rate(scenario: Scenario, fid: str, cat: Catalog) -> tuple[float, float, float]:
    """(port [Gb/s], NICs per node, GPUs per node) of fabric ``fid`` in ``scenario``, as the model reads them."""
    gpu = cat.gpus[scenario.cluster.gpu]
    port = scenario.overrides.fabrics.get(fid, {}).get("port_gbps", cat.fabrics[fid].port_gbps.typical)
    nics = scenario.cluster.nics_per_node or gpu.default_nics_per_node.typical
    gpus = scenario.cluster.gpus_per_node or gpu.default_gpus_per_node.typical
    return float(port), float(nics), float(gpus)


def label(t: Translator, m) -> str:
    """The "measured" label of a stored measurement in the page's language: the log's header in one line
    (English: its own ``summary``; other languages: composed from the same fields)."""
    if t.lang == "en":
        return m.summary
    parts = [f"{m.collective}_perf"]
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


def _over_line_rate(t: Translator, eta: float, port: float, nics: float) -> None:
    """A warning when the measured bandwidth is above what this scenario's NICs carry (η > 1 is held at 1)."""
    if eta > 1.0:
        st.warning(t("calib.over_line_rate", eta=f"{eta:.0%}", nics=fmt_number(nics), port=fmt_number(port)),
                   icon="⚠️")


def _store(fid: str, table: dict) -> None:
    """Callback: put ``table`` in as ``scenario.measurements``; a refusal is shown by the section."""
    try:
        session.change("measurements", table)
        st.session_state.pop(_ERR.format(fid), None)
        st.session_state[f"calib_text_{fid}"] = ""
        st.session_state[_NONCE.format(fid)] = st.session_state.get(_NONCE.format(fid), 0) + 1  # a new uploader
    except ScenarioError as exc:
        st.session_state[_ERR.format(fid)] = exc


def _source(fid: str, t: Translator) -> str | bytes:
    text = st.text_area(t("calib.paste"), key=f"calib_text_{fid}", height=140, help=t("calib.paste_help"))
    nonce = st.session_state.get(_NONCE.format(fid), 0)
    notices.uploader_style(t)  # Streamlit's own English texts hidden, the button in the page's language
    upload = st.file_uploader(t("calib.upload"), key=f"calib_file_{fid}_{nonce}", help=t("calib.upload_help"))
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
            + t("calib.measured", summary=md_escape(fit.summary)), icon=":material/query_stats:")
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


def section(t: Translator, scenario: Scenario, cat: Catalog) -> None:
    """Per compared fabric: its measurement in use (with Remove) and a log to read (with Use)."""
    st.subheader(t("calib.title"))
    st.caption(t("calib.intro"))
    names = labels.fabric_names(t)
    for fid in scenario.fabrics:
        m = scenario.measurements.get(fid)
        title = names[fid] + (" · " + t("calib.measured", summary=label(t, m)) if m is not None else "")
        with st.expander(md_escape(title), expanded=m is not None, icon=":material/lab_research:"
                         if m is not None else None):
            _fabric(t, scenario, cat, fid)
