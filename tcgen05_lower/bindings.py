"""The one module that imports MLIR's Python package.

Everything else reaches MLIR through the names re-exported here, so a change of the
bindings' version touches this file only. Calls whose behaviour is known to differ between
binding versions (how Python passes are added, how diagnostics are caught, how modules are
parsed with a file name) live here as small functions.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import sys
import types
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Iterator

from mlir import ir  # noqa: F401  (re-exported)
from mlir.dialects import arith, func, irdl, llvm, nvvm, scf  # noqa: F401  (re-exported)
from mlir.passmanager import PassManager  # noqa: F401  (re-exported)

from tcgen05_lower import segments

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


_SEVERITY = MappingProxyType({
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
})


#: The buffer name Module.parse gives the text it parses (it takes no source name):
#: parse_module renames it to the caller's name.
_ANONYMOUS_BUFFER = "-"


def op_pointer(op) -> int:
    """The address of the C++ operation behind `op` (an Operation or an OpView): a key
    that stays the same while the op lives, whatever is written on it."""
    op = op.operation if hasattr(op, "operation") else op
    return _capsule_pointer()(op._CAPIPtr, _OPERATION_CAPSULE)


@functools.lru_cache(maxsize=1)  # typed once per process
def _capsule_pointer():
    """CPython's ``PyCapsule_GetPointer``, typed for ctypes."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    get.restype = ctypes.c_void_p
    return get


def int_value(attr) -> int:
    """The value of an integer attribute of any width. ``IntegerAttr.value`` aborts the
    process (an APInt assertion) for a value past 64 bits, such as ``2^64 : i65``; wider
    types are read from the attribute's text instead."""
    attr = ir.IntegerAttr(attr)
    t = attr.type
    if isinstance(t, ir.IntegerType) and t.width > 64:
        return int(str(attr).split(":", 1)[0].strip())
    return attr.value


def file_location(loc: "ir.Location") -> tuple[str | None, int | None, int | None]:
    """Returns (file, line, column) of a location, looking through name, call-site and
    fused locations to the first file location; (None, None, None) if there is none."""
    pending = [loc]
    while pending:
        current = pending.pop(0)
        if current.is_a_file():
            return current.filename, current.start_line, current.start_col
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
    located = getattr(error, "located", None)
    return list(located) if located else [_convert(x) for x in error.error_diagnostics]


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
    from tcgen05_lower.kernel_ir import record_parameter_names
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


_EMPTY_OP_NAME = re.compile(r'"([A-Za-z_][\w$]*)\."(?=\s*\()')
_DENSEMAP_KEY = "densemap key"
_DENSEMAP_KEYS = (2 ** 63 - 1, 2 ** 63 - 2)   # DenseMapInfo<long>: empty, tombstone
_PARSER_ABORTS = ((re.compile(r">\s*\."), "unexpected '.' after a type"),
                  (re.compile(r"\bcase\s+(-?\d+)"), _DENSEMAP_KEY))


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


class _MlirOperation(ctypes.Structure):
    """The C API's MlirOperation: one pointer, passed by value."""

    _fields_ = [("ptr", ctypes.c_void_p)]


#: The name of the capsule that ``Operation._CAPIPtr`` returns (mlir-c/Bindings/Python).
_OPERATION_CAPSULE = b"mlir.ir.Operation._CAPIPtr"


@functools.lru_cache(maxsize=1)  # the library is loaded once per process anyway
def _llvm_translation_c_api():
    """The C functions translate_to_llvm_ir calls (MLIR's C API and LLVM's, through the
    library the bindings link), or None if this build of the bindings lacks one."""
    from mlir import _mlir_libs

    for folder in _mlir_libs.__path__:
        path = os.path.join(folder, "libMLIRPythonCAPI.so")
        if not os.path.exists(path):
            continue
        try:
            # PyDLL, not CDLL: the call keeps the GIL, because a diagnostic the
            # translation emits runs the context's Python handlers.
            library = ctypes.PyDLL(path)
            translate = library.mlirTranslateModuleToLLVMIR
            create, dispose = library.LLVMContextCreate, library.LLVMContextDispose
            to_string, free = library.LLVMPrintModuleToString, library.LLVMDisposeMessage
            dispose_module = library.LLVMDisposeModule
        except (OSError, AttributeError):
            return None
        translate.argtypes, translate.restype = [_MlirOperation, ctypes.c_void_p], ctypes.c_void_p
        create.argtypes, create.restype = [], ctypes.c_void_p
        dispose.argtypes, dispose.restype = [ctypes.c_void_p], None
        to_string.argtypes, to_string.restype = [ctypes.c_void_p], ctypes.c_void_p
        free.argtypes, free.restype = [ctypes.c_void_p], None
        dispose_module.argtypes, dispose_module.restype = [ctypes.c_void_p], None
        return types.SimpleNamespace(translate=translate, create=create, dispose=dispose,
                                     to_string=to_string, free=free,
                                     dispose_module=dispose_module)
    return None


def translate_to_llvm_ir(module_op: "ir.Operation") -> str:
    """LLVM IR text of a module in the LLVM dialect (MLIR's translation).

    The bindings' ``llvm.translate_module_to_llvmir`` never frees the C string it converts
    to Python (22.1: the printed module, some 25 KiB per kernel, stays allocated for the
    rest of the process), so the same C API calls are made here through ctypes, freeing
    the string. Raises MLIRError if the translation fails (its diagnostics go to the
    context's handlers)."""
    api = _llvm_translation_c_api()
    if api is None:  # another build of the bindings: the leaking call still works
        return str(llvm.translate_module_to_llvmir(module_op))
    operation = _MlirOperation(op_pointer(module_op))
    llvm_context = api.create()
    try:
        llvm_module = api.translate(operation, llvm_context)
        if not llvm_module:
            raise MLIRError("translation to LLVM IR failed", [])
        try:
            text = api.to_string(llvm_module)
            try:
                return ctypes.string_at(text).decode()
            finally:
                api.free(text)
        finally:
            api.dispose_module(llvm_module)
    finally:
        api.dispose(llvm_context)


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


def live_context_count() -> int:
    """How many MLIR contexts the bindings hold alive in this process (the count upstream
    MLIR's Python tests use to find leaked contexts)."""
    return ir.Context._get_live_count()
