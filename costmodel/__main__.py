"""``python -m costmodel``: see :mod:`costmodel.cli`."""

import sys

try:
    from costmodel.cli import main
except Exception as exc:  # a broken data file in the installation: say so without a traceback
    print(f"error: the cost model could not start: {exc}", file=sys.stderr)
    sys.exit(1)

sys.exit(main())
