"""The one-tile warp-specialized bf16 GEMM of issue 36's acceptance, made from
examples/ws_persistent_gemm_bf16.mlir by changing its sizes: C (128 x 256, f32) =
A (128 x K, bf16) x B^T, B (256 x K, bf16), one tile, K / 64 K blocks (K = 2048: 32).
The ring depth is chosen at compile time with tcgen05-insert-sync{ring-stages=N}.

    python benchmarks/timing/one_tile.py OUT_DIR [K]   # writes the .mlir and .check.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ws_persistent_gemm_bf16.mlir"


def kernel_text(k: int = 2048) -> str:
    """The example with one tile (the tile loops run once), K / 64 K blocks per tile and
    C's row stride 256; everything else (roles, ring, accumulator stages) unchanged."""
    if k % 64 or not 64 <= k <= 64 * 64:
        raise ValueError(f"K must be a multiple of 64 from 64 to 4096, not {k}")
    blocks = k // 64
    text = EXAMPLE.read_text()
    text = text.replace("@ws_persistent_gemm_bf16(", "@ws_one_tile_gemm_bf16(")
    # the three tile loops: for t in [0, 1)
    text = text.replace("scf.for %t = %c0 to %c4 step %c1", "scf.for %t = %c0 to %c1 step %c1")
    # K blocks: it = blocks * t + kb, kb in [0, blocks)
    text = text.replace("  %c4 = arith.constant 4 : index\n",
                        f"  %c4 = arith.constant 4 : index\n"
                        f"  %cKB = arith.constant {blocks} : index\n")
    text = text.replace("%base = arith.muli %t, %c4 : index", "%base = arith.muli %t, %cKB : index")
    text = text.replace("scf.for %kb = %c0 to %c4 step %c1", "scf.for %kb = %c0 to %cKB step %c1")
    text = text.replace("{ld = 1024 : i64}", "{ld = 256 : i64}")
    return text


def check_text(k: int = 2048) -> str:
    """The NumPy reference of the one-tile kernel (the gamma_K bound of summing K exact
    bf16 x bf16 products in f32)."""
    return f'''import numpy as np

BUFFERS = {{"A": ("bfloat16", (128, {k})), "B": ("bfloat16", (256, {k})),
           "C": ("float32", (128, 256))}}


def reference(inputs):
    return {{"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}}


def bound(name, inputs):
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return {k} * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = {k}"
'''


def write(out_dir: Path, k: int = 2048) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    kernel = out_dir / f"ws_one_tile_k{k}.mlir"
    check = out_dir / f"ws_one_tile_k{k}.check.py"
    kernel.write_text(kernel_text(k))
    check.write_text(check_text(k))
    return kernel, check


if __name__ == "__main__":
    print(*write(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2048))
