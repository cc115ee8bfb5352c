"""The sources' Chinese descriptions (``title_zh`` in costmodel/data/references.yaml): present for
every reference, the same figures as the English ``title``, no stray English, and shown by
``labels.reference_title`` in the page's language."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pydantic import ValidationError
from zh_words import CITED, latin_words

from costmodel.catalog.loader import Reference, load_catalog
from webui.i18n import labels
from webui.i18n.translator import Translator

REFS = load_catalog().references
#: A figure: digits with optional thousands commas and decimals, then an optional magnitude
#: (万 = 1e4, k = 1e3, M = 1e6 when not the start of a unit such as MiB).
NUMBER = re.compile(r"(\d+(?:,\d{3})+|\d+(?:\.\d+)?)\s?(万|k(?![A-Za-z])|M(?![A-Za-z]))?")
SCALE = {"": 1, "万": 1e4, "k": 1e3, "M": 1e6}
HAN = re.compile(r"[\u4e00-\u9fff]")


def figures(text: str) -> Counter:
    """The numbers of ``text`` as a multiset of values (``16,384`` = ``16384``, ``24k`` = ``2.4 万``)."""
    return Counter(round(float(n.replace(",", "")) * SCALE[m or ""], 6) for n, m in NUMBER.findall(text))


def test_figures_ignore_formatting_but_not_values():
    english = figures("16,384 H100 over 54 days; 24k-GPU; 4M tokens")
    assert english == figures("16384 块 H100，54 天；2.4 万块 GPU；400 万")
    assert figures("16,384 H100") != figures("16,385 块 H100")
    assert figures("25 MiB, eta ~0.96") == figures("25 MiB，η 约 0.96") != figures("25 MiB，η 约 0.69")


@pytest.mark.parametrize("key", sorted(REFS))
def test_every_reference_has_a_chinese_title_with_the_same_figures(key):
    ref = REFS[key]
    assert ref.title_zh.strip(), f"{key}: no title_zh"
    assert figures(ref.title_zh) == figures(ref.title), (
        f"{key}: figures differ — only in title: {figures(ref.title) - figures(ref.title_zh)}, "
        f"only in title_zh: {figures(ref.title_zh) - figures(ref.title)}")


@pytest.mark.parametrize("key", sorted(REFS))
def test_chinese_titles_carry_no_stray_english(key):
    assert not latin_words(REFS[key].title_zh), latin_words(REFS[key].title_zh)


@pytest.mark.parametrize("key", sorted(k for k, r in REFS.items() if HAN.search(r.title_zh)))
def test_the_cited_names_do_not_pass_an_english_description(key):
    """Every reference with prose to translate fails the Chinese check in English, so a missing
    ``title_zh`` shows on the Chinese Assumptions page (tests/app/test_chinese.py)."""
    assert latin_words(REFS[key].title)


@pytest.mark.parametrize("name", CITED)
def test_every_allowed_cited_name_is_quoted_verbatim_by_one_reference(name):
    assert any(name in r.title and name in r.title_zh for r in REFS.values()), name


def test_reference_title_follows_the_language_and_falls_back_to_english():
    ref = REFS["llama3-2024"]
    assert labels.reference_title(Translator("zh"), ref) == ref.title_zh != ref.title
    assert labels.reference_title(Translator("en"), ref) == ref.title
    bare = Reference(kind="assumption", title="An estimate")
    assert bare.title_zh == "" and labels.reference_title(Translator("zh"), bare) == "An estimate"
    with pytest.raises(ValidationError):
        Reference(kind="assumption", title="An estimate", titel_zh="拼错")
