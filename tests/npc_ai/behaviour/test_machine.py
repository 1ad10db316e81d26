"""The state machine: lifecycle hooks in order, every transition recorded, invalid transitions raise."""

from __future__ import annotations

import pytest

from npc_ai.behaviour import BehaviourError, State, StateMachine, build_states


class _Log:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.next: str | None = None


class A(State[_Log]):
    name = "a"
    transitions = frozenset({"b"})

    def enter(self, ctx: _Log) -> dict:
        ctx.calls.append("enter a")
        return {"why": "start"}

    def update(self, ctx: _Log) -> str | None:
        ctx.calls.append("update a")
        nxt, ctx.next = ctx.next, None
        return nxt

    def exit(self, ctx: _Log) -> None:
        ctx.calls.append("exit a")


class B(State[_Log]):
    name = "b"
    transitions = frozenset({"a"})

    def enter(self, ctx: _Log) -> None:
        ctx.calls.append("enter b")


def test_lifecycle_and_recorded_transitions() -> None:
    seen = []
    log = _Log()
    m = StateMachine([A(), B()], "a", lambda old, new, d: seen.append((old, new, d)))
    m.start(log)
    assert m.update(log) == "a"
    log.next = "b"
    assert m.update(log) == "b"
    assert log.calls == ["enter a", "update a", "update a", "exit a", "enter b"]
    assert seen == [(None, "a", {"why": "start"}), ("a", "b", {})]
    assert m.transitions == 2


def test_invalid_and_unknown_transitions_raise() -> None:
    log = _Log()
    m = StateMachine([A(), B()], "a", lambda *a: None)
    with pytest.raises(BehaviourError, match="start the state machine"):
        m.update(log)
    m.start(log)
    log.next = "a"  # a does not list itself
    with pytest.raises(BehaviourError, match=r"invalid transition 'a' -> 'a'; allowed: b"):
        m.update(log)
    log.next = "zzz"
    with pytest.raises(BehaviourError, match="asked for unknown state 'zzz'"):
        m.update(log)


def test_bad_construction_raises() -> None:
    with pytest.raises(BehaviourError, match="initial state 'c'"):
        StateMachine([A(), B()], "c", lambda *a: None)
    with pytest.raises(BehaviourError, match="lists unknown target states"):
        StateMachine([A()], "a", lambda *a: None)
    with pytest.raises(BehaviourError, match="two states are named"):
        StateMachine([A(), A(), B()], "a", lambda *a: None)


def test_the_enemy_states_form_a_valid_machine() -> None:
    m = StateMachine(build_states(), "wander", lambda *a: None)
    assert set(m.states) == {"wander", "patrol", "aim", "shoot", "chase", "search", "investigate"}
    assert m.states["aim"].transitions == {"chase", "shoot"}
