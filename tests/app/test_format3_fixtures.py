"""Format-3 files and links made by the previous release's own code (commit a72e2d8, see
tests/data/formats/v3/README.md) open in today's code as the same scenario, with format 4's
``micro_batch_seqs`` in place of ``pipeline_microbatches``, and are recomputed; the app says that an
older model made them (a file or link carries no figures to compare), and says nothing for a current one."""

from __future__ import annotations

import json
import math
import urllib.parse

import pytest
from apptest_helpers import open_page
from format_fixtures import MANIFEST_V3 as MANIFEST
from format_fixtures import assert_same_results, assert_same_scenario, figures, v3_file
from zh_words import latin_words

import costmodel
from costmodel.scenario import formats
from costmodel.scenario.schema import Workload
from store import documents
from webui.i18n.money import Money, default_rate
from webui.i18n.text import md_escape
from webui.i18n.translator import catalog
from webui.session import share

PIPELINED = ["case3-96-microbatches", "intro-pipeline-4-stages"]


def _saved(name: str) -> dict:
    """The scenario document the format-3 file holds, without its marker."""
    doc = json.loads(v3_file(name))
    assert doc.pop(formats.KEY) == 3
    return doc


def _link(name: str) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(MANIFEST["exports"][name]["link"], strict_parsing=True))


def test_the_fixtures_hold_presets_and_the_renamed_field():
    cases = MANIFEST["exports"]
    assert {"blank", "seed-case1-8xA10", "seed-case3-128xH100", "seed-intro-32xA100"} <= set(cases)
    for name in PIPELINED:
        w = _saved(name)["workload"]
        assert w["parallelism"] == "pipeline" and "micro_batch_seqs" not in w
        assert w["pipeline_microbatches"] != _saved(cases[name]["preset"])["workload"]["pipeline_microbatches"]


@pytest.mark.parametrize("name", list(MANIFEST["exports"]))
def test_a_format_3_file_and_link_open_as_the_same_scenario_and_recompute(name):
    case = MANIFEST["exports"][name]
    scenario, version = documents.read_scenario(v3_file(name))
    assert version == 3
    assert_same_scenario(scenario.model_dump(mode="json"), _saved(name))
    assert_same_results(figures(scenario), case["results"])
    link = _link(name)
    assert link["p"] == case["preset"] and link["s"].startswith("3.") and share.token_format(link["s"]) == 3
    opened = share.decode(link["p"], link["s"])  # a link carries list prices, never a quote
    assert opened == scenario.model_copy(update={"custom_price_book": None})
    assert_same_results(figures(opened), case["link_results"])


@pytest.mark.parametrize("name", [*PIPELINED, "seed-case3-128xH100", "blank-dp-microbatches"])
def test_pipeline_microbatches_become_sequences_per_micro_batch(name):
    saved = _saved(name)
    w = documents.read_scenario(v3_file(name))[0].workload
    if saved["workload"]["parallelism"] != "pipeline":  # the field meant nothing without a pipeline
        assert w.micro_batch_seqs == Workload().micro_batch_seqs
        return
    # the same batch: tokens per step = sequence length × replicas × micro-batches × sequences each
    replicas = saved["cluster"]["nodes"] / saved["workload"]["pipeline_stages"]
    per_micro_batch = saved["workload"]["global_batch_tokens_m"] * 1e6 / (
        w.seq_len * replicas * saved["workload"]["pipeline_microbatches"])
    assert w.seq_len == Workload().seq_len
    assert w.micro_batch_seqs == max(1, round(per_micro_batch))
    assert abs(w.micro_batch_seqs - per_micro_batch) <= 0.5 or per_micro_batch < 1


def _name(scenario: costmodel.Scenario, preset: str, lang: str = "en") -> str:
    """The name a notice gives: a preset's own name in the page's language, else the scenario's (escaped)."""
    if preset != share.BLANK and scenario.name == share.preset_scenario(preset).name:
        return md_escape(catalog(lang)[f"preset.{preset}"])
    return md_escape(scenario.name)


def _tco(at) -> list[str]:
    prefix = catalog("en")["kpi.tco"].split("{")[0]
    return [m.value for m in at.metric if m.label.startswith(prefix)]


def _notices(at, lang: str = "en") -> list[str]:
    head = catalog(lang)["oldfmt.link"].split("{")[0][:2]  # the opening quote mark
    marker = catalog(lang)["oldfmt.link"].split("{format}")[0].split("}")[-1][:12]
    return [i.value for i in at.sidebar.info if marker in i.value and i.value.startswith(head)]


@pytest.mark.parametrize("name", ["seed-case3-128xH100", "case3-96-microbatches", "intro-48-nodes"])
def test_a_format_3_link_opens_on_compare_recomputed_and_says_an_older_model_made_it(name):
    link = _link(name)
    at = open_page("compare", **{k: v for k, v in link.items() if k != "lang"})
    assert not at.error and not at.sidebar.warning
    scenario = at.session_state["scenario"]
    assert scenario == share.decode(link["p"], link["s"])
    results = figures(scenario)
    money = Money(results["currency"], link["cur"], float(link["fx"]))
    assert _tco(at) == [money.short(f["tco_total"]) for f in results["fabrics"].values()]
    assert link["cur"] == "USD" and math.isclose(float(link["fx"]), default_rate(results["currency"], "USD"))
    expected = catalog("en")["oldfmt.link"].format(name=_name(scenario, link["p"]), format=3, current=formats.CURRENT)
    assert _notices(at) == [expected]
    at.switch_page("app_pages/scale.py").run()
    assert _notices(at) == [expected]  # on every page while the scenario is the one opened
    now = at.query_params["s"]
    assert (now[0] if isinstance(now, list) else now).startswith(f"{formats.CURRENT}.")


