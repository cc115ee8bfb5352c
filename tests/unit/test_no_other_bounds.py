"""No table of input bounds exists outside the registry (costmodel/data/quantities.yaml).

The application's Python source (costmodel/, webui/, app_pages/, app.py, server.py) is parsed
with ``ast`` and every form a bounds table has taken in this code base is refused:

- a ``ge=`` / ``gt=`` / ``le=`` / ``lt=`` / ``min_value=`` / ``max_value=`` keyword with a number
  literal (pydantic ``Field`` bounds, Streamlit widget ranges);
- a dict (literal or comprehension) whose values are ``(low, high)`` pairs of number literals
  (the old ``*_OVERRIDE_BOUNDS``, ``SCENARIO_SWINGS``);
- a tuple or list of three or more calls that each take two or more number literals (the old
  ``breakeven._PARAMS`` of ``_p(name, unit, low, high, …)``);
- a range test ``low <= x <= high`` with a number literal at either end (the old discount check);
- a module-level ``MAX_…`` / ``MIN_…`` / ``…BOUND…`` constant set to a number literal, unless it
  is one of the resource limits below (sizes of requests and batches, not quantities).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCES = ("costmodel", "webui", "app_pages", "app.py", "server.py")
BOUND_KEYWORDS = frozenset({"ge", "gt", "le", "lt", "min_value", "max_value"})
# resource limits of the program (not bounds of a scenario input or catalog quantity)
LIMITS = frozenset({
    # sizes of requests, batches, documents and charts
    "MAX_DRAWS", "MAX_VALUES", "MAX_ROUNDS", "MAX_SCENARIO_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS",
    "MAX_OVERRIDDEN_ITEMS", "MAX_MESSAGE_CHARS", "MAX_SHOWN_PROBLEMS", "MAX_SWEEP_POINTS",
    "MAX_SWEEP_SPEC_POINTS", "MAX_BODY", "MAX_TOKEN_CHARS", "MAX_BREAK_EVEN_LABELS", "MAX_POINTS",
    "MAX_TOTAL_LABELS",
    # the model's structure and numerical floors (guards against division by zero)
    "MAX_TIERS", "MIN_MONTHLY_RATE", "MIN_GOODPUT",
})


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _pair(node: ast.AST) -> bool:
    return isinstance(node, ast.Tuple | ast.List) and len(node.elts) == 2 and all(map(_number, node.elts))


def _numeric_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and sum(map(_number, node.args)) >= 2


def bound_tables(source: str, name: str = "<source>") -> list[str]:
    """Every place in ``source`` that holds input bounds, as ``name:line: what``."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.keyword) and node.arg in BOUND_KEYWORDS and _number(node.value):
            found.append(f"{where}: {node.arg}= with a number")
        elif isinstance(node, ast.Dict) and node.values and all(map(_pair, node.values)):
            found.append(f"{where}: a dict of (low, high) pairs")
        elif isinstance(node, ast.DictComp) and _pair(node.value):
            found.append(f"{where}: a dict comprehension of (low, high) pairs")
        elif isinstance(node, ast.Tuple | ast.List) and sum(map(_numeric_call, node.elts)) >= 3:
            found.append(f"{where}: a table of calls with number literals")
        elif isinstance(node, ast.Compare) and _range_test(node):
            found.append(f"{where}: a range test with a number literal")
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                pairs = [(target, node.value)]
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):  # A, B = 1, 2
                    pairs = list(zip(target.elts, node.value.elts, strict=False))
                for tgt, value in pairs:
                    if isinstance(tgt, ast.Name) and _number(value) and _bound_name(tgt.id):
                        found.append(f"{name}:{node.lineno}: {tgt.id} = a number")
    return found


def _bound_name(name: str) -> bool:
    return (name.startswith(("MAX_", "MIN_")) or "BOUND" in name) and name not in LIMITS


def _limit(node: ast.AST) -> bool:
    """A name or attribute that is one of the resource limits, or infinity."""
    text = ast.unparse(node)
    return text.split(".")[-1] in LIMITS or text in ("math.inf", "np.inf", 'float("inf")', "float('inf')")


def _range_test(node: ast.Compare) -> bool:
    """``low <= x <= high`` with a number literal at one end and no resource limit at the other."""
    if len(node.ops) != 2 or not all(isinstance(op, ast.Lt | ast.LtE) for op in node.ops):
        return False
    ends = (node.left, node.comparators[-1])
    return any(map(_number, ends)) and not any(map(_limit, ends))


def _files(root: Path) -> list[Path]:
    out = []
    for entry in SOURCES:
        path = root / entry
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else [])
    return out


def test_no_table_of_bounds_outside_the_registry(root):
    files = _files(root)
    assert len(files) > 40 and any(p.name == "schema.py" for p in files)  # the scan reaches the code
    found = [hit for p in files for hit in bound_tables(p.read_text(encoding="utf-8"), str(p.relative_to(root)))]
    assert found == [], "bounds belong in costmodel/data/quantities.yaml:\n" + "\n".join(found)


# Each form the bounds had before the registry (copied from the code it replaced): the scan finds it.
OLD_FORMS = {
    "pydantic Field": 'nodes: int = Field(8, ge=1, le=100_000, description="GPU servers")',
    "widget range": "st.number_input('x', min_value=0.0, max_value=MAX)",
    "override table": 'FABRIC_OVERRIDE_BOUNDS = {"port_gbps": (1.0, 10_000.0), "ops_factor": (0.0, 100.0)}',
    "price table": 'B = {name: (0.0, 1e9) for name in ("nic_price", "switch_price")}',
    "swings": 'SCENARIO_SWINGS = {"nodes": (1, 100_000), "params": (1e7, 1e14)}',
    "solver table": ('_PARAMS = (_p("nodes", "nodes", 1, 100_000, 16_384), _p("pue", "ratio", 1.0, 3.0, 3.0),\n'
                     '           _p("ops_factor", "ratio", 0.0, 10.0, 3.0, per_fabric=True))'),
    "range test": "if not 0 <= pct <= MAX_DISCOUNT_PCT:\n    raise ValueError(pct)",
    "constant": "MAX_DISCOUNT_PCT = 95.0",
    "constant pair": "MIN_RATE, MAX_RATE = 1e-6, 1e6",
    "literal range test": 'if not 1e-6 <= rate <= 1e6:\n    raise ScenarioError([("--fx", "allowed")])',
}


@pytest.mark.parametrize("form", OLD_FORMS)
def test_the_scan_finds_every_old_form_of_a_bounds_table(form):
    assert bound_tables(OLD_FORMS[form]), form


def test_the_scan_leaves_ordinary_code_alone():
    code = ("x = Field(8, **_b('cluster.nodes'))\nlimits = {'a': 1, 'b': 2}\nshape = (1, 2)\n"
            "y = np.clip(v, lo, hi)\nMAX_DRAWS = 1_000_000\nif 0 < n:\n    pass\n"
            "ok = 1 <= draws <= MAX_DRAWS and 0 < rate < math.inf\n")
    assert bound_tables(code) == []
