"""Kernel parameters passed by value as byte arrays: ``.param .align 64 .b8 p[128]``, a
``__grid_constant__`` CUtensorMap, as Triton and CUDA C++ pass tensor maps.

PTX ISA 5.1.6.1 (kernel function parameters): the address of a kernel parameter is taken
with ``mov`` of its name (a ``.param``-space address), and ``cvta.param`` (the
data-movement instruction cvta, 9.7.9) turns it into a generic address, through which
``cp.async.bulk.tensor`` reads the map.

Here every by-value parameter gets a made-up 32-bit param-space address (PARAM_BASE on,
one 128-byte slot each), and its generic address is the made-up address of the
``TensorMap`` bound to it (sim/tma.py): the TMA instructions look that address up as they
do for a tensor map passed by pointer. Only tensor maps are accepted by value.
"""

from __future__ import annotations

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
    """SimError unless a by-value array parameter gets a tensor map of its size."""
    from tcgen05_lower.sim.tma import TENSOR_MAP_BYTES, TensorMap

    if not isinstance(value, TensorMap):
        raise SimError(f"the by-value parameter {param.name} ({param.size} bytes) takes a "
                       f"tensor map, not {type(value).__name__}")
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
