"""Server-side rerun time of each page after a widget change (Streamlit AppTest), printed beside
the rerun time of a bare page with the same sidebar widgets, measured in one run.

Two kinds of change per page:
* display: the exchange-rate widget in the sidebar changes (model results come from the cache);
* scenario: the node count changes to a value not seen before (the model runs: a cache miss).

Target (issue 3): the Compare page reruns in ≤ 3× the bare page and in under 300 ms.
Usage: ``PYTHONPATH=. python bench/app_bench.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["cluster", "compare", "scale", "risk", "assumptions", "method"]

# The sidebar of app.py without any page content and without the model.
BARE = '''
import streamlit as st
st.set_page_config(page_title="bare", layout="wide")
with st.sidebar:
    st.markdown("### Fabric TCO Planner")
    st.caption("tagline")
    st.selectbox("Scenario preset", ["blank", "a", "b", "c", "d"], key="sb_preset")
    st.segmented_control("Language", ["en", "zh"], key="lang", default="en", selection_mode="single")
    st.selectbox("Display currency", ["CNY", "USD", "EUR"], key="cur", index=1)
    st.number_input("Exchange rate", min_value=1e-6, max_value=1e6, key="fx", value=1.0, format="%.4f")
    with st.expander("Share link"):
        st.code("?p=a", language=None)
st.title("Bare page")
'''


def _median_ms(times: list[float]) -> float:
    return 1000.0 * statistics.median(times)


def time_display_changes(at: AppTest, repeat: int) -> float:
    times = []
    for i in range(repeat):
        at.number_input(key="fx").set_value(1.0 + 0.01 * (i + 1))
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    return _median_ms(times)


def time_scenario_changes(at: AppTest, repeat: int, start: int) -> float:
    times = []
    for i in range(repeat):
        scenario = at.session_state["scenario"]
        data = scenario.model_dump()
        data["cluster"]["nodes"] = start + i
        at.session_state["scenario"] = type(scenario).model_validate(data)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    return _median_ms(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        bare_path = Path(tmp) / "bare.py"
        bare_path.write_text(BARE, encoding="utf-8")
        bare = AppTest.from_file(str(bare_path), default_timeout=120)
        bare.run()
        bare_ms = time_display_changes(bare, args.repeat)

    print(f"bare page (sidebar widgets only): {bare_ms:7.1f} ms per rerun (median of {args.repeat})")
    print(f"{'page':<12} {'display change':>15} {'× bare':>7} {'scenario change':>16} {'× bare':>7}")
    results = {}
    for n, page in enumerate(PAGES):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.query_params["cur"] = "USD"
        at.switch_page(f"app_pages/{page}.py")
        at.run()
        display = time_display_changes(at, args.repeat)
        scenario = time_scenario_changes(at, args.repeat, start=40 + 100 * n)
        results[page] = (display, scenario)
        print(f"{page:<12} {display:12.1f} ms {display / bare_ms:6.1f}× {scenario:13.1f} ms {scenario / bare_ms:6.1f}×")
    d, s = results["compare"]
    print(f"\nCompare: {d:.0f} ms after a display change ({d / bare_ms:.1f}× bare), {s:.0f} ms after a scenario "
          f"change ({s / bare_ms:.1f}× bare); target ≤ 3× bare and < 300 ms")


if __name__ == "__main__":
    main()
