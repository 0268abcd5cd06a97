"""TMEM buffers that name another buffer's cells (``alias`` on ``tcgen05.tmem_buffer``).

A buffer with ``alias = "X"`` has no cells of its own: it is the buffer named X (its
*parent*) seen with another element type, shape and role, ``alias_column`` 32-bit columns
into each stage of X and on X's lanes. FlashAttention-4 and CUTLASS's sm100 FMHA write P
(bf16, the A operand of O += P V) over the f32 scores S it was computed from: a [128, 64]
bf16 A operand packs two elements per 32-bit column (tmem-facts section 1, "A in TMEM":
rows on lanes as D, packed elements along the columns), so it takes 32 of S's 64 columns.

What follows from it, stage by stage:

- tcgen05-verify (:func:`alias_problems`): the parent exists, is declared before the
  alias and is no alias itself; same rows (the same lanes) and stage count;
  ``alias_column`` >= 0.
- tcgen05-select-layouts chooses the alias's layout and footprint as any buffer's.
- tcgen05-plan-tmem (:func:`footprint_problem`): the alias has the parent's data-path
  layout and lane halves (its rows sit on the lanes the parent's occupy) and its
  footprint lies inside one stage of the parent; it is not placed: its accesses count as
  accesses to the parent (``planning.program``), so the parent is live while either is,
  and it is written back with the parent's lane offset, column offset + ``alias_column``
  and stage layout and stride.
- After planning it is an ordinary placed buffer whose cells overlap its parent's:
  the lowering, tcgen05-verify-sync and the simulator see the overlap from the addresses.

The ISA states no column alignment for the ``a-tmem`` address of tcgen05.mma (9.7.16.10.9.1
describes the operand; only Layouts F and C constrain a lane field, 9.7.16.10.5, which the
alias takes from its parent) and the planner places A buffers at any column, so any
``alias_column`` whose footprint fits is accepted.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import TmemBufferOp


def alias_name(op) -> str | None:
    """The parent's name of an alias buffer, None for an ordinary one."""
    return TmemBufferOp(op).alias


def parents(buffers) -> dict:
    """alias op -> its parent op, for the `buffers` (``tcgen05.tmem_buffer`` ops in program
    order) whose parent is found: the last buffer before it of that name. One pass."""
    named: dict = {}
    found: dict = {}
    for op in buffers:
        typed = TmemBufferOp(op)
        alias = typed.alias
        if alias is not None and alias in named:
            found[op] = named[alias]
        if typed.name:
            named[typed.name] = op
    return found


def alias_problems(buffers) -> list[tuple[object, str]]:
    """(op, message) of every alias whose declaration breaks a rule of the module
    docstring that holds before layouts are chosen."""
    problems = []
    found = parents(buffers)
    for op in buffers:
        typed = TmemBufferOp(op)
        alias = typed.alias
        if alias is None:
            continue
        parent = found.get(op)
        if parent is None:
            problems.append((op, f"TMEM alias of {alias!r}: no tcgen05.tmem_buffer named "
                                 f"{alias!r} is declared before it"))
            continue
        if TmemBufferOp(parent).alias is not None:
            problems.append((op, f"TMEM alias of {alias!r}, itself an alias of "
                                 f"{TmemBufferOp(parent).alias!r}: name the buffer that "
                                 f"owns the cells"))
            continue
        mine, theirs = d.type_info(op.results[0].type), d.type_info(parent.results[0].type)
        if mine.shape[-2] != theirs.shape[-2]:
            problems.append((op, f"TMEM alias {mine.text()} of {alias!r} "
                                 f"({theirs.text()}): {mine.shape[-2]} rows over "
                                 f"{theirs.shape[-2]}; an alias has its parent's rows, on "
                                 f"the same lanes"))
        elif mine.stages != theirs.stages or len(mine.shape) != len(theirs.shape):
            problems.append((op, f"TMEM alias {mine.text()} of {alias!r} "
                                 f"({theirs.text()}): {mine.stages} stage(s) over "
                                 f"{theirs.stages}; an alias has one stage per stage of "
                                 f"its parent"))
        elif typed.alias_column < 0:
            problems.append((op, f"TMEM alias of {alias!r}: alias_column "
                                 f"{typed.alias_column} is negative"))
    return problems


def footprint_problem(op, parent) -> str | None:
    """Why the planned footprint of alias `op` does not lie on its parent's cells (both
    with the layouts and columns tcgen05-select-layouts wrote), or None."""
    mine, theirs = TmemBufferOp(op), TmemBufferOp(parent)
    if (mine.layout, bool(mine.half_lanes)) != (theirs.layout, bool(theirs.half_lanes)):
        return (f"TMEM alias of {mine.alias!r} has Layout {mine.layout} but its parent "
                f"Layout {theirs.layout}: the alias's rows must sit on the lanes the "
                f"parent's occupy (9.7.16.10.5)")
    end = mine.alias_column + mine.columns
    if end > theirs.columns:
        return (f"TMEM alias of {mine.alias!r} takes columns {mine.alias_column} to "
                f"{end - 1} of its parent ({mine.columns} columns from alias_column "
                f"{mine.alias_column}), which has {theirs.columns} per stage")
    return None


def report_note(op, parent) -> str:
    """The plan report's line on alias `op` (before the rewrite)."""
    mine, theirs = TmemBufferOp(op), TmemBufferOp(parent)
    label = f"%{mine.name}" if mine.name else "an alias"
    first = mine.alias_column
    t = d.type_info(op.results[0].type)
    each = "each stage of " if t.stages > 1 else ""
    parent = f"%{theirs.name}" if theirs.name else "its parent"
    return (f"{label} ({t.text()}, role {mine.role}) takes no columns of its own: it is "
            f"columns {first}-{first + mine.columns - 1} of {each}{parent}")


def rewrite(op, parent, base) -> None:
    """Replaces alias `op` by a planned buffer on the cells of `parent` (planned: its
    lane_offset, column_offset, stage layout and stride written); `base` is the
    allocation's address."""
    planned = TmemBufferOp(parent)
    attrs = {name: op.attributes[name] for name in op.attributes}
    stage = {}
    if planned.has(TmemBufferOp.stage_layout):
        stage = dict(stage_layout=planned.stage_layout, stage_stride=planned.stage_stride)
    with ir.InsertionPoint(op), op.location:
        new = TmemBufferOp.build(
            base=base, result_types=[op.results[0].type], attributes=attrs,
            lane_offset=int(planned.lane_offset),
            column_offset=int(planned.column_offset + TmemBufferOp(op).alias_column),
            **stage)
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()
