"""Break-even solver: roots are roots of the model, curves are the model, inputs are checked."""

from __future__ import annotations

import time
from dataclasses import fields

import numpy as np
import pytest

import costmodel
from costmodel.analysis.breakeven import (
    CHEAPER_ABOVE,
    CHEAPER_BELOW,
    MAX_VALUES,
    PARAMETERS,
    BreakEven,
    break_even,
    delta_curve,
)
from costmodel.pipeline.inputs import Inputs, build
from costmodel.pipeline.tco import compute
from costmodel.scenario.changes import with_change

REQUIRED = {
    "nodes", "pue", "electricity_price", "compute_efficiency", "runs_per_year", "params",
    "batch_tokens", "tokens_per_run", "network_ops_per_node_year", "maintenance_frac",
    "discount_rate", "restart_s", "server_price", "rental_per_gpu_hour",
}
REQUIRED_PER_FABRIC = {
    "nic_price", "switch_price", "cable_price", "optic_price", "install_per_node", "efficiency",
    "latency_s", "loss_rate", "ops_factor", "net_fail_per_endpoint_hour", "nic_power_w",
    "switch_power_w", "cpu_cores_per_100gbps",
}
# scenario-level inputs and where they live in the Scenario (section, field, Scenario unit per model unit)
SCENARIO_FIELDS = {
    "electricity_price": ("facility", "electricity_price_per_kwh", 1.0),
    "pue": ("facility", "pue", 1.0),
    "runs_per_year": ("workload", "runs_per_year", 1.0),
    "compute_efficiency": ("workload", "compute_efficiency", 1.0),
    "tokens_per_run": ("workload", "tokens_per_run_b", 1e-9),
}


def _with(scenario, section: str, name: str, value: float):
    """The scenario with one field of one section replaced."""
    part = getattr(scenario, section).model_copy(update={name: value})
    return scenario.model_copy(update={section: part})


def _single_delta(scenario, fabric: str, name: str, value: float, column: str | None = None) -> float:
    """ΔTCO with one input replaced, by a single-row compute() on the Inputs (no solver code)."""
    built = build(scenario)
    ids = list(built.structure.fabric_ids)
    arr = getattr(built.inputs, name).copy()
    arr[0, ids.index(column) if column else 0] = value
    tco = compute(built.inputs.replace(**{name: arr}), built.structure).tco[0]
    return float(tco[ids.index(fabric)] - tco[built.structure.baseline_index])


def _baseline_tco(scenario) -> float:
    return costmodel.evaluate(scenario).fabric(scenario.baseline).tco_total


# --- the parameter table


def test_parameter_table_covers_the_inputs_with_the_right_shapes():
    assert REQUIRED | REQUIRED_PER_FABRIC <= set(PARAMETERS)
    inputs_fields = {f.name for f in fields(Inputs)}
    built = build(costmodel.load_preset("seed-case2-24xA100"))
    n_fab = len(built.structure.fabric_ids)
    for name, info in PARAMETERS.items():
        assert info.name == name and name in inputs_fields
        assert info.per_fabric == (name in REQUIRED_PER_FABRIC or getattr(built.inputs, name).shape[1] > 1)
        assert getattr(built.inputs, name).shape == ((1, n_fab) if info.per_fabric else (1, 1))
        assert info.lo_bound < info.hi_bound and info.unit
        assert info.integer == (name == "nodes")
    assert (PARAMETERS["pue"].lo_bound, PARAMETERS["pue"].hi_bound) == (1.0, 3.0)
    assert (PARAMETERS["nodes"].lo_bound, PARAMETERS["nodes"].hi_bound) == (1.0, 100_000.0)
    with pytest.raises(AttributeError):
        PARAMETERS["pue"].lo_bound = 0.0


@pytest.mark.parametrize("preset", costmodel.list_presets())
def test_every_parameter_gives_finite_deltas_from_bound_to_bound(preset):
    s = costmodel.load_preset(preset)
    fabric = next(f for f in s.fabrics if f != s.baseline)
    for name, info in PARAMETERS.items():
        for target in ([fabric, s.baseline] if info.per_fabric else [None]):
            d = delta_curve(s, fabric, name, [info.lo_bound, info.hi_bound], applies_to=target)
            assert np.isfinite(d).all(), (name, target)


# --- delta_curve is the model


