"""TMEM planning: liveness, placement strategies and reports for ``tcgen05-plan-tmem``.

==============  ==========================================================================
``program``     the kernel as a flat control-flow graph of ops in program order, with
                the TMEM accesses of every op and the buffers each SSA value may name
``liveness``    when each buffer must keep its cells (dataflow over that graph, with
                asynchronous operations kept live until they are known complete)
``placement``   items to place (a buffer's footprint variants) and the strategies
                ``first-fit``, ``optimal``, ``no-reuse``; the lower bounds
``report``      the text table, the JSON report and the SVG picture of a plan
==============  ==========================================================================

``program`` is the only module here that looks at MLIR operations; ``liveness``,
``placement`` and ``report`` work on plain Python data, so they can be tested and
benchmarked without building IR.

Program order
-------------
Every index in a plan (live ranges, report rows, JSON ``live``) is a position in one
program order: the pre-order walk of the kernel as it is given to ``tcgen05-plan-tmem``
(that is, after the passes before it, which may add ops, e.g. tcgen05-select-layouts
splitting loads). The ``func.func`` itself is 0 and its first op is 1; an op that holds
regions comes before the ops of its regions; regions and blocks are walked in the order
they are printed. The ops the planner adds (``tcgen05.alloc``,
``tcgen05.relinquish_alloc_permit``, the ``tcgen05.dealloc`` before each return) are not
numbered, so in the planned IR the numbering skips them.
"""
