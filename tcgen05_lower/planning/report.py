"""What ``tcgen05-plan-tmem`` decided, for people and for tools: a text table, a JSON
document and an SVG picture.

JSON (``--report-json FILE``, pass option ``json=FILE``)::

    {"schema_version": 1,
     "kernels": [{"name", "strategy", "allocation_columns", "peak_columns",
                  "lower_bound_columns",
                  "buffers": [{"name", "loc", "shape", "element_type", "layout",
                               "lane_offset", "lanes", "columns": [start, end),
                               "live": [first, last],
                               "live_locs": [first op's loc, last op's loc]}]}]}

- ``live`` is inclusive, in the program order of the package docstring (pre-order, the
  ``func.func`` is 0, ops the planner adds are not numbered).
- ``loc`` is ``file:line:col`` of the buffer's ``tcgen05.tmem_buffer``; ``live_locs`` the
  locations of the ops at the two ends of ``live``.
- ``lanes`` lists the lane ranges ``[first, end)`` the buffer occupies in each of the
  columns ``[start, end)``: ``[[0, 128]]`` for a full-datapath buffer, four 16-lane
  ranges for a half-datapath one.
- A multi-buffered buffer (``[stages, rows, cols]``) has one entry per stage, named
  ``%acc[i]``, with the stage's shape ``[rows, cols]``.
- ``allocation_columns`` is null when the kernel does not fit (the pass reports an error).
- ``schema_version`` changes when a field changes meaning or goes away (new fields may be
  added without it).
- ``dynamic_smem_bytes`` (per kernel) is added by ``tcgen05-lower --report-json`` when it
  emits PTX: the dynamic shared memory a launch must give (as in the launch manifest).

SVG (``--report-svg FILE``, pass option ``svg=FILE``): per kernel, the cells of every
buffer (lanes down, columns across; buffers that reuse cells at different times overlap),
and for each lane half a timeline (columns across, program order down, each live range
labelled with its source lines); column ticks every 32 columns; hovering a buffer shows its
source location. Plain SVG text, no dependencies.
"""

from __future__ import annotations

import colorsys
import json
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from tcgen05_lower.planning.placement import FULL, HALF_MASK, Variant, stage_rectangles


@dataclass
class PlannedBuffer:
    """A buffer of a plan, as reports show it."""

    label: str
    loc: str
    shape: tuple[int, ...]
    element: str
    layout: str
    role: str
    columns: int  # per stage
    stages: int
    half_lanes: bool
    start: int
    end: int
    variant: Variant | None = None
    column: int = 0
    #: ``file:line:col`` of the ops at ``start`` and ``end`` (the live range's ends).
    start_loc: str = ""
    end_loc: str = ""

    def rectangles(self) -> list[tuple[str, int, int, int, int]]:
        """(name, lane offset, half mask, first column, width) per stage."""
        if self.variant is None:
            return []
        rects = stage_rectangles(self.variant, self.column, self.columns, self.stages)
        if self.stages == 1 and len(self.shape) == 2:
            return [(self.label, *rects[0])]
        return [(f"{self.label}[{s}]", *rect) for s, rect in enumerate(rects)]

    @property
    def stage_shape(self) -> tuple[int, ...]:
        """The shape of one stage: [rows, cols]."""
        return tuple(self.shape[-2:])

    def describe(self) -> str:
        """``%acc0 128x128xf32 Layout D 128 columns`` for diagnostics."""
        shape = "x".join(map(str, self.shape))
        text = f"{self.label} {shape}x{self.element} Layout {self.layout} "
        if self.stages > 1:
            text += f"{self.stages} stages x {self.columns} columns"
        else:
            text += f"{self.columns} columns"
        if self.half_lanes:
            text += " on 16 lanes of each quarter"
        return text


@dataclass
class KernelPlan:
    """The plan of one kernel."""

    kernel: str
    strategy: str
    cta_group: int = 1
    buffers: list[PlannedBuffer] = field(default_factory=list)
    peak_columns: int = 0
    allocation_columns: int | None = None
    lower_bound_columns: int = 0
    lower_bound_point: int = 0
    #: optimal: whether the search proved the peak minimal.
    proven: bool | None = None
    #: optimal above the lane-aware bound: the exact packing bound of the worst point.
    point_bound_columns: int | None = None
    notes: list[str] = field(default_factory=list)


