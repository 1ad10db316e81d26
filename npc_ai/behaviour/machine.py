"""A finite state machine with py_trees-like lifecycle hooks.

Each state has `enter` (may return details for the transition's event), `update -> next state name or None`
and `exit`. A state lists the states it may hand over to; the machine raises on anything else (an unknown
name or a transition the state does not allow is a bug, never coerced). Every transition is reported to a
callback, which the NPC turns into an event named after the state entered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from npc_ai.errors import NpcAiError

C = TypeVar("C")


class BehaviourError(NpcAiError, RuntimeError):
    """A state asked for a transition the machine does not allow (or to a state that does not exist)."""


class State(Generic[C]):
    """Base state. Subclasses set `name` and `transitions` and override the hooks.

    Attributes:
        name: the state's name; the event recorded when it is entered.
        transitions: the names of the states `update` may return.
    """

    name: str = "state"
    transitions: frozenset[str] = frozenset()

    def enter(self, ctx: C) -> dict[str, Any] | None:
        """Called once when the state becomes current; may return details for the transition event."""
        return None

    def update(self, ctx: C) -> str | None:
        """Called every decide phase while current; return the next state's name to leave."""
        return None

    def exit(self, ctx: C) -> None:
        """Called once when the state stops being current."""


TransitionCallback = Callable[[str | None, str, dict[str, Any]], None]


class StateMachine(Generic[C]):
    """Runs one set of states for one context (an NPC).

    Args:
        states: the states (each name once).
        initial: the name of the first state, entered by `start`.
        on_transition: called as `(from_name or None, to_name, details)` after each state is entered.
    """

    def __init__(self, states: Iterable[State[C]], initial: str, on_transition: TransitionCallback) -> None:
        self.states: dict[str, State[C]] = {}
        for s in states:
            if s.name in self.states:
                raise BehaviourError(f"two states are named {s.name!r}")
            self.states[s.name] = s
        for s in self.states.values():
            unknown = sorted(s.transitions - set(self.states))
            if unknown:
                raise BehaviourError(f"state {s.name!r} lists unknown target states {unknown}")
        if initial not in self.states:
            raise BehaviourError(f"initial state {initial!r} is not one of {sorted(self.states)}")
        self.initial = initial
        self.on_transition = on_transition
        self.current: State[C] | None = None
        self.transitions = 0

    @property
    def state(self) -> str:
        """The current state's name ("" before `start`)."""
        return "" if self.current is None else self.current.name

    def start(self, ctx: C) -> None:
        """Enter the initial state."""
        if self.current is not None:
            raise BehaviourError("the state machine has already started")
        self._enter(None, self.states[self.initial], ctx)

    def update(self, ctx: C) -> str:
        """Run the current state's update and follow at most one transition; return the state name."""
        if self.current is None:
            raise BehaviourError("start the state machine before updating it")
        nxt = self.current.update(ctx)
        if nxt is not None:
            self.transition(nxt, ctx)
        return self.current.name

    def transition(self, name: str, ctx: C) -> None:
        """Leave the current state for `name` (which the current state must allow)."""
        if self.current is None:
            raise BehaviourError("start the state machine before changing state")
        if name not in self.states:
            raise BehaviourError(f"state {self.current.name!r} asked for unknown state {name!r}")
        if name not in self.current.transitions:
            allowed = ", ".join(sorted(self.current.transitions)) or "nothing"
            raise BehaviourError(f"invalid transition {self.current.name!r} -> {name!r}; allowed: {allowed}")
        old = self.current
        old.exit(ctx)
        self._enter(old.name, self.states[name], ctx)

    def _enter(self, old: str | None, new: State[C], ctx: C) -> None:
        self.current = new
        details = new.enter(ctx) or {}
        self.transitions += 1
        self.on_transition(old, new.name, details)
