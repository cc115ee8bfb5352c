"""Websocket handshakes sent byte for byte with a chosen ``Origin`` and ``Host``, as a page of another
origin makes its browser send them: the probes of the exact-origin tests (tests/e2e/test_origin.py,
tests/e2e/test_deploy.py, tests/image/test_image.py)."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import os
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a thread of its own (Playwright's sync API holds this thread's loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def refused_origins(port: int) -> dict[str, str]:
    """The origins of the review's probes, for a server on 127.0.0.1:``port``."""
    return {"other port": f"http://127.0.0.1:{port + 1}", "other scheme": f"https://127.0.0.1:{port}",
            "other scheme, default port": "https://127.0.0.1", "localhost alias": f"http://localhost:{port}",
            "localhost, other port": "http://localhost:9999", "foreign host": "http://evil.example"}


async def handshake(base: str, origin: str, cookie: str = "", host: str | None = None,
                    headers: dict[str, str] | None = None) -> int:
    """The HTTP status of a websocket handshake at ``/_stcore/stream`` (101 = accepted), sent byte for
    byte with ``Origin`` and ``Host`` (default: the server's address) as a browser sends them."""
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        head = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host or parts.netloc}\r\nOrigin: {origin}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                "Sec-WebSocket-Protocol: streamlit, PLACEHOLDER_AUTH_TOKEN\r\n"
                + (f"Cookie: {cookie}\r\n" if cookie else "")
                + "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items()) + "\r\n")
        writer.write(head.encode("latin-1"))
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 20)
        return int(status.split()[1])
    finally:
        writer.close()
