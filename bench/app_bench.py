"""Server-side rerun time of each page after a widget change (Streamlit AppTest), printed beside
the rerun time of its bare twin — the same app frame and widgets, without the model, charts or
tables — measured in one run.

Two kinds of change per page:
* display: the exchange-rate widget in the sidebar changes (model results come from the cache);
* scenario: the node count changes to a value not seen before (the model runs: a cache miss).

Page scripts are compiled once and kept, as the Streamlit server keeps them (AppTest alone would
recompile every page on every rerun).

Target (issues 3 and 12): the Compare page reruns in ≤ 3× the bare page and in under 300 ms, after
a display change and after a scenario change. A bare twin has the real page's widgets (Compare's:
the waterfall's fabric, the details tabs and the bill of materials' fabric), none of its output.
Usage: ``PYTHONPATH=. python bench/app_bench.py [--repeat N] [--pages compare risk …]``.
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
# same widgets as the real page, but no model call, no chart, no table.
BARE_PAGE = """
import streamlit as st
from webui import session
t = session.translator()
st.title(t("{name}.title"))
{widgets}
"""
BARE_WIDGETS = {
    "compare": ('st.selectbox("fabric", ["a", "b", "c"], key="compare_waterfall_fabric")\n'
                'tabs = st.tabs(["a", "b", "c", "d", "e"], key="compare_details", on_change="rerun")\n'
                'with tabs[0]:\n'
                '    st.selectbox("fabric", ["a", "b", "c"], key="compare_bom_fabric")'),
    "scale": ('st.segmented_control("metric", ["a", "b", "c"], default="a", key="scale_metric")\n'
              'st.selectbox("fabric", ["a", "b"], key="solver_fabric")\n'
              'st.selectbox("parameter", ["a", "b"], key="solver_param")'),
    "risk": ('st.selectbox("fabric", ["a", "b"], key="risk_fabric")\n'
             'st.select_slider("draws", [1, 2], value=2, key="risk_draws")\n'
             'st.number_input("seed", value=1, key="risk_seed")'),
}


def make_bare_app(tmp: Path) -> Path:
    """A copy of the app whose pages are bare twins; the frame and the webui package are the real ones."""
    (tmp / "app_pages").mkdir()
    for name in PAGES:
        widgets = BARE_WIDGETS.get(name, "")
        (tmp / "app_pages" / f"{name}.py").write_text(BARE_PAGE.format(name=name, widgets=widgets), encoding="utf-8")
    for name in ("scenarios", "price_books"):  # registered by the frame, not benchmarked here
        (tmp / "app_pages" / f"{name}.py").write_text("import streamlit as st\nst.title('x')\n", encoding="utf-8")
    for item in (".streamlit",):  # the webui and costmodel packages come from the repo root on sys.path
        (tmp / item).symlink_to(ROOT / item)
    app = tmp / "app.py"
    app.write_text((ROOT / "app.py").read_text(encoding="utf-8"), encoding="utf-8")
    return app


def _median_ms(times: list[float]) -> float:  # [s] → median [ms]
    return 1000.0 * statistics.median(times)


def _display_change(at: AppTest, i: int) -> float:
    at.number_input(key="fx").set_value(1.0 + 0.001 * (i + 1))
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    assert not at.exception, at.exception
    return elapsed


def _scenario_change(at: AppTest, i: int, start: int) -> float:
    scenario = at.session_state["scenario"]
    data = scenario.model_dump()
    data["cluster"]["nodes"] = start + i
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
    args = ap.parse_args()
    pages = args.pages

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        bare_app = make_bare_app(Path(tmp))
        for page in pages:
            n = PAGES.index(page)
            real, bare = _open(ROOT / "app.py", page), _open(bare_app, page)
            display = interleaved(real, bare, _display_change, args.repeat)
            start = 40 + 100 * n
            scenario = interleaved(real, bare, lambda at, i, s=start: _scenario_change(at, i, s), args.repeat)
            results[page] = display, scenario
    print(f"median rerun after a widget change, {args.repeat} changes each, page and bare twin interleaved; "
          "bare twin = the same frame and widgets without model, charts or tables")
    print(f"{'page':<12} {'display':>9} {'bare':>7} {'ratio':>6}   {'scenario':>9} {'bare':>7} {'ratio':>6}")
    for page in pages:
        (d, bd), (s_, bs) = results[page]
        print(f"{page:<12} {d:6.1f} ms {bd:4.1f} ms {d / bd:5.1f}×   {s_:6.1f} ms {bs:4.1f} ms {s_ / bs:5.1f}×")
    if "compare" not in results:
        return
    (d, bd), (s_, bs) = results["compare"]
    print(f"\nCompare: {d:.1f} ms after a display change ({d / bd:.2f}× its bare twin), {s_:.1f} ms after a "
          f"scenario change ({s_ / bs:.2f}×); target ≤ 3× the bare page and < 300 ms")


def _open(app: Path, page: str) -> AppTest:
    at = AppTest.from_file(str(app), default_timeout=120)
    at.query_params["cur"] = "USD"
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


if __name__ == "__main__":
    main()
