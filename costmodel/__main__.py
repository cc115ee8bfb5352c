"""``python -m costmodel``: see :mod:`costmodel.cli`."""

import sys

from .cli import main

sys.exit(main())
