"""Reading nccl-tests output and fitting a fabric's latency and bandwidth from it (calibration).

:func:`parse` reads the stdout of ``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf`` or ``sendrecv_perf`` (header, Rank lines, NCCL INFO noise, MPI output tags,
CRLF) into a :class:`Log`; :func:`fit` fits ``t(size) = α + size·factor/busbw`` to its rows
(a :class:`Fit`); :func:`efficiency` compares the fitted bus bandwidth with the NICs' line rate.
A log that cannot be read or fitted raises :class:`~costmodel.errors.NcclLogError` (field
``nccl_log``). Nothing in the text is evaluated; limits and fit settings are in
``data/nccl_tests.yaml``; the method and its caveats are in docs/calibration.md.

Units: sizes in bytes, times in µs, bandwidths in GB/s (10⁹ B/s), as nccl-tests prints them.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import yaml

from costmodel.catalog.loader import DATA_DIR
from costmodel.errors import InputError, NcclLogError, clean_text

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

_MPI_TAG = re.compile(r"\[\d+(?:,\d+)*\](?:<std(?:out|err)>:)?")  # [1,0]<stdout>: and [0]
_SRUN_LABEL = re.compile(r"^\s*\d+:\s")  # srun --label
_RANK = re.compile(r"Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s*(.*)$")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_NCCL_LIBRARY = re.compile(r"nccl-library=(\d+)")
_NRANKS = re.compile(r"\bnranks (\d+)")
_COLLECTIVE = re.compile(r"\b(all_reduce|all_gather|reduce_scatter|alltoall|sendrecv|broadcast|reduce|gather|"
                         r"scatter|hypercube)_perf")
_STARTING = re.compile(r"Collective test starting:\s*(\S+)")
_ALGO = re.compile(r"NCCL_ALGO=\s*\"?([A-Za-z,^]+)")
_RUN_START = re.compile(r"nThread\s+\d+\s+nGpus|Collective test starting")
_FOOTER = re.compile(r"Out of bounds values|Avg bus bandwidth")
_GPU_SHORT = re.compile(r"\b((?:GB|[A-Z]{1,2})\d{1,3}[A-Za-z]?(?:-3e)?)\b")
_HTML = re.compile(r"<\s*(?:!doctype|html|head|body|div|table|pre|script)\b", re.IGNORECASE)


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


@dataclass(frozen=True)
class Fit:
    """The α–β fit of a :class:`Log`: ``t(size) = alpha_us + size·bus_factor / busbw_GBps`` [µs].

    ``busbw_GBps`` is the asymptotic bus bandwidth [GB/s], ``busbw_max_GBps`` the largest measured;
    ``rel_rms`` the relative RMS error of the line over the ``rows_used`` rows; ``warnings`` those
    of the log and of the fit.
    """

    log: Log
    alpha_us: float
    busbw_GBps: float  # GB/s, spelled as nccl-tests prints it
    busbw_max_GBps: float
    rel_rms: float
    rows_used: int
    warnings: tuple[Note, ...]

    def time_us(self, size_bytes) -> np.ndarray:
        """Time [µs] the fitted line gives for message sizes ``size_bytes`` [B] (broadcasts)."""
        x = np.asarray(size_bytes, dtype=float) * self.log.bus_factor
        return self.alpha_us + x / (self.busbw_GBps * 1e3)

    @property
    def summary(self) -> str:
        return self.log.summary

    def to_dict(self) -> dict:
        """JSON-safe summary to store with a scenario (numbers rounded to what the log can carry)."""
        log = self.log
        return {"collective": log.collective, "ranks": log.ranks, "hosts": log.hosts, "gpu": log.gpu,
                "nccl_version": log.nccl_version, "algorithm": log.algorithm, "placement": log.placement,
                "alpha_us": round(self.alpha_us, 3), "busbw_GBps": round(self.busbw_GBps, 3),
                "busbw_max_GBps": round(self.busbw_max_GBps, 3), "bus_factor": round(log.bus_factor, 6),
                "rel_rms": round(self.rel_rms, 4), "rows_used": self.rows_used, "summary": log.summary,
                "warnings": [w.code for w in self.warnings]}


@functools.lru_cache(maxsize=1)
def settings() -> dict:
    """The importer's limits and fit settings (``data/nccl_tests.yaml``)."""
    with SETTINGS_FILE.open(encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=yaml.CSafeLoader)
    return {**data["limits"], **data["fit"]}


