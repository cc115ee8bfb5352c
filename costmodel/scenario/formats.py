"""Format versions of saved, exported and linked scenarios, and the migrations between them.

Every scenario that leaves the app — an exported JSON file, a saved store version, a share
link — records the format it was written in; :func:`upgrade` turns a document of any earlier
format into one of :data:`CURRENT`, which the strict schema (:class:`~costmodel.scenario.schema.Scenario`,
unknown fields refused) then validates. The model itself only ever sees the current format.

Where the number travels (the :class:`Scenario` has no ``format`` field: it is the model's
input, always current, and a field there would enter every scenario comparison and hash):

- an exported file: a top-level ``"format": N`` key beside the scenario's fields (a flat
  document, so every reader of the old layout — the CLI, scripts — still reads it after
  :func:`upgrade` removes the key; an envelope would have broken them);
- a store version: the ``scenario_versions.format`` column (the document column stays the
  scenario's JSON, so its ``sha256`` is still the hash of exactly that text);
- a share link: the token's ``"<N>."`` prefix (``.`` is not a base64url character), see
  :mod:`webui.session.share`.

Format 1 is everything made before versions existed: no marker at all. A link's token holds
only the difference from its preset, so it is decoded against that format's *frozen* preset
documents (:func:`bases`, ``data/formats/v<N>.json``), never the live presets: a later edit of
a preset or a default leaves old links as they were. Changing a preset or a schema default
therefore needs a new format with its own snapshot (a test compares the current snapshot with
the live presets; ``python -m costmodel.scenario.formats snapshot`` writes it).

Adding a format: bump :data:`CURRENT`, register ``MIGRATIONS[N] = step`` (a pure function from a
format-N dict to a format-N+1 dict, documented with what changed), write the snapshot.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from costmodel.catalog.loader import DATA_DIR
from costmodel.errors import ScenarioError, problem, problems_error

CURRENT = 6
FIRST = 1
KEY = "format"  # the top-level key of an exported file
FORMATS_DIR = DATA_DIR / "formats"
SUMMARY_TOLERANCE = 0.001  # a recomputed figure "changed" when it differs by more than 0.1 %

Migration = Callable[[dict], dict]


def _v1_to_v2(doc: dict) -> dict:
    """Format 1 → 2: nothing in the scenario changed; format 2 only adds the format marker
    (files, store column, link prefix) and the frozen preset snapshot links decode against."""
    return doc


def _v2_to_v3(doc: dict) -> dict:
    """Format 2 → 3: one registry of quantities (``data/quantities.yaml``) replaced four tables of
    bounds that disagreed, and four upper bounds came down (a fabric's ``ops_factor`` 100 → 10,
    ``cpu_cores_per_100gbps`` 1000 → 100, ``switch_power_w`` 10⁶ → 10⁵ W, a GPU's
    ``rental_per_gpu_hour`` 10⁶ → 10⁴). An override that format 2 accepted beyond the new bound is
    lowered to it (``formats/v2_upper_bounds.yaml``), so the scenario still opens and its recomputed
    figures say what changed; a value format 2 refused stays refused. Nothing else changes.
    """
    from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS, GPU_PRICE_BOUNDS

    overrides = doc.get("overrides")
    if not isinstance(overrides, dict):
        return doc
    doc = copy.deepcopy(doc)
    now = {"fabrics": FABRIC_OVERRIDE_BOUNDS, "gpu_prices": GPU_PRICE_BOUNDS}
    for table, was in _v2_upper_bounds().items():
        items = doc["overrides"].get(table)
        for fields in items.values() if isinstance(items, dict) else ():
            if not isinstance(fields, dict):
                continue  # the schema refuses it, naming the field
            for name, value in fields.items():
                number = isinstance(value, int | float) and not isinstance(value, bool)
                if name in was and number and now[table][name][1] < value <= was[name]:
                    fields[name] = now[table][name][1]
    return doc


@functools.cache
def _v2_upper_bounds() -> dict[str, dict[str, float]]:
    return yaml.load((FORMATS_DIR / "v2_upper_bounds.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


def _v3_to_v4(doc: dict) -> dict:
    """Format 3 → 4: the step-time model reads a training layout. A pipeline's
    ``workload.pipeline_microbatches`` (micro-batches per step) became ``micro_batch_seqs``
    (sequences per micro-batch, the unit Megatron-LM and PyTorch use), with the new
    ``seq_len``: ``b = max(1, round(batch tokens / (s · d · m)))`` with ``d = nodes / stages``
    replicas, as format 3 computed them. New fields (``seq_len``, ``virtual_stages``,
    ``tensor_parallel``, ``layers``, mixture-of-experts, rail topology, SHARP, nccl-tests
    measurements) take their defaults; every figure is recomputed with the new step-time model.
    """
    workload = doc.get("workload")
    if not isinstance(workload, dict) or "pipeline_microbatches" not in workload:
        return doc
    doc = copy.deepcopy(doc)
    w = doc["workload"]
    m = w.pop("pipeline_microbatches")
    try:
        from costmodel.scenario.schema import Workload

        seq = w.get("seq_len", Workload().seq_len)
        nodes = (doc.get("cluster") or {}).get("nodes", 1)
        stages = w.get("pipeline_stages", 1) if w.get("parallelism") == "pipeline" else 1
        tokens = w.get("global_batch_tokens_m", Workload().global_batch_tokens_m) * 1e6
        seqs = tokens / (seq * max(1.0, nodes / stages) * m)
        if w.get("parallelism") == "pipeline":
            w["micro_batch_seqs"] = int(max(1, min(1024, round(seqs))))
    except (TypeError, ValueError, ZeroDivisionError):
        pass  # a malformed value: the schema refuses the field it came from, naming it
    return doc


def _v4_to_v5(doc: dict) -> dict:
    """Format 4 → 5: the physics an expert accepts. New workload fields take their defaults:
    ``recompute`` (selective; an old ``full_recompute: true`` still forces full), ``precision`` (bf16),
    ``dualpipe`` (off), ``zero_stage`` (empty: the parallelism's), ``moe_max_nodes`` (empty: no limit),
    ``fused_attention`` and ``sequence_parallel`` (on). ``compute_efficiency`` may now be empty (the
    kernel efficiency from the layer's matrix shapes, the new default); a document of format 4 keeps
    the value it carries (0.5 unless edited), so an old file or link opens as the same scenario.
    Every figure is recomputed with the new model (host PCIe limit, optics per module, one cost per run).
    """
    return doc


def _v5_to_v6(doc: dict) -> dict:
    """Format 5 → 6: the clusters of 2026. New fields take their defaults: ``cluster.scaleup_domain_gpus``
    (empty: the GPU's scale-up domain from the catalog, one node for the parts a format-5 document
    could name), ``facility.cooling`` (air), ``build_cooling`` (off), ``rack_power_limit_kw`` (45) and
    ``cooling_capex_per_kw`` (empty: the catalog's). ``facility.pue`` may now be empty (the cooling's
    typical PUE, 1.4 for air); a format-5 document carries its PUE (1.4 unless edited) and keeps it.
    The new section ``serving`` (the inference service of the Serving page: model, precision,
    disaggregated, peak and average demand, mean prompt and output, TTFT and TPOT targets) takes its
    defaults; the training figures do not read it. The new presets (rack-scale NVL72, B300, MI355X,
    H20, Ascend 910B, CloudMatrix 384, the serving presets) have no format-5 link to upgrade.
    """
    return doc


# from version → step to version + 1
MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6}


def _error(message: str, code: str, **values) -> ScenarioError:
    """A refusal of the ``format`` field, with its code for a translated message."""
    return problems_error(problem(KEY, message, code, **values))


def version_of(doc: dict) -> int:
    """The format a parsed document says it has (1 when it has no marker); ScenarioError if invalid."""
    return _checked(doc[KEY], CURRENT) if KEY in doc else FIRST


def upgrade(doc: dict, version: int | None = None,
            migrations: dict[int, Migration] | None = None, current: int | None = None) -> tuple[dict, int]:
    """``(document in the current format without its marker, the format it was in)``.

    ``version`` is the format when it travels outside the document (store column, link prefix);
    otherwise the document's own ``"format"`` key (none = 1). ``migrations``/``current`` default to
    the product's; tests pass their own. The input is never modified.
    """
    migrations = MIGRATIONS if migrations is None else migrations
    current = CURRENT if current is None else current
    if not isinstance(doc, dict):
        raise ScenarioError([("", "a scenario must be a JSON object of fields")])
    out = copy.deepcopy(doc)
    marked = out.pop(KEY, None)
    if version is None:
        version = FIRST if marked is None else _checked(marked, current)
    elif not FIRST <= version <= current:
        raise _error(f"unknown format {version}; this planner reads formats {FIRST} to {current}", "format_unknown",
                     got=str(version), lo=FIRST, hi=current)
    for step in range(version, current):
        out = migrations[step](out)
    return out, version


def _checked(value, current: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < FIRST:
        raise _error(f"must be a whole number ≥ {FIRST} and ≤ {current}", "format_not_whole", lo=FIRST, hi=current)
    if value > current:
        raise _error(f"{value} was written by a newer version of the planner; this one reads formats "
                     f"{FIRST} to {current}", "format_newer", got=str(value), lo=FIRST, hi=current)
    return value


def mark(doc: dict) -> dict:
    """A current-format document with its marker, for a file (``"format"`` first)."""
    return {KEY: CURRENT, **{k: v for k, v in doc.items() if k != KEY}}


# -- frozen preset documents: what a link's difference is taken from --------------------------
@functools.cache
def _snapshot(version: int) -> str:
    path = FORMATS_DIR / f"v{int(version)}.json"
    if not path.is_file():
        raise _error(f"unknown format {version}; this planner reads formats {FIRST} to {CURRENT}", "format_unknown",
                     got=str(version), lo=FIRST, hi=CURRENT)
    return path.read_text(encoding="utf-8")


def bases(version: int) -> dict[str, dict]:
    """Preset id ('blank' = schema defaults) → the full scenario document of that format, frozen
    (a fresh copy on every call)."""
    return json.loads(_snapshot(version))["presets"]


def live_bases() -> dict[str, dict]:
    """The same documents from today's presets and defaults (what a new snapshot freezes)."""
    from costmodel.scenario.presets import list_presets, load_preset
    from costmodel.scenario.schema import Scenario

    out = {"blank": Scenario().model_dump(mode="json")}
    out.update({p: load_preset(p).model_dump(mode="json") for p in list_presets()})
    return out


def write_snapshot(version: int = CURRENT) -> Path:
    """Freeze today's preset documents as format ``version``'s link bases; returns the file."""
    path = FORMATS_DIR / f"v{version}.json"
    doc = {"format": version, "as_of": time.strftime("%Y-%m-%d", time.gmtime()),
           "source": "costmodel/data/presets/*.yaml and the schema defaults (data/defaults.yaml) "
                     "as model_dump(mode='json'), frozen when this format was introduced",
           "presets": live_bases()}
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# -- results summary stored with a saved version ----------------------------------------------
@functools.lru_cache(maxsize=1)
def model_fingerprint() -> str:
    """Short sha256 [hex] of the model's data files: changes whenever a catalog number changes."""
    h = hashlib.sha256()
    for path in sorted(DATA_DIR.rglob("*.yaml")):
        h.update(path.relative_to(DATA_DIR).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Change:
    """A figure that differs between the saved summary and the recomputation."""

    fabric: str
    metric: str  # "tco_total" [currency] or "run_days" [days]
    was: float
    now: float


def _differs(was, now, tolerance: float) -> bool:
    if was is None or now is None:
        return (was is None) != (now is None)
    scale = max(abs(was), abs(now))
    return scale > 0 and abs(now - was) > tolerance * scale


def changes(saved: dict | None, now: dict, tolerance: float = SUMMARY_TOLERANCE) -> list[Change]:
    """Figures of ``saved`` (a :func:`costmodel.api.summarize` dict, None = saved before summaries) that ``now``
    (the recomputed summary) changed by more than ``tolerance`` (relative, 0.001 = 0.1 %); TCO first.

    Nothing is reported when there is no saved summary or its currency differs (not comparable).
    """
    if not isinstance(saved, dict) or saved.get("currency") != now.get("currency"):
        return []
    out = []
    for metric in ("tco_total", "run_days"):
        for fabric, figs in now.get("fabrics", {}).items():
            old = (saved.get("fabrics") or {}).get(fabric)
            if not isinstance(old, dict):
                continue
            if _differs(old.get(metric), figs.get(metric), tolerance):
                out.append(Change(fabric, metric, old.get(metric), figs.get(metric)))
    return out


if __name__ == "__main__":  # python -m costmodel.scenario.formats snapshot [N]
    if sys.argv[1:2] == ["snapshot"]:
        print(write_snapshot(int(sys.argv[2]) if len(sys.argv) > 2 else CURRENT))
    else:
        sys.exit("usage: python -m costmodel.scenario.formats snapshot [format]")
