"""The PTX ISA version of a block-scaled MMA whose scale_vec is left to its default
(issue 33, point 7).

The ISA text, 9.7.16.10.9.1 "PTX ISA Notes":

    Introduced in PTX ISA version 8.6.
    Qualifier `.kind::mxf4nvf4` introduced in PTX ISA version 8.7.
    Qualifiers `.block16` and `.block32` introduced in PTX ISA version 8.8.

and its "Target ISA Notes": "`.scale_vec::1X`, `.scale_vec::2X`, `.scale_vec::4X`
requires `sm_100a`". So kind::mxf8f6f4 (one size, scale_vec::1X = .block32, "Aliased
.scale_vectorsize variants") and kind::mxf4 (default .block32 = scale_vec::2X at K = 64)
need no more than 8.6 on sm_100a. ptxas (an independent tool) gates a `.block_scale` with
no qualifier like a written `.block32` ("Feature '.block32' requires PTX ISA .version 8.8
or later"), so on sm_100a the lowering spells the default out as its `.scale_vec::NX`
alias and the module says `.version 8.6`; on targets without `.scale_vec::NX` it prints
no qualifier and the target's own version (8.8, 9.0 for sm_110a) covers it."""

import re

import pytest

from tcgen05_lower import backend
from tcgen05_lower.driver import compile_source
from conftest import requires_ptxas

KERNEL = """
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @k() attributes {{tcgen05.kernel = {{target = "{target}", threads = 128 : i64, cta_group = 1 : i64}}}} {{
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> {a}
  %b = "tcgen05.smem_buffer"() : () -> {b}
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> {s}
  %sb = "tcgen05.tmem_buffer"() : () -> {s}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {{kind = "{kind}"}} : (!acc, {a}, {b}, i1, {s}, {s}) -> ()
  return
}}
"""
OPERANDS = {
    "mxf8f6f4": dict(a='!tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">',
                     b='!tcgen05.smem<[64, 128], f4E2M1FN, "K", "128B">',
                     s="!tcgen05.tmem<[128, 1], f8E8M0FNU>"),
    "mxf4": dict(a='!tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">',
                 b='!tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">',
                 s="!tcgen05.tmem<[128, 2], f8E8M0FNU>"),
}
#: The alias of each kind's default size (9.7.16.10.9.1, "Aliased .scale_vectorsize
#: variants": .block32 is .scale_vec::1X for mxf8f6f4, .scale_vec::2X for mxf4 at K = 64).
ALIAS = {"mxf8f6f4": "scale_vec::1X", "mxf4": "scale_vec::2X"}


def compiled(kind: str, target: str):
    return compile_source(KERNEL.format(target=target, kind=kind, **OPERANDS[kind]),
                          "default.mlir", arch=target)


def mma_line(ptx: str) -> str:
    return re.search(r"tcgen05\.mma\.[^\s\[]+", ptx).group(0)


def version(ptx: str) -> str:
    return re.search(r"^\.version (\S+)", ptx, re.M).group(1)


@pytest.mark.parametrize("kind", sorted(OPERANDS))
def test_default_on_sm_100a_needs_ptx_8_6(kind):
    result = compiled(kind, "sm_100a")
    # "Introduced in PTX ISA version 8.6" and .scale_vec::NX "requires sm_100a".
    assert version(result.ptx) == "8.6"
    assert result.ptx_version == (8, 6)
    assert mma_line(result.ptx) == f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale.{ALIAS[kind]}"
    # --explain-ptx-version's reason: nothing beyond the target.
    assert result.ptx_version_reason == "target sm_100a"


@pytest.mark.parametrize("target, expected", [("sm_100f", "8.8"), ("sm_103a", "8.8"),
                                              ("sm_110a", "9.0")])
@pytest.mark.parametrize("kind", sorted(OPERANDS))
def test_default_elsewhere_prints_no_qualifier(kind, target, expected):
    # No .scale_vec::NX off sm_100a (Target ISA Notes): the default is left unspelled;
    # the target's own version (9.7.16 Target ISA Notes: family targets "from PTX ISA
    # version 8.8", sm_110a "from PTX ISA version 9.0"; sm_103a 8.8) is what ptxas asks
    # for the implicit .block32.
    ptx = compiled(kind, target).ptx
    assert mma_line(ptx) == f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale"
    assert version(ptx) == expected


@requires_ptxas
@pytest.mark.parametrize("kind", sorted(OPERANDS))
def test_ptxas_accepts_the_sm_100a_default_at_8_6(kind):
    ptx = compiled(kind, "sm_100a").ptx
    assert version(ptx) == "8.6"
    result = backend.run_ptxas(ptx, arch="sm_100a")
    assert result.ok, result.stderr


@requires_ptxas
@pytest.mark.parametrize("kind", sorted(OPERANDS))
def test_ptxas_refuses_an_unspelled_default_below_8_8(kind):
    """Why the default is spelled out: the same module without the qualifier is refused
    by ptxas at 8.6 (it asks for the .version of .block32)."""
    ptx = compiled(kind, "sm_100a").ptx.replace(f".block_scale.{ALIAS[kind]}", ".block_scale")
    result = backend.run_ptxas(ptx, arch="sm_100a")
    assert not result.ok
    assert ".block32" in result.stderr and "8.8" in result.stderr
