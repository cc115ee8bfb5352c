"""The server entry point: the Streamlit app (``app.py``) plus the sign-in cookie routes.

``streamlit run server.py`` serves both, behind the exact-origin check of
:mod:`webui.session.origin_guard` (Streamlit finds the ASGI ``app`` below); ``app.py`` stays
the page script that AppTest and the pages use.
"""

import streamlit as st
from starlette.middleware import Middleware

from webui.session.auth_routes import routes
from webui.session.long_links import accept_long_links
from webui.session.origin_guard import OriginGuard, configured

accept_long_links()  # a too-long share link is answered by the page, not by a reset connection

# read once at start, so a malformed FABRIC_TCO_ORIGINS stops the server with its message; the check
# runs before Streamlit's own middleware and before any websocket is accepted
app = st.App("app.py", routes=routes(), middleware=[Middleware(OriginGuard, origins=configured())])
