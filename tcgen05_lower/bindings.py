"""The one module that imports MLIR's Python package.

Everything else reaches MLIR through the names re-exported here, so a change of the
bindings' version touches this file only. Calls whose behaviour is known to differ between
binding versions (how Python passes are added, how diagnostics are caught, how modules are
parsed with a file name) live here as small functions.
"""

from __future__ import annotations

import contextlib
import re
import sys
import types
from dataclasses import dataclass
from typing import Callable, Iterator

from mlir import ir  # noqa: F401  (re-exported)
from mlir.dialects import arith, func, irdl, llvm, nvvm, scf  # noqa: F401  (re-exported)
from mlir.passmanager import PassManager  # noqa: F401  (re-exported)

#: The upstream MLIR release these bindings come from; checked by the test suite against
#: the installed distribution so that an accidental upgrade is noticed.
MLIR_BINDINGS_DISTRIBUTION = "xtc-mlir-python-bindings"
MLIR_BINDINGS_VERSION = "22.1.8.4"

MLIRError = ir.MLIRError

# When the bindings wrap an op, type or value of a dialect, they look for a Python module
# mlir.dialects.<dialect> with generated classes, and retry the import every time it is
# missing. The tcgen05 dialect (IRDL, loaded at run time) has none; an empty module ends
# the search once. It makes the passes several times faster on large kernels.
sys.modules.setdefault("mlir.dialects.tcgen05", types.ModuleType("mlir.dialects.tcgen05"))


@dataclass(frozen=True)
class Diagnostic:
    """A diagnostic caught from MLIR: severity word, location and message."""

    severity: str  # "error", "warning", "note" or "remark"
    filename: str | None
    line: int | None
    col: int | None
    message: str
    notes: tuple["Diagnostic", ...] = ()

    def format(self) -> str:
        """Formats the diagnostic the way mlir-opt prints it."""
        where = ""
        if self.filename is not None:
            where = self.filename + ":"
            if self.line is not None:
                where += f"{self.line}:"
                if self.col is not None:
                    where += f"{self.col}:"
            where += " "
        text = f"{where}{self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + note.format()
        return text


_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


# Module.parse names its buffer "-"; diagnostics from such a buffer are reported under the
# name the caller gave (see parse_module).
_ANONYMOUS_BUFFER = "-"
_anonymous_source_name: str | None = None


def file_location(loc: "ir.Location") -> tuple[str | None, int | None, int | None]:
    """Returns (file, line, column) of a location, looking through name, call-site and
    fused locations to the first file location; (None, None, None) if there is none.
    Text parsed from an anonymous buffer is reported under the name given to
    :func:`parse_module`."""
    pending = [loc]
    while pending:
        current = pending.pop(0)
        if current.is_a_file():
            filename = current.filename
            if filename == _ANONYMOUS_BUFFER and _anonymous_source_name is not None:
                filename = _anonymous_source_name
            return filename, current.start_line, current.start_col
        if current.is_a_name():
            pending.append(current.child_loc)
        elif current.is_a_callsite():
            pending.append(current.callee)
        elif current.is_a_fused():
            pending.extend(current.locations)
    return None, None, None


def _convert(diag) -> Diagnostic:
    filename, line, col = file_location(diag.location)
    notes = tuple(_convert(n) for n in diag.notes)
    return Diagnostic(_SEVERITY[diag.severity], filename, line, col, diag.message, notes)


def error_diagnostics(error: "MLIRError") -> list[Diagnostic]:
    """The diagnostics an MLIRError carries (MLIR routes the diagnostics of a failing
    parse or pass-manager run to the exception, not to the context's handlers)."""
    return [_convert(x) for x in error.error_diagnostics] or list(getattr(error, "located", []))


@contextlib.contextmanager
def capture_diagnostics(context: "ir.Context") -> Iterator[list[Diagnostic]]:
    """Collects every diagnostic MLIR emits in `context` while the block runs."""
    collected: list[Diagnostic] = []

    def handler(diag) -> bool:
        collected.append(_convert(diag))
        return True  # handled: MLIR does not print it again

    handle = context.attach_diagnostic_handler(handler)
    try:
        yield collected
    finally:
        handle.detach()


def parse_module(text: str, source_name: str) -> "ir.Operation":
    """Parses `text` as a module whose diagnostics name `source_name`.

    A file with several top-level operations is wrapped in a module, as mlir-opt does.
    Raises MLIRError with located diagnostics on failure (``error_diagnostics`` gives
    them, also for the failures the parser reports without any).
    """
    global _anonymous_source_name
    _anonymous_source_name = source_name
    abort = _input_the_parser_aborts_on(text, source_name)
    if abort is not None:
        error = MLIRError("Unable to parse module assembly", [])
        error.located = [abort]
        raise error
    try:
        if len(_top_level_ops(text)) == 1:
            op = ir.Operation.parse(text, source_name=source_name)
            if op.name == "builtin.module":
                # Operation.parse hands back the op's OpView; callers want the Operation.
                return op.operation
        # Several top-level ops (or one that is not a module): MLIR's implicit module.
        return ir.Module.parse(text).operation
    except MLIRError as error:
        if not error.error_diagnostics:
            error.located = [_silent_parse_failure(text, source_name, str(error))]
        raise


#: A tcgen05 op written in custom syntax (`%d = tcgen05.tmem_buffer() ...`): IRDL ops have
#: none, and the parser then fails without a diagnostic.
_CUSTOM_TCGEN05_OP = re.compile(r"^(\s*(?:%[^=]*=\s*)?)(tcgen05\.\w+)")


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
    """The MLIR 22.1 bindings abort the process (an assertion on unhandled captured errors)
    when a dialect type is directly followed by a `.` (`!b = !tcgen05.tmem<...>.`). No
    valid input has a `>` directly followed by `.` outside strings and comments, so such
    input is refused here, located, before the parser sees it."""
    for number, line in enumerate(text.splitlines(), start=1):
        code = _STRING.sub(lambda m: " " * len(m.group(0)), line).split("//", 1)[0]
        at = code.find(">.")
        if at >= 0:
            return Diagnostic("error", source_name, number, at + 2,
                              "unexpected '.' after a type")
    return None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _top_level_ops(text: str) -> list[str]:
    """A cheap count of top-level operations: lines at brace depth 0 that start an op."""
    starts, depth = [], 0
    for line in text.splitlines():
        stripped = line.split("//", 1)[0].strip()
        if depth == 0 and stripped:
            starts.append(stripped)
        depth += stripped.count("{") - stripped.count("}")
    return starts


def add_python_pass(pm: "PassManager", run: Callable, name: str, argument: str,
                    description: str) -> None:
    """Adds a Python-defined pass to a module-anchored `pm`. (It is added as an
    any-op pass: naming an anchor op here makes MLIR 22.1 refuse to schedule it.)"""
    pm.add(run, name=name, argument=argument, description=description)


def installed_bindings_version() -> str | None:
    """The installed version of the MLIR bindings distribution, or None if unknown."""
    from importlib import metadata

    try:
        return metadata.version(MLIR_BINDINGS_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
