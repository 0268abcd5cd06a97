"""tcgen05-lower: plans tensor memory, data-path layouts and synchronization for NVIDIA
Blackwell's tcgen05 instructions (PTX ISA 9.7.16) and lowers them to PTX."""

__version__ = "0.1.0"
