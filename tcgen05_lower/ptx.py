"""PTX text of every instruction the lowering emits (pure Python, no MLIR).

Each builder returns one instruction (or a brace-scoped block) with the operand
placeholders it is given (``$0``, ``$1``, ... as ``nvvm.inline_ptx`` numbers them:
results first, then inputs). Qualifier order follows the syntax blocks of PTX ISA 9.7.16.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower.isa.errors import IsaRuleError


def _cta(cta_group: int) -> str:
    if cta_group not in (1, 2):
        raise IsaRuleError("9.7.16.5", f"cta_group = {cta_group} is not 1 or 2")
    return f".cta_group::{cta_group}"


# 9.7.16.7.1 ------------------------------------------------------------- allocation

def alloc(cta_group: int, dst: str, ncols: str) -> str:
    """tcgen05.alloc.cta_group.sync.aligned.shared::cta.b32 [dst], nCols (9.7.16.7.1)."""
    return f"tcgen05.alloc{_cta(cta_group)}.sync.aligned.shared::cta.b32 [{dst}], {ncols};"


def dealloc(cta_group: int, taddr: str, ncols: str) -> str:
    """tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols (9.7.16.7.1)."""
    return f"tcgen05.dealloc{_cta(cta_group)}.sync.aligned.b32 {taddr}, {ncols};"


def relinquish_alloc_permit(cta_group: int) -> str:
    """tcgen05.relinquish_alloc_permit.cta_group.sync.aligned (9.7.16.7.1)."""
    return f"tcgen05.relinquish_alloc_permit{_cta(cta_group)}.sync.aligned;"


# 9.7.16.10.9.1 ----------------------------------------------------------------- mma

#: The .collector_usage buffers (::a for tcgen05.mma / .sp, ::b0-::b3 for .ws / .ws.sp)
#: and operations of 9.7.16.10.9.1 and 9.7.16.10.9.3.
COLLECTOR_BUFFERS = ("a", "b0", "b1", "b2", "b3")
COLLECTOR_OPS = ("fill", "use", "lastuse", "discard")
#: The .scale_vectorsize qualifiers of 9.7.16.10.9.1 (syntax forms 2 and 4).
SCALE_VECTORSIZES = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")


def mma(cta_group: int, kind: str, d: str, a: str, b: str, idesc: str, enable_input_d: str,
        *, a_in_tmem: bool = False, sparse_metadata: str | None = None, ws: bool = False,
        scale_a: str | None = None, scale_b: str | None = None,
        scale_vectorsize: str | None = None, collector: tuple[str, str] | None = None,
        ashift: bool = False, disable_output_lane: list[str] | None = None,
        scale_input_d: int | None = None, zero_column_mask: str | None = None) -> str:
    """One tcgen05.mma / .mma.sp / .mma.ws / .mma.ws.sp instruction (9.7.16.10.9.1-4).

    Qualifiers in the order of the syntax blocks: ``.ws``, ``.sp``, ``.cta_group``,
    ``.kind``, ``.block_scale{.scale_vectorsize}`` (when `scale_a`/`scale_b` are given),
    ``.ashift``, ``.collector::buffer::op``. Operands: ``[d-tmem], a-desc | [a-tmem],
    b-desc, {[sp-meta-tmem],} idesc, {{disable-output-lane},} {[scale-A-tmem],
    [scale-B-tmem],} enable-input-d {, scale-input-d} {, zero-column-mask-desc}``.
    `scale_input_d` is an immediate (0-15); every other operand is a placeholder.
    Structural combinations the syntax does not have raise ``IsaRuleError``; the
    semantic rules (Table 39, targets, ...) are tcgen05-verify's.
    """
    rule = "9.7.16.10.9"
    block_scale = scale_a is not None or scale_b is not None
    if block_scale and (scale_a is None or scale_b is None):
        raise IsaRuleError(rule, "block scaling needs both scale-A-tmem and scale-B-tmem")
    if scale_vectorsize is not None and (not block_scale
                                         or scale_vectorsize not in SCALE_VECTORSIZES):
        raise IsaRuleError(rule, f".{scale_vectorsize} needs .block_scale and is one of "
                                 f"{', '.join(SCALE_VECTORSIZES)}")
    if block_scale and (disable_output_lane is not None or scale_input_d is not None):
        raise IsaRuleError(rule, "the .block_scale forms take neither disable-output-lane "
                                 "nor scale-input-d")
    if ws and (cta_group != 1 or ashift or block_scale or disable_output_lane is not None
               or scale_input_d is not None):
        raise IsaRuleError("9.7.16.10.9.3", "tcgen05.mma.ws is cta_group::1 only, without "
                                            ".ashift, .block_scale, disable-output-lane or "
                                            "scale-input-d")
    if zero_column_mask is not None and not ws:
        raise IsaRuleError(rule, "zero-column-mask-desc is an operand of tcgen05.mma.ws only")
    if ashift and not a_in_tmem:
        raise IsaRuleError(rule, ".ashift needs A in tensor memory ([a-tmem])")
    if collector is not None:
        buffer, op = collector
        buffers = COLLECTOR_BUFFERS[1:] if ws else COLLECTOR_BUFFERS[:1]
        if op not in COLLECTOR_OPS or buffer not in buffers:
            raise IsaRuleError(rule, f".collector::{buffer}::{op} is not a collector usage "
                                     f"of tcgen05.mma{'.ws' if ws else ''}")
    if scale_input_d is not None and not 0 <= scale_input_d <= 15:
        raise IsaRuleError(rule, f"scale-input-d = {scale_input_d} is outside [0, 15]")

    name = "tcgen05.mma" + (".ws" if ws else "") + (".sp" if sparse_metadata else "")
    name += f"{_cta(cta_group)}.kind::{kind}"
    if block_scale:
        name += ".block_scale" + (f".{scale_vectorsize}" if scale_vectorsize else "")
    if ashift:
        name += ".ashift"
    if collector is not None:
        name += f".collector::{collector[0]}::{collector[1]}"
    operands = [f"[{d}]", f"[{a}]" if a_in_tmem else a, b]
    if sparse_metadata:
        operands.append(f"[{sparse_metadata}]")
    operands.append(idesc)
    if disable_output_lane is not None:
        operands.append("{" + ", ".join(disable_output_lane) + "}")
    if block_scale:
        operands += [f"[{scale_a}]", f"[{scale_b}]"]
    operands.append(enable_input_d)
    if scale_input_d is not None:
        operands.append(str(scale_input_d))
    if zero_column_mask is not None:
        operands.append(zero_column_mask)
    return f"{name} {', '.join(operands)};"


# 9.7.16.9.2 / 9.7.16.9.3 ------------------------------------------------------ cp, shift

#: .shape of tcgen05.cp, and the .multicast each shape requires (9.7.16.9.2: ".64x128b
#: requires .warpx2::02_13 or .warpx2::01_23", ".32x128b requires .warpx4").
CP_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
CP_MULTICAST = MappingProxyType({"64x128b": ("warpx2::02_13", "warpx2::01_23"),
                                 "32x128b": ("warpx4",)})
#: .src_fmt of the optional decompression (to .dst_fmt .b8x16, 9.7.16.9.1).
CP_SOURCE_FORMATS = ("b6x16_p32", "b4x16_p64")


def cp(cta_group: int, shape: str, taddr: str, sdesc: str, *, multicast: str | None = None,
       source_format: str | None = None) -> str:
    """tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc
    (9.7.16.9.2)."""
    rule = "9.7.16.9.2"
    if shape not in CP_SHAPES:
        raise IsaRuleError(rule, f"tcgen05.cp shape .{shape} is not one of "
                                 f"{', '.join(CP_SHAPES)}")
    if multicast not in (CP_MULTICAST.get(shape, ()) or (None,)):
        wanted = " or ".join("." + m for m in CP_MULTICAST.get(shape, ())) or "no .multicast"
        raise IsaRuleError(rule, f".{shape} requires {wanted} (got "
                                 f"{'.' + multicast if multicast else 'none'})")
    if source_format is not None and source_format not in CP_SOURCE_FORMATS:
        raise IsaRuleError(rule, f".{source_format} is not a decompression source format "
                                 f"({', '.join(CP_SOURCE_FORMATS)})")
    text = f"tcgen05.cp{_cta(cta_group)}.{shape}"
    if multicast:
        text += f".{multicast}"
    if source_format:
        text += f".b8x16.{source_format}"
    return f"{text} [{taddr}], {sdesc};"


def shift_down(cta_group: int, taddr: str) -> str:
    """tcgen05.shift.cta_group.down [taddr] (9.7.16.9.3; the order of the syntax block,
    not of its examples, which put .down first: ptxas 13 takes both)."""
    return f"tcgen05.shift{_cta(cta_group)}.down [{taddr}];"


# 9.7.16.8.3 / 9.7.16.8.4 / 9.7.16.8.5 ------------------------------- ld, ld.red, st, wait

_LDST_SHAPES = ("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2")
_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)


def _ldst_qualifiers(rule: str, shape: str, num: int, registers: list[str],
                     half_split: int | None) -> str:
    """Checks .shape, .num, the register count (Tables 47/48) and immHalfSplitoff (only
    and always with .16x32bx2); returns ", imm" or ""."""
    from tcgen05_lower.isa.fragments import registers_per_thread

    if shape not in _LDST_SHAPES:
        raise IsaRuleError(rule, f".{shape} is not a tcgen05.ld/st shape")
    if num not in _NUMS:
        raise IsaRuleError(rule, f".x{num} is not a .num")
    expected = registers_per_thread(shape, num)
    if len(registers) != expected:
        raise IsaRuleError("Table 47", f".{shape}.x{num} takes {expected} registers, not "
                                       f"{len(registers)}")
    if (shape == "16x32bx2") != (half_split is not None):
        raise IsaRuleError(rule, "immHalfSplitoff is required with .16x32bx2 and only there")
    return f", {half_split}" if half_split is not None else ""


def ld(shape: str, num: int, dests: list[str], taddr: str, *, half_split: int | None = None,
       pack16: bool = False) -> str:
    """tcgen05.ld.sync.aligned.<shape>.x<num>{.pack::16b}.b32 {dests}, [taddr]{, imm}."""
    tail = _ldst_qualifiers("9.7.16.8.3", shape, num, dests, half_split)
    pack = ".pack::16b" if pack16 else ""
    regs = "{" + ", ".join(dests) + "}"
    return f"tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32 {regs}, [{taddr}]{tail};"


def ld_red(shape: str, num: int, red_op: str, type_: str, dests: list[str], redval: str,
           taddr: str, *, half_split: int | None = None, abs_: bool = False,
           nan: bool = False) -> str:
    """tcgen05.ld.red.sync.aligned.<shape>.x<num>.<min|max>{.abs}{.NaN}.<type>
    {dests}, redval, [taddr]{, imm} (9.7.16.8.3): .32x32b or .16x32bx2, .num at least
    .x2, .abs and .NaN only with .f32."""
    rule = "9.7.16.8.3"
    tail = _ldst_qualifiers(rule, shape, num, dests, half_split)
    if shape not in ("32x32b", "16x32bx2"):
        raise IsaRuleError(rule, f"tcgen05.ld.red has no .{shape} (.32x32b, .16x32bx2)")
    if num < 2:
        raise IsaRuleError(rule, f"with .red, .num must be at least .x2, not .x{num}")
    if red_op not in ("min", "max"):
        raise IsaRuleError(rule, f".{red_op} is not a .redOp (.min, .max)")
    if type_ not in ("f32", "u32", "s32"):
        raise IsaRuleError(rule, f".{type_} is not a tcgen05.ld.red type (.f32, .u32, .s32)")
    if (abs_ or nan) and type_ != "f32":
        raise IsaRuleError(rule, ".abs and .NaN are only for .f32")
    flags = (".abs" if abs_ else "") + (".NaN" if nan else "")
    regs = "{" + ", ".join(dests) + "}"
    return (f"tcgen05.ld.red.sync.aligned.{shape}.x{num}.{red_op}{flags}.{type_} {regs}, "
            f"{redval}, [{taddr}]{tail};")


def st(shape: str, num: int, taddr: str, sources: list[str], *,
       half_split: int | None = None, unpack16: bool = False) -> str:
    """tcgen05.st.sync.aligned.<shape>.x<num>{.unpack::16b}.b32 [taddr]{, imm}, {sources}
    (9.7.16.8.4)."""
    split = _ldst_qualifiers("9.7.16.8.4", shape, num, sources, half_split)
    unpack = ".unpack::16b" if unpack16 else ""
    regs = "{" + ", ".join(sources) + "}"
    return f"tcgen05.st.sync.aligned.{shape}.x{num}{unpack}.b32 [{taddr}]{split}, {regs};"


def wait(kind: str) -> str:
    """tcgen05.wait::ld or tcgen05.wait::st (9.7.16.8.5)."""
    if kind not in ("ld", "st"):
        raise IsaRuleError("9.7.16.8.5", f"wait kind '{kind}' is not ld or st")
    return f"tcgen05.wait::{kind}.sync.aligned;"


# 9.7.16.11.1 / 9.7.16.12.1 ------------------------------------------- fence, commit

def fence(kind: str) -> str:
    """tcgen05.fence::before_thread_sync / ::after_thread_sync (9.7.16.11.1)."""
    if kind not in ("before_thread_sync", "after_thread_sync"):
        raise IsaRuleError("9.7.16.11.1", f"fence kind '{kind}' is not before_thread_sync "
                                          f"or after_thread_sync")
    return f"tcgen05.fence::{kind};"


def commit(cta_group: int, mbar: str, *, cta_mask: str | None = None) -> str:
    """tcgen05.commit.cta_group.mbarrier::arrive::one.shared::cluster{.multicast::cluster}.b64
    [mbar] {, ctaMask} (9.7.16.12.1); `cta_mask` is a 16-bit operand."""
    # .shared::cluster: a shared::cta address of the executing CTA is a valid
    # shared::cluster address (9.7.16.12.1).
    if cta_mask is None:
        return (f"tcgen05.commit{_cta(cta_group)}.mbarrier::arrive::one.shared::cluster.b64 "
                f"[{mbar}];")
    return (f"tcgen05.commit{_cta(cta_group)}.mbarrier::arrive::one.shared::cluster"
            f".multicast::cluster.b64 [{mbar}], {cta_mask};")


# mbarriers, proxy fence and barriers (used around tcgen05, outside 9.7.16) ------------

def mbarrier_init(mbar: str, count: str) -> str:
    return f"mbarrier.init.shared::cta.b64 [{mbar}], {count};"


def fence_mbarrier_init() -> str:
    return "fence.mbarrier_init.release.cluster;"


def mbarrier_wait_parity(mbar: str, parity: str) -> str:
    """Waits until the phase of the mbarrier with `parity` has completed: try_wait
    (9.7.13.15.16) until it reports the phase complete (9.7.16.6.4.2 example 2). The loop
    is a label and a branch inside one braced PTX block, whose label is local to it, so
    the block can appear any number of times in a kernel; the branch is not .uni, since
    the threads of a warp may see the phase complete on different tries."""
    return ("{ .reg .pred tcgen05_done; tcgen05_wait: "
            f"mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [{mbar}], {parity}; "
            "@!tcgen05_done bra tcgen05_wait; }")


def tma_load_2d(dst: str, tensor_map: str, c0: str, c1: str, mbar: str) -> str:
    """cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    [dstMem], [tensorMap, {c0, c1}], [mbar] (PTX ISA 9.7.9.25.5.1): the box of the tensor
    map at element coordinates (c0, c1), innermost first, into shared memory, signalling
    complete_tx of its bytes on the mbarrier. A shared::cta address of the executing CTA
    is a valid shared::cluster address; the tensor map is a generic address."""
    return (f"cp.async.bulk.tensor.2d.shared::cluster.global.tile"
            f".mbarrier::complete_tx::bytes [{dst}], [{tensor_map}, {{{c0}, {c1}}}], "
            f"[{mbar}];")


def tma_load_2d_pair(dst: str, tensor_map: str, c0: str, c1: str, mbar: str) -> str:
    """The CTA-pair form of ``tma_load_2d``: ``.cta_group::2`` after the completion
    mechanism, whose mbarrier may be in the shared memory of the executing CTA or of its
    peer (PTX ISA 9.7.9.25.5.1); `mbar` is a shared::cluster address (``mapa``). The
    destination stays the executing CTA's own tile."""
    return (f"cp.async.bulk.tensor.2d.shared::cluster.global.tile"
            f".mbarrier::complete_tx::bytes.cta_group::2 [{dst}], "
            f"[{tensor_map}, {{{c0}, {c1}}}], [{mbar}];")


