"""``simulate()``: launch a PTX kernel from its manifest on NumPy arrays.

The manifest is the JSON the compiler writes beside the PTX (``tcgen05-lower --manifest``):
entry name, parameters in order, threads per CTA, cluster shape, the grid, dynamic
shared-memory bytes, target and PTX version.

Every CTA of the grid runs, one cluster after another (x fastest, then y, then z), on the
same global arrays: CTAs of different clusters cannot synchronize with each other, so a
kernel whose result depends on their order is wrong anyway. What is checked per CTA
(bounds, races, state at exit) is checked for each; races between CTAs through global
memory are not looked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

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
    ctas: int = 1                            # CTAs of the grid that ran
    timing: object = None                    # timing.TimingResult with simulate(timing=...)

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


_NAME = r"[A-Za-z_][\w$.-]*"


def grid_of(manifest: dict, args: dict, cluster: int, grid=None) -> tuple[int, int, int]:
    """The grid in CTAs: `grid` if given, else the manifest's (one string per dimension:
    an integer, an integer argument's name, or ceildiv(<name or integer>, <integer>),
    computed from `args`), else one cluster."""
    if grid is None:
        grid = manifest.get("grid") or [cluster]

    def value(token: str) -> int:
        if re.fullmatch(r"\d+", token):
            return int(token)
        if token not in args or isinstance(args[token], np.ndarray):
            raise SimError(f"the grid uses {token}, which is not an integer argument given")
        return int(args[token])

    dims = []
    for item in grid:
        text = str(item).strip()
        m = re.fullmatch(rf"ceildiv\(\s*(\d+|{_NAME})\s*,\s*(\d+)\s*\)", text)
        if m:
            dims.append(-(-value(m.group(1)) // int(m.group(2))))
        elif re.fullmatch(rf"\d+|{_NAME}", text):
            dims.append(value(text))
        else:
            raise SimError(f"grid dimension {text!r} is not an integer, an argument name or "
                           f"ceildiv(a, b)")
    if len(dims) > 3:
        raise SimError(f"a grid has at most three dimensions, not {len(dims)}")
    dims += [1] * (3 - len(dims))
    if min(dims) < 1:
        raise SimError(f"the grid {tuple(dims)} has no CTA")
    if dims[0] % cluster:
        raise SimError(f"the grid's x dimension {dims[0]} is not a multiple of the cluster's "
                       f"{cluster} CTAs")
    return tuple(dims)


def bind_arguments(manifest: dict, entry: P.Entry, args: dict) -> dict:
    """Maps the manifest's parameter names (or the PTX's) to the entry's PTX parameters.

    A tensor-map parameter (sim/tma.py) takes a ``TensorMap``; when none is given, the
    manifest's ``tensor_map`` entry ({tensor, box, swizzle}) makes one for the whole
    array argument it names (dims and strides from the array). Its ``tensor`` is then
    the PTX name of that array's parameter."""
    from tcgen05_lower.sim.tma import TensorMap

    params = manifest.get("params")
    if params is None:
        return dict(args)
    if len(params) != len(entry.params):
        raise SimError(f"the manifest lists {len(params)} parameters, the PTX entry "
                       f"{entry.name} has {len(entry.params)}")
    ptx_name = {mp["name"]: pp.name for mp, pp in zip(params, entry.params)}
    bound = {}
    for mp, pp in zip(params, entry.params):
        name = mp["name"]
        described = mp.get("tensor_map")
        if name in args:
            bound[pp.name] = args[name]
        elif pp.name in args:
            bound[pp.name] = args[pp.name]
        elif described is not None:
            array = args.get(described["tensor"])
            if not isinstance(array, np.ndarray):
                raise SimError(f"the tensor map {name} describes {described['tensor']}, "
                               f"which is not an array argument given")
            bound[pp.name] = TensorMap.of_array(described["tensor"], array,
                                                described["box"], described["swizzle"])
        else:
            raise SimError(f"no value given for kernel parameter {name}")
        if isinstance(bound[pp.name], TensorMap):
            tensor = bound[pp.name].tensor
            bound[pp.name] = replace(bound[pp.name], tensor=ptx_name.get(tensor, tensor))
    return bound


