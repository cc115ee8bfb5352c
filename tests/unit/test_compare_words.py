"""Figures that used to read as bugs: durations in words and days ("0.0 years", "0.2 months", "month
0.1" no more), the recommendation's two questions (the cheapest way to do the work; the best fabric
for the nodes entered), and why a run on more nodes is slower (communication-bound) — on the page's
texts and in the PDF report."""

from __future__ import annotations

import html
import math

import pytest
from switches_2016 import OLD_100G

import costmodel
from costmodel.analysis.slowdown import slower_with_more_nodes
from costmodel.pipeline.recommend import fixed_cluster_pick
from webui.i18n import labels
from webui.i18n.durations import DAYS_PER_YEAR, DAYS_UP_TO, MONTHS_BELOW_YEARS, duration_text, months_text
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.sections import compare_notes
from webui.session import share

EN, ZH = Translator("en"), Translator("zh")

def _days(d: float) -> float:
    return d / DAYS_PER_YEAR


@pytest.mark.parametrize(("days", "en", "zh"), [
    (0.0, "less than a day", "不到 1 天"),
    (0.9, "less than a day", "不到 1 天"),
    (1.0, "1 days — within a week", "1 天（一周内）"),
    (6.2, "7 days — within a week", "7 天（一周内）"),
    (7.5, "8 days — within 2 weeks", "8 天（2 周内）"),
    (60.0, "60 days — within 9 weeks", "60 天（9 周内）"),
    (60.5, "2.0 months", "2.0 个月"),
    (61.0, "2.0 months", "2.0 个月"),
    (365.0, "12.0 months", "12.0 个月"),
    (2 * DAYS_PER_YEAR, "2.0 years", "2.0 年"),
    (3.26 * DAYS_PER_YEAR, "3.3 years", "3.3 年"),
])
def test_a_duration_reads_in_days_months_or_years_by_its_size(days, en, zh):
    assert duration_text(EN, _days(days)) == en
    assert duration_text(ZH, _days(days)) == zh


def test_the_thresholds_are_two_months_and_two_years():
    assert "days" in duration_text(EN, _days(DAYS_UP_TO)) and "months" in duration_text(EN, _days(DAYS_UP_TO + 0.01))
    assert "months" in duration_text(EN, MONTHS_BELOW_YEARS - 1e-6) and "years" in duration_text(EN, MONTHS_BELOW_YEARS)
    assert [duration_text(EN, v) for v in (None, -1.0, math.inf, math.nan)] == ["—"] * 4
    assert months_text(ZH, 0.12) == "4 天（一周内）"  # a crossing "at month 0.1"


def _h100_64(fabrics=None):
    s = share.preset_scenario("seed-intro-32xA100")
    data = s.model_dump()
    data["cluster"].update(gpu="h100", nodes=64)
    data["overrides"] = OLD_100G  # a communication-bound 100G fabric: the 32-port boxes of 2016
    data["workload"]["compute_efficiency"] = 0.5  # the kernel efficiency this case was built at: the answers differ
    if fabrics:
        data.update(fabrics=fabrics, baseline=fabrics[0])
    return type(s).model_validate(data)


@pytest.fixture(scope="module")
def res():
    return costmodel.evaluate(_h100_64(["tcp-100", "roce-400", "ib-ndr-400", "iwarp-100", "roce-ar-800"]))


def test_the_fixed_cluster_pick_is_the_lowest_tco_that_fits_the_plan(res):
    rec = res.recommendation
    fits = [f for f in res.fabrics if f.fits_plan]
    assert rec.fixed_pick == min(fits, key=lambda f: f.tco_total).id and rec.fixed_metric == "tco_total"
    assert rec.metric == "work_cost" and rec.cost_optimal == res.equal_work.fabric_ids[res.equal_work.cheapest]
    wide = _h100_64(["tcp-100", "roce-400", "ib-ndr-400", "iwarp-100", "roce-ar-800"])
    wide = type(wide).model_validate({**wide.model_dump(), "cluster": {**wide.model_dump()["cluster"], "nodes": 128}})
    rec128 = costmodel.evaluate(wide).recommendation
    assert rec128.fixed_pick != rec128.cost_optimal  # at 128 nodes the two questions have different answers
    assert fixed_cluster_pick(["a", "b"], [2.0, 1.0], [9.0, 1.0], [False, False], "plan") == ("b", "cost_per_run")
    assert res.to_dict()["recommendation"]["fixed_pick"] == rec.fixed_pick


@pytest.mark.parametrize("t", [EN, ZH])
def test_each_answer_is_labelled_with_its_question(res, t):
    names = labels.fabric_names(t)
    picks = compare_notes.picks(t, Money("USD", "USD", 1.0, t.lang), res, names)
    assert picks["work"]["question"] == t("pick.work") and picks["work"]["fabric"] == res.recommendation.cost_optimal
    assert picks["fixed"]["question"] == t("pick.fixed", nodes="64")
    assert names[res.recommendation.fixed_pick] in picks["fixed"]["detail"]
    j = res.equal_work.fabric_ids.index(res.recommendation.cost_optimal)
    assert f"{int(res.equal_work.nodes[j])}" in picks["work"]["detail"]


def test_tcp_100g_is_slower_on_64_nodes_because_it_is_communication_bound(res):
    # iWARP 100G, slower with more nodes before the host PCIe limit and the kernel efficiency by shape, is
    # now fastest at 64 nodes; TCP 100G still peaks at 32
    (tcp,) = slower_with_more_nodes(res)
    assert (tcp.fabric, tcp.small_nodes, tcp.big_nodes) == ("tcp-100", 32, 64)
    assert (round(tcp.small_days, 1), round(tcp.big_days, 1)) == (27.9, 33.3)
    assert tcp.cause == "communication" and tcp.big["exposed_comm_s"] - tcp.small["exposed_comm_s"] > \
        tcp.small["compute_time_s"] - tcp.big["compute_time_s"] > 0
    # the small cluster's step is the model's own at 32 nodes
    data = _h100_64(["tcp-100"]).model_dump()
    data["cluster"]["nodes"] = 32
    at32 = costmodel.evaluate(type(_h100_64()).model_validate(data)).fabric("tcp-100").metrics
    for key in ("step_time_s", "compute_time_s", "exposed_comm_s"):
        assert tcp.small[key] == pytest.approx(at32[key], rel=1e-9)


@pytest.mark.parametrize(("t", "words"), [(EN, ("communication-bound", "32 nodes", "64 nodes", "27.9", "33.3")),
                                          (ZH, ("受通信限制", "32 个节点", "64 个节点", "27.9", "33.3"))])
def test_the_slowdown_is_said_with_its_numbers(res, t, words):
    (line,) = compare_notes.slowdown_lines(t, res, labels.fabric_names(t))
    assert all(w in line for w in words), line
    assert "55.2" in line and "38.5" in line  # the network wait per step, 64 and 32 nodes [s]


def test_the_pdf_says_durations_in_words_and_both_answers():
    from webui.reports.html import report_html

    doc = html.unescape(report_html(_h100_64(["tcp-100", "roce-400", "ib-ndr-400", "iwarp-100", "roce-ar-800"]),
                                    lang="zh", currency="CNY", rate=7.1))
    assert "回收期 0.0 年" not in doc and "个月交叉" not in doc
    assert "（一周内）" in doc  # a payback or crossing within a week, in days
    assert ZH("crossings.title") in doc and ZH("pick.work") in doc and "您输入的 64 个节点下最好的网络" in doc
    assert "训练受通信限制" in doc
