"""The PDF report as a proposal: the branded cover, the table of contents, the running header and
footer, and the brand's colours in the report's style sheet (no Streamlit).

The quote's fields (customer, project, number, validity, author) come from the session's numbered
quote (:class:`store.proposals.Proposal`); a field that is empty leaves its line out. The page numbers
of the contents are filled in by the printer (:func:`webui.reports.cdp.print_pdf` prints once, reads
where each heading landed from the PDF's named destinations, writes the numbers in and prints again);
the header and footer are Chromium's ``headerTemplate`` / ``footerTemplate``.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webui.i18n.translator import Translator
from webui.reports.brand import Brand

if TYPE_CHECKING:
    from store.proposals import Proposal as Quote

@dataclass(frozen=True)
class Proposal:
    """The quote's fields as the cover shows them (text); an empty one is not shown."""

    number: str = ""
    customer: str = ""
    project: str = ""
    date: str = ""
    valid_until: str = ""
    author: str = ""

    @classmethod
    def of(cls, quote: Quote | None) -> Proposal:
        """The cover's fields of a numbered quote (:class:`store.proposals.Proposal`; None: a plain report,
        only the date is shown)."""
        if quote is None:
            return cls()
        made = dt.datetime.fromtimestamp(quote.created_at, dt.UTC).date().isoformat()
        return cls(number=quote.number, customer=quote.customer, project=quote.project, date=made,
                   valid_until=quote.valid_until, author=quote.author_name)


def brand_css(brand: Brand) -> str:
    """The style sheet's brand part: headings in the primary colour, rules in the secondary, the cover."""
    c = brand.colors
    return f"""
body {{ font-family: {brand.fonts.css()}; }}
h1, h2, .toc h2, .cover .title {{ color: {c.primary}; }} h2 {{ border-bottom: 1px solid {c.secondary}; }}
th {{ border-bottom: 1.5px solid {c.secondary}; }}
.cover {{ page-break-after: always; height: 240mm; display: flex; flex-direction: column; }}
.cover .logo {{ height: 22mm; width: auto; max-width: 90mm; object-fit: contain; object-position: left; }}
.cover .band {{ border-top: 3mm solid {c.primary}; border-bottom: 1mm solid {c.accent}; margin: 14mm 0 8mm;
  padding: 8mm 0 6mm; }}
.cover .title {{ font-size: 24pt; font-weight: bold; margin: 0 0 3mm; }} .cover .kind {{ font-size: 13pt; }}
.cover table {{ width: auto; min-width: 60%; }} .cover td {{ font-size: 10pt; padding: 3pt 8pt; border: none;
  border-bottom: 1px solid #d5dae0; }} .cover td.k {{ color: #667; }}
.cover .foot {{ margin-top: auto; font-size: 9pt; }} .cover .conf {{ color: {c.accent}; font-weight: bold; }}
.toc {{ page-break-after: always; }} .toc ol {{ list-style: none; padding: 0; margin: 6mm 0; }}
.toc li {{ display: flex; font-size: 11pt; margin: 0 0 3pt; }} .toc li.l1 {{ font-weight: bold; margin-top: 8pt; }}
.toc li.l2 {{ padding-left: 6mm; }} .toc a {{ color: inherit; text-decoration: none; }}
.toc .dots {{ flex: 1; border-bottom: 1px dotted #99a; margin: 0 4pt 4pt; }}
"""


def _logo(brand: Brand) -> str:
    """The brand's SVG logo as an image (a data URI: no file access, no script runs in an image)."""
    data = base64.b64encode(brand.logo_svg_path.read_bytes()).decode()
    return f"<img class='logo' src='data:image/svg+xml;base64,{data}' alt=''>"


