"""The decisions of tcgen05-select-layouts (passes/tcgen05_select_layouts.py, a thin
driver over this package): the data-path layout (A-G) of every MMA, the TMEM footprint of
every buffer, and the messages of every warpgroup load and store.

Decisions written into the IR:

- ``tcgen05.mma``: ``layout`` (9.7.16.10.5, from M, cta_group, sparsity and .ws).
- ``tcgen05.tmem_buffer``: ``role`` (what the MMA uses it as: "d", "a", "scale_a",
  "scale_b", "metadata"), ``layout``, ``columns`` (columns per CTA) and ``half_lanes``
  (true when the buffer uses 16 lanes of each 32-lane quarter, so that another such
  buffer may take the other half of the same columns); for Layout C also ``layout_c``,
  the reading used. Footprints come from ``tcgen05_lower.isa.layouts``: D (B, E and G
  fold N), A in TMEM (packed elements, duplicated rows for B and E), scale factors (all
  four lane quarters), sparse metadata (2-column granules).
- ``tcgen05.ld``, ``tcgen05.ld_red``, ``tcgen05.st``: ``shape``, ``num`` (of each
  message), ``half_split`` (immHalfSplitoff, .16x32bx2 only) and ``pack16`` (ld) /
  ``unpack16`` (st); ``tcgen05.load_fragment`` gets the plan of the tcgen05.st it feeds
  (its registers must be laid out as that store expects). Which warps take part, the
  taddr of each message and the element in each register follow from these and the
  buffer (``tcgen05_lower.isa.addressing``).

A multi-buffered ``[stages, rows, cols]`` buffer is used through ``tcgen05.tmem_stage``
views: the MMAs and loads/stores of its stages decide and are planned against one stage's
``[rows, cols]`` footprint, which is written on the buffer itself (all stages share one
role and layout; tcgen05-plan-tmem places the stages and copies the footprint onto each
view).

A buffer's layout: the layout of the MMAs that use it (all must agree); else a
``layout`` attribute the program wrote on the ``tmem_buffer`` (a request, checked against
the buffer's shape and the kernel's cta_group, and against any MMA); else Layout D for 128
rows of a cta_group::1 kernel and Layout A for 256 rows of a cta_group::2 kernel. The
request lets a kernel load and store buffers of layouts whose MMAs it does not contain.

A buffer used by MMAs of different layouts is an error: its cells would mean different
elements to each.

The package owns these decisions, one module per concern, each a mixin of the run of the
pass (which supplies ``error``, ``failed``, ``option``, ``result`` and ``report_stream``);
``selector.LayoutSelector`` composes them and walks each kernel once:

- ``selector``: the walk and the order of the decisions, the per-kernel report;
- ``mma_layouts``: MMA layouts, buffer roles and footprints, copies and shifts that fit;
- ``messages``: the messages of every tcgen05.ld / ld_red / st;
- ``fragment_checks``: register fragments against those plans;
- ``splits``: load -> store pairs split under a register budget;
- ``results``: the decisions as plain data (the pass's result and report);
- ``common``: helpers shared by several of them.
"""

from tcgen05_lower.layout_selection.results import (AccessMessages, BufferLayout,
                                                    KernelLayouts, SelectLayoutsResult)
from tcgen05_lower.layout_selection.selector import LayoutSelector

__all__ = ["AccessMessages", "BufferLayout", "KernelLayouts", "LayoutSelector",
           "SelectLayoutsResult"]
