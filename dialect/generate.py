"""Generates ``ops.py``, the typed op classes, from the IRDL definition.

    python -m tcgen05_lower.dialect.generate          # rewrite ops.py and docs/ops.md
    python -m tcgen05_lower.dialect.generate --check  # exit 1 if either is out of date

Operand and result names and their variadicity, and the attributes IRDL requires, are read
from ``tcgen05.irdl.mlir`` through MLIR's own IRDL dialect (``irdl.operands`` names them);
the optional attributes and their kinds and defaults come from ``attributes.py``. One
class per op, named after it (``mma`` -> ``MmaOp``), with a property per operand, result
and attribute. The op reference ``docs/ops.md`` is written from the same definitions and
the comment above each op in the IRDL file. ``tests/test_dialect_ops.py`` checks that both
files are what this writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.attributes import ATTRIBUTES, DEFAULTS, KIND_NAMES, WRITTEN_BY
from tcgen05_lower.dialect.op_base import Tcgen05Op

def output_path() -> Path:
    """The generated file, ``ops.py`` beside this one."""
    return Path(__file__).with_name("ops.py")


def read_definitions() -> list[dict]:
    """[{name, operands, results, required}] of every op of the IRDL file, in its order."""
    from tcgen05_lower import dialect

    definitions = []
    context = dialect.make_context()
    with context:
        module = ir.Module.parse(dialect.irdl_source())
        body = module.body.operations[0].regions[0].blocks[0]
        for op in body.operations:
            op = op.operation
            if op.name != "irdl.operation":
                continue
            entry = {"name": ir.StringAttr(op.attributes["sym_name"]).value,
                     "operands": (), "results": (), "required": ()}
            for inner in op.regions[0].blocks[0].operations:
                inner = inner.operation
                if inner.name in ("irdl.operands", "irdl.results"):
                    names = [ir.StringAttr(x).value for x in ir.ArrayAttr(inner.attributes["names"])]
                    # #irdl<variadicity_array[ single,  optional]>
                    listed = str(inner.attributes["variadicity"]).split("[", 1)[1]
                    variadicity = re.findall(r"\b(single|optional|variadic)\b", listed)
                    entry[inner.name.split(".")[1]] = tuple(zip(names, variadicity))
                elif inner.name == "irdl.attributes":
                    entry["required"] = tuple(
                        ir.StringAttr(x).value
                        for x in ir.ArrayAttr(inner.attributes["attributeValueNames"]))
            definitions.append(entry)
    return definitions


def class_name(op: str) -> str:
    return "".join(part.capitalize() for part in op.split("_")) + "Op"


def render(definitions: list[dict]) -> str:
    lines = [
        '"""Typed classes of the tcgen05 ops. GENERATED from tcgen05.irdl.mlir and',
        "attributes.py by ``python -m tcgen05_lower.dialect.generate``: do not edit.",
        "",
        "Each class wraps a generic ``ir.Operation`` of its op (``MmaOp(op).k_offset``), tests",
        "one (``MmaOp.matches(op)``) and builds one (``MmaOp.build(d=..., kind=...)``); see",
        'op_base.py."""',
        "",
        "from __future__ import annotations",
        "",
        "from types import MappingProxyType",
        "",
        "from tcgen05_lower.dialect.op_base import DIALECT, Attribute, Tcgen05Op",
        "",
    ]
    names = []
    reserved = {n for n in dir(Tcgen05Op) if not n.startswith("__")} | {"operation"}
    for entry in definitions:
        name, cls = entry["name"], class_name(entry["name"])
        names.append(cls)
        kinds = ATTRIBUTES[name]
        members = [g for g, _ in entry["operands"] + entry["results"]] + list(kinds)
        clashes = sorted({m for m in members if members.count(m) > 1} | (set(members) & reserved))
        if clashes:
            raise ValueError(f"tcgen05.{name}: {', '.join(clashes)} would name two members "
                             "of its class")
        lines += ["", "", f"class {cls}(Tcgen05Op):",
                  f'    """tcgen05.{name}."""', "",
                  f'    NAME = "{name}"',
                  f"    OPERANDS = {entry['operands']!r}",
                  f"    RESULTS = {entry['results']!r}",
                  f"    REQUIRED = {entry['required']!r}",
                  "    __slots__ = ()"]
        for kind, groups in (("operand", entry["operands"]), ("result", entry["results"])):
            for i, (group, variadicity) in enumerate(groups):
                lines += ["", "    @property", f"    def {group}(self):",
                          f'        """The {variadicity} {kind} {group}."""',
                          f"        return self.{kind}({i})"]
        if kinds:
            lines.append("")
        for attr in sorted(kinds):
            default = DEFAULTS.get(name, {}).get(attr)
            comment = f"  # {kinds[attr]}" + (f", default {default!r}" if default is not None
                                                 else "")
            lines.append(f'    {attr} = Attribute("{attr}"){comment}')
    lines += ["", "", "#: Every op class by op name (without ``tcgen05.``).",
              "OPS = MappingProxyType({cls.NAME: cls for cls in (",
              *[f"    {c}," for c in names], ")})",
              "", "",
              "def wrap(op):",
              '    """The typed view of `op` (an instance of its op\'s class), or None for an op of',
              '    another dialect: for code that reads one attribute across several ops."""',
              "    op = op.operation if hasattr(op, \"operation\") else op",
              "    name = op.name",
              "    prefix = DIALECT + \".\"",
              "    cls = OPS.get(name[len(prefix):]) if name.startswith(prefix) else None",
              "    return cls(op) if cls is not None else None",
              ""]
    return "\n".join(lines)