def lane_ranges(halves: int) -> list[list[int]]:
    """[first, end) lane ranges of a half mask."""
    if halves == FULL:
        return [[0, 128]]
    offset = 0 if halves == HALF_MASK[0] else 16
    return [[32 * q + offset, 32 * q + offset + 16] for q in range(4)]


def _lanes_text(halves: int, lane_offset: int) -> str:
    if halves == FULL:
        return "0-127"
    return f"{lane_offset}-{lane_offset + 15} of each quarter"


def format_table(plan: KernelPlan) -> str:
    """The text report of one kernel (``report=true``)."""
    allocation = (f"{plan.allocation_columns} columns" if plan.allocation_columns
                  else "none (over-subscribed)")
    head = (f"tcgen05-plan-tmem: kernel @{plan.kernel} strategy={plan.strategy} "
            f"peak={plan.peak_columns} columns allocation={allocation} "
            f"lower-bound={plan.lower_bound_columns} columns (at op {plan.lower_bound_point})")
    if plan.proven is not None:
        head += " " + ("optimal: proven" if plan.proven else
                       "optimal: best found within the search limit")
    lines = [head]
    header = ("buffer", "shape", "layout", "lanes", "columns", "live", "source lines")
    rows = []
    for b in plan.buffers:
        for name, lane, halves, col, width in b.rectangles():
            shape = "x".join(map(str, b.stage_shape)) + "x" + b.element
            rows.append((name, shape, b.layout, _lanes_text(halves, lane),
                         f"[{col}, {col + width})", f"[{b.start}, {b.end}]",
                         _lines(b.start_loc, b.end_loc)))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        lines.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    for note in plan.notes:
        lines.append(f"  note: {note}")
    lines += [f"  sharing: {line}" for line in sharing_lines(plan)]
    return "\n".join(lines)


def _halves(halves: int) -> tuple[int, ...]:
    """The lane halves (HALF_MASK values) a rectangle's half mask covers."""
    return tuple(h for h in (HALF_MASK[0], HALF_MASK[16]) if halves & h)


def sharing_lines(plan: KernelPlan) -> list[str]:
    """Whether each buffer (stage) shares TMEM cells with another and why: cells are
    shared only by buffers live at different times (the placement's rule), so a buffer
    that shares names one it shares with (their live ranges are disjoint), and one that
    does not names a buffer live at the same time on the same lanes, if any. Linear in
    the number of buffers: each cell (column, lane half) keeps the first two buffers
    placed in it, and the live ranges are swept in order of their starts. A buffer that
    shares no cells and is live alone gets no line."""
    rects = []  # (name, start, end, first column, end column, halves, buffer)
    for b in plan.buffers:
        for name, _, halves, col, width in b.rectangles():
            rects.append((name, b.start, b.end, col, col + width, _halves(halves)))
    cells: dict = {}
    for i, (_, _, _, first, end, halves) in enumerate(rects):
        for column in range(first, end):
            for half in halves:
                held = cells.setdefault((column, half), [])
                if len(held) < 2:
                    held.append(i)
    # The live range that overlaps each one's, on a common lane half: among those that
    # start earlier, the one ending last (per half); else the next to start.
    order = sorted(range(len(rects)), key=lambda i: (rects[i][1], i))
    witness: dict = {}
    latest: dict = {}  # half -> index of the earlier range ending last
    for position, i in enumerate(order):
        _, start, end, _, _, halves = rects[i]
        for half in halves:
            j = latest.get(half)
            if j is not None and rects[j][2] >= start:
                witness.setdefault(i, j)
        for j in order[position + 1:position + 2]:
            if rects[j][1] <= end and set(rects[j][5]) & set(halves):
                witness.setdefault(i, j)
        for half in halves:
            j = latest.get(half)
            if j is None or rects[j][2] < end:
                latest[half] = i
    lines = []
    for i, (name, start, end, first, end_col, halves) in enumerate(rects):
        other = None
        for column in range(first, end_col):
            for half in halves:
                other = next((j for j in cells[(column, half)] if j != i), None)
                if other is not None:
                    break
            if other is not None:
                break
        if other is not None:
            o = rects[other]
            lo, hi = max(first, o[3]), min(end_col, o[4])
            lines.append(f"{name} shares columns [{lo}, {hi}) with {o[0]}: live "
                         f"[{start}, {end}] and [{o[1]}, {o[2]}] do not overlap")
        elif i in witness:
            o = rects[witness[i]]
            lines.append(f"{name} shares no columns: live [{start}, {end}] overlaps "
                         f"{o[0]}'s [{o[1]}, {o[2]}] (buffers live at the same time on "
                         f"the same lanes never share columns)")
    return lines


