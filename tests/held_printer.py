"""A stand-in for the PDF service's Chromium printer that holds every job until released: tests of
who gets a slot in the queue, not of printing (tests/e2e/test_pdf_service.py prints for real)."""

from __future__ import annotations

import threading


class HeldPrinter:
    """Prints nothing until ``release`` is set: every job stays queued or running meanwhile."""

    launches = 0

    def __init__(self, release: threading.Event):
        self.release = release

    def print(self, document: str, on_stage=None) -> bytes:
        self.release.wait(30)
        return b"%PDF-" + document.encode()

    def close(self) -> None:
        pass
