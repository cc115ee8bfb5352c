"""The Method page lists the published training runs beside the model, misses included."""

from __future__ import annotations

from apptest_helpers import open_page

from costmodel.evidence import runs
from webui.i18n.translator import catalog


def test_the_runs_table_shows_every_run_with_its_verdict_in_both_languages():
    checks, _ = runs.check_runs()
    for lang in ("en", "zh"):
        at = open_page("method", lang=lang)
        tx = catalog(lang)
        table = next(d.value for d in at.dataframe if tx["runs.col_run"] in d.value.columns)
        assert list(table[tx["runs.col_run"]]) == [c.text_zh if lang == "zh" else c.text for c in checks]
        verdicts = list(table[tx["runs.col_verdict"]])
        misses = [c for c in checks if c.role == "check" and not c.within]
        assert verdicts.count(tx["runs.miss"]) == len(misses) > 0  # the misses are shown as misses
        assert not any(c.role == "calibration" for c in checks)  # no run sets the kernel efficiency
        mean, missed, n = runs.summary(checks)
        caption = tx["runs.caption"].format(n=n, mean=f"{100 * mean:.1f} %", misses=len(missed))
        assert caption in [c.value for c in at.caption]


def test_the_serving_measurements_are_shown_beside_the_model_in_both_languages():
    from costmodel.serving import published

    rows = published.compare()
    assert len(rows) >= 5
    for lang in ("en", "zh"):
        at = open_page("method", lang=lang)
        tx = catalog(lang)
        table = next(d.value for d in at.dataframe if tx["runs.serving_col_run"] in d.value.columns)
        assert list(table[tx["runs.serving_col_run"]]) == [r["name_zh" if lang == "zh" else "name"] for r in rows]
        assert list(table[tx["runs.col_error"]]) == [f"{r['error']:+.1%}" for r in rows]
        assert any(r["error"] < -0.3 for r in rows)  # the prefill misses are shown as they are
        mean = sum(abs(r["error"]) for r in rows) / len(rows)
        caption = tx["runs.serving_caption"].format(n=len(rows), mean=f"{100 * mean:.1f} %")
        assert caption in [c.value for c in at.caption]
