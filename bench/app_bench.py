"""Server-side rerun time of each page after a widget change (Streamlit AppTest), printed beside
the rerun time of its bare twin — the same app frame and widgets, without the model, charts or
tables — measured in one run.

Two kinds of change per page:
* display: the exchange-rate widget in the sidebar changes (model results come from the cache);
* scenario: the node count changes to a value not seen before (the model runs: a cache miss), or
  with ``--field facility.pue`` the PUE (Scale's sweep does not depend on the node count and is
  cached without it; a PUE change makes it run again).

Page scripts are compiled once and kept, as the Streamlit server keeps them (AppTest alone would
recompile every page on every rerun).

Target: every page reruns in ≤ 3× its bare twin and in under 300 ms, after a display change and
after a scenario change. A bare twin carries the real page's widgets, read from the page as it
first opens (every number input, select box, multiselect, toggle, text input, segmented control,
select slider, button and tab of its main area, with their labels, options, values and help
texts; the sidebar is the real frame's in both), none of its output: no model call, no chart, no
table, no text. Pages with lazy tabs (Compare's details, Scale, Risk, Assumptions) are measured on
the tab that opens first; ``--tab page=panel`` measures another one (e.g. ``--tab risk=mc``).
Usage: ``PYTHONPATH=. python bench/app_bench.py [--repeat N] [--pages compare risk …] [--tab risk=mc]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as _app_test
from streamlit.testing.v1 import local_script_runner as _local_runner

# The server compiles a page script once and keeps its bytecode (one ScriptCache per runtime);
# AppTest builds a new cache on every run, so each rerun here would pay a compile the server never
# pays (≈ 4 ms for Compare, ≈ 0.3 ms for a bare twin). Share one cache, as the server does.
_SHARED_SCRIPTS = ScriptCache()
_app_test.ScriptCache = _local_runner.ScriptCache = lambda: _SHARED_SCRIPTS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the bare twins import the real webui and costmodel packages
PAGES = ["cluster", "compare", "scale", "risk", "assumptions", "method", "report"]

# Bare twins of the pages: the same app frame (app.py: navigation, sidebar, URL sync) and the
# same widgets as the real page (read from it by twin_widgets), but no model call, no chart, no table.
BARE_PAGE = """
import streamlit as st
from webui.session import state as session
t = session.translator()
st.title(t("{name}.title"))
{widgets}
"""


def twin_widgets(at: AppTest) -> str:
    """Code drawing the widgets of the page ``at`` shows (its main area) with the same keys, labels,
    options, values and help texts, in the page's order within each kind."""
    main, lines = at.main, []

    def opts(w) -> list[str]:
        return [str(o) for o in w.options]

    for w in main.get("number_input"):
        lines.append(f"st.number_input({w.label!r}, value={w.value!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("selectbox"):
        lines.append(f"st.selectbox({w.label!r}, {opts(w)!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("multiselect"):
        shown = opts(w)[: len(w.value)]
        lines.append(f"st.multiselect({w.label!r}, {opts(w)!r}, default={shown!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("toggle"):
        lines.append(f"st.toggle({w.label!r}, value={w.value!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("text_input"):
        lines.append(f"st.text_input({w.label!r}, value={w.value!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("button_group"):
        lines.append(f"st.segmented_control({w.label!r}, {opts(w)!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("select_slider"):
        lines.append(f"st.select_slider({w.label!r}, {opts(w)!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("text_area"):
        lines.append(f"st.text_area({w.label!r}, value={w.value!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("button"):
        lines.append(f"st.button({w.label!r}, key={w.key!r}, help={w.help!r})")
    for w in main.get("download_button"):
        lines.append(f"st.download_button({w.proto.label!r}, b'', key={w.proto.id.rsplit('-', 1)[-1]!r})")
    tabs = [tab.label for tab in main.get("tab")]
    if tabs:
        lines.append(f"st.tabs({tabs!r}, key='twin_tabs', on_change='rerun')")
    return "\n".join(lines)


def make_bare_app(tmp: Path) -> Path:
    """A copy of the app whose pages are bare twins (written by :func:`write_twin`); the frame and the
    webui package are the real ones."""
    (tmp / "app_pages").mkdir()
    for name in PAGES:
        write_twin(tmp, name, "")
    for name in ("scenarios", "price_books"):  # registered by the frame, not benchmarked here
        (tmp / "app_pages" / f"{name}.py").write_text("import streamlit as st\nst.title('x')\n", encoding="utf-8")
    for item in (".streamlit",):  # the webui and costmodel packages come from the repo root on sys.path
        (tmp / item).symlink_to(ROOT / item)
    app = tmp / "app.py"
    app.write_text((ROOT / "app.py").read_text(encoding="utf-8"), encoding="utf-8")
    return app


def write_twin(tmp: Path, name: str, widgets: str) -> None:
    (tmp / "app_pages" / f"{name}.py").write_text(BARE_PAGE.format(name=name, widgets=widgets), encoding="utf-8")


def _median_ms(times: list[float]) -> float:  # [s] → median [ms]
    return 1000.0 * statistics.median(times)


def _display_change(at: AppTest, i: int) -> float:
    at.number_input(key="fx").set_value(1.0 + 0.001 * (i + 1))
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    assert not at.exception, at.exception
    return elapsed


def _scenario_change(at: AppTest, i: int, start: int, field: str = "cluster.nodes") -> float:
    """``field`` set to a value not seen before: node count ``start + i``, PUE ``1.1 + start·1e-5 + i·1e-3``."""
    scenario = at.session_state["scenario"]
    data = scenario.model_dump()
    section, name = field.split(".")
    data[section][name] = start + i if field == "cluster.nodes" else round(1.1 + start * 1e-5 + i * 1e-3, 6)
    at.session_state["scenario"] = type(scenario).model_validate(data)
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    assert not at.exception, at.exception
    return elapsed


def interleaved(real: AppTest, bare: AppTest, change, repeat: int) -> tuple[float, float]:
    """Median rerun times [ms] of the page and its bare twin, changes alternating between the two so
    that background load on this shared machine hits both alike."""
    t_real, t_bare = [], []
    for i in range(repeat):
        t_bare.append(change(bare, i))
        t_real.append(change(real, i))
    return _median_ms(t_real), _median_ms(t_bare)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=25)
    ap.add_argument("--pages", nargs="+", choices=PAGES, default=PAGES, help="pages to measure (default: all)")
    ap.add_argument("--tab", action="append", default=[], metavar="PAGE=PANEL",
                    help="measure a page on another of its lazy tabs (webui.panels.lazy_tabs), e.g. risk=mc")
    ap.add_argument("--field", choices=["cluster.nodes", "facility.pue"], default="cluster.nodes",
                    help="the input a scenario change sets (default: the node count)")
    args = ap.parse_args()
    pages, tabs = args.pages, dict(item.split("=", 1) for item in args.tab)

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        bare_app = make_bare_app(Path(tmp))
        for page in pages:
            n = PAGES.index(page)
            real = _open(ROOT / "app.py", page, tabs.get(page))
            write_twin(Path(tmp), page, twin_widgets(real))
            bare = _open(bare_app, page)
            display = interleaved(real, bare, _display_change, args.repeat)
            start = 40 + 100 * n
            scenario = interleaved(real, bare, lambda at, i, s=start: _scenario_change(at, i, s, args.field),
                                   args.repeat)
            results[page] = display, scenario
    print(f"median rerun after a widget change, {args.repeat} changes each, page and bare twin interleaved; "
          f"bare twin = the same frame and widgets without model, charts or tables; scenario change: {args.field}")
    print(f"{'page':<16} {'display':>9} {'bare':>7} {'ratio':>6}   {'scenario':>9} {'bare':>7} {'ratio':>6}")
    for page in pages:
        (d, bd), (s_, bs) = results[page]
        name = f"{page}:{tabs[page]}" if page in tabs else page
        flag = "" if max(d / bd, s_ / bs) <= 3 and max(d, s_) < 300 else "  over target"
        print(f"{name:<16} {d:6.1f} ms {bd:4.1f} ms {d / bd:5.1f}×   {s_:6.1f} ms {bs:4.1f} ms {s_ / bs:5.1f}×{flag}")
    print("\ntarget: every page ≤ 3× its bare twin and < 300 ms, after a display and after a scenario change")


def _open(app: Path, page: str, tab: str | None = None) -> AppTest:
    at = AppTest.from_file(str(app), default_timeout=120)
    at.query_params["cur"] = "USD"
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, at.exception
    if tab is not None:  # open another of the page's lazy tabs, as a click on it does
        from webui.i18n.translator import Translator
        from webui.panels import lazy_tabs
        from webui.session import keys

        name, titles = getattr(lazy_tabs, page.upper())
        t = Translator("en")
        at.session_state[keys.label_key(name, [t(k) for k in titles.values()])] = t(titles[tab])
        at.run()
        assert not at.exception, at.exception
        assert at.session_state[lazy_tabs.open_key(name)] == tab, f"{page} has no tab {tab}"
    return at


if __name__ == "__main__":
    main()
