"""Screenshots of the Compare page with 4, 8 and 12 fabrics, in Chinese and English.

Usage (with the app running, e.g. ``streamlit run server.py --server.port 18301``)::

    python scripts/compare_screenshots.py http://127.0.0.1:18301 docs/screenshots

The scenario is the article's introduction preset set to 64 × H100 (the session of a customer who
"selects all"), with the first 4, 8 or all catalog fabrics. Writes
``compare-{4,8,12}-fabrics-{zh,en}.png``: the whole page at a 1500-px-wide viewport (as
tests/browser_helpers.py), as a palette PNG to stay small. Needs Playwright and Chromium
(``CHROMIUM``, default /usr/bin/chromium).
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from costmodel.catalog.loader import load_catalog
from webui.session import share

TIMEOUT_MS = 180_000
PRESET = "seed-intro-32xA100"
COUNTS = (4, 8, 12)
CHARTS = 3  # plotly charts on Compare above its details tabs
#: the fabrics in the order a sales engineer would add them: the baseline, then one of each family
ORDER = ("tcp-100", "roce-400", "ib-ndr-400", "iwarp-100", "roce-100", "roce-200", "ib-hdr-200", "tcp-400")


def scenario_token(n: int) -> str:
    """The share token of the preset at 64 × H100 with ``n`` fabrics (TCP 100G the baseline)."""
    ids = list(load_catalog().fabrics)
    first = [f for f in ORDER if f in ids]
    chosen = (first + [f for f in ids if f not in first])[:n]
    s = share.preset_scenario(PRESET)
    s = s.model_copy(update={"cluster": s.cluster.model_copy(update={"gpu": "h100", "nodes": 64})})
    s = s.model_copy(update={"fabrics": chosen, "baseline": chosen[0]})
    return share.encode(type(s).model_validate(s.model_dump()), PRESET)


def _settle(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)
    page.wait_for_timeout(2500)  # let plotly finish drawing


def _small_png(png: bytes, path: Path) -> None:
    """Save ``png`` as a 256-colour palette PNG (a third of the size, text stays sharp)."""
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(png)
        return
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    img.save(path, optimize=True)


def launch(p):
    """Debian's Chromium (``CHROMIUM``, default /usr/bin/chromium), headless, for screenshots."""
    return p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                             args=["--no-sandbox", "--disable-gpu"])


def shoot_page(browser, url: str, lang: str, charts: int, path: Path) -> Path:
    """The whole page at ``url`` (``lang``: the browser's locale) once ``charts`` Plotly charts are drawn,
    as a 1500-px-wide palette PNG at ``path``."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1200}, locale="zh-CN" if lang == "zh" else "en-US")
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.wait_for_selector("h1")
    _settle(page)
    # Streamlit scrolls its main block, not the document: grow the viewport to the page
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
                           ".getBoundingClientRect().height + 150")
    page.set_viewport_size({"width": 1500, "height": min(max(int(height) + 40, 900), 12000)})
    # every chart drawn, then a moment for their text
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length >= {charts}",
                           timeout=TIMEOUT_MS)
    page.wait_for_timeout(1500)
    _small_png(page.screenshot(), path)
    ctx.close()
    return path


def shoot(base: str, out: Path, counts=COUNTS, langs=("zh", "en")) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = launch(p)
        for n in counts:
            token = scenario_token(n)
            for lang in langs:
                cur = "CNY" if lang == "zh" else "USD"
                written.append(shoot_page(browser, f"{base}/?p={PRESET}&s={token}&lang={lang}&cur={cur}", lang,
                                          CHARTS, out / f"compare-{n}-fabrics-{lang}.png"))
        browser.close()
    return written


if __name__ == "__main__":
    for path in shoot(sys.argv[1].rstrip("/"), Path(sys.argv[2])):
        print(path)
