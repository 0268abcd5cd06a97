"""``KernelBuilder``: the builder's core with the ops of every concern (the other modules of
this package)."""

from __future__ import annotations

from tcgen05_lower.builder.buffers import BufferMixin
from tcgen05_lower.builder.control_flow import ControlFlowMixin
from tcgen05_lower.builder.core import BuilderCore
from tcgen05_lower.builder.fragments import FragmentMixin
from tcgen05_lower.builder.synchronization import SynchronizationMixin
from tcgen05_lower.builder.tensor_core import TensorCoreMixin
from tcgen05_lower.builder.values import ArithmeticMixin


class KernelBuilder(ArithmeticMixin, BufferMixin, SynchronizationMixin, TensorCoreMixin,
                    FragmentMixin, ControlFlowMixin, BuilderCore):
    """One kernel: ``func.func @name(params)`` with a ``tcgen05.kernel`` attribute.

    `params` maps each parameter's name to its type (text) or a :class:`Param`; `grid`
    gives the launch grid as expressions of the parameters (``["ceildiv(N, 256)",
    "ceildiv(M, 128)"]``, docs/grid.md); `kernel` adds other entries to the kernel
    attribute (name -> Python value, of the kind ``dialect.attributes.KERNEL_ENTRIES``
    gives it)."""
