"""Named errors: the solver's and the simulation's refusals are classes with the field and the allowed
range, and every refusal the app translates carries its code from where it is raised.

The app's Chinese pages translate by code (``err.<code>``), never by matching the English text: the
tables of regular expressions that did (``validation._OWN_CODES``, ``labels._KNOWN_MESSAGES``) are gone.
"""

from __future__ import annotations

import base64
import zlib

import pytest
from pydantic import ValidationError

import costmodel
import store
from costmodel.analysis import breakeven, uncertainty
from costmodel.errors import ChoiceError, CodedError, FieldError, InputError, RangeError, ScenarioError
from costmodel.scenario import formats, validation
from store.documents import import_scenario
from store.errors import ImportRejected, NotFound
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.session import share

ZH, EN = Translator("zh"), Translator("en")
SCENARIO = costmodel.Scenario()
BLANK_FABRICS = list(SCENARIO.fabrics)  # the baseline first


# ---------------------------------------------------------------------------- solver and simulation

@pytest.mark.parametrize(("call", "kind", "field", "allowed", "message"), [
    (lambda: breakeven.break_even(SCENARIO, "ib-ndr-400", "no_such"), ChoiceError, "parameter",
     "one of " + ", ".join(breakeven.PARAMETERS), "unknown parameter 'no_such'; allowed: "),
    (lambda: breakeven.break_even(SCENARIO, "tcp-100", "pue"), ChoiceError, "fabric",
     "one of " + ", ".join(BLANK_FABRICS[1:]), "fabric 'tcp-100' must be a non-baseline fabric of the scenario"),
    (lambda: breakeven.break_even(SCENARIO, "ib-ndr-400", "switch_price", applies_to="roce-400"), ChoiceError,
     "applies_to", "one of ib-ndr-400, tcp-100", "applies_to 'roce-400' for switch_price: allowed: ib-ndr-400"),
    (lambda: breakeven.break_even(SCENARIO, "ib-ndr-400", "pue", applies_to="tcp-100"), InputError,
     "applies_to", "None", "pue is a scenario-level input: applies_to must be None"),
    (lambda: breakeven.break_even(SCENARIO, "ib-ndr-400", "pue", points=1), RangeError, "points",
     f"2 to {breakeven.MAX_VALUES:,}", "pue: points must be a whole number from 2 to 100,000"),
    (lambda: breakeven.delta_curve(SCENARIO, "ib-ndr-400", "pue", [1.2, 9.0]), RangeError, "pue",
     "1 to 3 ratio", "pue: values must be finite numbers in [1, 3] ratio (got 9)"),
    (lambda: breakeven.delta_curve(SCENARIO, "ib-ndr-400", "pue", ["x"]), InputError, "pue", "numbers",
     "pue: values must be numbers"),
    (lambda: breakeven.break_even(SCENARIO, "ib-ndr-400", "pue", lo=2.0, hi=2.0), InputError, "lo", "lo < hi",
     "pue: need lo < hi (got lo=2, hi=2)"),
    (lambda: uncertainty.monte_carlo(SCENARIO, draws=0), RangeError, "draws",
     f"1 to {uncertainty.MAX_DRAWS:,}", "draws must be between 1 and"),
    (lambda: uncertainty.tornado(SCENARIO, "no-such"), ChoiceError, "fabric",
     "one of " + ", ".join(BLANK_FABRICS), "fabric 'no-such' is not among the scenario's fabrics"),
])
def test_solver_and_simulation_refusals_are_named(call, kind, field, allowed, message):
    with pytest.raises(kind) as err:
        call()
    assert type(err.value) is kind and isinstance(err.value, ValueError)  # callers catching ValueError still do
    assert err.value.field == field and err.value.allowed == allowed
    assert str(err.value).startswith(message), str(err.value)


