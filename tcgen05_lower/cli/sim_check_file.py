"""A --check FILE.py of tcgen05-sim (cli/sim.py's module docstring says what it may
define): ``CheckFile`` loads it and reports what goes wrong in it at its file:line, and
``file_problem`` makes the ``Problem`` from its BUFFERS, SCALARS, derived, TOLERANCE,
bound, INPUT_RANGES, STRUCTS and reference.
"""

from __future__ import annotations

import os
import re
import runpy
import traceback

import numpy as np

from tcgen05_lower.cli.sim_problem import (CheckFileError, Problem, UsageError, _read_text,
                                           numpy_dtype, param_name, scalar_parameter_names)
from tcgen05_lower.cli.sim_report import compare
from tcgen05_lower.sim.param_space import fields_problem


class CheckFile:
    """A --check FILE.py: its definitions, and calls into them that report what goes
    wrong there (an exception, a value of the wrong kind) as the file's error at the line
    it happened (or at the definition that gave the value), not as the tool's."""

    def __init__(self, path: str):
        self.path = path
        self.source = _read_text(path, "check file")
        try:
            self.spec = runpy.run_path(path)
        except SyntaxError as exc:
            raise CheckFileError(f"{exc.filename or path}:{exc.lineno or 0}: "
                                 f"{type(exc).__name__}: {exc.msg}") from None
        except (Exception, SystemExit) as exc:
            raise self.failed(exc, "while it is loaded") from None

    def __contains__(self, name: str) -> bool:
        return name in self.spec

    def get(self, name: str, default=None):
        return self.spec.get(name, default)

    def call(self, name: str, *args):
        """The check file's function `name` called with `args`."""
        function = self.spec[name]
        if not callable(function):
            raise self.wrong(name, f"{name} is not a function")
        try:
            return function(*args)
        except (Exception, SystemExit) as exc:
            raise self.failed(exc, f"in {name}()") from None

    def failed(self, exc: BaseException, when: str) -> CheckFileError:
        """The error of an exception raised by the check file's code: at the innermost
        line of the file in its traceback."""
        mine = os.path.abspath(self.path)
        line = next((f.lineno for f in reversed(traceback.extract_tb(exc.__traceback__))
                     if os.path.abspath(f.filename) == mine), None)
        if line is None:
            line = self.definition_line(when.removeprefix("in ").removesuffix("()"))
        return CheckFileError(f"{self.path}:{line}: {when}: {type(exc).__name__}: {exc}")

    def wrong(self, name: str, message: str) -> CheckFileError:
        """The error of a value the check file's `name` gives, at its definition."""
        return CheckFileError(f"{self.path}:{self.definition_line(name)}: {message}")

    def definition_line(self, name: str) -> int:
        """The line that defines `name` (``def name`` or ``name =``), else 1."""
        return _definition_line(self.source, name)


def _definition_line(source: str, name: str) -> int:
    m = re.search(rf"^(?:def\s+{re.escape(name)}\b|{re.escape(name)}\s*[:=])", source,
                  re.M)
    return source.count("\n", 0, m.start()) + 1 if m else 1


def file_problem(path: str, manifest: dict, overrides: dict | None = None,
                 entry=None) -> Problem:
    """The Problem of a --check FILE.py (see the module docstring); CheckFileError for
    what is wrong in the file, UsageError for a --set that names no integer argument,
    LaunchError for a scalar that does not fit its PTX parameter (with `entry`)."""
    from tcgen05_lower.sim.api import check_scalar, manifest_parameters

    spec = CheckFile(path)
    if "BUFFERS" not in spec or "reference" not in spec:
        raise CheckFileError(f"{path}:1: a check file must define BUFFERS and "
                             f"reference(inputs)")
    rtol, atol = _tolerance_of(spec)

    def tolerance(name, got, expected, inputs):
        if "bound" in spec:
            bound, text = _bound_of(spec, name, inputs, np.shape(expected))
            return compare(got, expected, bound, text)
        bound = atol + rtol * np.abs(np.asarray(expected, np.float64))
        return compare(got, expected, bound, f"atol {atol:g} + rtol {rtol:g} * |ref|")

    integer_params = scalar_parameter_names(manifest)
    scalars = spec.get("SCALARS", {})
    if not isinstance(scalars, dict) or not all(
            isinstance(k, str) and _is_int(v) for k, v in scalars.items()):
        raise spec.wrong("SCALARS", "SCALARS must be a dict of integer arguments "
                                    "({name: int})")
    scalars = dict(scalars)
    unknown = sorted(set(overrides or {}) - set(integer_params))
    if unknown:
        raise UsageError(f"--set {', '.join(unknown)}: not an integer argument of the kernel")
    scalars.update(overrides or {})
    if "derived" in spec:
        more = spec.call("derived", dict(scalars))
        if not isinstance(more, dict) or not all(
                isinstance(k, str) and _is_int(v) for k, v in more.items()):
            raise spec.wrong("derived", "derived(scalars) must return a dict of integer "
                                        "arguments ({name: int})")
        scalars.update({k: v for k, v in more.items() if k not in scalars})
    if entry is not None:
        for name, _, param in manifest_parameters(manifest, entry):
            if name in scalars and name in integer_params:
                check_scalar(name, scalars[name], param)
    shown = ", ".join(f"{k}={v}" for k, v in scalars.items())
    buffers = spec.call("BUFFERS", dict(scalars)) if callable(spec.get("BUFFERS")) \
        else spec.get("BUFFERS")
    buffers = _buffers_of(spec, buffers, shown)
    structs = _structs_of(spec, scalars, buffers, manifest, entry)
    if set(overrides or {}) & set(structs):
        raise UsageError(f"--set {', '.join(sorted(set(overrides) & set(structs)))}: a "
                         f"by-value struct (the check file's STRUCTS), not an integer "
                         f"argument of the kernel")

    def reference(inputs):
        return spec.call("reference", inputs)

    return Problem(buffers, scalars, reference, tolerance,
                   path + (f" ({shown})" if shown else ""), spec, _ranges_of(spec, buffers),
                   structs)


