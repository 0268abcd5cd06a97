"""The one module that imports MLIR's Python package.

Everything else reaches MLIR through the names re-exported here, so a change of the
bindings' version touches this file only. Calls whose behaviour is known to differ between
binding versions (how Python passes are added, how diagnostics are caught) live here as
small functions; parsing a module with a file name is ``tcgen05_lower.parsing``'s, which
sits above the dialect (it records the kernels' parameter names).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import types
from dataclasses import dataclass
from types import MappingProxyType
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


_SEVERITY = MappingProxyType({
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
})


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
