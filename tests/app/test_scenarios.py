"""Scenarios and price books pages: customers vs sales, sign-in throttle, versions, links, escaping."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from apptest_helpers import go, keyed, open_page, open_tab

import costmodel
import store
import store.policy
from store import accounts
from webui.i18n.translator import catalog
from webui.panels import lazy_tabs

USERS = Path(os.environ["FABRIC_TCO_USERS"])
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module", autouse=True)
def _accounts():
    for name in ("alice", "bob", "mallory-target"):
        accounts.add_user(USERS, name, PASSWORD, replace=True)


@pytest.fixture(scope="module")
def db() -> store.Store:
    return store.open_store()  # the same file the app opens (FABRIC_TCO_DB from conftest)


def _sign_in(at, user: str, password: str = PASSWORD):
    at.text_input(key="auth_user").input(user)
    at.text_input(key="auth_pw").input(password)
    at.button(key="FormSubmitter:auth_form-" + catalog("en")["auth.submit"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _name_box(at):
    return next(w for w in at.text_input if str(w.key).startswith("scn_name_"))


def _tco_values(at) -> list[str]:
    return [m.value for m in at.metric if m.label.startswith(catalog("en")["kpi.tco"].split("{")[0])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_customer_sees_import_export_and_sign_in_but_nothing_stored(lang):
    at = open_page("scenarios", lang)
    assert at.title[0].value == catalog(lang)["scn.title"]
    assert at.text_input(key="auth_user") is not None
    keys = {str(getattr(w, "key", None)).split("#")[0] for w in at.get("selectbox")}
    assert "scn_pick" not in keys and "pb_pick" not in keys
    assert not at.error


def test_a_customer_cannot_open_the_price_books_page():
    at = open_page("compare")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/price_books.py")  # not registered in a customer's navigation


def _wait_shown(at) -> int:
    """The seconds the throttle message asks to wait (0: the attempt was not throttled)."""
    found = re.search(r"Try again in (\d+) (s|min)", at.error[0].value) if at.error else None
    return 0 if found is None else int(found.group(1)) * (60 if found.group(2) == "min" else 1)


def test_a_wrong_password_fails_and_sign_in_is_then_rate_limited():
    """From one address (AppTest has none: every session shares the unknown address), the policy's
    free failures are answered as wrong, then delays grow; while one runs, even the right password
    waits, in this session and in another of the same address."""
    free = store.policy.policy().pair_backoff.free
    at = open_page("scenarios")
    for _ in range(free):
        _sign_in(at, "mallory-target", "wrong password 123")
        assert [e.value for e in at.error] == [catalog("en")["auth.failed"]]
    shown = []
    for _ in range(3):  # a throttled attempt is not counted: wait it out, fail again, the next wait doubles
        _sign_in(at, "mallory-target", "wrong password 123")
        shown.append(_wait_shown(at))
        time.sleep(shown[-1])
        _sign_in(at, "mallory-target", "wrong password 123")
        assert [e.value for e in at.error] == [catalog("en")["auth.failed"]]
    _sign_in(at, "mallory-target", "wrong password 123")
    shown.append(_wait_shown(at))
    first = store.policy.policy().pair_backoff.first_s
    delays = [first, 2 * first, 4 * first, 8 * first]  # counted from the last failure, shown rounded up
    assert all(d - 3 < got <= d for got, d in zip(shown, delays, strict=True)), (shown, delays)
    _sign_in(at, "mallory-target", PASSWORD)  # even the right password waits now
    assert at.error[0].value.startswith("Too many failed sign-ins from this address. Try again in ")
    assert at.text_input(key="auth_user") is not None  # still the customer view
    other = _sign_in(open_page("scenarios"), "mallory-target", PASSWORD)  # another session: same address
    assert "Too many failed sign-ins" in other.error[0].value


def test_unknown_user_fails_like_a_wrong_password():
    at = _sign_in(open_page("scenarios"), "nobody", PASSWORD)
    assert [e.value for e in at.error] == [catalog("en")["auth.failed"]]


def test_sales_saves_versions_compares_and_restores(db):
    at = _sign_in(open_page("scenarios"), "alice")
    assert at.success[0].value.startswith("Welcome")
    assert at.session_state["auth_pw"] == ""  # the password is not kept in the session
    _name_box(at).set_value("Acme 2027").run()
    at.button(key="scn_save_new").click().run()
    assert "version 1" in at.success[0].value
    go(at, "cluster")
    keyed(at.number_input, "w.cluster.nodes").set_value(77).run()  # a save starts a new revision
    go(at, "scenarios")
    at.text_input(key="scn_note").set_value("customer asked for 77").run()
    at.button(key="scn_save_v").click().run()
    assert "version 2" in at.success[0].value
    [mine] = [s for s in db.list_scenarios("local:alice") if s.name == "Acme 2027"]
    assert mine.latest_version == 2
    assert db.load("local:alice", mine.id).scenario().cluster.nodes == 77
    assert db.load("local:alice", mine.id, 1).scenario().cluster.nodes != 77
    # compare: current session (77 nodes) against version 1
    keyed(at.selectbox, "scn_cmp_b").set_value(f"{mine.id}:1").run()
    diff = at.dataframe[-2].value
    assert "cluster.nodes" in set(diff.iloc[:, 0])
    results = at.dataframe[-1].value
    assert len(results) == len(costmodel.load_preset("seed-intro-32xA100").fabrics)
    # restore version 1 as version 3; the session now holds it
    keyed(at.selectbox, "scn_pick").set_value(mine.id).run()
    keyed(at.selectbox, "scn_vpick").set_value(1).run()
    at.button(key="scn_vrestore").click().run()
    assert db.load("local:alice", mine.id).version == 3
    assert db.load("local:alice", mine.id).scenario() == db.load("local:alice", mine.id, 1).scenario()
    # bob sees none of it
    bob = _sign_in(open_page("scenarios"), "bob")
    options = keyed(bob.selectbox, "scn_pick").options if any(
        str(getattr(w, "key", None)).startswith("scn_pick#") for w in bob.get("selectbox")) else []
    assert not any("Acme 2027" in o for o in options)


def test_delete_can_be_undone(db):
    at = _sign_in(open_page("scenarios"), "alice")
    _name_box(at).set_value("to delete").run()
    at.button(key="scn_save_new").click().run()
    sid = next(s.id for s in db.list_scenarios("local:alice") if s.name == "to delete")
    keyed(at.selectbox, "scn_pick").set_value(sid).run()
    at.button(key="scn_del").click().run()
    assert sid in {s.id for s in db.list_scenarios("local:alice", deleted=True)}
    at.button(key="scn_undo_btn").click().run()
    assert sid in {s.id for s in db.list_scenarios("local:alice")}


def test_a_read_only_link_shows_the_same_numbers_to_a_customer_and_names_are_text(db):
    scen = costmodel.Scenario(name="<img src=x onerror=alert(1)> **deal**", cluster={"nodes": 40})
    info = db.save_scenario("local:alice", scen)
    token = db.create_share_token("local:alice", info.scenario_id)
    at = open_page("compare", t=token, cur="USD")
    expected = costmodel.evaluate(scen)
    assert at.session_state["scenario"] == scen
    assert len(_tco_values(at)) == len(expected.fabrics)
    banner = at.sidebar.info[0].value
    assert "\\<img src=x onerror=alert\\(1\\)\\> \\*\\*deal\\*\\*" in banner  # Markdown-escaped: shown as text
    assert "\\<img" in at.caption[0].value
    assert not at.sidebar.text_input  # no sign-in, nothing stored is listed
    go(at, "scenarios")
    assert at.text_input(key="auth_user") is not None


@pytest.mark.parametrize("token", ["x" * 43, "../../etc/passwd", "' OR '1'='1", "A" * 5000])
def test_a_forged_token_shows_a_message_and_the_defaults(token):
    at = open_page("compare", t=token)
    assert "not valid" in at.sidebar.warning[0].value
    assert at.session_state["scenario"] == costmodel.load_preset("seed-intro-32xA100")


def test_a_revoked_link_stops_working(db):
    info = db.save_scenario("local:alice", costmodel.Scenario(name="revoke me"))
    token = db.create_share_token("local:alice", info.scenario_id)
    [tok] = db.share_tokens("local:alice", info.scenario_id)
    db.revoke_share_token("local:alice", info.scenario_id, tok["id"])
    at = open_page("compare", t=token)
    assert "not valid" in at.sidebar.warning[0].value


def test_a_price_book_changes_the_results_and_every_page_names_it(db):
    at = _sign_in(open_page("scenarios"), "alice")
    go(at, "price_books")
    assert at.title[0].value == catalog("en")["pb.title"]
    at.text_input(key="pb_name___new__").set_value("Acme <b>Q4</b>").run()
    at.number_input(key="pb_disc_switches___new__").set_value(40.0).run()
    at.button(key="pb_save").click().run()
    assert "revision 1" in at.success[0].value
    [book] = [b for b in db.list_price_books("local:alice") if b.name == "Acme <b>Q4</b>"]
    assert book.book.discounts == {"switches": 40.0}
    assert db.list_price_books("local:bob") == []
    before = at.session_state["scenario"]
    at.button(key="pb_apply").click().run()
    after = at.session_state["scenario"]
    assert after.custom_price_book.name == "Acme <b>Q4</b>"
    assert costmodel.evaluate(after).fabrics[0].tco_total < costmodel.evaluate(before).fabrics[0].tco_total
    go(at, "compare")
    assert "Price book: Acme \\<b\\>Q4\\</b\\>" in [c.value for c in at.sidebar.caption]
    assert "Acme \\<b\\>Q4\\</b\\>" in at.caption[0].value
    # an explicit price out of range is refused, naming the field and its range; save is disabled
    go(at, "price_books")
    assert keyed(at.selectbox, "pb_pick").value == book.id  # the saved book stays picked across pages
    keyed(at.selectbox, "pb_pick").set_value("__new__").run()
    at.session_state["pb_prices___new__"] = {"edited_rows": {0: {"price": 2e9}}, "added_rows": [],
                                             "deleted_rows": []}
    at.run()
    shown = at.error[0].value.replace("\\", "")  # Markdown-escaped on the page
    assert "gpus.a10.server_price" in shown and "≤ 1e+09" in shown
    assert at.button(key="pb_save").disabled
    at.session_state["pb_prices___new__"] = {"edited_rows": {0: {"price": 1234.0}}, "added_rows": [],
                                             "deleted_rows": []}
    at.run()
    assert not at.error and not at.button(key="pb_save").disabled


def test_a_blank_or_invisible_name_is_refused_with_a_message(db):
    at = _sign_in(open_page("scenarios"), "alice")
    _name_box(at).set_value("Acme\u202e").run()
    at.button(key="scn_save_new").click().run()
    assert "name" in at.error[0].value and "invisible" in at.error[0].value
    assert not any(s.name.startswith("Acme\u202e") for s in db.list_scenarios("local:alice"))


def test_signing_out_forgets_the_book_links_and_identity(db):
    at = _sign_in(open_page("scenarios"), "alice")
    go(at, "price_books")
    at.text_input(key="pb_name___new__").set_value("ACME secret").run()
    at.number_input(key="pb_disc_servers___new__").set_value(30.0).run()
    at.button(key="pb_apply").click().run()
    go(at, "scenarios")
    _name_box(at).set_value("with book").run()
    at.button(key="scn_save_new").click().run()
    at.button(key="scn_share_new").click().run()
    assert at.session_state["scn_new_link"]
    assert at.session_state["scenario"].custom_price_book.name == "ACME secret"
    at.button(key="auth_out").click().run()
    assert "sales_user" not in at.session_state and "scn_new_link" not in at.session_state
    assert at.session_state["scenario"].custom_price_book is None
    assert "s" not in at.query_params or "ACME" not in str(at.query_params["s"])
    assert not any("ACME" in c.value for c in at.sidebar.caption)
    assert at.text_input(key="auth_user") is not None


def test_the_url_and_share_link_never_carry_the_book(db):
    from webui.session import share

    at = _sign_in(open_page("scenarios"), "alice")
    go(at, "price_books")
    at.text_input(key="pb_name___new__").set_value("ACME hidden").run()
    at.number_input(key="pb_disc_switches___new__").set_value(33.0).run()
    at.button(key="pb_apply").click().run()
    go(at, "compare")
    token = at.query_params["s"]
    token = token[0] if isinstance(token, list) else token
    scen = share.decode(at.query_params.get("p", ["blank"])[0] if isinstance(at.query_params.get("p"), list)
                        else at.query_params.get("p", "blank"), token)
    assert scen.custom_price_book.name == "negotiated prices" and scen.custom_price_book.discounts == {}
    assert costmodel.evaluate(scen).fabrics[0].tco_total == pytest.approx(
        costmodel.evaluate(at.session_state["scenario"]).fabrics[0].tco_total, rel=1e-12)


def test_a_removed_user_is_signed_out_on_the_next_run():
    accounts.add_user(USERS, "temp-user", PASSWORD, replace=True)
    at = _sign_in(open_page("scenarios"), "temp-user")
    assert at.button(key="auth_out") is not None
    accounts.remove_user(USERS, "temp-user")
    at.run()
    assert at.text_input(key="auth_user") is not None


def _forge_click(at, widget_id: str):
    """Send what one forged websocket message would: this run's widget states plus a click
    (trigger) on ``widget_id``, a button of an earlier run that the page no longer shows."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    states = WidgetStates()
    states.widgets.extend(at._tree.get_widget_states().widgets)
    forged = states.widgets.add()
    forged.id, forged.trigger_value = widget_id, True
    at._run(states)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_forged_click_after_sign_out_does_not_act_for_the_former_owner(db):
    accounts.add_user(USERS, "erin", PASSWORD, replace=True)
    at = _sign_in(open_page("scenarios"), "erin")
    at.number_input(key="w.cluster.nodes").set_value(91).run() if any(
        w.key == "w.cluster.nodes" for w in at.number_input) else None
    _name_box(at).set_value("Erin's secret deal").run()
    at.button(key="scn_save_new").click().run()
    [mine] = db.list_scenarios("local:erin")
    load_id, delete_id = at.button(key="scn_load").id, at.button(key="scn_del").id
    at.button(key="auth_out").click().run()
    assert at.text_input(key="auth_user") is not None  # the customer view
    _forge_click(at, load_id)
    assert at.session_state["scenario"].name != "Erin's secret deal"  # nothing was loaded
    assert catalog("en")["sess.refused"] in [w.value for w in at.sidebar.warning]
    _forge_click(at, delete_id)
    assert [s.id for s in db.list_scenarios("local:erin")] == [mine.id]  # nothing was deleted