def tma_load_2d_multicast(dst: str, tensor_map: str, c0: str, c1: str, mbar: str,
                          cta_mask: str, cta_group: int) -> str:
    """``tma_load_2d`` with ``.multicast::cluster`` (and ``.cta_group::2`` for a pair),
    PTX ISA 9.7.9.25.5.1, cp.async.bulk.tensor: the box lands at the same CTA-relative
    offset as `dst` in the shared memory of every CTA whose %cluster_ctarank bit the
    16-bit `cta_mask` sets, and each destination's complete_tx signals the mbarrier at
    the same CTA-relative offset as `mbar` (with .cta_group::2, in the destination or
    its peer, as `mbar` names the issuing CTA or its peer)."""
    group = ".cta_group::2" if cta_group == 2 else ""
    return (f"cp.async.bulk.tensor.2d.shared::cluster.global.tile"
            f".mbarrier::complete_tx::bytes.multicast::cluster{group} [{dst}], "
            f"[{tensor_map}, {{{c0}, {c1}}}], [{mbar}], {cta_mask};")


def mapa(dst: str, address: str, rank: str) -> str:
    """``mapa.shared::cluster.u32 dst, address, rank`` (PTX ISA, "mapa"): the
    shared::cluster address of the variable at shared::cta `address` in the CTA of
    cluster rank `rank`."""
    return f"mapa.shared::cluster.u32 {dst}, {address}, {rank};"


