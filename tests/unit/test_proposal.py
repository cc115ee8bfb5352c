"""The PDF report as a proposal, without printing: the quote's fields on the cover (absent ones left
out), the contents linking every heading, the running header and footer, money written one way
(:mod:`webui.reports.doc_money`), and where a PDF's anchors landed (:mod:`webui.reports.pdf_pages`)."""

from __future__ import annotations

import datetime as dt
import html
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import costmodel
from store import proposals
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.reports.brand import brand
from webui.reports.doc_money import EN_UNIT_FROM, ZH_UNIT_FROM, DocumentMoney
from webui.reports.html import report_html
from webui.reports.pdf_pages import named_pages, page_objects
from webui.reports.proposal import Proposal, contents, cover, numbered, print_options

# a numbered quote as the store holds it, made on 2026-12-01 (UTC)
QUOTE = proposals.Proposal("Q-2026-0042", "星河智算 <Ltd>", "训练集群二期", "2027-01-31", "Li Wei",
                           dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC).timestamp(), "0" * 32, 1, 5,
                           "public@2025-11")


@pytest.fixture(scope="module")
def zh_doc() -> str:
    return report_html(costmodel.load_preset("seed-case2-24xA100"), "zh", "seed-case2-24xA100", "CNY", 7.1,
                       proposal=QUOTE)


def test_the_cover_reads_the_numbered_quotes_fields():
    assert Proposal.of(QUOTE) == Proposal(number="Q-2026-0042", customer="星河智算 <Ltd>", project="训练集群二期",
                                          date="2026-12-01", valid_until="2027-01-31", author="Li Wei")
    assert Proposal.of(None) == Proposal()


def test_the_cover_shows_the_quotes_fields_escaped(zh_doc):
    t = Translator("zh")
    page = zh_doc[zh_doc.index("<div class='cover'>"):zh_doc.index("<div class='toc'>")]
    for label, value in (("prop.customer", "星河智算 &lt;Ltd&gt;"), ("prop.number", "Q-2026-0042"),
                         ("prop.project", "训练集群二期"), ("prop.date", "2026-12-01"),
                         ("prop.valid", "2027-01-31"), ("prop.author", "Li Wei")):
        assert f"<td class='k'>{t(label)}</td><td>{value}</td>" in page, label
    assert html.escape(t("prop.confidential", customer=QUOTE.customer)) in page
    assert "<Ltd>" not in zh_doc
    b = brand()
    assert b.name_zh in page and b.contact.email in page and html.escape(b.footer_zh) in page


def test_absent_fields_leave_their_lines_out():
    t = Translator("en")
    page = cover(t, brand(), "T", ["setup"], Proposal(number="Q-1"), dt.date(2026, 12, 5))
    assert t("prop.number") in page and "2026-12-05" in page  # the date is always there: today's
    for absent in ("prop.customer", "prop.project", "prop.valid", "prop.author"):
        assert f">{t(absent)}<" not in page, absent
    assert html.escape(t("prop.confidential_any")) in page


def test_the_contents_link_every_section_heading_in_order(zh_doc):
    anchors = re.findall(r"<h[12] id='(sec-\d+)'", zh_doc)
    assert anchors == [f"sec-{i}" for i in range(1, len(anchors) + 1)] and len(anchors) >= 10
    toc = zh_doc[zh_doc.index("<div class='toc'>"):zh_doc.index("<div class='summary'>")]
    assert re.findall(r"data-toc='(sec-\d+)'", toc) == anchors
    t = Translator("zh")
    for heading in (t("pdf.summary"), t("prop.key_figures"), t("pdf.charts"), t("rpt.appendix"), t("bom.title")):
        assert f">{html.escape(heading)}</a>" in toc, heading


def test_numbered_keeps_a_headings_attributes_and_text():
    body, entries = numbered("<h1 class='x'>A &amp; B</h1><p>p</p><h2>C</h2><h3>D</h3>")
    assert body == "<h1 id='sec-1' class='x'>A &amp; B</h1><p>p</p><h2 id='sec-2'>C</h2><h3>D</h3>"
    assert entries == [("sec-1", 1, "A &amp; B"), ("sec-2", 2, "C")]
    assert "href='#sec-2'" in contents(Translator("en"), entries)


def test_header_and_footer_carry_the_company_the_title_and_page_numbers():
    t = Translator("zh")
    script = print_options(t, brand(), "标题 </script><script>alert(1)</script>")
    assert "</script><script>alert" not in script and script.count("</script>") == 1
    options = json.loads(re.search(r"window.__printOptions = (.*?); window.__fillToc", script).group(1))
    assert options["displayHeaderFooter"] is True and options["toc"] is True
    header = options["headerTemplate"]
    assert html.escape(brand().name_zh) in header and "标题 &lt;/script&gt;" in header
    footer = options["footerTemplate"]
    assert "第 <span class='pageNumber'></span> 页，共 <span class='totalPages'></span> 页" in footer


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), st.sampled_from(["en", "zh"]),
       st.sampled_from([0, 2]), st.booleans())
def test_money_is_written_one_way(value, lang, digits, signed):
    m = DocumentMoney("USD", "CNY", 7.1, lang=lang)
    text = m(value, digits=digits, signed=signed)
    assert m.short(value) == m(value)  # the compact form is the same text
    shown = abs(value * 7.1)
    threshold = ZH_UNIT_FROM if lang == "zh" else EN_UNIT_FROM
    if round(shown, digits) < threshold:
        assert text == Money("USD", "CNY", 7.1, lang=lang)(value, digits, signed)  # in full, with separators
    elif lang == "zh":
        number = re.fullmatch(r"[+−]?¥([\d,.]+) (万|亿)", text)
        assert number, text
        amount = float(number.group(1).replace(",", "")) * (1e4 if number.group(2) == "万" else 1e8)
        assert amount == pytest.approx(shown, rel=6e-4)  # four significant digits
    else:
        number = re.fullmatch(r"[+−]?¥([\d,]+\.\d\d) M", text)
        assert number, text
        assert float(number.group(1).replace(",", "")) * 1e6 == pytest.approx(shown, abs=5e3 + 1e-9 * shown)


def _pdf(objects: dict[int, str], root: int) -> bytes:
    return b"%PDF-1.4\n" + b"".join(f"{n} 0 obj\n{body}\nendobj\n".encode() for n, body in objects.items()) + \
        f"trailer\n<</Root {root} 0 R>>\n%%EOF".encode()


def test_named_destinations_are_found_on_their_pages_through_a_nested_page_tree():
    pdf = _pdf({1: "<</Type /Catalog /Pages 2 0 R /Dests 9 0 R>>",
                2: "<</Type /Pages /Kids [3 0 R 4 0 R] /Count 3>>",
                3: "<</Type /Pages /Kids [5 0 R 6 0 R] /Count 2>>",
                4: "<</Type /Page /Parent 2 0 R>>", 5: "<</Type /Page /Parent 3 0 R>>",
                6: "<</Type /Page /Parent 3 0 R>>",
                9: "<</sec-1 [5 0 R /XYZ 6 800 0]\n/sec-2 [4 0 R /XYZ 6 700 0] /x#2Dy [6 0 R /XYZ 0 0 0]>>"}, 1)
    assert page_objects(pdf) == [5, 6, 4]
    assert named_pages(pdf) == {"sec-1": 1, "sec-2": 3, "x-y": 2}
    assert named_pages(b"%PDF-1.4\n%%EOF") == {}
