"""Old links and files in the app: a ``?p=&s=`` link, a ``?t=`` read-only link and an exported file made
by the code before formats (commit 45aa0b2, tests/data/formats/v1) open with the expected TCO; a saved
version whose figures the current model changes says so on load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import sqlalchemy as sa
from apptest_helpers import keyed, open_page
from format_fixtures import MANIFEST, as_linked, assert_same_scenario, restore_v1_store, v1_file, without_added_prices

import costmodel
import store
from costmodel.scenario import formats
from costmodel.scenario.price_books import quote_only
from store import accounts, documents
from store.tables import scenario_versions, scenarios, share_tokens
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import catalog

USERS = Path(os.environ["FABRIC_TCO_USERS"])
PASSWORD = "correct horse battery"
OWNER = "local:formats-user"


def _tco(at) -> list[str]:
    prefix = catalog("en")["kpi.tco"].split("{")[0]
    return [m.value for m in at.metric if m.label.startswith(prefix)]


def _expected(results: dict, scenario: costmodel.Scenario) -> list[str]:
    """The TCO cards of the opened scenario recomputed by today's model, in USD, for the fabrics
    the v1 code's figures (manifest) had. (Format 4's step-time model changed every TCO: a saved
    scenario keeps its inputs, not the figures it was saved with.)"""
    money = Money(results["currency"], "USD", default_rate(results["currency"], "USD"))
    now = costmodel.evaluate(scenario)
    assert [f.id for f in now.fabrics] == list(results["fabrics"])
    return [money.short(f.tco_total) for f in now.fabrics]


@pytest.fixture(scope="module")
def db() -> store.Store:
    accounts.add_user(USERS, "formats-user", PASSWORD, replace=True)
    return store.open_store()  # the file the app opens (FABRIC_TCO_DB from conftest)


@pytest.fixture(scope="module")
def old_rows(db, tmp_path_factory) -> dict:
    """The v1 store's scenario, versions and read-only token, copied row for row into the app's store
    (documents, format NULL and summary NULL as they were written), owned by this module's user."""
    path = restore_v1_store(tmp_path_factory.mktemp("v1") / "store.db")
    old = store.open_store(f"sqlite:///{path}")
    made = MANIFEST["store"]
    sid = made["share_token"]["scenario_id"]
    with old.engine.connect() as src, db.engine.begin() as dst:
        for table, cond in ((scenarios, scenarios.c.id == sid),
                            (scenario_versions, scenario_versions.c.scenario_id == sid),
                            (share_tokens, share_tokens.c.scenario_id == sid)):
            rows = [dict(r._mapping) for r in src.execute(sa.select(table).where(cond))]
            for row in rows:
                row.update({k: OWNER for k in ("owner", "author") if k in row})
            assert rows and all(r.get("format") is None for r in rows)
            dst.execute(table.insert(), rows)
    old.engine.dispose()
    return {"scenario_id": sid, "token": made["share_token"]["token"], "results": made["share_token"]["results"]}


@pytest.mark.parametrize("name", ["intro-48-nodes", "case3-overrides", "blank-fabrics-book", "seed-case2-24xA100"])
def test_an_old_share_link_opens_with_the_tco_it_had(name):
    case = MANIFEST["exports"][name]
    params = {"p": case["preset"], "cur": "USD"} | ({"s": case["token"]} if case["token"] else {})
    at = open_page("compare", **params)
    assert not at.sidebar.warning
    # a link's frozen quote has no prices for items added: it takes the book's (ADDED_PRICE_FIELDS)
    assert without_added_prices(at.session_state["scenario"].model_dump()) == as_linked(without_added_prices(
        quote_only(documents.import_scenario(v1_file(name))).model_dump()))
    assert _tco(at) == _expected(case["link_results"], at.session_state["scenario"])
    if at.session_state["scenario"].custom_price_book is None:  # (a quote's prices never enter the URL)
        now = at.query_params["s"]
        assert (now[0] if isinstance(now, list) else now).startswith(f"{formats.CURRENT}.")  # the current format


def test_an_old_file_imported_on_the_scenarios_page_shows_its_tco():
    at = open_page("scenarios", cur="USD")
    upload = next(u for u in at.file_uploader if str(u.key).startswith("scn_upload"))
    upload.set_value(("case3.json", v1_file("case3-overrides"), "application/json")).run()
    assert not at.exception and not at.error
    assert "H100 with overrides" in at.success[0].value
    assert at.session_state["scenario"] == documents.import_scenario(v1_file("case3-overrides"))
    at.switch_page("app_pages/compare.py").run()
    assert _tco(at) == _expected(MANIFEST["exports"]["case3-overrides"]["results"], at.session_state["scenario"])


