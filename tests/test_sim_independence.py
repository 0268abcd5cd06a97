"""The simulator takes its semantics from the PTX ISA text, not from the compiler: no
module of tcgen05_lower/sim imports the compiler's ISA tables, lowering, passes, planning
or strategies (checked on the source's import statements, so a lazy import inside a
function counts too)."""

import ast
from pathlib import Path

import tcgen05_lower.sim

FORBIDDEN = ("tcgen05_lower.isa", "tcgen05_lower.lowering", "tcgen05_lower.passes",
             "tcgen05_lower.planning", "tcgen05_lower.strategies", "tcgen05_lower.dialect",
             "tcgen05_lower.driver", "tcgen05_lower.pipeline", "tcgen05_lower.emit",
             "tcgen05_lower.ptx")


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against tcgen05_lower.sim
                base = "tcgen05_lower.sim" if node.level == 1 else "tcgen05_lower"
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]
    return names


def test_sim_imports_nothing_from_the_compiler():
    files = sorted(Path(tcgen05_lower.sim.__file__).parent.glob("*.py"))
    assert len(files) >= 5  # __init__, ptx, executor, ops, api at least
    offending = [(f.name, m) for f in files for m in imported_modules(f)
                 if any(m == bad or m.startswith(bad + ".") for bad in FORBIDDEN)]
    assert not offending, offending


def test_the_check_sees_a_forbidden_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from tcgen05_lower.isa import descriptors\n"
                      "from ..lowering import core\n")
    found = imported_modules(sample)
    assert "tcgen05_lower.isa.descriptors" in found and "tcgen05_lower.lowering" in found
