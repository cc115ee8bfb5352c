"""``python -m store``: see :mod:`store.cli`."""

import sys

from .cli import main

sys.exit(main())
