"""Another brand folder for tests: the shipped ``assets/`` with another company, other colours and
another logo (SVG and PNG), as a deployment would mount it (``FABRIC_TCO_ASSETS``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PIL import Image, ImageDraw

from webui.reports.brand import DEFAULT_DIR

NAME, NAME_ZH = "Acme Networks", "艾克姆网络"
COLORS = {"primary": "#7A1F5C", "secondary": "#2E8B57", "accent": "#D4A017"}
SHIPPED = {"primary": "#1F4E79", "secondary": "#5B7A99", "accent": "#E07A1F"}
LOGO_WORD = "ACMELOGO"  # the SVG logo's text, which the PDF carries as text


def make(folder: Path) -> Path:
    """``folder`` filled with the other brand; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in DEFAULT_DIR.iterdir():
        shutil.copy(f, folder / f.name)
    doc = (folder / "brand.yaml").read_text(encoding="utf-8")
    doc = doc.replace("name: Fabric TCO Planner", f"name: {NAME}").replace("name_zh: 网络架构 TCO 规划器",
                                                                            f"name_zh: {NAME_ZH}")
    for key, colour in COLORS.items():
        doc = doc.replace(SHIPPED[key], colour)
    assert NAME in doc and NAME_ZH in doc and all(c in doc for c in COLORS.values())
    (folder / "brand.yaml").write_text(doc, encoding="utf-8")
    (folder / "logo.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120" viewBox="0 0 480 120">'
        f'<rect x="8" y="16" width="88" height="88" fill="{COLORS["primary"]}"/><text x="112" y="72" '
        f'font-family="DejaVu Sans" font-size="40" fill="{COLORS["primary"]}">{LOGO_WORD}</text></svg>',
        encoding="utf-8")
    image = Image.new("RGB", (480, 120), "white")
    ImageDraw.Draw(image).rectangle([8, 16, 96, 104], fill=COLORS["primary"])
    image.save(folder / "logo.png")
    return folder
