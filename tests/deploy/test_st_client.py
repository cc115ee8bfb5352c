"""The load bench's protocol client (``bench/st_client.py``) against one plain app server, so CI
exercises Streamlit's websocket protocol as the bench speaks it: open the Cluster page, change the
node count through the widget's state, open Compare, and read the TCO cards the model predicts.
"""

from __future__ import annotations

import sys

import pytest
from browser_helpers import ROOT, AppServer
from origin_probe import run

import costmodel
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import Translator
from webui.session import share

sys.path.append(str(ROOT / "bench"))
from st_client import Session

PRESET = "seed-intro-32xA100"
NODES = "w.cluster.nodes"


@pytest.fixture(scope="module")
def server():
    app = AppServer("st-client").wait_ready()
    yield app
    app.stop()


def _tco_cards(nodes: int | None) -> tuple[str, list[str]]:
    scenario = share.decode(PRESET, "")  # ?p= with no scenario token: a format-1 link, opened as made
    if nodes is not None:
        data = scenario.model_dump(mode="json")
        data["cluster"]["nodes"] = nodes
        scenario = costmodel.Scenario.model_validate(data)
    res = costmodel.evaluate(scenario)
    money = Money(res.currency, "USD", default_rate(res.currency, "USD"))
    return Translator("en")("kpi.tco", years=res.horizon_years), [money.short(f.tco_total) for f in res.fabrics]


def _shown(run, label: str) -> list[str]:
    return [value for lab, value in run.metrics if lab.startswith(label)]


def test_widget_change_then_compare_shows_the_model_numbers(server):
    async def session():
        s = Session(server.base, timeout=60)
        try:
            runs = [await s.open("cluster", f"p={PRESET}&lang=en&cur=USD")]
            runs.append(await s.set_number(NODES, 48))
            runs.append(await s.goto("compare"))
            runs.append(await s.rerun())  # unchanged: the chart comes back as a cached-message reference
            return s, runs
        finally:
            await s.close()

    s, (opened, edit, compare, again) = run(session())  # a thread of its own: a worker's browser holds this loop
    preset_nodes = costmodel.load_preset(PRESET).cluster.nodes
    assert opened.ok, opened.errors
    assert opened.widget(NODES).number_input.default == preset_nodes
    assert s.cookies.get("_streamlit_xsrf") and s.session_id

    assert edit.ok, edit.errors
    assert edit.widget(NODES).number_input.default == 48  # the input shows the new value
    assert "s=" in s.query  # the app wrote the changed scenario into the URL (page_info_changed)

    label, expected = _tco_cards(48)
    assert compare.ok, compare.errors
    assert compare.page_hash == s.pages[""]  # Compare is the default page
    assert _shown(compare, label) == expected
    assert expected != _tco_cards(None)[1]  # the change did change the numbers

    assert again.ok and _shown(again, label) == expected
    assert again.cache_hits >= 1
