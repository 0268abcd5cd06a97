"""Lowering of planned tcgen05 ops, one module per instruction family.

Each module marks its handlers with :func:`tcgen05_lower.lowering.core.lowers`; this
package collects them into ``HANDLERS`` (op name -> handler).
``passes/tcgen05_lower_to_llvm.py`` drives it.

==============  ==========================================================================
``core``        the per-kernel state (thread predicates, value map) and the driver
``alloc``       tcgen05.alloc / dealloc / relinquish_alloc_permit, TMEM buffer addresses
``smem``        operand tiles in dynamic shared memory, cooperative fills, descriptors
``mma``         tcgen05.mma in all its kinds
``datamove``    tcgen05.cp (with decompression and multicast) and tcgen05.shift
``ldst``        warpgroup tcgen05.ld / ld.red / st and fragments to and from global memory
``compute``     tcgen05.frag_map (fragments as values) and stores of computed fragments
``sync``        commit, mbarrier waits, tcgen05.wait, fences, barriers
``tma``         TMA loads (cp.async.bulk.tensor) and mbarrier expect_tx arrivals
``views``       addresses of the stages of multi-buffered TMEM buffers (tcgen05.tmem_stage)
``partitions``  warp roles: one scf.if per role, the role's threads, the joining barrier
==============  ==========================================================================
"""

from tcgen05_lower.lowering import (alloc, compute, datamove, ldst, mma, partitions, smem,
                                    sync, tma, views, votes)
from tcgen05_lower.lowering.core import KernelLowering, handlers, lowers  # noqa: F401

#: tcgen05 op name -> handler(lowering, op), from every family module.
HANDLERS = handlers(alloc, compute, datamove, ldst, mma, partitions, smem, sync, tma, views,
                    votes)
