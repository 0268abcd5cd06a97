"""Record once, replay many: a recorded launch (Recording) estimated under any parameters,
saved to and loaded from disk, and the checks of parameter overrides."""

from __future__ import annotations

import dataclasses
import json
import types
from dataclasses import dataclass, field
from types import MappingProxyType

from tcgen05_lower.sim.timing.memory import MemoryContext, _buffer_of, memory_keys
from tcgen05_lower.sim.timing.replay import replay
from tcgen05_lower.sim.timing.result import TimingResult, combine
from tcgen05_lower.sim.timing.trace import ClusterTrace, Step
from tcgen05_lower.sim.timing.wave import covers_one_wave, replay_one_wave
from tcgen05_lower.sim.timing_parameters import PARAMETERS, MmaCost, param



@dataclass
class Recording:
    """A recorded launch: the traces of the clusters the functional run simulated (ids
    ``cluster_ids``, (x, y, z) in clusters) out of a grid of ``grid`` clusters of
    ``cluster_size`` CTAs. ``replay(overrides)`` estimates the launch under any
    parameters without simulating again. When only some clusters were recorded
    (tcgen05-sim --timing-only), cluster (0, 0, 0) stands for every cluster, and its
    neighbours (1, 0, 0) and (0, 1, 0), when recorded, tell which of its loads other
    clusters share: a tile it loads that (1, 0, 0) loads too is shared along its row of
    the grid (same y, z), one (0, 1, 0) loads too along its column (same x, z)."""
    traces: list
    cluster_ids: list
    grid: tuple
    cluster_size: int = 1
    #: the cluster ids whose trace is a prefix of their run (an instruction budget)
    partial: list = field(default_factory=list)
    #: {buffer: "row" | "column" | "all" | "own"} given instead of recorded neighbours (a
    #: what-if: the recorded CTA as every tile of a grid); buffers as in _buffer_of
    buffer_classes: dict = field(default_factory=dict)

    @property
    def total_clusters(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def complete(self) -> bool:
        """Every cluster recorded, each for its whole run."""
        return len(self.traces) == self.total_clusters and not self.partial

    def launch_order(self) -> list:
        """Cluster ids in the order their CTAs are assumed to start: x fastest, then y,
        then z (the launch order of a grid; the waves are consecutive runs of it)."""
        gx, gy, gz = self.grid
        return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]

    def replay(self, overrides: dict | None = None) -> TimingResult:
        """The launch's estimate under ``overrides`` (parameter name -> value)."""
        check_overrides(overrides)
        per_wave = max(int(param("sms", overrides)) // max(self.cluster_size, 1), 1)
        if self.complete:
            return self._replay_all(per_wave, overrides)
        if covers_one_wave(self, per_wave):
            return replay_one_wave(self, per_wave, overrides)
        return self._replay_representative(per_wave, overrides)

    def _replay_all(self, per_wave: int, overrides) -> TimingResult:
        timings = []
        for i in range(0, len(self.traces), per_wave):
            wave = self.traces[i:i + per_wave]
            loads: dict = {}
            for trace in wave:
                for key, (n, nbytes) in memory_keys(trace).items():
                    entry = loads.setdefault(key, [0, nbytes])
                    entry[0] += n
            ctx = MemoryContext.shared(loads, sum(t.ctas for t in wave), overrides)
            timings += [replay(trace, overrides, ctx) for trace in wave]
        how = (f"every one of the {len(self.traces)} clusters simulated and replayed, in "
               f"waves of {per_wave} sharing L2 and DRAM"
               if len(self.traces) > 1 else "the CTA" + ("s" if self.cluster_size > 1
                                                          else "") +
               " simulated and replayed alone on the GPU")
        return combine(timings, self.cluster_size, overrides, how=how)

    def key_classes(self) -> dict:
        """{key: "row" | "column" | "all" | "own"} for the loads of cluster (0, 0, 0):
        shared with (1, 0, 0) (row), with (0, 1, 0) (column), both, or neither. A
        neighbour recorded only in part (``partial``) shows its first loads: a buffer (a
        TMA load's tensor, an ld.global's array) most of whose bytes among them cluster
        (0, 0, 0) loads too counts as shared whole, the others as not shared."""
        loads = {cid: memory_keys(t) for cid, t in zip(self.cluster_ids, self.traces)}
        own = set(loads[(0, 0, 0)])
        if self.buffer_classes:
            return {key: self.buffer_classes.get(_buffer_of(key), "own") for key in own}

        def shared_with(cid) -> set:
            theirs = loads.get(cid)
            if theirs is None:
                return set()
            if cid not in self.partial:
                return own & set(theirs)
            seen: dict = {}
            for key, (n, nbytes) in theirs.items():
                entry = seen.setdefault(_buffer_of(key), [0.0, 0.0])
                entry[0] += nbytes
                entry[1] += nbytes if key in own else 0.0
            groups = {g for g, (total, common) in seen.items() if common > total / 2}
            return {key for key in own if _buffer_of(key) in groups}

        along_x = shared_with((1, 0, 0))
        along_y = shared_with((0, 1, 0))
        return {key: ("all" if key in along_x and key in along_y else
                      "row" if key in along_x else "column" if key in along_y else "own")
                for key in own}

    def _replay_representative(self, per_wave: int, overrides) -> TimingResult:
        base = self.traces[self.cluster_ids.index((0, 0, 0))]
        loads = memory_keys(base)
        classes = self.key_classes()
        ctas = base.ctas
        cache: dict = {}
        timings, waves = [], []
        order = self.launch_order()
        bytes_of = {c: sum(n_b[1] for k, n_b in loads.items() if classes[k] == c)
                    for c in ("row", "column", "all", "own")}
        for i in range(0, len(order), per_wave):
            wave = order[i:i + per_wave]
            rows: dict = {}
            cols: dict = {}
            for x, y, z in wave:
                rows[(y, z)] = rows.get((y, z), 0) + 1
                cols[(x, z)] = cols.get((x, z), 0) + 1
            footprint = (len(rows) * bytes_of["row"] + len(cols) * bytes_of["column"]
                         + bytes_of["all"] + len(wave) * bytes_of["own"])
            keep = min(1.0, param("l2_bytes", overrides) / footprint) if footprint else 1.0
            # every cluster of the wave is replayed as one with the wave's average
            # sharing: of a row-shared buffer the wave loads len(rows) distinct tiles for
            # its len(wave) clusters, so a load of one misses len(rows) / len(wave)
            sharers = {"row": len(wave) / len(rows), "column": len(wave) / len(cols),
                       "all": len(wave), "own": 1}
            sig = (len(wave), len(rows), len(cols), keep)
            if sig not in cache:
                miss = {}
                for key, (n, _) in loads.items():
                    total = n * sharers[classes[key]]
                    miss[key] = 1.0 / total + (1.0 - 1.0 / total) * (1.0 - keep)
                ctx = MemoryContext(len(wave) * ctas, MappingProxyType(miss), "wave")
                cache[sig] = len(timings)
                timings.append(replay(base, overrides, ctx, keep_events=not timings))
            indices = [cache[sig]] * len(wave)
            waves.append(indices)
        all_timings = [timings[i] for wave in waves for i in wave]
        flat, pos = [], 0
        for wave in waves:
            flat.append(list(range(pos, pos + len(wave))))
            pos += len(wave)
        recorded = ", ".join(str(c) + (" (its first instructions)" if c in self.partial
                                        else "") for c in self.cluster_ids)
        shared = ("as given: " + ", ".join(f"{b} by {c}" for b, c in
                                           sorted(self.buffer_classes.items()))
                  if self.buffer_classes else "as the recorded neighbours show")
        how = (f"timing only: cluster(s) {recorded} simulated, cluster (0, 0, 0) replayed "
               f"for each of the {len(order)} clusters in {len(waves)} wave(s) of "
               f"{per_wave} (launch order, x fastest), its loads shared in L2 with the "
               f"clusters of its wave in the same row (same y) or column (same x) "
               f"{shared}, each wave's clusters replayed as one with the wave's average "
               f"sharing; {len(cache)} distinct replays")
        return combine(all_timings, self.cluster_size, overrides, waves=flat, how=how)


def _tuples(value):
    """JSON lists back to the tuples the replay uses as keys."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _step_to_json(step: Step) -> dict:
    out = {"kind": step.kind}
    for name in ("line", "text", "srcs", "dsts", "nbytes", "arrivals", "wait", "barrier",
                 "rank", "lines", "opcode"):
        value = getattr(step, name)
        if value != _STEP_DEFAULTS.get(name, []):  # list fields default to []
            out[name] = value
    if step.asyncs:
        out["asyncs"] = [[t, r, k, None if c is None else
                          [c.kind, c.m, c.n, c.cta_group, c.sparse, c.a_in_tmem]]
                         for t, r, k, c in step.asyncs]
    if step.commits:
        out["commits"] = step.commits
    if step.tmas:
        out["tmas"] = step.tmas
    return out


def _step_from_json(d: dict) -> Step:
    step = Step(d["kind"], d.get("line", 0), d.get("text", ""), _tuples(d.get("srcs", [])),
                _tuples(d.get("dsts", [])), d.get("nbytes", 0),
                arrivals=[_tuples(t) for t in d.get("arrivals", [])],
                wait=_tuples(d["wait"]) if d.get("wait") is not None else None,
                barrier=d.get("barrier", -1), rank=d.get("rank", 0),
                lines=_tuples(d.get("lines", [])), opcode=d.get("opcode", ""))
    step.asyncs = [(t, r, k, None if c is None else MmaCost(*c))
                   for t, r, k, c in d.get("asyncs", [])]
    step.commits = [(t, [_tuples(tag) for tag in tags]) for t, tags in d.get("commits", [])]
    step.tmas = [(t, r, n, [_tuples(tag) for tag in tags], *(_tuples(k) for k in key))
                 for t, r, n, tags, *key in d.get("tmas", [])]
    return step


#: A Step's default value of each field with a plain default (the others are lists that
#: default to []): a constant mapping, where a module-level Step would be state shared
#: between runs.
_STEP_DEFAULTS = types.MappingProxyType({
    f.name: f.default for f in dataclasses.fields(Step)
    if f.default is not dataclasses.MISSING})


def save_recording(recording: Recording, path) -> None:
    """Writes a Recording as gzipped JSON (load_recording reads it back)."""
    import gzip
    data = {"grid": recording.grid, "cluster_size": recording.cluster_size,
            "cluster_ids": recording.cluster_ids, "partial": recording.partial,
            "traces": [{"warps_per_cta": t.warps_per_cta, "ctas": t.ctas,
                        "roles": t.roles,
                        "warps": [[_step_to_json(s) for s in w] for w in t.warps]}
                       for t in recording.traces]}
    with gzip.open(path, "wt") as f:
        json.dump(data, f, separators=(",", ":"))


def load_recording(path) -> Recording:
    """A Recording written by save_recording: replay it with ``.replay(overrides)``."""
    import gzip
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    traces = [ClusterTrace(t["warps_per_cta"], t["ctas"],
                           [[_step_from_json(s) for s in w] for w in t["warps"]],
                           roles={int(k): v for k, v in t.get("roles", {}).items()})
              for t in data["traces"]]
    return Recording(traces, [tuple(c) for c in data["cluster_ids"]], tuple(data["grid"]),
                     data["cluster_size"], [tuple(c) for c in data.get("partial", [])])



#: Parameters a what-if may set to 0: latencies (the rest are rates, counts and capacities
#: the model divides by).
_MAY_BE_ZERO = frozenset(name for name in PARAMETERS if name.endswith("latency"))


def check_overrides(overrides: dict | None) -> None:
    """ValueError naming the known parameters for an unknown name or a value that is not
    a positive number."""
    for name, value in (overrides or {}).items():
        if name not in PARAMETERS:
            raise ValueError(f"unknown timing parameter {name!r}; known: "
                             f"{', '.join(PARAMETERS)}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"timing parameter {name}={value!r} is not a number; known "
                             f"parameters: {', '.join(PARAMETERS)}") from None
        if number != number or number in (float("inf"), float("-inf")) or number < 0:
            raise ValueError(f"timing parameter {name}={value!r} must be a finite number "
                             f"of at least 0")
        if number == 0 and name not in _MAY_BE_ZERO:
            raise ValueError(f"timing parameter {name}={value!r} must be positive (it is a "
                             f"rate, a count or a capacity)")


def parse_timing_params(items) -> dict:
    """``["l2_latency=300", ...]`` -> {"l2_latency": 300.0}; ValueError (naming the known
    parameters) for a bad item."""
    overrides = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--timing-param {item}: expected NAME=VALUE; known: "
                             f"{', '.join(PARAMETERS)}")
        overrides[name.strip()] = value.strip()
    check_overrides(overrides)
    return {k: float(v) for k, v in overrides.items()}
