"""The chained GEMM of the kernel generator (tests/generator/kernelgen.py, ``chain``):
O = f(A B^T) V^T, where the epilogue loads S = A B^T, transforms it (bias, scale,
activation, row reduction), rounds it to A's element type and stores it with tcgen05.st
as P, into a TMEM buffer of its own ("sep") or over S's first columns (an alias of the
accumulator, planning/aliases.py: "alias"), and an MMA reads P as its A operand from
tensor memory; in warp roles it is synchronized by tcgen05-insert-sync{strategy=handoffs}
(``sync``). Each fixed spec is compiled, assembled by ptxas, simulated under the late and
eager schedules (race-free, nothing left at exit) and compared with kernelgen.reference:
O in float64 from the inputs with P rounded to A's type as the kernel rounds it, the
bound derived in kernelgen._chained (never from the simulator's output).
"""

from __future__ import annotations

import re

import pytest

from generator import check
from generator import kernelgen as kg

CHAINS = [
    # one program, P in a buffer of its own: a column bias, GELU, a bf16 output
    pytest.param(kg.Spec(chain="sep", bias="col", act="gelu", out="bf16", seed=1),
                 id="uniform-sep-gelu"),
    # one program, P over S, two tiles: S = A B^T of tile 1 writes the cells O += P V^T of
    # tile 0 reads (no pipelined pair: before the fix in synchronization/accesses.py
    # insert-sync left them unordered and verify-sync refused the kernel)
    pytest.param(kg.Spec(chain="alias", tiles=2, seed=2), id="uniform-alias-two-tiles"),
    # one program, e4m3 (n = 128), TMA ring of 2 stages, 2 K blocks, 2 tiles, row maximum,
    # an e4m3 output
    pytest.param(kg.Spec(chain="alias", dtype="e4m3", n=128, load="tma", ring=2, kblocks=2,
                         tiles=2, rowred="max", out="e4m3", seed=3), id="uniform-alias-e4m3"),
    # M = 64 (Layout F: P stored .16x32bx2), a row sum, B stored K x N
    pytest.param(kg.Spec(chain="sep", m=64, rowred="sum", b_major="kn", seed=4),
                 id="uniform-sep-m64-rowsum"),
    # warp roles, strategy=handoffs, P over S, one-stage rings (before the fix in
    # synchronization/pipelined_loads.py verify-sync refused the planned kernel: "cannot
    # tell which tcgen05.alloc_mbarrier this op's mbarrier is")
    pytest.param(kg.Spec(chain="alias", program="roles", load="tma", sync="handoffs",
                         seed=5), id="handoffs-alias-one-stage"),
    # warp roles, strategy=handoffs, P in its own buffer, two tiles (before the fix in
    # sync_check/cta_footprints.py verify-sync took each chunk's store of P as one of all
    # its columns and refused the planned kernel: "missing tcgen05.wait::st")
    pytest.param(kg.Spec(chain="sep", program="roles", load="tma", sync="handoffs", tiles=2,
                         ring=2, seed=6), id="handoffs-sep-two-tiles"),
    # warp roles, strategy=handoffs, f16, M = 64, scale and ReLU, an f16 output
    pytest.param(kg.Spec(chain="alias", dtype="f16", m=64, program="roles", load="tma",
                         sync="handoffs", tiles=2, scale=True, act="relu", out="f16",
                         seed=7), id="handoffs-alias-f16-m64"),
    # warp roles, strategy=handoffs, M = 64 with P in its own buffer (Layout F, half
    # lanes: before the fix in synchronization/thread_order.py verify-sync refused the
    # chunk stores of P, "missing tcgen05.wait::st"; campaign 43's interim run, kernel
    # 101, and the seed-33 sample's kernel 14)
    pytest.param(kg.Spec(chain="sep", m=64, program="roles", load="tma", sync="handoffs",
                         ring=2, act="relu", out="e5m2", seed=9), id="handoffs-sep-m64"),
    # warp roles, strategy=handoffs, e5m2 (n = 128), 2 K blocks (two B rings), row bias,
    # an e4m3 output
    pytest.param(kg.Spec(chain="sep", dtype="e5m2", n=128, program="roles", load="tma",
                         sync="handoffs", kblocks=2, ring=2, tiles=2, bias="row",
                         out="e4m3", seed=8), id="handoffs-sep-e5m2"),
    # an f16 output past 65504: O of an e5m2 chain with a row sum (P up to 57344) rounds
    # to +-inf (cvt.rn.f16.f32, no satfinite), which the reference did not model (it
    # wanted 72738 +- 257: campaign 4302's kernel 112, shrunk)
    pytest.param(kg.Spec(chain="sep", dtype="mx_e5m2", n=128, out="f16", rowred="sum",
                         seed=869072850), id="uniform-sep-f16-overflow"),
    # run-time M, N, K (edge tiles: B's rows and V's columns past N zero-filled, O's rows
    # past M not stored), one program, P over S, two tiles, a row bias
    pytest.param(kg.Spec(chain="alias", shapes="runtime", tiles=2, load="tma", bias="row",
                         seed=2), id="uniform-alias-runtime"),
    # run-time shapes in warp roles with strategy=handoffs, a row maximum
    pytest.param(kg.Spec(chain="alias", shapes="runtime", tiles=2, program="roles",
                         load="tma", sync="handoffs", rowred="max", seed=1),
                 id="handoffs-alias-runtime-rowmax"),
    # a block-scaled first MMA (kind::mxf8f6f4, UE8M0 factors) and an unscaled
    # kind::f8f6f4 second one reading P (e4m3) from tensor memory; run-time shapes
    pytest.param(kg.Spec(chain="sep", dtype="mx_e4m3", n=128, shapes="runtime", kblocks=2,
                         bias="col", seed=3), id="uniform-sep-mxf8-runtime"),
]


