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
import time
from dataclasses import dataclass, field, replace

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.executor import Launch, Machine
from tcgen05_lower.sim import bulk, collector, param_space, scalar_params
from tcgen05_lower.sim.param_space import EXTRA_ARRAYS
from tcgen05_lower.sim.source_lines import (  # noqa: F401  (source_locations: API)
    locate as _locate, locate_problems as _locate_problems, source_locations)
from tcgen05_lower.sim.state import LimitExceeded, SimError

#: The default budgets of a run (the whole grid). The largest shipped example
#: (examples/gemm_bf16_grid.mlir, 4 CTAs) executes 134,624 warp instructions and the
#: slowest (examples/ws_attention_fwd_bf16.mlir) takes about 0.5 s of CPU: both limits
#: are hundreds to a thousand times that, room for larger kernels (docs/simulator.md).
DEFAULT_MAX_INSTRUCTIONS = 50_000_000
DEFAULT_TIMEOUT = 600.0

#: CUDA's largest grid (cudaDeviceProp::maxGridSize on every GPU since compute
#: capability 3.0): x up to 2^31 - 1 CTAs, y and z up to 65535.
MAX_GRID = (2**31 - 1, 65535, 65535)

#: The readings of tcgen05 ordering across threads simulate(fences=) and --fences offer
#: (docs/memory-model.md), the default first.
FENCES = ("canonical", "acquire")


class LaunchError(SimError):
    """The launch does not fit the kernel: a manifest that contradicts the PTX entry
    (parameters, .reqntid, cluster shape), an argument that does not fit its parameter's
    type, a grid past CUDA's limits."""


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
    threads: int = 0                         # threads per CTA (0: not known)
    cluster: int = 0                         # CTAs per cluster (0: not known)
    timing: object = None                    # timing.TimingResult with simulate(timing=...)
    races_checked: bool = True               # False with simulate(functional_only=True)

    @property
    def ok(self) -> bool:
        return not self.races and not self.problems


def launch_of(manifest: dict, entry: P.Entry) -> Launch:
    """Threads, cluster size and dynamic shared memory from the manifest (the entry's
    .reqntid/.maxntid and .reqnctapercluster when the manifest has none)."""
    check_manifest(manifest, entry)
    threads = manifest.get("threads") or (entry.directives.get("reqntid")
                                          or entry.directives.get("maxntid") or (None,))[0]
    if not threads:
        raise SimError("the manifest gives no thread count and the PTX has no .reqntid")
    cluster = manifest.get("cluster") or list(entry.directives.get("reqnctapercluster",
                                                                    (1, 1, 1)))
    dims = [int(c) for c in cluster] if isinstance(cluster, (list, tuple)) else [int(cluster)]
    dims = (dims + [1, 1])[:3]
    size = _product(dims)
    if not 1 <= size <= MAX_CLUSTER_CTAS:
        raise SimError(f"clusters of {size} CTAs are not simulated (1 to "
                       f"{MAX_CLUSTER_CTAS}, the portable maximum of CUDA's cluster "
                       f"launches)")
    return Launch(int(threads), size, int(manifest.get("dynamic_smem_bytes", 0)),
                  shape=tuple(dims))


#: The most CTAs of a cluster the simulator runs: CUDA's portable cluster size (CUDA C++
#: Programming Guide, "Thread Block Clusters": 8 thread blocks is the portable maximum).
MAX_CLUSTER_CTAS = 8


def _product(values) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_manifest(manifest: dict, entry: P.Entry) -> None:
    """LaunchError unless the manifest describes a launch of `entry`: its parameters in
    the PTX's order and number (an array or tensor map where the PTX takes a 64-bit
    value), a thread count that satisfies the entry's .reqntid / .maxntid (PTX ISA 11.4:
    a launch with another block size fails), a cluster shape equal to
    .reqnctapercluster, and well-typed grid and shared-memory entries."""
    if not isinstance(manifest, dict):
        raise LaunchError(f"a manifest is a JSON object, not {type(manifest).__name__}")
    _check_params(manifest.get("params"), entry)
    threads = manifest.get("threads")
    if threads is not None:
        _check_threads(threads, entry)
    cluster = manifest.get("cluster")
    if cluster is not None:
        _check_cluster(cluster, entry)
    smem = manifest.get("dynamic_smem_bytes", 0)
    if not _is_int(smem) or smem < 0:
        raise LaunchError(f"the manifest's dynamic_smem_bytes {smem!r} is not a byte count")
    grid = manifest.get("grid")
    if grid is not None and (not isinstance(grid, list)
                             or not all(isinstance(g, (str, int)) for g in grid)):
        raise LaunchError(f"the manifest's grid {grid!r} is not a list of one string (or "
                          f"integer) per dimension")


