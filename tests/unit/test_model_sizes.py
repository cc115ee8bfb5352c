"""The model stays in small pieces: no function or method of ``costmodel/`` is longer than 80 lines
(``def`` line to last line, docstring included) and no module longer than 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import costmodel

ROOT = Path(costmodel.__file__).parent
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400
#: files exempt from both limits, relative to costmodel/
EXEMPT = {
    "scenario/schema.py",  # being split
    "pipeline/inputs.py",  # being split
}


def _modules() -> list[Path]:
    """Every Python file of the model package except the exempt ones."""
    files = sorted(ROOT.rglob("*.py"))
    assert files, f"no Python files under {ROOT}"
    return [f for f in files if f.relative_to(ROOT).as_posix() not in EXEMPT]


def _long_functions(path: Path) -> list[str]:
    """``file:line name (n lines)`` of each function or method in ``path`` over the limit."""
    where = path.relative_to(ROOT.parent).as_posix()
    return [f"{where}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


def test_no_function_is_longer_than_80_lines():
    offenders = [o for path in _modules() for o in _long_functions(path)]
    assert not offenders, (f"functions over {MAX_FUNCTION_LINES} lines ({len(offenders)}); split them into "
                           "helpers named for what they compute:\n  " + "\n  ".join(offenders))


def test_no_module_is_longer_than_400_lines():
    sizes = {p.relative_to(ROOT.parent).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in _modules()}
    offenders = [f"{name} ({n} lines)" for name, n in sizes.items() if n > MAX_MODULE_LINES]
    assert not offenders, (f"modules over {MAX_MODULE_LINES} lines ({len(offenders)}); split them by job:\n  "
                           + "\n  ".join(offenders))


def test_the_exempt_files_exist():
    """An exemption names a file that is still there (drop it once the file is split or gone)."""
    missing = sorted(name for name in EXEMPT if not (ROOT / name).is_file())
    assert not missing, f"exempt files no longer in costmodel/: {missing}; remove them from EXEMPT"
