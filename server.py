"""The server entry point: the Streamlit app (``app.py``) plus the sign-in cookie routes.

``streamlit run server.py`` serves both (Streamlit finds the ASGI ``app`` below); ``app.py`` stays
the page script that AppTest and the pages use.
"""

import streamlit as st

from webui.auth_routes import routes
from webui.long_links import accept_long_links

accept_long_links()  # a too-long share link is answered by the page, not by a reset connection

app = st.App("app.py", routes=routes())
