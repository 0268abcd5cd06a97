"""Which tiles the clusters of a one-wave grid (a persistent kernel: one CTA per SM, each
looping over tiles) have in L2 together, from the load streams of every cluster.

A timing-only estimate (tcgen05-sim --timing-only) runs cluster (0, 0, 0) whole and, when
the grid fits in one wave, every other cluster for the first instructions of its run
(``PREFIX_INSTRUCTIONS_PER_CTA`` per CTA): their load warps evaluate the kernel's own tile scheduler for
their first tiles, so the loads recorded are the tiles each cluster works on first. The
clusters of a wave run the same program side by side, so the k-th load step of a warp in
one cluster happens at about the time of the k-th load step of the same warp in another
(lockstep). Per buffer (a TMA load's tensor, an ld.global's array), over the first load
steps every cluster's prefix shows (the same number from each warp), the ratio

    r = distinct keys over the wave / sum over clusters of each one's distinct keys

is the fraction of a cluster's loads of that buffer that no other cluster of the wave
loads at the same step: the wave's loads of a key shared by n clusters cost DRAM once.
That ratio stands for every step of the run (assumption: the scheduler hands out the
tiles of every later step with the sharing of the first, true of a static round-robin
scheduler over a rasterized order except at the last, partial step). A key that cluster
(0, 0, 0) loads n times in its run (a reload, each copy of a multicast) is then loaded
n / r times by the wave. Of the clusters sharing a key at a step only the first misses
(assumption: in lockstep they load it within a few K blocks of each other, a reuse
distance of a few MB, far below the L2's capacity); a reload at a later step is a whole
step's bytes away and hits as MemoryContext.shared's capacity rule says: when the wave's
distinct bytes U (each key of cluster (0, 0, 0) times r times the clusters that load)
exceed the L2's capacity C, it hits only C / U of the time. Of cluster (0, 0, 0)'s n
loads of the key, those at the same place of its warps' load sequences come together (a
multicast's copies, the pairs of a cluster loading one tile: lockstep again); at m places
in all, each load misses
r (1/m + (1 - 1/m)(1 - min(1, C/U))) m / n of its bytes, r / n when the L2 holds U.

A dynamic scheduler (tiles taken from a counter in global memory, a cluster launch
control) decides at run time; the prefixes show only the first tiles, which is what this
model uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from tcgen05_lower.sim.timing.memory import MemoryContext, memory_keys
from tcgen05_lower.sim.timing.replay import replay
from tcgen05_lower.sim.timing.result import combine
from tcgen05_lower.sim.timing_parameters import param

#: The largest grid, in clusters, a timing-only estimate walks (its waves are replayed from
#: a few recorded CTAs, but each cluster's place in its wave is still visited once).
TIMING_ONLY_MAX_CLUSTERS = 1 << 20
#: Warp instructions recorded of each neighbour of cluster (0, 0, 0) in a timing-only
#: estimate: enough for their first loads of every buffer (Recording.key_classes).
TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS = 50_000

#: Warp instructions recorded per CTA of each cluster other than (0, 0, 0) when the grid
#: fits in one wave: enough for the set-up and first load steps of the flagship's load
#: warps (its CTA pair issues its first TMA loads after 2,200 to 3,000 warp instructions,
#: measured at M = 512, N = 1536, K = 640; a cluster of 4 CTAs after twice as many).
PREFIX_INSTRUCTIONS_PER_CTA = 1_500


@dataclass(frozen=True)
class BufferSharing:
    """The first load steps of one buffer over a wave's clusters."""
    distinct: int       # keys among them over the whole wave
    loads: int          # sum over the clusters of each one's distinct keys among them
    steps: int          # load steps per warp compared (the fewest any loading warp has)
    clusters: int       # clusters whose prefix loads the buffer

    @property
    def ratio(self) -> float:
        """The fraction of a cluster's loads of the buffer the wave's other clusters do
        not load at the same step (1: nothing shared)."""
        return self.distinct / self.loads if self.loads else 1.0


def buffer_of(key):
    """The buffer a load key belongs to: a TMA key's tensor, an ld.global line's array
    (the simulator places each array argument in its own 2^36-byte window)."""
    return key[0] if isinstance(key, tuple) else (key * 128) >> 36


def load_sequences(trace) -> dict:
    """{(warp, buffer): [set of the keys of each load step of the warp]} in issue order."""
    seqs: dict = {}
    for w, steps in enumerate(trace.warps):
        for step in steps:
            if not step.tmas and not (step.kind == "ld_global" and step.lines):
                continue
            per: dict = {}
            for _, _, _, _, *key in step.tmas:
                if key and key[0] is not None:
                    per.setdefault(buffer_of(key[0]), set()).add(key[0])
            if step.kind == "ld_global":
                for line in step.lines:
                    per.setdefault(buffer_of(line), set()).add(line)
            for buffer, keys in per.items():
                seqs.setdefault((w, buffer), []).append(keys)
    return seqs


def wave_sharing(traces: list) -> dict:
    """{buffer: BufferSharing} over the traces of a wave's clusters (whole runs or
    prefixes), their load steps aligned by their order in each warp."""
    seqs = [load_sequences(t) for t in traces]
    buffers = {b for s in seqs for (_, b) in s}
    out = {}
    for b in buffers:
        steps = min(len(v) for s in seqs for (_, bb), v in s.items() if bb == b)
        union: set = set()
        loads = clusters = 0
        for s in seqs:
            mine: set = set()
            for (_, bb), v in s.items():
                if bb == b:
                    for keys in v[:steps]:
                        mine |= keys
            clusters += bool(mine)
            loads += len(mine)
            union |= mine
        out[b] = BufferSharing(len(union), loads, steps, clusters)
    return out


