"""Quick estimate (快速估算): three questions for a customer who arrives cold — what the cluster does,
which GPUs and how many (or what budget), what matters most — then the recommended fabric with its
one-sentence reason, the headline numbers, and the full pages on the same scenario.

The answer is an ordinary scenario (:func:`costmodel.scenario.guided.build` on the language's blank
scenario) put in the session like a load: every page shows it, and its share link is the one every
page makes. Nothing of the guide is stored beside the scenario."""

from __future__ import annotations

import streamlit as st

from costmodel.analysis.guided import pick
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario import guided, locale_defaults
from webui import compute
from webui.i18n import labels
from webui.i18n.money import default_rate
from webui.i18n.text import md_escape
from webui.inputs import number_boxes, widgets
from webui.sections import guided_text
from webui.sections.fit_notes import no_fit_text
from webui.session import keys, share, titles
from webui.session import state as session

KEY_STEP = "guided_step"  # the step shown last: 1, 2, 3, or 4 once answered
KEY_KEPT = "guided_kept"  # the choices made, kept while another page is open (its widgets' state is dropped)
KEY_ANSWERS = "guided_answers"  # the answers last put in the session's scenario
TASKS = ("train", "serve")
SIZINGS = ("gpus", "budget")
BUDGET_MAX = 1e15  # [currency] a sanity bound of the budget box, far above any cluster the planner models

t = session.translator()
money = session.money()
cat = load_catalog()
base = locale_defaults.localize(share.preset_scenario(share.BLANK), session.language())
book = cat.price_book(base.price_book)
names = labels.fabric_names(t)
step = st.session_state.get(KEY_STEP, 1)


def _advance(to: int) -> None:
    st.session_state[KEY_STEP] = max(st.session_state.get(KEY_STEP, 1), to)


def _restart() -> None:
    st.session_state[KEY_STEP] = 1


def _show() -> None:
    _advance(4)
    st.session_state[KEY_ANSWERS] = None  # a press of the button puts the answers in, even unchanged


def _choice(kind: str, label: str, options: list, name: str, fmt, default: int = 0, **kwargs):
    """A radio or select box keyed by its labels (:mod:`webui.session.keys`) that starts from the
    choice kept for ``name`` (the page was left and opened again, or the language switched)."""
    kept = st.session_state.setdefault(KEY_KEPT, {})
    key = keys.label_key(name, [fmt(o) for o in options])
    index = options.index(kept[name]) if kept.get(name) in options else default
    value = getattr(st, kind)(label, options, index=index, format_func=fmt,
                              key=key, **kwargs)
    kept[name] = value
    return value


def _number(label: str, name: str, lo: float, hi: float, default: float, **kwargs) -> float:
    """A bounded number box (:func:`webui.inputs.number_boxes.bounded_number`) that starts from its
    last accepted value."""
    start = st.session_state.get(f"{name}__kept", default)
    return number_boxes.bounded_number(t, st, label, name, lo, hi, start, **kwargs)


def _next(at: int, disabled: bool = False) -> None:
    """The step's Next button while it is the last step shown."""
    if step == at:
        st.button(t("guided.next"), key=f"guided_next{at}", type="primary", on_click=_advance, args=(at + 1,),
                  disabled=disabled)


def step_one() -> str | None:
    """What the cluster does: the named model to train (serving is said to be not modelled)."""
    with st.container(border=True):
        st.subheader(t("guided.step1"))
        task = _choice("radio", t("guided.task"), list(TASKS), "guided_task", lambda k: t(f"guided.task_{k}"),
                       horizontal=True)
        if task == "serve":
            st.info(t("guided.serve_on_page"), icon=":material/info:")
            st.page_link("app_pages/serving.py", label=t("nav.serving"), icon=":material/chat:")
        models = guided.models()
        model = _choice("selectbox", t("guided.model"), list(models), "guided_model",
                        lambda k: models[k].label(t.lang), help=t("guided.model_help"), disabled=task == "serve")
        _next(1, disabled=task == "serve")
    return None if task == "serve" else model


def _budget_nodes(scenario, per: int) -> int | None:
    """The cluster a budget buys, said under the box; None when not one server fits."""
    rate = money.rate if book.currency == money.model_currency else default_rate(book.currency, money.currency)
    years = base.finance.horizon_years
    one = compute.evaluate(compute.key(scenario), _scenario=scenario)
    start = min(f.tco_total for f in one.fabrics) * rate  # the blank cluster's cost: a budget to start from
    start = float(f"{start:.2g}")
    budget = _number(t("guided.budget", years=years, currency=money.currency), "guided_budget", 1.0, BUDGET_MAX,
                     start, fmt="%.0f", help=t("guided.budget_help"))
    found = compute.guided_budget(compute.sweep_key(scenario), budget / rate, _scenario=scenario)
    tco = money.short(found.tco)
    if found.nodes is None:
        st.warning(t("guided.budget_too_small", tco=tco, years=years), icon=":material/savings:")
        return None
    text = "guided.budget_at_limit" if found.at_limit else "guided.budget_fits"
    st.caption(t(text, nodes=f"{found.nodes:,}", per=per, gpus=f"{found.nodes * per:,}", tco=tco, years=years))
    return found.nodes


