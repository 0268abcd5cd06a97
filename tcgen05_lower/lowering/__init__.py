"""Lowering of planned tcgen05 ops, one module per instruction family.

Each module registers its handlers with :func:`tcgen05_lower.lowering.core.lowers`;
importing this package imports them all. ``passes/tcgen05_lower_to_llvm.py`` drives it.

==============  ==========================================================================
``core``        the per-kernel state (thread predicates, value map) and the driver
``alloc``       tcgen05.alloc / dealloc / relinquish_alloc_permit, TMEM buffer addresses
``smem``        operand tiles in dynamic shared memory, cooperative fills, descriptors
``mma``         tcgen05.mma in all its kinds
``datamove``    tcgen05.cp (with decompression and multicast) and tcgen05.shift
``ldst``        warpgroup tcgen05.ld / ld.red / st and fragments to and from global memory
``sync``        commit, mbarrier waits, tcgen05.wait, fences, barriers
``views``       addresses of the stages of multi-buffered TMEM buffers (tcgen05.tmem_stage)
==============  ==========================================================================
"""

# Importing the family modules registers their handlers.
from tcgen05_lower.lowering import (alloc, datamove, ldst, mma, smem, sync,  # noqa: F401
                                    views)
from tcgen05_lower.lowering.core import HANDLERS, KernelLowering, lowers  # noqa: F401