def _structs_of(spec: CheckFile, scalars: dict, buffers: dict, manifest: dict,
                entry) -> dict:
    """STRUCTS of the check file ({parameter name: [field, ...]}, or a function of the
    scalars returning it): the fields of by-value struct parameters, as a manifest's
    "fields" (sim/param_space.py), each array a field holds the address of one BUFFERS
    gives. With `entry` (the PTX entry), each struct's fields are checked against its
    parameter's bytes."""
    structs = spec.call("STRUCTS", dict(scalars)) if callable(spec.get("STRUCTS")) \
        else spec.get("STRUCTS", {})
    if not isinstance(structs, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(f, dict) for f in v)
            for k, v in structs.items()):
        raise spec.wrong("STRUCTS", "STRUCTS must be a dict {parameter name: [field, ...]}, "
                                    "each field {\"offset\": k, \"type\": \"u32\", "
                                    "\"value\": n} or {\"offset\": k, \"array\": name}")
    by_value = {param_name(p): k for k, p in enumerate(manifest["params"])
                if not p["pointer"] and "tensor_map" not in p}
    for name, fields in structs.items():
        if name not in by_value:
            raise spec.wrong("STRUCTS", f"STRUCTS[{name!r}]: the kernel has no by-value "
                                        f"parameter {name} (by-value parameters: "
                                        f"{', '.join(by_value) or 'none'})")
        why = entry is not None and fields_problem(name, fields, entry.params[by_value[name]])
        if why:
            raise spec.wrong("STRUCTS", f"STRUCTS[{name!r}]: {why}")
        for k, f in enumerate(fields):
            if isinstance(f.get("array"), str) and f["array"] not in buffers:
                raise spec.wrong("STRUCTS", f"STRUCTS[{name!r}]: field {k} holds the address "
                                            f"of {f['array']!r}, an array BUFFERS gives no "
                                            f"shape")
    return structs


def _ranges_of(spec: CheckFile, buffers: dict) -> dict:
    """INPUT_RANGES of the check file: {name: (low, high)}, the half-open range of an
    integer input's random values (default [-8, 8)), e.g. the codes of block-scale
    factors, whose bytes are exponents."""
    ranges = spec.get("INPUT_RANGES", {})
    ok = isinstance(ranges, dict) and all(
        name in buffers and isinstance(v, (tuple, list)) and len(v) == 2
        and all(_is_int(x) for x in v) and v[0] < v[1] for name, v in ranges.items())
    if not ok:
        raise spec.wrong("INPUT_RANGES", "INPUT_RANGES must be a dict {buffer name: (low, "
                                         "high)} of integer buffers, low < high")
    return {name: (int(v[0]), int(v[1])) for name, v in ranges.items()}


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _tolerance_of(spec: CheckFile) -> tuple[float, float]:
    value = spec.get("TOLERANCE", (1e-5, 1e-6))
    try:
        rtol, atol = (float(v) for v in value)
    except (TypeError, ValueError):
        raise spec.wrong("TOLERANCE", f"TOLERANCE must be (rtol, atol), two numbers, not "
                                      f"{value!r}") from None
    return rtol, atol


def _bound_of(spec: CheckFile, name: str, inputs: dict, shape: tuple):
    """bound(name, inputs) of the check file: (an array that broadcasts to the output's
    shape, its text)."""
    result = spec.call("bound", name, inputs)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise spec.wrong("bound", f"bound({name!r}, inputs) must return (array, text), "
                                  f"not {type(result).__name__}")
    try:
        bound = np.asarray(result[0], np.float64)
        np.broadcast_shapes(bound.shape, shape)
    except (TypeError, ValueError) as exc:
        raise spec.wrong("bound", f"bound({name!r}, inputs) returns no bound for an output "
                                  f"of shape {shape}: {exc}") from None
    return bound, str(result[1])


def _buffers_of(spec: CheckFile, buffers, scalars_text: str) -> dict:
    """{name: (dtype name, dims)} from the check file's BUFFERS, every element type known
    and every dimension a non-negative integer."""
    given = f" (with {scalars_text})" if scalars_text else ""
    if not isinstance(buffers, dict):
        raise spec.wrong("BUFFERS", f"BUFFERS must be a dict {{name: (dtype, shape)}}, "
                                    f"not {type(buffers).__name__}{given}")
    out = {}
    for name, value in buffers.items():
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] is {value!r}, not "
                                        f"(dtype, shape)")
        dtype, dims = value
        try:
            numpy_dtype(dtype)
        except UsageError as exc:
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}]: {exc}") from None
        dims = (dims,) if _is_int(dims) else dims
        if not isinstance(dims, (tuple, list)) or not all(_is_int(d) for d in dims):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] has the dimensions {dims!r}, "
                                        f"not integers{given}")
        if any(d < 0 for d in dims):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] has the dimensions "
                                        f"{tuple(int(d) for d in dims)}: one is negative"
                                        f"{given}")
        out[name] = (dtype, tuple(int(d) for d in dims))
    return out
