"""The Report page offers the PowerPoint deck: prepared on request in the page's language, then a
download of a .pptx whose slides are the deck's; another rate makes it stale and asks again."""

from __future__ import annotations

import io

from apptest_helpers import open_page
from pptx import Presentation

from webui.i18n.translator import Translator


def test_the_deck_is_prepared_then_offered_in_the_pages_language():
    t = Translator("zh")
    at = open_page("report", "zh", cur="CNY")
    assert "pptx_prepare" in [b.key for b in at.button]
    assert at.button(key="pptx_prepare").label == t("deck.pptx_prepare")
    at.button(key="pptx_prepare").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert "pptx_prepare" not in [b.key for b in at.button]
    (dl,) = [b for b in at.get("download_button") if b.proto.id and "dl_pptx" in b.proto.id]
    assert dl.proto.label == t("report.download")
    data = at.session_state["report_pptx"][1]
    prs = Presentation(io.BytesIO(data))
    assert 10 <= len(prs.slides) <= 14
    first = " ".join(sh.text_frame.text for sh in prs.slides[0].shapes if sh.has_text_frame)
    assert t("deck.subtitle") in first  # the page's language
    at.number_input(key="fx").set_value(1.5).run()  # another rate: the deck is stale, asked for again
    assert "pptx_prepare" in [b.key for b in at.button]
