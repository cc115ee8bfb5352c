"""The Method page's bandwidth-sensitivity chart: the builder on real model output, and the page in
English and Chinese (AppTest): shown for every reference run, without exceptions or stray English."""

from __future__ import annotations

import math

import pytest
from apptest_helpers import open_page, plotly_specs
from test_chinese import _chart_texts
from zh_words import latin_words

import costmodel.evidence.sensitivity as sens
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.loader import load_catalog
from webui.charts.bandwidth import bandwidth_chart
from webui.i18n.translator import Translator, catalog

RUN = "megatron-175b-1536"
FAMILIES = {f: q.family for f, q in load_catalog().fabrics.items()}


def _labels(lang: str) -> dict[str, str]:
    t = Translator(lang)
    out = {k[len("sensitivity."):]: t(k) for k in catalog("en") if k.startswith("sensitivity.")}
    return out | {"_lang": lang}


@pytest.fixture(scope="module")
def data():
    return sens.curve(RUN), sens.markers(RUN)


def _fig(data, calculon, lang="en"):
    curve, markers = data
    return bandwidth_chart(curve, markers, calculon, fabric_names(lang), FAMILIES, _labels(lang)).to_dict()


def test_the_chart_draws_the_models_curve_and_each_fabric_at_its_own_evaluation(data):
    curve, markers = data
    fig = _fig(data, sens.calculon_inputs())
    mfu = fig["data"][0]
    assert list(mfu["x"]) == pytest.approx(curve.gbs_per_gpu.tolist())
    assert list(mfu["y"]) == pytest.approx((100 * curve.mfu).tolist())
    names = fabric_names("en")
    drawn = {tr["name"]: (tr["x"][0], tr["y"][0]) for tr in fig["data"][2:]}
    for mk in markers:
        assert drawn[names[mk.fabric]] == pytest.approx((mk.gbs_per_gpu, 100 * mk.mfu))
    assert fig["layout"]["xaxis"]["type"] == "log"
    lines = [s["x0"] for s in fig["layout"]["shapes"] if s.get("xref") == "x"]
    assert lines == pytest.approx([sens.calculon_inputs()["gbs_per_gpu"], curve.knee_gbs])


def test_without_calculons_values_the_chart_says_so_and_draws_no_calculon_point(data):
    cal = sens.calculon_inputs("korthikanti-1t")  # Calculon was run for the 175 B run only
    fig = _fig(data, cal)
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert any("computed for GPT 175 B on 1,536 A100 only" in x for x in texts)
    assert not any("Calculon" in tr["name"] for tr in fig["data"])


def test_the_chart_draws_calculons_run_beside_ours(data):
    cal = sens.calculon_inputs(RUN)
    fig = _fig(data, cal)
    drawn = [tr for tr in fig["data"] if tr["name"] == "Calculon (run by us)"]
    assert len(drawn) == 1
    assert list(drawn[0]["x"]) == pytest.approx([p[0] for p in cal["curve"]])
    assert list(drawn[0]["y"]) == pytest.approx([100 * p[1] for p in cal["curve"]])
    assert not any("only" in a["text"] for a in fig["layout"]["annotations"])
    zh = _fig(data, cal, "zh")
    assert any(tr["name"] == "Calculon（由我们运行）" for tr in zh["data"])


def test_with_calculons_values_the_curve_is_drawn_and_the_note_goes(data):
    pairs = [[2.0, 0.5], [20.0, 0.7]]  # a made-up curve, only to check the drawing
    fig = _fig(data, {**sens.calculon_inputs(), "curve": pairs})
    cal = [tr for tr in fig["data"] if "Calculon" in tr["name"]]
    assert len(cal) == 1 and list(cal[0]["x"]) == [2.0, 20.0] and list(cal[0]["y"]) == [50.0, 70.0]
    assert not any("not available" in a["text"] for a in fig["layout"]["annotations"])


def test_the_chinese_chart_has_no_stray_english(data):
    fig = _fig(data, sens.calculon_inputs(), "zh")
    stray = {w for x in _chart_texts(fig) for w in latin_words(x)}
    assert not stray, stray


def _chart(at) -> dict:
    return next(v for k, v in plotly_specs(at).items() if k.endswith("chart_bandwidth"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_method_page_shows_the_chart_for_every_reference_run(lang):
    at = open_page("method", lang)
    box = next(s for s in at.selectbox if (s.key or "").startswith("method_sensitivity_run"))
    assert list(box.options) == [Translator(lang)(f"sensitivity.ref.{r}") for r in sens.settings()["references"]]
    for run_id in sens.settings()["references"]:
        box.set_value(run_id).run()
        assert not at.exception, [e.message for e in at.exception]
        spec = _chart(at)
        c = sens.curve(run_id)
        assert spec["data"][0]["y"] == pytest.approx((100 * c.mfu).tolist())
        md = " ".join(m.value for m in at.markdown)
        knee = f"{c.knee_gbs:.3g}" if math.isfinite(c.knee_gbs) else None
        assert knee is None or f"{knee} GB/s" in md
        assert "Calculon" in md
        cal = sens.calculon_inputs(run_id)
        if cal["curve"]:
            assert f"{cal['knee_gbs']:.3g} GB/s" in md or f"{cal['knee_gbs']:.3g}" in md
            assert any("Calculon" in tr.get("name", "") for tr in spec["data"])
        if lang == "zh":
            stray = {w for x in _chart_texts(spec) for w in latin_words(x)}
            stray |= {w for m in at.markdown for w in latin_words(m.value)}
            stray |= {w for o in box.options for w in latin_words(str(o))}
            assert not stray, stray
        box = next(s for s in at.selectbox if (s.key or "").startswith("method_sensitivity_run"))
