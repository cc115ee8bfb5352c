"""The facility: racks from the site's power limit, the cooling kind's PUE and capex, and the warnings of
a configuration the site cannot hold."""

from __future__ import annotations

import html

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.physics import racks
from costmodel.pipeline.facility_checks import rack_plan, warnings
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.topology import topology
from costmodel.pipeline.tco import compute
from webui.i18n.translator import Translator
from webui.sections import facility

CAT = load_catalog()


def _scenario(gpu: str = "h100", nodes: int = 128, **facility_fields) -> costmodel.Scenario:
    data = costmodel.load_preset("seed-case3-128xH100").model_dump()
    data["cluster"].update(gpu=gpu, nodes=nodes, gpus_per_node=None)
    data["facility"].update(facility_fields)
    return costmodel.scenario_from_dict(data)


def _topo(scenario):
    return topology(build(scenario, CAT).inputs)


# --- racks from power


@settings(max_examples=200, deadline=None)
@given(nodes=st.integers(1, 20_000), per_rack=st.integers(1, 72), server=st.floats(0.2, 200.0),
       lo=st.floats(1.0, 500.0), hi=st.floats(1.0, 500.0))
def test_a_higher_rack_limit_never_takes_more_racks(nodes, per_rack, server, lo, hi):
    lo, hi = min(lo, hi), max(lo, hi)
    n_lo = racks.racks(nodes, racks.servers_per_rack(per_rack, lo, server))
    n_hi = racks.racks(nodes, racks.servers_per_rack(per_rack, hi, server))
    assert n_hi <= n_lo
    # never more servers in a rack than it may hold, nor than power allows (one at least)
    spr = racks.servers_per_rack(per_rack, hi, server)
    assert 1 <= spr <= per_rack and (spr == 1 or spr * server <= hi * (1 + 1e-9))
    assert n_hi * spr >= nodes


def test_h100_servers_at_a_45_kw_limit_take_four_a_rack():
    """An HGX H100 server peaks at 8 × 700 W + 3.0 kW of host = 8.6 kW: 5 fit in 45 kW, the default 4 a
    rack stands; eight a rack would be 68.8 kW, so a 45 kW site holds 5 of them."""
    s = _scenario(rack_power_limit_kw=45.0)
    plan = rack_plan(s, CAT)
    assert plan.server_kw == pytest.approx(8 * 0.7 + 3.0)
    assert (plan.servers_per_rack, plan.racks) == (4, 32)
    topo = _topo(s)
    np.testing.assert_array_equal(topo.servers_per_rack, 4.0)
    np.testing.assert_array_equal(topo.racks, 32.0)
    data = s.model_dump()
    data["cluster"]["nodes_per_rack"] = 8
    eight = costmodel.scenario_from_dict(data)
    assert (rack_plan(eight, CAT).servers_per_rack, rack_plan(eight, CAT).racks) == (5, 26)
    np.testing.assert_array_equal(_topo(eight).racks, 26.0)


def test_b200_servers_at_a_45_kw_limit_take_three_a_rack():
    """An HGX B200 server peaks at 8 × 1,000 W + 3.5 kW = 11.5 kW: 3 a rack in 45 kW (34.5 kW), not 4 (46 kW)."""
    plan = rack_plan(_scenario("b200", rack_power_limit_kw=45.0), CAT)
    assert (plan.server_kw, plan.servers_per_rack, plan.racks) == (pytest.approx(11.5), 3, 43)


def test_a_lower_limit_means_more_racks_and_links_no_shorter():
    """Fewer servers a rack: more racks, so the switch links (centre of the hall to its farthest rack) are
    at least as long and the node links leave their copper reach no sooner."""
    wide, tight = _topo(_scenario(rack_power_limit_kw=45.0)), _topo(_scenario(rack_power_limit_kw=9.0))
    assert (tight.racks > wide.racks).all()
    assert (tight.switch_link_m >= wide.switch_link_m).all() and (tight.switch_link_m > wide.switch_link_m).any()
    assert (tight.links["dac"] <= wide.links["dac"]).all()


