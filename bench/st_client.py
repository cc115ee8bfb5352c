"""A Streamlit client without a browser: one browser tab's side of Streamlit's websocket protocol.

What a browser tab does, and what :class:`Session` does in its place (checked against the
installed Streamlit 1.67: ``web/server/starlette/starlette_websocket.py``, ``runtime/app_session.py``
and the frontend bundle ``static/static/js/index.*.js``):

1. ``GET /<page>?<query>`` (through nginx this sets the ``fabric_route`` cookie that pins the tab
   to one replica), then ``GET /_stcore/health`` (sets ``_streamlit_xsrf``) and
   ``GET /_stcore/host-config``; every request carries the cookies received so far.
2. A websocket at ``/_stcore/stream`` with the subprotocols ``["streamlit", <xsrf cookie>]``
   (the frontend's ``new WebSocket(uri, ["streamlit", xsrf ?? "PLACEHOLDER_AUTH_TOKEN"])``), the
   cookies and a same-origin ``Origin`` header.
3. A ``BackMsg.rerun_script`` (``ClientState``): the query string, ``page_name`` from the URL path on
   the first run, then ``page_script_hash`` (from the ``navigation`` ForwardMsg) for page changes
   and widget changes, the widget states, ``context_info`` (timezone, locale, URL) and the
   hashes of the ForwardMsgs it has cached.
4. ForwardMsgs until the run's ``script_finished``: each run starts with ``new_session`` (what
   comes before it, e.g. ``session_status_changed``, is the tail of the previous run); deltas
   carry the elements (a widget's ``id`` ends with ``-<key>`` for a keyed widget); the server
   writes ``st.query_params`` changes as ``page_info_changed``, which the next rerun sends back.
   A page change keeps only the query params of widgets bound with ``bind="query-params"`` and
   the states of sidebar widgets, as the frontend's ``onPageChange`` does.

ForwardMsg caching is handled like the frontend does it: a message with ``metadata.cacheable``
is kept, its hash is listed in ``cached_message_hashes`` of later reruns, the server then sends a
``ref_hash`` instead, and entries unused for ``maxCachedMessageAge`` runs are dropped.

Not identical to a browser (documented for the load bench):

* widget states: the browser sends the state of every widget on the page in each rerun (set on
  mount); this client sends only the widgets it changed (still on the page). The server keeps
  the others' values either way (``SessionState._compact_state``), so the runs are the same, the
  BackMsgs are smaller.
* no static assets (JS, CSS, fonts), no rendering, no ``app_heartbeat`` messages, no websocket
  reconnects, no think time of its own (the caller waits); the client offers permessage-deflate
  like a browser (Streamlit's server declines it).
* the client is sequential per session: one rerun at a time, never one that interrupts a run in
  progress (a browser can send a rerun mid-run; the server then stops the old run early).

Usage::

    s = Session("http://127.0.0.1:8080")
    run = await s.open("cluster", "lang=en&cur=USD")
    run = await s.set_number("w.cluster.nodes", 48)  # the run after the change
    run = await s.goto("compare")
    run.metrics  # [(label, value), ...]
    await s.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

SIDEBAR = 1  # delta_path[0]: 0 = main area, 1 = sidebar (RootContainer)
ALERT_ERROR = 1  # Alert.Format.ERROR


class ProtocolError(Exception):
    """A run that did not finish cleanly: timeout, closed socket, compile error, missing page."""


@dataclass
class Run:
    """What one script run sent: its elements, the KPI cards, errors, timing."""

    seconds: float = 0.0
    status: int | None = None  # ForwardMsg.ScriptFinishedStatus
    page_hash: str = ""
    elements: list[tuple[tuple[int, ...], Element]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # exceptions and st.error alerts in the deltas
    messages: int = 0
    bytes: int = 0
    cache_hits: int = 0

    @property
    def metrics(self) -> list[tuple[str, str]]:
        """``(label, value)`` of every ``st.metric`` in delta order."""
        return [(el.metric.label, el.metric.body) for _, el in self.elements if el.WhichOneof("type") == "metric"]

    def widget(self, key: str) -> Element | None:
        """The element of the keyed widget ``key`` in this run, or None."""
        for _, el in self.elements:
            kind = el.WhichOneof("type")
            wid = getattr(getattr(el, kind), "id", "") if kind else ""
            if isinstance(wid, str) and wid.endswith("-" + key):
                return el
        return None

    @property
    def ok(self) -> bool:
        return self.status == ForwardMsg.FINISHED_SUCCESSFULLY and not self.errors


class Session:
    """One browser tab: cookies, a websocket, the current page and query string, a message cache."""

    def __init__(self, base: str, *, timeout: float = 30.0, locale: str = "en-US", timezone: str = "UTC",
                 origin: str | None = None):
        parts = urlsplit(base)
        self.base = base.rstrip("/")
        self.origin = origin or self.base  # the Origin header of the websocket handshake (a page's origin)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.netloc = parts.netloc
        self.timeout = timeout
        self.locale, self.timezone = locale, timezone
        self.cookies: dict[str, str] = {}
        self.ws = None
        self.session_id = ""
        self.path = ""  # URL path of the current page, e.g. "cluster" ("" = the default page)
        self.query = ""
        self.pages: dict[str, str] = {}  # url_pathname → page_script_hash
        self.page_names: dict[str, str] = {}  # lower-case title → url_pathname
        self.page_hash = ""
        self.bound_params: set[str] = set()  # query-param keys of widgets bound with bind="query-params"
        self.widget_states: dict[str, tuple[WidgetState, bool]] = {}  # id → (state, in the sidebar)
        self._cache: dict[str, list] = {}  # hash → [ForwardMsg, script run count when last used]
        self._runs = 0
        self._max_age = 2  # global.maxCachedMessageAge; new_session carries the server's value
        self.last: Run | None = None  # the last run: the elements the page shows now

    # --- HTTP, as the page load before the websocket

    async def _get(self, target: str) -> int:
        """``GET target`` with the cookies so far; remember Set-Cookie; the status code."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            head = f"GET {target} HTTP/1.1\r\nHost: {self.netloc}\r\nUser-Agent: st_client\r\n"
            head += f"Cookie: {cookie}\r\n" if cookie else ""
            writer.write((head + "Accept: */*\r\nConnection: close\r\n\r\n").encode("latin-1"))
            await writer.drain()
            raw = await reader.read()  # Connection: close → until EOF
        finally:
            writer.close()
        header = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        status = int(header[0].split()[1])
        for line in header[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "set-cookie":
                k, _, v = value.strip().split(";", 1)[0].partition("=")
                self.cookies[k.strip()] = v.strip()
        return status

    # --- the session

    async def open(self, path: str = "", query: str = "") -> Run:
        """Load the page ``/<path>?<query>`` like a browser and wait for its first run."""
        self.path, self.query = path.strip("/"), query
        async with asyncio.timeout(self.timeout):
            target = f"/{self.path}" + (f"?{query}" if query else "")
            for url in (target, "/_stcore/health", "/_stcore/host-config"):
                status = await self._get(url)
                if status != 200:
                    raise ProtocolError(f"GET {url}: HTTP {status}")
            xsrf = self.cookies.get("_streamlit_xsrf") or "PLACEHOLDER_AUTH_TOKEN"
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            ws_base = self.base.replace("http", "ws", 1)
            self.ws = await connect(f"{ws_base}/_stcore/stream", subprotocols=["streamlit", xsrf],
                                    origin=self.origin, additional_headers={"Cookie": cookie},
                                    max_size=None, ping_interval=None, user_agent_header="st_client")
        if self.ws.subprotocol != "streamlit":
            raise ProtocolError(f"server chose subprotocol {self.ws.subprotocol!r}")
        return await self.rerun(page_name=self.path)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def set_number(self, key: str, value: float) -> Run:
        """Type ``value`` into the number input with key ``key`` on the current page."""
        run = self.last
        el = run.widget(key) if run else None
        if el is None or el.WhichOneof("type") != "number_input":
            raise ProtocolError(f"no number input with key {key!r} on this page")
        ni = el.number_input
        state = WidgetState(id=ni.id)
        if ni.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
        sidebar = next(p for p, e in run.elements if e is el)[0] == SIDEBAR
        self.widget_states[ni.id] = (state, sidebar)
        return await self.rerun()

    async def goto(self, path: str) -> Run:
        """Follow the navigation link to the page with URL path ``path`` ("" = the default page) or,
        failing that, with title ``path`` (case-insensitive, e.g. "compare" for the default page)."""
        path = path if path in self.pages else self.page_names.get(path.lower(), path)
        if path not in self.pages:
            raise ProtocolError(f"no page {path!r}; pages: {sorted(self.pages)}")
        # the frontend keeps only the query params of bound widgets and the widgets in the sidebar
        self.query = urlencode([(k, v) for k, v in parse_qsl(self.query, keep_blank_values=True)
                                if k in self.bound_params])
        self.widget_states = {k: v for k, v in self.widget_states.items() if v[1]}
        self.path = path
        return await self.rerun(page_hash=self.pages[path])

    async def rerun(self, *, page_hash: str | None = None, page_name: str = "") -> Run:
        """Send ``rerun_script`` with the current state and collect the run until ``script_finished``."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash if page_hash is None else page_hash
        cs.page_name = page_name if not cs.page_script_hash else ""
        cs.widget_states.widgets.extend(state for state, _ in self.widget_states.values())
        cs.cached_message_hashes.extend(self._cache)
        ctx = cs.context_info
        ctx.timezone, ctx.timezone_offset, ctx.locale = self.timezone, 0, self.locale
        ctx.url = f"{self.base}/{self.path}" + (f"?{self.query}" if self.query else "")
        ctx.is_embedded, ctx.color_scheme = False, "light"
        run = Run()
        t0 = time.perf_counter()
        try:
            await self.ws.send(msg.SerializeToString())
            async with asyncio.timeout(self.timeout):
                await self._receive(run)
        except TimeoutError:
            raise ProtocolError(f"no script_finished within {self.timeout:g} s") from None
        except ConnectionClosed as exc:
            raise ProtocolError(f"websocket closed: {exc}") from None
        run.seconds = time.perf_counter() - t0
        self._end_run(run)
        self.last = run
        if run.status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
            raise ProtocolError("script finished with a compile error: " + "; ".join(run.errors))
        return run

    async def _receive(self, run: Run) -> None:
        started = False  # messages before this run's new_session are the tail of the previous run
        while True:
            data = await self.ws.recv()
            run.messages += 1
            run.bytes += len(data)
            fmsg = ForwardMsg()
            fmsg.ParseFromString(data)
            kind = fmsg.WhichOneof("type")
            if kind == "ref_hash":
                entry = self._cache.get(fmsg.ref_hash)
                if entry is None:
                    raise ProtocolError(f"cache miss for ref_hash {fmsg.ref_hash}")
                entry[1] = self._runs
                metadata = fmsg.metadata
                fmsg = ForwardMsg()
                fmsg.CopyFrom(entry[0])
                fmsg.metadata.CopyFrom(metadata)
                kind = fmsg.WhichOneof("type")
                run.cache_hits += 1
            elif fmsg.metadata.cacheable:
                self._cache[fmsg.hash] = [fmsg, self._runs]
            if kind == "new_session":
                started = True
                ns = fmsg.new_session
                self.session_id = ns.initialize.session_id or self.session_id
                self.page_hash = run.page_hash = ns.page_script_hash
                if ns.config.max_cached_message_age:
                    self._max_age = ns.config.max_cached_message_age
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fmsg.navigation.app_pages}
                self.page_names = {p.page_name.lower(): p.url_pathname for p in fmsg.navigation.app_pages}
                self.page_hash = run.page_hash = fmsg.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query = fmsg.page_info_changed.query_string
            elif kind == "page_not_found":
                run.errors.append(f"page not found: {fmsg.page_not_found.page_name!r}")
            elif kind == "session_event" and fmsg.session_event.HasField("script_compilation_exception"):
                exc = fmsg.session_event.script_compilation_exception
                run.errors.append(f"{exc.type}: {exc.message}")
            elif kind == "delta" and fmsg.delta.WhichOneof("type") == "new_element":
                self._element(run, tuple(fmsg.metadata.delta_path), fmsg.delta.new_element)
            elif kind == "script_finished" and started:
                run.status = fmsg.script_finished
                if run.status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    run.errors.append("run stopped early for another rerun")
                if run.status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    # the compile exception follows the script_finished message
                    fmsg = ForwardMsg()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(2):
                            fmsg.ParseFromString(await self.ws.recv())
                    if fmsg.WhichOneof("type") == "session_event":
                        exc = fmsg.session_event.script_compilation_exception
                        run.errors.append(f"{exc.type}: {exc.message}")
                return

    def _element(self, run: Run, path: tuple[int, ...], el: Element) -> None:
        run.elements.append((path, el))
        kind = el.WhichOneof("type")
        if kind == "exception":
            run.errors.append(f"exception {el.exception.type}: {el.exception.message}")
        elif kind == "alert" and el.alert.format == ALERT_ERROR:
            run.errors.append(f"st.error: {el.alert.body}")
        elif kind:
            key = getattr(getattr(el, kind), "query_param_key", "")
            if isinstance(key, str) and key:
                self.bound_params.add(key)

    def _end_run(self, run: Run) -> None:
        """After a run: forget stale cache entries and states of widgets no longer on the page."""
        self._runs += 1
        self._cache = {h: e for h, e in self._cache.items() if self._runs - e[1] <= self._max_age}
        on_page = set()
        for _, el in run.elements:
            kind = el.WhichOneof("type")
            wid = getattr(getattr(el, kind), "id", "") if kind else ""
            if isinstance(wid, str) and wid:
                on_page.add(wid)
        self.widget_states = {k: v for k, v in self.widget_states.items() if k in on_page}
