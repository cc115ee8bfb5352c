"""The deck's drawing kit (python-pptx, no Streamlit): a branded 16:9 slide with its title, logo and
footer, text boxes, bullet lists, tables and native PowerPoint charts (bar, line) whose series carry
the model's numbers. Every run of text gets a Latin and an East Asian typeface (Noto Sans CJK SC, the
font the PDF embeds), so LibreOffice and PowerPoint draw Chinese without a fallback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pptx import Presentation
from pptx.chart.data import CategoryChartData, XyChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE, XL_LEGEND_POSITION, XL_TICK_LABEL_POSITION
from pptx.enum.text import MSO_ANCHOR, PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt

import costmodel
from costmodel.catalog.currency import SYMBOLS
from webui.i18n.money import Money, compact
from webui.i18n.translator import Translator
from webui.reports.brand import Brand

FONT = "Noto Sans CJK SC"
SLIDE_W, SLIDE_H = Inches(13.333), Inches(7.5)
MARGIN = Inches(0.5)
BODY_TOP = Inches(1.25)  # below the title bar
BODY_H = Inches(5.55)  # down to the footer
BODY_W = SLIDE_W - 2 * MARGIN
GREY = RGBColor(0x66, 0x70, 0x7A)  # notes and axes
DARK = RGBColor(0x1F, 0x29, 0x33)  # body text, as the PDF's
WHITE = RGBColor(0xFF, 0xFF, 0xFF)
LIGHT_ROW = RGBColor(0xF3, 0xF6, 0xF9)


@dataclass
class Deck:
    """What every slide builder reads: the words, the scenario and its result, money, brand."""

    t: Translator
    scenario: costmodel.Scenario
    res: object
    names: dict[str, str]
    conv: Money
    brand: Brand
    title: str
    book_label: str
    negotiated: bool
    prs: object = field(default_factory=Presentation)

    def rgb(self, which: str) -> RGBColor:
        return RGBColor.from_string(getattr(self.brand.colors, which).lstrip("#"))

    def palette(self, n: int) -> list[RGBColor]:
        """``n`` series colours: the brand's three, then each lightened by half, then by three quarters."""
        base = [self.rgb("primary"), self.rgb("accent"), self.rgb("secondary")]
        out = [*base, *(_blend(c, 0.5) for c in base), *(_blend(c, 0.75) for c in base)]
        return [out[i % len(out)] for i in range(n)]


def _blend(c: RGBColor, share: float) -> RGBColor:
    """``c`` mixed with ``share`` of white."""
    return RGBColor(*(round(v + (255 - v) * share) for v in (c[0], c[1], c[2])))


def _typefaces(rpr) -> None:
    """Latin and East Asian typeface of a run's (or a chart's default) properties element."""
    for tag in ("a:latin", "a:ea"):
        old = rpr.find(qn(tag))
        if old is not None:
            rpr.remove(old)
    latin = rpr.makeelement(qn("a:latin"), {"typeface": FONT})
    ea = rpr.makeelement(qn("a:ea"), {"typeface": FONT})
    after = [rpr.find(qn(t)) for t in ("a:hlinkClick", "a:hlinkMouseOver", "a:rtl", "a:extLst", "a:cs", "a:sym")]
    anchor = next((a for a in after if a is not None), None)
    for el in (latin, ea):
        if anchor is None:
            rpr.append(el)
        else:
            anchor.addprevious(el)


def style(run_or_font, size: float, color: RGBColor = DARK, bold: bool = False) -> None:
    """A run's size, colour, weight and typefaces."""
    font = getattr(run_or_font, "font", run_or_font)
    font.size, font.bold = Pt(size), bold
    font.color.rgb = color
    _typefaces(font._rPr)


def text(slide, x, y, w, h, lines: Sequence[str] | str, size: float = 16, color: RGBColor = DARK,
         bold: bool = False, bullets: bool = False, align=PP_ALIGN.LEFT, anchor=MSO_ANCHOR.TOP):
    """A text box of ``lines`` (one paragraph each, "• " before each when ``bullets``), word-wrapped."""
    box = slide.shapes.add_textbox(x, y, w, h)
    tf = box.text_frame
    tf.word_wrap, tf.vertical_anchor = True, anchor
    for i, line in enumerate([lines] if isinstance(lines, str) else lines):
        p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
        p.alignment = align
        p.space_after = Pt(size * 0.45)
        run = p.add_run()
        run.text = ("• " if bullets else "") + line
        style(run, size, color, bold)
    return box


