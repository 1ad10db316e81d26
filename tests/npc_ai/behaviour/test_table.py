"""The transition table: what each state may hand over to, and the tick's check of every transition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from npc_ai.behaviour import ALLOWED, STATE_CODES, STATE_NAMES, TRANSITIONS, BehaviourError
from npc_ai.behaviour.table import check_transitions, state_name

codes = st.integers(0, len(STATE_NAMES) - 1)


def test_the_table_is_the_documented_machine() -> None:
    assert STATE_NAMES == ("wander", "patrol", "aim", "shoot", "chase", "search", "investigate", "cover")
    assert TRANSITIONS["aim"] == {"chase", "shoot", "cover"}
    assert TRANSITIONS["search"] == {"aim", "chase", "investigate", "wander", "patrol", "cover"}
    assert TRANSITIONS["cover"] == {"aim", "chase", "wander", "patrol"}
    assert all("cover" in TRANSITIONS[s] for s in STATE_NAMES if s != "cover")  # fire interrupts anything
    for name, targets in TRANSITIONS.items():
        row = ALLOWED[STATE_CODES[name]]
        assert {STATE_NAMES[k] for k in np.flatnonzero(row)} == targets
    assert not ALLOWED.diagonal().any()  # no state re-enters itself
    with pytest.raises(ValueError):
        ALLOWED[0, 0] = True  # read-only


@given(st.lists(st.tuples(codes, codes), min_size=1, max_size=20))
def test_check_transitions_raises_exactly_on_pairs_the_table_forbids(pairs) -> None:
    old, new = np.array(pairs).T
    if ALLOWED[old, new].all():
        check_transitions(old, new)
    else:
        with pytest.raises(BehaviourError, match=r"invalid transition .* allowed: "):
            check_transitions(old, new)


@pytest.mark.parametrize("bad", [-1, len(STATE_NAMES), 99])
def test_unknown_state_codes_are_rejected(bad) -> None:
    with pytest.raises(BehaviourError, match="unknown state code"):
        check_transitions(np.array([0]), np.array([bad]))
    with pytest.raises(BehaviourError, match="is not a state code"):
        state_name(bad)
    assert state_name(STATE_CODES["chase"]) == "chase"