def test_a_removed_users_open_tab_can_no_longer_save_or_delete(db):
    accounts.add_user(USERS, "frank", PASSWORD, replace=True)
    at = _sign_in(open_page("scenarios"), "frank")
    at.button(key="scn_save_new").click().run()
    [mine] = db.list_scenarios("local:frank")
    accounts.remove_user(USERS, "frank")
    at.button(key="scn_save_v").click().run()  # the click reaches the callback before the page reruns
    assert db.load("local:frank", mine.id).version == 1  # no new version
    assert at.text_input(key="auth_user") is not None
    assert any(w.value in (catalog("en")["sess.refused"], catalog("en")["sess.ended"]) for w in at.sidebar.warning)


def test_a_version_note_is_saved_as_typed_and_the_version_picker_follows(db):
    accounts.add_user(USERS, "gina", PASSWORD, replace=True)
    at = _sign_in(open_page("scenarios"), "gina")
    at.button(key="scn_save_new").click().run()
    at.text_input(key="scn_note").set_value("after the customer call")  # typed, no Enter: same run as the click
    at.button(key="scn_save_v").click().run()
    [mine] = db.list_scenarios("local:gina")
    assert db.versions("local:gina", mine.id)[0].note == "after the customer call"
    assert keyed(at.selectbox, "scn_vpick").value == 2  # the new version, not version 1
    assert at.text_input(key="scn_note").value == ""  # the next version starts without this note


