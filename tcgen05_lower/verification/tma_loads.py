"""TMA loads (tcgen05_lower.tma, docs/tma.md): the tensor-map parameter's box and swizzle
are the tile's, coordinates are one per box dimension, and every load's bytes are
expected by one mbarrier_expect_tx (9.7.13.15)."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.dialect.ops import MbarrierExpectTxOp, TmaLoadOp
from tcgen05_lower.verification.common import known_element_bits


class TmaRules:
    """TMA loads and their expected bytes. Mixed into tcgen05-verify's run (verifier.Verifier):
    reports with self.error and reads the per-kernel state verify_kernel sets up."""

    def check_tma(self, kernel, ops, info) -> None:
        """TMA loads (tcgen05_lower.tma, docs/tma.md): the tensor-map parameter's box and
        swizzle are the tile's, the tile's layout is one TMA box, coordinates are one per
        box dimension, every load's bytes are expected by an mbarrier_expect_tx before it
        on its mbarrier (9.7.13.15: a phase completes when its pending arrivals and its
        transaction count are both zero, so bytes not expected complete the phase early
        or underflow it), and an expect_tx that writes ``bytes`` expects exactly the
        bytes of the loads it covers."""
        for op in ops:
            if not TmaLoadOp.matches(op):
                continue
            element = d.type_info(TmaLoadOp(op).tile.type).element
            if known_element_bits(element) is None:
                # The tile's declaration is refused for its element type (check_smem_buffer
                # reports it); the byte counts below need every tile's element size.
                return
        covered = tma.cover(kernel)
        for op in ops:
            if TmaLoadOp.matches(op):
                self.check_tma_load(op, info, covered)
            elif MbarrierExpectTxOp.matches(op):
                written = tma.written_bytes(op)
                loads = covered.loads.get(op, [])
                want = covered.expected_bytes(op)
                if written is not None and written >= 1 << 20:
                    self.error(op, f"bytes = {written} exceeds the transaction count range "
                                   f"of an mbarrier (2^20 - 1, PTX ISA 9.7.13.15.2)")
                elif written is not None and written != want:
                    pair = (" in each CTA of the pair (both complete on the even CTA's "
                            "mbarrier, docs/cta-pairs.md)" if covered.ctas == 2 else "")
                    self.error(op, f"bytes = {written} is not the {want} bytes of the "
                                   f"{len(loads)} tcgen05.tma_load op(s) that follow it on "
                                   f"this mbarrier in its block{pair}: a phase completes "
                                   f"when its transaction count reaches zero (PTX ISA "
                                   f"9.7.13.15)")
                elif written is None and not loads:
                    self.error(op, "no tcgen05.tma_load follows this mbarrier_expect_tx on "
                                   "its mbarrier in its block, so its byte count cannot be "
                                   "computed: write bytes = N")

    def check_tma_load(self, op, info, covered) -> None:
        load = TmaLoadOp(op)
        first = load.barrier
        if str(first.type) not in ("!tcgen05.mbarrier", "index"):
            self.error(op, f"operand 2 of tcgen05.tma_load is its !tcgen05.mbarrier or, "
                           f"without one, its first index coordinate, not {first.type}")
            return
        if info.cta_group == 2 and not self.check_pair_tile(op, load.tile, "loaded"):
            return
        spec = tma.tensor_map_of(load.tensor_map)
        if spec is None:
            self.error(op, f"the tensor map of tcgen05.tma_load must be a kernel parameter "
                           f"with the argument attribute {tma.TENSOR_MAP_ATTR} = {{tensor = "
                           f"\"<array parameter>\", box = array<i64: ...>, swizzle = ...}} "
                           f"(docs/tma.md)")
            return
        if str(load.tensor_map.type) != "!llvm.ptr<1>":
            self.error(op, f"the tensor-map parameter is {load.tensor_map.type}; it must be "
                           f"!llvm.ptr<1>, the global address of the CUtensorMap "
                           f"(docs/tma.md)")
        for problem in spec.problems:
            self.error(op, f"tensor-map parameter: {problem}")
        problem = tma.tile_problem(load.tile)
        if problem:
            self.error(op, problem)
        tile = d.type_info(load.tile.type)
        want = tma.tile_box(load.tile)
        if spec.box is not None and spec.box != want:
            order = (f"K = {tile.k}, rows = {tile.rows}" if tile.major == "K" else
                     f"rows = {tile.rows}, K = {tile.k}: the tile is MN-major")
            self.error(op, f"the tensor map's box {list(spec.box)} is not the tile's "
                           f"{list(want)} (innermost first: {order})")
        if spec.box is not None and any(not 1 <= b <= tma.MAX_BOX for b in spec.box):
            self.error(op, f"box {list(spec.box)}: every box dimension must be 1 to "
                           f"{tma.MAX_BOX} elements (cuTensorMapEncodeTiled)")
        if spec.swizzle is not None and spec.swizzle != tile.swizzle:
            self.error(op, f"the tensor map's swizzle \"{spec.swizzle}\" is not the "
                           f"tile's \"{tile.swizzle}\" (PTX ISA 5.5.6, Table 41)")
        coordinates = len(tma.load_coordinates(op))
        if spec.box is not None and coordinates != len(spec.box):
            self.error(op, f"{coordinates} coordinate(s) for a {len(spec.box)}-dimensional "
                           f"tensor map: one per dimension, innermost first")
        if tma.load_barrier(op) is None:
            if self.role_of.get(op) is None:
                self.error(op, "this tcgen05.tma_load names no mbarrier and is not in a "
                               "tcgen05.role: only tcgen05-insert-sync's protocol for warp "
                               "roles chooses one (docs/tma.md); write the mbarrier operand "
                               "after the tile")
        elif covered.of_load.get(op) is None:
            self.error(op, "no tcgen05.mbarrier_expect_tx on this mbarrier precedes the "
                           "tma_load in its block (after the last wait or commit on it): "
                           "the phase would complete before the copy lands, or never "
                           "(PTX ISA 9.7.13.15)")
