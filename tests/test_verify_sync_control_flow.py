"""tcgen05-verify-sync on control flow beyond scf.for and on tracked-parity waits.

Each kernel is planned by hand; each expected result is derived by hand from the rules in
the pass docstring (PTX ISA 9.7.16.6.4, and mbarrier.try_wait.parity: a wait blocks only
when the parity it names is that of the phase the thread believes current), as the
comment of each test says.
"""

from __future__ import annotations

from test_sync_common import verify
from tcgen05_lower import dialect as d
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.pipeline import build_pass_manager, parse_pipeline

HEADER = '''!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
!acc32 = !tcgen05.tmem<[128, 32], f32>
!tb32 = !tcgen05.smem<[32, 16], bf16, "K", "none">
func.func @k(%C: !llvm.ptr<1>, %n: index, %flag: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 192 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %a2 = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc2 = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %b32 = "tcgen05.smem_buffer"() : () -> !tb32
  %upper = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc32
'''
FOOTER = "  return\n}\n"

MMA0 = '"tcgen05.mma"(%acc0, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()'
MMA1 = '"tcgen05.mma"(%acc1, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()'
COMMIT = '"tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()'
TRACKED = '"tcgen05.mbarrier_wait"(%bar) : (!tcgen05.mbarrier) -> ()'
FENCE_AFTER = '"tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()'
FENCE_BEFORE = '"tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()'
BARRIER = '"tcgen05.barrier"() : () -> ()'
WAIT_LD = '"tcgen05.wait"() {kind = "ld"} : () -> ()'


def kernel(body: str) -> str:
    return HEADER + body + FOOTER


def line_of(text: str, needle: str, nth: int = 0) -> str:
    """``line:col`` of the nth op named `needle` in `text`, as messages name it (an op's
    location is its name, after any results)."""
    hits = [(i + 1, line) for i, line in enumerate(text.split("\n")) if needle in line]
    number, line = hits[nth]
    column = line.index(needle)
    if line[column - 1] == '"':  # a generic op: its location is the opening quote
        column -= 1
    return f"{number}:{column + 1}"


def ld(name: str, buffer: str, column: str = "%c0", indent: str = "  ") -> str:
    return (f'{indent}{name} = "tcgen05.ld"({buffer}, {column}) : (!acc, index) -> !frag\n'
            f'{indent}"tcgen05.store_fragment"({name}, %C, %c0) {{ld = 64 : i64}} : '
            f'(!frag, !llvm.ptr<1>, index) -> ()\n')


def lines(*ops: str, indent: str = "  ") -> str:
    return "".join(f"{indent}{op}\n" for op in ops)


RAW_UNCOMMITTED = ("without ordering: missing tcgen05.commit -> mbarrier wait -> "
                   "tcgen05.fence::after_thread_sync (9.7.16.6.4.4)")


def test_tracked_waits_in_a_loop_complete_each_commit():
    # Iteration k issues commit k+1; the tracked wait's parity is (k+1 - 1) mod 2 = k mod
    # 2, the parity of phase k, which the thread believes current (it saw phases 0..k-1):
    # it blocks until phase k completes, so the mma is complete; the fence then orders
    # the ld (9.7.16.6.4.4). wait::ld -> fence::before -> barrier -> fence::after order
    # the ld before the next mma and separate the wait from the next commit. Ordered.
    body = ("  scf.for %i = %c0 to %c4 step %c1 {\n"
            + lines(MMA0, COMMIT, TRACKED, FENCE_AFTER, indent="    ")
            + ld("%x", "%acc0", indent="    ")
            + lines(WAIT_LD, FENCE_BEFORE, BARRIER, FENCE_AFTER, indent="    ")
            + "  }\n")
    assert verify(kernel(body)) == []


