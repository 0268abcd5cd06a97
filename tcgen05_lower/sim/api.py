"""``simulate()``: launch a PTX kernel from its manifest on NumPy arrays.

The manifest is the JSON the compiler writes beside the PTX (``tcgen05-lower --manifest``):
entry name, parameters in order, threads per CTA, cluster shape, dynamic shared-memory
bytes, target and PTX version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.executor import Launch, Machine
from tcgen05_lower.sim.state import SimError


@dataclass
class SimResult:
    """What one simulated launch produced."""
    outputs: dict[str, np.ndarray]          # every array argument after the run
    races: list = field(default_factory=list)  # Race errors the ordering model reported
    problems: list[str] = field(default_factory=list)  # from OrderingModel.finish()
    counts: dict[str, int] = field(default_factory=dict)  # warp instructions per opcode
    warp_instructions: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.races and not self.problems


def launch_of(manifest: dict, entry: P.Entry) -> Launch:
    """Threads, cluster size and dynamic shared memory from the manifest (the entry's
    .reqntid/.maxntid and .reqnctapercluster when the manifest has none)."""
    threads = manifest.get("threads") or (entry.directives.get("reqntid")
                                          or entry.directives.get("maxntid") or (None,))[0]
    if not threads:
        raise SimError("the manifest gives no thread count and the PTX has no .reqntid")
    cluster = manifest.get("cluster") or list(entry.directives.get("reqnctapercluster",
                                                                    (1, 1, 1)))
    size = int(np.prod(cluster)) if isinstance(cluster, (list, tuple)) else int(cluster)
    if size not in (1, 2):
        raise SimError(f"clusters of {size} CTAs are not simulated (1 or 2)")
    return Launch(int(threads), size, int(manifest.get("dynamic_smem_bytes", 0)))


def bind_arguments(manifest: dict, entry: P.Entry, args: dict) -> dict:
    """Maps the manifest's parameter names (or the PTX's) to the entry's PTX parameters."""
    params = manifest.get("params")
    if params is None:
        return dict(args)
    if len(params) != len(entry.params):
        raise SimError(f"the manifest lists {len(params)} parameters, the PTX entry "
                       f"{entry.name} has {len(entry.params)}")
    bound = {}
    for mp, pp in zip(params, entry.params):
        name = mp["name"]
        if name in args:
            bound[pp.name] = args[name]
        elif pp.name in args:
            bound[pp.name] = args[pp.name]
        else:
            raise SimError(f"no value given for kernel parameter {name}")
    return bound


def simulate(ptx: str, manifest: dict | None = None, args: dict | None = None,
             schedule: str = "late", *, trace=None, progress_stream=None,
             ordering_factory=None, tensor_core=None) -> SimResult:
    """Runs the kernel of ``ptx`` once with ``args`` (arrays are modified in place and also
    returned in ``outputs``). Raises SimError for what the ISA forbids (out-of-bounds
    access, deadlock, unknown instruction ...); races are collected in the result when the
    ordering model reports them without stopping, else raised."""
    manifest = manifest or {}
    args = args or {}
    if schedule not in ("late", "eager"):
        raise ValueError("schedule must be 'late' or 'eager'")
    module = P.parse(ptx)
    entry = module.entry(manifest.get("entry"))
    launch = launch_of(manifest, entry)
    bound = bind_arguments(manifest, entry, args)
    if ordering_factory is None:
        from tcgen05_lower.sim.ordering import OrderingModel
        ordering_factory = OrderingModel
    if tensor_core is None:
        from tcgen05_lower.sim import tensor_core
    machine = Machine(module, entry, launch, bound, ordering_factory, tensor_core, schedule,
                      trace=trace, progress_stream=progress_stream)
    stats = machine.run()
    problems = list(machine.ordering.finish(entry.end_line))
    races = list(getattr(machine.ordering, "races", []))
    names = {pp.name: (mp["name"] if manifest.get("params") else pp.name)
             for mp, pp in zip(manifest.get("params") or entry.params, entry.params)}
    outputs = {names[b.name]: b.data for b in machine.buffers}
    return SimResult(outputs, races, problems, dict(stats.counts), stats.warp_instructions,
                     stats.seconds)