def _check_params(params, entry: P.Entry) -> None:
    if params is None:
        return
    if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
        raise LaunchError("the manifest's params is not a list of objects")
    if len(params) != len(entry.params):
        raise LaunchError(f"the manifest lists {len(params)} parameters, the PTX entry "
                          f"{entry.name} has {len(entry.params)}")
    seen = set()
    for k, (mp, pp) in enumerate(zip(params, entry.params)):
        name = mp.get("name")
        if not isinstance(name, str) or not name:
            raise LaunchError(f"the manifest's parameter {k} has no name")
        if name in seen:
            raise LaunchError(f"the manifest names two parameters {name}")
        seen.add(name)
        if not isinstance(mp.get("pointer"), bool):
            raise LaunchError(f"the manifest's parameter {name} does not say whether it is "
                              f"a pointer (\"pointer\": true or false)")
        if mp.get("ptx_name", pp.name) != pp.name:
            raise LaunchError(f"the manifest's parameter {k} ({name}) is {mp['ptx_name']} "
                              f"in the manifest but {pp.name} in the PTX")
        if mp.get("ptx_type", pp.ptx_type) != pp.ptx_type:
            raise LaunchError(f"the manifest's parameter {name} has type {mp['ptx_type']}, "
                              f"the PTX's {pp.name} is {pp.ptx_type}")
        kind_bits = _param_kind(pp)
        if mp["pointer"] and kind_bits[1] != 64:
            raise LaunchError(f"the manifest's parameter {name} is a pointer, the PTX's "
                              f"{pp.name} is {pp.ptx_type} (not 64 bits)")
        if "tensor_map" in mp and not mp["pointer"] and pp.size is None:
            raise LaunchError(f"the manifest's parameter {name} has a tensor_map but is not "
                              f"a pointer (nor a by-value .b8 array parameter)")
        if pp.size is not None and (mp["pointer"] or ("tensor_map" in mp) == ("fields" in mp)):
            raise LaunchError(f"the PTX's {pp.name} is a by-value array of {pp.size} bytes: "
                              f"the manifest's parameter {name} must be a tensor_map or a "
                              f"struct's fields (or a check file's STRUCTS), \"pointer\": false")
        if "fields" in mp and param_space.fields_problem(name, mp["fields"], pp):
            raise LaunchError(param_space.fields_problem(name, mp["fields"], pp))
        described = mp.get("tensor_map")
        if described is not None and not (
                isinstance(described, dict) and isinstance(described.get("tensor"), str)
                and isinstance(described.get("box"), list)
                and all(_is_int(b) for b in described["box"])
                and isinstance(described.get("swizzle"), str)):
            raise LaunchError(f"the manifest's parameter {name} has the tensor_map "
                              f"{described!r}, not {{tensor: name, box: [integers], "
                              f"swizzle: name}}")
        problem = scalar_params.float_problem(name, mp, pp, kind_bits[0])  # sim/scalar_params.py
        if problem:
            raise LaunchError(problem)


def _param_kind(pp: P.Param) -> tuple[str, int]:
    m = re.fullmatch(r"\.([bsuf])(\d+)", pp.ptx_type or "")
    return (m.group(1), int(m.group(2))) if m else ("b", 64)


def _check_threads(threads, entry: P.Entry) -> None:
    if not _is_int(threads) or not 1 <= threads <= 1024:
        raise LaunchError(f"the manifest's threads {threads!r} is not a CTA size (1 to "
                          f"1024 threads)")
    required = entry.directives.get("reqntid")
    if required and threads != _product(required):
        raise LaunchError(f"the manifest launches {threads} threads per CTA, the PTX entry "
                          f"{entry.name} requires {_product(required)} (.reqntid "
                          f"{', '.join(map(str, required))})")
    most = entry.directives.get("maxntid")
    if most and threads > _product(most):
        raise LaunchError(f"the manifest launches {threads} threads per CTA, the PTX entry "
                          f"{entry.name} allows at most {_product(most)} (.maxntid)")


