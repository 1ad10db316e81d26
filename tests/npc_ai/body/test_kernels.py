"""The compiled locomotion kernels: `warm_up` compiles every signature the package uses (no tick compiles)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from navigation import agent_kernels, angles
from navigation.agent import AgentSettings, NavAgent
from navigation.agent_batch import AgentBatch
from navigation.query import NavMeshQuery
from npc_ai.animation import kernels as animation_kernels
from npc_ai.body import kernels
from npc_ai.body.batch import LocomotionBatch
from npc_ai.body.coupling import CouplingSettings
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0


def _signatures() -> dict[str, int]:
    out = {}
    for module in (agent_kernels, angles, animation_kernels, kernels):
        for name, d in vars(module).items():
            if isinstance(d, numba.core.registry.CPUDispatcher):
                out[f"{module.__name__}.{name}"] = len(d.signatures)
    return out


def test_warm_up_compiles_what_the_package_calls() -> None:
    """After `warm_up`, real use (a batch of characters, agents alone, one NavAgent) adds no signature."""
    kernels.warm_up()
    before = _signatures()
    rng = np.random.default_rng(5)
    with World(load_scene("warehouse")) as world:
        query = NavMeshQuery(scene_navmesh(world)[0])
        starts = np.array([query.random_point(rng)[0] for _ in range(4)])
        # pivot turns (the default coupling) and not (the simulation's, which fuses the tick further)
        for coupling in (CouplingSettings(), CouplingSettings(foot_lock=False, pivot_turns=False)):
            batch = LocomotionBatch(
                world, query, starts, np.zeros(4), agent=AgentSettings(radius=0.3), coupling=coupling
            )
            batch.views[0].set_destination(query.random_point(rng)[0])
            batch.views[1].set_destination(query.random_point(rng)[0], speed=1.4)
            batch.views[2].move_freely(2.0, 1.0)
            for t in range(90):
                if t == 45:
                    batch.views[3].warp(query.random_point(rng)[0])
                    batch.views[0].stop()
                batch.before_physics(DT)
                world.step()
                batch.after_physics()
                assert batch.views[1].remaining_distance >= 0.0
        agents = AgentBatch(query, starts)
        agents.set_destination(0, query.random_point(rng)[0])
        agents.update(DT)
        agents.update(DT, np.array([0, 2]))
        agents.set_next_position([0, 1], starts[:2] + 0.1)
        agents.follow(None, starts + 0.05)
        agents.remaining_distance()
        agent = NavAgent(query, starts[0])
        agent.set_destination(query.random_point(rng)[0])
        for _ in range(30):
            agent.update(DT)
        agent.next_position = agent.next_position + [0.05, 0.0, 0.0]
        assert np.isfinite(agent.desired_velocity).all() and agent.remaining_distance >= 0.0
    assert angles.turn_toward(np.zeros(2), np.ones(2), 0.1).shape == (2,)
    assert angles.wrap_angle(np.zeros((2, 2))).shape == (2, 2)
    assert _signatures() == before


def _moving_batch(world: World, query: NavMeshQuery, n: int, ticks: int) -> LocomotionBatch:
    """A batch some ticks into a run: rows following paths, walking freely and standing."""
    rng = np.random.default_rng(21)
    starts = np.array([query.random_point(rng)[0] for _ in range(n)])
    batch = LocomotionBatch(world, query, starts, rng.uniform(-3, 3, n), agent=AgentSettings(radius=0.3))
    for i, view in enumerate(batch.views):
        if i % 3 == 0:
            view.move_freely(1.5, float(rng.uniform(-3, 3)))
        elif i % 3 == 1:
            view.set_destination(query.random_point(rng)[0], speed=float(rng.choice([1.4, 3.5])))
    for _ in range(ticks):
        batch.before_physics(DT)
        world.step()
        batch.after_physics()
    for i in range(0, n, 3):  # free rows with a path: the coupling counts them for a reset
        batch.views[i].set_destination(query.random_point(rng)[0])
        batch.views[i].move_freely(1.0, None)
    return batch


def test_the_fused_tick_is_its_parts_one_after_another() -> None:
    """`couple_and_drive` gives, to the bit, what `couple` then `animate_and_drive` give on the same arrays;
    `begin` what `feet`, the row mask, `advance_rows` and `find_drift` give; `settle` what `feet`,
    `follow_rows` and `find_drift` give."""
    with World(load_scene("warehouse")) as world:
        query = NavMeshQuery(scene_navmesh(world)[0])
        b = _moving_batch(world, query, 9, 40)
        ag, an, c = b.agents, b.animators, b.coupling
        poses = world.poses
        n = b.n

        def state() -> dict[str, np.ndarray]:
            """Copies of every array a kernel may write."""
            named = {
                "yaw": b.yaw, "smooth": b.smooth_delta, "request": b.velocity_request, "move": b.should_move,
                "next": ag.next_position, "velocity": ag.velocity, "corner": ag.corner, "poly": ag.poly,
                "poly_id": ag.poly_id, "pulls": b.pulls,
            }  # fmt: skip
            out = {k: v.copy() for k, v in named.items()}
            out.update({f"animator{k}": a.copy() for k, a in enumerate(an.kernel_state)})
            return out

        def animator(s: dict[str, np.ndarray]) -> tuple:
            return tuple(s[f"animator{k}"] for k in range(len(an.kernel_state)))

        def couple_args(s: dict[str, np.ndarray]) -> tuple:
            return (
                DT, b._pos, b.free, b.free_speed, b.free_heading, s["yaw"], s["smooth"], s["request"],
                s["move"], s["animator0"], s["next"], ag.velocity, ag.top_speed, ag.stopping_distance,
                ag.path_corners, ag._tail, ag.corner, ag.path_len, ag.has_path, ag.has_destination, steer,
                c.tau, c.feedforward_s, c.max_speed_factor, c.should_move_speed, b._turn, c.turn_in_place,
            )  # fmt: skip

        steer = np.full((n, 2), np.nan)  # every third row faces along a crowd's velocity
        steer[::3] = np.random.default_rng(4).normal(0.0, 1.0, (len(steer[::3]), 2))
        kernels.feet(poses.positions, b._pose_rows, b.height / 2, b._pos)
        out = {k: (np.empty((n, 3)), np.empty(n), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                   np.empty((n, 2)), np.empty((n, 3))) for k in "ab"}  # fmt: skip
        pivot = np.random.default_rng(3).normal(0.0, 0.01, (n, 2))
        fused, parts = state(), state()
        stale_a = kernels.couple_and_drive(
            *couple_args(fused)[:9], *couple_args(fused)[10:], 0.5, 0.25, an._all, animator(fused), an._ups,
            an._downs, an._fades, an.blend.kernel_data, *out["a"][:4], pivot, poses.velocities, b._pose_rows,
            *out["a"][4:],
        )  # fmt: skip
        stale_b = kernels.couple(*couple_args(parts))
        ok = kernels.animate_and_drive(
            DT, 0.5, 0.25, an._all, animator(parts), an._ups, an._downs, an._fades, an.blend.kernel_data,
            *out["b"][:4], parts["yaw"], pivot, poses.velocities, b._pose_rows, *out["b"][4:],
        )  # fmt: skip
        assert ok and stale_a == stale_b > 0
        for k in fused:
            assert np.array_equal(fused[k], parts[k]), k
        for x, y in zip(out["a"], out["b"], strict=True):
            assert np.array_equal(x, y)

        # begin: the first half of before_physics
        fused, parts = state(), state()
        rows, mask, pos = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool), np.zeros((n, 3))
        bufs = {k: (np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros((n, 3)))
                for k in "ab"}  # fmt: skip

        def agent_args(s: dict[str, np.ndarray]) -> tuple:
            return (
                s["next"], s["velocity"], s["corner"], s["poly"], s["poly_id"], ag.path_corners, ag._tail,
                ag.path_len, ag.has_path, ag.is_stopped, ag.top_speed, ag.acceleration, ag.stopping_distance,
                ag.auto_braking, ag.corridor_tolerance, ag.corridors, ag.corridor_len, ag._edges, ag._planes,
            )  # fmt: skip

        speeds, status, far, targets = bufs["a"]
        m, count, pulls = kernels.begin(
            poses.positions, b._pose_rows, b.height / 2, b.free, pos, mask, rows, DT, *agent_args(fused),
            speeds, status, True, ag.radius, c.drift_keep, fused["pulls"], far, targets,
        )  # fmt: skip
        speeds_b, status_b, far_b, targets_b = bufs["b"]
        pos_b = np.zeros((n, 3))
        kernels.feet(poses.positions, b._pose_rows, b.height / 2, pos_b)
        rows_b = np.flatnonzero(~b.free)
        count_b = agent_kernels.advance_rows(rows_b, DT, *agent_args(parts), speeds_b, status_b)
        pulls_b = 0 if count_b else kernels.find_drift(
            ~b.free, pos_b, parts["next"], ag.radius, c.drift_keep, parts["pulls"], far_b, targets_b
        )  # fmt: skip
        assert (m, count, pulls) == (rows_b.size, count_b, pulls_b) and np.array_equal(rows[:m], rows_b)
        assert np.array_equal(mask, ~b.free) and np.array_equal(pos, pos_b)
        for k in fused:
            assert np.array_equal(fused[k], parts[k]), k
        for x, y in zip(bufs["a"], bufs["b"], strict=True):
            assert np.array_equal(x, y)

        # settle: after_physics
        fused, parts = state(), state()
        for s in (fused, parts):
            s["next"][~ag.has_path] += 0.05  # the bodies the agents without a path follow moved
            s["next"][ag.has_path] += 0.5  # and those with one drifted off: pulls
        st_a, st_b = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        far, targets = np.zeros(n, dtype=np.int64), np.zeros((n, 3))
        ok, followed, pulls = kernels.settle(
            poses.positions, b._pose_rows, b.height / 2, pos, ag._all, fused["next"], ag.has_path,
            fused["poly_id"], ag._edges, ag._planes, st_a, True, ag.radius, c.drift_keep, fused["pulls"], far,
            targets,
        )  # fmt: skip
        followed_b = agent_kernels.follow_rows(
            ag._all, pos_b, parts["next"], ag.has_path, parts["poly_id"], ag._edges, ag._planes, st_b
        )
        pulls_b = kernels.find_drift(
            ag.has_path, pos_b, parts["next"], ag.radius, c.drift_keep, parts["pulls"], far_b, targets_b
        )
        assert ok and (followed, pulls) == (followed_b, pulls_b) and pulls > 0
        assert np.array_equal(st_a, st_b) and np.array_equal(far[:pulls], far_b[:pulls])
        assert np.array_equal(targets[:pulls], targets_b[:pulls])
        for k in fused:
            assert np.array_equal(fused[k], parts[k]), k


def test_a_row_the_crowd_steers_faces_along_the_crowds_velocity() -> None:
    """`couple` turns a path row's facing toward its path's next corner; with a `steer` velocity (the
    crowd's sidestep) toward the agent's low-pass filtered offset (the coupling's `smooth_delta`) plus
    STEER_AHEAD_S of that velocity instead, at the same turn rate; NaN leaves the corner rule alone."""
    f, f2, f3, yes = np.zeros(1), np.zeros((1, 2)), np.zeros((1, 3)), np.ones(1, dtype=np.bool_)
    corners = np.array([[[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]]])  # the path runs along +x
    agent = np.array([[0.2, 0.0, 0.0]])  # the agent just ahead of the body at the origin

    def yaw_after(steer: np.ndarray, turn_rate: float) -> float:
        yaw = f.copy()
        kernels.couple(
            DT, f3.copy(), ~yes, f.copy(), f.copy(), yaw, f2.copy(), f2.copy(), ~yes, f.copy(), agent,
            np.array([[1.0, 0.0, 0.0]]), f + 1.5, f.copy(), corners, np.zeros((1, 2)),
            np.ones(1, dtype=np.int64), np.full(1, 2, dtype=np.int64), yes, yes, steer, 0.15, 0.3, 1.5,
            0.05, turn_rate, False,
        )  # fmt: skip
        return float(yaw[0])

    none = np.full((1, 2), np.nan)
    assert yaw_after(none, 100.0) == 0.0  # faces the corner, straight ahead
    sideways = np.array([[0.0, -1.0]])  # the crowd sends the agent to its right
    expected = np.arctan2(-1.0 * kernels.STEER_AHEAD_S, 0.2 * DT / 0.15)  # the offset, filtered once (tau)
    assert yaw_after(sideways, 1000.0) == pytest.approx(expected, abs=1e-12)
    assert yaw_after(sideways, 6.0) == pytest.approx(-6.0 * DT, abs=1e-12)  # at the turn rate
