"""House sizes: no function over :data:`MAX_FUNCTION_LINES` lines and no module over :data:`MAX_MODULE_LINES`
lines in the packages listed in :data:`PACKAGES` (a function counts from its ``def`` line to its last line,
docstring and decorators' lines after ``def`` included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("costmodel", "webui", "app_pages")  # folders under the repository's root; add one when it keeps the limits
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def function_sizes(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every function and method in ``source``, nested ones included.

    >>> function_sizes("def f():\\n    return 1\\n\\nclass C:\\n    async def g(self):\\n        pass\\n")
    [('f', 1, 2), ('g', 5, 2)]
    """
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_the_scan_sees_every_package():
    found = {p.relative_to(ROOT).parts[0] for p in _modules()}
    assert found == set(PACKAGES)
    assert len(_modules()) > 20


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_function_is_longer_than_the_limit(path: Path):
    long = [(name, line, n) for name, line, n in function_sizes(path.read_text(encoding="utf-8"))
            if n > MAX_FUNCTION_LINES]
    assert long == [], f"split these functions (name, line, lines): {long}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_module_is_longer_than_the_limit(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{lines} lines: split the module"


def test_the_limits_catch_a_long_function_and_count_its_lines():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    sizes = function_sizes(f"def long():\n{body}")
    assert sizes == [("long", 1, MAX_FUNCTION_LINES + 1)]