def test_the_cooling_kind_does_not_change_the_racks():
    """The site's limit sets the racks; air or liquid cools the same servers (equal by construction)."""
    air, liquid = _topo(_scenario(cooling="air")), _topo(_scenario(cooling="liquid"))
    np.testing.assert_array_equal(air.racks, liquid.racks)


# --- PUE and cooling capex


def test_pue_follows_the_cooling_kind_unless_set():
    pue = {k: float(build(_scenario(cooling=k, pue=None), CAT).inputs.pue[0, 0]) for k in ("air", "liquid")}
    assert pue == {k: CAT.cooling[k].pue.typical for k in ("air", "liquid")}
    assert pue["liquid"] < pue["air"]
    assert float(build(_scenario(cooling="liquid", pue=1.33), CAT).inputs.pue[0, 0]) == 1.33


def _outputs(scenario):
    built = build(scenario, CAT)
    return built, compute(built.inputs, built.structure)


@pytest.mark.parametrize("kind", ["air", "liquid"])
def test_cooling_capex_is_peak_it_power_times_the_kinds_price_per_kw(kind):
    s = _scenario(cooling=kind, build_cooling=True)
    built, out = _outputs(s)
    p = built.inputs
    it_kw = out.metrics["network_power_kw"] + s.cluster.nodes * (8 * 0.7 + 3.0)  # the fabric + N HGX H100 at peak
    want = it_kw * CAT.cooling[kind].capex_per_kw["USD"].typical
    np.testing.assert_allclose(out.amounts["cooling_capex"], want, rtol=1e-12)
    assert float(p.cooling_capex_per_kw[0, 0]) == CAT.cooling[kind].capex_per_kw["USD"].typical
    # its own line of the breakdown, a capex: paid in year 0, part of the TCO
    off = _outputs(_scenario(cooling=kind, build_cooling=False))[1]
    np.testing.assert_array_equal(off.amounts["cooling_capex"], 0.0)
    assert (out.breakdown["cooling_capex"] > 0).all()
    np.testing.assert_allclose(out.tco - off.tco, out.breakdown["cooling_capex"]
                               + (out.breakdown["energy"] - off.breakdown["energy"]), rtol=1e-9)


def test_cooling_capex_in_a_cny_book_is_the_cny_figure_and_fabric_scope_cools_only_the_network():
    data = _scenario(build_cooling=True, cooling="liquid").model_dump()
    data["price_book"] = "cn-2025"
    cny = costmodel.scenario_from_dict(data)
    assert float(build(cny, CAT).inputs.cooling_capex_per_kw[0, 0]) == CAT.cooling["liquid"].capex_per_kw["CNY"].typical
    data["scope"] = "fabric"
    built, out = _outputs(costmodel.scenario_from_dict(data))
    np.testing.assert_allclose(out.amounts["cooling_capex"],
                               out.metrics["network_power_kw"] * built.inputs.cooling_capex_per_kw, rtol=1e-12)


def test_cooling_capex_is_a_line_of_the_results_and_the_csv():
    res = costmodel.evaluate(_scenario(build_cooling=True))
    assert all(f.breakdown["cooling_capex"] > 0 for f in res.fabrics)
    from costmodel.exports.csv import results_csv, yearly_csv
    assert "breakdown_cooling_capex" in results_csv(res).splitlines()[0]
    assert "cooling_capex" in yearly_csv(res).splitlines()[0]
    assert "构成：冷却（资本支出）" in results_csv(res, lang="zh").splitlines()[0]


# --- the defaults keep today's numbers


