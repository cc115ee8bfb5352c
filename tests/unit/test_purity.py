"""The model package stays pure: no Streamlit, no Plotly, no app or store, no unsafe loaders.

Dependencies point one way (inputs → model → results → views): every module of ``costmodel``,
the command line included, is read with :mod:`ast`, so an import hidden inside a function (which
an import-time check never runs) counts as much as one at the top.
"""

import ast
import csv
import io
import json
import re
import subprocess
import sys

#: Top-level packages the model must never import: the app, the store, the app's entry points and
#: every user-interface or charting package.
FORBIDDEN = frozenset({
    "webui", "store", "app_pages", "app", "server", "bench", "tests", "scripts",
    "streamlit", "plotly", "kaleido", "altair", "matplotlib", "bokeh", "dash", "gradio", "panel", "tkinter",
    "PyQt5", "PyQt6", "PySide2", "PySide6", "playwright", "pypdf",
})


def forbidden_imports(source: str, package_depth: int = 1) -> list[tuple[int, str]]:
    """(line, module) of every import of a :data:`FORBIDDEN` package in ``source``, wherever it sits
    (module top, function body, ``try`` block), including ``importlib.import_module("…")`` and
    ``__import__("…")`` with a literal name and relative imports that climb out of the package
    (``package_depth``: how deep the module sits below the top level; 1 = ``costmodel/x.py``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level > package_depth:  # from .. import webui: out of costmodel
                names = [node.module or alias.name for alias in node.names]
            elif node.level == 0:
                names = [node.module or ""]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [(node.lineno, name) for name in names if name.split(".")[0] in FORBIDDEN]
    return sorted(found)


def test_the_checker_finds_an_import_inside_a_function():
    """The check itself, on what cli.py held before the PDF command moved to webui.cli."""
    old_cli = (
        "from .api import evaluate\n"
        "def cmd_report(args):\n"
        "    if args.pdf:\n"
        "        from webui.reports.html import report_pdf\n"
        "def _title(scenario, args):\n"
        "    from webui import share\n"
        "    import streamlit as st, numpy\n"
        "    importlib.import_module('plotly.io')\n"
        "    from .. import store\n"
    )
    assert forbidden_imports(old_cli) == [(4, "webui.reports.html"), (6, "webui"), (7, "streamlit"),
                                          (8, "plotly.io"), (9, "store")]
    assert forbidden_imports("import numpy\nfrom .tco import compute\nfrom pydantic import BaseModel\n") == []


def test_no_module_of_the_model_imports_the_app_the_store_or_a_ui_package(root):
    found = {}
    for path in sorted((root / "costmodel").rglob("*.py")):
        depth = len(path.relative_to(root).parts) - 1
        bad = forbidden_imports(path.read_text(encoding="utf-8"), depth)
        if bad:
            found[str(path.relative_to(root))] = bad
    assert found == {}, f"the model imports the app, the store or a UI package: {found}"


def test_costmodel_imports_neither_streamlit_nor_plotly(root):
    code = ("import sys, costmodel; costmodel.evaluate(costmodel.load_preset('seed-case1-8xA10')); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_command_line_runs_without_the_app(root, tmp_path):
    """Every file the model's command line writes (CSV, Excel) comes without loading webui or store."""
    code = ("import sys; from costmodel import cli; "
            "rc = cli.main(['report', '--preset', 'seed-case1-8xA10', '--lang', 'zh', "
            f"'--xlsx', {str(tmp_path / 'r.xlsx')!r}, '--csv', {str(tmp_path / 'f.csv')!r}]); "
            "bad = sorted({m.split('.')[0] for m in sys.modules} & " + repr(set(FORBIDDEN)) + "); print(rc, bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []"
    assert (tmp_path / "r.xlsx").read_bytes()[:2] == b"PK"


def test_no_pickle_eval_or_unsafe_yaml_in_the_model(root):
    for path in (root / "costmodel").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for bad in ("pickle", "eval(", "exec(", "yaml.unsafe_load", "yaml.Loader", "FullLoader"):
            assert bad not in text, f"{path.name} contains {bad}"
        # every yaml.load names a safe loader: libyaml's CSafeLoader, or validation's SafeLoader subclass
        safe = re.findall(r"Loader=(?:yaml\.CSafeLoader|_NoAliasLoader)\)", text)
        assert text.count("yaml.load(") == len(safe), f"{path.name} loads YAML without a safe loader"


def test_the_pdf_report_is_the_apps_command(tmp_path, capsys):
    """The model's command line points at the app's for the PDF; the app's titles the files as the app does."""
    import openpyxl

    from costmodel import cli
    from webui import cli as app_cli

    assert cli.main(["report", "--preset", "seed-case1-8xA10", "--pdf", str(tmp_path / "r.pdf")]) == cli.EXIT_BAD_INPUT
    assert "python -m webui.cli report --pdf FILE" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()
    assert app_cli.main(["report", "--preset", "seed-case1-8xA10"]) == cli.EXIT_BAD_INPUT
    assert "--pdf, --xlsx" in capsys.readouterr().err
    model_xlsx, app_xlsx = tmp_path / "m.xlsx", tmp_path / "a.xlsx"
    for main, path in ((cli.main, model_xlsx), (app_cli.main, app_xlsx)):
        assert main(["report", "--preset", "seed-case1-8xA10", "--lang", "zh", "--xlsx", str(path)]) == 0
    titles = [openpyxl.load_workbook(p).worksheets[0].cell(1, 2).value for p in (model_xlsx, app_xlsx)]
    assert titles == ["案例 1（高校科研）：8 节点 A10，50 亿参数，RoCE"] * 2  # the preset's Chinese title


def test_both_command_lines_title_an_unnamed_scenario_in_the_files_language(tmp_path):
    """A scenario with the default name is titled by what it is, in the files' language, as the app
    titles it; the first sheet and the CSV's first row name the GPU, the nodes and the model."""
    import openpyxl

    from costmodel import Scenario, cli
    from webui import cli as app_cli

    data = Scenario().model_dump(mode="json")
    data["cluster"].update(gpu="h100", nodes=64, gpus_per_node=8)
    data["workload"]["model_params_b"] = 50
    scenario = tmp_path / "blank.json"
    scenario.write_text(json.dumps(data), encoding="utf-8")
    for lang, expected in (("zh", "64 × H100 · 500 亿参数 · 训练"), ("en", "64 × H100 · 50 B parameters · training")):
        for name, main in (("model", cli.main), ("app", app_cli.main)):
            path, table = tmp_path / f"{name}-{lang}.xlsx", tmp_path / f"{name}-{lang}.csv"
            args = ["report", str(scenario), "--lang", lang, "--xlsx", str(path), "--results-csv", str(table)]
            assert main(args) == 0
            sheet = openpyxl.load_workbook(path).worksheets[0]
            assert sheet.cell(1, 2).value == expected, (name, lang)
            assert "64" in sheet.cell(6, 2).value and "NVIDIA H100 80 GB SXM" in sheet.cell(6, 2).value
            assert ("500 亿参数" if lang == "zh" else "50 B parameters") in sheet.cell(6, 2).value
            first = next(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8-sig"))))
            cols = (("方案", "GPU", "节点数", "每节点 GPU 数", "模型参数（十亿）") if lang == "zh"
                    else ("scenario", "gpu", "nodes", "gpus_per_node", "model_params_b"))
            assert tuple(first[c] for c in cols) == (expected, "NVIDIA H100 80 GB SXM", "64", "8", "50"), (name, lang)