def test_an_old_read_only_link_opens_with_the_tco_it_had(old_rows):
    at = open_page("compare", t=old_rows["token"], cur="USD")
    assert not at.sidebar.warning
    assert at.session_state["scenario"].name == "Blank with two fabrics and a quote"
    assert _tco(at) == _expected(old_rows["results"], at.session_state["scenario"])
    assert not [i for i in at.sidebar.info if "Recomputed" in i.value]  # no summary was saved then


def _sign_in(at):
    at.text_input(key="auth_user").input("formats-user")
    at.text_input(key="auth_pw").input(PASSWORD)
    at.button(key="FormSubmitter:auth_form-" + catalog("en")["auth.submit"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _edit_summary(db, sid: str, version: int, factor: float) -> tuple[str, float]:
    """Scale the saved TCO of the first fabric by ``factor``; (fabric id, the saved value now)."""
    with db.engine.begin() as conn:
        where = (scenario_versions.c.scenario_id == sid, scenario_versions.c.version == version)
        summary = json.loads(conn.execute(sa.select(scenario_versions.c.summary).where(*where)).scalar_one())
        fid = next(iter(summary["fabrics"]))
        summary["fabrics"][fid]["tco_total"] *= factor
        conn.execute(scenario_versions.update().where(*where).values(summary=json.dumps(summary)))
    return fid, summary["fabrics"][fid]["tco_total"]


def test_loading_an_old_version_on_the_scenarios_page_shows_its_tco_and_no_notice(db, old_rows):
    at = _sign_in(open_page("scenarios", cur="USD"))
    keyed(at.selectbox, "scn_pick").set_value(old_rows["scenario_id"]).run()
    at.button(key="scn_load").click().run()
    assert at.session_state["scenario"] == db.load(OWNER, old_rows["scenario_id"]).scenario()
    assert not [i for i in at.sidebar.info if "Recomputed" in i.value]
    at.switch_page("app_pages/compare.py").run()
    assert _tco(at) == _expected(MANIFEST["store"]["versions"][2]["results"], at.session_state["scenario"])


def test_a_version_whose_figures_changed_says_so_on_load_and_on_its_read_only_link(db):
    scenario = costmodel.load_preset("seed-case1-8xA10").model_copy(update={"name": "changed since"})
    info = db.save_scenario(OWNER, scenario)
    fid, was = _edit_summary(db, info.scenario_id, info.version, 1.01)  # the model "changed" by 1 %
    now = costmodel.evaluate(scenario).fabric(fid).tco_total
    fabric = costmodel.catalog.loader.load_catalog().fabrics[fid].name
    money = Money("USD", "USD", 1.0)
    expected = f"Recomputed with the current model: TCO of {fabric} was {money(was)}, now {money(now)}."
    at = _sign_in(open_page("scenarios", cur="USD"))
    keyed(at.selectbox, "scn_pick").set_value(info.scenario_id).run()
    at.button(key="scn_load").click().run()
    notice = [i.value for i in at.sidebar.info if "Recomputed" in i.value]
    assert notice and expected in notice[0] and "changed since" in notice[0]
    at.switch_page("app_pages/compare.py").run()
    assert any(expected in i.value for i in at.sidebar.info)  # stays on every page until dismissed
    at.sidebar.button(key="fmtv_dismiss").click().run()
    assert not [i for i in at.sidebar.info if "Recomputed" in i.value]
    token = db.create_share_token(OWNER, info.scenario_id)
    customer = open_page("compare", t=token, cur="USD")
    assert any(expected in i.value for i in customer.sidebar.info)
    _edit_summary(db, info.scenario_id, info.version, 1 / 1.01 * 1.0005)  # within 0.1 %: nothing to say
    quiet = open_page("compare", t=token, cur="USD")
    assert not [i for i in quiet.sidebar.info if "Recomputed" in i.value]


def test_a_fresh_visit_follows_todays_preset_and_a_preset_only_link_keeps_its_own(monkeypatch):
    from webui.session import share

    frozen = share.preset_scenario("seed-intro-32xA100")
    changed = frozen.model_copy(update={"name": "intro, edited later",
                                        "cluster": frozen.cluster.model_copy(update={"nodes": 64})})
    live = share.preset_scenario
    monkeypatch.setattr(share, "preset_scenario", lambda p: changed if p == "seed-intro-32xA100" else live(p))
    assert open_page("compare", cur="USD").session_state["scenario"] == changed  # no link: today's preset
    old = open_page("compare", p="seed-intro-32xA100", cur="USD")  # a v1 link: the preset as format 1 froze it
    v1_doc = formats.bases(1)["seed-intro-32xA100"]
    assert_same_scenario(old.session_state["scenario"].model_dump(mode="json"), v1_doc)
    assert old.session_state["scenario"].workload.target_run_days is None  # today's preset has 28
    assert frozen.workload.target_run_days == 28
    made = MANIFEST["exports"]["seed-intro-32xA100"]["link_results"]
    assert _tco(old) == _expected(made, old.session_state["scenario"])