def test_a_range_error_carries_its_bounds():
    with pytest.raises(RangeError) as err:
        breakeven.delta_curve(SCENARIO, "ib-ndr-400", "nodes", [0])
    assert (err.value.lo, err.value.hi, err.value.got, err.value.unit, err.value.parameter) == (1, 100_000, 0,
                                                                                                "nodes", "nodes")
    with pytest.raises(RangeError) as err:
        uncertainty.monte_carlo(SCENARIO, draws=uncertainty.MAX_DRAWS + 1)
    assert (err.value.lo, err.value.hi, err.value.got) == (1, uncertainty.MAX_DRAWS, uncertainty.MAX_DRAWS + 1)


def test_the_app_names_the_solver_input_in_chinese():
    with pytest.raises(InputError) as err:
        breakeven.break_even(SCENARIO, "ib-ndr-400", "pue", lo=2.0, hi=2.0)
    label = labels.field_label(ZH, "pue")
    assert label != "pue" and labels.error_text(ZH, err.value) == f"{label}：盈亏平衡求解器无法在此方案中使用该输入"
    assert labels.error_text(EN, err.value) == str(err.value)
    # a scenario-level input given a fabric: the message used to stay English in Chinese pages
    with pytest.raises(InputError) as err:
        breakeven.break_even(SCENARIO, "ib-ndr-400", "pue", applies_to="tcp-100")
    assert "盈亏平衡求解器" in labels.error_text(ZH, err.value)


# ---------------------------------------------------------------------------- codes at the source

def test_the_regex_tables_are_gone():
    assert not hasattr(validation, "_OWN_CODES") and not hasattr(validation, "_own_problem")
    assert not hasattr(labels, "_KNOWN_MESSAGES")


def test_schema_validators_raise_coded_field_errors():
    with pytest.raises(ScenarioError) as err:
        validation.validate_price_book({"name": "a", "discounts": {"nics": 120.0}})
    assert err.value.details == [{"path": "discounts.nics", "code": "out_of_range",
                                  "values": {"got": "120", "lo": "0", "hi": "95"}}]
    assert str(err.value) == "discounts.nics: 120 is out of range; allowed: ≥ 0 and ≤ 95 [%]"
    assert labels.error_text(ZH, err.value) == "网卡折扣：120 超出范围；允许：≥ 0 且 ≤ 95"
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario_from_dict({"finance": {"payment": "instalments", "instalment_months": 180}})
    assert err.value.details == [{"path": "finance.instalment_months", "code": "instalments_beyond_horizon",
                                  "values": {"hi": "60"}}]
    assert labels.error_text(ZH, err.value).endswith("最多为评估期的 12 倍（60 个月），使每期付款都在评估期内")
    with pytest.raises(ValidationError) as raw:  # pydantic keeps the validator's coded error in the context
        costmodel.Scenario.model_validate({"fabrics": ["roce-400"], "baseline": "tcp-100"})
    cause = raw.value.errors()[0]["ctx"]["error"]
    assert isinstance(cause, FieldError) and (cause.path, cause.code) == ("baseline", "baseline_not_compared")
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario_from_dict({"fabrics": ["roce-400"], "baseline": "tcp-100"})
    assert err.value.details[0]["code"] == "baseline_not_compared"


