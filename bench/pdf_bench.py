"""Time to build the PDF report, cold (first build in the process: Chromium and kaleido start)
and warm (median of the next builds). Target (issue 5): a warm build under 5 s on this machine.
Usage: ``PYTHONPATH=. python bench/pdf_bench.py [--preset ID] [--lang en|zh] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import costmodel
from webui.report_pdf import report_pdf


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="seed-intro-32xA100")
    ap.add_argument("--lang", default="zh", choices=("en", "zh"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    scenario = costmodel.load_preset(args.preset)
    t0 = time.perf_counter()
    size = len(report_pdf(scenario, args.lang, args.preset))
    cold = time.perf_counter() - t0
    warm = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        report_pdf(scenario, args.lang, args.preset)
        warm.append(time.perf_counter() - t0)
    print(f"PDF report ({args.lang}, {args.preset}, {size:,} bytes): cold {cold:.2f} s, "
          f"warm median {statistics.median(warm):.2f} s over {args.repeat} (target < 5 s)")


if __name__ == "__main__":
    main()
