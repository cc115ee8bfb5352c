"""Chinese throughout, below the pages: money in 万 / 亿, plain numbers (never 2.499e+04), the
claims' explanations and the model's refusals as codes the UI translates (field labels, ranges)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from costmodel import cli
from costmodel.catalog.formatting import format_sig
from costmodel.errors import ScenarioError
from costmodel.evidence.claims import WHY_EN, check_all, explanation_text
from store.documents import import_price_book, import_scenario
from store.errors import ImportRejected
from webui.charts.base import money_ticks
from webui.i18n import labels
from webui.i18n.money import Money
from webui.i18n.translator import Translator, catalog

DATA = Path(__file__).resolve().parents[1] / "data"
ZH, EN = Translator("zh"), Translator("en")
SCI = re.compile(r"\d[eE][+-]?\d")
#: Latin words a Chinese explanation or message may carry: units, products, cited works, JSON's
#: own words (true / false) and the ids of fields, fabrics and GPUs a refused file itself names.
ALLOWED = {"GB", "Gb", "CPU", "GPU", "TCP", "RDMA", "NCCL", "Llama", "Daly", "Cai", "IP", "GbE", "RoCEv2", "iWARP",
           "InfiniBand", "HDR", "NDR", "XDR", "UTF", "JSON", "KiB", "true", "false", "kWh", "TDP", "MFU", "PUE",
           "NVIDIA", "SXM", "B200", "H100", "H200", "A100", "A10", "A30", "PCIe"}


def _latin(text: str, also: set[str] = frozenset()) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text) if len(w) > 1 and w not in ALLOWED | also}


# ---------------------------------------------------------------------------- money


@pytest.mark.parametrize("value, zh, en", [
    (52_780_000, "¥5,278 万", "¥52.78 M"),
    (5_278_000, "¥527.8 万", "¥5.28 M"),
    (123_456_789, "¥1.23 亿", "¥123.46 M"),
    (9_999_999, "¥1,000 万", "¥10.00 M"),
    (99_999_999, "¥1.00 亿", "¥100.00 M"),
    (12_345, "¥1.23 万", "¥12.35 k"),
    (950, "¥950", "¥950"),
    (-3.2e9, "−¥32.00 亿", "−¥3.20 B"),
])
def test_compact_money_counts_in_wan_and_yi_in_chinese_and_keeps_english(value, zh, en):
    assert Money("CNY", "CNY", 1.0, "zh").short(value) == zh
    assert Money("CNY", "CNY", 1.0, "en").short(value) == en
    assert Money("CNY", "CNY", 1.0).short(value) == en  # English is the default


def test_display_formatter_and_delta_keep_the_language():
    money = Money("USD", "CNY", 7.1, "zh")
    assert money.display.lang == "zh" and money.display.rate == 1.0 and money.display.model_currency == "CNY"
    assert money.display.short(52_780_000) == "¥5,278 万"
    assert money.delta(-1_000_000) == "-¥710.0 万" and money.delta(2e7) == "+¥1.42 亿"


def test_chinese_money_axis_ticks_are_round_wan_and_yi():
    money = Money("CNY", "CNY", 1.0, "zh").short
    ticks = money_ticks([0, 5.3e7], money)
    assert ticks["ticktext"] == ["¥0", "¥1,000 万", "¥2,000 万", "¥3,000 万", "¥4,000 万", "¥5,000 万", "¥6,000 万"]
    log = money_ticks([3e6, 2e9], money, log=True)
    assert log["ticktext"] == ["¥1,000 万", "¥1 亿", "¥10 亿"]
    assert all(not _latin(t) for t in ticks["ticktext"] + log["ticktext"])


@pytest.mark.parametrize("value, text", [(24990.3, "24,990"), (1.7623e6, "1,762,000"), (3.6e10, "36,000,000,000"),
                                         (0.00007292, "0.00007292"), (-12.5, "-12.5"), (4.0, "4")])
def test_plain_numbers_never_use_scientific_notation(value, text):
    assert format_sig(value) == text


def test_cli_risk_prints_plain_numbers(capsys):
    assert cli.main(["risk", "--preset", "seed-case2-24xA100", "--draws", "500", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "prob_cheaper_than_baseline" in out and "Tornado" in out
    assert not SCI.search(out), [line for line in out.splitlines() if SCI.search(line)]
    assert "3,200,000" in out  # the batch size's range, once printed 3.200000e+06


# ---------------------------------------------------------------------------- claims


CLAIMS = check_all()


def test_every_claim_explains_itself_with_codes_whose_english_is_the_cli_text():
    for c in CLAIMS:
        assert c.why and all(part["code"] in WHY_EN for part in c.why), c
        assert explanation_text(c.why) == c.explanation


def test_every_explanation_code_has_a_template_in_both_languages():
    for code in WHY_EN:
        assert f"claim_why.{code}" in catalog("zh") and f"claim_why.{code}" in catalog("en"), code


def test_claims_read_in_chinese_with_names_and_wan_not_ids_and_english():
    ids = {"tcp-100", "roce-100", "roce-200", "ib-ndr-400", "ib-xdr-800", "ib-hdr-200", "iwarp-100"}
    for c in CLAIMS:
        text = labels.claim_why(ZH, c.why)
        assert not _latin(text), (c.metric, text)
        assert not any(i in text for i in ids), text
    money = [labels.claim_why(ZH, c.why) for c in CLAIMS if c.why[0]["code"] == "money"]
    assert money and all("万" in m for m in money)


# ---------------------------------------------------------------------------- refusals


def _refusal(path: Path) -> ImportRejected:
    read = import_price_book if path.name.startswith("pricebook") else import_scenario
    with pytest.raises(ImportRejected) as info:
        read(path.read_bytes())
    return info.value


FILES = sorted((DATA / "malformed").glob("*.json")) + sorted((DATA / "hostile_imports").glob("*.json"))


def _cause(exc: BaseException) -> ScenarioError | None:
    while exc is not None and not isinstance(exc, ScenarioError):
        exc = exc.__context__
    return exc


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_refused_file_carries_codes_and_reads_in_chinese(path):
    exc = _refusal(path)
    se = _cause(exc)
    if se is not None:
        assert se.details and all(d["code"] != "text" for d in se.details), se.details
    zh = labels.error_text(ZH, exc)
    assert labels.error_text(EN, exc) == str(exc)  # English pages keep the model's own message
    # no English sentence is left: any Latin word is one the file itself wrote (a key, an id, a value)
    # or a schema name (allowed fields, choices such as dp / fsdp)
    written = set(re.findall(r"[A-Za-z][A-Za-z0-9]*", path.read_text("utf-8", errors="replace")))
    english = {"the", "is", "not", "allowed", "must", "got", "and", "field", "unknown", "range", "out", "of", "valid",
               "at", "most", "bytes", "file", "empty", "one", "or", "an", "be", "with", "too", "given", "twice"}
    assert not (_latin(zh, written) & english), zh


@pytest.mark.parametrize("name, label, allowed", [
    ("nodes_zero.json", "节点数（GPU 服务器）", "≥ 1 且 ≤ 100,000"),
    ("pue_below_one.json", "PUE", "≥ 1 且 ≤ 3"),
    ("instalments_longer_than_horizon.json", "分期期限 [月]", "36 个月"),
    ("baseline_not_in_fabrics.json", "基准网络", "必须是参与对比的网络之一"),
])
def test_a_chinese_refusal_names_the_field_by_its_label_and_the_range(name, label, allowed):
    text = labels.error_text(ZH, _refusal(DATA / "malformed" / name))
    assert text.startswith(f"{label}：") and allowed in text, text


def test_a_price_book_refusal_names_the_item_and_the_discount():
    text = labels.error_text(ZH, _refusal(DATA / "hostile_imports" / "pricebook-negative-price.json"))
    assert text.startswith("网卡价格（RoCEv2 400 Gb/s）：") and "≥ 0 且 ≤ 1,000,000,000" in text, text
    text = labels.error_text(ZH, _refusal(DATA / "hostile_imports" / "pricebook-discount-120.json"))
    assert text.startswith("网卡折扣：") and "≤ 95" in text, text


def test_link_and_store_messages_read_in_chinese():
    from webui.session import share

    with pytest.raises(share.LinkError) as info:
        share.decode("seed-intro-32xA100", "not-a-token!")
    assert labels.error_text(ZH, info.value) == "链接中的方案已损坏（不是有效的编码）"
    token = share.encode(share.preset_scenario("blank").model_copy(update={"name": "x"}), "blank")
    with pytest.raises(share.LinkError) as info:  # a valid token whose scenario the schema refuses
        import base64
        import json
        import zlib

        bad = json.dumps({"cluster": {"nodes": 0}}).encode()
        share.decode("blank", base64.urlsafe_b64encode(zlib.compress(bad)).decode().rstrip("="))
    assert token and labels.error_text(ZH, info.value).startswith("链接中的方案无效：节点数（GPU 服务器）：")
    # the share link the store refuses (webui.session.state keeps the store's coded error, or one of its own)
    assert labels.error_text(ZH, share.LinkError("this link is not valid", "link_not_valid")) == "此链接无效"
    with pytest.raises(ImportRejected) as empty:
        import_scenario(b"  ")
    assert labels.error_text(ZH, empty.value) == "方案文件为空"


# ---------------------------------------------------------------------------- one term each


LOCALES = Path(__file__).resolve().parents[2] / "webui" / "i18n" / "locales"
#: The Chinese term used everywhere, and the other translations it replaces.
TERMS = {"价格表": ("价格簿",), "方案": ("场景",)}


def _other_terms(paths) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        hits = [other for others in TERMS.values() for other in others if other in text]
        if hits:
            found[path.name] = hits
    return found


def test_the_main_chinese_catalog_uses_one_term_for_price_book_and_scenario():
    assert not _other_terms([LOCALES / "zh.yaml"])
    assert "价格表" in catalog("zh")["nav.price_books"] and "方案" in catalog("zh")["nav.scenarios"]


def test_every_chinese_locale_file_uses_one_term_for_price_book_and_scenario():
    assert not _other_terms(sorted((LOCALES / "zh").glob("*.yaml")))


def test_format_version_refusals_read_in_chinese():
    from costmodel.scenario import formats
    from webui.i18n import labels
    from webui.i18n.translator import Translator
    from webui.session import share

    zh = Translator("zh")
    with pytest.raises(share.LinkError) as link:
        share.decode("seed-intro-32xA100", "9.abc")
    assert labels.error_text(zh, link.value).startswith("此链接由另一版本的规划器生成")
    with pytest.raises(Exception) as newer:
        formats.upgrade({"format": 99})
    shown = labels.error_text(zh, newer.value)
    assert shown.startswith("文件格式") and "更新版本" in shown and "planner" not in shown
