"""The catalog says which NCCL transport each fabric runs (fabrics.yaml ``nccl_transport``): verbs on
InfiniBand and RoCE, sockets on TCP and on iWARP (no RDMA write-with-immediate); Compare's "NCCL
fallback: sockets" label follows that field, not the wording of a note."""

from __future__ import annotations

import re
import shutil

import pytest
import yaml

from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.errors import CatalogError


def _data(tmp_path, edit) -> object:
    """A catalog loaded from a copy of the data files whose fabrics.yaml ``edit`` changed."""
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    doc = yaml.safe_load((dst / "fabrics.yaml").read_text(encoding="utf-8"))
    edit(doc["fabrics"])
    (dst / "fabrics.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return load_catalog(dst)


def test_each_family_runs_the_transport_nccl_has_for_it():
    cat = load_catalog()
    by_family = {}
    for spec in cat.fabrics.values():
        by_family.setdefault(spec.family, set()).add(spec.nccl_transport)
    assert by_family == {"tcp": {"socket"}, "iwarp": {"socket"}, "roce": {"verbs"}, "infiniband": {"verbs"}}
    assert {f for f, spec in cat.fabrics.items() if spec.socket_fallback} == {"iwarp-100"}


def test_the_fallback_follows_the_field_not_the_efficiency_note(tmp_path):
    def edit(fabrics):
        fabrics["iwarp-100"]["efficiency"]["note"] = "a reworded note"  # the old prefix gone
        fabrics["roce-200"]["nccl_transport"] = "socket"  # e.g. RoCE NICs without a working verbs path

    cat = _data(tmp_path, edit)
    assert cat.fabrics["iwarp-100"].socket_fallback and cat.fabrics["roce-200"].socket_fallback
    assert not cat.fabrics["tcp-100"].socket_fallback  # sockets are TCP's own transport, not a fallback


def test_an_unknown_transport_or_a_missing_one_is_refused_naming_the_field(tmp_path):
    with pytest.raises(CatalogError, match="nccl_transport"):
        _data(tmp_path, lambda f: f["ib-ndr-400"].update(nccl_transport="ucx"))
    shutil.rmtree(tmp_path / "data")
    with pytest.raises(CatalogError, match="nccl_transport"):
        _data(tmp_path, lambda f: f["ib-ndr-400"].pop("nccl_transport"))


def test_the_field_cites_its_source():
    text = (DATA_DIR / "fabrics.yaml").read_text(encoding="utf-8")
    header = text[:text.index("fabrics:")]
    cited = re.search(r"nccl_transport = .*?source: ([a-z0-9-]+)", header, re.S)
    assert cited and cited.group(1) in load_catalog().references
