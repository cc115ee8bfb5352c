"""What pages show of the results with Streamlit: Compare's KPI cards and detail panels (bill of
materials, own vs rent, tax and carbon, specifications, reliability, the same work), lazy tabs, the
Method page's data and the Scenarios page's side-by-side difference. Rows come from :mod:`webui.sections`."""
