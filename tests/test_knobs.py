"""The knob tables (rummy_env/knobs.py): every field of ``RummyRules`` belongs to the shared knobs or to the
rulesets that use it, no knob is both shared and a ruleset's, and every checked knob is a field."""

from __future__ import annotations

import dataclasses

from rummy_env import RummyRules
from rummy_env import knobs
from rummy_env.rules import OWN_KNOBS


def test_every_field_is_owned_and_every_table_names_fields():
    fields = {field.name for field in dataclasses.fields(RummyRules)}
    owned = set(knobs.SHARED_KNOBS).union(*OWN_KNOBS.values())
    assert owned == fields
    assert not set(knobs.SHARED_KNOBS) & set().union(*OWN_KNOBS.values())
    for ruleset, own in OWN_KNOBS.items():
        for other, theirs in OWN_KNOBS.items():
            if other != ruleset:  # knobs two rulesets both read, each with its own default resolution
                assert set(own) & set(theirs) <= {"hand_size", "target_score", "max_hands"}, (ruleset, other)
    tables = (knobs.CHOICES_BASIC, knobs.BOOLS_BASIC, knobs.CHOICES_RAMI, knobs.CHOICES_GIN, knobs.CHOICES_ENV, knobs.BOOLS_RAMI,
              knobs.INTS_RAMI, knobs.FIXED_RAMI, knobs.BOOLS_GIN, knobs.INTS_GIN, knobs.LEBANESE_KNOBS,
              *knobs.GIN_PRESETS.values())
    for table in tables:
        assert set(table) <= fields, set(table) - fields
