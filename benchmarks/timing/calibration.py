"""benchmarks/timing/CALIBRATION.md: published B200 / SM100 GEMM measurements beside what
the timing model says of the closest kernel this project has, and whether they agree.

    python benchmarks/timing/calibration.py --record   # simulate the WS / uniform pair once
    python benchmarks/timing/calibration.py            # replay the recordings, write the table

The model's figures are replays of recordings (tests/data/timing/ and
benchmarks/timing/data/), each run checked against NumPy when it was recorded. No
parameter was set from these measurements; where the model disagrees the table says so
and why."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ring_depth  # noqa: E402

DATA = ROOT / "benchmarks" / "timing" / "data"
PAIR = {"ws": (ROOT / "tests" / "kernels" / "ws_gemm_bf16_tma_4stage.mlir",
               ("tcgen05-insert-sync{strategy=none}",)),
        "uniform": (ROOT / "examples" / "gemm_bf16_tma.mlir", ())}

CUTLASS = "https://www.mintlify.com/NVIDIA/cutlass/performance/benchmarks"
TILUS = "https://nvidia.github.io/tilus/stable/tutorials/matmul-blackwell/__init__.html"
TILUS_V3 = "https://nvidia.github.io/tilus/stable/tutorials/matmul-blackwell/v3.html"
PALLAS = "https://docs.jax.dev/en/latest/_sources/pallas/gpu/blackwell_matmul.md"


def record() -> None:
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.timing import save_recording
    DATA.mkdir(parents=True, exist_ok=True)
    for name, (path, options) in PAIR.items():
        check = path.with_suffix(".check.py")
        ptx, manifest, problem, inputs = prepare(str(path), str(check), 0,
                                                 pass_options=list(options))
        originals = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                     for k, v in inputs.items()}
        result = simulate(ptx, manifest, inputs, timing=True)
        expected = problem.reference(originals)
        if not result.ok or not all(problem.tolerance(n, result.outputs[n], want, originals)[0]
                                    for n, want in expected.items()):
            raise SystemExit(f"{path.name}: the run does not match NumPy or races")
        save_recording(result.timing.recording, DATA / f"{name}_k512.json.gz")
        print(f"{name}: recorded")


def rows() -> list[dict]:
    from tcgen05_lower.sim.timing import load_recording
    grid = ring_depth.grid_what_if().replay()
    util = grid.utilisation["tensor pipe"]
    rings = ring_depth.utilisations()
    ws = load_recording(DATA / "ws_k512.json.gz").replay()
    uniform = load_recording(DATA / "uniform_k512.json.gz").replay()
    gain = ws.utilisation["tensor pipe"] / uniform.utilisation["tensor pipe"] - 1
    from tcgen05_lower.sim.timing import PARAMETERS
    sms = PARAMETERS["sms"].value
    l2 = PARAMETERS["l2_bytes_per_cycle"].value
    l2_tb = round(l2 * PARAMETERS["clock_ghz"].value * 1e9 / 1e12, 1)
    per_sm = min(l2 / sms, PARAMETERS["l2_sm_bytes_per_cycle"].value)
    what_if = ("the one-tile warp-specialized bf16 GEMM (128 x 256 tiles, 4-stage TMA ring, "
               "1 SM per tile, no multicast; RING_DEPTH.md) as every tile of an 8192 x 8192 "
               "output, K = 2048")
    return [
        {"source": f"CUTLASS 3.8 performance page [{CUTLASS}]",
         "measured": "large BF16 x BF16 -> FP32 GEMMs on SM100: ~95 % of peak",
         "model": f"{what_if}: tensor pipe {util:.1%}",
         "agree": "no",
         "why": f"The model's kernel is not CUTLASS's: 1-SM 128 x 256 tiles read 96 B/cycle "
                f"per SM from L2 at full rate, but with the assumed {l2_tb:g} TB/s of L2 over "
                f"{sms:g} SMs each SM gets {per_sm:.1f} B/cycle (SENSITIVITY.md: the grid at "
                f"twice that). CUTLASS's "
                "2-SM 256 x 256 tiles with cluster multicast need half or less per SM: "
                "the flagship, next row, is such a kernel."},
        flagship_row(),
        {"source": f"Tilus Blackwell matmul tutorial [{TILUS}]",
         "measured": "cuBLAS, fp16, M = N = K = 8192 on B200: ~1610 TFLOPS; tensor-core "
                     "utilisation 96.6 % (NCU)",
         "model": f"{what_if}: tensor pipe {util:.1%}",
         "agree": "no",
         "why": "As the row above: the kernels differ (cuBLAS picks 2-SM tiles), and the "
                "modelled L2 share per SM bounds the 1-SM tile. 1610 TFLOPS is 72 % of the "
                "2.25 PFLOP/s datasheet figure at a lower sustained clock; the model's "
                "utilisation compares with NCU's 96.6 %."},
        {"source": f"Tilus tutorial V3 [{TILUS_V3}]; CUTLASS performance page [{CUTLASS}]",
         "measured": "pipelines of 2 to 4 stages autotuned (Tilus); '4-7 pipeline stages "
                     "optimal for most workloads' (CUTLASS, on H100): deeper rings do not lose",
         "model": "one-tile warp-specialized GEMM, ring depth 1 / 2 / 3 / 4: "
                  + " / ".join(f"{u:.1%}" for u in rings),
         "agree": "yes (ordering)" if ring_depth.rising(rings) else "no",
         "why": "Qualitative only: no published per-depth B200 figure was found."},
        {"source": f"JAX Pallas Blackwell matmul guide [{PALLAS}]",
         "measured": "fp16 on B200: basic kernel 37.62 % -> warp specialization 45.47 % "
                     "TensorCore utilisation (+21 %)",
         "model": f"warp-specialized 4-stage TMA GEMM vs single-buffered uniform TMA GEMM "
                  f"(128 x 256, K = 512, one CTA): {ws.utilisation['tensor pipe']:.1%} vs "
                  f"{uniform.utilisation['tensor pipe']:.1%} ({gain:+.0%})",
         "agree": "ordering yes, size no",
         "why": "Pallas' basic kernel is already pipelined; the model's baseline is single-"
                "buffered, so its gain is larger; the model's figures are a lone CTA's, "
                "Pallas' a full grid's."},
        pair_row(),
        {"source": f"Tilus Blackwell matmul tutorial [{TILUS}]",
         "measured": "B200, fp16, 8192^3: minimal kernel ~491 TFLOPS, the final (2-CTA, "
                     "persistent, pipelined epilogue) ~1610 TFLOPS: x3.3",
         "model": f"one-tile GEMM, ring depth 1 -> 4: x{rings[3] / rings[0]:.1f} (lone CTA)",
         "agree": "not comparable",
         "why": "The steps differ (Tilus adds TMA, warp roles, 2-CTA tiles and persistence; "
                "the model's row changes only the ring depth), so only the direction, "
                "large gains from overlap, is shared."},
    ]


def flagship_row() -> dict:
    """CUTLASS's figure beside the flagship's timing-only estimate at 8192^3
    (benchmarks/strategies/grid_2cta.py keeps each run's result in grid_2cta/results/)."""
    import json
    result = ROOT / "benchmarks" / "strategies" / "grid_2cta" / "results" / \
        "ws_gemm_bf16_grid_2cta_raster0_8192.json"
    got = json.loads(result.read_text())
    util = got["utilisation"]
    return {"source": f"CUTLASS 3.8 performance page [{CUTLASS}]",
            "measured": "large BF16 x BF16 -> FP32 GEMMs on SM100: ~95 % of peak",
            "model": f"examples/ws_gemm_bf16_grid_2cta.mlir (persistent, 2-SM 256 x 256 "
                     f"tiles, 4-stage TMA ring) at M = N = K = 8192, tcgen05-sim "
                     f"--timing-only (numerics checked at odd sizes, not at this one): "
                     f"tensor pipe {util:.1f} % (L2 share {got['l2']} busy, DRAM share "
                     f"{got['dram']})",
            "agree": "yes (within 1 point)" if abs(util - 95.0) <= 1.0 else "no",
            "why": "The model has it bound by the SMs' shares of the L2's total bandwidth, "
                   "an assumed 20 TB/s (docs/timing.md): at half of it the same loads would "
                   "hold it to about 57 % (by hand), so the agreement rests on that "
                   "assumption, not on a fitted parameter."}


def pair_row() -> dict:
    """Pallas' 2-CTA gain beside the flagship's 1-CTA and 2-CTA timing-only estimates at
    8192^3 (benchmarks/strategies/grid_2cta.py's results, GRID_2CTA_8192.md)."""
    import json
    results = ROOT / "benchmarks" / "strategies" / "grid_2cta" / "results"

    def util(stem):
        return json.loads((results / f"{stem}_raster0_8192.json").read_text())["utilisation"]

    one, pair = util("ws_gemm_bf16_grid_2cta_1cta"), util("ws_gemm_bf16_grid_2cta")
    clustered = util("ws_gemm_bf16_grid_2cta_1cta_2x1")
    return {"source": f"JAX Pallas Blackwell matmul guide [{PALLAS}]",
            "measured": "fp16 on B200: tiled epilogue 55.82 % -> collective (2-CTA) MMA "
                        "59.41 % TensorCore utilisation (+6.4 %)",
            "model": f"the flagship at M = N = K = 8192 (tcgen05-sim --timing-only), 1-CTA "
                     f"128 x 256 tiles -> 2-CTA 256 x 256 tiles: {one:.1f} % -> {pair:.1f} % "
                     f"({pair / one - 1:+.0%}); 1-CTA tiles in 2 x 1 clusters multicasting "
                     f"B: {clustered:.1f} %",
            "agree": "ordering yes, size no",
            "why": "The model's lone 1-CTA tile is bound by its SM's share of the L2 "
                   "(96 B/cycle needed against 72.7 with the assumed 20 TB/s), which a pair "
                   "(or B's multicast) cuts to 64: the size of the gap rests on that assumption. "
                   "Pallas' kernels at 56-59 % are held by more than operand bytes (not yet "
                   "persistent, epilogue not overlapped), so the bytes' share of the gain is "
                   "smaller (benchmarks/strategies/GRID_2CTA_8192.md)."}


def table() -> str:
    lines = ["# Calibration of the timing model against published B200 / SM100 GEMM figures",
             "", "Generated by `python benchmarks/timing/calibration.py` from recorded runs "
             "(each checked against NumPy when recorded) replayed with the shipped parameters "
             "(docs/timing.md). No parameter was fitted to these figures.", "",
             "| source | what was measured | what the model says | agree | why |",
             "|---|---|---|---|---|"]
    for row in rows():
        lines.append("| " + " | ".join(row[k].replace("|", "\\|") for k in
                                       ("source", "measured", "model", "agree", "why"))
                     + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if args.record:
        record()
    text = table()
    (ROOT / "benchmarks" / "timing" / "CALIBRATION.md").write_text(text)
    print(text)
