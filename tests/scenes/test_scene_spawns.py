"""Placing NPCs and the player in code: `Scene.with_npcs` / `Scene.with_player` return validated copies."""

from __future__ import annotations

import math

import pytest

from scenes import NpcSpawn, PlayerSpawn, SceneError, load_scene, parse_scene

GUARDED = """
[scene]
name = "yard"
[floor]
size = [10.0, 10.0]
[archetype.sniper]
sight_radius = 30.0
[[npc]]
name = "a"
position = [1.0, 1.0, 0.0]
"""


@pytest.fixture(scope="module")
def yard():
    return parse_scene(GUARDED, source="yard.toml")


def test_with_npcs_appends_and_keeps_the_original(yard) -> None:
    more = yard.with_npcs(NpcSpawn((2.0, 2.0, 0.0), name="b"), NpcSpawn((3.0, 3.0, 0.0), archetype="sniper"))
    assert [n.name for n in more.npcs] == ["a", "b", ""]
    assert more.npcs[2].archetype == "sniper"
    assert [n.name for n in yard.npcs] == ["a"]  # frozen: the original is unchanged
    assert more.content_hash == yard.content_hash != ""  # spawns do not touch the navmesh cache key
    assert more.boxes == yard.boxes and more.archetypes == yard.archetypes


def test_with_npcs_can_replace_the_scene_spawns(yard) -> None:
    only = yard.with_npcs(
        NpcSpawn((2.0, 2.0, 0.0), name="a", patrol=((1, 1, 0), (2, 2, 0))), keep_existing=False
    )
    assert [(n.name, n.position) for n in only.npcs] == [("a", (2.0, 2.0, 0.0))]
    assert yard.with_npcs(keep_existing=False).npcs == ()


def test_with_player(yard) -> None:
    spawn = PlayerSpawn((4.0, 4.0, 0.0), yaw_deg=90.0, route=((4.0, 4.0, 0.0), (-4.0, 4.0, 0.0)))
    assert yard.with_player(spawn).player == spawn
    assert yard.player is None
    arena = load_scene("arena")
    assert arena.player is not None and arena.with_player(None).player is None


@pytest.mark.parametrize(
    "spawns, message",
    [
        ((NpcSpawn((2.0, 2.0, 0.0), name="a"),), r"yard.toml: npc\[1\].name: 'a' is used by another NPC"),
        (
            (NpcSpawn((2.0, 2.0, 0.0), name="b"), NpcSpawn((3.0, 3.0, 0.0), name="b")),
            r"npc\[2\].name: 'b' is used by another NPC",
        ),
        (
            (NpcSpawn((2.0, 2.0, 0.0), archetype="tank"),),
            r"npc\[1\].archetype: no \[archetype.tank\] table; define it or use 'default'",
        ),
        (((2.0, 2.0, 0.0),), r"npc\[1\]: must be a scenes.NpcSpawn, got tuple"),
        ((NpcSpawn((2.0, 2.0)),), r"npc\[1\].position: must be 3 numbers"),  # type: ignore[arg-type]
        ((NpcSpawn((2.0, math.nan, 0.0)),), r"npc\[1\].position\[1\]: must be a finite number, got nan"),
        ((NpcSpawn((2.0, "1", 0.0)),), r"npc\[1\].position\[1\]: must be a finite number"),  # type: ignore[arg-type]
        ((NpcSpawn((2.0, 2.0, 0.0), yaw_deg=math.inf),), r"npc\[1\].yaw_deg: must be a finite number"),
        (
            (NpcSpawn((2.0, 2.0, 0.0), patrol=((1.0, 1.0, 0.0), (1.0, True, 0.0))),),
            r"npc\[1\].patrol\[1\]\[1\]: must be a finite number, got True",
        ),
    ],
)
def test_bad_npc_spawns(yard, spawns, message) -> None:
    with pytest.raises(SceneError, match=message):
        yard.with_npcs(*spawns)


@pytest.mark.parametrize(
    "spawn, message",
    [
        (NpcSpawn((1.0, 1.0, 0.0)), r"yard.toml: player: must be a scenes.PlayerSpawn or None, got NpcSpawn"),
        (PlayerSpawn((1.0, 1.0, math.nan)), r"player.position\[2\]: must be a finite number"),
        (PlayerSpawn((1.0, 1.0, 0.0), route=((1.0, 1.0),)), r"player.route\[0\]: must be 3 numbers"),  # type: ignore[arg-type]
        (PlayerSpawn((1.0, 1.0, 0.0), yaw_deg=math.nan), r"player.yaw_deg: must be a finite number"),
    ],
)
def test_bad_player_spawn(yard, spawn, message) -> None:
    with pytest.raises(SceneError, match=message):
        yard.with_player(spawn)


def test_errors_name_a_scene_built_in_code() -> None:
    from scenes import Scene

    with pytest.raises(SceneError, match=r"^field: npc\[0\].archetype"):
        Scene(name="field").with_npcs(NpcSpawn((0.0, 0.0, 0.0), archetype="x"))
