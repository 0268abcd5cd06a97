"""No tcgen05 attribute name is spelled as a string outside the dialect (issue 15).

The passes, the lowering, the planner and the driver read and write the attributes of
tcgen05 ops through the typed op classes (``dialect/ops.py``: ``MmaOp(op).k_offset``,
``buffer.layout = "D"``, ``mma.has(MmaOp.scale_vec)``), so that a misspelled attribute is
an AttributeError at once, not a silently defaulted read. This test scans the Python files
of ``tcgen05_lower/`` (but ``tcgen05_lower/sim/``, which reads PTX and must not import
the compiler) and ``passes/`` for string constants (``ast.Constant``) equal to an
attribute name of ``attributes.ATTRIBUTES`` and fails listing ``file:line`` of each.

Some of those names are also ordinary words of other vocabularies (a JSON report's
``"layout"``, the ISA's ``"ld"`` feature, a pass option ``shape``). They are allowed only

- in the modules of MLIR_FREE, which can reach no op: they import neither MLIR nor the
  dialect, only the standard library and each other (checked below), or
- where ALLOWED lists the literal in its enclosing function or class (its qualified name,
  so an entry does not depend on line numbers), with why it is not an attribute read.

Every entry must still be needed: a stale one fails too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tcgen05_lower.dialect.attributes import ATTRIBUTES

ROOT = Path(__file__).resolve().parent.parent

#: Every attribute name of every tcgen05 op.
ATTRIBUTE_NAMES = frozenset(name for attrs in ATTRIBUTES.values() for name in attrs)

#: Not scanned: the simulator reads PTX, not MLIR, and must not import the compiler
#: (tests/test_sim_independence.py).
EXCLUDED = ("tcgen05_lower/sim/",)

#: Modules (or packages, ending in /) that cannot reach an op, so that a name there is
#: never an attribute read: they import only the standard library and one another
#: (test_mlir_free_modules_import_no_mlir checks it) and never touch ``.attributes``.
MLIR_FREE = {
    "tcgen05_lower/isa/": "the model of PTX ISA 9.7.16: instruction-descriptor fields "
                          "(Tables 42-44: sparse, negate_a, max_shift, scale_a_id ...), "
                          "feature keys (\"ld\") and access kinds (\"ld\", \"st\"), named "
                          "by the ISA that the attributes are named after",
    "tcgen05_lower/ptx.py": "spells PTX instructions: \"ld\" is tcgen05.wait::ld's kind",
    "tcgen05_lower/strategies/ldst.py": "a description of an access, op = \"ld\" / \"st\" "
                                        "/ \"ld_red\" (the isa.addressing access kinds)",
    "tcgen05_lower/planning/report.py": "keys of the --report-json object and the "
                                        "--report table's column titles",
    "tcgen05_lower/planning/placement.py": "imported by report.py (no literal of its own)",
    "tcgen05_lower/text.py": "text utilities (bracket splitting, did-you-mean) imported by "
                             "isa/ (no literal of its own)",
}

#: (file, enclosing function or class by qualified name, "" at module level, literal):
#: why the literal there is not an attribute name.
_WAIT_KIND = ("the value \"ld\" of tcgen05.wait's kind (wait::ld), compared with or "
              "given as a kind: an attribute value, not a name")
_FEATURE = ("a target feature key of isa/targets.FEATURES (\"ld\": tcgen05.ld's "
            "availability), not an attribute")
_MANIFEST = "a key of the launch manifest (JSON, driver.launch_manifest), not an attribute"
ALLOWED = {
    ("tcgen05_lower/verification/fragments.py", "FragmentRules.check_ld", "ld"): _FEATURE,
    ("tcgen05_lower/verification/barriers.py", "BarrierRules.check_wait", "ld"): _WAIT_KIND,
    ("tcgen05_lower/synchronization/planner_needs.py", "PlannerNeeds.resolve", "ld"): _WAIT_KIND,
    ("tcgen05_lower/synchronization/planner_sites.py", "PlannerSites.plan_completion", "ld"): _WAIT_KIND,
    ("passes/tcgen05_insert_sync.py", "", "ld"):
        "COUNTED, the report's wait::ld column: " + _WAIT_KIND,
    ("tcgen05_lower/planning/program.py", "_build", "ld"): _WAIT_KIND,
    ("tcgen05_lower/synchronization/roles.py", "RolePlan.plan_accumulators", "ld"):
        _WAIT_KIND,
    ("tcgen05_lower/synchronization/ring_protocol.py", "RingProtocol.plan_epilogue", "ld"): _WAIT_KIND,
    ("passes/tcgen05_select_layouts.py", "Tcgen05SelectLayouts", "shape"):
        "the name of the pass option shape= (Option(...)), not an attribute",
    ("tcgen05_lower/layout_selection/messages.py", "MessageDecisions.plan_access", "shape"):
        "self.option(\"shape\"): the pass option shape=, not an attribute",
    ("tcgen05_lower/driver.py", "", "ld"):
        "BASE_FEATURES and OP_FEATURES: " + _FEATURE,
    ("tcgen05_lower/driver.py", "kernel_signatures", "cta_group"):
        "a key of the kernel signature the manifest is made from (read from the "
        "tcgen05.kernel dictionary by kernel_info), not an op attribute",
    ("tcgen05_lower/driver.py", "launch_manifest", "cta_group"):
        "reads that signature's key for the manifest's cluster shape",
    ("tcgen05_lower/driver.py", "_one_cluster", "cta_group"):
        "reads that signature's key for the grid of one cluster",
    ("tcgen05_lower/driver.py", "launch_manifest", "name"): _MANIFEST,
    ("tcgen05_lower/cli/sim_gemm.py", "gemm_problem", "name"):
        "a parameter's name in the launch manifest: " + _MANIFEST,
    ("tcgen05_lower/cli/sim_problem.py", "make_inputs", "name"):
        "a parameter's name in the launch manifest: " + _MANIFEST,
    ("tcgen05_lower/cli/sim_problem.py", "param_name", "name"):
        "a parameter's name in the launch manifest: " + _MANIFEST,
    ("tcgen05_lower/cli/compare.py", "kernel_inputs", "name"):
        "a parameter's name in the launch manifest: " + _MANIFEST,
    ("tcgen05_lower/gpu.py", "launch", "name"):
        "a parameter's name in the launch manifest the GPU backend launches from: "
        + _MANIFEST,
    ("tcgen05_lower/cli/lower.py", "add_smem_to_json", "name"):
        "a kernel's name in the JSON plan report (planning.report's schema), not an "
        "attribute",
    ("tcgen05_lower/builder/core.py", "_kernel_attribute", "cta_group"):
        "an entry of the tcgen05.kernel dictionary the builder writes on the func.func "
        "(dialect.KERNEL_ENTRIES), not an op attribute",
}


def scanned_files(root: Path = ROOT) -> list[Path]:
    files = sorted((root / "tcgen05_lower").rglob("*.py")) + sorted((root / "passes").rglob("*.py"))
    return [p for p in files if not _relative(p, root).startswith(EXCLUDED)]


def _relative(path: Path, root: Path = ROOT) -> str:
    return path.relative_to(root).as_posix()


def _mlir_free(relative: str) -> bool:
    return any(relative == m or (m.endswith("/") and relative.startswith(m))
               for m in MLIR_FREE)


def attribute_literals(source: str, names=ATTRIBUTE_NAMES) -> list[tuple[int, str, str]]:
    """(line, enclosing qualified name or "", literal) of every string constant of
    `source` that is one of `names`."""
    found = []

    def visit(node, scope):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = f"{scope}.{node.name}" if scope else node.name
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in names:
            found.append((node.lineno, scope, node.value))
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(ast.parse(source), "")
    return sorted(found)


def unexplained_literals(root: Path = ROOT, allowed=None) -> tuple[list[str], set]:
    """(["file:line: 'name' (in scope)"] of the literals no rule allows, the ALLOWED
    entries that were used)."""
    allowed = ALLOWED if allowed is None else allowed
    problems, used = [], set()
    for path in scanned_files(root):
        relative = _relative(path, root)
        if _mlir_free(relative):
            continue
        for line, scope, literal in attribute_literals(path.read_text()):
            key = (relative, scope, literal)
            if key in allowed:
                used.add(key)
                continue
            problems.append(f"{relative}:{line}: {literal!r} (in {scope or 'the module'})")
    return problems, used


def test_no_attribute_name_literals_outside_the_dialect():
    problems, _ = unexplained_literals()
    assert not problems, (
        "tcgen05 attribute names spelled as strings; read and write them through the "
        "typed op classes (tcgen05_lower.dialect.ops), or, for a word used in another "
        "sense, add an ALLOWED entry saying why:\n  " + "\n  ".join(problems))


def test_every_allowed_entry_is_needed_and_explained():
    _, used = unexplained_literals()
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"ALLOWED entries no literal needs any more: {stale}"
    for key, why in {**ALLOWED, **{(m, "", ""): w for m, w in MLIR_FREE.items()}}.items():
        assert why.strip(), f"{key} does not say why it is not an attribute read"
    for module in MLIR_FREE:
        assert (ROOT / module).exists(), f"MLIR_FREE names {module}, which does not exist"


def _module_file(dotted: str) -> str | None:
    """The file (relative to the repository) of a tcgen05_lower module or package."""
    base = dotted.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if (ROOT / candidate).exists():
            return candidate
    return None


def _imported_modules(path: Path, relative: str):
    """Every module the file imports, by dotted name (``from package import module``
    names the module; relative imports resolved)."""
    package = relative.rsplit("/", 1)[0].split("/")
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                yield submodule if _module_file(submodule) else module


def test_mlir_free_modules_import_no_mlir():
    """The modules MLIR_FREE exempts import only the standard library and one another,
    and touch no ``.attributes``: they cannot read an op's attributes."""
    checked = 0
    for path in scanned_files():
        relative = _relative(path)
        if not _mlir_free(relative):
            continue
        checked += 1
        for module in _imported_modules(path, relative):
            top = module.split(".")[0]
            if top == "tcgen05_lower":
                file = _module_file(module)
                assert file is not None and _mlir_free(file), \
                    f"{relative} imports {module}, which MLIR_FREE does not list"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", \
                    f"{relative} imports {module}, not the standard library"
        tree = ast.parse(path.read_text())
        touched = [n.lineno for n in ast.walk(tree)
                   if isinstance(n, ast.Attribute) and n.attr == "attributes"]
        assert not touched, f"{relative} touches .attributes at lines {touched}"
    assert checked >= len(MLIR_FREE)


