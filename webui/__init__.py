"""Fabric TCO Planner web UI: Streamlit pages, charts, translations and display formats."""
