"""The enemy states as codes, and the table of the transitions between them.

    wander / patrol --spotted--> aim --lost--> chase --arrived--> search --gave up--> wander / patrol
                                  ^  \\--aimed, reaction time, cooldown--> shoot --> aim
    a noise heard --> investigate --arrived--> search;  an ally's alert --> chase
    under fire (an archetype with cover) --> cover --held cover_s--> aim / chase / home

Every NPC's state is one small integer in an array (`npc_ai.behaviour.batch.BehaviourBatch.state`), so a
tick can select the NPCs of one state with a mask. `ALLOWED[a, b]` says whether state `a` may hand over
to state `b`; the tick checks every transition it fires against it and raises `BehaviourError` on
anything else (a transition the table does not allow is a bug, never coerced).
"""

from __future__ import annotations

import numpy as np

from npc_ai.errors import NpcAiError

STATE_NAMES = ("wander", "patrol", "aim", "shoot", "chase", "search", "investigate", "cover")
STATE_CODES: dict[str, int] = {name: code for code, name in enumerate(STATE_NAMES)}  # for arrays and traces
WANDER, PATROL, AIM, SHOOT, CHASE, SEARCH, INVESTIGATE, COVER = range(len(STATE_NAMES))
NONE = -1  # "no transition" in a next-state array

# state -> the states it may hand over to
TRANSITIONS: dict[str, frozenset[str]] = {
    "wander": frozenset({"aim", "chase", "investigate", "cover"}),
    "patrol": frozenset({"aim", "chase", "investigate", "cover"}),
    "aim": frozenset({"chase", "shoot", "cover"}),
    "shoot": frozenset({"aim", "chase", "cover"}),
    "chase": frozenset({"aim", "search", "cover"}),
    "search": frozenset({"aim", "chase", "investigate", "wander", "patrol", "cover"}),
    "investigate": frozenset({"aim", "search", "chase", "cover"}),
    "cover": frozenset({"aim", "chase", "wander", "patrol"}),
}


def _table() -> np.ndarray:
    out = np.zeros((len(STATE_NAMES), len(STATE_NAMES)), dtype=bool)
    for name, targets in TRANSITIONS.items():
        for target in targets:
            out[STATE_CODES[name], STATE_CODES[target]] = True
    out.flags.writeable = False
    return out


ALLOWED: np.ndarray = _table()  # (states, states) bool: ALLOWED[from, to]


class BehaviourError(NpcAiError, RuntimeError):
    """A state asked for a transition the table does not allow (or for a state that does not exist)."""


def state_name(code: int) -> str:
    """The name of state `code` (`BehaviourError` for a code that is not a state)."""
    if not (isinstance(code, int | np.integer) and 0 <= int(code) < len(STATE_NAMES)):
        raise BehaviourError(f"{code!r} is not a state code; codes are 0..{len(STATE_NAMES) - 1}")
    return STATE_NAMES[int(code)]


def check_transitions(old: np.ndarray, new: np.ndarray) -> None:
    """Raise `BehaviourError` unless every pair `old[k] -> new[k]` (state codes) is in the table."""
    old, new = np.asarray(old), np.asarray(new)
    bad = (new < 0) | (new >= len(STATE_NAMES))
    if bad.any():
        raise BehaviourError(f"asked for unknown state code {int(new[np.argmax(bad)])}")
    ok = ALLOWED[old, new]
    if not ok.all():
        k = int(np.argmin(ok))
        a, b = STATE_NAMES[int(old[k])], STATE_NAMES[int(new[k])]
        allowed = ", ".join(sorted(TRANSITIONS[a])) or "nothing"
        raise BehaviourError(f"invalid transition {a!r} -> {b!r}; allowed: {allowed}")