def docs_path() -> Path:
    """docs/ops.md of the repository (None in an installed package, which has no docs)."""
    path = Path(__file__).resolve().parent.parent / "docs" / "ops.md"
    return path if path.parent.is_dir() else None


def op_comments(irdl_text: str) -> dict[str, str]:
    """The comment block right above each ``irdl.operation @name``, as prose."""
    comments, block = {}, []
    for line in irdl_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            block.append(stripped[2:].strip())
            continue
        match = re.match(r"irdl\.operation @(\w+)", stripped)
        if match:
            comments[match.group(1)] = " ".join(x for x in block if not x.startswith("---"))
        block = []
    return comments


def render_docs(definitions: list[dict], comments: dict[str, str]) -> str:
    lines = [
        "# Op reference",
        "",
        "GENERATED from `dialect/tcgen05.irdl.mlir` and `dialect/attributes.py` by "
        "`python -m tcgen05_lower.dialect.generate` (do not edit). Ops are written in MLIR's "
        "generic form, `\"tcgen05.<op>\"(operands) {attributes} : (operand types) -> result "
        "types`; in Python, `tcgen05_lower.dialect.ops` has a class per op and "
        "`tcgen05_lower.builder.KernelBuilder` builds kernels from them. Attributes marked "
        "*planned* are written by the pass named (the planned level); a user may write them "
        "to make that decision by hand. tcgen05-verify reports any other attribute (a "
        "misspelling) and any attribute of another kind. Types: "
        "`!tcgen05.tmem<[rows, columns], element>` (or `[stages, rows, columns]`), "
        "`!tcgen05.smem<[rows, K], element, \"K\"|\"MN\", swizzle>`, "
        "`!tcgen05.frag<[rows, columns], element>`, `!tcgen05.mbarrier`; element types: "
        "[element-types.md](element-types.md).",
        "",
    ]
    for entry in definitions:
        name = entry["name"]
        lines += [f"## `tcgen05.{name}` (`{class_name(name)}`)", "",
                  comments.get(name, "").strip() or "(no description)", ""]
        for title, groups in (("Operands", entry["operands"]), ("Results", entry["results"])):
            if groups:
                lines.append(f"{title}, in order: " + ", ".join(
                    f"`{g}`" + ("" if v == "single" else f" ({v})") for g, v in groups) + ".")
                lines.append("")
        kinds = ATTRIBUTES[name]
        if kinds:
            lines += ["| attribute | kind | default | |", "| --- | --- | --- | --- |"]
            for attr in sorted(kinds):
                default = DEFAULTS.get(name, {}).get(attr)
                required = attr in entry["required"]
                writer = WRITTEN_BY.get(name, {}).get(attr)
                note = "required" if required else (f"*planned* ({writer})" if writer else "")
                lines.append(f"| `{attr}` | {KIND_NAMES[kinds[attr]]} | "
                             f"{'' if default is None else f'`{default!r}`'} | {note} |")
            lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if ops.py differs from what would be generated")
    args = parser.parse_args(argv)
    from tcgen05_lower import dialect

    definitions = read_definitions()
    outputs = [(output_path(), render(definitions))]
    if docs_path() is not None:
        outputs.append((docs_path(), render_docs(definitions,
                                                 op_comments(dialect.irdl_source()))))
    stale = [path for path, text in outputs
             if not path.is_file() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date: run python -m tcgen05_lower.dialect.generate",
                  file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs:
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
