"""The PDF report: its HTML (cover, summary, charts, sections, assumptions, method), the training section,
and the printer — one Chromium per server process driven over its DevTools pipe (cdp), a bounded job
queue (pdf_service, limits in pdf_service.yaml) and the text layer's real characters (pdf_text)."""