@pytest.mark.parametrize(("make", "code", "en", "zh"), [
    (lambda: share.decode("seed-intro-32xA100", "not-a-token!"), "link_damaged",
     "the scenario in the link is damaged (not a valid token)", "链接中的方案已损坏（不是有效的编码）"),
    (lambda: share.decode("no-such", ""), "link_unknown_preset", None, "链接中的预设 'no-such' 不存在"),
    (lambda: share.decode("blank", "x" * (share.MAX_TOKEN_CHARS + 1)), "link_too_long",
     "the scenario in the link has 8,193 characters, more than the 8,192 a link may carry; save the scenario as a "
     "file on the Scenarios page and import it there",
     "链接中的方案有 8,193 个字符，超过链接可携带的 8,192 个字符；请在“方案”页把方案保存为文件，再在那里导入"),
    (lambda: share.decode("blank", "7.abc"), "link_other_version",
     "the link was made by another version of the planner (format '7'); this one reads formats 1 to "
     f"{formats.CURRENT}", f"此链接由另一版本的规划器生成（格式 '7'）；本版本可读取格式 1 至 {formats.CURRENT}"),
    (lambda: share.decode("blank", base64.urlsafe_b64encode(zlib.compress(b" " * (share.MAX_JSON_BYTES + 1)))
                          .decode().rstrip("=")), "link_too_big",
     "the scenario in the link unpacks to more than 65,536 bytes", "链接中的方案解压后超过 65,536 字节"),
    (lambda: import_scenario(b"  "), "file_empty", "the scenario file is empty", "方案文件为空"),
    (lambda: import_scenario(b"{" * 300_000), "file_too_big",
     "the scenario file is 300,000 bytes; at most 262,144 bytes are accepted",
     "方案文件大小为 300,000 字节；最多接受 262,144 字节"),
    (lambda: import_scenario("text"), "file_unreadable", "the scenario file could not be read", "无法读取方案文件"),
])
def test_link_and_import_refusals_carry_their_code(make, code, en, zh):
    with pytest.raises(CodedError) as err:
        make()
    assert err.value.code == code
    if en is not None:
        assert str(err.value) == en and labels.error_text(EN, err.value) == en
    assert labels.error_text(ZH, err.value) == zh


def test_the_stores_not_found_reads_in_chinese(tmp_path):
    db = store.open_store(f"sqlite:///{tmp_path / 's.db'}")
    for token in ("bad", "x" * 43):
        with pytest.raises(NotFound) as err:
            db.open_share_token(token)
        assert err.value.code == "link_not_valid"
        assert labels.error_text(ZH, err.value) == "此链接无效"
        assert labels.error_text(EN, err.value) == str(err.value)


@pytest.mark.parametrize(("doc", "code", "en", "zh"), [
    ({"format": 99}, "format_newer", "format: 99 was written by a newer version of the planner; this one reads "
     f"formats 1 to {formats.CURRENT}", f"格式 99 由更新版本的规划器写入；本版本可读取格式 1 至 {formats.CURRENT}"),
    ({"format": "2"}, "format_not_whole", f"format: must be a whole number ≥ 1 and ≤ {formats.CURRENT}",
     f"须为 ≥ 1 且 ≤ {formats.CURRENT} 的整数"),
])
def test_format_refusals_carry_their_code(doc, code, en, zh):
    with pytest.raises(ScenarioError) as err:
        formats.upgrade(doc)
    assert err.value.details[0]["code"] == code and str(err.value) == en
    assert labels.error_text(ZH, err.value).endswith(zh)


def test_an_uncoded_english_message_is_shown_as_it_is():
    """Text without a code is not guessed at: shown as written (the translation lives with the code)."""
    assert labels.error_text(ZH, "this link is not valid") == "this link is not valid"
    assert labels.error_text(ZH, ImportRejected("something else")) == "something else"


def test_a_solver_or_simulation_range_refusal_reads_in_chinese_with_its_range():
    with pytest.raises(RangeError) as err:
        breakeven.delta_curve(SCENARIO, "ib-ndr-400", "nodes", [0])
    text = labels.error_text(ZH, err.value)
    assert text.startswith(labels.field_label(ZH, "nodes") + "：允许范围 1 至 100,000"), text
    with pytest.raises(RangeError) as err:
        uncertainty.monte_carlo(SCENARIO, draws=uncertainty.MAX_DRAWS + 1)
    assert f"允许范围 1 至 {uncertainty.MAX_DRAWS:,}" in labels.error_text(ZH, err.value)
    with pytest.raises(ChoiceError) as err:
        uncertainty.tornado(SCENARIO, "no-such-fabric")
    text = labels.error_text(ZH, err.value)  # the fabric named by its label, the choices by their names
    assert text.startswith("网络：只能是以下之一：") and "InfiniBand NDR 400 Gb/s" in text and "ib-ndr-400" not in text