# ---------------------------------------------------------------------------------------- parse

def _refuse(message: str, code: str, **values) -> NcclLogError:
    return NcclLogError(f"nccl_log: {message}", code, ALLOWED, **values)


def normalize_collective(name: str) -> str:
    """``all_reduce`` for ``all_reduce_perf``, ``AllReduce``, ``all-reduce``, ``all_reduce_perf_mpi`` …;
    raises :class:`NcclLogError` for a name that is not one of :data:`COLLECTIVES`."""
    key = re.sub(r"[^a-z2]", "", str(name).lower().removesuffix("_mpi").removesuffix("_perf"))
    by_key = {c.replace("_", ""): c for c in COLLECTIVES} | {"all2all": "alltoall"}
    if key not in by_key:
        raise _refuse(f"collective {clean_text(name, 40)!r} is not one calibration reads; allowed: "
                      + ", ".join(COLLECTIVES), "nccl_log_collective", got=clean_text(name, 40),
                      choices=", ".join(COLLECTIVES))
    return by_key[key]


def _clean(line: str) -> str:
    line = _MPI_TAG.sub(" ", line.replace("\t", " "))
    return _SRUN_LABEL.sub("", line).rstrip()


def _float(token: str) -> float | None:
    try:
        x = float(token)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _int(token: str) -> int | None:
    return int(token) if re.fullmatch(r"\d{1,20}", token) else None


def _header_tokens(line: str) -> list[str] | None:
    tokens = line.strip().lstrip("#").lower().split()
    return tokens if "size" in tokens and "busbw" in tokens and "time" in tokens else None


def _tables(lines: list[str]) -> list[tuple[int, list[str], list[list[str]]]]:
    """(header line, columns, row tokens) of every result table."""
    out, current = [], None
    for i, line in enumerate(lines):
        cols = _header_tokens(line)
        if cols is not None:
            current = (i, cols, [])
            out.append(current)
        elif current is not None and (_FOOTER.search(line) or _RUN_START.search(line)):
            current = None
        elif current is not None:
            tokens = line.split()
            if tokens and _int(tokens[0]) is not None:
                current[2].append(tokens)
    return out


def _placement_order(lines: list[str], header: int) -> tuple[str, str]:
    banner = " ".join(lines[max(0, header - 2):header]).lower()
    inp, outp = banner.find("in-place"), banner.find("out-of-place")
    in_place_first = inp >= 0 and (outp < 0 or inp < outp)  # mscclpp's tests print in-place first
    return ("in-place", "out-of-place") if in_place_first else ("out-of-place", "in-place")


def _read_row(tokens: list[str], cols: list[str], starts: list[int], order: tuple[str, str]):
    """(dtype, redop, {placement: (time, algbw, busbw, wrong)}) of a row; None if it is not one."""
    groups = {}
    for place, start in zip(order, starts, strict=False):
        if start + 2 >= len(tokens):
            break
        t, a, b = (_float(tokens[start + k]) for k in range(3))
        if t is None or a is None or b is None:
            break
        wrong = None
        if start + 3 < len(tokens) and start + 3 < len(cols) and cols[start + 3] in ("#wrong", "wrong"):
            wrong = _int(tokens[start + 3])
        groups[place] = (t, a, b, wrong)
    if not groups:
        return None
    dtype = tokens[cols.index("type")] if "type" in cols and cols.index("type") < len(tokens) else None
    redop = tokens[cols.index("redop")] if "redop" in cols and cols.index("redop") < len(tokens) else None
    return dtype, redop, groups


