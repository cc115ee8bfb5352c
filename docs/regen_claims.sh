#!/usr/bin/env bash
# Regenerate the claims table embedded in docs/validation.md from the model.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
table=$("$py" -m costmodel claims --format markdown)
"$py" - "$table" <<'PY'
import sys, pathlib
p = pathlib.Path("docs/validation.md")
doc = p.read_text(encoding="utf-8")
head, rest = doc.split("<!-- claims:begin -->\n", 1)
_, tail = rest.split("<!-- claims:end -->", 1)
p.write_text(head + "<!-- claims:begin -->\n" + sys.argv[1] + "\n<!-- claims:end -->" + tail, encoding="utf-8")
PY
# ... and the training-time table (costmodel.evidence.runs), between <!-- runs:begin --> and <!-- runs:end -->
"$py" - <<'PY'
import pathlib
from costmodel.evidence import runs
p = pathlib.Path("docs/validation.md")
doc = p.read_text(encoding="utf-8")
head, rest = doc.split("<!-- runs:begin -->\n", 1)
_, tail = rest.split("<!-- runs:end -->", 1)
p.write_text(head + "<!-- runs:begin -->\n" + runs.markdown() + "\n<!-- runs:end -->" + tail, encoding="utf-8")
PY
# ... and the bandwidth-sensitivity table (costmodel.evidence.sensitivity), between <!-- sensitivity:begin --> and <!-- sensitivity:end -->
"$py" - <<'PY'
import pathlib
from costmodel.evidence import sensitivity
p = pathlib.Path("docs/validation.md")
doc = p.read_text(encoding="utf-8")
head, rest = doc.split("<!-- sensitivity:begin -->\n", 1)
_, tail = rest.split("<!-- sensitivity:end -->", 1)
p.write_text(head + "<!-- sensitivity:begin -->\n" + sensitivity.markdown() + "\n<!-- sensitivity:end -->" + tail,
             encoding="utf-8")
PY
# ... and the economics table (costmodel.evidence.economics_check), between <!-- economics:begin --> and <!-- economics:end -->
"$py" - <<'PY'
import pathlib
from costmodel.evidence import economics_check
p = pathlib.Path("docs/validation.md")
doc = p.read_text(encoding="utf-8")
head, rest = doc.split("<!-- economics:begin -->\n", 1)
_, tail = rest.split("<!-- economics:end -->", 1)
p.write_text(head + "<!-- economics:begin -->\n" + economics_check.markdown() + "\n<!-- economics:end -->" + tail,
             encoding="utf-8")
PY
