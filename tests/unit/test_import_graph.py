"""The import graph has no circles: no module reaches itself through imports, late imports included.

``lint-imports`` (run by ``make test``) checks the layer contracts of ``pyproject.toml``; this test
checks what a layer contract cannot see, a circle between two modules of one package.
"""

from __future__ import annotations

import grimp
import pytest

PACKAGES = ("costmodel", "webui", "store", "app_pages")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def _circles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    modules = sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES)
    succ = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i.split(".")[0] in PACKAGES)
            for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                part = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    part.append(m)
                    if m == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_no_module_imports_itself_through_others(graph):
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    g = grimp.ImportGraph()
    for a, b in (("costmodel.a", "costmodel.b"), ("costmodel.b", "costmodel.c"), ("costmodel.c", "costmodel.a"),
                 ("costmodel.c", "costmodel.d")):
        g.add_import(importer=a, imported=b)
    assert _circles(g) == [["costmodel.a", "costmodel.b", "costmodel.c"]]