def new_slide(deck: Deck, title: str, number: int):
    """A blank branded slide: the title in the primary colour over an accent rule, the logo at the top
    right, the legal footer and the slide number at the bottom."""
    slide = deck.prs.slides.add_slide(deck.prs.slide_layouts[6])
    width = SLIDE_W - 2 * MARGIN - Inches(2.2)
    size = 26 if _lines(title, width, 26 * 1.1) == 1 else 20  # a long title on one line, or two smaller
    text(slide, MARGIN, Inches(0.25), width, Inches(0.85), title, size=size, color=deck.rgb("primary"), bold=True,
         anchor=MSO_ANCHOR.MIDDLE)
    rule = slide.shapes.add_shape(1, MARGIN, Inches(1.1), BODY_W, Emu(Inches(0.04)))
    rule.fill.solid()
    rule.fill.fore_color.rgb = deck.rgb("accent")
    rule.line.fill.background()
    slide.shapes.add_picture(str(deck.brand.logo_png_path), SLIDE_W - MARGIN - Inches(1.9), Inches(0.38),
                             height=Inches(0.5))
    foot = deck.brand.legal(deck.t.lang)
    text(slide, MARGIN, Inches(6.95), BODY_W - Inches(1.0), Inches(0.4), foot, size=9, color=GREY)
    text(slide, SLIDE_W - MARGIN - Inches(0.8), Inches(6.95), Inches(0.8), Inches(0.4), str(number), size=10,
         color=GREY, align=PP_ALIGN.RIGHT)
    return slide


def _em(ch: str) -> float:
    """A character's width in em, a little generous: CJK and full-width ones 1.05, Latin ones 0.6."""
    return 1.05 if ord(ch) >= 0x2E80 else 0.6


def _lines(value: str, width, size: float) -> int:
    """Lines ``value`` wraps to in a cell ``width`` wide (EMU) at ``size`` pt (margins taken off)."""
    room = max(1.0, (int(width) / 12700 - 10) / size)  # em per line; 12700 EMU = 1 pt, 5 pt margins
    lines = 0
    for part in str(value).split("\n"):
        words, line, count = part.split(" "), 0.0, 1
        for w in words:
            ww = sum(_em(c) for c in w) + 0.3
            if line and line + ww > room:
                count, line = count + 1, 0.0
            line += ww
            while line > room:  # a word longer than the line (CJK text has no spaces)
                count, line = count + 1, line - room
        lines += count
    return lines


def _layout(header: Sequence[str], rows: Sequence[Sequence[str]], w, size: float,
            first_col_share: float) -> tuple[list[int], list[int]]:
    """The columns' widths and the rows' heights (EMU) of a :func:`table`, header row first."""
    first = int(w * first_col_share) if len(header) > 1 else int(w)
    rest = (int(w) - first) // max(1, len(header) - 1)
    widths = [first, *[rest] * (len(header) - 1)]
    heights = [Pt(size * 1.4 * max(_lines(v, cw, size) for v, cw in zip(row, widths, strict=False)) + 6)
               for row in [list(header), *map(list, rows)]]
    return widths, heights


def table_height(header: Sequence[str], rows: Sequence[Sequence[str]], w, size: float = 11,
                 first_col_share: float = 0.3) -> int:
    """The height (EMU) :func:`table` would draw these rows at, without drawing them."""
    return sum(_layout(header, rows, w, size, first_col_share)[1])


def table(deck: Deck, slide, header: Sequence[str], rows: Sequence[Sequence[str]], x, y, w,
          size: float = 11, first_col_share: float = 0.3, right_from: int = 1) -> int:
    """A table: the header on the primary colour, banded rows, columns from ``right_from`` right-aligned;
    each row as tall as its longest cell wraps to. Returns the table's height (EMU)."""
    widths, heights = _layout(header, rows, w, size, first_col_share)
    body = [list(header), *map(list, rows)]
    shape = slide.shapes.add_table(len(body), len(header), x, y, w, sum(heights))
    tbl = shape.table
    for j, col in enumerate(tbl.columns):
        col.width = Emu(widths[j])
    for i, row in enumerate(body):
        tbl.rows[i].height = Emu(heights[i])
        for j, value in enumerate(row):
            cell = tbl.cell(i, j)
            cell.margin_top = cell.margin_bottom = Pt(2)
            cell.margin_left = cell.margin_right = Pt(5)
            cell.fill.solid()
            cell.fill.fore_color.rgb = deck.rgb("primary") if i == 0 else (LIGHT_ROW if i % 2 == 0 else WHITE)
            p = cell.text_frame.paragraphs[0]
            p.alignment = PP_ALIGN.RIGHT if i > 0 and j >= right_from else PP_ALIGN.LEFT
            p._p.get_or_add_endParaRPr().set("sz", str(round(size * 100)))  # an empty cell's line is as tall
            run = p.add_run()
            run.text = str(value)
            style(run, size, WHITE if i == 0 else DARK, bold=i == 0)
    return sum(heights)