def _check_cluster(cluster, entry: P.Entry) -> None:
    dims = cluster if isinstance(cluster, list) else [cluster]
    if not 1 <= len(dims) <= 3 or not all(_is_int(d) and d >= 1 for d in dims):
        raise LaunchError(f"the manifest's cluster {cluster!r} is not 1 to 3 positive "
                          f"integers")
    required = entry.directives.get("reqnctapercluster")
    if required and _product(dims) != _product(required):
        raise LaunchError(f"the manifest's cluster {cluster!r} has {_product(dims)} CTAs, "
                          f"the PTX entry {entry.name} requires {_product(required)} "
                          f"(.reqnctapercluster {', '.join(map(str, required))})")


def check_scalar(name: str, value, pp: P.Param) -> None:
    """LaunchError unless the integer `value` fits the PTX parameter's type: .uN in
    [0, 2^N), .sN in [-2^(N-1), 2^(N-1)), .bN either."""
    if not _is_int(value):
        return
    kind, bits = _param_kind(pp)
    if kind == "f":
        return
    low = 0 if kind == "u" else -(1 << (bits - 1))
    high = (1 << (bits - 1)) if kind == "s" else (1 << bits)
    if not low <= value < high:
        raise LaunchError(f"{name} = {value} does not fit the kernel's {pp.ptx_type} "
                          f"parameter ({low} to {high - 1})")


def check_launch(ptx: str, manifest: dict, structs_later: bool = False) -> P.Entry:
    """The PTX entry `manifest` launches, once the manifest is checked against it
    (check_manifest, cluster size); SimError / LaunchError otherwise. `structs_later`: a
    by-value struct may lack its fields yet (a check file's STRUCTS; launch_of after)."""
    if not isinstance(manifest, dict):
        raise LaunchError(f"a manifest is a JSON object, not {type(manifest).__name__}")
    entry = P.parse(ptx).entry(manifest.get("entry"))
    launch_of(param_space.fields_pending(manifest, entry) if structs_later else manifest, entry)
    return entry


def manifest_parameters(manifest: dict, entry: P.Entry) -> list[tuple[str, dict, P.Param]]:
    """(name, manifest entry, PTX parameter) of every parameter, in order."""
    return [(mp["name"], mp, pp) for mp, pp in zip(manifest["params"], entry.params)]


_NAME = r"[A-Za-z_][\w$.-]*"


