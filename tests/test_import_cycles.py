"""The package imports downwards: the graph of which module of tcgen05_lower/ (with
passes/ and dialect/, installed as its subpackages) imports which has no cycle.

The graph is read from the source (ast), not from sys.modules, and an import inside a
function counts like one at the top of the module: a function-level import only
postpones a cycle to the first call, it does not remove the dependence. An edge goes to
the module an import names: ``from tcgen05_lower.isa import shapes`` depends on
``tcgen05_lower.isa.shapes``, ``from tcgen05_lower.kernel_ir import defining_op`` on
``tcgen05_lower.kernel_ir``; importing a submodule also runs its package's
``__init__``, which is not counted (a package's ``__init__`` re-exporting its own modules
is not a cycle). ``if TYPE_CHECKING:`` imports are not run and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "tcgen05_lower"
#: Folders installed as subpackages of tcgen05_lower (pyproject.toml's package-dir).
MAPPED = {"passes": f"{PACKAGE}.passes", "dialect": f"{PACKAGE}.dialect"}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Module name -> source file, for the package and its mapped folders."""
    found = {}
    folders = [(root / PACKAGE, PACKAGE)] + [(root / f, name) for f, name in MAPPED.items()]
    for folder, prefix in folders:
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([prefix] + parts)] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, name: str, modules) -> set[str]:
    """The package's modules that `path` (module `name`) imports, at any depth."""
    is_package = path.name == "__init__.py"
    edges = set()

    def resolve(base: str, names) -> None:
        for alias in names:
            if f"{base}.{alias}" in modules:
                edges.add(f"{base}.{alias}")
            elif base in modules:
                edges.add(base)

    def visit(node) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    edges.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base.startswith(PACKAGE):
                resolve(base, [alias.name for alias in node.names])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    edges.discard(name)
    return edges


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = module_files(root)
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read_from_the_source():
    # Edges known by reading the files: tcgen05-verify runs the verification package,
    # whose verifier imports its rule modules; kernel_ir imports nothing of the passes.
    graph = import_graph()
    assert f"{PACKAGE}.verification" in graph[f"{PACKAGE}.passes.tcgen05_verify"]
    assert f"{PACKAGE}.verification.mma" in graph[f"{PACKAGE}.verification.verifier"]
    assert not any(edge.startswith(f"{PACKAGE}.passes") for edge in graph[f"{PACKAGE}.kernel_ir"])
    assert len(graph) > 100


def test_the_cycle_finder_finds_cycles():
    # Hand-made graphs: a -> b -> c -> a is one cycle; d -> e without a way back is none.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": set()}) == [
        ["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_function_level_import_is_an_edge(tmp_path):
    # A cycle hidden by importing inside a function is still a cycle.
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from tcgen05_lower.high import g\n")
    (package / "high.py").write_text("from tcgen05_lower.low import f\n")
    assert cycles(import_graph(tmp_path)) == [[f"{PACKAGE}.high", f"{PACKAGE}.low"]]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)
