"""Kernel parameters' source names. Block arguments lose their names once parsed, and
printed IR spells them ``%argN``; the grid and the tensor maps name parameters, so the
names travel with the IR as the argument attribute ``tcgen05.name``, written at every
parse (``parsing.parse_module``) from the source text.
"""

from __future__ import annotations

import functools
import re

from tcgen05_lower import dialect
from tcgen05_lower.bindings import ir


#: The argument attribute that keeps a kernel parameter's source name in printed IR.
PARAMETER_NAME_ATTR = "tcgen05.name"


def record_parameter_names(module_op, text: str) -> None:
    """Writes each parameter's source name as the argument attribute
    ``tcgen05.name`` of every kernel whose ``grid`` names parameters, or that has
    tensor-map parameters (whose ``tensor`` names one, tcgen05_lower.tma): block
    arguments lose their names once parsed, and printed IR (``tcgen05-opt`` output fed
    to ``tcgen05-lower``) spells them ``%argN``, so the names must travel with the IR. `parsing.parse_module` calls it on every parse. A name already recorded stays."""
    for kernel in dialect.kernels(module_op):
        try:
            info = dialect.kernel_info(kernel)
        except ValueError:
            continue  # a malformed kernel attribute: tcgen05-verify reports it
        tensor_maps = "arg_attrs" in kernel.attributes and \
            "tcgen05.tensor_map" in str(kernel.attributes["arg_attrs"])
        if not info.grid and not tensor_maps:
            continue
        names = source_parameter_names(kernel, text)
        existing = ir.ArrayAttr(kernel.attributes["arg_attrs"]) \
            if "arg_attrs" in kernel.attributes else None
        dicts = []
        for i, name in enumerate(names):
            entries = {}
            if existing is not None:
                old = ir.DictAttr(existing[i])
                for j in range(len(old)):
                    entries[old[j].name] = old[j].attr
            entries.setdefault(PARAMETER_NAME_ATTR, ir.StringAttr.get(name))
            dicts.append(ir.DictAttr.get(entries))
        kernel.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)


def recorded_parameter_names(kernel) -> list[str] | None:
    """The names record_parameter_names wrote on `kernel`'s arguments, or None."""
    if "arg_attrs" not in kernel.attributes:
        return None
    names = []
    for entry in ir.ArrayAttr(kernel.attributes["arg_attrs"]):
        entry = ir.DictAttr(entry)
        if PARAMETER_NAME_ATTR not in entry:
            return None
        names.append(ir.StringAttr(entry[PARAMETER_NAME_ATTR]).value)
    return names


def source_parameter_names(kernel, text: str | None) -> list[str]:
    """The names of `kernel`'s parameters as its source spells them, read from the
    function op itself: each block argument's location is its ``%name`` in the source
    (the parser's), or a name location (``loc("A")``, which the Python builder gives).
    ``arg0, arg1, ...`` when some argument has neither (a location elsewhere, or
    names that are not distinct). `text` is the source the kernel was parsed from."""
    arguments = list(kernel.regions[0].blocks[0].arguments)
    starts = _line_starts(text) if text is not None else None
    names = [_argument_name(argument.location, text, starts) for argument in arguments]
    if None in names or len(set(names)) != len(names):
        # Locations that point elsewhere (IR printed with the locations of an earlier
        # source, then edited and parsed again): the signature of the function itself, on
        # a line of code (never a comment's `func.func @k(`).
        names = _signature_names(text, kernel, len(arguments))
    if names is None or None in names or len(set(names)) != len(names):
        return [f"arg{i}" for i in range(len(arguments))]
    return names


def _signature_names(text: str | None, kernel, count: int) -> list[str] | None:
    """The ``%name``s of the parameter list of ``func.func @<kernel's name>(`` on a code
    line of `text` (the first such line); None without one, or with another count."""
    if text is None or "sym_name" not in kernel.attributes:
        return None
    name = ir.StringAttr(kernel.attributes["sym_name"]).value
    header = re.search(rf"^[ \t]*func\.func\s+(?:\w+\s+)?@{re.escape(name)}\(", text,
                       re.MULTILINE)
    if header is None:
        return None
    depth, end = 1, header.end()
    while end < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    found = _PARAMETER_AT.findall(text[header.end():end])
    return found if len(found) == count else None


#: A parameter's name where its location points: ``%A`` before its ``: type``.
_PARAMETER_AT = re.compile(r"%([\w$.-]+)\s*:")


def _argument_name(loc: "ir.Location", text: str | None, starts) -> str | None:
    """The name a block argument's location gives it: a name location's name, or the
    ``%name`` at its line and column of `text`; None otherwise."""
    if loc.is_a_name():
        return loc.name_str
    if text is None or not loc.is_a_file():
        return None
    line, col = loc.start_line, loc.start_col
    if not 1 <= line <= len(starts) - 1 or col < 1:
        return None  # not a place in this text
    source_line = text[starts[line - 1]:starts[line]].encode()
    match = _PARAMETER_AT.match(source_line[col - 1:].decode(errors="replace"))
    return match.group(1) if match else None


@functools.lru_cache(maxsize=4)
def _line_starts(text: str) -> tuple[int, ...]:
    """The offset of every line's first character in `text`, and len(text) + 1 last (a
    column of the parser's locations is a byte offset within its line, from 1). Cached:
    every kernel of a module asks for the same text, which is scanned once."""
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    starts.append(len(text) + 1)
    return tuple(starts)
