"""Named strategies for the decisions the planning passes make, one module per decision.

==============  ==========================================================================
``ldst``        message shape, ``.num`` and chunking of warpgroup tcgen05.ld / st
                (tcgen05-select-layouts ``strategy=``): ``max-width``,
                ``register-budget=R``
==============  ==========================================================================

Pure Python, no MLIR: a strategy maps a description of an access to a decision, so it can
be tested and compared without building IR.
"""
