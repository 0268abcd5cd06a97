"""The model's figures for single operations beside the published figures they were
calibrated on (docs/timing.md prints the tables)."""

from __future__ import annotations

from tcgen05_lower.sim.timing.replay import replay
from tcgen05_lower.sim.timing.trace import ClusterTrace, Step
from tcgen05_lower.sim.timing_parameters import _DENSE_K, _LDST_BYTES, PARAMETERS, MmaCost, mma_cycles, param


def single_warp(steps: list[Step]) -> ClusterTrace:
    """A trace of one CTA whose warp 0 runs ``steps`` (for calibration and tests)."""
    return ClusterTrace(warps_per_cta=1, ctas=1, warps=[steps])


def calibration(overrides: dict | None = None) -> list[dict]:
    """The model's figures for single operations beside the published figures they were
    calibrated on (docs/timing.md prints this table)."""
    rows = []
    largest = [("f16", 128, 256, 1), ("tf32", 128, 256, 1), ("f8f6f4", 128, 256, 1),
               ("i8", 128, 256, 1), ("mxf8f6f4", 128, 256, 1), ("mxf4", 128, 256, 1),
               ("mxf4nvf4", 128, 256, 1), ("f16", 256, 256, 2)]
    published = {"f16": "2.25 PFLOP/s dense", "tf32": "1.1 PFLOP/s dense",
                 "f8f6f4": "4.5 PFLOP/s dense", "i8": "4.5 POPS dense",
                 "mxf8f6f4": "4.5 PFLOP/s dense", "mxf4": "9 PFLOP/s dense",
                 "mxf4nvf4": "9 PFLOP/s dense"}
    clock = param("clock_ghz", overrides)
    sms = param("sms", overrides)
    for kind, m, n, group in largest:
        cost = MmaCost(kind, m, n, group)
        pipe, _ = mma_cycles(cost, overrides)
        flops = 2.0 * m * n * _DENSE_K[kind]
        rate = flops / pipe * (sms / group) * clock * 1e9    # per GPU, all SMs busy
        single = replay(single_warp([Step("async", asyncs=[(0, 0, "mma", cost)]),
                                     Step("alu")]) if group == 1 else
                        ClusterTrace(1, 2, [[Step("async", asyncs=[(0, 0, "mma", cost)])],
                                            []]), overrides).cycles
        rows.append({"operation": f"tcgen05.mma.cta_group::{group}.kind::{kind} "
                                  f"M={m} N={n} K={_DENSE_K[kind]}",
                     "model": f"{pipe:.0f} cycles in the pipe ({rate / 1e15:.2f} PFLOP/s "
                              f"over {sms:.0f} SMs); {single:.0f} cycles issue to result",
                     "published": published[kind] + (" (2 SMs per MMA)" if group == 2 else ""),
                     "source": "NVIDIA B200 datasheet [1]; 148 SMs, 1.86 GHz [2]"
                               + ("; 2-SM MMA scaling [4]" if group == 2 else "")})
    for shape, num in (("32x32b", 128), ("16x64b", 128), ("16x128b", 64), ("16x256b", 32),
                       ("16x32bx2", 128)):
        nbytes = _LDST_BYTES[shape] * num
        cyc = replay(single_warp([Step("tmem_ld", nbytes=nbytes, dsts=("%r1",)),
                                  Step("wait_ld")]), overrides).cycles
        rows.append({"operation": f"tcgen05.ld.{shape}.x{num} ({nbytes} B per warp)",
                     "model": f"{cyc:.0f} cycles to wait::ld",
                     "published": "none per instruction (TMEM 16 TB/s read [3], unit unclear)",
                     "source": "assumption: 128 B/cycle per lane quarter, 32-cycle latency"})
    tile = 128 * 64 * 2
    landed, released = tma_tile_cycles(tile, overrides)
    rows.append({"operation": "TMA load of a 128x64 bf16 tile (16 KiB): mbarrier.arrive."
                              "expect_tx, cp.async.bulk.tensor, mbarrier.try_wait",
                 "model": f"{landed:.0f} cycles issue to complete_tx; {released:.0f} to "
                          f"the successful wait",
                 "published": "no per-tile figure; 420-cycle miss latency [3], 8 TB/s [1]",
                 "source": "tma_latency (= the miss latency [3]) + 16 KiB through the "
                           "SM's L2 port (l2_sm_bytes_per_cycle, an assumption), the SM "
                           "alone on the GPU"})
    # today's path: smem_fill, 128 threads x 8 ld.global.v4 (16 B) then st.shared.v4
    steps = [[Step("ld_global", nbytes=32 * 16, dsts=(f"%r{i}",)) for i in range(8)] +
             [Step("st_shared", nbytes=32 * 16, srcs=(f"%r{i}",)) for i in range(8)]
             for _ in range(4)]
    fill = replay(ClusterTrace(4, 1, steps), overrides).cycles
    rows.append({"operation": "the same tile by smem_fill (4 warps x 8 ld.global.v4 + "
                              "st.shared.v4, the path emitted today)",
                 "model": f"{fill:.0f} cycles", "published": "420-cycle miss latency [3], "
                 "8 TB/s [1]", "source": "global_latency, L2 port, 8 loads in flight"})
    return rows


def tma_tile_cycles(nbytes: int, overrides: dict | None = None) -> tuple[float, float]:
    """(cycles from issuing a TMA load of ``nbytes`` to its complete_tx on the mbarrier,
    cycles from that issue to the successful wait on the phase), by replaying one warp that
    arrives with expect_tx, issues the load and waits."""
    tag = (0, 0, 1, 0)
    steps = [Step("mbar_arrive", arrivals=[tag]),
             Step("tma", tmas=[(0, 0, nbytes, [tag])]),
             Step("mbar_wait", wait=tag)]
    timing = replay(single_warp(steps), overrides)
    landed = max(ev["end"] for ev in timing.events if ev["cat"] == "memory")
    issued = 1.0    # the load is the warp's second instruction, issued at cycle 1
    return landed - issued, timing.cycles - 1 - issued


def calibration_markdown(overrides: dict | None = None) -> str:
    lines = ["| operation | model | published figure | source |", "|---|---|---|---|"]
    for row in calibration(overrides):
        lines.append(f"| {row['operation']} | {row['model']} | {row['published']} | "
                     f"{row['source']} |")
    return "\n".join(lines)


def parameters_markdown() -> str:
    lines = ["| parameter | value | unit | source |", "|---|---:|---|---|"]
    for name, prm in PARAMETERS.items():
        value = f"{prm.value:.2f}" if isinstance(prm.value, float) and \
            prm.value != int(prm.value) else f"{prm.value:g}"
        lines.append(f"| `{name}` | {value} | {prm.unit} | {prm.source} |")
    return "\n".join(lines)