def cover(t: Translator, brand: Brand, title: str, lines: list[str], proposal: Proposal, today: dt.date,
          warnings: list[str] | tuple[str, ...] = ()) -> str:
    """The first page: the logo and company, the title, the quote's fields that are present (the date
    always), ``warnings`` (what the site cannot hold), ``lines`` (the cluster, its racks, the price book),
    the contact and the confidentiality line."""
    e = html.escape
    rows = [(t("prop.customer"), proposal.customer), (t("prop.project"), proposal.project),
            (t("prop.number"), proposal.number), (t("prop.date"), proposal.date or today.isoformat()),
            (t("prop.valid"), proposal.valid_until), (t("prop.author"), proposal.author)]
    table = "".join(f"<tr><td class='k'>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in rows if v)
    conf = (t("prop.confidential", customer=proposal.customer) if proposal.customer
            else t("prop.confidential_any"))
    contact = " · ".join((brand.contact.email, brand.contact.phone, brand.contact.web))
    return (f"<div class='cover'>{_logo(brand)}<p><b>{e(brand.company(t.lang))}</b></p>"
            f"<div class='band'><p class='title'>{e(title)}</p><p class='kind'>{e(t('prop.kind'))}</p></div>"
            f"<table>{table}</table>" + "".join(f"<p class='warn'>{e(x)}</p>" for x in warnings)
            + "".join(f"<p class='muted'>{e(x)}</p>" for x in lines) +
            f"<div class='foot'><p>{e(t('prop.contact'))}: {e(contact)}</p><p class='conf'>{e(conf)}</p>"
            f"<p class='muted'>{e(brand.legal(t.lang))}</p></div></div>")


_HEADING = re.compile(r"<(h[12])([^>]*)>(.*?)</\1>", re.S)


def numbered(body: str) -> tuple[str, list[tuple[str, int, str]]]:
    """``body`` with an id on every ``h1``/``h2`` heading, and the headings as (id, level, escaped text)."""
    entries: list[tuple[str, int, str]] = []

    def tag(m: re.Match) -> str:
        anchor = f"sec-{len(entries) + 1}"
        entries.append((anchor, int(m.group(1)[1]), re.sub(r"<[^>]+>", "", m.group(3))))
        return f"<{m.group(1)} id='{anchor}'{m.group(2)}>{m.group(3)}</{m.group(1)}>"

    return _HEADING.sub(tag, body), entries


def contents(t: Translator, entries: list[tuple[str, int, str]]) -> str:
    """The table of contents: each heading a link to it, its page number filled in by the printer."""
    items = "".join(f"<li class='l{level}'><a href='#{anchor}'>{text}</a><span class='dots'></span>"
                    f"<a href='#{anchor}' data-toc='{anchor}'></a></li>" for anchor, level, text in entries)
    return f"<div class='toc'><h2>{html.escape(t('prop.toc'))}</h2><ol>{items}</ol></div>"


FILL_TOC_JS = ("window.__fillToc = (pages) => { for (const a of document.querySelectorAll('[data-toc]')) "
               "{ a.textContent = pages[a.dataset.toc] ?? ''; } };")


def print_options(t: Translator, brand: Brand, title: str) -> str:
    """A script setting ``window.__printOptions``: the running header (company, title) and footer
    (confidentiality, page n of total) of every page, and the request to fill in the contents."""
    e = html.escape
    style = f"font-family: {brand.fonts.css()}; font-size: 7.5pt; color: #667; width: 100%; margin: 0 14mm;"
    header = (f"<div style='{e(style)} display: flex; border-bottom: 0.5pt solid {brand.colors.secondary};"
              f" padding-bottom: 2pt;'><span style='color: {brand.colors.primary}; font-weight: bold;'>"
              f"{e(brand.company(t.lang))}</span><span style='flex: 1'></span><span>{e(title)}</span></div>")
    page = e(t("prop.page", n="\0", total="\1")).replace("\0", "<span class='pageNumber'></span>") \
        .replace("\1", "<span class='totalPages'></span>")
    footer = (f"<div style='{e(style)} display: flex;'><span>{e(t('prop.confidential_any'))}</span>"
              f"<span style='flex: 1'></span><span>{page}</span></div>")
    options = {"displayHeaderFooter": True, "headerTemplate": header, "footerTemplate": footer, "toc": True}
    data = json.dumps(options, ensure_ascii=True).replace("<", "\\u003c")
    return f"<script>window.__printOptions = {data}; {FILL_TOC_JS}</script>"
