"""Launch manifests for kernels Triton compiled: ``triton_launch(metadata, signature,
values, grid)`` gives the manifest and the arguments ``simulate()`` takes, from Triton's
compiled metadata (the JSON Triton writes beside a compiled kernel in its cache, or
``CompiledKernel.metadata._asdict()``), the kernel's signature and the host values.

How Triton passes arguments (its launcher, as of Triton 3.9), which the PTX entry's
parameters follow:
- a pointer (``*fp16``) is a 64-bit global address; an integer (``i32``, ``i64``, ``u32``
  ...) or a float (``fp32``, ``fp64``) its value; a ``constexpr`` is compiled in and passes nothing;
- a tensor descriptor (``tensordesc<fp16[128, 64]>``) that became a TMA tensor map (its
  entry in the metadata's ``tensordesc_meta``: swizzle, element size, block size, outer
  dimension first) is the 128-byte CUtensorMap passed by value, then the tensor's shape
  (one i32 per dimension) and strides (one i64 per dimension, in elements);
- two pointers follow the kernel's own parameters: the global and the profile scratch
  buffers (``global_scratch_size`` / ``profile_scratch_size`` bytes per program; a
  1-byte array when none).
Threads per CTA are ``num_warps`` * 32, dynamic shared memory ``shared`` bytes, the
cluster ``num_ctas`` CTAs.
"""

from __future__ import annotations

import re
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim.state import SimError

#: CUtensorMapSwizzle (the driver API's enumeration, which tensordesc_meta's "swizzle"
#: holds) -> the simulator's swizzle names (sim/tma.py).
SWIZZLES = MappingProxyType({0: "none", 1: "32B", 2: "64B", 3: "128B"})

_SCALARS = frozenset({"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64"})
#: Float scalars (``fp32`` the attention tutorial's ``sm_scale``): a .f32 / .f64 kernel
#: parameter, passed as a Python float.
_FLOATS = frozenset({"fp32", "fp64"})


def _descriptor_rank(ty: str) -> int | None:
    # Triton: tensordesc<fp16[128,64]>; Gluon adds the shared layout after a comma
    m = re.match(r"tensordesc<\w+\[([\d,]+)\]", ty.replace(" ", ""))
    return len(m.group(1).split(",")) if m else None


def triton_launch(metadata: dict, signature: dict, values: dict,
                  grid) -> tuple[dict, dict]:
    """(manifest, arguments) for ``simulate(ptx, manifest, arguments)``.

    `signature`: the kernel's parameter name -> Triton type in order (as given to
    ``triton.compiler.ASTSource``; ``constexpr`` entries are skipped). `values`: by
    parameter name, a NumPy array for a pointer or a tensor descriptor (the whole
    C-contiguous 2-D tensor the descriptor describes), an int for an integer. `grid`: up
    to three dimensions, each an int or a grid expression of the manifest (products of
    integers, argument names and ceildiv(a, b))."""
    descriptors = list(metadata.get("tensordesc_meta") or [])
    params, args = [], {}
    for name, ty in signature.items():
        if ty == "constexpr":
            continue
        if name not in values:
            raise SimError(f"no host value for the kernel parameter {name} ({ty})")
        value = values[name]
        if ty.startswith("*"):
            _need_array(name, value)
            params.append({"name": name, "pointer": True})
            args[name] = value
        elif ty.startswith("tensordesc"):
            _descriptor(name, ty, value, descriptors, params, args)
        elif ty in _SCALARS:
            params.append({"name": name, "pointer": False})
            args[name] = int(value)
        elif ty in _FLOATS:
            params.append({"name": name, "pointer": False, "float": True})
            args[name] = float(value)
        else:
            raise SimError(f"the kernel parameter {name} has the Triton type {ty}, which "
                           f"the simulator does not pass")
    if descriptors:
        raise SimError(f"the metadata describes {len(descriptors)} more tensor descriptors "
                       f"than the signature has")
    dims = [str(g) for g in grid]
    ctas = _ctas(dims, args)
    for name, size in (("global_scratch", metadata.get("global_scratch_size", 0)),
                       ("profile_scratch", metadata.get("profile_scratch_size", 0))):
        params.append({"name": name, "pointer": True})
        args[name] = np.zeros(max(1, int(size or 0) * ctas), np.uint8)
    num_ctas = int(metadata.get("num_ctas", 1) or 1)
    manifest = {"entry": metadata["name"], "params": params,
                "threads": int(metadata["num_warps"]) * int(metadata.get("warp_size", 32)),
                "cluster": [num_ctas, 1, 1],
                "dynamic_smem_bytes": int(metadata.get("shared", 0)), "grid": dims}
    return manifest, args


def _need_array(name: str, value) -> None:
    if not isinstance(value, np.ndarray):
        raise SimError(f"the kernel parameter {name} is a pointer: give a NumPy array, not "
                       f"{type(value).__name__}")


def _descriptor(name: str, ty: str, value, descriptors: list, params: list,
                args: dict) -> None:
    """A tensor descriptor: the by-value tensor map, then shape and strides."""
    rank = _descriptor_rank(ty)
    if rank != 2:
        raise SimError(f"the tensor descriptor {name} ({ty}) is not 2-D: only 2-D tensor "
                       f"maps are simulated")
    if not descriptors:
        raise SimError(f"the metadata has no tensordesc_meta entry for {name}: the "
                       f"descriptor is not a TMA tensor map")
    meta = descriptors.pop(0)
    _need_array(name, value)
    if value.ndim != 2 or not value.flags.c_contiguous:
        raise SimError(f"the tensor descriptor {name} needs a C-contiguous 2-D array")
    if int(meta["elem_size"]) != value.itemsize:
        raise SimError(f"the tensor descriptor {name} has {meta['elem_size']}-byte "
                       f"elements, its array {value.itemsize}-byte ones")
    swizzle = SWIZZLES.get(int(meta["swizzle"]))
    if swizzle is None or meta.get("is_im2col") or meta.get("fp4_padded"):
        raise SimError(f"the tensor descriptor {name}: {meta} is not a tiled map the "
                       f"simulator reads")
    tensor = f"{name}.tensor"
    box = [int(b) for b in reversed(meta["block_size"])]  # innermost first
    params.append({"name": name, "pointer": False,
                   "tensor_map": {"tensor": tensor, "box": box, "swizzle": swizzle}})
    args[tensor] = value
    for axis, extent in enumerate(value.shape):
        params.append({"name": f"{name}.shape{axis}", "pointer": False})
        args[f"{name}.shape{axis}"] = int(extent)
    for axis, stride in enumerate(value.strides):
        params.append({"name": f"{name}.stride{axis}", "pointer": False})
        args[f"{name}.stride{axis}"] = int(stride // value.itemsize)


def _ctas(dims: list, args: dict) -> int:
    from tcgen05_lower.sim.api import grid_of

    x, y, z = grid_of({"grid": dims}, args, 1)
    return x * y * z
