"""The China-market reference price book (CNY): every item of the catalog priced, every price sourced,
dated and ranged; published China prices kept as published, every other price derived as the public
USD price × the reference rate × its category's stated factor, and labelled an estimate."""

from __future__ import annotations

import shutil

import pytest
import yaml

from costmodel.catalog import cn_prices
from costmodel.catalog.currency import reference_rate
from costmodel.catalog.loader import DATA_DIR, MARKET_FILE, load_catalog
from costmodel.errors import CatalogError

CAT = load_catalog()
MARKET = yaml.safe_load((DATA_DIR / MARKET_FILE).read_text(encoding="utf-8"))
BOOK = CAT.price_book(MARKET["id"])
PUBLIC = CAT.price_book(MARKET["base"])
FX = reference_rate("USD", "CNY")
ESTIMATE = "cn-import-estimate"
UNITLESS = set(MARKET["unitless"])


def _items():
    """(kind, item id, field, CNY quantity, public quantity) for every price of the book."""
    for kind, book_items, pub_items in (("gpus", BOOK.gpus, PUBLIC.gpus), ("fabrics", BOOK.fabrics, PUBLIC.fabrics)):
        for item_id, prices in book_items.items():
            for field in type(prices).model_fields:
                yield kind, item_id, field, getattr(prices, field), getattr(pub_items[item_id], field)


ITEMS = list(_items())


def test_the_book_is_in_cny_and_prices_every_catalog_item():
    assert BOOK.currency == "CNY" and PUBLIC.currency == "USD"
    assert set(BOOK.gpus) == set(CAT.gpus) and set(BOOK.fabrics) == set(CAT.fabrics)
    assert {"h100", "h200", "a100-80", "a100-40"} <= set(BOOK.gpus)
    assert BOOK.name_zh == "中国市场参考价 2025（人民币）"


@pytest.mark.parametrize(("kind", "item", "field", "q", "pub"), ITEMS, ids=[f"{i[1]}.{i[2]}" for i in ITEMS])
def test_every_price_is_sourced_dated_and_ranged(kind, item, field, q, pub):
    assert q.source in CAT.references, q.source
    assert CAT.references[q.source].url or q.source == ESTIMATE  # a published price names where
    assert len(q.as_of) == 7 and q.as_of[4] == "-" and "2023-01" <= q.as_of <= "2026-12", q.as_of
    if field in UNITLESS:
        assert q == pub  # a share, not money: unchanged
        return
    assert q.low is not None and q.high is not None
    assert 0 < q.low <= q.typical <= q.high
    assert q.note, "every China price says where it comes from"


@pytest.mark.parametrize(("kind", "item", "field", "q", "pub"),
                         [i for i in ITEMS if i[3].source == ESTIMATE], ids=lambda v: v if isinstance(v, str) else "")
def test_an_estimate_is_the_public_price_times_the_rate_and_its_stated_factor(kind, item, field, q, pub):
    group = cn_prices.gpu_group(item, MARKET) if kind == "gpus" else cn_prices.fabric_group(
        item, {"family": CAT.fabrics[item].family}, MARKET["fabric_groups"])
    f = MARKET["factors"][group][field]
    assert q.typical == pytest.approx(pub.typical * FX * f["typical"], rel=0.01)
    assert q.low == pytest.approx(pub.lo * FX * f["low"], rel=0.01)
    assert q.high == pytest.approx(pub.hi * FX * f["high"], rel=0.01)
    assert q.note.startswith("estimate: public") and f"x {f['typical']:g} import/channel factor" in q.note


def test_published_china_prices_are_kept_as_published():
    published = [(k, i, f, q) for k, i, f, q, _ in ITEMS if q.source != ESTIMATE and f not in UNITLESS]
    assert {(i, f) for _, i, f, _ in published} >= {("h100", "server_price"), ("h200", "server_price"),
                                                      ("h100", "gpu_price"), ("a100-80", "gpu_price")}
    for kind, item, field, q in published:
        raw = MARKET["prices"][kind][item][field]
        assert (q.typical, q.low, q.high, q.source, q.as_of) == (raw["typical"], raw["low"], raw["high"],
                                                                 raw["source"], raw["as_of"])
    # the China H100 server costs more than the US one at the reference rate: a grey-channel premium
    assert BOOK.gpus["h100"].server_price.typical > PUBLIC.gpus["h100"].server_price.typical * FX


def test_nvidia_networking_is_imported_and_ethernet_bought_at_home():
    groups = MARKET["fabric_groups"]
    assert cn_prices.fabric_group("ib-ndr-400", {"family": "infiniband"}, groups) == "nvidia"
    assert cn_prices.fabric_group("roce-ar-400", {"family": "roce"}, groups) == "nvidia"
    assert cn_prices.fabric_group("roce-400", {"family": "roce"}, groups) == "ethernet"
    ib, eth = BOOK.fabrics["ib-ndr-400"].switch_price, BOOK.fabrics["roce-400"].switch_price
    assert ib.typical > PUBLIC.fabrics["ib-ndr-400"].switch_price.typical * FX
    assert eth.typical < PUBLIC.fabrics["roce-400"].switch_price.typical * FX


def test_a_fabric_added_to_the_public_book_gets_a_cny_estimate(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    fabrics = yaml.safe_load((data / "fabrics.yaml").read_text(encoding="utf-8"))
    fabrics["fabrics"]["roce-1600"] = {**fabrics["fabrics"]["roce-400"], "name": "RoCEv2 1,600 Gb/s"}
    (data / "fabrics.yaml").write_text(yaml.safe_dump(fabrics, allow_unicode=True), encoding="utf-8")
    book = yaml.safe_load((data / "pricebooks" / "public.yaml").read_text(encoding="utf-8"))
    book["fabrics"]["roce-1600"] = dict(book["fabrics"]["roce-400"])
    (data / "pricebooks" / "public.yaml").write_text(yaml.safe_dump(book, allow_unicode=True), encoding="utf-8")
    cat = load_catalog(data)
    assert cat.price_book(MARKET["id"]).fabrics["roce-1600"] == BOOK.fabrics["roce-400"]


def test_a_market_file_naming_an_unknown_factor_is_refused(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    market = dict(MARKET, factors={k: v for k, v in MARKET["factors"].items() if k != "nvidia"})
    (data / MARKET_FILE).write_text(yaml.safe_dump(market, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match=MARKET_FILE):
        load_catalog(data)


def test_round_sig_keeps_three_digits():
    assert cn_prices.round_sig(2_485_300.0) == 2_490_000.0
    assert cn_prices.round_sig(0.60349, 3) == 0.603
