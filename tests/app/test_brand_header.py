"""The app's header follows the brand folder: the logo (``st.logo``) and the company's name from
``FABRIC_TCO_ASSETS``; the shipped brand, which is the product itself, is named once."""

from __future__ import annotations

import pytest
import streamlit
from apptest_helpers import open_page
from other_brand import NAME, NAME_ZH, make

from webui.reports.brand import DEFAULT_DIR, ENV


@pytest.fixture
def logos(monkeypatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(streamlit, "logo", lambda image, **kw: shown.append(str(image)))
    return shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_mounted_brand_gives_the_header_its_logo_and_name(tmp_path, monkeypatch, logos, lang):
    folder = make(tmp_path / "brand")
    monkeypatch.setenv(ENV, str(folder))
    at = open_page("method", lang)
    assert logos and set(logos) == {str(folder / "logo.png")}
    assert at.sidebar.markdown[0].value == f"**{NAME_ZH if lang == 'zh' else NAME}**"


def test_the_shipped_brand_names_the_product_once(monkeypatch, logos):
    monkeypatch.delenv(ENV, raising=False)
    at = open_page("method", "zh")
    assert set(logos) == {str(DEFAULT_DIR / "logo.png")}
    assert at.sidebar.markdown[0].value == "### 网络架构 TCO 规划器"