def simulate(ptx: str, manifest: dict | None = None, args: dict | None = None,
             schedule: str = "late", *, trace=None, progress_stream=None,
             ordering_factory=None, tensor_core=None, grid=None, timing=None) -> SimResult:
    """Runs the kernel of ``ptx`` with ``args`` on every CTA of its grid (`grid`, else
    the manifest's, else one cluster; see grid_of), one cluster after another; arrays are
    modified in place and also returned in ``outputs``. Raises SimError for what the ISA
    forbids (out-of-bounds access, deadlock, unknown instruction ...), naming the CTA in
    a grid of several; races are collected in the result when the ordering model reports
    them without stopping, else raised.

    ``timing``: True, or a dict of parameter overrides (``timing.PARAMETERS``), also runs
    the timing model (``tcgen05_lower.sim.timing``); its estimate is ``result.timing``. The
    functional run is the same either way."""
    manifest = manifest or {}
    args = args or {}
    if schedule not in ("late", "eager"):
        raise ValueError("schedule must be 'late' or 'eager'")
    module = P.parse(ptx)
    entry = module.entry(manifest.get("entry"))
    launch = launch_of(manifest, entry)
    bound = bind_arguments(manifest, entry, args)
    dims = grid_of(manifest, args, launch.cluster, grid)
    launch = replace(launch, grid=dims)
    if ordering_factory is None:
        from tcgen05_lower.sim.ordering import OrderingModel
        ordering_factory = OrderingModel
    if tensor_core is None:
        from tcgen05_lower.sim import tensor_core
    machine_class, timings = Machine, []
    if timing:
        from tcgen05_lower.sim import timing as timing_model
        if ordering_factory.__name__ != "OrderingModel":
            raise ValueError("the timing model records through the default ordering model")
        machine_class = timing_model.RecordingMachine
    names = {pp.name: (mp["name"] if manifest.get("params") else pp.name)
             for mp, pp in zip(manifest.get("params") or entry.params, entry.params)}
    clusters = [(x, y, z) for z in range(dims[2]) for y in range(dims[1])
                for x in range(dims[0] // launch.cluster)]
    several = len(clusters) > 1
    races, problems, counts = [], [], {}
    warp_instructions, seconds = 0, 0.0
    for cluster_id in clusters:
        where = "CTA " + (f"({cluster_id[0] * launch.cluster}, {cluster_id[1]}, "
                          f"{cluster_id[2]})" if launch.cluster == 1 else
                          f"pair of ctaid ({cluster_id[0] * launch.cluster}, "
                          f"{cluster_id[1]}, {cluster_id[2]})")
        try:
            machine = machine_class(module, entry, replace(launch, cluster_id=cluster_id), bound,
                              ordering_factory, tensor_core, schedule, trace=trace,
                              progress_stream=progress_stream)
            stats = machine.run()
        except SimError as err:
            if several:
                err.message = f"{where}: {err.message}"
            err.message = _array_names(err.message, names)
            _locate([err], ptx)
            raise
        prefix = f"{where}: " if several else ""
        problems += [prefix + p for p in machine.ordering.finish(entry.end_line)]
        races += list(getattr(machine.ordering, "races", []))
        for opcode, n in stats.counts.items():
            counts[opcode] = counts.get(opcode, 0) + n
        warp_instructions += stats.warp_instructions
        seconds += stats.seconds
        if timing:
            timings.append(timing_model.replay(machine.recorder.trace, _overrides(timing)))
    outputs = {names[b.name]: b.data for b in machine.buffers}
    estimate = timing_model.combine(timings, launch.cluster, _overrides(timing)) \
        if timing else None
    from tcgen05_lower.sim.ordering import group_races
    races = _locate(group_races(races), ptx)
    return SimResult(outputs, races, problems, counts, warp_instructions, seconds,
                     ctas=dims[0] * dims[1] * dims[2], timing=estimate)


def _array_names(message: str, names: dict) -> str:
    """A message with the PTX names of array parameters replaced by the manifest's."""
    for ptx_name, name in names.items():
        if ptx_name != name:
            message = re.sub(rf"(?<![\w$]){re.escape(ptx_name)}(?![\w$])", name, message)
    return message


def source_locations(ptx: str) -> dict[int, str]:
    """PTX line (1-based) -> ``file:line:col`` of the ``.loc`` it falls under (the last
    ``.loc`` above it in the text, files named by ``.file``, which may come after it, as at
    the end of a module); empty when the PTX carries no ``.loc``. Two passes over the
    text."""
    files = {int(n): name for n, name in
             re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.MULTILINE)}
    where, out = None, {}
    for number, text in enumerate(ptx.split("\n"), 1):
        stripped = text.strip()
        if stripped.startswith(".file"):
            continue
        m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)", stripped)
        if m:
            name = files.get(int(m.group(1)), f"file {m.group(1)}")
            where = f"{name}:{m.group(2)}:{m.group(3)}" if int(m.group(2)) else None
            continue
        if where is not None and stripped:
            out[number] = where
    return out


def _locate(errors: list, ptx: str) -> list:
    """Adds each error's PTX text and source location (and a race's other line's)."""
    lines = ptx.split("\n")
    where = source_locations(ptx) if ".loc" in ptx else {}

    def text(line):
        return lines[line - 1] if line and 0 < line <= len(lines) else ""

    for err in errors:
        if err.ptx_line is None:
            continue
        err.ptx_text = err.ptx_text or text(err.ptx_line)
        err.source = where.get(err.ptx_line)
        other = getattr(err, "other_line", None)
        if other is not None:
            err.other_text = text(other)
            err.other_source = where.get(other)
    return errors


def _overrides(timing) -> dict | None:
    return timing if isinstance(timing, dict) else None
