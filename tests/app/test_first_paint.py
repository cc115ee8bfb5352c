"""A new session's first paint: text and KPI values without the charts and tables, which the next
run (asked for by the browser right after painting) draws; later runs draw everything."""

from __future__ import annotations

from apptest_helpers import open_page, plotly_specs

from webui import first_paint
from webui.i18n import Translator


def test_compare_paints_its_kpis_first_then_the_charts_with_the_next_run():
    t = Translator("en")
    at = open_page("compare", "en", first_paint=True)
    assert at.metric and not plotly_specs(at)  # the answer, without any chart
    assert t("progress.first_paint") in [c.value for c in at.caption]
    assert at.session_state[first_paint.KEY_ARMED] and first_paint.KEY_DONE not in at.session_state
    at.run()  # what the fragment's timer asks for: the whole page
    assert not at.exception
    assert at.session_state[first_paint.KEY_DONE]
    assert {"chart_breakdown", "chart_cumulative", "chart_waterfall"} <= {k.split("-")[-1] for k in plotly_specs(at)}
    assert t("progress.first_paint") not in [c.value for c in at.caption]


def test_a_page_with_nothing_to_defer_is_done_after_its_first_run():
    at = open_page("cluster", "en", first_paint=True)
    assert at.session_state[first_paint.KEY_DONE] and first_paint.KEY_ARMED not in at.session_state


def test_lazy_tabs_and_the_method_chart_wait_for_the_next_run_too():
    for page in ("risk", "scale", "method"):
        at = open_page(page, "en", first_paint=True)
        assert not plotly_specs(at), page
        at.run()
        assert plotly_specs(at), page
