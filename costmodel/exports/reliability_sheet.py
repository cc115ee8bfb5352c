"""The workbook's ``Reliability`` sheet: per fabric, interruptions per year by cause,
restart hours by cause and their mean, hot-spare servers, the share of server-replacing failures
that find no spare free, setup hours per run, goodput and the lost hours.

Values, not formulas: the model computes them (failure rates per component from the topology,
restart by cause and cluster size, the hot-spare pool). Texts are in ``data/export_labels.yaml``
(``reliability``).
"""

from __future__ import annotations

from costmodel.physics.reliability import CAUSES

#: rows: (metric key of FabricResult.metrics, number format)
ROWS = (
    *((f"interruptions_{c}_per_year", "#,##0.000") for c in CAUSES),
    ("interruptions_per_year", "#,##0.000"),
    ("network_interruptions_per_year", "#,##0.000"),
    *((f"restart_hours_{c}", "#,##0.00") for c in CAUSES),
    ("restart_hours", "#,##0.00"),
    ("spare_nodes", "#,##0"),
    ("no_spare_share", "0.00%"),
    ("setup_hours_per_run", "#,##0.0"),
    ("setup_share_of_run", "0.00%"),
    ("mtbf_hours", "#,##0.0"),
    ("goodput", "0.00%"),
    ("lost_hours_per_year", "#,##0.0"),
)


def reliability_sheet(book, st, res) -> None:
    """Write the ``Reliability`` sheet of ``book`` (an ``export_xlsx._Book``) for the structure
    ``st`` (fabric order) and the result ``res``."""
    wb, tx = book.wb, book.tx
    rt = tx["reliability"]
    bold, note = book.fmt["bold"], book.fmt["note"]
    head_r = wb.add_format({"bold": True, "align": "right", "text_wrap": True, "valign": "bottom"})
    formats: dict[str, object] = {}
    ws = wb.add_worksheet(rt["sheet"])
    ws.write_string(0, 0, rt["title"], bold)
    ws.write_string(1, 0, rt["note"], note)
    fids = list(st.fabric_ids)
    ws.write_string(3, 0, tx["col_fabric"], bold)
    ws.write_row(3, 1, [book.fabric_name[f] for f in fids], head_r)
    ws.set_row(3, 30)
    ws.set_column(0, 0, 48)
    ws.set_column(1, len(fids), 16)
    for i, (key, code) in enumerate(ROWS):
        r = 4 + i
        ws.write_string(r, 0, rt["rows"][key])
        fmt = formats.setdefault(code, wb.add_format({"num_format": code}))
        for j, fid in enumerate(fids):
            value = res.fabric(fid).metrics.get(key)
            if value is None:
                ws.write_string(r, 1 + j, "—")
            else:
                ws.write_number(r, 1 + j, float(value), fmt)