def test_a_read_only_link_shows_the_quotes_totals_but_never_its_item_prices(db):
    """A customer with a ``?t=`` link sees results computed with the negotiated
    quote, but item prices only from the public list — on Assumptions, on Cluster, in the address
    bar, in the sidebar link and in the exported file."""
    from costmodel.catalog.loader import load_catalog
    from costmodel.scenario import price_books
    from webui.session import share

    sales = _sign_in(open_page("scenarios"), "alice")
    go(sales, "price_books")
    sales.text_input(key="pb_name___new__").set_value("ACME quote").run()
    sales.number_input(key="pb_disc_switches___new__").set_value(40.0).run()
    sales.number_input(key="pb_disc_nics___new__").set_value(25.0).run()
    sales.number_input(key="pb_disc_servers___new__").set_value(30.0).run()
    sales.button(key="pb_apply").click().run()
    go(sales, "scenarios")
    _name_box(sales).set_value("quoted for the customer").run()
    sales.button(key="scn_save_new").click().run()
    sales.button(key="scn_share_new").click().run()
    token = sales.session_state["scn_new_link"].split("?t=", 1)[1].split("&", 1)[0]
    quoted = sales.session_state["scenario"]
    cat = load_catalog()
    public = cat.price_book(quoted.price_book)
    negotiated = price_books.for_scenario(quoted, cat)
    fid = quoted.fabrics[-1]
    assert negotiated.fabrics[fid].switch_price.typical < public.fabrics[fid].switch_price.typical

    customer = open_tab(open_page("assumptions", t=token, cur="USD"), lazy_tabs.ASSUMPTIONS, "fabric_prices")
    assert customer.session_state["scenario"].custom_price_book is not None  # the totals use the quote
    assert catalog("en")["quote.hidden"] in [i.value for i in customer.info]
    shown = [float(v) for df in customer.dataframe for v in df.value.get("value", [])]
    assert public.fabrics[fid].switch_price.typical in shown
    assert negotiated.fabrics[fid].switch_price.typical not in shown
    assert negotiated.fabrics[fid].nic_price.typical not in shown
    assert "s" not in customer.query_params  # the address bar keeps the token, never the quote
    link = next(c.value for c in customer.sidebar.code if "?p=" in c.value)
    params = dict(p.split("=", 1) for p in link.split("?", 1)[1].split("&"))
    assert share.decode(params["p"], params.get("s")).custom_price_book is None  # list prices only
    go(customer, "compare")
    # the bill of materials shows the customer counts and totals, no item price
    assert catalog("en")["bom.quote_hidden"] in [i.value for i in customer.info]
    assert catalog("en")["bom.col.unit_price"] not in " ".join(str(m.value) for m in customer.markdown)
    tco = costmodel.evaluate(quoted).fabrics[-1].tco_total
    assert customer.session_state["scenario"].custom_price_book is not None
    assert costmodel.evaluate(customer.session_state["scenario"]).fabrics[-1].tco_total == pytest.approx(tco)
    go(customer, "report")  # the files a customer takes away are at list prices, and say so
    assert catalog("en")["quote.export_list"] in [i.value for i in customer.info]
    go(sales, "report")
    assert catalog("en")["quote.export_list"] not in [i.value for i in sales.info]
    go(customer, "cluster")
    placeholders = " ".join(str(n.proto.placeholder) for n in customer.number_input)
    gpu = quoted.cluster.gpu
    assert negotiated.gpus[gpu].server_price.typical < public.gpus[gpu].server_price.typical
    assert f"{public.gpus[gpu].server_price.typical:,g}" in placeholders
    assert f"{negotiated.gpus[gpu].server_price.typical:,g}" not in placeholders


def test_empty_explicit_prices_read_empty_not_none():
    at = _sign_in(open_page("scenarios"), "alice")
    go(at, "price_books")
    keyed(at.selectbox, "pb_pick").set_value("__new__").run()
    [table] = [d for d in at.dataframe if "price" in d.value.columns]
    assert set(table.value["price"]) == {""}  # not None/NaN, which the grid shows as "None"
