"""Parsing a kernel's text into a module: ``parse_module`` names the diagnostics after the
caller's file, wraps several top-level operations in a module as mlir-opt does, supplies
the MMA's operandSegmentSizes (tcgen05_lower.segments), reports the inputs the parser
aborts or fails silently on as located diagnostics, and records the kernel parameters'
source names (parameter_names.record_parameter_names). It sits above the dialect, which
it uses; ``bindings`` below it holds what talks to MLIR itself.
"""

from __future__ import annotations

import re

from tcgen05_lower import segments
from tcgen05_lower.bindings import Diagnostic, MLIRError, _convert, ir
from tcgen05_lower.parameter_names import record_parameter_names

#: A tcgen05 op written in custom syntax (`%d = tcgen05.tmem_buffer() ...`): IRDL ops have
#: none, and the parser then fails without a diagnostic.
_CUSTOM_TCGEN05_OP = re.compile(r"^(\s*(?:%[^=]*=\s*)?)(tcgen05\.\w+)")


_EMPTY_OP_NAME = re.compile(r'"([A-Za-z_][\w$]*)\."(?=\s*\()')
_DENSEMAP_KEY = "densemap key"
_DENSEMAP_KEYS = (2 ** 63 - 1, 2 ** 63 - 2)   # DenseMapInfo<long>: empty, tombstone
_PARSER_ABORTS = ((re.compile(r">\s*\."), "unexpected '.' after a type"),
                  (re.compile(r"\bcase\s+(-?\d+)"), _DENSEMAP_KEY))


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


#: The buffer name Module.parse gives the text it parses (it takes no source name):
#: parse_module renames it to the caller's name.
_ANONYMOUS_BUFFER = "-"


def parse_module(text: str, source_name: str) -> "ir.Operation":
    """Parses `text` as a module whose diagnostics name `source_name`.

    A file with several top-level operations is wrapped in a module, as mlir-opt does.
    Raises MLIRError with located diagnostics on failure (``error_diagnostics`` gives
    them, also for the failures the parser reports without any).
    """
    abort = _input_the_parser_aborts_on(text, source_name)
    if abort is not None:
        error = MLIRError("Unable to parse module assembly", [])
        error.located = [abort]
        raise error
    # The MMA's operandSegmentSizes, which nobody writes (tcgen05_lower/segments.py);
    # `edits` maps the columns the insertions moved back to the user's text.
    source, (text, edits) = text, segments.supply(text)
    try:
        if len(_top_level_ops(text)) == 1:
            op = ir.Operation.parse(text, source_name=source_name)
            if op.name == "builtin.module":
                # Operation.parse hands back the op's OpView; callers want the Operation.
                return op.operation
        # Several top-level ops (or one that is not a module): MLIR's implicit module.
        # Module.parse takes no source name, so its buffer's name is replaced.
        module = ir.Module.parse(text).operation
    except MLIRError as error:
        if not error.error_diagnostics:
            error.located = [_silent_parse_failure(text, source_name, str(error))]
        else:
            error.located = [_renamed(_convert(x), source_name, edits)
                             for x in error.error_diagnostics]
        raise
    _name_anonymous_buffer(module, source_name, edits)
    # Kernel parameters' source names, which printed IR would lose (the grid names them);
    # the arguments' locations are in the user's text (_name_anonymous_buffer).
    record_parameter_names(module, source)
    return module


def _renamed(diagnostic: Diagnostic, source_name: str,
             edits: "segments.Edits | None" = None) -> Diagnostic:
    """`diagnostic` (and its notes) with the anonymous buffer's name replaced, and its
    column moved back over text that `edits` inserted."""
    filename = diagnostic.filename
    col = diagnostic.col
    if filename in (_ANONYMOUS_BUFFER, source_name):
        filename = source_name
        if edits:
            col = edits.original_column(diagnostic.line, col)
    return Diagnostic(diagnostic.severity, filename, diagnostic.line, col,
                      diagnostic.message,
                      tuple(_renamed(note, source_name, edits) for note in diagnostic.notes))