@pytest.mark.parametrize(("preset", "fabric", "name", "values", "target"), [
    ("seed-intro-32xA100", "ib-ndr-400", "electricity_price", [0.0, 0.05, 0.3, 2.0], None),
    ("seed-case3-128xH100", "roce-400", "nodes", [1, 31, 64, 65, 500, 4097], None),
    ("seed-case2-24xA100", "ib-ndr-400", "params", [1e9, 3e10, 1e12], None),
    ("seed-case2-24xA100", "ib-ndr-400", "switch_price", [0.0, 1e4, 5e4], "tcp-100"),
    ("seed-case1-8xA10", "roce-100", "efficiency", [0.1, 0.5, 0.99], "roce-100"),
    ("seed-case3-128xH100", "ib-xdr-800", "latency_s", [0.0, 1e-6, 1e-3], "tcp-100"),
    ("seed-case2-24xA100", "iwarp-100", "discount_rate", [0.0, 0.1, 0.5], None),
])
def test_delta_curve_agrees_with_single_row_compute(preset, fabric, name, values, target):
    s = costmodel.load_preset(preset)
    curve = delta_curve(s, fabric, name, values, applies_to=target)
    column = (target or fabric) if PARAMETERS[name].per_fabric else None
    expected = [_single_delta(s, fabric, name, v, column) for v in values]
    assert curve.shape == (len(values),)
    np.testing.assert_allclose(curve, expected, rtol=1e-12, atol=1e-6)


def test_one_value_is_the_scenario_delta_and_the_max_batch_works():
    s = costmodel.load_preset("seed-intro-32xA100")
    point = costmodel.evaluate(s).fabric("ib-ndr-400").delta_vs_baseline
    one = delta_curve(s, "ib-ndr-400", "electricity_price", [s.facility.electricity_price_per_kwh])
    assert one.shape == (1,) and one[0] == pytest.approx(point, rel=1e-12)
    scalar = delta_curve(s, "ib-ndr-400", "electricity_price", s.facility.electricity_price_per_kwh)
    assert scalar.shape == (1,)
    x = np.linspace(0.0, 10.0, MAX_VALUES)
    d = delta_curve(s, "ib-ndr-400", "electricity_price", x)
    assert d.shape == (MAX_VALUES,) and np.isfinite(d).all()
    # ΔTCO is affine in the electricity price: the batch must reproduce the line exactly
    line = d[0] + (d[-1] - d[0]) * x / 10.0
    np.testing.assert_allclose(d, line, rtol=0, atol=1e-6 * abs(d).max())


# --- roots are roots


@pytest.mark.parametrize(("preset", "fabric", "name"), [
    # valuing the network's waiting hours at the value of a cluster-hour moved the roots: these
    # comparisons have one in the default window; no fabric has an electricity-price or PUE root now
    ("seed-case1-8xA10", "roce-100", "runs_per_year"),
    ("seed-case1-8xA10", "roce-100", "tokens_per_run"),
    ("seed-case1-8xA10", "ib-hdr-200", "runs_per_year"),
    ("seed-case1-8xA10", "ib-hdr-200", "tokens_per_run"),
])
def test_scenario_field_root_is_a_root_of_the_rebuilt_scenario(preset, fabric, name):
    s = costmodel.load_preset(preset)
    be = break_even(s, fabric, name)
    assert be.roots, "this case has a break-even in the default window"
    assert be.roots == sorted(be.roots) and len(be.direction) == len(be.roots)
    section, field, scale = SCENARIO_FIELDS[name]
    scale_tco = _baseline_tco(s)
    for root, direction in zip(be.roots, be.direction, strict=True):
        at_root = costmodel.evaluate(_with(s, section, field, root * scale))
        assert abs(at_root.fabric(fabric).delta_vs_baseline) < 1e-7 * scale_tco
        below, above = (costmodel.evaluate(_with(s, section, field, root * (1 + e) * scale))
                        .fabric(fabric).delta_vs_baseline for e in (-1e-3, 1e-3))
        if direction == CHEAPER_ABOVE:
            assert below > 0 > above
        else:
            assert below < 0 < above


@pytest.mark.parametrize(("preset", "fabric", "name", "target"), [
    ("seed-intro-32xA100", "roce-200", "efficiency", "roce-200"),
    # format 4 moved the roots: these comparisons have one in the default window
    ("seed-intro-32xA100", "iwarp-100", "cpu_cores_per_100gbps", "tcp-100"),
    ("seed-case3-128xH100", "iwarp-100", "cpu_cores_per_100gbps", "tcp-100"),
    # the host PCIe limit and optics counted per module left no preset with a NIC-power root in the window
    ("seed-case2-24xA100", "iwarp-100", "cpu_cores_per_100gbps", "tcp-100"),
])
def test_catalog_field_root_is_a_root_of_compute(preset, fabric, name, target):
    s = costmodel.load_preset(preset)
    be = break_even(s, fabric, name, applies_to=target)
    assert len(be.roots) == 1
    column = (target or fabric) if PARAMETERS[name].per_fabric else None
    assert be.applies_to == column
    d = _single_delta(s, fabric, name, be.roots[0], column)
    assert abs(d) < 1e-7 * _baseline_tco(s)


