"""The format-1 fixtures (tests/data/formats/v1, made by commit 45aa0b2's code) and their checks."""

from __future__ import annotations

import json
from pathlib import Path

import costmodel

V1 = Path(__file__).resolve().parent / "data" / "formats" / "v1"
MANIFEST = json.loads((V1 / "manifest.json").read_text(encoding="utf-8"))


def figures(scenario: costmodel.Scenario) -> dict:
    """What the manifest records: currency, horizon [years], per fabric TCO [currency] and days per run."""
    r = costmodel.evaluate(scenario)
    return {"currency": r.currency, "horizon_years": r.horizon_years,
            "fabrics": {f.id: {"tco_total": f.tco_total, "run_days": f.metrics["run_days"]} for f in r.fabrics}}


def assert_same_results(got: dict, made: dict) -> None:
    """Same currency, horizon, fabrics and figures, every figure recomputed and finite.

    The figures themselves are the model's of the day: format 4 (the step-time model)
    changed run lengths and with them every TCO, so a saved file keeps its scenario exactly (the
    tests compare the scenarios) but not the figures it was saved with; a store version's summary
    says when they changed (``formats.SUMMARY_TOLERANCE``).
    """
    import math

    assert (got["currency"], got["horizon_years"]) == (made["currency"], made["horizon_years"])
    assert sorted(got["fabrics"]) == sorted(made["fabrics"])
    for fid, figs in made["fabrics"].items():
        for metric in figs:
            assert math.isfinite(got["fabrics"][fid][metric]) and got["fabrics"][fid][metric] > 0, (fid, metric)


#: fields a later format added (their defaults fill them) or replaced, by the format that did it
ADDED_FIELDS = {"workload": ("target_run_days", "virtual_stages", "micro_batch_seqs", "seq_len", "tensor_parallel",
                             "layers", "experts", "top_k", "expert_parallel", "active_params_b", "a2a_overlap",
                             "moe_node_dedup", "fused_attention", "sequence_parallel",  # format 5: physics
                             "moe_max_nodes", "recompute", "precision", "dualpipe", "zero_stage"),
                "cluster": ("oversubscription", "nodes_per_rack", "spare_switch_frac", "spare_cable_frac",
                            "spare_optic_frac", "in_network_reduction", "hot_spare_node_frac",
                            "frontend_network", "reuse_existing_switches", "existing_switch_gbps",  # bill of materials
                            "scaleup_domain_gpus"),  # format 6: rack-scale domains
                "operations": ("node_repair_hours", "network_staff_fte", "cluster_staff_fte",
                               "staff_cost_per_fte_year"),  # staff floor
                # finance and carbon
                "finance": ("tax_region", "tax_rate", "depreciation_years_servers", "depreciation_years_network"),
                "facility": ("grid_region", "grid_kg_per_kwh",
                             "cooling", "build_cooling", "rack_power_limit_kw", "cooling_capex_per_kw")}  # format 6
REPLACED_FIELDS = {"workload": ("pipeline_microbatches",)}  # format 4: micro_batch_seqs
#: price-book fields added after a link was made: a link's frozen quote lacks them, and
#: decoding it leaves them at the book's price
ADDED_PRICE_FIELDS = {"gpus": ("frontend_per_node",),
                      "fabrics": ("aec_price", "aoc_price", "fibre_price", "install_per_link", "support_frac")}


def without_added_prices(dumped: dict) -> dict:
    """A scenario dump with the quoted prices of :data:`ADDED_PRICE_FIELDS` taken out."""
    book = dumped.get("custom_price_book")
    if not book:
        return dumped
    trimmed = {group: {item: {k: v for k, v in prices.items() if k not in ADDED_PRICE_FIELDS[group]}
                       for item, prices in book[group].items()} for group in ADDED_PRICE_FIELDS}
    return dumped | {"custom_price_book": book | trimmed}


#: quoted prices of the format-1 files' derived books whose public list price changed since (the 2026
#: book: optics per module, a 12.8 T switch for 100G): a link froze the quote of its day (the format-1
#: list price less the file's discount, switches −20 %), while a file's derived book follows the live book
QUOTES_OF_FORMAT_1 = {"fabrics": {"tcp-100": {"switch_price": 12000.0, "optic_price": 150.0}}}


def as_linked(dumped: dict) -> dict:
    """An exported file's quote (:func:`quote_only`) with the prices a format-1 link froze where the
    public book has changed them since (:data:`QUOTES_OF_FORMAT_1`)."""
    book = dumped.get("custom_price_book")
    if not book:
        return dumped
    frozen = {group: {item: prices | QUOTES_OF_FORMAT_1[group].get(item, {}) for item, prices in book[group].items()}
              for group in QUOTES_OF_FORMAT_1}
    return dumped | {"custom_price_book": book | frozen}


def assert_same_scenario(dumped: dict, saved: dict) -> None:
    """Every field the old file saved is unchanged in the opened scenario, except the ones a later
    format replaced; the fields later formats added hold their defaults or what a migration set."""
    from costmodel.scenario.schema import Cluster, Workload

    for section, value in saved.items():
        if not isinstance(value, dict) or section not in ADDED_FIELDS:
            assert dumped[section] == value, section
            continue
        kept = {k: v for k, v in value.items() if k not in REPLACED_FIELDS.get(section, ())}
        assert {k: dumped[section][k] for k in kept} == kept, section
        added = set(dumped[section]) - set(value)
        assert added <= set(ADDED_FIELDS[section]), added
    for section, model, names in (("workload", Workload, ("virtual_stages", "seq_len", "tensor_parallel", "layers")),
                                  ("cluster", Cluster, ADDED_FIELDS["cluster"])):
        defaults = model.model_fields
        for name in names:
            if name not in saved.get(section, {}):
                field = defaults[name]
                default = field.default_factory() if field.default_factory else field.default
                assert dumped[section][name] == default, name


def v1_file(name: str) -> bytes:
    """The bytes of an exported format-1 file by its manifest name."""
    return (V1 / MANIFEST["exports"][name]["file"]).read_bytes()


def restore_v1_store(path: Path) -> Path:
    """The format-1 store (kept as SQLite's text dump, ``store.sql``) restored into a new SQLite file."""
    return restore_store(V1, path)


# -- format 3 (tests/data/formats/v3, made by commit a72e2d8's code: see its README.md) ---------
V3 = V1.parent / "v3"
MANIFEST_V3 = json.loads((V3 / "manifest.json").read_text(encoding="utf-8"))


def v3_file(name: str) -> bytes:
    """The bytes of an exported format-3 file by its manifest name."""
    return (V3 / MANIFEST_V3["exports"][name]["file"]).read_bytes()


def restore_store(folder: Path, path: Path) -> Path:
    """A fixture folder's store (SQLite's text dump, ``store.sql``) restored into a new SQLite file."""
    import sqlite3

    con = sqlite3.connect(path)
    try:
        con.executescript((folder / "store.sql").read_text(encoding="utf-8"))
    finally:
        con.close()
    return path
