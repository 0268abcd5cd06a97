"""Bit-exact encoders and decoders for the tcgen05 descriptors (PTX ISA 9.7.16.4).

Three descriptors reach the hardware as plain integers in registers:

* the shared-memory matrix descriptor (Table 40): 64 bits, one per A or B operand that
  lives in shared memory;
* the instruction descriptor (Tables 42, 43, 44): 32 bits, one per ``tcgen05.mma``, whose
  layout depends on the MMA kind;
* the zero-column mask descriptor (Table 45): 64 bits, the optional last operand of
  ``tcgen05.mma.ws``.

This package also gives the canonical LBO/SBO of 9.7.16.3.3, i.e. the strides a
compiler writes into the shared-memory descriptor for the tile layouts it allocates.

Conventions shared by all encoders and decoders:

* Encoders take what a kernel author thinks in (type names, byte offsets, column counts)
  and return an ``int``.  Any value the ISA does not allow raises ``IsaRuleError`` whose
  message names the field and the value and whose ``rule`` names the table or section.
  A wrong Python type (a string where an integer belongs) is a ``TypeError``: that is a
  bug in the caller, not a property of the kernel.
* Decoders accept exactly the words the matching encoder can produce.  They check
  reserved and fixed bits, map codes back to names, then hand the fields back to the
  encoder so that every cross-field rule is applied in one place.  Hence
  ``encode(**decode(word)) == word`` for every word ``decode`` accepts, and
  ``decode(encode(**fields)) == fields`` for every complete set of legal fields.
* Table 39 (which M/N/K a kind supports with a given ``cta_group`` and ``.ws``) is checked
  by a separate module.  Here M and N are only checked against what the bit fields can
  hold.

Nothing here imports MLIR; the lowering calls these functions while building IR.

The package, one module per descriptor: ``instruction`` (Tables 42-44), ``shared_memory``
(Table 40), ``canonical_strides`` (9.7.16.3), ``zero_column_mask`` (Table 45), over the
bit-field plumbing of ``fields``.
"""

from __future__ import annotations

from .canonical_strides import canonical_smem_strides
from .instruction import decode_instr_desc, encode_instr_desc
from .shared_memory import (SWIZZLE_CODES, decode_smem_desc, encode_smem_desc,
                            matrix_descriptor_encode)
from .zero_column_mask import (decode_zero_column_mask, encode_zero_column_mask,
                               zero_column_masks)

__all__ = [
    "SWIZZLE_CODES",
    "canonical_smem_strides",
    "decode_instr_desc",
    "decode_smem_desc",
    "decode_zero_column_mask",
    "encode_instr_desc",
    "encode_smem_desc",
    "encode_zero_column_mask",
    "matrix_descriptor_encode",
    "zero_column_masks",
]