def mbarrier_arrive_cluster(mbar: str) -> str:
    """One arrival of the executing thread on the mbarrier at shared::cluster address
    `mbar` (from ``mapa``, possibly another CTA's), released at cluster scope
    (9.7.13.15.13; only the sink ``_`` may take the state of a shared::cluster arrive),
    so that a thread of the other CTA that observes the phase complete (try_wait with
    .acquire.cluster) sees what this thread did before."""
    return f"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [{mbar}];"


def mbarrier_wait_parity_cluster(mbar: str, parity: str) -> str:
    """``mbarrier_wait_parity`` with ``.acquire.cluster`` semantics (9.7.13.15.16): the
    wait on an mbarrier that threads or copies of the other CTA of a pair complete, so
    that it acquires what their cluster-scope release published."""
    return ("{ .reg .pred tcgen05_done; tcgen05_wait: "
            f"mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tcgen05_done, "
            f"[{mbar}], {parity}; @!tcgen05_done bra tcgen05_wait; }}")


def mbarrier_arrive_expect_tx(mbar: str, nbytes: str) -> str:
    """mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], txCount (PTX ISA
    9.7.13.15.13): expect-tx of txCount bytes, then one arrive-on, the state discarded."""
    return f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [{mbar}], {nbytes};"


def fence_proxy_async() -> str:
    return "fence.proxy.async.shared::cta;"


