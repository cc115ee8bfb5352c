"""Reading nccl-tests output and fitting a fabric's latency and bandwidth from it (calibration).

:func:`parse` reads the stdout of ``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf`` or ``sendrecv_perf`` (header, Rank lines, NCCL INFO noise, MPI output tags,
CRLF) into a :class:`Log`; :func:`fit` fits ``t(size) = α + size·factor/busbw`` to its rows
(a :class:`Fit`); :func:`efficiency` compares the fitted bus bandwidth with the NICs' line rate.
A log that cannot be read or fitted raises :class:`~costmodel.errors.NcclLogError` (field
``nccl_log``). Nothing in the text is evaluated; limits and fit settings are in
``data/nccl_tests.yaml``; the method and its caveats are in docs/calibration.md.

The modules: :mod:`~costmodel.physics.nccl_tests.records` (the collectives, the records a log is
read into, the settings), :mod:`~costmodel.physics.nccl_tests.reading` (the log's text),
:mod:`~costmodel.physics.nccl_tests.fitting` (the α–β line), :mod:`~costmodel.physics.nccl_tests.line_rate`
(the efficiency against the NICs' line rate).

Units: sizes in bytes, times in µs, bandwidths in GB/s (10⁹ B/s), as nccl-tests prints them.
"""

from costmodel.physics.nccl_tests.fitting import Fit, fit
from costmodel.physics.nccl_tests.line_rate import (
    alltoall_efficiency_of,
    alltoall_network_share,
    efficiency,
    efficiency_of,
)
from costmodel.physics.nccl_tests.reading import parse
from costmodel.physics.nccl_tests.records import (
    ALLOWED,
    BUS_FACTOR,
    COLLECTIVES,
    EXPECTED_TABLE,
    RING_COLLECTIVES,
    SETTINGS_FILE,
    Log,
    Note,
    Row,
    normalize_collective,
    settings,
    short_gpu,
)

__all__ = [
    "ALLOWED",
    "BUS_FACTOR",
    "COLLECTIVES",
    "EXPECTED_TABLE",
    "RING_COLLECTIVES",
    "SETTINGS_FILE",
    "Fit",
    "Log",
    "Note",
    "Row",
    "alltoall_efficiency_of",
    "alltoall_network_share",
    "efficiency",
    "efficiency_of",
    "fit",
    "normalize_collective",
    "parse",
    "settings",
    "short_gpu",
]
