"""Screenshots of the Serving page (推理服务), in Chinese and English.

Usage (with the app running, e.g. ``streamlit run server.py --server.port 18302``)::

    python scripts/serving_screenshots.py http://127.0.0.1:18302 docs/screenshots

The scenario is the ``serving-deepseek-v3-h800`` preset (DeepSeek-V3 on 32 H800 servers, FP8,
prefill and decode apart; InfiniBand, RoCE and domestic RoCE). Writes ``serving-{zh,en}.png``: the
whole page at a 1500-px-wide viewport, as a palette PNG (scripts/compare_screenshots.py). Needs
Playwright and Chromium (``CHROMIUM``, default /usr/bin/chromium).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_screenshots import launch, shoot_page

from costmodel.scenario.presets import load_preset
from webui.session import share

PRESET = "serving-deepseek-v3-h800"


def shoot(base: str, out: Path, langs=("zh", "en")) -> list[Path]:
    """The page in each of ``langs`` (CNY in Chinese, USD in English) into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    token = share.encode(load_preset(PRESET), PRESET)
    written = []
    with sync_playwright() as p:
        browser = launch(p)
        for lang in langs:
            cur = "CNY" if lang == "zh" else "USD"
            written.append(shoot_page(browser, f"{base}/serving?p={PRESET}&s={token}&lang={lang}&cur={cur}", lang, 1,
                                      out / f"serving-{lang}.png"))
        browser.close()
    return written


if __name__ == "__main__":
    for path in shoot(sys.argv[1].rstrip("/"), Path(sys.argv[2])):
        print(path)
