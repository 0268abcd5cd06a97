"""tcgen05-select-layouts: the data-path layout (A-G) of every MMA, the TMEM footprint of
every buffer, and the messages of every warpgroup load and store.

The decisions, what each writes into the IR and why, live in the library package
``tcgen05_lower.layout_selection`` (its docstring); this pass holds the options and runs
the decisions on every kernel of the module.

Options:

- ``strategy``: the ld/st message strategy (``tcgen05_lower.strategies.ldst``):
  ``max-width`` or ``register-budget=R`` (default ``register-budget=32``, suited to an
  epilogue). Under a budget, a load whose fragment only feeds one store
  (ld -> store_fragment, load_fragment -> st, in the same block with only arith ops
  between them) is rewritten into a sequence of narrower load -> store pairs at the
  store's position, each an ordinary ld/store_fragment (or load_fragment/st), so that
  tcgen05-insert-sync, which runs later, sees every load and its consumer.
- ``shape``: the message shape of every access (``auto``: .32x32b for full-datapath
  layouts, .16x32bx2 for half-datapath ones); a ``shape``/``num`` attribute on an op wins
  over this option and over the strategy (a budget splits such an op's pair only into
  chunks of whole messages of its ``.num``); an op with a ``num`` but no ``shape`` that
  the option's shape cannot move is a located error naming the option.
- ``layout-c``: how Layout C places D. ``F`` (default): the PTX ISA's own wording, "4x1
  (1/2 datapath utilized)" with lane alignment 0 or 16, i.e. Layout F's placement in each
  CTA of the pair; the ISA is the authority this project follows. ``B``: CUTLASS's
  reuse of the Layout-B atom (all 128 lanes, N/2 columns), which CUTLASS does not test
  for this case. tmem-facts.md section 1 rates the question L; no hardware result
  settles it.
- ``report``: print every decision.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.isa import fragments, layouts
from tcgen05_lower.layout_selection import LayoutSelector, SelectLayoutsResult
from tcgen05_lower.pass_infra import ModulePass, Option
from tcgen05_lower.strategies import ldst as strategies


def _strategy_option(text: str) -> str:
    strategies.parse_strategy(text)  # raises ValueError with the reason
    return text


class Tcgen05SelectLayouts(LayoutSelector, ModulePass):
    """Runs the decisions of ``tcgen05_lower.layout_selection`` on every kernel."""

    name = "tcgen05-select-layouts"
    description = ("Choose the data-path layout of each MMA, the footprint of each TMEM "
                   "buffer and the messages of each tcgen05.ld/st")
    options = (
        Option("strategy", _strategy_option, strategies.DEFAULT_STRATEGY,
               "ld/st messages: max-width | register-budget=R",
               kind="max-width or register-budget=R (R registers per thread)"),
        Option("shape", str, "auto", "message shape of every ld/st (an op's own wins)",
               ("auto",) + fragments.LD_ST_SHAPES),
        Option("layout-c", str, "F", "reading of Layout C: F (PTX wording) or B (CUTLASS)",
               layouts.LAYOUT_C_READINGS),
        Option("report", bool, False, "print the layouts and ld/st plans to stderr"),
    )

    result_class = SelectLayoutsResult

    def apply(self, module) -> None:
        self.strategy = strategies.parse_strategy(self.option("strategy"))
        self.layout_c = self.option("layout-c")
        for kernel in d.kernels(module):
            self.select_in_kernel(kernel)
