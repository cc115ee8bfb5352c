"""The scale-up domain on the pages: the Cluster page's field, and Compare's table of each fabric's
scale-out share of the step with its plain-words reading, in English and in Chinese without stray
English; a larger domain shows smaller shares; a domain that is no whole number of servers is refused."""

from __future__ import annotations

import re

import pytest
from apptest_helpers import go, keyed, open_page
from zh_words import latin_words

PRESET = "seed-case3-128xH100"
TITLE = {"en": "Scale-out share of step time", "zh": "横向扩展网络占步长时间比例"}
PERCENT = re.compile(r"\| ([\d\\.]+) % \|")


def _shares(at) -> list[float]:
    table = next(str(m.value) for m in at.markdown if "|" in str(m.value) and PERCENT.search(str(m.value))
                 and ("Scale-out share of step" in str(m.value) or "横向扩展占步长比例" in str(m.value)))
    return [float(x.replace("\\", "")) for x in PERCENT.findall(table)]


def _scaleout_texts(at, lang: str) -> list[str]:
    words = {"en": ("scale-out", "Scale-out", "fabric matters"), "zh": ("横向扩展", "网络影响")}[lang]
    return [str(e.value) for e in (*at.subheader, *at.caption, *at.markdown)
            if any(w in str(e.value) for w in words)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_shows_the_scale_out_share_and_a_larger_domain_lowers_it(lang):
    at = open_page("cluster", lang, p=PRESET)
    go(at, "compare")
    assert TITLE[lang] in [str(s.value) for s in at.subheader]
    servers = _shares(at)
    go(at, "cluster")
    keyed(at.number_input, "w.cluster.scaleup_domain_gpus").set_value(64).run()
    assert not at.exception
    go(at, "compare")
    domains = _shares(at)
    assert len(servers) == len(domains) >= 2
    assert all(d <= s for d, s in zip(domains, servers, strict=True)) and sum(domains) < sum(servers)
    texts = _scaleout_texts(at, lang)
    assert texts
    if lang == "zh":
        assert not {w for t in texts for w in latin_words(t)}, texts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_domain_that_is_no_whole_number_of_servers_is_refused(lang):
    at = open_page("cluster", lang, p=PRESET)
    keyed(at.number_input, "w.cluster.scaleup_domain_gpus").set_value(12).run()
    shown = " ".join(str(e.value) for e in (*at.error, *at.warning, *at.caption, *at.markdown))
    needle = {"en": "must be the 8 GPUs of a server or a multiple of them", "zh": "须等于一台服务器的 8 块 GPU"}[lang]
    assert needle in shown, shown[:2000]
