"""What an nccl-tests log holds: the collectives and their bus factors, the records a log is read into
(:class:`Row`, :class:`Log`, :class:`Note`), the importer's settings and its refusal.

Units: sizes in bytes, times in µs, bandwidths in GB/s (10⁹ B/s), as nccl-tests prints them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import yaml

from costmodel.catalog.loader import DATA_DIR
from costmodel.errors import NcclLogError, clean_text

SETTINGS_FILE = DATA_DIR / "nccl_tests.yaml"

#: bus factor busbw/algbw of each collective for n ranks (nccl-tests doc/PERFORMANCE.md)
BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "sendrecv": lambda n: 1.0,
}
COLLECTIVES = tuple(BUS_FACTOR)
RING_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")  # busbw bounded by the node's NICs
ALLOWED = ("the text output of nccl-tests all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf "
           "or sendrecv_perf: a table of size, count, type, redop, root, time, algbw, busbw, #wrong rows")
EXPECTED_TABLE = "expected rows of size, count, type, redop, root, time (us), algbw, busbw (GB/s), #wrong"

_GPU_SHORT = re.compile(r"\b((?:GB|[A-Z]{1,2})\d{1,3}[A-Za-z]?(?:-3e)?)\b")


def short_gpu(name: str | None) -> str | None:
    """The GPU's model name (``H100`` for ``NVIDIA H100 80GB HBM3``), else ``name`` itself."""
    if not name:
        return None
    m = _GPU_SHORT.search(name)
    return m.group(1) if m else name


@dataclass(frozen=True)
class Note:
    """A warning about a log or a fit: ``code`` (``nccl_note_…``) for translation, the English
    ``message`` and the ``values`` it names."""

    code: str
    message: str
    values: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    """One row of the result table (the placement the log was read in, see :attr:`Log.placement`)."""

    size: int  # message size [B]
    time_us: float  # time per collective [µs]
    algbw: float  # algorithm bandwidth size/time [GB/s]
    busbw: float  # bus bandwidth algbw·factor [GB/s]
    wrong: int | None  # the #wrong column; None when N/A or not printed


@dataclass(frozen=True)
class Log:
    """What :func:`parse` read from one nccl-tests run.

    ``collective`` is one of :data:`COLLECTIVES` or None (unknown); ``ranks``/``hosts`` are None when
    the log has no Rank lines; ``bus_factor`` is busbw/algbw as the log itself reports it (None when
    every algbw printed is 0.00); ``placement`` is ``out-of-place`` unless only in-place was printed.
    """

    collective: str | None
    ranks: int | None
    hosts: int | None
    host_names: tuple[str, ...]
    gpu: str | None
    nccl_version: str | None
    algorithm: str | None  # NCCL_ALGO given on the command line, lower case (e.g. "ring"); None if absent
    placement: str
    bus_factor: float | None
    rows: tuple[Row, ...]
    notes: tuple[Note, ...]

    @property
    def gpu_short(self) -> str | None:
        """The GPU's model name (``H100`` for ``NVIDIA H100 80GB HBM3``), else the full name."""
        return short_gpu(self.gpu)

    @property
    def summary(self) -> str:
        """One line for a label: ``all_reduce_perf · 32 ranks on 4 hosts · NCCL 2.26.2 · H100``."""
        parts = [f"{self.collective}_perf" if self.collective else "nccl-tests"]
        if self.ranks is not None:
            where = f" on {self.hosts} host{'s' if self.hosts != 1 else ''}" if self.hosts is not None else ""
            parts.append(f"{self.ranks} ranks{where}")
        if self.nccl_version:
            parts.append(f"NCCL {self.nccl_version}")
        if self.gpu_short:
            parts.append(self.gpu_short)
        return " · ".join(parts)


@functools.lru_cache(maxsize=1)
def settings() -> dict:
    """The importer's limits and fit settings (``data/nccl_tests.yaml``)."""
    with SETTINGS_FILE.open(encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=yaml.CSafeLoader)
    return {**data["limits"], **data["fit"]}


def refuse(message: str, code: str, **values) -> NcclLogError:
    """The :class:`~costmodel.errors.NcclLogError` (field ``nccl_log``) refusing a log with ``message``."""
    return NcclLogError(f"nccl_log: {message}", code, ALLOWED, **values)


def normalize_collective(name: str) -> str:
    """``all_reduce`` for ``all_reduce_perf``, ``AllReduce``, ``all-reduce``, ``all_reduce_perf_mpi`` …;
    raises :class:`NcclLogError` for a name that is not one of :data:`COLLECTIVES`."""
    key = re.sub(r"[^a-z2]", "", str(name).lower().removesuffix("_mpi").removesuffix("_perf"))
    by_key = {c.replace("_", ""): c for c in COLLECTIVES} | {"all2all": "alltoall"}
    if key not in by_key:
        raise refuse(f"collective {clean_text(name, 40)!r} is not one calibration reads; allowed: "
                      + ", ".join(COLLECTIVES), "nccl_log_collective", got=clean_text(name, 40),
                      choices=", ".join(COLLECTIVES))
    return by_key[key]
