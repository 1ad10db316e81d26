"""The batched locomotion against one `Locomotor` per character, in twin PyBullet worlds: the same commands
give the same bodies, facings, agents and drift pulls, tick by tick."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.agent import AgentSettings
from navigation.query import NavMeshQuery
from npc_ai.animation import AnimatorSettings
from npc_ai.body import speculative
from npc_ai.body.batch import LocomotionBatch
from npc_ai.body.coupling import CouplingError, CouplingSettings, DriftLimit
from npc_ai.body.locomotor import Locomotor
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0
AGENT = AgentSettings(radius=0.3, speed=3.5)


@pytest.fixture(scope="module")
def warehouse_query() -> NavMeshQuery:
    with World(load_scene("warehouse")) as w:
        return NavMeshQuery(scene_navmesh(w)[0])


def _commands(rng: np.random.Generator, query: NavMeshQuery, n: int, ticks: int) -> dict[int, list]:
    """Seeded commands: at some ticks a row gets a destination (walk or run), free movement or a warp."""
    plan: dict[int, list] = {}
    for t in range(0, ticks, 40):
        cmds = []
        for i in range(n):
            kind = rng.choice(["go", "go", "free", "stay", "warp"] if t else ["go"])
            if kind == "go":
                goal = query.random_point(rng)[0]
                cmds.append((i, "go", goal, float(rng.choice([1.4, 3.5]))))
            elif kind == "free":
                cmds.append((i, "free", float(rng.uniform(0.0, 3.0)), float(rng.uniform(-3.1, 3.1))))
            elif kind == "warp":
                cmds.append((i, "warp", query.random_point(rng)[0], 0.0))
        plan[t] = cmds
    return plan


@pytest.mark.parametrize("full_pose", [False, pytest.param(True, marks=pytest.mark.slow)])  # slow: CI runs it
def test_batch_moves_like_one_locomotor_per_character(warehouse_query, full_pose, monkeypatch) -> None:
    # the per-row rules only: a lone Locomotor has no neighbours to keep its body from running into, so the
    # batch's speculative contacts between its rows (`npc_ai.body.speculative`, tested there) are left out
    monkeypatch.setattr(speculative, "speculate", lambda *args: 0)
    query, n, ticks = warehouse_query, 6, 240
    rng = np.random.default_rng(7)
    starts = np.array([query.random_point(rng)[0] for _ in range(n)])
    yaws = rng.uniform(-3.0, 3.0, n)
    plan = _commands(np.random.default_rng(8), query, n, ticks)
    coupling = CouplingSettings(foot_lock=full_pose, pivot_turns=full_pose)
    animator = AnimatorSettings(lazy_pose=not full_pose)
    scene = load_scene("warehouse")
    with World(scene) as wa, World(scene) as wb:
        singles = [
            Locomotor(
                wa, query, starts[i], yaw=float(yaws[i]), agent=AGENT, coupling=coupling, animator=animator
            )
            for i in range(n)
        ]
        batch = LocomotionBatch(wb, query, starts, yaws, agent=AGENT, coupling=coupling, animator=animator)
        views = batch.views
        for t in range(ticks):
            for i, kind, a, b in plan.get(t, []):
                for legs in (singles[i], views[i]):
                    if kind == "go":
                        legs.set_destination(a, speed=b)
                    elif kind == "free":
                        legs.move_freely(a, b)
                    else:
                        legs.warp(a)
            for legs in singles:
                legs.before_physics(DT)
            batch.before_physics(DT)
            wa.step()
            wb.step()
            for legs in singles:
                legs.after_physics()
            batch.after_physics()
            for i, legs in enumerate(singles):
                v = views[i]
                np.testing.assert_allclose(v.position, legs.position, atol=1e-7, err_msg=f"tick {t} row {i}")
                assert abs(v.yaw - legs.yaw) < 1e-9
                np.testing.assert_allclose(v.agent.next_position, legs.agent.next_position, atol=1e-7)
                assert v.agent.has_path == legs.agent.has_path
                assert v.remaining_distance == pytest.approx(legs.remaining_distance, abs=1e-7)
                assert v.arrived == legs.arrived
                assert v.pulls == legs.coupling.state.pulls
        if full_pose:  # the locked feet are the single locomotors' too
            for i, legs in enumerate(singles):
                np.testing.assert_allclose(views[i].feet_world(), legs.feet_world(), atol=1e-6)
        moved = np.linalg.norm(batch.positions[:, :2] - starts[:, :2], axis=1)
        assert (moved > 1.0).sum() >= n // 2  # the run drove the characters somewhere


def test_batch_refuses_couplings_it_does_not_run(warehouse_query) -> None:
    with World(load_scene("warehouse")) as w:
        p = np.array([warehouse_query.random_point(np.random.default_rng(0))[0]])
        for bad in (
            CouplingSettings(mode="agent_drives"),
            CouplingSettings(drift_limit=DriftLimit.PULL_CHARACTER),
        ):
            with pytest.raises(CouplingError, match="Locomotor"):
                LocomotionBatch(w, warehouse_query, p, np.zeros(1), coupling=bad)


def test_batch_rows_compute_remaining_distance_once_per_tick(warehouse_query) -> None:
    with World(load_scene("warehouse")) as w:
        rng = np.random.default_rng(3)
        p = np.array([warehouse_query.random_point(rng)[0] for _ in range(4)])
        batch = LocomotionBatch(w, warehouse_query, p, np.zeros(4), agent=AGENT)
        goal = warehouse_query.random_point(rng)[0]
        batch.views[2].set_destination(goal)
        before = batch.remaining(2)
        batch.views[2].set_destination(batch.views[2].position)  # a new path refreshes the cached row
        assert batch.remaining(2) < before
        np.testing.assert_allclose(
            [batch.remaining(i) for i in range(4)], batch.agents.remaining_distance(), atol=1e-12
        )


@pytest.mark.parametrize("dt", [0.0, -DT, float("nan"), float("inf")])
@pytest.mark.parametrize("following", [True, False])
def test_batch_refuses_a_bad_tick_length_before_changing_anything(warehouse_query, dt, following) -> None:
    """Checked once per tick length, up front, whether or not a row follows a path (NavMeshError, as the
    agents' own check)."""
    from navigation.errors import NavMeshError

    with World(load_scene("warehouse")) as w:
        rng = np.random.default_rng(5)
        p = np.array([warehouse_query.random_point(rng)[0] for _ in range(3)])
        batch = LocomotionBatch(w, warehouse_query, p, np.zeros(3), agent=AGENT)
        for view in batch.views:
            if following:
                view.set_destination(warehouse_query.random_point(rng)[0])
            else:
                view.move_freely(1.0, 0.5)
        batch.before_physics(DT)
        w.step()
        batch.after_physics()
        yaw, agents = batch.yaw.copy(), batch.agents.next_position.copy()
        with pytest.raises(NavMeshError, match="dt"):
            batch.before_physics(dt)
        assert np.array_equal(batch.yaw, yaw) and np.array_equal(batch.agents.next_position, agents)
        batch.before_physics(DT)  # and a good one still runs


def test_batch_refuses_a_body_no_agent_can_follow(warehouse_query) -> None:
    """A body pose that is not a finite point (physics blew up) is refused after the step, by the agents'
    own check, as `AgentBatch.follow` refuses it."""
    from navigation.errors import NavMeshError

    with World(load_scene("warehouse")) as w:
        p = np.array([warehouse_query.random_point(np.random.default_rng(6))[0] for _ in range(2)])
        batch = LocomotionBatch(w, warehouse_query, p, np.zeros(2), agent=AGENT)
        batch.before_physics(DT)
        w.step()
        w.poses.positions[batch._pose_rows[1], 0] = np.nan
        with pytest.raises(NavMeshError, match="positions"):
            batch.after_physics()


@pytest.mark.parametrize("pivot_turns", [False, True])
def test_batch_ticks_are_reproducible_to_the_bit(warehouse_query, pivot_turns) -> None:
    """Two batches in two worlds, the same commands: identical bodies, facings, agents and animators, with
    both the fused tick (`couple_and_drive`) and the pivot-turn one (`couple`, then `animate_and_drive`)."""
    n, ticks = 5, 150
    plan = _commands(np.random.default_rng(11), warehouse_query, n, ticks)
    starts = np.array([warehouse_query.random_point(np.random.default_rng(12))[0] for _ in range(n)])
    coupling = CouplingSettings(foot_lock=False, pivot_turns=pivot_turns)
    runs = []
    for _ in range(2):
        with World(load_scene("warehouse")) as w:
            batch = LocomotionBatch(w, warehouse_query, starts, np.zeros(n), agent=AGENT, coupling=coupling)
            trail = []
            for t in range(ticks):
                for i, kind, a, b in plan.get(t, []):
                    view = batch.views[i]
                    if kind == "go":
                        view.set_destination(a, speed=b)
                    elif kind == "free":
                        view.move_freely(a, b)
                    else:
                        view.warp(a)
                batch.before_physics(DT)
                w.step()
                batch.after_physics()
                trail.append(
                    np.concatenate(
                        [
                            batch.positions.ravel(),
                            batch.yaw,
                            batch.agents.next_position.ravel(),
                            batch.animators.phase,
                            batch.command.ravel(),
                        ]
                    )
                )
            runs.append(np.array(trail))
    assert np.array_equal(runs[0], runs[1])
    assert np.isfinite(runs[0]).all()
