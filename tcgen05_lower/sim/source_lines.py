"""Source lines of PTX lines: the ``.loc`` / ``.file`` debugging directives (PTX ISA
11.5.3, 11.5.4) a compiler writes with line information (tcgen05-lower --line-info, Triton,
nvcc -lineinfo) map each PTX line to the ``file:line:col`` of the source it comes from,
which the simulator's reports add to every PTX line they name (races, errors, problems
at exit).
"""

from __future__ import annotations

import re
from types import MappingProxyType


def source_locations(ptx: str) -> dict[int, str]:
    """PTX line (1-based) -> ``file:line:col`` of the ``.loc`` it falls under (the last
    ``.loc`` above it in the text, files named by ``.file``, which may come after it, as at
    the end of a module); empty when the PTX carries no ``.loc``. Two passes over the
    text."""
    files = {int(n): _unescape(name) for n, name in
             re.findall(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"', ptx, re.MULTILINE)}
    where, out = None, {}
    for number, text in enumerate(ptx.split("\n"), 1):
        stripped = text.strip()
        if stripped.startswith(".file"):
            continue
        m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)", stripped)
        if m:
            name = files.get(int(m.group(1)), f"file {m.group(1)}")
            where = f"{name}:{m.group(2)}:{m.group(3)}" if int(m.group(2)) else None
            continue
        if where is not None and stripped:
            out[number] = where
    return out


_ESCAPES = MappingProxyType({"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", '"': b'"',
                             "'": b"'"})


def _unescape(name: str) -> str:
    """A ``.file`` name as its file is named: the string's escapes (``\\\\``, ``\\"``,
    octal ``\\303\\251`` and hex ``\\x22`` bytes, which LLVM writes for a quote or a
    non-ASCII character) decoded, the bytes read as UTF-8."""
    if "\\" not in name:
        return name

    def byte(m: re.Match) -> bytes:
        code = m.group(1).decode("latin-1")
        if code[0] in "01234567":
            return bytes([int(code, 8) & 0xFF])
        if code[0] == "x":
            return bytes([int(code[1:], 16)])
        return _ESCAPES.get(code, m.group(1))

    raw = re.sub(rb"\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)", byte, name.encode("utf-8"),
                 flags=re.S)
    return raw.decode("utf-8", errors="replace")


def locate(errors: list, ptx: str) -> list:
    """Adds each error's PTX text and source location (and a race's other line's)."""
    lines = ptx.split("\n")
    where = source_locations(ptx) if ".loc" in ptx else {}

    def text(line):
        return lines[line - 1] if line and 0 < line <= len(lines) else ""

    for err in errors:
        if err.ptx_line is None:
            continue
        err.ptx_text = err.ptx_text or text(err.ptx_line)
        err.source = where.get(err.ptx_line)
        other = getattr(err, "other_line", None)
        if other is not None:
            err.other_text = text(other)
            err.other_source = where.get(other)
    return errors


def locate_problems(problems: list[str], ptx: str) -> list[str]:
    """The at-exit problems with the source location of every PTX line they name
    (``PTX line 177 (k.mlir:22:5)``), when the PTX carries ``.loc``."""
    where = source_locations(ptx) if ".loc" in ptx else {}
    if not where:
        return problems

    def located(m: re.Match) -> str:
        source = where.get(int(m.group(1)))
        return f"{m.group(0)} ({source})" if source else m.group(0)

    return [re.sub(r"PTX line (\d+)", located, p) for p in problems]