@pytest.mark.parametrize(("preset", "fabric", "name", "target"), [
    # valuing time one way, the priced bill of materials and switch reuse in case 1 moved the roots
    ("seed-case1-8xA10", "roce-100", "nic_price", None),
    ("seed-case1-8xA10", "iwarp-100", "nic_price", None),
    ("seed-case2-24xA100", "iwarp-100", "nic_price", None),
    # optics counted per module: no preset has an optic-price root any more, nor case 3 a switch-price one
    ("seed-case2-24xA100", "iwarp-100", "switch_price", None),
])
def test_price_root_matches_the_analytic_root(preset, fabric, name, target):
    """TCO is affine in a price, so two evaluations give the root p0 − Δ0 / slope."""
    s = costmodel.load_preset(preset)
    column = target or fabric
    p0 = break_even(s, fabric, name, applies_to=target, points=2).current_value
    d0 = _single_delta(s, fabric, name, p0, column)
    slope = (_single_delta(s, fabric, name, p0 + 1000.0, column) - d0) / 1000.0
    root = p0 - d0 / slope
    # the default window (0.1× to 10× the price), widened to hold the analytic root where it lies below
    be = break_even(s, fabric, name, applies_to=target, lo=min(0.1 * p0, 0.5 * root), hi=10.0 * p0)
    assert be.current_delta == pytest.approx(d0, rel=1e-12)
    upgrade = column == fabric
    assert (slope > 0) == upgrade
    assert np.all(np.diff(be.deltas) > 0) == upgrade and np.all(np.diff(be.deltas) < 0) == (not upgrade)
    assert be.roots == [pytest.approx(root, rel=1e-9)]
    assert be.direction == [CHEAPER_BELOW if upgrade else CHEAPER_ABOVE]


def test_no_root_when_the_upgrade_is_dearer_even_with_free_switches():
    # a 1 B model trained once a year: the network is never the bottleneck, IB's NICs are dearer
    s = costmodel.load_preset("seed-case2-24xA100")
    s = with_change(with_change(s, "workload.model_params_b", 1.0).scenario, "workload.runs_per_year", 1.0).scenario
    d0 = _single_delta(s, "ib-ndr-400", "switch_price", 0.0, "ib-ndr-400")
    assert d0 > 0  # the analytic root is negative: no switch price makes the upgrade pay off
    for lo in (None, 0.0):
        be = break_even(s, "ib-ndr-400", "switch_price", lo=lo, hi=1e6)
        assert be.roots == [] and be.direction == [] and (be.deltas > 0).all()


def test_nodes_roots_are_integers_where_the_sign_flips():
    for preset, fabric in (("seed-case3-128xH100", "roce-400"), ("seed-intro-32xA100", "ib-ndr-400"),
                           ("seed-case1-8xA10", "roce-100")):  # case 1 reuses its 100 GbE switches
        s = costmodel.load_preset(preset)
        be = break_even(s, fabric, "nodes")
        assert be.roots and be.applies_to is None
        assert np.array_equal(be.values, np.round(be.values)) and be.values[0] == 1 and be.values[-1] == 16_384
        df = costmodel.sweep(s, nodes=[int(r) + k for r in be.roots for k in (-1, 0)])
        d = df[df["fabric"] == fabric]["delta_vs_baseline"].to_numpy().reshape(-1, 2)
        for root, direction, (before, at) in zip(be.roots, be.direction, d, strict=True):
            assert root == int(root) and 1 < root <= 16_384
            assert before != 0 and np.sign(before) != np.sign(at)
            assert direction == (CHEAPER_ABOVE if before > 0 else CHEAPER_BELOW)


# --- the result


def test_result_fields_grid_and_defaults():
    s = costmodel.load_preset("seed-intro-32xA100")
    be = break_even(s, "ib-ndr-400", "electricity_price")
    assert isinstance(be, BreakEven)
    assert be.parameter == "electricity_price" and be.applies_to is None
    assert be.fabric == "ib-ndr-400" and be.baseline == "tcp-100" and be.currency
    assert be.current_value == s.facility.electricity_price_per_kwh
    assert be.current_delta == pytest.approx(costmodel.evaluate(s).fabric("ib-ndr-400").delta_vs_baseline)
    assert be.values.shape == be.deltas.shape == (257,)
    # default window current × 0.1 … × 10: ratio 100 > 50, so geometric spacing
    assert be.values[0] == pytest.approx(0.1 * be.current_value)
    assert be.values[-1] == pytest.approx(10 * be.current_value)
    ratios = be.values[1:] / be.values[:-1]
    np.testing.assert_allclose(ratios, ratios[0], rtol=1e-9)
    np.testing.assert_allclose(be.deltas, delta_curve(s, "ib-ndr-400", "electricity_price", be.values), rtol=1e-12)
    with pytest.raises(ValueError):
        be.values[0] = 1.0  # read-only
    with pytest.raises(AttributeError):
        be.roots = []
    # pue: 0.14 … 14 clipped to the bounds 1 … 3, ratio 3: linear spacing
    pue = break_even(s, "ib-ndr-400", "pue", points=11)
    np.testing.assert_allclose(pue.values, np.linspace(1.0, 3.0, 11))
    # an explicit window; per-fabric default applies_to is the upgrade
    sw = break_even(s, "ib-ndr-400", "switch_price", lo=0.0, hi=1e5, points=5)
    assert sw.applies_to == "ib-ndr-400" and sw.values.tolist() == [0.0, 25_000.0, 50_000.0, 75_000.0, 100_000.0]