def barrier_sync(barrier_id: int = 0, threads: int | None = None) -> str:
    """barrier.sync a{, b} (9.7.13.1): barrier a of the CTA; with b, the b threads (a
    multiple of the warp size) that take part, else every thread of the CTA."""
    if threads is None:
        return f"barrier.sync {barrier_id};"
    return f"barrier.sync {barrier_id}, {threads};"


def mbarrier_arrive(mbar: str) -> str:
    """mbarrier.arrive with release semantics at CTA scope, state discarded (9.7.13.15.13):
    one arrival of the executing thread, which also releases its prior memory accesses
    to a thread that observes the phase complete."""
    return f"mbarrier.arrive.release.cta.shared::cta.b64 _, [{mbar}];"


def cluster_barrier() -> str:
    """A barrier over every thread of the cluster: arrive (release) then wait (acquire),
    used where a CTA pair (cta_group::2, 9.7.16.5.1) must act as one. Not .aligned
    (9.7.13.2: .aligned requires every thread of the warp to execute the same barrier
    instruction together): it follows code whose threads may take different paths, such
    as a fill of an edge tile whose elements past the matrix are zeroed, as the CTA
    barrier (barrier.sync, not .aligned) does."""
    return "barrier.cluster.arrive; barrier.cluster.wait;"
