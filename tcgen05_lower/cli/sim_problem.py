"""What tcgen05-sim feeds a kernel and what it expects back (cli/sim.py): the
``Problem`` (buffers, scalars, reference, tolerance), element types by name, the
manifest's parameters, the memory check before anything is allocated, the random inputs,
and the reference's outputs, checked against the kernel's array parameters; and the
tool's errors for bad input (``UsageError``, ``CheckFileError``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np


_DTYPES = MappingProxyType({"bf16": "bfloat16", "f16": "float16", "f32": "float32",
                            "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
                            "f64": "float64", "i8": "int8", "i32": "int32",
                            "tf32": "float32"})


def numpy_dtype(name: str) -> np.dtype:
    """A NumPy dtype from a name ("bfloat16", "float32", "bf16" ...); UsageError for a
    name that is none."""
    name = _DTYPES.get(name, name) if isinstance(name, str) else name
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError, SyntaxError) as exc:
        raise UsageError(f"unknown element type {name!r} ({exc})") from None
    if dtype.kind not in "biuf" or dtype.itemsize == 0:
        raise UsageError(f"unknown element type {name!r} (not a number type)")
    return dtype


@dataclass
class Problem:
    """What to feed the kernel and how to check it."""
    buffers: dict          # name -> (dtype, shape)
    scalars: dict          # name -> int
    reference: object      # inputs -> {name: expected}
    tolerance: object      # (name, got, expected, inputs) -> (ok, max_abs, max_rel, bound text)
    description: str
    check_file: object = None  # the CheckFile it comes from (errors at its lines), if any
    ranges: dict = field(default_factory=dict)  # name -> [low, high) of integer inputs
    structs: dict = field(default_factory=dict)  # by-value struct parameter -> its fields


def _read_text(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: the {what} is not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None


class UsageError(Exception):
    pass


class CheckFileError(UsageError):
    """An error in the user's check file (--check FILE.py), at its file:line."""


def _cluster_ctas(manifest: dict, entry=None) -> int:
    """The CTAs of the manifest's cluster (api.check_launch has checked its shape), else
    of the PTX entry's .reqnctapercluster."""
    cluster = manifest.get("cluster") or \
        list(entry.directives.get("reqnctapercluster", [1]) if entry is not None else [1])
    count = 1
    for d in (cluster if isinstance(cluster, list) else [cluster]):
        count *= int(d)
    return count


def scalar_parameter_names(manifest: dict) -> list[str]:
    """The manifest's integer (by-value) parameters: not the by-value tensor maps and
    structs ("fields")."""
    return [param_name(p) for p in manifest["params"]
            if not p["pointer"] and "tensor_map" not in p and "fields" not in p]


def array_parameter_names(manifest: dict) -> list[str]:
    """The manifest's array parameters (pointers but tensor maps)."""
    return [param_name(p) for p in manifest["params"]
            if p["pointer"] and "tensor_map" not in p]


def launch_array_names(manifest: dict) -> list[str]:
    """The arrays of a launch: the array parameters, then the arrays that only a tensor
    map describes or a by-value struct holds the address of (CuTe DSL passes A and B as
    tensor maps and C inside a struct; sim/param_space.py), each once."""
    names = array_parameter_names(manifest)
    for p in manifest["params"]:
        held = [f["array"] for f in p.get("fields", ()) if "array" in f]
        if isinstance(p.get("tensor_map"), dict):
            held.append(p["tensor_map"]["tensor"])
        names += [a for a in held if a not in names]
    return names


def with_structs(manifest: dict, structs: dict) -> dict:
    """The manifest with the by-value parameters named in `structs` ({name: fields}, a
    check file's STRUCTS) described by those fields (sim/param_space.py)."""
    if not structs:
        return manifest
    params = [dict(p, fields=structs[param_name(p)]) if param_name(p) in structs else p
              for p in manifest["params"]]
    return dict(manifest, params=params)


def param_name(param: dict) -> str:
    """A manifest parameter's name (tcgen05-lower --manifest's schema)."""
    return param["name"]


