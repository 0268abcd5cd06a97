"""The one exception type for values the PTX ISA does not allow."""


class IsaRuleError(ValueError):
    """A value that the PTX ISA (section 9.7.16) does not allow.

    ``rule`` names where the ISA states the rule (``"Table 39"``, ``"Table 40"``,
    ``"9.7.16.7.1"``); ``str(error)`` is the message followed by the rule, so that a
    diagnostic built from it always says which rule was broken.
    """

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"
