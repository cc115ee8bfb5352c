"""Files as Windows Notepad saves them are read exactly (UTF-8 with or without a mark, UTF-16 with or
without a mark, GBK on a Chinese Windows); bytes in any other encoding are refused with a message
that says how to save the file as UTF-8 — never read into mojibake."""

from __future__ import annotations

import json

import pytest

from costmodel.scenario import encodings
from store import ImportRejected
from store.documents import import_price_book, import_scenario
from webui.i18n import labels
from webui.i18n.translator import Translator

NAME = "华东集群（64 节点）·训练—报价“终版”"
DOC = json.dumps({"name": NAME, "cluster": {"nodes": 64}}, ensure_ascii=False, indent=2)


@pytest.mark.parametrize(("raw", "encoding"), [
    (DOC.encode("utf-8"), encodings.UTF8),
    (b"\xef\xbb\xbf" + DOC.encode("utf-8"), encodings.UTF8),
    (DOC.encode("utf-16"), encodings.UTF16LE),  # Notepad's "Unicode": a mark, little endian
    (b"\xfe\xff" + DOC.encode("utf-16-be"), encodings.UTF16BE),  # "Unicode big endian"
    (DOC.encode("utf-16-le"), encodings.UTF16LE),
    (DOC.encode("utf-16-be"), encodings.UTF16BE),
    (DOC.encode("gbk"), encodings.GB18030),  # "ANSI" on a Chinese Windows
])
def test_a_scenario_saved_by_notepad_is_read_exactly(raw, encoding):
    assert encodings.decode(raw) == (DOC, encoding)
    scenario = import_scenario(raw)
    assert scenario.name == NAME and scenario.cluster.nodes == 64


@pytest.mark.parametrize(("raw", "why"), [
    (json.dumps({"name": "クラスタ"}, ensure_ascii=False).encode("shift_jis"), "Shift-JIS"),
    (json.dumps({"name": "café"}, ensure_ascii=False).encode("latin-1"), "Latin-1"),
    (json.dumps({"name": "叢集"}, ensure_ascii=False).encode("big5"), "Big5"),
    (json.dumps({"name": "集群"}, ensure_ascii=False).encode("utf-16-le")[:-1], "UTF-16 cut short"),
])
def test_other_encodings_are_refused_with_how_to_save_as_utf8_not_read_as_mojibake(raw, why):
    with pytest.raises(UnicodeDecodeError):
        encodings.decode(raw)
    with pytest.raises(ImportRejected) as err:
        import_scenario(raw)
    zh = labels.error_text(Translator("zh"), err.value)
    assert "UTF-8、UTF-16 或 GBK" in zh and "另存为 UTF-8" in zh, (why, zh)
    assert "save it as UTF-8" in str(err.value), why


def test_a_price_book_in_gbk_is_read_too():
    doc = {"name": "华东协议价", "discounts": {"nics": 10}}
    book = import_price_book(json.dumps(doc, ensure_ascii=False).encode("gbk"))
    assert book.name == "华东协议价"