# -- inputs -----------------------------------------------------------------------------------
def check_memory(problem: Problem, manifest: dict, limit: int | None) -> None:
    """UsageError, before anything is allocated, when an array parameter has no shape or
    the arrays need more than `limit` bytes (--max-memory)."""
    total, sizes = 0, []
    parameters = set(array_parameter_names(manifest))
    for name in launch_array_names(manifest):
        if name not in problem.buffers:
            raise UsageError(f"no shape for buffer parameter {name}" if name in parameters
                             else f"no shape for the array {name}, which a tensor map or "
                                  f"a by-value struct of the kernel names")
        dtype_name, dims = problem.buffers[name]
        count = 1
        for d in dims:
            count *= int(d)
        nbytes = count * numpy_dtype(dtype_name).itemsize
        total += nbytes
        sizes.append(f"{name} {'x'.join(map(str, dims)) or 'scalar'} {dtype_name}: "
                     f"{nbytes:,} B")
    if limit is not None and total > limit:
        raise UsageError(f"the kernel's arrays need {total:,} bytes ({_human(total)}), more "
                         f"than the limit of {limit:,} ({_human(limit)}, --max-memory): "
                         + "; ".join(sizes))


def _human(n: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} B"


def make_inputs(problem: Problem, manifest: dict, reference_names, seed: int) -> dict:
    """Random inputs (uniform in [-1, 1), rounded to the element type; integers in
    [-8, 8)); outputs, the buffers the reference names, filled with NaN (or a marker) so an
    element the kernel never writes shows up as a mismatch."""
    rng = np.random.default_rng(seed)
    args = {}
    for param in manifest["params"]:
        name = param["name"]
        if "tensor_map" in param or "fields" in param:
            continue  # bound by the simulator to the arrays they name (sim/tma.py,
            # sim/param_space.py), made below
        if not param["pointer"]:
            if name not in problem.scalars:
                raise UsageError(f"no value for scalar parameter {name}")
            args[name] = int(problem.scalars[name])
    for name in launch_array_names(manifest):
        if name not in problem.buffers:
            raise UsageError(f"no shape for buffer parameter {name}")
        dtype_name, dims = problem.buffers[name]
        dtype = numpy_dtype(dtype_name)
        if name in reference_names:
            fill = np.nan if dtype.kind == "f" or dtype_name == "bfloat16" else -1
            args[name] = np.full(dims, fill, dtype=np.float64).astype(dtype)
        elif dtype.kind in "iu":
            low, high = problem.ranges.get(name, (-8, 8))
            args[name] = rng.integers(low, high, size=dims).astype(dtype)
        else:
            args[name] = rng.uniform(-1, 1, size=dims).astype(dtype)
    return args


def output_names(problem: Problem, manifest: dict, seed: int) -> set[str]:
    """The buffers the reference produces (it is called once on throw-away inputs):
    array parameters of the kernel, each given an array of its buffer's shape
    (CheckFileError otherwise, before the kernel runs)."""
    probe = make_inputs(problem, manifest, set(), seed)
    return set(expected_outputs(problem, manifest, probe))


def expected_outputs(problem: Problem, manifest: dict, inputs: dict) -> dict:
    """The reference's {output: expected array}, checked: a dict naming array parameters
    of the kernel, with arrays of numbers of the buffers' shapes."""
    expected = problem.reference(inputs)
    wrong = UsageError if problem.check_file is None \
        else (lambda message: problem.check_file.wrong("reference", message))
    if not isinstance(expected, dict):
        raise wrong(f"reference(inputs) must return a dict {{output: array}}, not "
                    f"{type(expected).__name__}")
    arrays = launch_array_names(manifest)
    for name, want in expected.items():
        if name not in arrays:
            raise wrong(f"reference(inputs) returns {name!r}, which is not an array "
                        f"parameter of the kernel ({', '.join(arrays) or 'none'})")
        try:
            dims = np.asarray(want, np.float64).shape
        except (TypeError, ValueError) as exc:
            raise wrong(f"reference(inputs)[{name!r}] is not an array of numbers: "
                        f"{exc}") from None
        if dims != tuple(problem.buffers[name][1]):
            raise wrong(f"reference(inputs)[{name!r}] has the shape {dims}, its buffer "
                        f"{tuple(problem.buffers[name][1])}")
    return expected
