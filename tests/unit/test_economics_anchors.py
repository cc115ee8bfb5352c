"""Published economic figures against the model (docs/validation.md, "Economics").

Each anchor of costmodel/data/economics_anchors.yaml is one test: the model's figure, recomputed
now, must land within the stated tolerance of the published one, or, for an anchor recorded as a
miss, must still miss in the stated direction, so a later fix flips it consciously (edit the
anchor and the page). No model figure is stored anywhere: prices or BOM that change re-run it.
"""

from __future__ import annotations

import pytest
import yaml

from costmodel.catalog.loader import load_catalog
from costmodel.evidence import economics_check as ec

ANCHORS = {a.id: a for a in ec.load_anchors().anchors}
CHECKS = {c.anchor.id: c for c in ec.check_all()}


@pytest.mark.parametrize("anchor_id", sorted(ANCHORS))
def test_anchor_lands_as_recorded(anchor_id):
    a, c = ANCHORS[anchor_id], CHECKS[anchor_id]
    if a.expected == "within":
        assert c.within, (f"{anchor_id}: model {c.model:.4g} vs published {c.low:.4g}-{c.high:.4g}, "
                          f"error {c.error:+.3g} beyond ± {a.tolerance.value:g} — fix the model or record a miss")
    else:
        assert not c.within, (f"{anchor_id}: the recorded miss now lands within ({c.model:.4g}): "
                              f"set expected: within and update docs/validation.md")
        assert c.direction == a.miss_direction, (anchor_id, c.direction, a.miss_reason)


def test_the_epoch_interconnect_share_is_among_the_anchors():
    """The brief's required anchor: Cottier et al. 2024, interconnect 9-13 % of amortised hardware."""
    a = ANCHORS["epoch-interconnect-share"]
    assert a.source == "epoch-cost-2024" and a.published.bounds == (0.09, 0.13)
    assert "2405.21015" in load_catalog().references[a.source].url


def test_the_required_kinds_of_anchor_are_present():
    """Network share near 1 k and 32 k GPUs, the owned cost per GPU-hour, a rental median."""
    metrics = {a.metric for a in ANCHORS.values()}
    assert {"network_share_ex_nics", "owned_cost_per_gpu_hour", "rental_price", "cluster_hour_per_gpu"} <= metrics
    gpus = {ec.scenario_of(a.config).cluster.nodes * 8 for a in ANCHORS.values()
            if a.metric.startswith("network_share")}
    assert 1024 in gpus and 32768 in gpus


def test_every_anchor_cites_a_reference_with_an_address():
    refs = load_catalog().references
    for a in ANCHORS.values():
        assert a.source in refs and refs[a.source].url.startswith("https://"), a.id


def test_the_anchor_file_stores_no_model_figure(root):
    """Only published figures are stored; the schema refuses any other key (a stored model value)."""
    raw = yaml.safe_load((root / "costmodel/data/economics_anchors.yaml").read_text(encoding="utf-8"))
    first = dict(raw["anchors"][0], model=0.24)
    with pytest.raises(ValueError):
        ec.Anchor.model_validate(first)


def test_a_recorded_miss_must_say_why_and_which_way():
    base = next(a for a in ANCHORS.values() if a.expected == "within").model_dump()
    with pytest.raises(ValueError):
        ec.Anchor.model_validate(dict(base, expected="miss"))
    with pytest.raises(ValueError):
        ec.Anchor.model_validate(dict(base, miss_reason="a reason that is long enough"))


def test_error_is_zero_inside_a_range_and_measured_from_the_nearest_bound():
    a = ANCHORS["epoch-interconnect-share"]  # absolute tolerance, range 0.09-0.13
    def at(x):
        return ec.AnchorCheck(anchor=a, low=0.09, high=0.13, model=x)
    assert at(0.11).error == 0.0 and at(0.11).direction is None
    assert at(0.16).error == pytest.approx(0.03) and at(0.16).direction == "above" and not at(0.16).within
    assert at(0.075).error == pytest.approx(-0.015) and at(0.075).within
    r = ANCHORS["aimultiple-h100-median"]  # relative tolerance, one value
    assert ec.AnchorCheck(anchor=r, low=2.0, high=2.0, model=2.5).error == pytest.approx(0.25)
    assert ec.AnchorCheck(anchor=r, low=2.0, high=2.0, model=1.5).direction == "below"


def test_published_forms():
    ratio = ANCHORS["cheah-network-share-1k"].published
    lo, hi = ratio.bounds
    assert lo == hi == pytest.approx((1728000 + 2621440) / (39680000 + 1728000 + 2621440))
    scaled = ANCHORS["cheah-owned-cost-per-gpu-hour"].published
    assert scaled.bounds == (pytest.approx(1.65 * 0.75),) * 2
    with pytest.raises(ValueError):
        ec.Published(value=1.0, low=0.5, high=2.0)
    with pytest.raises(ValueError):
        ec.Published(value=1.0, factor=0.5)  # a factor needs its reason
    with pytest.raises(ValueError):
        ec.Published(value=1.0, factor=-0.5, factor_why="a reason that is long enough")
    with pytest.raises(ValueError):
        ec.Tolerance(kind="relative", value=-0.1)


def test_figures_are_recomputed_from_the_catalog():
    """Dearer InfiniBand switches raise the model's network share: nothing is cached in the data."""
    a = ANCHORS["cheah-network-share-1k"]
    cat = load_catalog()
    book = cat.price_books["public"]
    fab = book.fabrics["ib-ndr-400"]
    dear_fab = fab.model_copy(update={"switch_price": fab.switch_price.model_copy(
        update={"typical": fab.switch_price.typical * 2})})
    dear = cat.model_copy(update={"price_books": {**cat.price_books, "public": book.model_copy(
        update={"fabrics": {**book.fabrics, "ib-ndr-400": dear_fab}})}})
    assert ec.model_figure(a, dear) > ec.model_figure(a) == CHECKS[a.id].model


def test_owned_cost_per_gpu_hour_is_the_cash_cost_over_every_hour():
    a = ANCHORS["cheah-owned-cost-per-gpu-hour"]
    import costmodel
    s = ec.scenario_of(a.config)
    f = costmodel.evaluate(s).fabrics[0]
    hours = s.finance.horizon_years * 8760 * s.cluster.nodes * s.cluster.gpus_per_node
    assert CHECKS[a.id].model == pytest.approx(f.metrics["cash_total"] / hours, rel=1e-12)


def test_config_changes_reach_the_scenario_and_unknown_fields_are_refused():
    a = ANCHORS["cheah-network-share-32k"]
    s = ec.scenario_of(a.config)
    assert (s.cluster.nodes, s.cluster.nics_per_node, s.fabrics, s.baseline) == (4096, 8, ["ib-ndr-400"], "ib-ndr-400")
    bad = a.config.model_copy(update={"changes": {"cluster.nodez": 4}})
    with pytest.raises(Exception, match="nodez"):
        ec.scenario_of(bad)


def test_validation_doc_shows_the_current_economics_table(root):
    doc = (root / "docs" / "validation.md").read_text(encoding="utf-8")
    embedded = doc.split("<!-- economics:begin -->\n", 1)[1].split("<!-- economics:end -->", 1)[0].strip()
    assert embedded == ec.markdown().strip(), "run docs/regen_claims.sh"
