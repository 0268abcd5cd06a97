"""tcgen05-verify: the ISA's semantic rules that the dialect's IRDL types cannot express.

Runs first in the pipeline so that every later pass may assume well-formed input. Each
rule reports at the offending op with the rule's source (a table or section of PTX ISA
9.7.16) and the bad value, e.g. ``N = 250 is not a multiple of 8 for kind::f16,
cta_group::1 (Table 39)``. The rules live in the library package
``tcgen05_lower.verification`` (its docstring lists them by op and module); this pass runs
all of them on every kernel of the module.
"""

from __future__ import annotations

from tcgen05_lower.pass_infra import ModulePass
from tcgen05_lower.verification import Verifier


class Tcgen05Verify(Verifier, ModulePass):
    """Checks every kernel of the module against the rules of
    ``tcgen05_lower.verification``; reports each broken rule at its op and fails the
    pass."""

    name = "tcgen05-verify"
    description = "Check the PTX ISA's shape, type and target rules on tcgen05 kernels"

    def apply(self, module) -> None:
        self.verify_module(module)
