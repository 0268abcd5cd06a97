"""The global arrays a launch binds: each array argument becomes a ``Buffer`` at a fake
global address of its own. The executor (``Machine._bind_args``) and ``param_space``
(arrays a by-value tensor map describes) both bind them; this module imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Where the fake global addresses of bound arrays start; each array gets its own
#: 2**36-byte window, so an address past one array never lands in the next.
GLOBAL_BASE = 0x7F00_0000_0000
GLOBAL_STRIDE = 1 << 36


@dataclass
class Buffer:
    """A global array bound to a kernel parameter."""
    name: str
    base: int
    data: np.ndarray  # the caller's array, contiguous
    raw: np.ndarray   # uint8 view of data
