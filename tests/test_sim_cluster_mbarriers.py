"""The simulator's mbarriers across a CTA pair (a cluster of 2), on small hand-written
kernels run by the real ordering model:

* ``mbarrier.arrive.release.cluster.shared::cluster.b64 _, [addr]`` with a ``mapa``
  address arrives at the mbarrier of the CTA the address names (PTX ISA 9.7.13.15.13:
  the arrive-on operation on an mbarrier in shared::cluster space; only the sink ``_``
  may take the state of such an arrive), and counts towards that mbarrier's phase like a
  local arrival;
* ``cp.async.bulk.tensor ... .cta_group::2`` writes the executing CTA's shared memory and
  performs complete_tx on an mbarrier that may be in the peer CTA (PTX ISA
  9.7.9.25.5.1, ".cta_group"); without ``.cta_group::2`` the mbarrier must be in the
  destination's CTA.

Expected values are derived by hand from those rules (which CTA's mbarrier completes,
how many arrivals a phase takes, which bytes land where), not from the compiler."""

import numpy as np
import pytest

from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.tma import TensorMap

HEADER = """.version 8.6
.target sm_100a
.address_size 64
"""

PARAMS = ("\t.param .u64 .ptr .global .align 1 k_param_0,\n"
          "\t.param .u64 .ptr .global .align 1 k_param_1,\n"
          "\t.param .u64 .ptr .global .align 1 k_param_2")


def pair_kernel(body: str, threads: int = 32) -> str:
    """A kernel of `threads` threads per CTA, launched as a cluster of 2 (a CTA pair)."""
    return (HEADER + f".visible .entry k(\n{PARAMS}\n)\n.reqntid {threads}, 1, 1\n"
            ".reqnctapercluster 2, 1, 1\n.explicitcluster\n{\n"
            "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<40>;\n"
            "\t.shared .align 1024 .b8 tile[1024];\n\t.shared .align 8 .b8 bar[8];\n"
            + body + "\n}\n")


# Every CTA: %r1 = tid, %r2 = rank, %r3 = the mbarrier's shared::cta address, %r4 = its
# shared::cluster address in CTA 0 (mapa), %p1 = thread 0, %p2 = thread 0 of CTA 0,
# %p3 = thread 0 of CTA 1. Thread 0 of each CTA initializes its mbarrier with count
# %r5; a cluster barrier orders the inits before any use.
PROLOGUE = """
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %cluster_ctarank;
	mov.b64 	%rd1, bar;
	cvt.u32.u64 	%r3, %rd1;
	mov.b32 	%r6, 0;
	mapa.shared::cluster.u32 	%r4, %r3, %r6;
	setp.eq.b32 	%p1, %r1, 0;
	setp.eq.b32 	%p4, %r2, 0;
	and.pred 	%p2, %p1, %p4;
	setp.eq.b32 	%p5, %r2, 1;
	and.pred 	%p3, %p1, %p5;
	mov.b32 	%r5, {count};
	@%p1 mbarrier.init.shared::cta.b64 [%r3], %r5;
	@%p1 fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
"""

# CTA 0's threads wait for phase 0 of its own mbarrier, then its thread 0 writes 7 to
# out[0] (CTA 1 goes straight to the final cluster barrier).
WAIT_AND_MARK = """
	mov.b32 	%r7, 0;
	@!%p4 bra 	$DONE;
	{ .reg .pred done; wait: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%r3], %r7; @!done bra wait; }
	ld.param.b64 	%rd2, [k_param_0];
	mov.b32 	%r8, 7;
	@%p1 st.global.b32 	[%rd2], %r8;
$DONE:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
"""

REMOTE_ARRIVE = "\t@%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n"
LOCAL_ARRIVE = "\t@%p2 mbarrier.arrive.release.cta.shared::cta.b64 _, [%r3];\n"


def run(text: str, out=None, **kw):
    out = np.zeros(4, np.uint32) if out is None else out
    args = {"k_param_0": out, "k_param_1": np.zeros(4, np.uint32),
            "k_param_2": np.zeros(4, np.uint32)}
    args.update(kw.pop("args", {}))
    return simulate(text, {}, args, **kw), out


def test_a_remote_arrival_counts_towards_the_peer_ctas_phase():
    """Count 2: CTA 0's own arrival and CTA 1's arrival through the mapa address make the
    two arrivals of phase 0 of CTA 0's mbarrier, so CTA 0's wait returns."""
    body = PROLOGUE.format(count=2) + LOCAL_ARRIVE + REMOTE_ARRIVE + WAIT_AND_MARK
    result, out = run(pair_kernel(body))
    assert out[0] == 7 and not result.races
    assert result.counts["mbarrier.arrive.release.cluster.shared::cluster.b64"] == 2  # 2 warps


def test_the_remote_arrival_reaches_cta_0_not_its_own_cta():
    """Without the remote arrival, phase 0 of CTA 0's mbarrier (count 2) has one arrival
    and never completes: a deadlock. With CTA 1 arriving at its own mbarrier instead
    (the shared::cta address), CTA 0's phase is still one arrival short."""
    alone = PROLOGUE.format(count=2) + LOCAL_ARRIVE + WAIT_AND_MARK
    with pytest.raises(SimError, match="deadlock"):
        run(pair_kernel(alone))
    own = REMOTE_ARRIVE.replace("[%r4]", "[%r3]")
    with pytest.raises(SimError, match="deadlock"):
        run(pair_kernel(PROLOGUE.format(count=2) + LOCAL_ARRIVE + own + WAIT_AND_MARK))


