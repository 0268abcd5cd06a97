"""Generates ``ops.py``, the typed op classes, from the IRDL definition.

    python -m tcgen05_lower.dialect.generate          # rewrite dialect/ops.py
    python -m tcgen05_lower.dialect.generate --check  # exit 1 if it is out of date

Operand and result names and their variadicity, and the attributes IRDL requires, are read
from ``tcgen05.irdl.mlir`` through MLIR's own IRDL dialect (``irdl.operands`` names them);
the optional attributes and their kinds and defaults come from ``attributes.py``. One
class per op, named after it (``mma`` -> ``MmaOp``), with a property per operand, result
and attribute. ``tests/test_dialect_ops.py`` checks that the file is what this writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.attributes import ATTRIBUTES, DEFAULTS
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if ops.py differs from what would be generated")
    args = parser.parse_args(argv)
    text = render(read_definitions())
    if args.check:
        if output_path().read_text() != text:
            print(f"{output_path()} is out of date: run python -m tcgen05_lower.dialect.generate",
                  file=sys.stderr)
            return 1
        return 0
    output_path().write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