def test_zero_current_value_gets_a_window():
    s = costmodel.load_preset("seed-case3-128xH100")  # InfiniBand loss rate is 0 (lossless)
    be = break_even(s, "ib-xdr-800", "loss_rate", applies_to="ib-xdr-800")
    assert be.current_value == 0.0 and be.values[0] == 0.0 and be.values[-1] > 0
    assert be.roots == [] and np.allclose(be.deltas, be.current_delta)  # credit flow control ignores loss


def test_solve_is_fast():
    s = costmodel.load_preset("seed-case3-128xH100")
    break_even(s, "ib-xdr-800", "electricity_price")  # warm the catalog cache
    for name in ("electricity_price", "nodes", "runs_per_year", "switch_price"):
        t = time.perf_counter()
        break_even(s, "ib-xdr-800", name, points=257)
        assert time.perf_counter() - t < 1.0, name


# --- bad input


def test_bad_choices_name_the_allowed_ones():
    s = costmodel.load_preset("seed-case2-24xA100")
    with pytest.raises(ValueError, match=r"unknown parameter 'gpu_price'.*electricity_price"):
        delta_curve(s, "ib-ndr-400", "gpu_price", [1.0])
    with pytest.raises(ValueError, match=r"'ib-xdr-800'.*ib-ndr-400"):
        break_even(s, "ib-xdr-800", "pue")
    with pytest.raises(ValueError, match=r"'tcp-100'.*roce-200"):
        break_even(s, "tcp-100", "pue")  # the baseline against itself
    with pytest.raises(ValueError, match=r"applies_to 'roce-200' for switch_price.*ib-ndr-400, tcp-100"):
        delta_curve(s, "ib-ndr-400", "switch_price", [1.0], applies_to="roce-200")
    with pytest.raises(ValueError, match=r"pue is a scenario-level input"):
        break_even(s, "ib-ndr-400", "pue", applies_to="ib-ndr-400")


@pytest.mark.parametrize(("name", "values", "pattern"), [
    ("pue", [1.2, 0.5], r"pue: .*\[1, 3\]"),
    ("pue", [float("nan")], r"pue: .*\[1, 3\]"),
    ("electricity_price", [-0.01], r"electricity_price: .*\[0, 10\]"),
    ("loss_rate", [0.6], r"loss_rate: .*\[0, 0.5\]"),
    ("nodes", [8, 8.5], r"nodes: .*whole numbers"),
    ("nodes", [0], r"nodes: .*\[1, 100000\]"),
    ("switch_price", [], r"switch_price: .*1 to 100,000"),
    ("switch_price", np.ones(MAX_VALUES + 1), r"switch_price: .*1 to 100,000"),
    ("switch_price", np.ones((2, 2)), r"switch_price: .*1-D"),
    ("switch_price", ["cheap"], r"switch_price: .*numbers"),
])
def test_bad_values_name_the_parameter_and_range(name, values, pattern):
    s = costmodel.load_preset("seed-case2-24xA100")
    with pytest.raises(ValueError, match=pattern):
        delta_curve(s, "ib-ndr-400", name, values)


def test_bad_window_or_points():
    s = costmodel.load_preset("seed-case2-24xA100")
    with pytest.raises(ValueError, match=r"pue: .*\[1, 3\]"):
        break_even(s, "ib-ndr-400", "pue", lo=0.9)
    with pytest.raises(ValueError, match=r"pue: need lo < hi"):
        break_even(s, "ib-ndr-400", "pue", lo=2.0, hi=2.0)
    with pytest.raises(ValueError, match=r"nodes: need lo < hi"):
        break_even(s, "ib-ndr-400", "nodes", lo=8.2, hi=8.7)  # no whole number inside
    assert break_even(s, "ib-ndr-400", "nodes", lo=7.5, hi=40.2).values.tolist() == list(range(8, 41))
    for points in (1, 2.5, True, MAX_VALUES + 1):
        with pytest.raises(ValueError, match=r"electricity_price: points"):
            break_even(s, "ib-ndr-400", "electricity_price", points=points)