def _nccl_version(meta: str) -> str | None:
    m = _NCCL_VERSION.search(meta)
    if m:
        return m.group(1)
    m = _NCCL_LIBRARY.search(meta)
    if m:
        code = int(m.group(1))
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}" if code >= 10000 else \
            f"{code // 1000}.{code // 100 % 10}.{code % 100}"
    return None


def _median_ratio(algbw: np.ndarray, busbw: np.ndarray) -> float | None:
    for floor in (1.0, 0.1):
        ok = algbw >= floor
        if ok.any():
            return float(np.median(busbw[ok] / algbw[ok]))
    return None


def parse(text: str | bytes, collective: str | None = None) -> Log:
    """Read one nccl-tests run from ``text`` (its stdout, pasted or uploaded).

    ``collective`` is the user's choice, used when the log does not name its test (no command line,
    no ``Collective test starting`` line); the log's own name wins, with a note when they differ.
    The rows are the **out-of-place** columns: always printed first and always validated (in-place
    alltoall prints #wrong N/A), and taking the better of two noisy timings would bias bandwidth up.
    When a log holds several runs, the first table is read (with a note).

    Raises :class:`~costmodel.errors.NcclLogError` for text that is empty, larger than the limit,
    not text, has no result table, fewer usable rows than the minimum, sizes that do not increase or
    columns that disagree with each other (algbw ≠ size/time, inconsistent busbw/algbw).
    """
    conf = settings()
    if isinstance(text, bytes | bytearray):
        if len(text) > conf["max_log_bytes"]:
            raise _too_large(len(text), conf["max_log_bytes"])
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse("the log is not UTF-8 text; paste or upload the plain-text output of nccl-tests",
                          "nccl_log_not_text") from None
    if not isinstance(text, str):
        raise _refuse(f"expected text, got {type(text).__name__}", "nccl_log_not_text")
    if len(text) > conf["max_log_bytes"] or len(text.encode("utf-8", "surrogatepass")) > conf["max_log_bytes"]:
        raise _too_large(len(text.encode("utf-8", "surrogatepass")), conf["max_log_bytes"])
    if "\x00" in text:
        raise _refuse("the log holds NUL bytes: it is a binary file, not the text output of nccl-tests",
                      "nccl_log_not_text")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise _refuse("the log is empty; paste the output of an nccl-tests run (" + EXPECTED_TABLE + ")",
                      "nccl_log_empty")
    chosen = normalize_collective(collective) if collective else None
    lines = [_clean(line) for line in text.splitlines()]
    tables = [t for t in _tables(lines) if t[2]]
    if not tables:
        raise _no_table(text)
    notes: list[Note] = []
    if len(tables) > 1:
        notes.append(Note("nccl_note_several_tables", f"the log holds {len(tables)} result tables; the first "
                          "was read", {"tables": len(tables)}))
    header, cols, raw_rows = tables[0]
    order = _placement_order(lines, header)
    starts = [i for i, c in enumerate(cols) if c == "time"]
    parsed = [(int(t[0]), r) for t in raw_rows if (r := _read_row(t, cols, starts, order)) is not None]
    if not parsed:
        raise _refuse("no readable row under the table header: " + EXPECTED_TABLE, "nccl_log_no_rows",
                      rows=0, min=conf["min_rows"])
    placement = "out-of-place" if any("out-of-place" in r[2] for _, r in parsed) else "in-place"
    if placement == "in-place":
        notes.append(Note("nccl_note_in_place", "the log prints in-place columns only; they were read"))
    first_kind = parsed[0][1][:2]  # (data type, reduction) of the first row
    rows, other_kinds = [], 0
    for size, (dtype, redop, groups) in parsed:
        if (dtype, redop) != first_kind:
            other_kinds += 1
        elif placement in groups:
            rows.append(Row(size, *groups[placement]))
    if other_kinds:
        notes.append(Note("nccl_note_other_types", f"{other_kinds} rows of another data type or reduction "
                          f"were left out (read: {first_kind[0]} {first_kind[1] or ''})".rstrip(),
                          {"rows": other_kinds}))
    meta_lines = lines[:header]
    meta = "\n".join(meta_lines)
    log_collective = _log_collective(meta)
    ranks, hosts, host_names, gpu, rank_notes = _ranks(meta_lines, meta)
    notes += rank_notes
    rows, factor, row_notes = _check_rows(rows, conf)
    notes += row_notes
    coll, coll_notes = _collective(log_collective, chosen, first_kind[1], factor, ranks)
    notes += coll_notes
    algo = _ALGO.search(meta)
    return Log(collective=coll, ranks=ranks, hosts=hosts, host_names=host_names, gpu=gpu,
               nccl_version=_nccl_version(meta), algorithm=algo.group(1).lower() if algo else None,
               placement=placement, bus_factor=factor, rows=tuple(rows), notes=tuple(notes))


def _too_large(size: int, limit: int) -> NcclLogError:
    return _refuse(f"the log is {size:,} bytes; at most {limit:,} bytes are read (one nccl-tests run is "
                   "tens of kB)", "nccl_log_too_large", size=size, limit=limit)


def _no_table(text: str) -> NcclLogError:
    head = text[:4096]
    if _HTML.search(head):
        hint, why = "html", "this looks like an HTML page; save or copy the run's plain text output instead"
    elif sum(line.count(",") >= 3 for line in head.splitlines()) >= 3:
        hint, why = "csv", "this looks like a CSV file; paste nccl-tests' own table output instead"
    else:
        hint, why = "", "no line names the columns size … busbw"
    return _refuse(f"no nccl-tests result table found ({why}): {EXPECTED_TABLE}", "nccl_log_no_table", hint=hint)


def _log_collective(meta: str) -> str | None:
    m = _STARTING.search(meta)
    found = _COLLECTIVE.findall(m.group(1)) if m else []
    found = found or _COLLECTIVE.findall(meta)
    if not found:
        return None
    return normalize_collective(found[-1])  # the run's own command is the last one before its table


def _ranks(meta_lines: list[str], meta: str):
    ids, names, gpus, notes = {}, [], Counter(), []
    for line in meta_lines:
        m = _RANK.search(line)
        if m:
            ids[int(m.group(1))] = m.group(2)
            gpus[m.group(3).strip()] += 1
    if ids:
        ranks = max(ids) + 1
        names = tuple(dict.fromkeys(ids[i] for i in sorted(ids)))
        if len(ids) != ranks:
            notes.append(Note("nccl_note_rank_lines", f"Rank lines name {len(ids)} of {ranks} ranks; the host "
                              "count is a lower bound", {"seen": len(ids), "ranks": ranks}))
        gpu = gpus.most_common(1)[0][0] or None
        return ranks, len(names), names, gpu, notes
    nranks = [int(n) for n in _NRANKS.findall(meta)]
    notes.append(Note("nccl_note_no_rank_lines", "the log has no Rank lines: the number of hosts is unknown, so "
                      "single-node and two-node runs cannot be told apart"))
    return (max(nranks) if nranks else None), None, (), None, notes


def _check_rows(rows: list[Row], conf: dict):
    """Rows usable for a fit, the log's bus factor, and notes; refuses garbage."""
    notes = []
    rows = [r for r in rows if r.size > 0 and r.time_us > 0 and r.algbw >= 0 and r.busbw >= 0]
    wrong = [r for r in rows if r.wrong]
    if wrong:
        notes.append(Note("nccl_note_wrong_rows", f"{len(wrong)} rows with #wrong > 0 were left out "
                          "(the collective returned wrong data)", {"rows": len(wrong)}))
        rows = [r for r in rows if not r.wrong]
    if len(rows) < conf["min_rows"]:
        raise _few(len(rows), conf)
    sizes = np.array([r.size for r in rows], dtype=float)
    if np.any(np.diff(sizes) <= 0):
        raise _refuse("message sizes must increase down the table, as one nccl-tests run prints them; this "
                      "table's do not (several runs pasted together, or not nccl-tests output)",
                      "nccl_log_not_increasing")
    time = np.array([r.time_us for r in rows])
    algbw = np.array([r.algbw for r in rows])
    busbw = np.array([r.busbw for r in rows])
    expected = sizes / time / 1e3  # B/µs → GB/s
    bad = np.abs(algbw - expected) > 0.006 + conf["algbw_tolerance"] * expected
    factor = _median_ratio(algbw[~bad], busbw[~bad]) if (~bad).any() else None
    if factor is not None:  # busbw/algbw is the same for every row, up to the printed digits (±0.005 each)
        shown = np.maximum(algbw - 0.005, 1e-9)
        slack = conf["ratio_tolerance"] * factor + 0.0051 * (1 + factor) / shown
        bad |= (algbw >= 0.1) & (np.abs(busbw / np.maximum(algbw, 1e-9) - factor) > slack)
    if bad.sum() * 2 > len(rows):
        raise _refuse(f"{int(bad.sum())} of {len(rows)} rows have columns that disagree (algbw should be "
                      "size/time and busbw a fixed multiple of algbw): not nccl-tests output",
                      "nccl_log_inconsistent", rows=int(bad.sum()), total=len(rows))
    if bad.any():
        notes.append(Note("nccl_note_inconsistent_rows", f"{int(bad.sum())} rows whose algbw or busbw disagree "
                          "with their size and time were left out", {"rows": int(bad.sum())}))
        rows = [r for r, b in zip(rows, bad, strict=True) if not b]
    if len(rows) < conf["min_rows"]:
        raise _few(len(rows), conf)
    if factor is None or factor <= 0:
        raise _refuse("every row's algbw is 0.00: the sizes are too small to measure bandwidth; run up to "
                      "at least 1 GB (-e 1G)", "nccl_log_no_bandwidth")
    return rows, factor, notes


def _few(n: int, conf: dict) -> NcclLogError:
    return _refuse(f"{n} usable rows (size > 0, #wrong 0); at least {conf['min_rows']} are needed to fit latency "
                   "and bandwidth (run with -b 8 -e 8G -f 2)", "nccl_log_few_rows", rows=n, min=conf["min_rows"])


def _collective(in_log: str | None, chosen: str | None, redop: str | None, factor: float, ranks: int | None):
    notes = []
    if in_log is not None and chosen is not None and in_log != chosen:
        notes.append(Note("nccl_note_collective_differs", f"the log is from {in_log}_perf, not {chosen}_perf as "
                          "chosen; the log's collective is used", {"log": in_log, "chosen": chosen}))
    coll = in_log or chosen
    if coll is None and redop and redop != "none":
        coll = "all_reduce" if factor >= 0.99 else "reduce_scatter"
    if coll is not None and ranks:
        want = BUS_FACTOR[coll](ranks)
        if abs(factor - want) > 0.02 * want:
            notes.append(Note("nccl_note_factor", f"busbw/algbw is {factor:.3f} in the log but {want:.3f} for "
                              f"{coll} on {ranks} ranks", {"log": round(factor, 3), "expected": round(want, 3)}))
    return coll, notes


# ------------------------------------------------------------------------------------------ fit

def fit(log: Log) -> Fit:
    """Fit ``t = α + size·factor/B`` to ``log``'s rows (``factor``: the log's busbw/algbw).

    B [GB/s] is fitted on the bandwidth-bound rows (busbw at least ``bandwidth_rows_min_share`` of
    the largest), by least squares on relative errors (weights 1/t²) reweighted with Huber weights so
    that a stray row does not pull it; α [µs] is the median of ``t − size·factor/B`` over the
    latency-bound rows (transfer at most ``latency_rows_max_transfer_share`` of the shortest time). The mid
    sizes, where NCCL changes protocol, are left to the line: ``rel_rms`` shows how far they sit.
    """
    conf = settings()
    s = np.array([r.size for r in log.rows], dtype=float)
    t = np.array([r.time_us for r in log.rows])
    b = np.array([r.busbw for r in log.rows])
    x = s * log.bus_factor  # bytes on the bus
    bmax = float(b.max())
    band = b >= conf["bandwidth_rows_min_share"] * bmax
    if band.sum() < 2:
        band = s >= np.sort(s)[-2]
    beta, alpha_band = _robust_line(x[band], t[band], conf["huber_k"])
    if not beta > 0:
        raise _refuse("time does not grow with message size in the bandwidth-bound rows: the bandwidth "
                      "cannot be fitted", "nccl_log_unfittable")
    notes = list(log.notes)
    # latency-bound: the transfer term is a small share of the shortest time (a proxy for α that,
    # unlike each row's own time, a stray slow row cannot inflate)
    latency = beta * x <= conf["latency_rows_max_transfer_share"] * float(t.min())
    if latency.any():
        alpha = max(float(np.median(t[latency] - beta * x[latency])), 0.0)
    else:
        alpha = max(alpha_band, 0.0)
        notes.append(Note("nccl_note_no_small_rows", "no latency-bound rows (small messages): the latency is the "
                          "intercept of the large-message line and overstates NCCL's small-message latency; "
                          "run from -b 8"))
    rel = (t - alpha - beta * x) / t
    busbw = 1e-3 / beta  # B/µs → GB/s
    notes += _fit_notes(log, len(t), busbw, bmax, conf)
    return Fit(log=log, alpha_us=alpha, busbw_GBps=busbw, busbw_max_GBps=bmax,
               rel_rms=float(np.sqrt(np.mean(rel ** 2))), rows_used=len(t), warnings=tuple(notes))


def _robust_line(x: np.ndarray, t: np.ndarray, k: float, rounds: int = 20) -> tuple[float, float]:
    """(β [µs/B], α [µs]) of ``t ≈ α + βx`` minimising relative errors with Huber reweighting;
    α ≥ 0 (a negative intercept refits the line through the origin)."""
    w = np.ones_like(t)
    alpha = beta = 0.0
    for _ in range(rounds):
        sw = np.sqrt(w)
        design = np.column_stack([sw / t, sw * x / t])
        (alpha, beta), *_ = np.linalg.lstsq(design, sw, rcond=None)
        if alpha < 0:
            alpha, beta = 0.0, float(np.sum(w * x / t) / np.sum(w * (x / t) ** 2))
        r = (t - alpha - beta * x) / t
        scale = 1.4826 * float(np.median(np.abs(r - np.median(r))))
        if scale <= 1e-9:
            break
        new = np.minimum(1.0, k * scale / np.maximum(np.abs(r), 1e-300))
        if np.allclose(new, w, atol=1e-6):
            break
        w = new
    return float(beta), float(alpha)


def _fit_notes(log: Log, n_rows: int, busbw: float, bmax: float, conf: dict) -> list[Note]:
    notes = []
    if log.hosts == 1:
        notes.append(Note("nccl_note_single_node", "single node: this log measures NVLink/PCIe inside one "
                          "server, not the fabric"))
    elif log.hosts is not None and log.hosts < conf["ring_min_hosts"]:
        if log.collective in ("alltoall", "sendrecv"):
            notes.append(Note("nccl_note_two_nodes_nvlink", f"{log.hosts} nodes: part of each rank's traffic stays "
                              "on NVLink, so busbw can exceed the NIC line rate (nccl-tests #321); measure on more "
                              "nodes", {"hosts": log.hosts}))
        elif log.collective in (None, "all_reduce") and (log.algorithm or "") != "ring":
            notes.append(Note("nccl_note_two_nodes_tree", f"{log.hosts} nodes: NCCL may use tree/NVLS and "
                              "overstate the network; measure on ≥ 3 nodes or with NCCL_ALGO=Ring "
                              "(nccl-tests #196)", {"hosts": log.hosts}))
    if n_rows < conf["few_rows"]:
        notes.append(Note("nccl_note_few_rows", f"only {n_rows} rows: the fit rests on few points",
                          {"rows": n_rows}))
    if busbw > conf["extrapolation_warn"] * bmax:
        notes.append(Note("nccl_note_extrapolated", f"the fitted {busbw:.1f} GB/s is beyond the largest measured "
                          f"{bmax:.1f} GB/s: busbw was still rising; run larger sizes (-e 8G)",
                          {"fitted": round(busbw, 1), "measured": round(bmax, 1)}))
    return notes


# ----------------------------------------------------------------------------------- efficiency

def efficiency(fit: Fit, port_gbps: float, nics_per_node: int, gpus_per_node: int) -> float:
    """Fitted busbw as a share of the line rate it can reach (dimensionless, 0.96 ≈ good IB).

    ``port_gbps``: one NIC port's line rate [Gb/s]; ``nics_per_node``, ``gpus_per_node``: counts
    of the scenario's nodes. Both forms compare bandwidth per GPU with the NIC line rate per GPU:

    - ring collectives (all-reduce, all-gather, reduce-scatter): nccl-tests' busbw is a per-rank
      figure, but NCCL runs one ring per NIC and only one hop per node and ring crosses the network,
      so a node's busbw is bounded by the **sum** of its NICs; busbw per GPU is busbw/gpus_per_node,
      i.e. η = busbw / (nics · port_gbps/8). ~24 GB/s per 200G NIC and 46–48 GB/s per 400G NIC are
      the expected busbw (nccl-tests #119, #290);
    - alltoall: :func:`alltoall_efficiency_of` (the network's share of busbw over one GPU's NIC
      line rate); sendrecv: η = busbw / (port_gbps/8 · min(1, nics/gpus)).
    An unknown collective is taken as a ring.
    """
    log = fit.log
    if log.collective == "alltoall":
        return alltoall_efficiency_of(fit.busbw_GBps, log.ranks, log.hosts, port_gbps, nics_per_node, gpus_per_node)
    return efficiency_of(log.collective, fit.busbw_GBps, port_gbps, nics_per_node, gpus_per_node)


def _check_hardware(port_gbps, nics_per_node, gpus_per_node) -> None:
    for name, value in (("port_gbps", port_gbps), ("nics_per_node", nics_per_node), ("gpus_per_node", gpus_per_node)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise InputError(f"{name} must be a positive number (got {value!r})", name, "a positive number")


def efficiency_of(collective: str | None, busbw_GBps: float, port_gbps: float, nics_per_node: float,
                  gpus_per_node: float) -> float:
    """:func:`efficiency` of a stored ring or sendrecv fit: its ``collective`` and bus bandwidth
    ``busbw_GBps`` [GB/s] (an alltoall's needs its ranks and hosts: :func:`alltoall_efficiency_of`)."""
    _check_hardware(port_gbps, nics_per_node, gpus_per_node)
    per_gpu_line = port_gbps / 8 * nics_per_node / gpus_per_node  # GB/s
    if collective in RING_COLLECTIVES or collective is None:
        return busbw_GBps / gpus_per_node / per_gpu_line
    return busbw_GBps / (port_gbps / 8 * min(1.0, nics_per_node / gpus_per_node))


def alltoall_network_share(ranks: float, hosts: float) -> float:
    """Share of an alltoall_perf run's busbw that crossed the network: ``(n − g)/(n − 1)`` for
    ``n = ranks`` on ``hosts`` hosts of ``g = n/hosts`` ranks each (0 on one host) [0-1].

    nccl-tests (doc/PERFORMANCE.md; ``AlltoAllGetBw`` in src/alltoall.cu): each rank sends ``S`` bytes,
    ``S/n`` to every rank, itself included; ``algbw = S/t`` and ``busbw = algbw·(n−1)/n``, the bytes
    that leave the rank. Of them ``S·(g−1)/n`` go to peers on the same host (NVLink, far faster) and
    ``S·(n−g)/n`` cross the network, which therefore sets ``t`` (sjeaugey in nccl-tests #130: "the
    portion that's going through the network will determine the global time"). So one GPU's network
    bandwidth is ``algbw·(n−g)/n = busbw·(n−g)/(n−1)``: on 2 hosts of 8 GPUs busbw is 15/8 ≈ 2× it,
    as #130 says, and on many hosts the factor tends to 1.
    """
    if isinstance(ranks, bool) or isinstance(hosts, bool) or hosts < 1 or hosts > ranks:
        raise InputError(f"ranks ({ranks!r}) and hosts ({hosts!r}) must be counts with 1 ≤ hosts ≤ ranks",
                         "hosts", "1 to ranks")
    g = ranks / hosts
    return (ranks - g) / (ranks - 1) if ranks > 1 else 0.0


def alltoall_efficiency_of(busbw_GBps: float, ranks: int | None, hosts: int | None, port_gbps: float,
                           nics_per_node: float, gpus_per_node: float) -> float:
    """The all-to-all efficiency (``fabrics.yaml`` ``alltoall_efficiency``) an alltoall_perf run gives [0-1]:

    ``η = busbw · (n − g)/(n − 1) / (port_gbps/8 · min(1, nics/gpus))``

    the network bandwidth per GPU (:func:`alltoall_network_share`; ``busbw_GBps`` [GB/s] at large
    sizes, the fit's asymptote) over the line rate one GPU reaches (NCCL's all-to-all does not
    aggregate several NICs per GPU, nccl-tests #267), the same line rate the model divides the
    remote bytes by (``costmodel.physics.performance.step_time``, ``a2a_bw_gpu_Bps``). ``port_gbps`` [Gb/s]
    and the counts per node are the scenario's. Without ``ranks``/``hosts`` (no Rank lines) the
    share is unknown and busbw itself is used (an upper bound).
    """
    _check_hardware(port_gbps, nics_per_node, gpus_per_node)
    share = 1.0 if ranks is None or hosts is None else alltoall_network_share(ranks, hosts)
    return busbw_GBps * share / (port_gbps / 8 * min(1.0, nics_per_node / gpus_per_node))