PLANTED = '''
from tcgen05_lower import dialect as d

def lower(op, buffer):
    offset = d.get_int(op, "k_offset", 0)          # line 5
    if "scale_vec" in op.attributes:               # line 6
        buffer.attributes["half_lanes"] = True     # line 7
    return f"k_offset = {offset}", "kind of"       # not attribute names
'''


def test_the_scan_finds_planted_literals(tmp_path):
    assert attribute_literals(PLANTED) == [(5, "lower", "k_offset"), (6, "lower", "scale_vec"),
                                           (7, "lower", "half_lanes")]
    # ... and reports them by file and line, unless an entry allows one.
    (tmp_path / "tcgen05_lower" / "sim").mkdir(parents=True)
    (tmp_path / "passes").mkdir()
    (tmp_path / "passes" / "planted.py").write_text(PLANTED)
    (tmp_path / "tcgen05_lower" / "sim" / "ptx_reader.py").write_text(PLANTED)  # excluded
    problems, used = unexplained_literals(tmp_path, allowed={})
    assert problems == ["passes/planted.py:5: 'k_offset' (in lower)",
                        "passes/planted.py:6: 'scale_vec' (in lower)",
                        "passes/planted.py:7: 'half_lanes' (in lower)"]
    entry = ("passes/planted.py", "lower", "scale_vec")
    problems, used = unexplained_literals(tmp_path, allowed={entry: "planted"})
    assert len(problems) == 2 and used == {entry}


@pytest.mark.parametrize("name", ["k_offset", "collector_b_op", "half_lanes", "ld"])
def test_names_come_from_the_table(name):
    assert name in ATTRIBUTE_NAMES