def test_the_default_facility_changes_no_number_of_an_h100_cluster():
    """Air, PUE 1.4, no cooling built, a 45 kW limit that holds the 4 HGX H100 servers of a rack: the
    figures of a site without a limit (500 kW a rack) and an explicit PUE 1.4, to the last bit."""
    base = costmodel.evaluate(_scenario(pue=None))
    free = costmodel.evaluate(_scenario(rack_power_limit_kw=500.0, pue=1.4))
    assert [f.tco_total for f in base.fabrics] == [f.tco_total for f in free.fabrics]
    assert [f.bom for f in base.fabrics] == [f.bom for f in free.fabrics]
    assert all(f.breakdown["cooling_capex"] == 0.0 for f in base.fabrics)


# --- warnings


def _liquid_only_catalog():
    gpus = dict(CAT.gpus)
    gpus["h100"] = gpus["h100"].model_copy(update={"cooling_required": "liquid"})
    return CAT.model_copy(update={"gpus": gpus})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_liquid_only_gpu_on_an_air_site_is_a_warning_naming_the_gpu(lang):
    cat, t = _liquid_only_catalog(), Translator(lang)
    air = warnings(_scenario(cooling="air"), cat)
    assert [(w.code, w.field) for w in air] == [("needs_liquid", "facility.cooling")]
    lines = facility.warning_lines(t, _scenario(cooling="air"), cat)
    assert len(lines) == 1 and CAT.gpus["h100"].name in lines[0]
    assert t("field.facility.cooling") in lines[0]  # names the field to change
    assert warnings(_scenario(cooling="liquid"), cat) == []
    assert warnings(_scenario(cooling="air"), CAT) == []  # the catalog's H100 is sold air-cooled too


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_server_above_the_rack_limit_is_a_warning_with_both_numbers(lang):
    s = _scenario(rack_power_limit_kw=5.0)
    (w,) = warnings(s, CAT)
    assert (w.code, w.field) == ("server_over_limit", "facility.rack_power_limit_kw")
    assert w.numbers == {"server_kw": pytest.approx(8.6), "limit_kw": 5.0}
    t = Translator(lang)
    (line,) = facility.warning_lines(t, s, CAT)
    assert "8.6" in line and "5 kW" in line and t("field.facility.rack_power_limit_kw").split(" [")[0] in line
    assert rack_plan(s, CAT).servers_per_rack == 1  # it still takes a rack of its own
    assert warnings(_scenario(rack_power_limit_kw=8.6), CAT) == []  # exactly at the limit fits


def test_the_cooling_line_follows_the_network_bill_and_is_the_ledgers_cooling_capex():
    from webui.sections.bom import facility_rows

    s = _scenario(build_cooling=True, cooling="liquid")
    assert s.finance.payment == "upfront"
    res, t = costmodel.evaluate(s), Translator("zh")
    for f in res.fabrics:
        line = f.bom_facility["cooling"]
        assert line["extended"] == pytest.approx(line["count"] * line["unit_price"], rel=1e-12)
        # the ledger's capex, paid in year 0 and resold at the residual share at the horizon
        assert f.breakdown["cooling_capex"] == pytest.approx(line["extended"] * (1 - s.finance.residual_value_frac))
        assert line["unit_price"] == CAT.cooling["liquid"].capex_per_kw["USD"].typical
        assert sum(x["extended"] for x in f.bom_priced.values()) == pytest.approx(f.network_capex_purchase)
        (row,) = facility_rows(f, t, lambda x: f"{x:,.0f}")
        assert row[0] == t("bom.item.cooling") and row[-1] == f"{line['extended']:,.0f}"
    off = costmodel.evaluate(_scenario())
    assert all(facility_rows(f, t, str) == [] for f in off.fabrics)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_opens_with_the_facilitys_warning_and_racks(lang):
    from webui.reports.html import report_html

    s = _scenario(rack_power_limit_kw=5.0)
    page = report_html(s, lang)
    t = Translator(lang)
    (warning,) = facility.warning_lines(t, s, CAT)
    assert page.index(f"<p class='warn'>{html.escape(warning)}</p>") < page.index(html.escape(t("pdf.summary")))
    assert html.escape(facility.rack_line(t, s, CAT)) in page