def test_commit_in_a_branch_inside_a_loop():
    # The commit sits in an scf.if on a value that does not evaluate. After the first
    # iteration the ways have issued 1 or 0 commits. A tracked wait follows the way
    # taken: on the way through the branch it waits for the commit just issued (lag 1,
    # blocks, completes it). So the kernel is ordered. A wait with an explicit parity
    # (i mod 2) is right on some ways only: the pass reports it cannot check it.
    def body(wait: str) -> str:
        return ("  scf.for %i = %c0 to %c4 step %c1 {\n"
                + lines(WAIT_LD, FENCE_BEFORE, BARRIER, FENCE_AFTER, indent="    ")
                + "    scf.if %flag {\n"
                + lines(MMA0, COMMIT, wait, FENCE_AFTER, indent="      ")
                + ld("%x", "%acc0", indent="      ")
                + "    }\n  }\n")
    assert verify(kernel(body(TRACKED))) == []
    explicit = ('"tcgen05.mbarrier_wait"(%bar, %parity) : (!tcgen05.mbarrier, i32) -> ()')
    text = kernel(body(explicit)).replace(
        "    scf.if %flag {\n",
        "    %bit = arith.andi %i, %c1 : index\n"
        "    %parity = arith.index_cast %bit : index to i32\n"
        "    scf.if %flag {\n")
    errors = verify(text)
    assert len(errors) == 1, errors
    assert (f"the phase of this op's mbarrier is unknown here: the branches of the scf.if "
            f"at line {line_of(text, 'scf.if')} commit to it a different number of times"
            ) in errors[0]


def test_while_with_unknown_trips_then_a_tracked_wait():
    # scf.while on %n: exits after 0..3 iterations, each iteration committing once, so
    # the exits have 0..3 commits. Aligned on the most recent commit, every exit has
    # seen all of them. After the loop: mma, commit, tracked wait (blocks for the
    # commit just issued on every exit), fence, ld: ordered. An explicit parity 0 wait
    # instead is right after an odd number of iterations only: reported.
    loop = ('  %end = scf.while (%k = %c0) : (index) -> index {\n'
            '    %more = arith.cmpi ult, %k, %n : index\n'
            '    scf.condition(%more) %k : index\n'
            '  } do {\n'
            '  ^bb0(%j: index):\n'
            + lines(BARRIER, MMA1, COMMIT, TRACKED, FENCE_AFTER, indent="    ")
            + '    %next = arith.addi %j, %c1 : index\n'
            '    scf.yield %next : index\n'
            '  }\n')

    def after(wait: str) -> str:
        return lines(BARRIER, MMA0, COMMIT, wait, FENCE_AFTER) + ld("%x", "%acc0")
    assert verify(kernel(loop + after(TRACKED))) == []
    explicit = ('%p0 = arith.constant 0 : i32\n  "tcgen05.mbarrier_wait"(%bar, %p0) : '
                '(!tcgen05.mbarrier, i32) -> ()')
    text = kernel(loop + after(explicit))
    errors = verify(text)
    assert len(errors) == 1, errors
    assert (f"the phase of this op's mbarrier is unknown here: the exits of the scf.while "
            f"at line {line_of(text, 'scf.while')} commit to it a different number of "
            f"times") in errors[0]


def test_while_with_unknown_trips_runs_the_body_again():
    # Each iteration: ld, then (ordered: wait::ld, fence, barrier, fence) an mma on the
    # same cells with no commit. The second iteration's ld reads what the first
    # iteration's mma writes, unordered: the body must run more than once even though
    # the condition (%k < %n) does not evaluate.
    text = kernel('  %end = scf.while (%k = %c0) : (index) -> index {\n'
                  '    %more = arith.cmpi ult, %k, %n : index\n'
                  '    scf.condition(%more) %k : index\n'
                  '  } do {\n'
                  '  ^bb0(%j: index):\n'
                  + ld("%x", "%acc0", indent="    ")
                  + lines(WAIT_LD, FENCE_BEFORE, BARRIER, FENCE_AFTER, MMA0, indent="    ")
                  + '    %next = arith.addi %j, %c1 : index\n'
                  '    scf.yield %next : index\n'
                  '  }\n')
    assert verify(text) == [
        f"kernel.mlir:{line_of(text, 'tcgen05.ld')}: error: tcgen05.ld reads TMEM "
        f"columns [0, 32) that tcgen05.mma at line {line_of(text, 'tcgen05.mma')} writes, "
        + RAW_UNCOMMITTED]


