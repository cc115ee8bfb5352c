"""Fabric TCO Planner web UI: what the Streamlit pages (``app_pages/``) are built from.

Packages, highest first (one-way imports, checked by import-linter): ``reports`` (the PDF) and ``panels``
(results on a page); ``inputs`` (what a person types) and ``sections`` (rows shared by page and PDF);
``session`` (state, store, links, HTTP guards); ``i18n`` (words and numbers) and ``charts`` (Plotly
figures). Beside them: ``compute`` (cached model calls) and ``cli`` (``python -m webui.cli``)."""
