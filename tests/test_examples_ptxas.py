"""Every shipped example compiles, for every target where the ISA allows its
instructions, to PTX that ptxas (an independent tool) accepts."""

import pytest

import example_runs
from tcgen05_lower.driver import compile_source
from tcgen05_lower.isa import targets

from conftest import EXAMPLES, requires_ptxas

EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.mlir"))
# The targets the project is tested on (tcgen05 needs an 'a' or 'f' target).
TEST_TARGETS = ("sm_100a", "sm_100f", "sm_103a", "sm_110a")


def test_there_are_examples():
    assert {"gemm_bf16_128x256.mlir", "gemm_bf16_kloop.mlir", "gemm_m64_pair.mlir"} <= \
        set(EXAMPLE_FILES)


@requires_ptxas
@pytest.mark.parametrize("target", TEST_TARGETS)
@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_example_assembles(example, target):
    # kind::f16 MMAs and the tcgen05 base instructions: allowed on all four targets
    # (9.7.16.10.9.1 Target ISA Notes; family targets from PTX 8.8).
    assert targets.feature_supported("kind::f16", target)
    # compiled with its pass options and assembled once per session (shared with the
    # examples' own ptxas tests)
    result, ptxas = example_runs.assembled(example, target)
    assert f".target {target}" in result.ptx
    version = targets.ptx_version_string(result.ptx_version)
    assert f".version {version}" in result.ptx
    assert ptxas.ok, ptxas.stderr


@requires_ptxas
def test_family_target_needs_ptx_88():
    text = (EXAMPLES / "gemm_bf16_128x256.mlir").read_text()
    assert compile_source(text, "x", arch="sm_100a").ptx_version == (8, 6)
    assert compile_source(text, "x", arch="sm_100f").ptx_version == (8, 8)
