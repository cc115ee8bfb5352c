"""Benchmark of the cost model. Prints ratios measured in one run (the machine is shared).

1. Sweep cost: ``costmodel.sweep`` over a large array of node counts, against numpy's multiply-add
   pass (``a * c + d``, float64) over the sweep's array length (node counts × fabrics): the sweep's
   cost per evaluation in such passes, its throughput, and its ratio to calling ``costmodel.evaluate``
   one scenario at a time (the Python-loop path the vectorised design avoids). Node counts are whole
   numbers of a bounded range, so a long sweep repeats them and computes each distinct one once: the
   same figure on the distinct node counts alone (against the multiply-add over their own, shorter,
   length) follows.
2. Monte Carlo: ``costmodel.monte_carlo`` with 10 000 draws × 4 fabrics, against the time
   numpy needs just to draw the same random inputs (``Generator.triangular`` per quantity).
3. The same work re-sized in every draw (:func:`costmodel.analysis.work_resize.resized_monte_carlo`,
   same draws × fabrics): its ratio to the plain Monte Carlo of this run.
4. Layout search: ``costmodel.evaluate`` of the scenario with parallelism "best" (every
   fabric at its fastest layout of the grid that fits memory), the search alone
   (:func:`costmodel.physics.layout.search` on the scenario's inputs) and its ratio to ``evaluate`` with the
   scenario's fixed layout.

Times are the process's CPU time (``time.process_time``; the model runs on one thread), medians of
runs interleaved with their reference, so that other processes on this shared machine distort the
ratios as little as they can.
Targets: the sweep ≤ 600 multiply-add passes per evaluation (aim 200) and ≥ 300× the one-at-a-time
path; Monte Carlo of 10 000 draws × 4 fabrics under 0.5 s and within 3× of the draw time; the
re-sizing Monte Carlo ≤ 20× the plain one; layout search for one scenario and all its fabrics under 0.5 s.
Usage: ``python bench/model_bench.py [--preset ID] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import costmodel
from costmodel.analysis.work_resize import resized_monte_carlo
from costmodel.physics import layout
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import broadcast_inputs
from costmodel.pipeline.stages.step_time import step_args
from costmodel.pipeline.stages.topology import topology
from costmodel.scenario.changes import with_change


def best_of(fn, repeat: int) -> float:
    """Median CPU time of ``fn()`` over ``repeat`` runs [s] (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def interleaved(fn_a, fn_b, repeat: int) -> tuple[float, float]:
    """Median CPU times [s] of ``fn_a()`` and ``fn_b()``, run alternately ``repeat`` times each (after one
    warm-up of each), so that background load on this shared machine hits both alike."""
    fn_a(), fn_b()
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((fn_a, ta), (fn_b, tb)):
            t0 = time.process_time()
            fn()
            times.append(time.process_time() - t0)
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="seed-intro-32xA100")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sweep-points", type=int, default=250_000)
    ap.add_argument("--draws", type=int, default=10_000)
    args = ap.parse_args()

    scenario = costmodel.load_preset(args.preset)
    n_fab = len(scenario.fabrics)
    nodes = np.arange(2, 2 + args.sweep_points) % 16_383 + 2

    size = args.sweep_points * n_fab
    a, c, d = (np.random.default_rng(i).random(size) for i in range(3))
    passes = 20  # multiply-add passes per timed batch (one pass is ~1 ms)
    t_sweep, t_madd = interleaved(lambda: costmodel.sweep(scenario, nodes=nodes),
                                  lambda: [a * c + d for _ in range(passes)], args.repeat)
    t_pass = t_madd / passes
    sweep_rate = size / t_sweep
    # the same on distinct node counts only (the sweep computes each distinct count once)
    distinct = np.unique(nodes)
    a1, c1, d1 = (x[: distinct.size * n_fab] for x in (a, c, d))
    passes1 = max(1, passes * size // a1.size)
    t_distinct, t_madd1 = interleaved(lambda: costmodel.sweep(scenario, nodes=distinct),
                                      lambda: [a1 * c1 + d1 for _ in range(passes1)], args.repeat)
    t_pass1 = t_madd1 / passes1

    singles = [scenario.model_copy(update={"cluster": scenario.cluster.model_copy(update={"nodes": int(n)})})
               for n in nodes[:200]]
    t_single = best_of(lambda: [costmodel.evaluate(s) for s in singles], max(1, args.repeat // 2))
    single_rate = len(singles) * n_fab / t_single

    uncertain = build(scenario).uncertain

    def draw_only():
        rng = np.random.default_rng(1)
        for u in uncertain:
            shape = (args.draws, u.typical.shape[1])
            lo, mode, hi = u.low[0], u.typical[0], u.high[0]
            span = hi > lo
            if span.all():
                rng.triangular(lo, mode, hi, size=shape)
            else:  # numpy refuses zero-width ranges: draw the ranged columns only
                rng.triangular(lo[span], mode[span], hi[span], size=(args.draws, int(span.sum())))

    t_mc, t_draw = interleaved(lambda: costmodel.monte_carlo(scenario, draws=args.draws, seed=1), draw_only,
                               max(args.repeat, 9))

    t_resize, t_plain = interleaved(lambda: resized_monte_carlo(scenario, draws=args.draws, seed=1),
                                    lambda: costmodel.monte_carlo(scenario, draws=args.draws, seed=1),
                                    max(1, args.repeat // 2))

    searched = with_change(scenario, "workload.parallelism", "best").scenario
    t_best = best_of(lambda: costmodel.evaluate(searched), args.repeat)
    t_fixed = best_of(lambda: costmodel.evaluate(scenario), args.repeat)
    p = broadcast_inputs(build(searched).inputs)
    _, _, _, step_kwargs = step_args(p, topology(p))
    usable = p.gpu_memory_bytes * (1.0 - p.memory_reserve_frac)
    t_search = best_of(lambda: layout.search(step_kwargs, usable), args.repeat)

    print(f"preset {args.preset}: {n_fab} fabrics, {len(uncertain)} uncertain quantities")
    print(f"sweep        {args.sweep_points:>9,} node counts × {n_fab} fabrics in {t_sweep * 1e3:8.1f} ms "
          f"→ {sweep_rate:>12,.0f} evaluations/s   (target ≥ 1,000,000)")
    print(f"one-by-one   {len(singles):>9,} evaluate() calls        in {t_single * 1e3:8.1f} ms "
          f"→ {single_rate:>12,.0f} evaluations/s")
    print(f"multiply-add a*c+d over {size:,} float64 in {t_pass * 1e3:8.2f} ms")
    print(f"sweep cost per evaluation: {t_sweep / t_pass:,.0f} multiply-add passes   (target ≤ 600, aim 200)")
    print(f"distinct     {distinct.size:>9,} node counts × {n_fab} fabrics in {t_distinct * 1e3:8.1f} ms: "
          f"{t_distinct / t_pass1:,.0f} multiply-add passes over its own length ({t_pass1 * 1e3:.3f} ms)")
    print(f"ratio sweep / one-by-one: {sweep_rate / single_rate:,.0f}×   (target ≥ 300×)")
    print(f"monte carlo  {args.draws:>9,} draws × {n_fab} fabrics    in {t_mc * 1e3:8.1f} ms   (target < 500 ms)")
    print(f"numpy draws only (Generator.triangular per quantity) in {t_draw * 1e3:8.1f} ms")
    print(f"ratio monte carlo / draws only: {t_mc / t_draw:.2f}×   (target ≤ 3×)")
    print(f"re-sizing monte carlo {args.draws:,} draws × {n_fab} fabrics in {t_resize * 1e3:8.1f} ms, "
          f"plain monte carlo {t_plain * 1e3:8.1f} ms")
    print(f"ratio re-sizing monte carlo / monte carlo: {t_resize / t_plain:.1f}×   (target ≤ 20×)")
    print(f"layout search {len(layout.load_grid()):>8,} candidates × {n_fab} fabrics: search {t_search * 1e3:8.1f} ms, "
          f"evaluate(best) {t_best * 1e3:8.1f} ms   (target < 500 ms)")
    print(f"ratio evaluate(best) / evaluate(fixed layout {t_fixed * 1e3:.1f} ms): {t_best / t_fixed:.2f}×")


if __name__ == "__main__":
    main()
