"""A launch's estimate: its clusters' replays in waves (combine), the utilisation and
stalls it reports, and its Chrome trace."""

from __future__ import annotations

import json
from dataclasses import dataclass

from tcgen05_lower.sim.timing.replay import ClusterTiming
from tcgen05_lower.sim.timing_parameters import param


@dataclass
class TimingResult:
    """The model's estimate for a launch."""
    cycles: float
    clock_ghz: float
    utilisation: dict           # unit -> fraction of the time busy
    stalls: dict                # warp -> {reason: cycles} (the first cluster's warps)
    clusters: list              # ClusterTiming per cluster of the grid
    waves: int
    how: str = ""               # how the estimate was made
    sms: int = 148
    recording: object = None    # the Recording it was replayed from (Recording.replay)

    @property
    def microseconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e3)

    def summary(self) -> str:
        util = ", ".join(f"{k} {v:.1%}" for k, v in self.utilisation.items())
        lines = [f"  timing (model, for comparing strategies): {self.cycles:,.0f} cycles = "
                 f"{self.microseconds:.3f} us at {self.clock_ghz} GHz"
                 + (f", {len(self.clusters)} clusters in {self.waves} wave(s)"
                    if len(self.clusters) > 1 else ""),
                 f"  utilisation: {util}"]
        if self.how:
            lines.insert(1, f"  estimate: {self.how}")
        for warp, reasons in self.stalls.items():
            shown = ", ".join(f"{r} {c:,.0f}" for r, c in reasons.items() if c)
            lines.append(f"  stalls {warp}: {shown or 'none'}")
        return "\n".join(lines)

    def chrome_trace(self) -> dict:
        """Chrome trace-event JSON: one process per cluster, one thread (track) per warp
        and per hardware unit; times in microseconds at clock_ghz."""
        scale = 1.0 / (self.clock_ghz * 1e3)
        events = []
        distinct = list({id(cluster): cluster for cluster in self.clusters}.values())
        for c, cluster in enumerate(distinct):   # a timing-only estimate repeats replays
            names = {}
            for ev in cluster.events:
                tid = names.setdefault(ev["track"], len(names))
                events.append({"name": ev["name"], "ph": "X", "pid": c, "tid": tid,
                               "ts": ev["start"] * scale,
                               "dur": max(ev["end"] - ev["start"], 0.0) * scale,
                               "cat": ev.get("cat", ""), "args": ev.get("args", {})})
            events.append({"name": "process_name", "ph": "M", "pid": c, "tid": 0,
                           "args": {"name": f"cluster {c}"}})
            for track, tid in names.items():
                events.append({"name": "thread_name", "ph": "M", "pid": c, "tid": tid,
                               "args": {"name": track}})
                events.append({"name": "thread_sort_index", "ph": "M", "pid": c, "tid": tid,
                               "args": {"sort_index": tid}})
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"clock_ghz": self.clock_ghz, "cycles": self.cycles}}

    def write_chrome_trace(self, path) -> None:
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)



def combine(clusters: list[ClusterTiming], sms_per_cluster: int = 1,
            overrides: dict | None = None, waves: list | None = None,
            how: str = "") -> TimingResult:
    """The launch: clusters run in waves of (sms / CTAs per cluster) in launch order (or
    ``waves``, lists of indices into ``clusters``); each wave takes its slowest cluster's
    cycles. Utilisation is over the SMs of each wave for that wave's time."""
    if waves is None:
        per_wave = max(int(param("sms", overrides)) // max(sms_per_cluster, 1), 1)
        waves = [range(i, min(i + per_wave, len(clusters)))
                 for i in range(0, len(clusters), per_wave)]
    cycles = 0.0
    sm_cycles = 0.0
    for wave in waves:
        slowest = max(clusters[i].cycles for i in wave)
        cycles += slowest
        sm_cycles += slowest * sum(clusters[i].ctas for i in wave)
    sm_cycles = sm_cycles or 1.0
    util = {
        "tensor pipe": sum(c.tensor_busy for c in clusters) / sm_cycles,
        "tensor math": sum(c.tensor_math for c in clusters) / sm_cycles,
        "TMEM ports": sum(c.tmem_busy for c in clusters) / (4 * sm_cycles),
        "L2 port": sum(c.l2_busy for c in clusters) / sm_cycles,
        "DRAM share": sum(c.dram_busy for c in clusters) / sm_cycles,
    }
    return TimingResult(cycles=cycles, clock_ghz=param("clock_ghz", overrides),
                        utilisation=util, stalls=clusters[0].stalls if clusters else {},
                        clusters=clusters, waves=len(waves), how=how,
                        sms=int(param("sms", overrides)))
