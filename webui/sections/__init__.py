"""Result sections shown both on a page and in the PDF report: their rows and words (bill of materials,
own vs rent, after tax and carbon, reliability, the same work and its risk, Compare's notes), plus the
HTML section the report prints. No Streamlit here, so the report builds without it."""
