"""The PowerPoint deck of a scenario (python-pptx, no Streamlit): 13 slides in English or Chinese —
title, executive summary, recommendation with its reasons, TCO by category, every fabric at a glance,
the same work, cumulative cost and crossover, risk (P10/P50/P90), the tornado, the bill of materials,
the assumptions, their sources, accuracy and contact — in the brand of ``assets/``
(:mod:`webui.reports.brand`). Charts are native PowerPoint charts carrying the model's numbers, so a
customer edits them; money is written as the app writes it (万 / 亿 in Chinese, k / M in English).
"""

from __future__ import annotations

import io

from pptx import Presentation
from pptx.oxml.ns import qn

import costmodel
from costmodel.catalog.currency import shown_rate
from costmodel.scenario import price_books
from costmodel.scenario.presets import list_presets
from webui.i18n import labels
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.reports import deck_detail as detail
from webui.reports import deck_slides as slides
from webui.reports.brand import Brand, brand
from webui.reports.deck_base import SLIDE_H, SLIDE_W, Deck
from webui.session import share
from webui.session.titles import scenario_title

MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


def _book_label(scenario: costmodel.Scenario, lang: str) -> str:
    """The price book's name as the PDF writes it (a negotiated book by its own label)."""
    if scenario.custom_price_book is not None:
        return price_books.label(scenario)
    book = costmodel.catalog.loader.load_catalog().price_book(scenario.price_book)
    return (book.name_zh or book.name) if lang == "zh" else book.name


def build_deck(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
               currency: str | None = None, rate: float = 1.0, title: str | None = None,
               the_brand: Brand | None = None) -> Deck:
    """The deck of ``scenario`` with every slide drawn; money in ``currency`` at ``rate`` (display
    units per price-book unit); ``title`` defaults to the scenario's display title."""
    t = Translator(lang)
    res = costmodel.evaluate(scenario)
    cur, rate = shown_rate(res.currency, currency, rate)
    title = title or scenario_title(scenario, preset_id if preset_id in list_presets() else share.BLANK, t)
    prs = Presentation()
    prs.slide_width, prs.slide_height = SLIDE_W, SLIDE_H
    prs.core_properties.title = title
    d = Deck(t=t, scenario=scenario, res=res, names=labels.fabric_names(t), conv=Money(res.currency, cur, rate, t.lang),
             brand=the_brand or brand(), title=title, book_label=_book_label(scenario, t.lang),
             negotiated=scenario.custom_price_book is not None, prs=prs)
    prs.core_properties.author = d.brand.company(t.lang)
    rows, sources = detail.assumptions(d)
    builders = [slides.title_slide, slides.summary_slide, slides.recommendation_slide, slides.categories_slide,
                slides.kpi_slide, slides.equal_work_slide, slides.cumulative_slide, detail.risk_slide,
                detail.tornado_slide, detail.bom_slide,
                lambda deck, n: detail.assumptions_slide(deck, n, rows),
                lambda deck, n: detail.sources_slide(deck, n, sources), detail.closing_slide]
    for number, build in enumerate(builders, start=1):
        build(d, number)
    _language(d)
    return d


def _language(deck: Deck) -> None:
    """Every run of text marked with the deck's language (zh-CN or en-US): spelling, and the Simplified
    Chinese face of the CJK font."""
    tag = "zh-CN" if deck.t.lang == "zh" else "en-US"
    for slide in deck.prs.slides:
        for el in slide._element.iter(qn("a:rPr"), qn("a:endParaRPr")):
            el.set("lang", tag)


def deck_bytes(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
               currency: str | None = None, rate: float = 1.0, title: str | None = None) -> bytes:
    """The deck as a .pptx file's bytes."""
    out = io.BytesIO()
    build_deck(scenario, lang, preset_id, currency, rate, title).prs.save(out)
    return out.getvalue()
