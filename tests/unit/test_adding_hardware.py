"""The worked example of docs/adding-a-fabric.md, on a temporary copy of the data files."""

from __future__ import annotations

import shutil

import pytest
import yaml

from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.errors import CatalogError


def _copy(tmp_path):
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    return dst


def _add_fabric(data_dir, priced: bool):
    fabrics = yaml.safe_load((data_dir / "fabrics.yaml").read_text(encoding="utf-8"))
    entry = dict(fabrics["fabrics"]["roce-400"])
    entry.update(name="RoCEv2 1,600 Gb/s", name_zh="RoCEv2 1,600 Gb/s",
                 port_gbps={"typical": 1600, "source": "ieee-8023", "as_of": "2025-06"})
    fabrics["fabrics"]["roce-1600"] = entry
    (data_dir / "fabrics.yaml").write_text(yaml.safe_dump(fabrics, allow_unicode=True), encoding="utf-8")
    if priced:
        book_path = data_dir / "pricebooks" / "public.yaml"
        book = yaml.safe_load(book_path.read_text(encoding="utf-8"))
        book["fabrics"]["roce-1600"] = dict(book["fabrics"]["roce-400"])
        book_path.write_text(yaml.safe_dump(book, allow_unicode=True), encoding="utf-8")


def test_a_priced_new_fabric_loads(tmp_path):
    data = _copy(tmp_path)
    _add_fabric(data, priced=True)
    cat = load_catalog(data)
    assert cat.fabrics["roce-1600"].port_gbps.typical == 1600
    assert "roce-1600" in cat.price_books["public"].fabrics


def test_an_unpriced_new_fabric_is_refused(tmp_path):
    data = _copy(tmp_path)
    _add_fabric(data, priced=False)
    with pytest.raises(CatalogError, match="roce-1600"):
        load_catalog(data)


def test_an_unknown_source_is_refused(tmp_path):
    data = _copy(tmp_path)
    text = (data / "gpus.yaml").read_text(encoding="utf-8").replace("source: nvidia-datasheets", "source: blog", 1)
    (data / "gpus.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match="unknown source key 'blog'"):
        load_catalog(data)
