"""Words and numbers as people read them: the translator over the locale catalogs (``locales/{en,zh}``),
translated labels and refusals, money in the display currency, durations, bounds, layouts, safe Markdown
and Streamlit's own texts. The lowest layer of the web UI beside the charts: it imports nothing else of it."""
