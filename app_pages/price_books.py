"""Price books (sales only): derive a named book from the public list — % discounts by category,
explicit prices for any item — save it, and apply it to the current scenario.

The scenario keeps a copy of the book's terms, so saved versions, share links and exports carry
the prices their results were computed with. Customers never reach this page: it is not in
their navigation and it stops here without a sign-in.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.pipeline.results import differences
from costmodel.quantities import spec
from costmodel.scenario import locale_defaults, price_books
from costmodel.scenario.schema import BOOK_GPU_PRICE_BOUNDS, DISCOUNT_CATEGORIES, FABRIC_PRICE_BOUNDS, MAX_DISCOUNT_PCT
from costmodel.scenario.validation import validate_price_book
from store import documents
from webui import compute
from webui.i18n import labels
from webui.i18n.money import Money, default_rate
from webui.i18n.text import md_escape
from webui.inputs import number_boxes
from webui.session import keys, notices, storage
from webui.session import state as session

MIN_DISCOUNT_PCT = float(spec("price_book.discount_pct").lo)
t = session.translator()
money = session.money()
owner = storage.owner()
db = storage.get_store()
cat = load_catalog()
NEW = "__new__"

st.title(t("pb.title"))
if owner is None or db is None:
    st.warning(t("pb.sign_in") if owner is None else t("auth.store_down"))
    st.stop()
notices.show()
# sales books are made on the public list (their prices in its currency): a scenario on another
# book (China's, in CNY) is restated on it here and when a book is applied
scenario = locale_defaults.restate(session.scenario(), price_books.SALES_BASE)
base = cat.price_book(scenario.price_book)
if money.model_currency != base.currency:  # the same display currency and language, from the base's currency
    money = Money(base.currency, money.currency, default_rate(base.currency, money.currency), money.lang)
st.caption(t("pb.intro", base=md_escape(labels.price_book_name(t, scenario.price_book)), currency=base.currency))

books = {b.id: b for b in db.list_price_books(owner)}
PICK = "pb_choice"  # the chosen book (callbacks and imports set it; the select box follows)
if st.session_state.get(PICK) not in (NEW, *books):
    st.session_state[PICK] = NEW


def _book_label(i: str) -> str:
    return t("pb.new") if i == NEW else f"{books[i].name} · r{books[i].revision}"


pick_key = keys.label_key("pb_pick", [_book_label(i) for i in (NEW, *books)])  # a revision or language: new key
for stale in keys.keys_of(st.session_state, "pb_pick"):
    if stale != pick_key:
        del st.session_state[stale]
if st.session_state.get(pick_key) != st.session_state[PICK]:
    st.session_state[pick_key] = st.session_state[PICK]
bid = st.selectbox(t("pb.pick"), [NEW, *books], key=pick_key, format_func=_book_label,
                   on_change=lambda: st.session_state.update({PICK: st.session_state[pick_key]}))
start = books[bid].book if bid in books else None

# --- the book's terms ------------------------------------------------------------------------
name = st.text_input(t("pb.name"), value=start.name if start else t("pb.new_name"), max_chars=120, key=f"pb_name_{bid}")
st.markdown(f"**{t('pb.discounts')}**")
dcols = st.columns(len(DISCOUNT_CATEGORIES))
discounts = {}
for col, category in zip(dcols, DISCOUNT_CATEGORIES, strict=True):
    value = number_boxes.bounded_number(t, col, t(f"pb.cat.{category}"), f"pb_disc_{category}_{bid}", MIN_DISCOUNT_PCT,
                                   MAX_DISCOUNT_PCT, float(start.discounts.get(category, 0.0)) if start else 0.0,
                                   fmt="%.1f", help=t("pb.disc_help", fields=", ".join(DISCOUNT_CATEGORIES[category])))
    if value:
        discounts[category] = float(value)

rows = []
fab_names = labels.fabric_names(t)
for kind, items, bounds in (("gpus", cat.gpus, BOOK_GPU_PRICE_BOUNDS), ("fabrics", cat.fabrics, FABRIC_PRICE_BOUNDS)):
    for item in items:
        prices = base.gpus[item] if kind == "gpus" else base.fabrics[item]
        explicit = (getattr(start, kind).get(item, {}) if start else {})
        for field in bounds:
            rows.append({"kind": kind, "item": item, "field": field,
                         "kind_label": t(f"pb.kind.{kind}"),
                         "item_label": cat.gpus[item].name if kind == "gpus" else fab_names.get(item, item),
                         "field_label": t.get(f"q.{field}", field),
                         "public": getattr(prices, field).typical,
                         "price": "" if explicit.get(field) is None else f"{explicit[field]:g}"})
frame = pd.DataFrame(rows)  # explicit prices as text: an empty cell reads empty, not "None"
st.markdown(f"**{t('pb.prices')}**")
st.caption(t("pb.prices_help"))
edited = st.data_editor(
    frame, key=f"pb_prices_{bid}", hide_index=True, width="stretch", height=360,
    disabled=["kind", "item", "field", "kind_label", "item_label", "field_label", "public"],
    column_order=["kind_label", "item_label", "field_label", "public", "price"],
    column_config={
        "kind_label": st.column_config.TextColumn(t("pb.col_kind")),
        "item_label": st.column_config.TextColumn(t("pb.col_item")),
        "field_label": st.column_config.TextColumn(t("pb.col_field")),
        "public": st.column_config.NumberColumn(t("pb.col_public", currency=base.currency), format="%.2f"),
        "price": st.column_config.TextColumn(t("pb.col_price", currency=base.currency),
                                             validate=r"^\s*(\d+(\.\d*)?|\.\d+)?([eE][+-]?\d+)?\s*$"),
    },
)
doc: dict = {"id": bid if bid in books else "", "name": name.strip(), "discounts": discounts, "gpus": {},
             "fabrics": {}}
for row in edited.itertuples(index=False):
    text = "" if row.price is None or (isinstance(row.price, float) and pd.isna(row.price)) else str(row.price).strip()
    if text:
        try:
            doc[row.kind].setdefault(row.item, {})[row.field] = float(text)
        except ValueError:  # the column's pattern already refuses it in the browser
            doc[row.kind].setdefault(row.item, {})[row.field] = float("nan")
try:
    book = validate_price_book(doc)
    problem = None
except ScenarioError as exc:
    book, problem = None, labels.error_text(t, exc)
if problem:
    st.error(t("pb.invalid", error=md_escape(problem)), icon="🚫")

# --- what it does to the current scenario ----------------------------------------------------
if book is not None:
    with_book = scenario.model_copy(update={"custom_price_book": book})
    public = scenario.model_copy(update={"custom_price_book": None})
    r_pub = compute.evaluate(compute.key(public), _scenario=public)
    r_book = compute.evaluate(compute.key(with_book), _scenario=with_book)
    st.markdown(f"**{t('pb.effect', name=md_escape(scenario.name))}**")
    st.dataframe(pd.DataFrame([{
        t("pb.col_fabric"): fab_names.get(row.fabric, row.fabric),
        t("pb.col_tco_public"): money(row.tco_a),
        t("pb.col_tco_book"): money(row.tco_b),
        "Δ": money.delta(row.delta),
    } for row in differences(r_pub, r_book).itertuples(index=False)]), hide_index=True, width="stretch")


# --- actions ---------------------------------------------------------------------------------
@storage.as_owner(owner)
def _save() -> None:
    info = db.save_price_book(owner, book)
    st.session_state[PICK] = info.id
    _refresh_scenario(info.book)
    notices.flash("success", t("pb.saved", name=md_escape(info.name), revision=info.revision))


def _refresh_scenario(saved) -> None:
    """A scenario that uses this book gets the saved terms."""
    cur = session.scenario().custom_price_book
    if cur is not None and cur.id and cur.id == saved.id:
        session.replace(session.scenario().model_copy(update={"custom_price_book": saved}))


@storage.as_owner(owner)
def _apply() -> None:
    on_base = locale_defaults.restate(session.scenario(), price_books.SALES_BASE)
    session.replace(on_base.model_copy(update={"custom_price_book": book}))
    notices.flash("success", t("pb.applied", name=md_escape(book.name)))


@storage.as_owner(owner)
def _remove() -> None:
    session.replace(session.scenario().model_copy(update={"custom_price_book": None}), pin=False)
    notices.flash("info", t("pb.removed"))


@storage.as_owner(owner)
def _delete() -> None:
    db.delete_price_book(owner, bid)
    st.session_state[PICK] = NEW
    notices.flash("warning", t("pb.deleted", name=md_escape(books[bid].name)))


acts = st.columns(4)
acts[0].button(t("pb.save"), key="pb_save", on_click=_save, disabled=book is None, type="primary",
               icon=":material/save:")
acts[1].button(t("pb.apply"), key="pb_apply", on_click=_apply, disabled=book is None,
               icon=":material/price_check:", help=t("pb.apply_help"))
if scenario.custom_price_book is not None:
    acts[2].button(t("pb.remove", name=md_escape(scenario.custom_price_book.name)), key="pb_remove",
                   on_click=_remove, icon=":material/price_change:")
if bid in books:
    with acts[3].popover(t("pb.delete"), icon=":material/delete:"):
        st.caption(t("pb.delete_help"))
        st.button(t("pb.delete_do"), key="pb_delete", on_click=_delete, type="primary")

with st.expander(t("pb.io")):
    if book is not None:
        st.download_button(t("pb.export"), documents.export_price_book(book), file_name="price-book.json",
                           mime="application/json", key="pb_export", icon=":material/download:")
    imported = notices.upload(t, t("pb.import"), "pb_upload", documents.import_price_book)
    if imported is not None:
        info = db.save_price_book(owner, imported)
        st.session_state[PICK] = info.id
        notices.flash("success", t("pb.imported", name=md_escape(info.name)) + notices.read_as(t, "pb_upload"))
        st.rerun()