def test_while_block_arguments_evaluate():
    # A tcgen05.st to columns [32, 64) with no wait::st, then a while whose condition
    # evaluates (%k < bound) loading columns [32 * j, 32 * j + 32). With bound 1 only
    # j = 0 runs: columns [0, 32), no conflict. With bound 2, j = 1 reads [32, 64): the
    # st needs tcgen05.wait::st first (9.7.16.6.4.2).
    def text(bound: str) -> str:
        return kernel(
            '  %in = "tcgen05.load_fragment"(%C, %c0) {ld = 32 : i64} : '
            '(!llvm.ptr<1>, index) -> !frag\n'
            '  "tcgen05.st"(%acc0, %c32, %in) : (!acc, index, !frag) -> ()\n'
            '  %end = scf.while (%k = %c0) : (index) -> index {\n'
            f'    %more = arith.cmpi ult, %k, {bound} : index\n'
            '    scf.condition(%more) %k : index\n'
            '  } do {\n'
            '  ^bb0(%j: index):\n'
            '    %col = arith.muli %j, %c32 : index\n'
            + ld("%x", "%acc0", "%col", indent="    ")
            + lines(WAIT_LD, indent="    ")
            + '    %next = arith.addi %j, %c1 : index\n'
            '    scf.yield %next : index\n'
            '  }\n')
    assert verify(text("%c1")) == []
    two = text("%c2")
    assert verify(two) == [
        f"kernel.mlir:{line_of(two, 'tcgen05.ld')}: error: tcgen05.ld reads TMEM columns "
        f"[32, 64) that tcgen05.st at line {line_of(two, 'tcgen05.st')} writes, without "
        f"ordering: missing tcgen05.wait::st (9.7.16.6.4.2)"]


def test_index_switch_results():
    # Uncommitted mmas on %acc0 and %acc1; a switch yields %acc0 (case 0), %acc1
    # (case 1) or %acc2 (default, untouched). With the index known (1) the ld reads
    # %acc1's columns [64, 96) only: one error, for the second mma. With the index
    # unknown it may read any of the three: errors for both mmas.
    def text(index: str) -> str:
        return kernel(
            lines(MMA0, MMA1)
            + f'  %pick = scf.index_switch {index} -> !acc\n'
            '  case 0 {\n    scf.yield %acc0 : !acc\n  }\n'
            '  case 1 {\n    scf.yield %acc1 : !acc\n  }\n'
            '  default {\n    scf.yield %acc2 : !acc\n  }\n'
            + ld("%x", "%pick"))
    known = text("%c1")
    mma1 = line_of(known, "tcgen05.mma", 1)
    assert verify(known) == [
        f"kernel.mlir:{line_of(known, 'tcgen05.ld')}: error: tcgen05.ld reads TMEM columns "
        f"[64, 96) that tcgen05.mma at line {mma1} writes, " + RAW_UNCOMMITTED]
    unknown = text("%n")
    errors = verify(unknown)
    assert [e.split(" that ")[0].split("error: ")[1] for e in errors] == [
        "tcgen05.ld reads TMEM columns [0, 32)", "tcgen05.ld reads TMEM columns [64, 96)"]


def test_for_iter_args_carry_buffers():
    # iter_args swap two buffers each iteration: iteration i does mma(cur) then
    # ld(other), with nothing ordering them. Iteration 0: mma(%acc0), ld(%acc1): no
    # conflict. Iteration 1: mma(%acc1), ld(%acc0), which the uncommitted mma of
    # iteration 0 writes: an error, so 1 trip is clean and 2 trips are not.
    def text(trips: str) -> str:
        return kernel(
            f'  %r:2 = scf.for %i = %c0 to {trips} step %c1 iter_args(%cur = %acc0, '
            '%other = %acc1) -> (!acc, !acc) {\n'
            '    "tcgen05.mma"(%cur, %a, %b, %t) {kind = "f16"} : '
            '(!acc, !ta, !tb, i1) -> ()\n'
            + ld("%x", "%other", indent="    ")
            + lines(WAIT_LD, FENCE_BEFORE, BARRIER, FENCE_AFTER, indent="    ")
            + '    scf.yield %other, %cur : !acc, !acc\n'
            '  }\n')
    assert verify(text("%c1")) == []
    two = text("%c2")
    assert verify(two) == [
        f"kernel.mlir:{line_of(two, 'tcgen05.ld')}: error: tcgen05.ld reads TMEM columns "
        f"[0, 32) that tcgen05.mma at line {line_of(two, 'tcgen05.mma')} writes, "
        + RAW_UNCOMMITTED]


