"""The data files: sources, ranges, pricing, presets."""

import pytest

import costmodel
from costmodel.catalog.loader import FAMILIES, Quantity, load_catalog

CAT = load_catalog()


def _quantities(obj, where=""):
    if isinstance(obj, Quantity):
        yield where, obj
    elif hasattr(type(obj), "model_fields"):
        for name in type(obj).model_fields:
            yield from _quantities(getattr(obj, name), f"{where}.{name}")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _quantities(v, f"{where}.{k}")


def test_every_number_has_a_known_source_and_date():
    found = list(_quantities(CAT))
    assert len(found) > 300
    for where, q in found:
        assert q.source in CAT.references, where
        assert q.lo <= q.typical <= q.hi, where
        assert len(q.as_of) == 7, where


def test_catalog_covers_what_the_issue_lists():
    assert {"a10", "a30", "a100-40", "a100-80", "h100", "h200", "b200"} <= set(CAT.gpus)
    assert {"tcp-100", "tcp-200", "tcp-400", "roce-200", "roce-400", "iwarp-100",
            "ib-hdr-200", "ib-ndr-400", "ib-xdr-800"} <= set(CAT.fabrics)
    assert {f.family for f in CAT.fabrics.values()} == set(FAMILIES)
    assert "public" in CAT.price_books


def test_seed_claims_are_never_a_default_source():
    """The article may define its own decision rule and the blank scenario's tier boundary,
    never a technical or price figure."""
    for where, q in _quantities(CAT):
        allowed = where.startswith(".seed_rule") or where.endswith("cluster.nodes")
        assert CAT.references[q.source].kind != "seed-claim" or allowed, where


# Fabrics with no published NCCL all-reduce measurement: NCCL runs its socket transport on them
# (its verbs path needs what iWARP NICs lack, nccl-net-ib), and the data file says so in a note.
NO_PUBLISHED_MEASUREMENT = {"iwarp-100"}


def test_efficiency_sources_are_measurements():
    for fid, spec in CAT.fabrics.items():
        kind = CAT.references[spec.efficiency.source].kind
        if fid in NO_PUBLISHED_MEASUREMENT:
            assert kind == "standard" and "NCCL fallback: sockets" in spec.efficiency.note, fid
            tcp = CAT.fabrics["tcp-100"].efficiency
            assert spec.efficiency.typical == tcp.typical  # what NCCL would really run
        else:
            assert kind == "measurement", fid
        assert CAT.references[spec.interruption_rate_per_endpoint_hour.source].kind == "measurement", fid


@pytest.mark.parametrize("pid", costmodel.list_presets())
def test_presets_are_valid_and_carry_claims(pid):
    from costmodel.scenario.presets import get_preset

    preset = get_preset(pid)
    if preset.source == "seed-article":  # the article's cases carry its claims; other presets cite a design
        assert preset.claims, pid
        assert any(c.metric == "run_days_ratio" for c in preset.claims)
    else:
        assert preset.source in CAT.references and not preset.claims, pid
    for c in preset.claims:
        assert c.fabric in preset.scenario.fabrics
    res = costmodel.evaluate(preset.scenario)
    assert len(res.fabrics) == len(preset.scenario.fabrics)


def test_the_four_seed_presets_exist():
    assert set(costmodel.list_presets()) >= {
        "seed-intro-32xA100", "seed-case1-8xA10", "seed-case2-24xA100", "seed-case3-128xH100"}