def step_two(model: str) -> tuple[str, int] | None:
    """Which GPU, and how many (or the budget that sizes the cluster) → (gpu, nodes), else None."""
    with st.container(border=True):
        st.subheader(t("guided.step2"))
        gpus = [g for g in cat.gpus if g in book.gpus]  # the session's book: China-market parts in Chinese
        gpu = _choice("selectbox", t("guided.gpu"), gpus, "guided_gpu", lambda g: cat.gpus[g].name,
                      gpus.index(base.cluster.gpu) if base.cluster.gpu in gpus else 0, help=t("guided.gpu_help"))
        per = int(cat.gpus[gpu].default_gpus_per_node.typical)
        sizing = _choice("radio", t("guided.size_by"), list(SIZINGS), "guided_sizing",
                         lambda k: t(f"guided.size_{k}"), horizontal=True)
        if sizing == "gpus":
            hi = widgets.bounds("cluster.nodes")[1] * per
            count = _number(t("guided.gpus"), "guided_gpus", 1, hi, base.cluster.nodes * per, whole=True,
                            help=t("guided.gpus_help"))
            nodes = guided.nodes_for(int(count), per)
            st.caption(t("guided.servers", nodes=f"{nodes:,}", per=per, gpus=f"{nodes * per:,}"))
        else:
            nodes = _budget_nodes(guided.build(base, model, gpu, base.cluster.nodes, "cost"), per)
        _next(2, disabled=nodes is None)
    return None if nodes is None else (gpu, nodes)


def step_three() -> str:
    """What matters most: time, cost or risk; the button that shows the answer."""
    with st.container(border=True):
        st.subheader(t("guided.step3"))
        priority = _choice("radio", t("guided.priority"), list(guided.PRIORITIES), "guided_priority",
                           lambda k: t(f"guided.priority_{k}"))
        if step == 3:
            st.button(t("guided.show"), key="guided_show", type="primary", on_click=_show)
    return priority


def _warnings(res, scenario) -> None:
    """What the answer cannot promise: one line when no fabric fits the yearly plan, else per fabric."""
    if all(f.metrics["fits_memory"] and not f.fits_plan for f in res.fabrics):
        days = min(float(f.metrics["run_days"]) for f in res.fabrics)
        st.warning(t("guided.no_fit", nodes=f"{scenario.cluster.nodes:,}", runs=f"{scenario.workload.runs_per_year:g}",
                     days=f"{days:,.0f}"), icon="⏱️")
        return
    for f in res.fabrics:
        if not f.metrics["fits_memory"]:
            st.warning(t("layout.none_fits", fabric=names[f.id], used=f"{f.metrics['memory_gb_per_gpu']:,.1f}",
                         usable=f"{f.metrics['memory_usable_gb']:,.1f}"), icon="🧮")
        elif not f.fits_plan:
            st.warning(no_fit_text(t, names[f.id], f.metrics, scenario.cluster.nodes), icon="⏱️")


def answer(priority: str) -> None:
    """The recommended fabric, its reason, the headline numbers, the full pages and the link."""
    scenario = session.scenario()
    res = compute.evaluate(compute.key(scenario), _scenario=scenario)
    fabric = pick(res, priority)
    with st.container(border=True):
        st.subheader(t("guided.answer", fabric=names[fabric]))
        st.markdown(md_escape(guided_text.reason(t, money, res, names, fabric, priority)))
        cols = st.columns(4)
        for col, (label, value) in zip(cols, guided_text.headline(t, money, res, fabric), strict=True):
            col.metric(label, value)
        st.caption(t("guided.scenario", title=md_escape(titles.scenario_title(scenario, session.preset(), t))))
        _warnings(res, scenario)
    st.markdown(f"**{md_escape(t('guided.more'))}**")
    cols = st.columns(4)
    for col, (page, text, icon) in zip(cols, [
            ("compare", "open_compare", ":material/compare_arrows:"), ("cluster", "open_cluster", ":material/dns:"),
            ("risk", "open_risk", ":material/casino:"), ("report", "open_report", ":material/download:")], strict=True):
        col.page_link(f"app_pages/{page}.py", label=t(f"guided.{text}"), icon=icon)
    st.caption(t("guided.link"))
    st.code(session.link_url(session.share_url().split("?", 1)[1]), language=None, wrap_lines=True)
    st.caption(t("guided.changed"))
    st.button(t("guided.again"), key="guided_again", on_click=_restart)


def _put_in(answers: tuple[str, str, int, str]) -> None:
    """The guide's scenario into the session, as a load: when the button was pressed or an answer
    changed since, never on merely opening the page again (the full pages' edits stay)."""
    if st.session_state.get(KEY_ANSWERS) == answers:
        return
    try:
        new = guided.build(base, *answers)
    except ScenarioError as exc:
        st.error(md_escape(labels.error_text(t, exc)), icon="⚠️")
        st.stop()
    st.session_state[KEY_ANSWERS] = answers
    if new != session.scenario() or session.preset() != share.BLANK:
        session.replace(new, share.BLANK)
        st.rerun()  # the sidebar (drawn before this page) shows the new scenario and its link


st.title(t("guided.title"))
st.caption(t("guided.intro"))
chosen_model = step_one()
sized = step_two(chosen_model) if chosen_model is not None and step >= 2 else None
if sized is not None and step >= 3:
    chosen = step_three()
    if step >= 4:
        _put_in((chosen_model, sized[0], sized[1], chosen))
        answer(chosen)
