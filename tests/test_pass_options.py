"""Every option of every tcgen05 pass is parsed by one helper (pass_infra.parse_option),
whose error names the pass, the option, the value and what the option accepts (issue 34:
``node-limit=abc`` printed Python's "invalid literal for int()", and ``node-limit=-1`` was
accepted)."""

from __future__ import annotations

import re

import pytest

from tcgen05_lower.pass_infra import parse_option
from tcgen05_lower.passes import REGISTRY
from tcgen05_lower.text import closest, did_you_mean

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
    assert cls.from_text("ring-stages=256").option("ring-stages") == "256"
    with pytest.raises(ValueError) as raised:
        cls.from_text("ring-stages=257")
    # 256: kernel_ir.MBARRIER_RING_MAX_STAGES, the most stages an mbarrier ring has.
    assert str(raised.value) == ("pass 'tcgen05-insert-sync' option 'ring-stages' expects "
                                 "kernel, auto or a number of stages from 1 to 256, "
                                 "got '257'")


def test_every_option_name_is_kebab_case():
    """MLIR spells pass options in kebab-case (``node-limit``); so do ours."""
    for name, cls in REGISTRY.items():
        for option in cls.options:
            assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", option.name), \
                f"{name}: {option.name}"


@pytest.mark.parametrize("spelling", ["ring-stages", "ring_stages"])
def test_ring_stages_takes_its_older_spelling_too(spelling):
    cls = REGISTRY["tcgen05-insert-sync"]
    made = cls.from_text(f"{spelling}=3")
    assert made.option_values["ring-stages"] == "3"
    assert made.option("ring_stages") == made.option("ring-stages") == "3"
    assert cls(**{spelling: "auto"}).option_values["ring-stages"] == "auto"
    # Checked by the same parser under either name.
    with pytest.raises(ValueError, match="option 'ring-stages' expects"):
        cls.from_text(f"{spelling}=0")


# The suggestions below are the names a reader would pick by eye (one letter dropped,
# added or changed); nothing is suggested for a name unlike every option.
@pytest.mark.parametrize("pass_name, text, message", [
    ("tcgen05-plan-tmem", "strategi=optimal",
     "pass 'tcgen05-plan-tmem' has no option 'strategi' (options: strategy, report, json, "
     "svg, node-limit); did you mean 'strategy'?"),
    ("tcgen05-plan-tmem", "node_limit=3",
     "has no option 'node_limit' (options: strategy, report, json, svg, node-limit); "
     "did you mean 'node-limit'?"),
    ("tcgen05-plan-tmem", "strategy=optimall",
     "pass 'tcgen05-plan-tmem' option 'strategy' expects one of first-fit, optimal, "
     "no-reuse, got 'optimall'; did you mean 'optimal'?"),
    ("tcgen05-insert-sync", "strategy=minmal", "got 'minmal'; did you mean 'minimal'?"),
    ("tcgen05-verify-sync", "partitions=chek", "got 'chek'; did you mean 'check'?"),
    ("tcgen05-select-layouts", "layout_c=B", "did you mean 'layout-c'?"),
    ("tcgen05-select-layouts", "strategy=max-widht",
     "unknown ld/st strategy 'max-widht'; the strategies are max-width and "
     "register-budget=R; did you mean 'max-width'?"),
    ("tcgen05-verify-sync", "report=ture", "got 'ture'; did you mean 'true'?"),
])
def test_a_misspelled_option_or_value_gets_the_closest_one(pass_name, text, message):
    with pytest.raises(ValueError) as raised:
        REGISTRY[pass_name].from_text(text)
    assert message in str(raised.value)


@pytest.mark.parametrize("text", ["colour=red", "strategy=zzzz"])
def test_nothing_close_suggests_nothing(text):
    with pytest.raises(ValueError) as raised:
        REGISTRY["tcgen05-plan-tmem"].from_text(text)
    assert "did you mean" not in str(raised.value)


def test_the_constructor_suggests_too():
    with pytest.raises(ValueError, match="has no option 'ring_stage' .*did you mean "
                                         "'ring-stages'\\?"):
        REGISTRY["tcgen05-insert-sync"](ring_stage="2")


# The one helper behind every suggestion (options, targets, attributes): expected values
# picked by eye.
@pytest.mark.parametrize("word, candidates, expected", [
    ("sm_100", ("sm_100a", "sm_100f"), "sm_100a"),   # equally close: the first listed
    ("sm_100", ("sm_100f", "sm_100a"), "sm_100f"),
    ("128b", ("none", "32B", "64B", "128B"), "128B"),  # case ignored, listed spelling kept
    ("f16", ("f16", "tf32"), None),                    # not misspelled
    ("zzz", ("min", "max"), None),                     # nothing close
    ("x", (), None),                                   # nothing to suggest
])
def test_closest_breaks_ties_by_order_and_ignores_case(word, candidates, expected):
    assert closest(word, candidates) == expected
    assert did_you_mean(word, candidates) == \
        ("" if expected is None else f"; did you mean '{expected}'?")
