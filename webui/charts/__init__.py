"""Plotly figures built from plain model output and already-translated labels, one module per chart
family (costs, scale, risk, bandwidth) over their shared conventions (base). No Streamlit, nothing else of
the web UI: a chart never reads the session, the translator or the report."""