def money_scale(deck: Deck, values) -> tuple[float, str]:
    """(divisor, unit) for money series in the display currency: the compact unit of the largest
    amount in the deck's language (万 / 亿 in Chinese, k / M / B in English), e.g. ``(1e4, "¥ 万")``."""
    big = max((abs(deck.conv.convert(float(v))) for v in values), default=0.0)
    scaled, suffix = compact(big, deck.t.lang)
    divisor = big / scaled if suffix and scaled else 1.0
    return divisor, f"{SYMBOLS[deck.conv.currency]}{suffix}"


def shown(deck: Deck, value: float, divisor: float) -> float:
    """A model amount as a chart carries it: in the display currency, over ``divisor``."""
    return deck.conv.convert(float(value)) / divisor


def _format(values: Sequence[float]) -> str:
    """The number format of a chart's values: whole numbers from 10 up, one decimal below."""
    return "#,##0" if max((abs(float(v)) for v in values), default=0.0) >= 10 else "#,##0.0"


def _chart_style(deck: Deck, chart, axis_title: str | None, legend: bool, number_format: str) -> None:
    chart.has_title = False  # the slide's title says what the chart is
    chart.font.size = Pt(11)
    _typefaces(chart.font._rPr)
    chart.has_legend = legend
    if legend:
        chart.legend.position = XL_LEGEND_POSITION.BOTTOM
        chart.legend.include_in_layout = False
    axis = chart.value_axis
    axis.tick_labels.number_format, axis.tick_labels.number_format_is_linked = number_format, False
    axis.has_major_gridlines = True
    if axis_title:
        axis.has_title = True
        axis.axis_title.text_frame.text = axis_title
        style(axis.axis_title.text_frame.paragraphs[0].runs[0], 11, GREY)


def bar_chart(deck: Deck, slide, categories: Sequence[str], series: Sequence[tuple[str, Sequence[float]]],
              x, y, w, h, *, axis_title: str | None = None, stacked: bool = False, horizontal: bool = False,
              colors: Sequence[RGBColor] | None = None):
    """A native bar (or column) chart: one series per (name, values), categories along the axis; a
    horizontal one lists its categories bottom up, so they are stored last first (the first on top)."""
    number_format = _format([v for _, values in series for v in values])
    data = CategoryChartData(number_format=number_format)
    order = slice(None, None, -1) if horizontal else slice(None)
    data.categories = list(categories)[order]
    for name, values in series:
        data.add_series(name, [float(v) for v in values][order])
    kind = {(False, False): XL_CHART_TYPE.COLUMN_CLUSTERED, (True, False): XL_CHART_TYPE.COLUMN_STACKED,
            (False, True): XL_CHART_TYPE.BAR_CLUSTERED, (True, True): XL_CHART_TYPE.BAR_STACKED}[stacked, horizontal]
    chart = slide.shapes.add_chart(kind, x, y, w, h, data).chart
    _chart_style(deck, chart, axis_title, len(series) > 1, number_format)
    if min((float(v) for _, values in series for v in values), default=0.0) >= 0:
        chart.value_axis.minimum_scale = 0  # bars of amounts start at zero
    for s, c in zip(chart.series, colors or deck.palette(len(series)), strict=False):
        s.format.fill.solid()
        s.format.fill.fore_color.rgb = c
    chart.category_axis.tick_label_position = XL_TICK_LABEL_POSITION.LOW  # beside the plot, never over bars
    return chart


def line_chart(deck: Deck, slide, series: Sequence[tuple[str, Sequence[float], Sequence[float]]], x, y, w, h, *,
               axis_title: str, x_title: str):
    """A native XY line chart: one line per (name, xs, ys)."""
    number_format = _format([v for _, _, ys in series for v in ys])
    data = XyChartData()
    for name, xs, ys in series:
        s = data.add_series(name, number_format=number_format)
        for a, b in zip(xs, ys, strict=True):
            s.add_data_point(float(a), float(b))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER_LINES_NO_MARKERS, x, y, w, h, data).chart
    _chart_style(deck, chart, axis_title, True, number_format)
    cat = chart.category_axis
    cat.minimum_scale, cat.maximum_scale = float(min(series[0][1])), float(max(series[0][1]))
    cat.has_title = True
    cat.axis_title.text_frame.text = x_title
    style(cat.axis_title.text_frame.paragraphs[0].runs[0], 11, GREY)
    for s, c in zip(chart.series, deck.palette(len(series)), strict=False):
        s.format.line.color.rgb = c
        s.format.line.width = Pt(2.25)
        s.smooth = False
    return chart
