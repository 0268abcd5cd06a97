"""A manifest's scalar parameters: an integer unless the manifest says ``"float": true``
(docs/simulator.md), which binds a .f32 / .f64 PTX parameter to a Python float (Triton's
``fp32`` kernel arguments, sim/triton_launch.py)."""

from __future__ import annotations

from tcgen05_lower.sim import ptx as P


def float_problem(name: str, mp: dict, pp: P.Param, kind: str) -> str | None:
    """What is wrong with manifest parameter `mp` (PTX parameter `pp` of kind `kind`) as
    an integer or float scalar, or None."""
    if mp["pointer"]:
        return None
    is_float = mp.get("float", False)
    if not isinstance(is_float, bool):
        return (f"the manifest's parameter {name} has \"float\": {is_float!r}, "
                f"not true or false")
    if kind == "f" and not is_float:
        return (f"the manifest's parameter {name} is an integer, the PTX's "
                f"{pp.name} is {pp.ptx_type} (a float parameter says "
                f"\"float\": true)")
    if is_float and kind != "f":
        return (f"the manifest's parameter {name} is a float, the PTX's "
                f"{pp.name} is {pp.ptx_type}")
    return None