def _source_lines(b: PlannedBuffer) -> str:
    lines = _lines(b.start_loc, b.end_loc)
    return f" (lines {lines})" if lines else ""


def _lines(start_loc: str, end_loc: str) -> str:
    """``12-30``: the source lines of a live range's ends (``file:line:col`` each); when
    the ends are in different files, each line with its file (``a.py:12-b.mlir:30``), so
    two files' line numbers never read as one range."""
    def split(loc: str) -> tuple[str, str]:
        parts = loc.rsplit(":", 2)
        return (parts[0], parts[1]) if len(parts) == 3 else ("", "?")
    if not (start_loc or end_loc):
        return ""
    (start_file, start), (end_file, end) = split(start_loc), split(end_loc)
    if start_file != end_file:
        return f"{start_file}:{start}-{end_file}:{end}"
    return f"{start}-{end}"


def kernel_json(plan: KernelPlan) -> dict:
    """The JSON object of one kernel (see the module docstring)."""
    buffers = []
    for b in plan.buffers:
        for name, lane, halves, col, width in b.rectangles():
            buffers.append({
                "name": name,
                "loc": b.loc,
                "shape": list(b.stage_shape),
                "element_type": b.element,
                "layout": b.layout,
                "lane_offset": lane,
                "lanes": lane_ranges(halves),
                "columns": [col, col + width],
                "live": [b.start, b.end],
                "live_locs": [b.start_loc, b.end_loc],
            })
    return {
        "name": plan.kernel,
        "strategy": plan.strategy,
        "allocation_columns": plan.allocation_columns,
        "peak_columns": plan.peak_columns,
        "lower_bound_columns": plan.lower_bound_columns,
        "buffers": buffers,
    }


def format_json(plans: list[KernelPlan]) -> str:
    """The JSON report of several kernels."""
    return json.dumps({"schema_version": JSON_SCHEMA_VERSION,
                       "kernels": [kernel_json(p) for p in plans]}, indent=2) + "\n"


#: The version of the JSON report's schema (the module docstring).
JSON_SCHEMA_VERSION = 1


# ----------------------------------------------------------------------------- SVG

_COLUMN_PX = 2
_LANE_PX = 2
_TIMELINE_PX = 240
_MARGIN = 40


