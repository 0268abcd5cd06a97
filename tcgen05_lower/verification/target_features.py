"""Target gating: a feature of an op (a kind, a qualifier, an instruction) is checked
against the kernel's target (tcgen05_lower.isa.targets, 9.7.16 Target ISA Notes), and every
op that carries a cta_group carries the kernel's (one .cta_group per kernel, 9.7.16.7.1)."""

from __future__ import annotations

from tcgen05_lower.dialect.ops import wrap
from tcgen05_lower.isa import targets
from tcgen05_lower.isa.errors import IsaRuleError


class TargetRules:
    """The kernel's target and cta_group, at each op. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_cta_group(self, op, info) -> None:
        group = wrap(op).cta_group
        if group is not None and group != info.cta_group:
            self.error(op, f"cta_group = {group} differs from the kernel's cta_group = "
                           f"{info.cta_group}: all tcgen05 instructions of a kernel use the "
                           f"same .cta_group (9.7.16.7.1)")

    def check_feature(self, op, feature: str, info) -> bool:
        try:
            targets.check_feature(feature, info.target)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return False
        return True