def test_tile_through_an_if_result():
    # smem_fill writes a tile an scf.if on %flag picks (%a or %a2), then an mma reads
    # %a with no fence.proxy.async and barrier (9.7.16.6.5): the fill may have written
    # %a. With the pick known to be %a2 (condition false), no conflict.
    def text(condition: str) -> str:
        return kernel(
            f'  %tile = scf.if {condition} -> (!ta) {{\n    scf.yield %a : !ta\n'
            '  } else {\n    scf.yield %a2 : !ta\n  }\n'
            '  "tcgen05.smem_fill"(%C, %tile, %c0) {src_layout = "mn_k", src_ld = 16 : i64}'
            ' : (!llvm.ptr<1>, !ta, index) -> ()\n'
            + lines(MMA0))
    unknown = text("%flag")
    assert verify(unknown) == [
        f"kernel.mlir:{line_of(unknown, 'tcgen05.mma')}: error: tcgen05.mma reads a "
        f"shared-memory tile that tcgen05.smem_fill at line "
        f"{line_of(unknown, 'tcgen05.smem_fill')} writes through the generic proxy, "
        f"without ordering: missing fence.proxy.async -> barrier (9.7.16.6.5)"]
    assert verify(text("%f")) == []


def test_mbarrier_that_may_be_one_of_several():
    # A commit to an mbarrier an scf.if on %flag picks: which phase advances depends on
    # the way taken, which the pass reports rather than guess.
    text = kernel(
        '  %bar2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier\n'
        '  %mb = scf.if %flag -> (!tcgen05.mbarrier) {\n'
        '    scf.yield %bar : !tcgen05.mbarrier\n  } else {\n'
        '    scf.yield %bar2 : !tcgen05.mbarrier\n  }\n'
        + lines(MMA0, '"tcgen05.commit"(%mb) : (!tcgen05.mbarrier) -> ()'))
    errors = verify(text)
    assert len(errors) == 1 and "its mbarrier may be one of several" in errors[0], errors


def test_every_execution_on_either_way_is_kept():
    # A loop of 2 iterations with an scf.if on %flag that loads columns [32 * i, 32 * i +
    # 32) of %acc0 (no wait::ld). After the loop, an mma on %upper (columns [32, 64))
    # after fence::before -> barrier -> fence::after but no wait::ld: it conflicts with
    # the load of iteration 1 only, which ran on one way of the second scf.if. That
    # execution must survive the join next to iteration 0's load of the same op
    # (9.7.16.6.4.4: wait::ld is missing).
    text = kernel(
        "  scf.for %i = %c0 to %c2 step %c1 {\n"
        "    %col = arith.muli %i, %c32 : index\n"
        "    scf.if %flag {\n"
        + ld("%x", "%acc0", "%col", indent="      ")
        + "    }\n  }\n"
        + lines(FENCE_BEFORE, BARRIER, FENCE_AFTER,
                '"tcgen05.mma"(%upper, %a, %b32, %t) {kind = "f16"} : '
                '(!acc32, !ta, !tb32, i1) -> ()'))
    assert verify(text) == [
        f"kernel.mlir:{line_of(text, 'tcgen05.mma')}: error: tcgen05.mma writes TMEM "
        f"columns [32, 64) that tcgen05.ld at line {line_of(text, 'tcgen05.ld')} reads, "
        f"without ordering: missing tcgen05.wait::ld -> tcgen05.fence::before_thread_sync "
        f"-> barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)"]