def _colour(i: int) -> str:
    hue = (i * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, 0.55, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def _column_ticks(x0: int, y: int, span: int) -> list[str]:
    """A tick and its column number every 32 columns (a 32-column allocation granule)."""
    out = []
    for column in range(0, span + 1, 32):
        x = x0 + column * _COLUMN_PX
        out.append(f'<line x1="{x}" y1="{y}" x2="{x}" y2="{y + 4}" stroke="#555"/>')
        out.append(f'<text x="{x}" y="{y + 14}" font-size="8" text-anchor="middle">'
                   f'{column}</text>')
    return out


def _kernel_svg(plan: KernelPlan, top: int) -> tuple[list[str], int]:
    """SVG elements of one kernel starting at y = `top`; returns (elements, height)."""
    span = max(plan.allocation_columns or plan.peak_columns, 32)
    width = span * _COLUMN_PX
    x0 = _MARGIN
    out = [f'<text x="{x0}" y="{top + 14}" font-size="13" font-weight="bold">'
           f'{escape(plan.kernel)}: strategy {escape(plan.strategy)}, peak '
           f'{plan.peak_columns}, allocation {plan.allocation_columns or "none"}, lower bound '
           f'{plan.lower_bound_columns} columns</text>']
    y = top + 24
    # Panel 1: lanes x columns.
    out.append(f'<text x="{x0}" y="{y + 10}" font-size="11">cells: lanes 0-127 (down) x '
               f'columns 0-{span - 1} (across)</text>')
    y += 16
    out.append(f'<rect x="{x0}" y="{y}" width="{width}" height="{128 * _LANE_PX}" '
               f'fill="#f4f4f4" stroke="#888"/>')
    for q in range(1, 4):
        out.append(f'<line x1="{x0}" y1="{y + 32 * q * _LANE_PX}" x2="{x0 + width}" '
                   f'y2="{y + 32 * q * _LANE_PX}" stroke="#bbb" stroke-dasharray="3,3"/>')
    for i, b in enumerate(plan.buffers):
        colour = _colour(i)
        for name, lane, halves, col, w in b.rectangles():
            title = (f"{name} {'x'.join(map(str, b.stage_shape))}x{b.element} Layout "
                     f"{b.layout} columns [{col}, {col + w}) live [{b.start}, {b.end}]"
                     f" (source {b.loc}; live from {b.start_loc} to {b.end_loc})")
            for first, end in lane_ranges(halves):
                out.append(f'<rect x="{x0 + col * _COLUMN_PX}" y="{y + first * _LANE_PX}" '
                           f'width="{w * _COLUMN_PX}" height="{(end - first) * _LANE_PX}" '
                           f'fill="{colour}" fill-opacity="0.55" stroke="{colour}">'
                           f'<title>{escape(title)}</title></rect>')
            first = lane_ranges(halves)[0][0]
            out.append(f'<text x="{x0 + col * _COLUMN_PX + 2}" '
                       f'y="{y + first * _LANE_PX + 11}" font-size="10">{escape(name)}</text>')
    y += 128 * _LANE_PX
    out += _column_ticks(x0, y, span)
    y += 24
    # Panels 2 and 3: one timeline per lane half.
    first_op = min((b.start for b in plan.buffers), default=0)
    last_op = max((b.end for b in plan.buffers), default=0)
    ops = max(last_op - first_op + 1, 1)
    scale = _TIMELINE_PX / ops
    for half, label in ((HALF_MASK[0], "lanes 0-15 of each quarter"),
                        (HALF_MASK[16], "lanes 16-31 of each quarter")):
        out.append(f'<text x="{x0}" y="{y + 10}" font-size="11">{label}: columns (across) '
                   f'x program order {first_op}-{last_op} (down)</text>')
        y += 16
        out.append(f'<rect x="{x0}" y="{y}" width="{width}" height="{_TIMELINE_PX}" '
                   f'fill="#f4f4f4" stroke="#888"/>')
        for i, b in enumerate(plan.buffers):
            colour = _colour(i)
            for name, lane, halves, col, w in b.rectangles():
                if not halves & half:
                    continue
                top_px = y + (b.start - first_op) * scale
                height = max((b.end - b.start + 1) * scale, 1.0)
                out.append(f'<rect x="{x0 + col * _COLUMN_PX}" y="{top_px:.1f}" '
                           f'width="{w * _COLUMN_PX}" height="{height:.1f}" fill="{colour}" '
                           f'fill-opacity="0.8" stroke="#333" stroke-width="0.5">'
                           f'<title>{escape(name)} live [{b.start}, {b.end}]</title></rect>')
                out.append(f'<text x="{x0 + col * _COLUMN_PX + 2}" y="{top_px + 10:.1f}" '
                           f'font-size="9">{escape(name)}{escape(_source_lines(b))}</text>')
        y += _TIMELINE_PX
        out += _column_ticks(x0, y, span)
        y += 24
    return out, y - top


def format_svg(plans: list[KernelPlan]) -> str:
    """An SVG picture of the plans (see the module docstring)."""
    elements = []
    top = 10
    width = 2 * _MARGIN + 512 * _COLUMN_PX
    for plan in plans:
        parts, height = _kernel_svg(plan, top)
        elements.extend(parts)
        top += height + 20
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top}" '
            f'font-family="monospace">\n' + "\n".join(elements) + "\n</svg>\n")
