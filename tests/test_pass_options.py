"""Every option of every tcgen05 pass is parsed by one helper (pass_infra.parse_option),
whose error names the pass, the option, the value and what the option accepts (issue 34:
``node-limit=abc`` printed Python's "invalid literal for int()", and ``node-limit=-1`` was
accepted)."""

from __future__ import annotations

import pytest

from tcgen05_lower.pass_infra import parse_option
from tcgen05_lower.passes import REGISTRY

#: A value no option of any pass accepts, except the free-form strings (file names).
NONSENSE = "{no such value}"


def _options():
    for name, cls in REGISTRY.items():
        for option in cls.options:
            yield pytest.param(cls, option, id=f"{name}:{option.name}")


@pytest.mark.parametrize("cls, option", list(_options()))
def test_every_option_names_pass_option_value_and_expectation(cls, option):
    if option.type is str and option.choices is None:
        # A file name (tcgen05-plan-tmem json=, svg=): every string is one.
        assert cls.from_text(f"{option.name}=x.json").option(option.name) == "x.json"
        return
    with pytest.raises(ValueError) as raised:
        cls.from_text(f"{option.name}={NONSENSE.replace(' ', '_')}")
    message = str(raised.value)
    assert message.startswith(f"pass '{cls.name}' option '{option.name}' expects "
                              f"{option.expected()}, got '"), message
    # The default is a value the option accepts (through the same helper).
    default = option.default
    text = ("true" if default else "false") if isinstance(default, bool) else str(default)
    assert parse_option(cls.name, option, text) == default


@pytest.mark.parametrize("text", ["", "abc", "1.5", "-1", "0", " 5", "1_000", "0x10"])
def test_node_limit_takes_only_a_positive_decimal_integer(text):
    cls = REGISTRY["tcgen05-plan-tmem"]
    with pytest.raises(ValueError, match=r"^pass 'tcgen05-plan-tmem' option 'node-limit' "
                                         r"expects an integer >= 1, got '"):
        cls.from_text(f"node-limit={text}")


def test_node_limit_accepts_an_integer_and_the_constructor_checks_the_range():
    cls = REGISTRY["tcgen05-plan-tmem"]
    assert cls.from_text("node-limit=7 strategy=optimal").option("node-limit") == 7
    assert cls(**{"node-limit": 3}).option("node-limit") == 3
    with pytest.raises(ValueError, match="option 'node-limit' expects an integer >= 1, "
                                         "got '-1'"):
        cls(**{"node-limit": -1})


def test_ring_stages_names_its_range():
    cls = REGISTRY["tcgen05-insert-sync"]
    assert cls.from_text("ring_stages=256").option("ring_stages") == "256"
    with pytest.raises(ValueError) as raised:
        cls.from_text("ring_stages=257")
    # 256: kernel_ir.MBARRIER_RING_MAX_STAGES, the most stages an mbarrier ring has.
    assert str(raised.value) == ("pass 'tcgen05-insert-sync' option 'ring_stages' expects "
                                 "kernel, auto or a number of stages from 1 to 256, "
                                 "got '257'")

