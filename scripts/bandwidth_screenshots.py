"""Screenshots of the Method page's bandwidth-sensitivity chart for docs/validation.md.

Usage (with the app running, e.g. ``streamlit run server.py --server.port 8637``)::

    python scripts/bandwidth_screenshots.py http://127.0.0.1:8637 docs/screenshots

Writes ``method-bandwidth-<run>-<lang>.png`` for every reference run of
costmodel/data/sensitivity.yaml in English, and the default run in Chinese. Needs Playwright
and Chromium (``CHROMIUM``, default /usr/bin/chromium).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from costmodel.evidence.sensitivity import settings
from webui.i18n.translator import Translator

TIMEOUT_MS = 120_000


def _settle(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)
    page.wait_for_timeout(1500)  # let plotly finish drawing


def shoot(base: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    refs = list(settings()["references"])
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
        for lang, runs in (("en", refs), ("zh", refs[:1])):
            t = Translator(lang)
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{base}/method?lang={lang}")
            page.wait_for_selector("h1")
            _settle(page)
            for run in runs:
                box = page.get_by_label(t("sensitivity.reference"))
                if run != refs[0]:
                    box.click()
                    page.get_by_role("option", name=t(f"sensitivity.ref.{run}")).click()
                    _settle(page)
                chart = page.locator(".js-plotly-plot").first
                chart.scroll_into_view_if_needed()
                page.wait_for_timeout(500)
                path = out / f"method-bandwidth-{run}-{lang}.png"
                chart.screenshot(path=str(path))
                written.append(path)
            page.close()
        browser.close()
    return written


if __name__ == "__main__":
    for path in shoot(sys.argv[1].rstrip("/"), Path(sys.argv[2])):
        print(path)
