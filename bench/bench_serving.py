"""Benchmark of the serving model: one vectorised call over many demand levels against one scenario.

1. Sweep: :func:`costmodel.serving.sizing.serve` over ``--levels`` demand levels (default 100 000) ×
   the scenario's 4 fabrics, in one call (demand as a ``(D, 1)`` column beside ``(1, F)`` fabric figures).
2. One scenario: the same call with one demand level; the sweep's time over it (the cost of 100 000
   levels in units of one) and the one-at-a-time estimate (levels × one scenario).
3. Monte Carlo: ``--draws`` draws (default 10 000) of the serving efficiencies within serving.yaml's
   ranges × 4 fabrics, one call (every draw re-solves the batch under the SLA).

Times are the process's CPU time (``time.process_time``), medians of ``--repeat`` runs. Target: the
sweep of 100 000 levels × 4 fabrics under 1 s. The inputs are built once (outside the timing) from the
default scenario on H800 serving DeepSeek-V3 in FP8.
Usage: ``PYTHONPATH=. python bench/bench_serving.py [--levels N] [--draws N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from costmodel.catalog import serving_data
from costmodel.catalog.loader import load_catalog
from costmodel.scenario.schema import Scenario
from costmodel.serving.from_scenario import serving_inputs
from costmodel.serving.sizing import serve


def base_inputs():
    """DeepSeek-V3 in FP8 on the default scenario's cluster of H800 servers, colocated."""
    s = Scenario()
    s = s.model_copy(update={"cluster": s.cluster.model_copy(update={"gpu": "h800"})})
    return serving_inputs(s, "deepseek-v3", precision="fp8", peak_rps=10.0, avg_rps=5.0, prompt=2000.0,
                          output=400.0, ttft_s=2.0, tpot_s=0.05)


def timed(fn, repeat: int) -> float:
    """The median CPU time of ``repeat`` calls of ``fn`` [s]."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def draws(x, n: int, seed: int = 0):
    """``x`` with ``n`` triangular draws ``(n, 1)`` of each serving efficiency of serving.yaml."""
    rng = np.random.default_rng(seed)
    eff = serving_data.checked(load_catalog()).efficiency
    drawn = {k: rng.triangular(q.lo, q.typical, q.hi, size=(n, 1)) if q.hi > q.lo else q.typical
             for k, q in ((k, getattr(eff, k)) for k in ("prefill_mfu", "decode_mfu", "hbm_efficiency"))}
    return x.replace(**drawn)


def run(levels: int = 100_000, n_draws: int = 10_000, repeat: int = 5) -> dict[str, float]:
    """The times [s] and ratios of the three measurements."""
    x = base_inputs()
    demand = np.linspace(0.0, 1000.0, levels)[:, None]
    sweep_x, one_x = x.replace(peak_rps=demand, avg_rps=0.6 * demand), x.replace(peak_rps=10.0, avg_rps=6.0)
    mc_x = draws(x, n_draws)
    out = {"sweep_s": timed(lambda: serve(sweep_x), repeat), "one_s": timed(lambda: serve(one_x), repeat),
           "mc_s": timed(lambda: serve(mc_x), max(1, repeat // 2))}
    out["sweep_over_one"] = out["sweep_s"] / out["one_s"]
    out["speedup_vs_loop"] = levels * out["one_s"] / out["sweep_s"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=100_000)
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    a = parser.parse_args()
    r = run(a.levels, a.draws, a.repeat)
    print(f"sweep: {a.levels:,} demand levels x 4 fabrics in {r['sweep_s'] * 1e3:.1f} ms "
          f"(target < 1000 ms: {'ok' if r['sweep_s'] < 1.0 else 'MISSED'})")
    print(f"one scenario: {r['one_s'] * 1e3:.2f} ms; sweep / one = {r['sweep_over_one']:.1f}x; "
          f"vs one at a time: {r['speedup_vs_loop']:,.0f}x faster")
    print(f"Monte Carlo: {a.draws:,} draws x 4 fabrics in {r['mc_s'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
