"""The customer's "request a quote" on the Report page and the sales engineers' Quote requests page:
each refused field is named (zh and en), a browser session is capped, a request is stored at list prices
with its scenario, customers never get the page, and a sales engineer turns a request into a numbered
quote that the PDF then carries on its cover."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from apptest_helpers import go, open_page

import store
from costmodel.scenario.schema import DerivedPriceBook
from store import accounts, proposals
from store.tables import login_failures
from webui.i18n.translator import Translator, catalog

USERS = Path(os.environ["FABRIC_TCO_USERS"])
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module", autouse=True)
def _accounts():
    accounts.add_user(USERS, "carol", PASSWORD, replace=True)


@pytest.fixture(scope="module")
def db() -> store.Store:
    return store.open_store()  # the file the app opens (FABRIC_TCO_DB from conftest)


@pytest.fixture(autouse=True)
def _fresh_counters(db):
    """Every AppTest session is one browser to the request caps: each test starts with none counted."""
    with db.engine.begin() as conn:
        conn.execute(login_failures.delete().where(login_failures.c.username.startswith("request:")))


def _ask(at, lang: str = "en", **fields):
    values = {"name": "Li Wei", "company": "Acme AI", "contact": "li.wei@example.cn", "note": "", **fields}
    for key, value in values.items():
        (at.text_area if key == "note" else at.text_input)(key=f"qr_{key}").input(value)
    at.button(key="FormSubmitter:quote_request-" + catalog(lang)["handoff.submit"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _sign_in(at, lang: str = "en"):
    at.text_input(key="auth_user").input("carol")
    at.text_input(key="auth_pw").input(PASSWORD)
    at.button(key="FormSubmitter:auth_form-" + catalog(lang)["auth.submit"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_refused_field_is_named_in_the_page_language(db, lang):
    t = Translator(lang)
    before = len(proposals.list_requests(db, "local:carol"))
    at = _ask(open_page("report", lang=lang), lang, name=" ", contact="ring me")
    text = "\n".join(e.value for e in at.error)
    for field, reason in (("name", "blank"), ("contact", "contact_format")):
        assert t("handoff.field_error", field=t(f"handoff.{field}"), reason=t(f"handoff.reason.{reason}")) in text
    assert t("handoff.company") not in text
    assert len(proposals.list_requests(db, "local:carol")) == before  # nothing stored


def test_a_request_is_confirmed_stored_at_list_prices_and_capped_per_browser(db):
    from webui.session import state

    at = open_page("report")
    book = DerivedPriceBook(name="Secret book", discounts={"switches": 35.0})
    at.session_state[state.KEY_SCENARIO] = at.session_state[state.KEY_SCENARIO].model_copy(
        update={"custom_price_book": book, "name": "Pod <script>x</script>"})
    _ask(at, company="Acme *bold* <b>AI</b>")
    confirmation = catalog("en")["handoff.sent"].split("{")[0]
    assert any(s.value.startswith(confirmation) for s in at.success)
    assert not any("<b>" in e.value for e in at.markdown)
    newest = proposals.list_requests(db, "local:carol")[0]
    assert newest.company == "Acme *bold* <b>AI</b>" and newest.scenario_name == "Pod <script>x</script>"
    assert proposals.load_request(db, "local:carol", newest.id).scenario().custom_price_book is None
    for _ in range(proposals.desk_policy().per_browser - 1):
        _ask(at)
    _ask(at)  # one more than the cap
    assert any(w.value == catalog("en")["handoff.throttled"].format(minutes=w.value.split()[-2])
               for w in at.warning), [w.value for w in at.warning]


def test_customers_never_get_the_requests_page_and_sales_make_a_numbered_quote(db):
    at = open_page("report")
    _ask(at, company="Gamma Labs", contact="+86 10 6552 9988")
    customer = open_page("scenarios")  # another customer's session: the page is not registered for it at all
    with pytest.raises(ValueError, match=r"requests\.py"):
        customer.switch_page("app_pages/requests.py")
    assert not any("Gamma Labs" in m.value for m in customer.markdown)
    sales = go(_sign_in(open_page("scenarios")), "requests")
    table = sales.dataframe[0].value
    assert "Gamma Labs" in set(table[catalog("en")["handoff.company"]])
    newest = proposals.list_requests(db, "local:carol")[0]
    sales.selectbox(key="pq_pick").set_value(newest.id).run()
    sales.button(key="pq_open").click().run()
    assert sales.text_input(key=f"pq_customer_{newest.id}").value == "Gamma Labs"
    sales.text_input(key=f"pq_project_{newest.id}").input("Training pod 2027")
    sales.button(key="FormSubmitter:pq_make-" + catalog("en")["handoff.make"]).click().run()
    assert not sales.exception, [e.message for e in sales.exception]
    made = proposals.list_proposals(db, "local:carol")[0]
    assert (made.customer, made.project, made.author_name, made.request_id) == (
        "Gamma Labs", "Training pod 2027", "carol", newest.id)
    assert made.number in sales.dataframe[1].value[catalog("en")["handoff.col_number"]].tolist()
    go(sales, "report")
    assert any(made.number in i.value for i in sales.info)


def test_the_pdf_cover_carries_the_numbered_quote():
    from costmodel.scenario.schema import Scenario
    from webui.reports.html import report_html

    found = proposals.Proposal("FT-2026-000042", "Acme <AI>", "Pod", "2027-01-31", "carol", 0.0, "0" * 32, 1, 5,
                               "public@2025-11")
    for lang in ("en", "zh"):
        t = Translator(lang)
        page = report_html(Scenario(name="Pod"), lang, proposal=found)
        cover = page.split("<div class='cover'>", 1)[1].split("<div class='foot'>", 1)[0]
        for key, value in (("number", "FT-2026-000042"), ("customer", "Acme &lt;AI&gt;"), ("project", "Pod"),
                           ("valid", "2027-01-31"), ("author", "carol")):
            assert f"<td class='k'>{t(f'prop.{key}')}</td><td>{value}</td>" in cover
    assert "FT-2026" not in report_html(Scenario(name="Pod"), "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_reopened_quote_shows_its_pinned_figures_beside_the_current_models(db, lang):
    """A quote priced by an older model (its pinned TCO differs) reopens at its pinned version and says both."""
    from costmodel.scenario.schema import Scenario
    from store.repository import canonical_json
    from store.tables import proposals as table

    version = db.save_scenario("local:carol", Scenario(name="Pinned pod"))
    made = proposals.create_proposal(db, "local:carol", "carol", version, "Delta", "Pod",
                                     proposals.default_valid_until())
    db.save_scenario("local:carol", Scenario(name="Pinned pod", cluster={"nodes": 300}), version.scenario_id)
    fabric = next(iter(made.summary["fabrics"]))
    older = {**made.summary, "fabrics": {**made.summary["fabrics"], fabric: {"tco_total": 1234.0, "run_days": None}}}
    with db.engine.begin() as conn:
        conn.execute(table.update().where(table.c.number == made.number).values(summary=canonical_json(older)))
    t = Translator(lang)
    at = go(_sign_in(open_page("scenarios", lang=lang, cur="USD"), lang), "requests")
    at.selectbox(key="pq_quote").set_value(made.number).run()
    at.button(key="pq_reopen").click().run()
    assert not at.exception, [e.message for e in at.exception]
    from webui.session import state

    assert at.session_state[state.KEY_SCENARIO] == Scenario(name="Pinned pod")  # the pinned version, not the newer
    notice = "\n".join(w.value for w in at.warning)
    assert t("handoff.pinned_title", number=made.number) in notice
    assert t("fmtv.tco", fabric="", was="", now="").split("{")[0][:8] in notice and "1,234" in notice
    assert any(t("handoff.current", number=made.number, customer="Delta", project="Pod",
                 valid_until=made.valid_until) in c.value for c in at.caption)


def test_a_refused_numbered_quote_names_its_field_and_saves_nothing(db):
    at = go(_sign_in(open_page("scenarios", cur="USD")), "requests")
    before = len(db.list_scenarios("local:carol"))
    at.text_input(key="pq_customer").input("  ")
    at.button(key="FormSubmitter:pq_make-" + catalog("en")["handoff.make"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    t = Translator("en")
    assert any(t("handoff.field_error", field=t("handoff.customer"), reason=t("handoff.reason.blank")) in e.value
               for e in at.error)
    assert len(db.list_scenarios("local:carol")) == before