def test_arrivals_of_both_ctas_through_mapa_count_alike():
    """Count 3: CTA 0's thread 0 arrives through its own mapa address (rank 0 names CTA 0
    itself), and threads 0 and 1 of CTA 1 arrive remotely: three arrivals, phase 0
    completes. With count 4 it is one short: a deadlock."""
    arrivals = ("\t@%p2 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n"
                "\tsetp.lt.u32 \t%p6, %r1, 2;\n\tand.pred \t%p7, %p6, %p5;\n"
                "\t@%p7 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n")
    result, out = run(pair_kernel(PROLOGUE.format(count=3) + arrivals + WAIT_AND_MARK))
    assert out[0] == 7 and not result.races
    with pytest.raises(SimError, match="deadlock"):
        run(pair_kernel(PROLOGUE.format(count=4) + arrivals + WAIT_AND_MARK))


def test_a_shared_cluster_arrive_must_sink_its_state():
    body = PROLOGUE.format(count=1) + \
        "\t@%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 %rd5, [%r4];\n" + \
        WAIT_AND_MARK
    with pytest.raises(SimError, match="sink _"):
        run(pair_kernel(body))


# -- TMA with .cta_group::2 ------------------------------------------------------------------
# CTA 1's thread 0 loads the 32 x 16 box (innermost first) of the 16 x 64 array of 16-bit
# elements k_param_1 (16 rows of 64 bytes, no swizzle: 1024 bytes) into its own tile,
# completing on CTA 0's mbarrier (mapa). CTA 0's thread 0 expects the 1024 bytes (its one arrival, count 1),
# waits for phase 0, then copies CTA 1's tile (ld.shared::cluster through mapa) to out.
TMA = """
	@!%p2 bra 	$NOEXPECT;
	mov.b32 	%r9, 1024;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r9;
$NOEXPECT:
	ld.param.b64 	%rd3, [k_param_2];
	cvta.global.u64 	%rd4, %rd3;
	mov.b64 	%rd5, tile;
	cvt.u32.u64 	%r10, %rd5;
	mov.b32 	%r11, 0;
	@%p3 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{group} [%r10], [%rd4, {{%r11, %r11}}], [{bar}];
	mov.b32 	%r7, 0;
	@!%p4 bra 	$DONE;
	{{ .reg .pred done; wait: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%r3], %r7; @!done bra wait; }}
	mov.b32 	%r12, 1;
	mapa.shared::cluster.u32 	%r13, %r10, %r12;
	ld.param.b64 	%rd6, [k_param_0];
	mov.b32 	%r14, 0;
$COPY:
	add.s32 	%r15, %r13, %r14;
	ld.shared::cluster.b32 	%r16, [%r15];
	cvt.u64.u32 	%rd7, %r14;
	add.s64 	%rd8, %rd6, %rd7;
	st.global.b32 	[%rd8], %r16;
	add.s32 	%r14, %r14, 4;
	setp.lt.u32 	%p8, %r14, 1024;
	@%p8 bra 	$COPY;
$DONE:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
"""


def tma_run(group: str, bar: str = "%r4", schedule: str = "late"):
    source = (np.arange(16 * 64, dtype=np.uint32) * 40503 % 65521).astype(np.uint16)
    source = source.reshape(16, 64)  # 16 rows of 64 16-bit elements, 128 bytes apart
    box = TensorMap("k_param_1", dims=(64, 16), strides=(128,), box=(32, 16), swizzle="none")
    out = np.zeros(256, np.uint32)
    body = PROLOGUE.format(count=1) + TMA.format(group=group, bar=bar)
    result, out = run(pair_kernel(body), out,
                      args={"k_param_1": source.reshape(-1), "k_param_2": box},
                      schedule=schedule)
    return result, out, source


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_a_pair_load_completes_on_the_peer_ctas_mbarrier(schedule):
    """The box (elements 0..31 of each of the 16 rows, innermost first: 64 bytes per row,
    no swizzle) lands in CTA 1's tile, row after row; the phase of CTA 0's mbarrier
    completes on CTA 0's expect_tx arrival and the 1024 bytes of CTA 1's copy; CTA 0's
    reads of CTA 1's tile after its wait are ordered after the copy (no race)."""
    result, out, source = tma_run(".cta_group::2", schedule=schedule)
    want = np.ascontiguousarray(source[:, :32]).view(np.uint32).reshape(-1)
    assert np.array_equal(out, want)
    assert not result.races


def test_without_cta_group_2_the_mbarrier_must_be_the_destinations():
    with pytest.raises(SimError, match="must be in the destination's CTA"):
        tma_run("")
    with pytest.raises(SimError, match="must be in the destination's CTA"):
        tma_run(".cta_group::1")


def test_reading_the_pair_load_without_the_wait_is_a_race():
    """The same copy, CTA 0 reading CTA 1's tile without waiting for the phase the copy
    completes: under the late schedule the copy has not landed, a race."""
    body = PROLOGUE.format(count=1) + TMA.format(group=".cta_group::2", bar="%r4").replace(
        "{ .reg .pred done; wait: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
        "done, [%r3], %r7; @!done bra wait; }", "")
    src = np.zeros(16 * 64, np.uint16)
    box = TensorMap("k_param_1", dims=(64, 16), strides=(128,), box=(32, 16), swizzle="none")
    result, _ = run(pair_kernel(body), np.zeros(256, np.uint32),
                    args={"k_param_1": src, "k_param_2": box})
    assert any("TMA load" in str(race) for race in result.races), result.races
