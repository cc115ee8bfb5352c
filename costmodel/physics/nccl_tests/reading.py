"""Reading the stdout of an nccl-tests run into a :class:`~costmodel.physics.nccl_tests.records.Log`.

:func:`parse` accepts the header, Rank lines, NCCL INFO noise, MPI output tags and CRLF; it checks
the table's columns against each other and refuses what is not nccl-tests output. Nothing in the
text is evaluated. Units: sizes in bytes, times in µs, bandwidths in GB/s, as nccl-tests prints them.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from costmodel.errors import NcclLogError
from costmodel.physics.nccl_tests.records import (
    BUS_FACTOR,
    EXPECTED_TABLE,
    Log,
    Note,
    Row,
    normalize_collective,
    refuse,
    settings,
)

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
_HTML = re.compile(r"<\s*(?:!doctype|html|head|body|div|table|pre|script)\b", re.IGNORECASE)


def _clean(line: str) -> str:
    """A log line without MPI output tags, srun labels, tabs and trailing blanks."""
    line = _MPI_TAG.sub(" ", line.replace("\t", " "))
    return _SRUN_LABEL.sub("", line).rstrip()


def _float(token: str) -> float | None:
    """``token`` as a finite float, else None."""
    try:
        x = float(token)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _int(token: str) -> int | None:
    """``token`` as a non-negative integer of at most 20 digits, else None."""
    return int(token) if re.fullmatch(r"\d{1,20}", token) else None


def _header_tokens(line: str) -> list[str] | None:
    """The lower-case column names of a table header line (size … time … busbw), else None."""
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
    """The order of the out-of-place and in-place column groups, from the banner above the header."""
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
    """The NCCL version the log's header names (``NCCL version`` or ``nccl-library=``), else None."""
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
    """Median busbw/algbw of the rows with algbw ≥ 1 GB/s (else ≥ 0.1); None when all are smaller."""
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
            raise refuse("the log is not UTF-8 text; paste or upload the plain-text output of nccl-tests",
                          "nccl_log_not_text") from None
    if not isinstance(text, str):
        raise refuse(f"expected text, got {type(text).__name__}", "nccl_log_not_text")
    if len(text) > conf["max_log_bytes"] or len(text.encode("utf-8", "surrogatepass")) > conf["max_log_bytes"]:
        raise _too_large(len(text.encode("utf-8", "surrogatepass")), conf["max_log_bytes"])
    if "\x00" in text:
        raise refuse("the log holds NUL bytes: it is a binary file, not the text output of nccl-tests",
                      "nccl_log_not_text")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise refuse("the log is empty; paste the output of an nccl-tests run (" + EXPECTED_TABLE + ")",
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
        raise refuse("no readable row under the table header: " + EXPECTED_TABLE, "nccl_log_no_rows",
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
    """The refusal of a log of ``size`` bytes over ``limit``."""
    return refuse(f"the log is {size:,} bytes; at most {limit:,} bytes are read (one nccl-tests run is "
                   "tens of kB)", "nccl_log_too_large", size=size, limit=limit)


def _no_table(text: str) -> NcclLogError:
    """The refusal of a text with no result table, with a hint when it looks like HTML or CSV."""
    head = text[:4096]
    if _HTML.search(head):
        hint, why = "html", "this looks like an HTML page; save or copy the run's plain text output instead"
    elif sum(line.count(",") >= 3 for line in head.splitlines()) >= 3:
        hint, why = "csv", "this looks like a CSV file; paste nccl-tests' own table output instead"
    else:
        hint, why = "", "no line names the columns size … busbw"
    return refuse(f"no nccl-tests result table found ({why}): {EXPECTED_TABLE}", "nccl_log_no_table", hint=hint)


def _log_collective(meta: str) -> str | None:
    """The collective the log's header names (its last ``…_perf`` command), else None."""
    m = _STARTING.search(meta)
    found = _COLLECTIVE.findall(m.group(1)) if m else []
    found = found or _COLLECTIVE.findall(meta)
    if not found:
        return None
    return normalize_collective(found[-1])  # the run's own command is the last one before its table


def _ranks(meta_lines: list[str], meta: str):
    """Ranks, hosts, host names, GPU name and notes from the Rank lines (ranks from ``nranks`` without them)."""
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
        raise refuse("message sizes must increase down the table, as one nccl-tests run prints them; this "
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
        raise refuse(f"{int(bad.sum())} of {len(rows)} rows have columns that disagree (algbw should be "
                      "size/time and busbw a fixed multiple of algbw): not nccl-tests output",
                      "nccl_log_inconsistent", rows=int(bad.sum()), total=len(rows))
    if bad.any():
        notes.append(Note("nccl_note_inconsistent_rows", f"{int(bad.sum())} rows whose algbw or busbw disagree "
                          "with their size and time were left out", {"rows": int(bad.sum())}))
        rows = [r for r, b in zip(rows, bad, strict=True) if not b]
    if len(rows) < conf["min_rows"]:
        raise _few(len(rows), conf)
    if factor is None or factor <= 0:
        raise refuse("every row's algbw is 0.00: the sizes are too small to measure bandwidth; run up to "
                      "at least 1 GB (-e 1G)", "nccl_log_no_bandwidth")
    return rows, factor, notes


def _few(n: int, conf: dict) -> NcclLogError:
    """The refusal of a table with only ``n`` usable rows."""
    return refuse(f"{n} usable rows (size > 0, #wrong 0); at least {conf['min_rows']} are needed to fit latency "
                   "and bandwidth (run with -b 8 -e 8G -f 2)", "nccl_log_few_rows", rows=n, min=conf["min_rows"])


def _collective(in_log: str | None, chosen: str | None, redop: str | None, factor: float, ranks: int | None):
    """The collective read (the log's, else the chosen one, else guessed from the reduction) and notes."""
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
