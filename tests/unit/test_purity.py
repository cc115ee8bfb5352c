"""The model package stays pure: no Streamlit, no Plotly, no unsafe loaders."""

import subprocess
import sys


def test_costmodel_imports_neither_streamlit_nor_plotly(root):
    code = ("import sys, costmodel; costmodel.evaluate(costmodel.load_preset('seed-case1-8xA10')); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_pickle_eval_or_unsafe_yaml_in_the_model(root):
    for path in (root / "costmodel").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for bad in ("pickle", "eval(", "exec(", "yaml.unsafe_load", "yaml.Loader", "FullLoader"):
            assert bad not in text, f"{path.name} contains {bad}"
