"""Rewrites kernels written with full types on every op into the style of examples/: MLIR
type aliases at the top of the file (``!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16,
"K", "128B">``) and the aliases in the ops, with an op's type signature joined onto its
line where the shorter text fits in 100 columns.

    python tests/alias_example_types.py examples/new_kernel.mlir ...   # rewrites in place

The parser substitutes an alias before anything reads the type, so the kernel is the same
(tests/test_alias_example_types.py compiles kernels both ways and compares the PTX); only
the line numbers of the ops move down by the alias block. Comments are left as written.

Names say what a type is: the memory space or ``frag``, the shape joined by ``x`` and the
element type (MLIR's ``128x64xbf16``); a tile that is not K-major with the 128-byte
swizzle adds its major and swizzle (``!smem_64x128xbf16_mn_128b``). ``!gptr`` is
``!llvm.ptr<1>`` (global memory) and ``!mbar`` is ``!tcgen05.mbarrier``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

WIDTH = 100
TYPE = re.compile(r'!tcgen05\.(smem|tmem|frag)<\[([0-9, ]+)\], ([A-Za-z0-9]+)((?:, "[^"]*")*)>'
                  r'|!llvm\.ptr<1>|!tcgen05\.mbarrier\b')
#: The order of the alias block: pointers, shared memory, tensor memory, fragments, barriers.
RANK = ("!gptr", "!smem", "!tmem", "!frag", "!mbar")


def alias_name(match: re.Match) -> str:
    """The alias of one written type (see the module docstring)."""
    text = match.group(0)
    if text == "!llvm.ptr<1>":
        return "!gptr"
    if text.startswith("!tcgen05.mbarrier"):
        return "!mbar"
    kind, shape, element, strings = match.groups()
    name = f"!{kind}_{'x'.join(s.strip() for s in shape.split(','))}x{element}"
    extra = re.findall(r'"([^"]*)"', strings or "")
    if extra and extra != ["K", "128B"]:   # the examples' usual tile needs no suffix
        name += "_" + "_".join(s.lower() for s in extra)
    return name


def substitute(lines: list[str]) -> tuple[list[str], dict[str, str]]:
    """The lines with every aliasable type outside comments replaced, and type -> alias."""
    aliases: dict[str, str] = {}

    def replace(match: re.Match) -> str:
        return aliases.setdefault(match.group(0), alias_name(match))

    out = []
    for line in lines:
        cut = line.find("//")
        code, comment = (line, "") if cut < 0 else (line[:cut], line[cut:])
        out.append(TYPE.sub(replace, code) + comment)
    if len(set(aliases.values())) != len(aliases):
        raise ValueError(f"two types would get one alias: {aliases}")
    return out, aliases


def _depth(text: str) -> int:
    return text.count("(") - text.count(")")


def join_signatures(lines: list[str]) -> list[str]:
    """Joins an op's type signature (the continuation lines that start with ':', up to
    its closing parenthesis) into one line, and onto the op's line when that fits in
    WIDTH columns; lines with comments are left as they are."""
    result, i = [], 0
    while i < len(lines):
        line, following = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
        if not following.strip().startswith(":") or "//" in line:
            result.append(line)
            i += 1
            continue
        last, depth = i + 1, _depth(following)
        while depth > 0 and last + 1 < len(lines):
            last += 1
            depth += _depth(lines[last])
        block = lines[i + 1:last + 1]
        if depth != 0 or any("//" in part for part in block):
            result.append(line)
            i += 1
            continue
        signature = " ".join(part.strip() for part in block).replace("( ", "(")
        indent = len(following) - len(following.lstrip())
        if len(line) + 1 + len(signature) <= WIDTH:
            result.append(f"{line} {signature}")
        elif indent + len(signature) <= WIDTH:
            result += [line, " " * indent + signature]
        else:
            result += [line] + block
        i = last + 1
    return result


def with_aliases(text: str) -> str:
    """The kernel text in the examples' style: the alias block before the first
    ``func.func`` (after the leading comment), the aliases in the ops."""
    lines, aliases = substitute(text.splitlines())
    if not aliases:
        return text
    lines = join_signatures(lines)
    first = next(i for i, line in enumerate(lines) if line.startswith("func.func"))

    def first_use(name: str) -> int:
        return next(i for i, line in enumerate(lines) if re.search(re.escape(name) + r"\b",
                                                                   line))

    order = sorted(aliases.items(), key=lambda item: (RANK.index(item[1].split("_")[0]),
                                                      first_use(item[1])))
    head = lines[:first] + ([""] if first and lines[first - 1].strip() else [])
    block = [f"{name} = {full}" for full, name in order]
    return "\n".join(head + block + [""] + lines[first:]) + "\n"


def main(paths: list[str]) -> int:
    for path in map(Path, paths):
        path.write_text(with_aliases(path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