def test_tracked_waits_on_two_arrivals_per_phase():
    # count = 2: two commits complete one phase. After one commit the tracked parity is
    # (1 - 1) mod 2 = 0, the parity of phase 0, which the thread believes current: the
    # wait blocks until phase 0 completes, which needs a second arrival that never
    # comes. After an scf.if on %flag that commits once on one way, the ways differ by
    # one commit, half a phase: no alignment keeps the phases, so the next wait is
    # reported as unchecked.
    two = '"tcgen05.alloc_mbarrier"() {count = 2 : i64}'
    hangs = kernel(lines(MMA0, COMMIT, TRACKED)).replace(
        '"tcgen05.alloc_mbarrier"() {count = 1 : i64}', two)
    assert verify(hangs) == [
        f"kernel.mlir:{line_of(hangs, 'tcgen05.mbarrier_wait')}: error: this wait for "
        f"parity 0 (that of the most recent tcgen05.commit to it) of the mbarrier needs "
        f"phase 0 to complete, but only 1 tcgen05.commit ops were issued to it before: it "
        f"never returns"]
    uneven = kernel(lines(MMA0, COMMIT) + "  scf.if %flag {\n" + lines(COMMIT, indent="    ")
                    + "  }\n" + lines(TRACKED)).replace(
        '"tcgen05.alloc_mbarrier"() {count = 1 : i64}', two)
    assert verify(uneven) == [
        f"kernel.mlir:{line_of(uneven, 'tcgen05.mbarrier_wait')}: error: the phase of this "
        f"op's mbarrier is unknown here: the branches of the scf.if at line "
        f"{line_of(uneven, 'scf.if')} commit to it a different number of times"]


def lift(text: str) -> str:
    """`text` after lift-cf-to-scf, with the locations of the original."""
    with d.make_context():
        module = parse_module(text, "kernel.mlir")
        build_pass_manager(parse_pipeline("lift-cf-to-scf")).run(module)
        return module.get_asm(enable_debug_info=True)


def test_cf_loop_lifted_to_scf_while():
    # A cf loop swapping two buffers through block arguments; lift-cf-to-scf makes it
    # an scf.while whose before region holds an scf.if that yields ub.poison on the
    # exit way (the values are not used there). Iteration i: mma(cur), ld(other), no
    # sync at all, with cur/other = acc0/acc1, then acc1/acc0, ... Iteration 0: nothing
    # conflicts. Iteration 1: mma(acc1) overwrites what ld(acc1) of iteration 0 reads
    # (WAR, 9.7.16.6.4.4: wait::ld -> fence::before -> barrier -> fence::after), and
    # ld(acc0) reads what mma(acc0) of iteration 0 writes (RAW: commit -> wait ->
    # fence::after). Later iterations repeat the same pairs (one error per pair). After
    # the loop, ld(cur) reads acc0 or acc1, both written by uncommitted mmas: one more.
    # The poison never widens a footprint: no "TMEM columns [0, 512)" anywhere.
    text = kernel(
        '  cf.br ^head(%c0, %acc0, %acc1 : index, !acc, !acc)\n'
        '^head(%i: index, %cur: !acc, %other: !acc):\n'
        '  %more = arith.cmpi ult, %i, %n : index\n'
        '  cf.cond_br %more, ^body, ^exit\n'
        '^body:\n'
        '  "tcgen05.mma"(%cur, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()\n'
        + ld("%x", "%other")
        + '  %i1 = arith.addi %i, %c1 : index\n'
        '  cf.br ^head(%i1, %other, %cur : index, !acc, !acc)\n'
        '^exit:\n'
        + ld("%y", "%cur"))
    mma, ld_body, ld_exit = (line_of(text, "tcgen05.mma"), line_of(text, "tcgen05.ld"),
                             line_of(text, "tcgen05.ld", 1))
    assert sorted(verify(lift(text))) == sorted([
        f"kernel.mlir:{mma}: error: tcgen05.mma writes TMEM columns [64, 128) that "
        f"tcgen05.ld at line {ld_body} reads, without ordering: missing "
        f"tcgen05.wait::ld -> tcgen05.fence::before_thread_sync -> barrier -> tcgen05.fence::after_thread_sync "
        f"(9.7.16.6.4.4)",
        f"kernel.mlir:{ld_body}: error: tcgen05.ld reads TMEM columns [0, 32) that "
        f"tcgen05.mma at line {mma} writes, " + RAW_UNCOMMITTED,
        f"kernel.mlir:{ld_exit}: error: tcgen05.ld reads TMEM columns [0, 32) that "
        f"tcgen05.mma at line {mma} writes, " + RAW_UNCOMMITTED])


def test_several_blocks_ask_for_lift_cf_to_scf():
    text = HEADER + "  cf.br ^bb1\n^bb1:\n" + FOOTER
    errors = verify(text)
    assert len(errors) == 1
    assert errors[0].endswith("run lift-cf-to-scf first (the default pipeline runs it "
                              "before planning)")
