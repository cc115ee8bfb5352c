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