def grid_of(manifest: dict, args: dict, cluster, grid=None) -> tuple[int, int, int]:
    """The grid in CTAs: `grid` if given, else the manifest's (one string per dimension:
    a product ``a * b * ...`` of factors, each an integer, an integer argument's name, or
    ceildiv(<name or integer>, <integer>), computed from `args`), else one cluster.
    `cluster`: the cluster's CTAs along x, or its shape (x, y, z); each grid dimension
    must be a multiple of the cluster's."""
    shape = (tuple(cluster) + (1, 1))[:3] if isinstance(cluster, (tuple, list)) \
        else (int(cluster), 1, 1)
    if grid is None:
        grid = manifest.get("grid") or [shape[0], shape[1], shape[2]]

    def value(token: str) -> int:
        if re.fullmatch(r"\d+", token):
            return int(token)
        if token not in args or isinstance(args[token], np.ndarray):
            raise SimError(f"the grid uses {token}, which is not an integer argument given")
        return int(args[token])

    def factor(text: str, whole: str) -> int:
        m = re.fullmatch(rf"ceildiv\(\s*(\d+|{_NAME})\s*,\s*(\d+)\s*\)", text)
        if m:
            if int(m.group(2)) == 0:
                raise LaunchError(f"grid dimension {whole!r} divides by 0")
            return -(-value(m.group(1)) // int(m.group(2)))
        if re.fullmatch(rf"\d+|{_NAME}", text):
            return value(text)
        raise SimError(f"grid dimension {whole!r} is not a product (*) of integers, "
                       f"argument names and ceildiv(a, b)")

    dims = []
    for item in grid:
        text = str(item).strip()
        product = 1
        for part in P.split_top(text, "*"):
            product *= factor(part.strip(), text)
        dims.append(product)
    if len(dims) > 3:
        raise SimError(f"a grid has at most three dimensions, not {len(dims)}")
    dims += [1] * (3 - len(dims))
    if min(dims) < 1:
        raise SimError(f"the grid {tuple(dims)} has no CTA")
    for axis, n, most in zip("xyz", dims, MAX_GRID):
        if n > most:
            raise LaunchError(f"the grid {tuple(dims)} has {n} CTAs along {axis}; CUDA "
                              f"launches at most {most}")
    for axis, n, c in zip("xyz", dims, shape):
        if n % c:
            raise SimError(f"the grid's {axis} dimension {n} is not a multiple of the "
                           f"cluster's {c} CTAs along {axis} (a launch's grid is whole "
                           f"clusters)")
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
            if not mp.get("pointer"):
                check_scalar(name, args[name], pp)
        elif pp.name in args:
            bound[pp.name] = args[pp.name]
        elif "fields" in mp:  # a by-value struct (sim/param_space.py)
            bound[pp.name] = param_space.struct_argument(name, mp["fields"], pp, args,
                                                         ptx_name, bound)
        elif described is not None:
            array = args.get(described["tensor"])
            if not isinstance(array, np.ndarray):
                raise SimError(f"the tensor map {name} describes {described['tensor']}, "
                               f"which is not an array argument given")
            bound[pp.name] = TensorMap.of_array(described["tensor"], array,
                                                described["box"], described["swizzle"])
            if described["tensor"] not in ptx_name:  # an array no parameter passes
                bound.setdefault(EXTRA_ARRAYS, {})[described["tensor"]] = array
        else:
            raise SimError(f"no value given for kernel parameter {name}")
        if isinstance(bound[pp.name], TensorMap):
            tensor = bound[pp.name].tensor
            bound[pp.name] = replace(bound[pp.name], tensor=ptx_name.get(tensor, tensor))
    return bound


@collector.paused
def simulate(ptx: str, manifest: dict | None = None, args: dict | None = None,
             schedule: str = "late", *, seed: int | None = None, trace=None,
             progress_stream=None,
             ordering_factory=None, tensor_core=None, grid=None, timing=None,
             clusters=None, budgets=None, fences: str = "canonical",
             max_instructions: int | None = DEFAULT_MAX_INSTRUCTIONS,
             timeout: float | None = DEFAULT_TIMEOUT,
             functional_only: bool = False) -> SimResult:
    """Runs the kernel of ``ptx`` with ``args`` on every CTA of its grid (`grid`, else
    the manifest's, else one cluster; see grid_of), one cluster after another; arrays are
    modified in place and also returned in ``outputs``. Raises SimError for what the ISA
    forbids (out-of-bounds access, deadlock, unknown instruction ...), naming the CTA in
    a grid of several; races are collected in the result when the ordering model reports
    them without stopping, else raised.

    ``schedule``: "late" (default) or "eager" (when asynchronous tcgen05 operations take
    effect; ordering.py), or "random" with ``seed`` (a non-negative integer): a random
    warp order, priorities, starved warp and completion order of commits and TMA loads,
    the same for the same seed (sim/schedule.py).

    ``max_instructions`` (warp instructions) and ``timeout`` (seconds) bound the whole
    run (None: no limit); LimitExceeded when the run reaches one, or before it starts
    when the grid cannot fit (see the module's docstring). A LaunchError when the
    manifest or an argument does not fit the PTX entry.

    ``timing``: True, or a dict of parameter overrides (``timing.PARAMETERS``), also runs
    the timing model (``tcgen05_lower.sim.timing``); its estimate is ``result.timing``,
    and ``result.timing.recording.replay(overrides)`` estimates it again under other
    parameters without simulating. The functional run is the same either way.

    ``clusters``: run only these clusters of the grid ((x, y, z) in clusters), e.g. for a
    timing-only estimate (timing.Recording); the outputs are then partial. ``budgets``
    ({cluster id: warp instructions}, with ``timing``): record only that many of the
    cluster's instructions (a prefix, timing.Recording.partial; its end state is not
    checked).

    ``fences``: "canonical" (default) or "acquire", which thread synchronization orders
    tcgen05 operations across threads (docs/memory-model.md, "Two readings of tcgen05
    ordering"): only the ISA's tcgen05.fence::before/after_thread_sync patterns
    (9.7.16.6), or also every barrier and acquire mbarrier wait.

    ``functional_only``: no race detection (sim/functional.py): the same run, outputs,
    errors, problems at exit and timing, with ``races`` empty; several times faster for
    sweeps of a kernel a full run has checked."""
    manifest = {} if manifest is None else manifest
    if fences not in FENCES:
        raise ValueError(f"fences must be one of {', '.join(FENCES)}, not {fences!r}")
    args = args or {}
    if not isinstance(manifest, dict):
        raise LaunchError(f"a manifest is a JSON object, not {type(manifest).__name__}")
    if schedule not in ("late", "eager", "random"):
        raise ValueError("schedule must be 'late', 'eager' or 'random'")
    if seed is not None and schedule != "random":
        raise ValueError("a schedule seed is for schedule='random' only")
    if schedule == "random" and (not isinstance(seed, int) or seed < 0):
        raise ValueError(f"schedule='random' needs seed=, a non-negative integer, not "
                         f"{seed!r}")
    module = P.parse(ptx)
    entry = module.entry(manifest.get("entry"))
    launch = launch_of(manifest, entry)
    bound = bind_arguments(manifest, entry, args)
    dims = grid_of(manifest, args, launch.cluster_dims, grid)
    launch = replace(launch, grid=dims)
    budget = Budget(max_instructions, timeout)
    if functional_only:
        if ordering_factory is not None:
            raise ValueError("functional_only takes the functional ordering model; give "
                             "no ordering_factory")
        from tcgen05_lower.sim.functional import FunctionalOrdering
        ordering_factory = FunctionalOrdering
    if ordering_factory is None:
        from tcgen05_lower.sim.ordering import OrderingModel
        ordering_factory = OrderingModel
    if tensor_core is None:
        from tcgen05_lower.sim import tensor_core
    machine_class, timings = Machine, []
    if timing:
        from tcgen05_lower.sim import timing as timing_model
        if ordering_factory.__name__ not in ("OrderingModel", "FunctionalOrdering"):
            raise ValueError("the timing model records through the default ordering model")
        machine_class = timing_model.RecordingMachine
    names = {pp.name: (mp["name"] if manifest.get("params") else pp.name)
             for mp, pp in zip(manifest.get("params") or entry.params, entry.params)}
    grid_clusters = tuple(n // c for n, c in zip(dims, launch.cluster_dims))
    if clusters is None:
        # Generated lazily: a grid the budget refuses may have 10^15 clusters.
        nclusters = grid_clusters[0] * grid_clusters[1] * grid_clusters[2]
        clusters = ((x, y, z) for z in range(grid_clusters[2])
                    for y in range(grid_clusters[1]) for x in range(grid_clusters[0]))
    else:
        clusters = list(clusters)
        outside = [c for c in clusters
                   if not all(0 <= c[i] < grid_clusters[i] for i in range(3))]
        if outside:
            raise SimError(f"cluster {outside[0]} is not in the grid of {grid_clusters} "
                           f"clusters")
        nclusters = len(clusters)
    budget.refuse_grid(nclusters, launch, entry)
    if timing:
        timing_model.check_overrides(_overrides(timing))
    several = nclusters > 1
    races, problems, counts = [], [], {}
    partial = []
    budget_reached = timing_model.BudgetReached if timing else ()
    warp_instructions, seconds = 0, 0.0
    ran, machine = [], None
    for done, cluster_id in enumerate(clusters):
        ran.append(cluster_id)
        first = tuple(i * c for i, c in zip(cluster_id, launch.cluster_dims))
        where = ("CTA " if launch.cluster == 1 else "pair of ctaid " if launch.cluster == 2
                 else "cluster of ctaid ") + f"({first[0]}, {first[1]}, {first[2]})"
        try:
            machine = machine_class(module, entry, replace(launch, cluster_id=cluster_id),
                                    bound, ordering_factory, tensor_core, schedule,
                                    trace=trace, progress_stream=progress_stream)
            machine.ordering.fences = fences
            if schedule == "random":
                machine.use_random_schedule(seed)
            budget.arm(machine, warp_instructions)
            if timing and budgets and cluster_id in budgets:
                machine.budget = budgets[cluster_id]
            stats = machine.run()
        except SimError as err:
            if machine is not None:   # freed by reference counting, as a finished run
                machine.release(stopped=True)
            if several:
                err.message = f"{where}: {err.message}"
            err.message = _array_names(err.message, names)
            _locate([err], ptx)
            raise
        except budget_reached:
            machine.recorder.flush_waits()
            timings.append(machine.recorder.trace)
            partial.append(cluster_id)
            warp_instructions += machine.stats.warp_instructions
            machine.release()
            continue
        prefix = f"{where}: " if several else ""
        problems += [prefix + p for p in bulk.finish(machine)]
        problems += [prefix + p for p in machine.ordering.finish(entry.end_line)]
        races += list(getattr(machine.ordering, "races", []))
        for opcode, n in stats.counts.items():
            counts[opcode] = counts.get(opcode, 0) + n
        warp_instructions += stats.warp_instructions
        seconds += stats.seconds
        if timing:
            timings.append(machine.recorder.trace)
        machine.release()   # freed by reference counting, not the cyclic collector
        if done == 0:
            # a timing-only estimate's neighbours run a budgeted prefix each
            equivalent = None if not budgets or not isinstance(clusters, list) else \
                1 + sum(min(1.0, budgets[c] / max(stats.warp_instructions, 1))
                        if c in budgets else 1.0 for c in clusters[1:])
            budget.refuse_rest(nclusters, stats, equivalent)
    outputs = {names.get(b.name, b.name): b.data for b in machine.buffers}
    estimate = None
    if timing:
        recording = timing_model.Recording(timings, ran, grid_clusters,
                                           launch.cluster, partial)
        estimate = recording.replay(_overrides(timing))
        estimate.recording = recording
    from tcgen05_lower.sim.ordering_records import group_races
    races = _locate(group_races(races), ptx) if races else []
    problems = _locate_problems(problems, ptx) if problems else []
    return SimResult(outputs, races, problems, counts, warp_instructions, seconds,
                     ctas=dims[0] * dims[1] * dims[2], timing=estimate,
                     threads=launch.threads, cluster=launch.cluster,
                     races_checked=not functional_only)


_CONTROL = ("bra", "brx", "ret", "exit", "call", "trap")


def straight_start(entry: P.Entry) -> int:
    """How many instructions every thread executes before the first that can transfer
    control (a branch, ret, exit, call, trap): a lower bound of any run's length."""
    for k, ins in enumerate(entry.instructions):
        if ins.parts[0] in _CONTROL:
            return k + 1
    return len(entry.instructions)


@dataclass
class Budget:
    """The instruction and time budgets of one simulate() call."""
    max_instructions: int | None
    timeout: float | None
    start: float = field(default_factory=time.perf_counter)

    def _text(self, what: str) -> str:
        return f"the limit is {self.max_instructions:,} warp instructions (--max-instructions)" \
            if what == "instructions" else f"the limit is {self.timeout:g} s (--timeout)"

    def refuse_grid(self, nclusters: int, launch: Launch, entry: P.Entry) -> None:
        """Before anything runs: every warp of every cluster executes at least the
        kernel's straight-line start."""
        if self.max_instructions is None:
            return
        warps = -(-launch.threads // 32) * launch.cluster
        least = nclusters * warps * straight_start(entry)
        if least > self.max_instructions:
            ctas = nclusters * launch.cluster
            raise LimitExceeded(
                f"not run: the grid {launch.grid} of {ctas:,} CTAs executes at least "
                f"{least:,} warp instructions ({warps} warps x the {straight_start(entry)} "
                f"instructions every thread runs first, per "
                f"{'CTA' if launch.cluster == 1 else 'CTA pair'}); "
                f"{self._text('instructions')}")

    def refuse_rest(self, nclusters: int, stats, equivalent: float | None = None) -> None:
        """After the first cluster: its count and time times the number of clusters (or
        `equivalent` first clusters' worth, when later ones run only a budgeted prefix)."""
        if nclusters <= 1:
            return
        scale = nclusters if equivalent is None else equivalent
        count = int(scale * stats.warp_instructions)
        if self.max_instructions is not None and count > self.max_instructions:
            raise LimitExceeded(
                f"stopped after the first of {nclusters:,} clusters: it executed "
                f"{stats.warp_instructions:,} warp instructions, so the grid needs about "
                f"{count:,}; {self._text('instructions')}")
        seconds = scale * stats.seconds
        if self.timeout is not None and seconds > self.timeout:
            raise LimitExceeded(
                f"stopped after the first of {nclusters:,} clusters: it took "
                f"{stats.seconds:.2f} s, so the grid needs about {seconds:,.0f} s; "
                f"{self._text('time')}")

    def arm(self, machine: Machine, used: int) -> None:
        """Gives a cluster's machine what is left of the budgets."""
        if self.max_instructions is not None:
            machine.max_instructions = self.max_instructions - used
            machine.used_before = used
            machine.limit_text = self._text("instructions")
        if self.timeout is not None:
            machine.deadline = self.start + self.timeout
            machine.time_text = self._text("time")


def _array_names(message: str, names: dict) -> str:
    """A message with the PTX names of array parameters replaced by the manifest's."""
    for ptx_name, name in names.items():
        if ptx_name != name:
            message = re.sub(rf"(?<![\w$]){re.escape(ptx_name)}(?![\w$])", name, message)
    return message


def _overrides(timing) -> dict | None:
    return timing if isinstance(timing, dict) else None
