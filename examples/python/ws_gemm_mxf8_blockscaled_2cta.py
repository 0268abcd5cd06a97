"""Twin of examples/ws_gemm_mxf8_blockscaled_2cta.mlir: the block-scaled warp-specialized
GEMM of examples/python/shared/ws_gemm_blockscaled.py in its mxf8 format, on CTA pairs."""

import os
import runpy

from tcgen05_lower.builder import KernelBuilder

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shared",
                      "ws_gemm_blockscaled.py")


def build() -> KernelBuilder:
    return runpy.run_path(SHARED)["build"]("ws_gemm_mxf8_blockscaled_2cta", "mxf8", pair=True)


if __name__ == "__main__":
    print(build().text())
