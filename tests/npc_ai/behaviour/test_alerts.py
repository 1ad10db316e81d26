"""Alerts with a reach: a shout reaches allies within the alert radius that see the shouter or hear the
shout (walls cut it); a radio reaches every ally. Alerts carry the last known position and its age."""

from __future__ import annotations

import pytest

from npc_ai.behaviour import BehaviourSettings, BehaviourSettingsError
from scenes import parse_scene
from tests.npc_ai.sim_helpers import bake, events, simulation

# the shouter at the origin faces the player (8 m east); allies face west, away from it; walls 3 m high
HALL = """
[scene]
name = "hall"
[floor]
size = [100.0, 30.0]
[navmesh]
cell_size = 0.25
[archetype.shouter]
move_probability = 0.0
radio = RADIO
shout_loudness = SHOUT
[archetype.ally]
move_probability = 0.0
[[npc]]
name = "shouter"
position = [0.0, 0.0, 0.0]
archetype = "shouter"
"""
WALL = """
[[box]]
center = [{x}, 0.0, 1.5]
size = [1.0, 20.0, 3.0]
"""
ALLY = """
[[npc]]
name = "{name}"
position = [{x}, {y}, 0.0]
yaw_deg = 180.0
archetype = "ally"
"""


def hall(radio: bool, walls: tuple[float, ...], allies: dict[str, tuple[float, float]], shout: float = 1.0):
    text = HALL.replace("RADIO", "true" if radio else "false").replace("SHOUT", str(shout))
    text += "".join(WALL.format(x=x) for x in walls)
    text += "".join(ALLY.format(name=n, x=x, y=y) for n, (x, y) in allies.items())
    return parse_scene(text, source="hall.toml")


def alerted(scene, seconds: float = 1.0) -> dict[str, list]:
    with simulation(scene, bake(scene), player=(8.0, 0.0)) as sim:
        sim.run(seconds)
        assert "spotted" in [e.event for e in events(sim, "shouter")]
        return {n.name: [e for e in events(sim, n.name) if e.event == "alerted"] for n in sim.npcs}


def test_a_shout_does_not_reach_an_ally_behind_two_walls_40_m_away_but_a_radio_does() -> None:
    walls, far = (-13.0, -27.0), {"far": (-40.0, 0.0)}
    assert alerted(hall(False, walls, far))["far"] == []
    by_radio = alerted(hall(True, walls, far))["far"]
    assert len(by_radio) == 1
    e = by_radio[0]
    assert e.data["by"] == "shouter" and e.data["target"] == pytest.approx([8.0, 0.0, 0.0], abs=0.05)
    assert e.data["age"] == 0.0


def test_a_shout_reaches_allies_who_see_or_hear_it_and_a_wall_cuts_it() -> None:
    # both 8 m away, inside the 12 m alert radius: one in the open, one behind a wall (a shout of loudness
    # 1 carries 12 m in the open, 6 m through a wall)
    allies = {"open": (0.0, -8.0), "walled": (-8.0, 0.0)}
    got = alerted(hall(False, (-4.0,), allies))
    assert len(got["open"]) == 1 and got["walled"] == []
    louder = alerted(hall(False, (-4.0,), allies, shout=2.0))  # carries 12 m through the wall
    assert len(louder["open"]) == 1 and len(louder["walled"]) == 1


def test_an_alert_keeps_the_age_of_the_news() -> None:
    scene = hall(False, (), {"near": (0.0, -6.0)})
    with simulation(scene, bake(scene), player=None) as sim:
        sim.run(0.1)
        sim.behaviour.alert(1, [5.0, 5.0, 0.0], "shouter", seen_at=sim.time - 2.0)
        npc = sim.npcs[1]
        assert npc.memory is not None and npc.memory.age(sim.time) == pytest.approx(2.0)
        sim.step()  # events are written at the end of a tick
        e = [x for x in events(sim, "near") if x.event == "alerted"][-1]
        assert e.data["age"] == pytest.approx(2.0)


def test_radio_must_be_true_or_false() -> None:
    with pytest.raises(BehaviourSettingsError, match="radio"):
        BehaviourSettings(radio=1)  # type: ignore[arg-type]
    with pytest.raises(BehaviourSettingsError, match=r"archetype\.guard\.radio"):
        BehaviourSettings.from_table({"radio": "yes"}, name="guard")