def test_the_notice_goes_when_dismissed_and_a_current_link_has_none():
    link = _link("intro-48-nodes")
    at = open_page("compare", p=link["p"], s=link["s"])
    assert len(_notices(at)) == 1
    at.sidebar.button(key="oldfmt_dismiss").click().run()
    assert _notices(at) == []
    current = share.encode(at.session_state["scenario"], link["p"])
    assert current.startswith(f"{formats.CURRENT}.")
    fresh = open_page("compare", p=link["p"], s=current)
    assert fresh.session_state["scenario"] == at.session_state["scenario"] and _notices(fresh) == []
    assert _notices(open_page("compare")) == []  # no link at all: today's preset


@pytest.mark.parametrize("name", ["case3-96-microbatches", "seed-case3-128xH100"])
def test_the_notice_in_chinese_names_a_preset_in_chinese(name):
    link = _link(name)
    at = open_page("compare", lang="zh", p=link["p"], s=link["s"])
    scenario = at.session_state["scenario"]
    expected = catalog("zh")["oldfmt.link"].format(name=_name(scenario, link["p"], "zh"), format=3,
                                                   current=formats.CURRENT)
    assert _notices(at, "zh") == [expected]
    if name.startswith("seed-"):
        assert latin_words(expected.replace("\\", "")) == set()


def test_a_preset_only_link_is_format_1_and_says_so():
    """``?p=<preset>`` alone is a link from before formats: the preset as format 1 froze it."""
    at = open_page("compare", lang="zh", p="seed-case3-128xH100")
    assert at.session_state["scenario"] == share.decode("seed-case3-128xH100", None)
    name = md_escape(catalog("zh")["preset.seed-case3-128xH100"])
    expected = catalog("zh")["oldfmt.link"].format(name=name, format=1, current=formats.CURRENT)
    assert _notices(at, "zh") == [expected]


def _upload(at, name: str, data: bytes):
    upload = next(u for u in at.file_uploader if str(u.key).startswith("scn_upload"))
    upload.set_value((name, data, "application/json")).run()
    assert not at.exception and not at.error
    return at


def test_a_format_3_file_imported_says_an_older_model_made_it_and_a_current_file_does_not():
    at = _upload(open_page("scenarios", cur="USD"), "case3.json", v3_file("case3-96-microbatches"))
    scenario = documents.read_scenario(v3_file("case3-96-microbatches"))[0]
    assert at.session_state["scenario"] == scenario
    file_text = catalog("en")["oldfmt.file"].format(name=md_escape(scenario.name), format=3, current=formats.CURRENT)
    assert [i.value for i in at.sidebar.info if i.value == file_text] == [file_text]
    at.switch_page("app_pages/compare.py").run()
    results = figures(scenario)
    money = Money(results["currency"], "USD", default_rate(results["currency"], "USD"))
    assert _tco(at) == [money.short(f["tco_total"]) for f in results["fabrics"].values()]
    assert file_text in [i.value for i in at.sidebar.info]
    at.switch_page("app_pages/scenarios.py").run()
    _upload(at, "now.json", documents.export_scenario(scenario))  # the same scenario, today's format
    assert at.session_state["scenario"] == scenario
    assert file_text not in [i.value for i in at.sidebar.info] and _notices(at) == []


def test_editing_the_opened_scenario_ends_the_notice():
    link = _link("seed-intro-32xA100")
    at = open_page("compare", p=link["p"], s=link["s"])
    assert len(_notices(at)) == 1
    from webui.session import state as session

    edited = at.session_state["scenario"].model_copy(update={"name": "edited"})
    at.session_state[session.KEY_SCENARIO] = edited
    at.run()
    assert _notices(at) == []
    at.session_state[session.KEY_SCENARIO] = costmodel.Scenario()
    at.run()
    assert _notices(at) == []  # forgotten, not only hidden


def test_a_format_3_read_only_link_says_which_figures_were_recomputed(tmp_path):
    """The ``?t=`` link of a version saved by format 3 (rows copied from the v3 store into the app's):
    its saved figures are compared, so the notice names them (webui/session/recomputed.py), not the format."""
    import sqlalchemy as sa
    from format_fixtures import V3, restore_store

    import store
    from store.tables import scenario_versions, scenarios, share_tokens

    made = MANIFEST["store"]["share_token"]
    old = store.open_store(f"sqlite:///{restore_store(V3, tmp_path / 'store.db')}")
    db = store.open_store()  # the file the app opens (FABRIC_TCO_DB from conftest)
    sid = made["scenario_id"]
    with old.engine.connect() as src, db.engine.begin() as dst:
        for table, cond in ((scenarios, scenarios.c.id == sid),
                            (scenario_versions, scenario_versions.c.scenario_id == sid),
                            (share_tokens, share_tokens.c.scenario_id == sid)):
            if not dst.execute(sa.select(table).where(cond)).first():
                dst.execute(table.insert(), [dict(r._mapping) for r in src.execute(sa.select(table).where(cond))])
    old.engine.dispose()
    at = open_page("compare", t=made["token"], cur="USD")
    assert not at.sidebar.warning
    scenario = at.session_state["scenario"]
    assert scenario == documents.read_scenario(v3_file(made["case"]))[0]
    fabric = costmodel.catalog.loader.load_catalog().fabrics
    changed = db.open_share_token(made["token"]).recomputed()
    assert changed
    notice = [i.value for i in at.sidebar.info if catalog("en")["fmtv.days"].split("{")[0] in i.value]
    assert len(notice) == 1 and all(fabric[c.fabric].name in notice[0] for c in changed)
    assert _notices(at) == []  # its figures are named: no second, vaguer notice
