"""AppTest helpers: run a page of the app in a simulated session."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["guided", "cluster", "compare", "serving", "scale", "risk", "assumptions", "method", "report"]


def open_page(page: str, lang: str = "en", **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = lang
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def plotly_specs(at: AppTest) -> dict[str, dict]:
    """Plotly figures on the page by element key, read from the element's proto."""
    out = {}
    for el in at.get("plotly_chart"):
        spec = json.loads(el.proto.spec)
        out[el.proto.id] = spec
    return out



def keyed(widgets, name: str):
    """The widget called ``name`` among ``widgets`` (e.g. ``at.selectbox``), keyed plainly, by the
    scenario's revision (``webui.session.state.widget_key``: ``name~3``) and/or by its labels
    (``webui.session.keys.label_key``: ``name#digest``, ``name~3#digest``)."""
    pattern = re.compile(re.escape(name) + r"(~\d+)?(#.*)?")
    found = [w for w in widgets if pattern.fullmatch(w.key or "")]
    assert len(found) == 1, (name, [w.key for w in widgets])
    return found[0]


def open_details(at: AppTest, panel: str, lang: str = "en") -> AppTest:
    """Open Compare's details tab ``panel`` (an id of :data:`webui.panels.details.PANELS`), as a click on it
    does, and rerun the page."""
    from webui.i18n.translator import Translator
    from webui.panels import details
    from webui.session import keys

    t = Translator(lang)
    labels = [t(title) for title in details.PANELS.values()]
    at.session_state[keys.label_key(details.NAME, labels)] = t(details.PANELS[panel])
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[details.OPEN] == panel
    return at


def open_tab(at: AppTest, tabs: tuple[str, dict[str, str]], panel: str, lang: str = "en") -> AppTest:
    """Open tab ``panel`` of a page's lazy tabs ``tabs`` (e.g. :data:`webui.panels.lazy_tabs.RISK`), as a
    click on it does, and rerun the page."""
    from webui.i18n.translator import Translator
    from webui.panels import lazy_tabs
    from webui.session import keys

    t = Translator(lang)
    name, titles = tabs
    at.session_state[keys.label_key(name, [t(k) for k in titles.values()])] = t(titles[panel])
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[lazy_tabs.open_key(name)] == panel
    return at
