"""Register fragments: ld / st / ld.red (Tables 47/48 and the .red rules of 9.7.16.8.3),
frag_map / frag_reduce / frag_broadcast (tcgen05_lower.computed), store_fragment and
load_fragment, and fragments carried by loops and branches."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import (frag_broadcast_problems, frag_map_problems,
                                    frag_reduce_problems, is_row_vector)
from tcgen05_lower.dialect.ops import LdRedOp, StOp, wrap
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.isa import fragments
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.votes import frag_vote_problems


#: The element types of tcgen05.ld.red (9.7.16.8.3: .f32, .u32, .s32).
LD_RED_TYPES = ("f32", "u32", "s32")


class FragmentRules:
    """TMEM accesses and register fragments. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_fragments_stay(self, ops) -> None:
        """A fragment is registers of each thread whose mapping to (row, column) the
        tcgen05 op that makes it decides (tcgen05-select-layouts plans it, the lowering
        follows it from op to op): it is an operand of tcgen05 ops, and an scf.for may
        carry a per-row value (a row vector: one register per row, held by the thread of
        the row) as an iteration argument, from an initial value to the value yielded for
        the next iteration, both row vectors (held alike). Any other select, branch, loop
        or call of a fragment is refused here, at that op, before any plan depends on
        it."""
        for op in ops:
            if d.op_name(op) is not None:
                continue
            for index, value in enumerate(op.operands):
                if not isinstance(d.type_info(value.type), d.FragType):
                    continue
                problem = self.carried_fragment_problem(op, index, value)
                if problem:
                    self.error(op, problem)
                    break

    def carried_fragment_problem(self, op, index: int, value) -> str | None:
        """What is wrong with fragment operand `index` of the non-tcgen05 `op` (None: an
        iteration argument's initial or yielded row vector)."""
        kind = d.type_info(value.type)
        parent = op.parent.operation if op.name == "scf.yield" else None
        if op.name == "scf.for" and index >= 3 or \
                op.name == "scf.yield" and parent is not None and parent.name == "scf.for":
            where = index - 3 if op.name == "scf.for" else index
            what = "initial value of" if op.name == "scf.for" else "value yielded for"
            if kind.shape[1] != 1:
                return (f"{op.name}: iteration argument #{where} is a {value.type}: an "
                        f"scf.for carries per-row values ([rows, 1], one register per row) "
                        f"only, not fragments of several columns, whose registers the "
                        f"message shapes planned for them decide")
            if not is_row_vector(value, self.row_memo):
                return (f"{op.name}: the {what} iteration argument #{where} is not a "
                        f"per-row value (a frag_reduce or ld_red result, a frag_map of no "
                        f"input or whose first input is one, or an iteration argument "
                        f"starting from one): the initial and the yielded value must be "
                        f"held alike, one register per row in the thread of the row")
            return None
        return (f"{op.name} takes a {value.type}: a fragment is an operand of tcgen05 ops "
                f"only, it cannot flow through selects, branches, loops or calls (an scf.for "
                f"may carry a per-row value as an iteration argument)")

    def check_fragment_access(self, op, info, buffer_index: int, frag) -> None:
        """Shared by ld, st and ld.red: fragment vs buffer, and Tables 47/48 when the
        message shape is given."""
        src = d.type_info(op.operands[buffer_index].type)
        if frag.shape[0] != src.rows:
            self.error(op, f"fragment has {frag.shape[0]} rows but the buffer has "
                           f"{src.rows}: a warpgroup load reads whole columns")
        if frag.shape[1] > src.cols:
            self.error(op, f"fragment of {frag.shape[1]} columns is wider than the buffer "
                           f"({src.cols} columns)")
        if frag.element != src.element:
            self.error(op, f"fragment element type {frag.element} differs from the "
                           f"buffer's {src.element}")
        access = wrap(op)
        if access.shape is None:
            return
        shape, num = access.shape, access.num
        table = "Table 48" if StOp.matches(op) else "Table 47"
        if num is None:
            # A shape-only request: tcgen05-select-layouts chooses .num (and
            # immHalfSplitoff) for it, so only the shape's name can be checked here.
            try:
                fragments.valid_nums(shape)
            except IsaRuleError as exc:
                self.rule(op, exc)
            return
        try:
            fragments.registers_per_thread(shape, num)
        except IsaRuleError as exc:
            self.error(op, f"{exc.message} ({table})")
            return
        if (shape == "16x32bx2") != access.has(type(access).half_split):
            self.error(op, "immHalfSplitoff (half_split) is given exactly with .16x32bx2 "
                           "(9.7.16.8.3)")

    def check_ld(self, op, info) -> None:
        if self.check_feature(op, "ld", info):
            self.check_fragment_access(op, info, 0, d.type_info(op.results[0].type))

    def check_st(self, op, info) -> None:
        if self.check_feature(op, "st", info):
            self.check_fragment_access(op, info, 0, d.type_info(op.operands[2].type))

    def check_ld_red(self, op, info) -> None:
        if not self.check_feature(op, "ld.red", info):
            return
        frag = d.type_info(op.results[0].type)
        self.check_fragment_access(op, info, 0, frag)
        red_op = LdRedOp(op)
        red = red_op.op
        if red not in ("min", "max"):
            self.error(op, f"op = \"{red}\" is not \"min\" or \"max\" (.redOp, 9.7.16.8.3)"
                           + did_you_mean(red, ("min", "max")))
        elt = {"i32": "s32", "si32": "s32", "ui32": "u32", "f32": "f32"}.get(frag.element)
        if elt not in LD_RED_TYPES:
            self.error(op, f"tcgen05.ld.red reduces f32, u32 or s32, not "
                           f"{isa_type(frag.element)} (9.7.16.8.3)")
        elif elt != "f32" and (red_op.abs or red_op.nan):
            self.error(op, f".abs and .NaN are only for f32 reductions, not {elt} "
                           f"(9.7.16.8.3)")
        if red_op.shape is not None:
            shape, num = red_op.shape, red_op.num
            if shape not in ("32x32b", "16x32bx2"):
                self.error(op, f"tcgen05.ld.red takes .32x32b or .16x32bx2, not .{shape} "
                               f"(9.7.16.8.3)")
            elif num is not None and num < 2:
                self.error(op, f"with .red, .num must be at least .x2, got .x{num} "
                               f"(9.7.16.8.3)")

    def check_frag_map(self, op, info) -> None:
        for where, message in frag_map_problems(op, self.row_memo):
            self.error(where, message)

    def check_frag_reduce(self, op, info) -> None:
        for message in frag_reduce_problems(op, self.row_memo):
            self.error(op, message)

    def check_frag_broadcast(self, op, info) -> None:
        for message in frag_broadcast_problems(op, self.row_memo):
            self.error(op, message)

    def check_frag_vote(self, op, info) -> None:
        for message in frag_vote_problems(op, self.row_memo):
            self.error(op, message)

    def check_store_fragment(self, op, info) -> None:
        self.check_global_matrix(op)

    def check_load_fragment(self, op, info) -> None:
        self.check_global_matrix(op)
