"""The timing model's parameters and the tensor pipe's cost of one MMA: ``PARAMETERS``
(each figure with its unit and its source, overridable by name), ``param`` to read one
with a run's overrides, and ``mma_cycles``, the tensor pipe's time for an MMA of a kind
and shape. The replay that uses them is ``tcgen05_lower.sim.timing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Parameter:
    """One parameter of the model: its value, unit, and where the figure comes from."""
    value: float
    unit: str
    source: str


_NVIDIA_B200 = ("NVIDIA HGX/DGX B200 datasheet, dense tensor throughput per GPU "
                "(as tabulated at https://glennklockwood.com/garden/processors/B200 and "
                "https://hmc-tech.com/gpus/nvidia-b200-vs-nvidia-b100)")
_PER_SM = "divided by 148 SMs and 1.86 GHz"
_MICRO = ("A. Jarmusch, S. Chandrasekaran, 'Microbenchmarking NVIDIA's Blackwell "
          "Architecture: An in-depth Architectural Analysis', arXiv:2512.02189")
_SEMI = ("K. Chen, D. Patel, 'Dissecting Nvidia Blackwell - Tensor Cores, PTX Instructions, "
         "SASS ...', SemiAnalysis, 2026 (public summary)")
_ASSUMED = "assumption: no public figure found"
_CNC = ("Chips and Cheese, 'Nvidia's B200: Keeping the CUDA Juggernaut Rolling', "
        "https://chipsandcheese.com/p/nvidias-b200-keeping-the-cuda-juggernaut")

#: Every parameter of the model, with its unit and public source. Where no public figure
#: exists the source says so and gives the reasoning behind the assumed value.
PARAMETERS = MappingProxyType({
    "clock_ghz": Parameter(1.86, "GHz", "B200 tensor clock as listed by "
                           "hmc-tech.com (1.98 GHz boost); 148 SMs x 8192 FLOP/cycle x "
                           "1.86 GHz = 2.25 PFLOP/s, NVIDIA's dense BF16 figure"),
    "sms": Parameter(148, "SMs", "B200 SM count (hmc-tech.com spec listing)"),
    "schedulers": Parameter(4, "warp schedulers per SM",
                            "four SM sub-partitions, as in every NVIDIA SM since Volta"),
    "issue_per_cycle": Parameter(1, "warp instructions per scheduler per cycle",
                                 "assumption: single issue"),
    # tensor pipe: FLOP per cycle per SM of dense MMAs, by kind
    "mma_flops_f16": Parameter(8192, "FLOP/cycle/SM", f"2.25 PFLOP/s dense FP16/BF16, "
                               f"{_NVIDIA_B200}, {_PER_SM}"),
    "mma_flops_tf32": Parameter(4096, "FLOP/cycle/SM", f"1.1 PFLOP/s dense TF32, "
                                f"{_NVIDIA_B200}, {_PER_SM} (3996; half the f16 rate taken)"),
    "mma_flops_f8f6f4": Parameter(16384, "FLOP/cycle/SM", f"4.5 PFLOP/s dense FP8 (FP6 "
                                  f"alike), {_NVIDIA_B200}, {_PER_SM}"),
    "mma_flops_i8": Parameter(16384, "OP/cycle/SM", f"4.5 POPS dense INT8, {_NVIDIA_B200}, "
                              f"{_PER_SM}"),
    "mma_flops_mxf8f6f4": Parameter(16384, "FLOP/cycle/SM", f"4.5 PFLOP/s dense FP8/FP6, "
                                    f"{_NVIDIA_B200}, {_PER_SM}"),
    "mma_flops_mxf4": Parameter(32768, "FLOP/cycle/SM", f"9 PFLOP/s dense FP4, "
                                f"{_NVIDIA_B200}, {_PER_SM}"),
    "mma_flops_mxf4nvf4": Parameter(32768, "FLOP/cycle/SM", f"9 PFLOP/s dense FP4, "
                                    f"{_NVIDIA_B200}, {_PER_SM}"),
    "mma_min_rows": Parameter(128, "rows per CTA", "assumption: an MMA of M < 128 rows per "
                              "CTA (M = 64; cta_group::2 M = 128) takes the time of 128 rows "
                              "(the ISA's layout figures: '1/2 datapath utilized'); sparse "
                              "MMAs run at twice the dense rate (NVIDIA's sparse figures)"),
    "smem_bytes_per_cycle": Parameter(128, "B/cycle/SM", f"{_SEMI}: SS MMAs with N < 128 are "
                                      "shared-memory bound at ~128 B/cycle; also used for "
                                      "ld/st.shared"),
    "mma_issue_latency": Parameter(8, "cycles", f"{_ASSUMED}; issue to the tensor pipe"),
    "mma_latency": Parameter(128, "cycles", f"{_ASSUMED}; from an MMA's last cycle in the "
                             "pipe to its result in TMEM (pipeline drain)"),
    "commit_latency": Parameter(16, "cycles", f"{_ASSUMED}; completion to mbarrier arrival"),
    "tmem_ld_latency": Parameter(32, "cycles", f"{_ASSUMED}; tcgen05.ld issue to registers, "
                                 "besides the transfer; comparable to ld.shared"),
    "tmem_bytes_per_cycle": Parameter(128, "B/cycle per lane quarter", f"{_ASSUMED}: one "
                                      "32-bit register for each of 32 lanes per cycle, a "
                                      "warp's register write width (512 B/cycle/SM). "
                                      f"{_MICRO} reports 16 TB/s read, 8 TB/s write for "
                                      "TMEM; as a per-SM rate (8.6 KB/cycle) it exceeds "
                                      "what registers can take, so it is not used"),
    "tmem_st_latency": Parameter(32, "cycles", f"{_ASSUMED}; as tcgen05.ld"),
    "global_latency": Parameter(420, "cycles", f"{_MICRO}: B200 global-memory latency of a "
                                "cache miss (every access is one here)"),
    "dram_bytes_per_cycle": Parameter(8e12 / 1.86e9, "B/cycle (whole GPU)",
                                      "8 TB/s HBM3e (NVIDIA B200 [1]) at 1.86 GHz; shared "
                                      "by the SMs active in a wave"),
    "l2_bytes": Parameter(126e6, "bytes", f"{_CNC}: 126 MB of L2 over the two dies"),
    "l2_bytes_per_cycle": Parameter(20e12 / 1.86e9, "B/cycle (whole GPU)",
                                    f"{_ASSUMED} for B200's total L2 bandwidth; 20 TB/s "
                                    "(2.5x its DRAM bandwidth) taken; shared by the SMs "
                                    "active in a wave (benchmarks/timing/SENSITIVITY.md)"),
    "l2_sm_bytes_per_cycle": Parameter(128, "B/cycle/SM", f"{_ASSUMED}: one 128-byte L2 "
                                       "line per cycle into an SM (TMA and ld.global "
                                       "alike) (benchmarks/timing/SENSITIVITY.md)"),
    "l2_latency": Parameter(280, "cycles", f"{_CNC}: L2 hit latency about 150 ns within a "
                            "die's partition (280 cycles at 1.86 GHz); a request that "
                            "misses takes global_latency (tma_latency for TMA)"),
    "global_loads_in_flight": Parameter(8, "global loads per warp", f"{_ASSUMED}. The model "
                                        "runs the PTX in order, as emitted; ptxas unrolls the "
                                        "fill loops and hoists their loads. A global load's "
                                        "latency is counted from the issue of the warp's load "
                                        "this many loads earlier, as if hoisted that far"),
    "shared_latency": Parameter(30, "cycles", f"{_ASSUMED} for B200; ld.shared latency of "
                                "recent SMs is about 30 cycles"),
    "param_latency": Parameter(30, "cycles", f"{_ASSUMED}; ld.param (constant bank)"),
    "alu_latency": Parameter(4, "cycles", f"{_ASSUMED}; dependent-issue latency of integer "
                             "and FP32 arithmetic on recent SMs"),
    "mufu_latency": Parameter(20, "cycles", f"{_ASSUMED}; ex2, sqrt, rcp (special function "
                              "unit)"),
    "barrier_latency": Parameter(20, "cycles", f"{_ASSUMED}; last arrival to release of "
                                 "barrier.sync"),
    "mbarrier_wait_latency": Parameter(20, "cycles", f"{_ASSUMED}; phase completion to the "
                                       "successful try_wait"),
    "mbarrier_arrive_latency": Parameter(10, "cycles", f"{_ASSUMED}"),
    "fence_proxy_latency": Parameter(20, "cycles", f"{_ASSUMED}; fence.proxy.async"),
    "alloc_latency": Parameter(50, "cycles", f"{_ASSUMED}; tcgen05.alloc (dealloc: the same)"),
    "tma_latency": Parameter(420, "cycles", f"{_MICRO}: the B200 global-memory latency of a "
                             "cache miss, taken for a cp.async.bulk.tensor load from its "
                             "issue to its first bytes (no public per-instruction TMA figure "
                             "found); its bytes then stream at dram_bytes_per_cycle (the SM's "
                             "DRAM share, shared with the SM's other loads) and its "
                             "complete_tx reaches the mbarrier when the last byte lands"),
})


def param(name: str, overrides: dict | None = None) -> float:
    if overrides and name in overrides:
        return float(overrides[name])
    return float(PARAMETERS[name].value)


#: Elements per byte of MMA operands in shared memory, by kind (f8f6f4 keeps 6- and 4-bit
#: elements in a byte each; mxf4 packs two per byte).
_OPERAND_BYTES = MappingProxyType({"f16": 2, "tf32": 4, "f8f6f4": 1, "i8": 1, "mxf8f6f4": 1,
                                   "mxf4": 0.5, "mxf4nvf4": 0.5})
_DENSE_K = MappingProxyType({"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32,
                             "mxf4": 64, "mxf4nvf4": 64})
_LDST_BYTES = MappingProxyType({"32x32b": 128, "16x64b": 128, "16x128b": 256, "16x256b": 512,
                                "16x32bx2": 128})


@dataclass(frozen=True)
class MmaCost:
    """What the tensor pipe needs to know of one MMA."""
    kind: str
    m: int
    n: int
    cta_group: int = 1
    sparse: bool = False
    a_in_tmem: bool = False


def mma_cycles(mma: MmaCost, overrides: dict | None = None) -> tuple[float, float]:
    """(cycles in the tensor pipe, of which math): the longer of the math time (FLOPs per
    CTA over the kind's rate, at least ``mma_min_rows`` rows) and the time to read the
    shared-memory operands (A unless in TMEM, B; each CTA of a pair reads its half)."""
    k = _DENSE_K[mma.kind]
    rows = max(mma.m // mma.cta_group, int(param("mma_min_rows", overrides)))
    flops = 2.0 * rows * mma.n * k
    math = flops / param(f"mma_flops_{mma.kind}", overrides)
    elem = _OPERAND_BYTES[mma.kind]
    # a sparse MMA has twice the dense K at the same time (NVIDIA's sparse rates): its A
    # is stored at half width, its B has 2K rows
    a_bytes = 0 if mma.a_in_tmem else (mma.m // mma.cta_group) * k * elem
    b_bytes = (mma.n // mma.cta_group) * k * elem * (2 if mma.sparse else 1)
    smem = (a_bytes + b_bytes) / param("smem_bytes_per_cycle", overrides)
    return max(math, smem), math
