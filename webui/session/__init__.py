"""The person's session: the scenario in Streamlit's session state and its single writer, the store and who
is signed in, share links and their older formats, titles, quotes, one-shot notices, widget keys, and the
HTTP routes and guards beside Streamlit (sign-in cookie, exact origin, long links). Uses i18n only."""
