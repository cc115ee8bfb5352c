"""Compare with 2–20 fabrics: cards of a readable width that wrap into rows up to eight fabrics, one
sortable table beyond; charts labelled by short fabric labels with the full names on hover;
crossings as a table under the cumulative chart, never as labels on it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from apptest_helpers import open_page, plotly_specs

import costmodel
from costmodel.analysis.timeline import cumulative
from costmodel.catalog import formatting
from costmodel.catalog.loader import load_catalog
from webui.i18n.durations import months_text
from webui.i18n.translator import Translator, catalog
from webui.panels import kpi_cards

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import compare_screenshots as shots


def _open(n: int, lang: str = "en"):
    return open_page("compare", lang=lang, cur="USD", p=shots.PRESET, s=shots.scenario_token(n))


def _scenario(n: int):
    from webui.session import share

    return share.decode(shots.PRESET, shots.scenario_token(n))


def _blocks(node):
    """Every block under ``node`` (depth first)."""
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ == "Block":
            yield child
        yield from _blocks(child)


def _card_rows(at):
    """The wrapping row of KPI cards: the horizontal, wrapping block whose children are bordered."""
    rows = [b for b in _blocks(at.main) if b.proto.flex_container.wrap and b.proto.flex_container.direction == 2
            and b.children and all(type(c).__name__ == "Block" and c.proto.flex_container.border
                                   for c in b.children.values())]
    return rows


def _tco_metrics(at, lang="en"):
    prefix = catalog(lang)["kpi.tco"].split("{")[0] or catalog(lang)["kpi.tco"].split("}")[-1]
    return [m for m in at.metric if prefix in m.label]


@pytest.mark.parametrize("n", [4, 8])
def test_up_to_eight_fabrics_are_cards_of_a_readable_width_that_wrap(n):
    at = _open(n)
    (row,) = _card_rows(at)
    cards = list(row.children.values())
    assert len(cards) == n
    assert {c.proto.width_config.pixel_width for c in cards} == {kpi_cards.CARD_WIDTH_PX}
    assert len(_tco_metrics(at)) == n
    assert not at.dataframe  # no table


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_more_than_eight_fabrics_are_one_sortable_table(lang):
    at = _open(12, lang)
    assert not _card_rows(at) and not _tco_metrics(at, lang)
    (table,) = at.dataframe
    df = table.value
    short = formatting.fabric_short_names(lang)
    res = costmodel.evaluate(_scenario(12))
    t = Translator(lang)
    fabric_col = df[t("cards.fabric")].tolist()
    assert fabric_col[0] == f"{short[res.baseline]} · {t('compare.baseline')}"
    assert fabric_col[1:] == [short[f.id] for f in res.fabrics[1:]]
    numeric = [c for c in df.columns if c != t("cards.fabric")]
    assert len(numeric) >= 8 and all(df[c].dtype.kind == "f" for c in numeric)  # numbers sort as numbers
    tco = df[numeric[0]].to_numpy()
    assert list(np.argsort(tco, kind="stable")) == list(np.argsort([f.tco_total for f in res.fabrics], kind="stable"))
    # each card's note once under the table: NCCL's socket fallback names the one iWARP fabric
    notes = [c.value for c in at.caption if catalog(lang)["compare.nccl_sockets"] in c.value]
    assert len(notes) == 1 and short["iwarp-100"] in notes[0]


def test_the_rule_is_eight_cards():
    assert [kpi_cards.layout_for(n) for n in (2, 8, 9, 20)] == ["cards", "cards", "table", "table"]


def test_charts_use_short_labels_and_name_each_fabric_in_full_on_hover():
    at = _open(12)
    res = costmodel.evaluate(_scenario(12))
    short, full = formatting.fabric_short_names("en"), formatting.fabric_names("en")
    specs = {s["layout"]["title"]["text"]: s for s in plotly_specs(at).values()}
    bars = specs[catalog("en")["chart.breakdown_title"]]["data"]
    for trace in bars:
        assert list(trace["x"]) == [short[f.id] for f in res.fabrics]
        assert [h.split("</b>")[0].removeprefix("<b>") for h in trace["hovertext"]] == [full[f.id] for f in res.fabrics]
    lines = [tr for tr in specs[catalog("en")["chart.cumulative_title"]]["data"] if tr.get("mode") == "lines"]
    assert [tr["name"] for tr in lines] == [short[f.id] for f in res.fabrics]
    assert all(tr["hovertext"][0].startswith(f"<b>{full[f.id]}</b>") for tr, f in zip(lines, res.fabrics, strict=True))
    assert max(len(short[f.id]) for f in res.fabrics) <= 16
    (fall,) = specs[catalog("en")["chart.waterfall_title"]]["data"]
    assert fall["x"][0] == short[res.baseline] and fall["x"][-1] in {short[f.id] for f in res.fabrics}
    assert full[res.baseline] in fall["hovertext"][0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_crossings_are_a_table_under_the_chart_not_labels_on_it(lang):
    at = _open(12, lang)
    res = costmodel.evaluate(_scenario(12))
    cum = cumulative(res)
    assert len(cum.crossings) >= 8  # the case that overlapped before
    specs = {s["layout"]["title"]["text"]: s for s in plotly_specs(at).values()}
    chart = specs[catalog(lang)["chart.cumulative_title"]]
    assert not chart["layout"].get("annotations")  # nothing written on the plot
    (marks,) = [tr for tr in chart["data"] if tr.get("mode") == "markers"]
    assert len(marks["x"]) == len(cum.crossings)  # every crossing still marked, with its hover
    t = Translator(lang)
    head = f"| {t('crossings.fabric')} | {t('crossings.after')} |"
    (table,) = [m.value for m in at.markdown if head in m.value]
    assert table.startswith(f"**{t('crossings.title')}**")  # its title, then the table
    body = table.split(head)[1].splitlines()[2:]
    assert len(body) == len(cum.crossings)
    names = formatting.fabric_short_names(lang)  # the legend's labels
    by_month = sorted(cum.crossings, key=lambda c: c.month)  # the earliest first
    cells = [[c.strip().replace("\\", "") for c in row.strip("|").split("|")] for row in body]
    assert [row[0] for row in cells] == [names[c.b] for c in by_month]
    assert [row[1] for row in cells] == [months_text(t, c.month) for c in by_month]
    assert by_month[0].month < 1 and ("days" if lang == "en" else "天") in cells[0][1]  # weeks read in days


def test_two_to_twelve_fabrics_in_chinese_follow_the_rule():
    for n in (2, 5, 9):
        at = _open(n, "zh")
        assert len(_card_rows(at)) == (1 if n <= kpi_cards.CARDS_UP_TO else 0)
        assert len(at.dataframe) == (0 if n <= kpi_cards.CARDS_UP_TO else 1)


def test_every_catalog_fabric_has_a_unique_short_label_a_chart_can_show():
    from zh_words import latin_words

    cat = load_catalog()
    for lang in ("en", "zh"):
        short = formatting.fabric_short_names(lang)
        assert set(short) == set(cat.fabrics)
        assert len(set(short.values())) == len(short)
        assert all(len(s) <= 16 for s in short.values()), short
        assert all(s != formatting.fabric_name(cat.fabrics[f], lang) for f, s in short.items())  # really short
    assert not set().union(*(latin_words(s) for s in formatting.fabric_short_names("zh").values()))


def test_twelve_fabrics_in_chinese_show_no_stray_english():
    from test_chinese import _page_texts
    from zh_words import latin_words

    at = _open(12, "zh")
    texts = [t for group in _page_texts(at).values() for t in group]
    texts += [el.value for kind in ("markdown", "caption", "info") for el in at.get(kind)]
    texts += [m.label for m in at.metric] + [m.value for m in at.metric]
    stray = {w: t[:80] for t in texts if t != "nan" for w in latin_words(t)}  # NaN cells show "—"
    assert not stray, stray
