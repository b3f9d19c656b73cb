"""hsr/ is built in layers: each module imports only modules below it, so that
no two modules import each other, directly or around a circle. Imports inside
functions count too: a lazy import is still an edge of the house."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "hsr"


def _imports(path: Path, modules: set) -> set:
    """The hsr modules that one file imports, anywhere in it (not __init__)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            inside = node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == "hsr")
            if not inside:
                continue
            base = (node.module or "") if node.level else (node.module or "").removeprefix("hsr").lstrip(".")
            if base:
                found.add(base.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("hsr."))
    return found & modules


def import_graph(package: Path = PACKAGE) -> dict:
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    return {m: _imports(package / f"{m}.py", modules) - {m} for m in sorted(modules)}


def circles(graph: dict) -> list:
    """Every import circle, as the list of modules around it (one per circle's
    strongly connected part, Tarjan's algorithm)."""
    index, low, stack, on, parts = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in graph:
        if v not in index:
            visit(v)
    return parts


def test_no_import_circles_in_hsr():
    found = circles(import_graph())
    assert not found, "import circles in hsr/: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_sees_a_lazy_import(tmp_path):
    """The check itself: a circle closed only by an import inside a function is found."""
    (tmp_path / "a.py").write_text("from .b import x\n")
    (tmp_path / "b.py").write_text("def f():\n    from . import c\n")
    (tmp_path / "c.py").write_text("import hsr.a\n")
    assert circles(import_graph(tmp_path)) == [["a", "b", "c"]]


def test_the_ground_floor_imports_nothing_of_hsr():
    graph = import_graph()
    for ground in ("errors", "basics", "syntax"):
        assert not graph[ground], f"hsr/{ground}.py imports {graph[ground]}"


def test_no_template_over_700_lines():
    """A template past 700 lines is split into included pieces (templates/select_reduce/)."""
    root = PACKAGE.parent / "templates"
    long = {p.relative_to(root).as_posix(): n for p in root.rglob("*.jinja")
            if (n := len(p.read_text().splitlines())) > 700}
    assert not long, f"templates over 700 lines: {long}"


def test_bench_is_no_larger_than_the_package():
    """bench/'s scripts (results aside) stay no larger than hsr/: experiments whose
    question is answered leave, their findings kept in bench/NOTES.md."""
    def lines(paths):
        return sum(len(p.read_text().splitlines()) for p in paths)
    bench = PACKAGE.parent / "bench"
    scripts = [p for p in bench.rglob("*") if p.suffix in (".py", ".sh") and "results" not in p.parts]
    package = [*PACKAGE.glob("*.py"), *PACKAGE.glob("*.lark")]
    assert lines(scripts) <= lines(package), (lines(scripts), lines(package))
