"""Replacing the brand folder (``FABRIC_TCO_ASSETS``) changes the app's theme, the PDF report and the
deck; the shipped theme in ``.streamlit/config.toml`` is the shipped brand's."""

from __future__ import annotations

import base64
import io
import json
import re
import tomllib
from pathlib import Path

import pytest
from other_brand import COLORS, NAME, NAME_ZH, SHIPPED, make
from pptx import Presentation

import costmodel
from webui.reports import brand as brand_module
from webui.reports.brand import ENV, THEME, brand, brand_or_default, theme_flags

ROOT = Path(__file__).resolve().parents[2]
PRESET = "seed-case2-24xA100"


@pytest.fixture
def other(tmp_path, monkeypatch) -> Path:
    folder = make(tmp_path / "brand")
    monkeypatch.setenv(ENV, str(folder))
    return folder


def test_the_shipped_theme_is_the_shipped_brands():
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
    shipped = brand_module.load_brand(brand_module.DEFAULT_DIR)
    for option, colour in THEME.items():
        assert theme[option.removeprefix("theme.")] == getattr(shipped.colors, colour) == SHIPPED[colour]


def test_the_start_script_gets_the_mounted_brands_colours(other, capsys):
    assert brand_module.main(["--theme-flags"]) == 0
    flags = capsys.readouterr().out.split()
    assert flags == theme_flags(brand()) == ["--theme.primaryColor=" + COLORS["primary"],
                                             "--theme.linkColor=" + COLORS["primary"]]
    assert "-m webui.reports.brand --theme-flags)" in (ROOT / "scripts" / "serve.sh").read_text(encoding="utf-8")


def test_a_broken_brand_stops_the_start_with_its_field_named(other, capsys):
    (other / "brand.yaml").write_text((other / "brand.yaml").read_text(encoding="utf-8")
                                      .replace(COLORS["accent"], "gold"), encoding="utf-8")
    brand_module._cached.cache_clear()
    assert brand_module.main(["--theme-flags"]) == 2
    assert "colors.accent" in capsys.readouterr().err
    assert brand_or_default().name == "Fabric TCO Planner"  # the app itself still runs, in the shipped brand
    brand_module._cached.cache_clear()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pdf_takes_the_mounted_brand(other, lang):
    from webui.reports.html import report_html

    doc = report_html(costmodel.load_preset(PRESET), lang, PRESET)
    logo = base64.b64encode((other / "logo.svg").read_bytes()).decode()
    shipped_logo = base64.b64encode((brand_module.DEFAULT_DIR / "logo.svg").read_bytes()).decode()
    assert logo in doc and shipped_logo not in doc
    assert f"color: {COLORS['primary']}" in doc and SHIPPED["primary"] not in doc
    name = NAME_ZH if lang == "zh" else NAME
    cover_page = doc[doc.index("<div class='cover'>"):doc.index("<div class='toc'>")]
    assert f"<b>{name}</b>" in cover_page
    options = json.loads(re.search(r"window.__printOptions = (.*?); window.__fillToc", doc).group(1))
    assert f">{name}</span>" in options["headerTemplate"]  # the running header of every page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_deck_takes_the_mounted_brand(other, lang):
    from webui.reports.deck import deck_bytes

    prs = Presentation(io.BytesIO(deck_bytes(costmodel.load_preset(PRESET), lang, PRESET)))
    assert prs.core_properties.author == (NAME_ZH if lang == "zh" else NAME)
    logo = (other / "logo.png").read_bytes()
    pictures = [s.image.blob for slide in prs.slides for s in slide.shapes if s.shape_type == 13]
    assert pictures and all(p == logo for p in pictures)
    title = prs.slides[1].shapes[0].text_frame.paragraphs[0].runs[0].font.color.rgb
    assert str(title) == COLORS["primary"].lstrip("#")


def test_compose_and_kubernetes_mount_a_brand_folder_where_the_app_looks():
    import yaml

    app = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text(encoding="utf-8"))["services"]["app"]
    target = app["environment"][ENV]
    [mount] = [v for v in app["volumes"] if v["target"] == target]
    assert mount["read_only"] is True and mount["source"] == "${BRAND_DIR:-../assets}"
    k8s = ROOT / "deploy" / "k8s"
    spec = yaml.safe_load((k8s / "deployment.yaml").read_text(encoding="utf-8"))["spec"]["template"]["spec"]
    [container] = spec["containers"]
    [path] = [e["value"] for e in container["env"] if e["name"] == ENV]
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == path]
    [volume] = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    [generated] = yaml.safe_load((k8s / "kustomization.yaml").read_text(encoding="utf-8"))["configMapGenerator"]
    assert volume["configMap"]["name"] == generated["name"]
    for file in generated["files"]:  # the shipped brand, the same files as assets/
        assert (k8s / file).read_bytes() == (brand_module.DEFAULT_DIR / Path(file).name).read_bytes(), file
    assert brand_module.load_brand(k8s / "brand").name == brand_module.load_brand().name


def test_the_pdfs_cjk_font_is_named_by_the_brand_and_installed_by_debian(other):
    from need import missing

    from webui.reports.html import report_html

    fonts = brand().fonts
    assert fonts.css().startswith(f'"{fonts.cjk}"')
    doc = report_html(costmodel.load_preset(PRESET), "zh", PRESET)
    assert f"font-family: {fonts.css()}" in doc  # the page and its running header and footer
    if not Path(fonts.cjk_file).is_file():
        missing(f"the CJK font {fonts.cjk_file} (Debian's fonts-noto-cjk)")
    assert Path(fonts.cjk_file).name.startswith(fonts.cjk.replace(" ", "").removesuffix("SC"))
