"""A test dependency that is missing: skip on a developer machine, FAIL when ``CI=true`` — so CI
can never pass without having run the tests that need Chromium, PostgreSQL, nginx or checkov."""

from __future__ import annotations

import os

import pytest


def missing(what: str) -> None:
    """Skip the test (fail it under CI=true) because ``what`` is not installed."""
    if os.environ.get("CI") == "true":
        pytest.fail(what + " (CI=true: failing, not skipping)")
    pytest.skip(what)


def soffice() -> str:
    """Path of LibreOffice's ``soffice`` (Debian ``libreoffice-calc``), or skip (fail under CI=true)."""
    import shutil

    path = shutil.which("soffice") or shutil.which("libreoffice")
    if path is None:
        missing("LibreOffice (soffice) is not installed: Debian package libreoffice-calc "
                "(scripts/system-deps.sh installs it)")
    return path
