"""LibreOffice Calc as the judge of our workbooks: recalculate them headless and read every number
it saved (Debian ``libreoffice-calc``; missing → skip, or fail under CI=true, see need.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import openpyxl
from need import soffice

#: a user profile that makes Calc recalculate every formula on load (never trust cached values)
RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


def libreoffice_values(paths: list[Path], work: Path) -> dict[Path, dict[str, float]]:
    """Recalculate ``paths`` with headless LibreOffice (scratch files under ``work``); by workbook,
    every numeric cell it saved as ``SHEET!A1`` → value."""
    exe = soffice()
    profile = work / "profile"
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS, encoding="utf-8")
    out = work / "recalculated"
    subprocess.run([exe, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
                    "--convert-to", "xlsx", "--outdir", str(out), *map(str, paths)],
                   check=True, capture_output=True, timeout=300)
    values = {}
    for p in paths:
        book = openpyxl.load_workbook(out / p.name, data_only=True)
        values[p] = {f"{ws.title}!{c.coordinate}".upper(): c.value
                     for ws in book.worksheets for row in ws.iter_rows() for c in row
                     if isinstance(c.value, int | float)}
    return values