def _name_anonymous_buffer(module: "ir.Operation", source_name: str,
                           edits: "segments.Edits | None" = None) -> None:
    """Gives every op and block argument that the parser located in the anonymous
    buffer the same line and column in `source_name`, and those after text that `edits`
    inserted on their line their column in the user's text (one walk over the module)."""

    def renamed(loc: "ir.Location"):
        if not loc.is_a_file():
            return None
        if edits and loc.filename in (_ANONYMOUS_BUFFER, source_name) \
                and loc.start_line in edits.by_line:
            col = edits.original_column(loc.start_line, loc.start_col)
            if col != loc.start_col or loc.filename != source_name:
                return ir.Location.file(source_name, loc.start_line, col)
            return None
        if loc.filename == _ANONYMOUS_BUFFER:
            return ir.Location.file(source_name, loc.start_line, loc.start_col)
        return None

    def visit(op) -> "ir.WalkResult":
        new = renamed(op.location)
        if new is not None:
            op.location = new
        for region in op.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    new = renamed(argument.location)
                    if new is not None:
                        argument.set_location(new)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.walk(visit, ir.WalkOrder.PRE_ORDER)


def _silent_parse_failure(text: str, source_name: str, message: str) -> Diagnostic:
    """A located diagnostic for a parse that failed without one."""
    for number, line in enumerate(text.splitlines(), start=1):
        match = _CUSTOM_TCGEN05_OP.match(line.split("//", 1)[0])
        if match:
            name = match.group(2)
            return Diagnostic(
                "error", source_name, number, len(match.group(1)) + 1,
                f"{name} must be written in MLIR's generic form, \"{name}\"(operands) "
                "{attributes} : (operand types) -> result types: the tcgen05 dialect is "
                "defined in IRDL, whose ops have no custom syntax")
    return Diagnostic("error", source_name, None, None,
                      f"the MLIR parser failed without a diagnostic ({message})")


def _input_the_parser_aborts_on(text: str, source_name: str) -> Diagnostic | None:
    """Input on which the MLIR 22.1 bindings abort the process rather than report an
    error, refused here, located, before the parser sees it:

    - a dialect type directly followed by a `.` (`!b = !tcgen05.tmem<...>.`, or with
      blanks between): an assertion on unhandled captured errors. No valid input has a
      `>` followed by `.` outside strings and comments.
    - an ``scf.index_switch`` case value of 2^63 - 1 or 2^63 - 2, the empty and tombstone
      keys of the LLVM DenseMap the op's verifier puts its cases in (an assertion).
    - a generic op name that ends at the dialect's dot (``"tcgen05."(...)``, ``"arith."``):
      "created with unregistered dialect", a fatal LLVM error.
    - a string left open at the end of its line (``"tcgen``): unhandled captured errors."""
    for match in _EMPTY_OP_NAME.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        return Diagnostic("error", source_name, number, column,
                          f"op name {match.group(0)} names no op after the dialect "
                          f"'{match.group(1)}'")
    lines = [_STRING.sub(lambda m: " " * len(m.group(0)), line).split("//", 1)[0]
             for line in text.splitlines()]
    for number, line in enumerate(lines, start=1):
        if '"' in line:   # a string that does not end on its line: the parser aborts
            return Diagnostic("error", source_name, number, line.index('"') + 1,
                              "unterminated string (a string ends on its line)")
    code = "\n".join(lines)
    for pattern, message in _PARSER_ABORTS:
        for match in pattern.finditer(code):
            if message is _DENSEMAP_KEY and int(match.group(1)) not in _DENSEMAP_KEYS:
                continue
            at = match.end() - 1 if message is not _DENSEMAP_KEY else match.start(1)
            number = code.count("\n", 0, at) + 1
            column = at - (code.rfind("\n", 0, at) + 1) + 1
            return Diagnostic("error", source_name, number, column,
                              message if message is not _DENSEMAP_KEY else
                              f"scf.index_switch case value {match.group(1)} is the "
                              "empty or tombstone key of LLVM's DenseMap, on which the MLIR "
                              "parser aborts: use another value")
    return None


def _top_level_ops(text: str) -> list[str]:
    """A cheap count of top-level operations: lines at brace depth 0 that start an op."""
    starts, depth = [], 0
    for line in text.splitlines():
        stripped = line.split("//", 1)[0].strip()
        if depth == 0 and stripped:
            starts.append(stripped)
        depth += stripped.count("{") - stripped.count("}")
    return starts