@pytest.mark.parametrize("spec", CHAINS)
def test_chained_gemm(spec):
    assert not kg.problems(spec), kg.problems(spec)
    outcome = check.run_spec(spec)
    assert outcome.ok, f"{outcome.stage}: {outcome.message}\n{spec.key()}"


def test_the_chain_reaches_the_ptx():
    """P is stored with tcgen05.st (9.7.16.8.4) and read by a tcgen05.mma whose A is a
    tensor-memory address ([a-tmem], 9.7.16.10.9.1: the operand in brackets), and the
    handoffs are mbarrier waits in the PTX, so that the generator exercises them."""
    from tcgen05_lower.driver import compile_source
    spec = kg.Spec(chain="alias", program="roles", load="tma", sync="handoffs", tiles=2)
    ptx = compile_source(kg.render(spec), "chain.mlir", pipeline=check.pipeline(spec)).ptx
    assert "tcgen05.st.sync.aligned" in ptx
    a_tmem = re.compile(r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], \[%r\d+\], %rd")
    a_smem = re.compile(r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], %rd")
    assert a_tmem.search(ptx) and a_smem.search(ptx)
    assert "mbarrier.try_wait" in ptx


#: What the generator's problems() says the compiler refuses, checked against the
#: compiler: each spec is rendered anyway and must fail to compile with the quoted text.
REFUSED = [
    (kg.Spec(chain="alias", ld_shape="16x32bx2"), "packs the K elements each thread holds"),
    (kg.Spec(chain="alias", program="roles", load="tma"),
     "tcgen05.st in role 'epilogue' (warps 4-7) is not planned"),
    (kg.Spec(program="roles", load="tma", sync="handoffs"),
     "turns must count from 0 by 1"),
    (kg.Spec(chain="sep", dtype="tf32", n=32), "a computed fragment of tf32 is not supported"),
    (kg.Spec(chain="sep", ctas=2, m=256), "into an A operand of Layout A is not supported yet"),
    (kg.Spec(chain="alias", acc_stages=2, tiles=2),
     "an alias has one stage per stage of its parent"),
]


@pytest.mark.parametrize("spec, text", REFUSED,
                         ids=[s.key().replace(",seed=0", "")[-60:] for s, _ in REFUSED])
def test_documented_refusals(spec, text):
    from tcgen05_lower.driver import CompileFailed, compile_source
    assert kg.problems(spec), "the generator must not draw a spec the compiler refuses"
    with pytest.raises(CompileFailed) as refused:
        compile_source(kg.render(spec), "refused.mlir", pipeline=check.pipeline(spec),
                       emit="mlir")
    assert text in str(refused.value)


def test_an_f16_output_past_its_range_is_inf():
    """The reference rounds an f16 output as cvt.rn.f16.f32 does (IEEE 754 round to
    nearest): by hand, A = 256 and B = 8 everywhere (bf16, exact), K = 64: every element
    of C is 64 x 2048 = 131072 >= 65520, so +inf, with nothing to allow; A = 1 and B = 1:
    64, finite, within f16's half unit (2^-11 x 64) plus its half subnormal spacing."""
    import numpy as np
    spec = kg.Spec(out="f16")
    args = kg.make_inputs(spec)
    args["A"][:] = 256
    args["B"][:] = 8
    want, bound = kg.reference(spec, args)
    assert np.all(want == np.inf) and np.all(bound == 0)
    got = np.full_like(args["C"], np.inf)
    assert kg.compare(spec, args, got) is None
    got[3, 5] = 65504.0
    assert kg.compare(spec, args, got) is not None
    args["A"][:] = 1
    args["B"][:] = 1
    want, bound = kg.reference(spec, args)
    assert np.all(want == 64.0)
    assert np.allclose(bound, 64 * 64 * 2.0 ** -24 * (1 + 2.0 ** -11) + 2.0 ** -11 * 64
                       + 2.0 ** -25, rtol=1e-6)