def load_events(trace) -> dict:
    """{key: at how many load steps the trace loads it}: a load step is a place in a
    warp's sequence of loads of the key's buffer (load_sequences), and the warps of a
    cluster, in lockstep, load at the k-th places together; so the copies of a multicast
    (one step) and the loads of the same tile by two pairs of a cluster at the same place
    are one load step, a reload at a later tile another."""
    places: dict = {}
    for (_, _), seq in load_sequences(trace).items():
        for index, keys in enumerate(seq):
            for key in keys:
                places.setdefault(key, set()).add(index)
    return {key: len(at) for key, at in places.items()}


def one_wave_miss(loads: dict, sharing: dict, l2_bytes: float,
                  events: dict | None = None) -> tuple[dict, float]:
    """({key: fraction of each of its loads that misses}, the wave's distinct bytes) for
    the loads of the representative cluster (memory_keys: {key: [loads, bytes]}; its
    ``events``: {key: load steps}, load_events) in a wave that shares
    each buffer as ``sharing`` says (see the module docstring)."""
    footprint = 0.0
    for key, (_, nbytes) in loads.items():
        s = sharing.get(buffer_of(key))
        footprint += nbytes * (s.ratio * s.clusters if s else 1.0)
    keep = min(1.0, l2_bytes / footprint) if footprint else 1.0
    miss = {}
    for key, (n, _) in loads.items():
        s = sharing.get(buffer_of(key))
        ratio = s.ratio if s else 1.0
        # the clusters sharing a step's key load it within a few K blocks of each other
        # (lockstep: a reuse distance of the wave's bytes over those blocks, far below
        # the L2's capacity), so of them only the first misses; a reload at a later step
        # is as far away as the steps between, and hits as the capacity rule says
        # of the n loads, those at one load step arrive together (a multicast's copies,
        # two pairs of the cluster loading one tile): one read of DRAM for all; the
        # capacity rule is for the m load steps, at different tiles
        m = (events or {}).get(key, n)
        miss[key] = ratio * (1.0 / m + (1.0 - 1.0 / m) * (1.0 - keep)) * m / n
    return miss, footprint


def covers_one_wave(recording, per_wave: int) -> bool:
    """Whether the recording is a timing-only one of a grid that fits in one wave with
    every cluster recorded (cluster (0, 0, 0) whole, the others whole or in part)."""
    return (not recording.complete and recording.total_clusters <= per_wave
            and len(set(recording.cluster_ids)) == recording.total_clusters
            and (0, 0, 0) in recording.cluster_ids
            and (0, 0, 0) not in recording.partial)


def replay_one_wave(recording, per_wave: int, overrides):
    """The estimate of a one-wave grid from cluster (0, 0, 0)'s run, replayed for every
    cluster with the sharing the wave's recorded prefixes show (module docstring)."""
    base = recording.traces[recording.cluster_ids.index((0, 0, 0))]
    sharing = wave_sharing(recording.traces)
    miss, footprint = one_wave_miss(memory_keys(base), sharing, param("l2_bytes", overrides),
                                    load_events(base))
    clusters = recording.total_clusters
    loading = max((s.clusters for s in sharing.values()), default=clusters)
    ctx = MemoryContext(max(loading, 1) * base.ctas, MappingProxyType(miss), "one wave")
    timing = replay(base, overrides, ctx)
    shown = "; ".join(f"{b}: {s.distinct} distinct of {s.loads} ({s.steps} load step(s) "
                      f"per warp, {s.clusters} cluster(s))"
                      for b, s in sorted(sharing.items(), key=lambda kv: str(kv[0])))
    silent = [c for c, t in zip(recording.cluster_ids, recording.traces)
              if c in recording.partial and not load_sequences(t)]
    if silent:   # their prefixes ended before their first load: taken as idle
        shown += (f"; {len(silent)} cluster(s) loaded nothing in their first "
                  f"{PREFIX_INSTRUCTIONS_PER_CTA * base.ctas:,} warp instructions and count "
                  f"as idle")
    how = (f"timing only: cluster (0, 0, 0) simulated whole and the other "
           f"{clusters - 1} cluster(s) of the one-wave grid for their first "
           f"instructions; cluster (0, 0, 0) replayed for each of the {clusters} clusters, "
           f"its loads shared in L2 as the clusters' first loads show, aligned by their "
           f"order (keys per buffer: {shown}; {footprint / 2**20:,.1f} MiB distinct)")
    return combine([timing] * clusters, recording.cluster_size, overrides,
                   waves=[list(range(clusters))], how=how)


def timing_only_clusters(grid: tuple, cluster_size: int, timing) -> tuple[list, int]:
    """(the clusters a timing-only estimate runs, (0, 0, 0) first, and the warp
    instructions recorded of each of the others): every cluster for
    PREFIX_INSTRUCTIONS_PER_CTA per CTA
    when the grid fits in one wave, else the neighbours (1, 0, 0) and (0, 1, 0) of
    cluster (0, 0, 0) for TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS (Recording.key_classes)."""
    gx, gy, gz = grid
    overrides = timing if isinstance(timing, dict) else None
    per_wave = max(int(param("sms", overrides)) // max(cluster_size, 1), 1)
    if gx * gy * gz <= per_wave:
        return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)], \
            PREFIX_INSTRUCTIONS_PER_CTA * cluster_size
    return [(0, 0, 0)] + ([(1, 0, 0)] if gx > 1 else []) + \
        ([(0, 1, 0)] if gy > 1 else []), TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS
