"""Kernel parameters passed by value as byte arrays: ``.param .align 64 .b8 p[128]``, a
``__grid_constant__`` CUtensorMap, as Triton and CUDA C++ pass tensor maps.

PTX ISA 5.1.6.1 (kernel function parameters): the address of a kernel parameter is taken
with ``mov`` of its name (a ``.param``-space address), and ``cvta.param`` (the
data-movement instruction cvta, 9.7.9) turns it into a generic address, through which
``cp.async.bulk.tensor`` reads the map.

Here every by-value parameter gets a made-up 32-bit param-space address (PARAM_BASE on,
one 128-byte slot each), and its generic address is the made-up address of the
``TensorMap`` bound to it (sim/tma.py): the TMA instructions look that address up as they
do for a tensor map passed by pointer. Any other by-value parameter is a struct whose
bytes the manifest describes field by field (``ParamStruct``, below).
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower.sim.state import SimError

#: Param-space addresses of by-value parameters (32-bit, as mov.b32 takes them).
PARAM_BASE = 0x0040_0000
PARAM_SLOT = 128

#: Key of bind_arguments' result holding arrays a tensor map describes that are no
#: kernel parameter themselves ({name: array}), bound as global buffers.
EXTRA_ARRAYS = "%arrays"


def bind_by_value(machine, param, address: int) -> None:
    """Gives the by-value tensor-map parameter `param` (bound at the generic `address`)
    its param-space address."""
    windows = machine.__dict__.setdefault("param_window", {})
    generic = machine.__dict__.setdefault("param_generic", {})
    where = PARAM_BASE + PARAM_SLOT * len(windows)
    windows[param.name] = where
    generic[where] = address


def generic_address(machine, value: int) -> int:
    """``cvta.param``: the generic address of param-space address `value`."""
    generic = machine.__dict__.get("param_generic", {})
    if value not in generic:
        raise SimError(f"cvta.param of {value:#x}, which is not the address of a by-value "
                       f"parameter (by-value parameters: "
                       f"{', '.join(machine.__dict__.get('param_window', {})) or 'none'})")
    return generic[value]


def check_value(param, value) -> None:
    """SimError unless a by-value array parameter gets a tensor map or a struct of its
    size."""
    from tcgen05_lower.sim.tma import TENSOR_MAP_BYTES, TensorMap

    if isinstance(value, ParamStruct):
        if value.size != param.size:
            raise SimError(f"the by-value parameter {param.name} has {param.size} bytes; "
                           f"its struct {value.size}")
        return
    if not isinstance(value, TensorMap):
        raise SimError(f"the by-value parameter {param.name} ({param.size} bytes) takes a "
                       f"tensor map or a struct (manifest \"fields\"), not "
                       f"{type(value).__name__}")
    if param.size != TENSOR_MAP_BYTES:
        raise SimError(f"the by-value parameter {param.name} has {param.size} bytes; a "
                       f"tensor map has {TENSOR_MAP_BYTES}")


def bind_extra_arrays(machine, arrays: dict) -> None:
    """Global buffers for the arrays tensor maps describe that are no kernel parameter."""
    from tcgen05_lower.sim.global_buffers import GLOBAL_BASE, GLOBAL_STRIDE, Buffer

    for name, value in arrays.items():
        if any(b.name == name for b in machine.buffers):
            continue
        if not value.flags.c_contiguous:
            raise SimError(f"the array {name} must be C-contiguous")
        base = GLOBAL_BASE + len(machine.buffers) * GLOBAL_STRIDE
        machine.buffers.append(Buffer(name, base, value, value.reshape(-1).view("u1")))


# -- by-value parameter structs ---------------------------------------------------------------
# A kernel parameter ``.param .align N .b8 name[size]`` that is no tensor map is a struct
# the host passes by value (CuTe DSL passes its tiled MMA's runtime state and a global
# tensor's address this way). The manifest describes its bytes as fields at byte
# offsets: {"offset": k, "type": "u8" | "s32" | "b64" ..., "value": integer} or
# {"offset": k, "array": name} (the 64-bit global address of the array argument `name`).
# Bytes no field covers are zero; ld.param reads the bytes (PTX ISA 5.1.6.1: a kernel
# parameter's bytes are read with ld.param at the parameter's address plus an offset).

#: Field types: the byte widths of PTX's fundamental integer types (5.2.1).
FIELD_BYTES = MappingProxyType({f"{k}{bits}": bits // 8 for k in "bsu" for bits in (8, 16, 32, 64)})


class ParamStruct:
    """The bytes of one by-value parameter struct: `size` bytes, `fields` a tuple of
    (offset, nbytes, value or None, array name or None)."""

    def __init__(self, name: str, size: int, fields: tuple):
        self.name, self.size, self.fields = name, size, fields

    def __repr__(self) -> str:
        return f"ParamStruct({self.name}, {self.size} bytes, {len(self.fields)} fields)"

    def arrays(self) -> list:
        """The array arguments whose addresses the struct holds."""
        return [array for _, _, _, array in self.fields if array is not None]

    def encode(self, address_of) -> bytes:
        """The struct's bytes, little-endian; `address_of(name)`: an array's address."""
        raw = bytearray(self.size)
        for offset, nbytes, value, array in self.fields:
            word = address_of(array) if array is not None else value
            raw[offset:offset + nbytes] = (word & ((1 << (8 * nbytes)) - 1)).to_bytes(
                nbytes, "little")
        return bytes(raw)


def fields_problem(name: str, fields, pp) -> str | None:
    """Why the manifest's `fields` of the parameter `name` (the PTX's `pp`) do not describe
    its bytes (None when they do; the caller raises api.LaunchError): `pp` must be a
    by-value .b8 array, and each field an object with an integer offset and either a type
    and an integer value that fits it, or an array name (8 bytes); inside the struct,
    aligned to its width, and overlapping no other."""
    if pp.size is None:
        return (f"the manifest's parameter {name} has fields but the PTX's {pp.name} is no "
                f"by-value .b8 array")
    size = pp.size
    if not isinstance(fields, list) or not all(isinstance(f, dict) for f in fields):
        return f"the manifest's parameter {name} has fields {fields!r}, not a list of objects"
    taken = [None] * size
    for k, f in enumerate(fields):
        offset = f.get("offset")
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            return f"field {k} of the parameter {name} has no byte offset (\"offset\")"
        if ("array" in f) == ("value" in f):
            return (f"field {k} of the parameter {name} needs either \"array\" (an array "
                    f"argument's name) or \"type\" and \"value\"")
        if "array" in f:
            if not isinstance(f["array"], str) or "type" in f and f["type"] not in (
                    "b64", "u64", "s64"):
                return f"field {k} of the parameter {name}: an array field is a 64-bit address"
            nbytes = 8
        else:
            nbytes = FIELD_BYTES.get(f.get("type"))
            if nbytes is None:
                return (f"field {k} of the parameter {name} has the type {f.get('type')!r}, "
                        f"not one of {', '.join(FIELD_BYTES)}")
            value = f["value"]
            signed = f["type"][0] == "s"
            low, high = (-(1 << (8 * nbytes - 1)), 1 << (8 * nbytes - 1)) if signed else \
                (-(1 << (8 * nbytes - 1)) if f["type"][0] == "b" else 0, 1 << (8 * nbytes))
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
                return (f"field {k} of the parameter {name}: {value!r} does not fit "
                        f".{f['type']}")
        if offset % nbytes or offset + nbytes > size:
            return (f"field {k} of the parameter {name} ({nbytes} bytes at offset {offset}) "
                    f"is not aligned to its width inside the {size}-byte struct")
        clash = next((taken[b] for b in range(offset, offset + nbytes) if taken[b] is not None),
                     None)
        if clash is not None:
            return f"fields {clash} and {k} of the parameter {name} overlap"
        taken[offset:offset + nbytes] = [k] * nbytes
    return None


def fields_pending(manifest: dict, entry) -> dict:
    """The manifest with no fields yet ("fields": []) on each by-value .b8 array parameter
    that has neither a tensor map nor fields (tcgen05-sim's check file gives them later:
    STRUCTS), for checking the rest of it; the manifest itself when its parameters do
    not pair with the PTX entry's (check_manifest says what is wrong)."""
    params = manifest.get("params")
    if not isinstance(params, list) or len(params) != len(entry.params):
        return manifest
    pending = [dict(mp, fields=[]) if isinstance(mp, dict) and pp.size is not None
               and mp.get("pointer") is False and "tensor_map" not in mp
               and "fields" not in mp else mp for mp, pp in zip(params, entry.params)]
    return dict(manifest, params=pending)


def struct_argument(name: str, fields: list, pp, args: dict, ptx_name: dict,
                    bound: dict) -> ParamStruct:
    """The ParamStruct the (checked) manifest fields of parameter `name` describe. Each
    array a field names must be an array argument; one no kernel parameter passes is
    added to ``bound[EXTRA_ARRAYS]`` (bound as a global buffer of its own), one a
    parameter passes too is named by that parameter's PTX name (`ptx_name`), as its
    global buffer is."""
    import numpy as np

    out = []
    for f in fields:
        if "value" in f:
            out.append((f["offset"], FIELD_BYTES[f["type"]], int(f["value"]), None))
            continue
        array = f["array"]
        if not isinstance(args.get(array), np.ndarray):
            raise SimError(f"the by-value parameter {name} holds the address of {array}, "
                           f"which is not an array argument given")
        if array not in ptx_name:
            bound.setdefault(EXTRA_ARRAYS, {})[array] = args[array]
        out.append((f["offset"], 8, None, ptx_name.get(array, array)))
    return ParamStruct(name, pp.size, tuple(out))


def bind_structs(machine, structs: list) -> None:
    """The bytes ld.param reads for each by-value struct (param, ParamStruct), once every
    array is bound to its global address."""
    by_name = {b.name: b for b in machine.buffers}
    for param, struct in structs:
        for array in struct.arrays():
            if array not in by_name:
                raise SimError(f"the by-value parameter {param.name} holds the address of "
                               f"{array}, which is not an array argument of the launch")
        machine.param_bytes[param.name] = struct.encode(lambda a: by_name[a].base)
