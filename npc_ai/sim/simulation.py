"""The simulation loop: one object owns the world, the navmesh query, the NPCs and the player.

One tick, in order (DESIGN.md):
    1. perceive  - sight for the NPCs whose staggered timer fires (overlap query for candidates, view
                   cones in numpy, one ray batch for all line-of-sight rays), hearing of this tick's
                   noises (numpy), obstacle box casts for wandering NPCs whose probe timer fires
    2. decide    - each NPC's state machine turns percepts into intents; the player decides too
    3-5. navigate / animate / couple - `LocomotionBatch.before_physics`, all NPCs at once (arrays)
    6. physics   - `world.step()`, then `after_physics` for every character
    7. record    - this tick's events go to the world's event log; trails are sampled

Deterministic under the seed: each NPC's random stream derives from (seed, its name), the player's from
(seed, "player"), so adding or removing an NPC leaves every other character's draws unchanged.
"""

from __future__ import annotations

import math
import time as _time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navigation.agent import AgentSettings
from navigation.avoidance import AvoidanceSettings
from navigation.dynamic import CarveUpdate
from navigation.filters import QueryFilter
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery
from npc_ai.animation import AnimatorSettings
from npc_ai.behaviour import BehaviourBatch, BehaviourSettings, Noise, Npc, states
from npc_ai.behaviour.batch import xyz as _xyz
from npc_ai.behaviour.hearing import listen, shout_reach
from npc_ai.behaviour.perception import EYE_CLEARANCE, Perception
from npc_ai.behaviour.probes import navmesh_edge_gaps, probe_obstacles_many
from npc_ai.behaviour.timers import SightTimers
from npc_ai.body.batch import LocomotionBatch
from npc_ai.body.coupling import CouplingSettings
from npc_ai.errors import NpcAiError
from npc_ai.levels.ledges import Ledges, guard_ledges
from npc_ai.levels.navmesh import bake_settings, scene_links, scene_navmesh
from npc_ai.sim.area_filters import AreaFilters
from npc_ai.sim.control import Controllers
from npc_ai.sim.control import NpcController as NpcController  # re-exported
from npc_ai.sim.crowd import feed_crowd
from npc_ai.sim.embedding import check_injection
from npc_ai.sim.links import LinkHandler, LinkTraversals
from npc_ai.sim.player import Player, PlayerController, PlayerSettings
from npc_ai.sim.shots import fire_shots, npc_shot
from npc_ai.sim.spawning import spread_spawns, stream, unique_names
from npc_ai.sim.trace import Timings, Trace
from scenes import EventLog, Scene, World, WorldSettings, groups

GRID_AGENT_RADIUS = 0.3  # [m] agent radius on scenes whose navmesh is not eroded (MovingAI grids)


class SimulationError(NpcAiError, ValueError):
    """A simulation was asked for something impossible (no navmesh, a bad NPC count...)."""


@dataclass(frozen=True)
class SimulationSettings:
    """What to simulate.

    Attributes:
        npcs: how many NPCs; None = the scene's spawns. More than the scene has adds NPCs at seeded random
            navmesh points; fewer takes the first ones.
        player: a `PlayerSettings` (mode "route", "wander", "still", "keyboard"), or None for no player.
        trail_every: sample positions and states for the replay every this many ticks [>= 1; 0 = never].
        trail_capacity: most samples the replay trace holds [>= 2]; when it fills, every other sample is
            dropped and the sampling interval doubles, so a run of any length keeps its whole span.
        world: world settings (tick length, substeps).
        use_cache: load the navmesh from the on-disk cache when possible.
        root_only_animation: animators compute root motion every tick and the skeleton pose only when
            it is read (`AnimatorSettings.lazy_pose`: the same motion, about 4x cheaper). False samples
            full poses every tick.
        avoidance: local avoidance between the NPCs and the player (`navigation.AvoidanceSettings`: ORCA
            with the priorities of `npc_ai.sim.crowd.CROWD_PRIORITY`); None (the default): the capsules
            only push each other. Opt-in for now: it keeps converging crowds apart, but two-way traffic
            through a doorway deadlocks with it (`npc-ai bench crowd`).
        bodies: "dynamic" (the default: capsules whose contacts physics solves) or "kinematic" (capsules
            that root motion moves on the navmesh and that keep apart by position, `npc_ai.body.kinematic`:
            walls, ledges and floor heights exact by construction; several times cheaper to step).
        timer_batch: NPCs a sight ray batch should hold before the batches spread over more ticks [>= 1]
            (`npc_ai.behaviour.timers`: each NPC looks once per period whatever it is; 1 gives every NPC
            its own phase).
    """

    npcs: int | None = None
    player: PlayerSettings | None = field(default_factory=PlayerSettings)
    trail_every: int = 6
    trail_capacity: int = 2048
    world: WorldSettings = field(default_factory=WorldSettings)
    use_cache: bool = True
    root_only_animation: bool = True
    avoidance: AvoidanceSettings | None = None
    bodies: str = "dynamic"
    timer_batch: int = 16

    def __post_init__(self) -> None:
        if self.npcs is not None and not (isinstance(self.npcs, int) and 0 <= self.npcs <= 10_000):
            raise SimulationError(f"npcs must be an integer in 0..10000, got {self.npcs!r}")
        if not (isinstance(self.trail_every, int) and self.trail_every >= 0):
            raise SimulationError(f"trail_every must be an integer >= 0, got {self.trail_every!r}")
        if not (isinstance(self.trail_capacity, int) and self.trail_capacity >= 2):
            raise SimulationError(f"trail_capacity must be an integer >= 2, got {self.trail_capacity!r}")
        if self.avoidance is not None and not isinstance(self.avoidance, AvoidanceSettings):
            got = type(self.avoidance).__name__
            raise SimulationError(f"avoidance must be a navigation.AvoidanceSettings or None, got {got}")
        if self.bodies not in ("dynamic", "kinematic"):
            raise SimulationError(f"bodies must be 'dynamic' or 'kinematic', got {self.bodies!r}")
        if not (isinstance(self.timer_batch, int) and self.timer_batch >= 1) or self.timer_batch is True:
            raise SimulationError(f"timer_batch must be an integer >= 1, got {self.timer_batch!r}")


class Simulation:
    """Enemies and a player in one PyBullet world.

    The simulation builds its own `World` by default. To embed it in a larger program, hand it a world or a
    physics client (dm_control style); ownership follows who made the thing:

    - `Simulation(scene)`: the simulation opens a client and builds the world; `close()` disconnects it.
    - `Simulation(scene, client=bullet_client)`: the simulation builds its world into your client;
      `close()` removes the simulation's bodies and leaves the client connected (you disconnect it).
    - `Simulation(scene, world=World(scene, client=...))`: the simulation adds its NPCs and player to your
      world and steps it; `close()` leaves the world and its bodies alone (you close it).

    Args:
        scene: the level (its NPC spawns, archetypes, player spawn and route).
        seed: seeds the world's Generator, from which every other random draw derives (default 0). With an
            injected `world`, leave it out (the world's own seed applies) or pass the world's seed.
        settings: NPC count, player mode, trail sampling.
        gui: open the PyBullet GUI (only when the simulation opens the client itself), with the overlay of
            `npc_ai.viz.gui` (level camera, paths, view cones, states, follow keys) as `gui_overlay`.
        navmesh: a navmesh to use instead of baking / loading the scene's.
        world: a `World` of `scene` to simulate in, owned by the caller. `settings.world` must then be left
            at its default or equal `world.settings`.
        client: a `BulletClient` to build the world into, owned by the caller.
        player_controller: your own player (see `npc_ai.sim.player.PlayerController`): a callable
            `(player, time, watchers) -> None` called every tick to steer the player instead of its mode.
            Needs `settings.player` (speeds, aim height, footsteps) to be set.
        link_handler: takes over every crossing of the scene's `[[link]]`s (`npc_ai.sim.links`).
    Raises:
        SimulationError: both `world` and `client`, a `world` of another scene, a `seed`, `gui` or
            `settings.world` that contradicts the injected world, a controller without a player, or a
            scene without a walkable navmesh.
    """

    def __init__(
        self,
        scene: Scene,
        *,
        seed: int | None = None,
        settings: SimulationSettings | None = None,
        gui: bool = False,
        navmesh: NavMesh | None = None,
        world: World | None = None,
        client: Any = None,
        player_controller: PlayerController | None = None,
        link_handler: LinkHandler | None = None,
    ) -> None:
        self.scene = scene
        self.settings = settings if settings is not None else SimulationSettings()
        self.player_controller, self._link_handler = player_controller, link_handler
        if player_controller is not None:
            if self.settings.player is None:
                raise SimulationError("a player_controller needs a player: settings.player must not be None")
            if not callable(player_controller):
                raise SimulationError(
                    "player_controller must be callable as (player, time, watchers), "
                    f"got {type(player_controller).__name__}"
                )
        check_injection(world, client, scene, seed, gui, self.settings)
        self._owns_world = world is None
        if world is None:
            seed = 0 if seed is None else seed
            world = World(scene, seed=seed, settings=self.settings.world, gui=gui, client=client)
        self.world = world
        self.gui_overlay = None  # with gui: a GuiOverlay (camera, paths, cones, states; f/p/l keys)
        try:
            self._build(navmesh)
            if gui:
                from npc_ai.viz.gui import GuiOverlay

                self.gui_overlay = GuiOverlay(self)
        except BaseException:
            if self._owns_world:
                self.world.close()
            raise

    def _build(self, navmesh: NavMesh | None) -> None:
        world, scene, s = self.world, self.scene, self.settings
        mesh = navmesh if navmesh is not None else scene_navmesh(world, use_cache=s.use_cache)[0]
        if mesh.polygon_count == 0:
            raise SimulationError(f"scene {scene.name!r} has no walkable navmesh")
        self.query = NavMeshQuery(mesh)
        self._edge_gaps = navmesh_edge_gaps(self.query)
        self.timings = Timings()
        self._pending: list[tuple[Npc | None, str, dict[str, Any]]] = []
        self._counts: Counter[tuple[str, str]] = Counter()  # (npc, event) -> events recorded, exact
        self._noises: list[Noise] = []
        self._controllers = Controllers()  # NPC index -> its controller (see `control`)
        # archetype settings are validated before anything is spawned
        archetypes: dict[str, BehaviourSettings] = {}
        for spawn in scene.npcs:
            if spawn.archetype not in archetypes:
                archetypes[spawn.archetype] = BehaviourSettings.for_archetype(scene, spawn.archetype)
        default = archetypes.get("default") or BehaviourSettings.for_archetype(scene, "default")
        count = len(scene.npcs) if s.npcs is None else s.npcs
        names = unique_names([spawn.name for spawn in scene.npcs[:count]], count)
        spawns: list[tuple[str, np.ndarray, float, BehaviourSettings, tuple]] = []
        for name, spawn in zip(names, scene.npcs[:count], strict=False):
            position = np.asarray(spawn.position, dtype=np.float64)
            yaw = math.radians(spawn.yaw_deg)
            spawns.append((name, position, yaw, archetypes[spawn.archetype], spawn.patrol))
        main = self.query.mesh.main_island
        for name in names[len(spawns) :]:  # extra NPCs: a spot and a heading from their own stream
            draw = stream(world.seed, name, "spawn")
            p, _ = self.query.random_point(draw, islands=main)
            spawns.append((name, p, float(draw.uniform(-math.pi, math.pi)), default, ()))
        # a grid scene's mesh is not eroded (radius 0): its agents still need a body
        bake = bake_settings(scene.navmesh)  # the agent size the navmesh is baked for
        radius = bake.agent_radius if bake.agent_radius > 0 else GRID_AGENT_RADIUS
        agent = AgentSettings(radius=radius, height=bake.agent_height)
        self._player_radius = radius  # the player is as wide as an NPC, for the crowd [m]
        animator = AnimatorSettings(lazy_pose=s.root_only_animation)
        full_pose = not s.root_only_animation  # foot locking and pivoting read the pose's feet
        coupling = CouplingSettings(foot_lock=full_pose, pivot_turns=full_pose)
        player_rng = stream(world.seed, "", "player")
        player_at: np.ndarray | None = None
        if s.player is not None:
            if scene.player is not None:
                player_at = np.asarray(scene.player.position, dtype=np.float64)
            else:
                player_at = self.query.random_point(player_rng, islands=main)[0]
        # no two bodies start inside each other: later spawns move to the nearest free spot
        starts = np.array([p for _, p, *_ in spawns] + ([] if player_at is None else [player_at]))
        if player_at is not None:  # the player keeps its spot; NPCs make room
            starts = np.roll(starts, 1, axis=0)
        spread, moved = spread_spawns(starts, radius, agent.height, self.query)
        if player_at is not None:
            spread, moved = np.roll(spread, -1, axis=0), np.roll(moved, -1)
        self.locomotion = LocomotionBatch(
            world,
            self.query,
            spread[: len(spawns)].reshape(-1, 3),
            np.array([yaw for _, _, yaw, *_ in spawns], dtype=np.float64),
            agent=agent,
            animator=animator,
            coupling=coupling,
            avoidance=s.avoidance,
            kinematic=s.bodies == "kinematic",
        )
        self.behaviour = BehaviourBatch(
            self.locomotion,
            [behaviour for *_, behaviour, _ in spawns],
            [name for name, *_ in spawns],
            [route for *_, route in spawns],
            [stream(world.seed, name) for name, *_ in spawns],
            self,
        )
        self.npcs: list[Npc] = [Npc(self.behaviour, i) for i in range(len(spawns))]
        self.behaviour.views = self.npcs
        for npc, (_, pos, *_) in zip(self.npcs, spawns, strict=True):
            if moved[npc.index]:
                self.record(npc, "spawn_moved", {"from": _xyz(pos), "to": _xyz(spread[npc.index])})
        self.player: Player | None = None
        if s.player is not None and player_at is not None:
            if scene.player is not None:
                yaw, route = math.radians(scene.player.yaw_deg), scene.player.route
                loop = scene.player.loop
            else:
                yaw, route, loop = 0.0, (), True
            pos = player_at
            self.player = Player(
                world,
                self.query,
                pos,
                yaw=yaw,
                settings=s.player,
                rng=player_rng,
                route=route,
                loop=loop,
                controller=self.player_controller,
            )
        self._bodies = {npc.body: npc for npc in self.npcs}
        links = scene_links(scene, self.query, world) if scene.links or scene.link_search.find else ()
        self.links = LinkTraversals(self, links, self._link_handler) if links else None
        # guarded, a ledge is a wall to dynamic NPCs: a crowd never pushes one off (kinematic: the mesh holds)
        lo = self.locomotion
        self.ledges = Ledges.none() if lo.kinematic else guard_ledges(world, mesh, bake, lo.radius, links)
        self.area_filters = AreaFilters(self)  # per-NPC query filters (`filter_areas`)
        period = [max(1, round(n.settings.perception_period_s / world.dt)) for n in self.npcs]
        self.sight_timers = SightTimers(np.array(period, dtype=np.int64), s.timer_batch)
        self.perception = Perception(world, period_ticks=max(period, default=1))
        self.trace = Trace([n.name for n in self.npcs], capacity=s.trail_capacity)
        world.step()  # settle one tick so every pose is a physics pose
        self.locomotion.after_physics()
        if self.player is not None:
            self.player.after_physics()
        states.start(self.behaviour)
        self._flush()
        self._sample()

    # -- services for the NPCs (NpcEnv) ---------------------------------------------------------------
    @property
    def time(self) -> float:
        return self.world.time

    @property
    def dt(self) -> float:
        return self.world.dt

    def record(self, npc: Npc | None, event: str, data: dict[str, Any]) -> None:
        """Queue an event for this tick's record phase."""
        self._pending.append((npc, event, data))

    def hitscan(self, npc: Npc) -> dict[str, Any]:
        """Fire npc's hit-scan shot at the player (`npc_ai.sim.shots.npc_shot`: seeded spread, heard)."""
        return npc_shot(self, npc)

    def broadcast_alert(self, npc: Npc, position: np.ndarray) -> None:
        """Share `npc`'s sighting (the player's feet `position` [m], seen now) with the allies its shout
        or its radio reaches (`npc_ai.behaviour.hearing.shout_reach`)."""
        if npc.settings.alert_radius <= 0 and not npc.settings.radio:
            return
        for i in shout_reach(self.world, self.behaviour, npc.index).tolist():
            self.behaviour.alert(i, position, npc.name, self.time)

    def emit_noise(self, position: object, loudness: float = 1.0, source: str = "") -> None:
        """A noise (a footstep, a thrown stone) heard by NPCs in the next perceive phase."""
        p = np.asarray(position, dtype=np.float64)
        if p.shape != (3,) or not np.isfinite(p).all() or not (math.isfinite(loudness) and loudness >= 0):
            raise SimulationError(
                f"a noise needs a 3-D position and a loudness >= 0, got {position!r}, {loudness!r}"
            )
        self._noises.append(Noise(p, float(loudness), source, self.time))
        self.record(
            None, "noise", {"position": _xyz(p), "loudness": round(float(loudness), 4), "source": source}
        )

    # -- the tick ---------------------------------------------------------------------------------------
    def step(self) -> None:
        """One fixed tick: perceive, decide, locomotion, physics, record."""
        clock = _time.perf_counter
        t0 = clock()
        self._perceive()
        t1 = clock()
        self._decide()
        t2 = clock()
        dt = self.world.dt
        crowd, player = self.locomotion.crowd, self.player
        if crowd is not None:  # priorities from the states, the player as an obstacle
            feet = None if player is None else player.position
            body = None if player is None else player.body
            feed_crowd(crowd, self.behaviour.state, self.world, body, feet, self._player_radius)
        if player is not None:  # the NPC bodies keep out of the player
            self.locomotion.solid = (player.position[None, :2].copy(), np.array([self._player_radius]))
        if self.links is not None:  # NPCs at a link's start begin crossing it
            self.links.before()
        self.locomotion.before_physics(dt)
        if self.player is not None:
            self.player.before_physics(dt)
        t3 = clock()
        self.world.step()
        t4 = clock()
        self.locomotion.after_physics()
        if self.player is not None:
            self.player.after_physics()
        if self.links is not None:  # bodies crossing links go where the crossing puts them
            self.links.after(dt)
        t5 = clock()
        self._flush()
        if self.settings.trail_every and self.world.tick % self.settings.trail_every == 0:
            self._sample()
        t6 = clock()
        tm = self.timings
        tm.perceive += t1 - t0
        tm.decide += t2 - t1
        tm.locomotion += (t3 - t2) + (t5 - t4)
        tm.physics += t4 - t3
        tm.record += t6 - t5
        tm.ticks += 1
        if self.gui_overlay is not None:  # GUI only, outside the timings
            self.gui_overlay.update()

    def use_navmesh(self, update: CarveUpdate) -> list[Npc]:
        """Switch every NPC and the player to the navmesh a `navigation.DynamicNavMesh` update made
        (crates pushed, barrels moved: call between ticks, after `update`). Whoever's path crosses a
        rebuilt polygon re-plans at once (`AgentBatch.use_query`), the others keep theirs; each re-plan is
        recorded as a `replanned` event. Returns the NPCs that re-planned.

        Raises:
            SimulationError: `update` is not a CarveUpdate. NavMeshError: it was made from another mesh
                than the one in use (its `remap` does not fit).
        """
        if not isinstance(update, CarveUpdate):
            raise SimulationError(f"update must be a navigation.CarveUpdate, got {type(update).__name__}")
        if not update.any:
            return []
        query = NavMeshQuery(update.mesh)
        rows = self.locomotion.use_query(query, update.remap)
        if self.player is not None:
            self.player.use_query(query, update.remap)
        self.query = query
        self._edge_gaps = navmesh_edge_gaps(query)
        moved = [self.npcs[i] for i in rows.tolist()]
        for npc in moved:
            self.record(npc, "replanned", {"rebuilt_polygons": int(update.changed.size)})
        return moved

    def run(self, seconds: float, *, realtime: bool = False) -> None:
        """Step for `seconds` of simulated time (paced to the wall clock when `realtime`)."""
        ticks = max(0, round(seconds / self.world.dt))
        start = _time.perf_counter()
        for k in range(ticks):
            self.step()
            if realtime:
                ahead = (k + 1) * self.world.dt - (_time.perf_counter() - start)
                if ahead > 0:
                    _time.sleep(ahead)

    def _perceive(self) -> None:
        world, tick, t, b = self.world, self.world.tick, self.world.time, self.behaviour
        if not b.n:
            return
        due = self.sight_timers.due(tick)  # sight: the NPCs whose timer fires, one ray batch for all of them
        if due.size:
            player = self.player
            if player is None:
                b.sight(due, np.zeros(due.size, dtype=bool), np.zeros(3), np.zeros(3))
            else:
                c = b.cfg
                eyes = b.positions()[due]
                eyes[:, 2] += c.eye_height[due]
                radii = np.where(b.sees[due], c.lose_sight_radius[due], c.sight_radius[due])
                clear = np.full(due.size, self.locomotion.radius + EYE_CLEARANCE)
                targets = {player.body: player.aim_point}
                # while it sees the player, a cone wider by the margin (no spotted / lost at its edge)
                cones = np.where(b.sees[due], c.cos_lose_half_angle[due], c.cos_half_angle[due])
                seen, _, points = self.perception.see(
                    eyes, self.locomotion.yaw[due], clear, radii, cones, targets
                )
                b.sight(
                    due, seen[:, 0], points[0], player.position, target_speed=player.locomotor.speed,
                    crouching=player.crouching,
                )  # fmt: skip
        # hearing: every noise of the last tick against every NPC, walls in between in one ray batch
        if self._noises:
            noises, self._noises = self._noises, []
            listen(world, b, noises)
        # obstacle probes for wandering NPCs whose detection timer fires (not for controlled ones: the
        # probes serve the Wander state, which a controller replaces). With the crowd's avoidance on they see
        # the level only: the avoidance steers a wanderer round the other NPCs, while a probe that saw them
        # stopped it (a wanderer stops short of what is ahead), and wanderers that stood boxed in by each
        # other were a quarter of the warehouse soak's stuck NPC-time
        want = b.wants_probe(t)
        want[self._controllers.rows] = False
        rows = np.flatnonzero(want)
        if rows.size:
            lo, c = self.locomotion, b.cfg
            probes = probe_obstacles_many(
                world,
                bodies=lo.bodies[rows],
                feet=b.positions()[rows],
                yaws=lo.yaw[rows],
                body_radius=lo.radius,
                height=lo.height,
                skin=c.probe_skin[rows],
                reach=c.probe_range[rows],
                obstacle_range=c.obstacle_range[rows],
                time=t,
                edge_gaps=self._edge_gaps,  # the mesh edge: box casts see walls, the mesh sees ledges
                mask=groups.STATIC if self.locomotion.crowd is not None else groups.STATIC | groups.NPC,
            )
            b.probes(rows, probes.forward, probes.left, probes.right, probes.nudge, t)

    def control(self, npc: str | int, controller: NpcController | None) -> None:
        """Hand one NPC to your own controller (a learning agent, a script), or give it back (None).

        A controlled NPC still perceives (sight, hearing, alerts: its `sees`, `memory` and `target_point`
        stay current, and its sightings alert its allies) and still moves through the batched locomotion;
        only its state machine is skipped (and the obstacle box casts that serve its Wander state):
        `controller(npc, time)` is called after the state machines of the others in the decide phase,
        and steers it with `npc.walk(speed, heading)` or `npc.go_to(point, speed)`.

        Raises:
            SimulationError: an unknown NPC name or index, or a controller that is not callable.
        """
        self._controllers.set(self.npcs, npc, controller)

    def filter_areas(self, npc: str | int, area_filter: QueryFilter | None) -> None:
        """Keep one NPC's paths out of some areas, or price them (`navigation.QueryFilter` over the scene's
        `[[area]]`s), or plan plainly again (None); it re-plans now. Raises `SimulationError` (an unknown
        NPC or area name, or a scene with off-mesh links)."""
        self.area_filters.set(self.npcs, npc, area_filter)

    def _decide(self) -> None:
        controllers, t = self._controllers, self.time
        states.decide(self.behaviour, controllers.free(self.behaviour.n))
        for i, controller in controllers.items():
            controller(self.npcs[i], t)
        if self.player is not None:
            b = self.behaviour
            rows = np.flatnonzero(b.sees)
            eyes = b.positions()[rows] if rows.size else np.zeros((0, 3))  # no positions read when unseen
            eyes[:, 2] += b.cfg.eye_height[rows]
            step = self.player.decide(self.time, eyes)
            if step is not None:
                self.emit_noise(step[0], step[1], "player")
            if self.player.shots:  # heard, and under fire whoever they pass close to
                fire_shots(self.player, b, self._bodies, self)

    def _flush(self) -> None:
        t = self.world.time
        for npc, event, data in self._pending:
            self._counts[("" if npc is None else npc.name, event)] += 1
            if npc is None:
                self.world.events.record(t, event, npc="", **data)
            else:
                self.world.events.record(
                    t, event, npc=npc.name, state=npc.state, position=_xyz(npc.position), **data
                )
        self._pending.clear()

    def _sample(self) -> None:
        tr = self.trace
        if not tr.offer():  # decimated away (see Trace)
            return
        tr.add(
            self.world.time,
            self.behaviour.positions().reshape(-1, 3),
            self.locomotion.yaw.copy(),
            self.behaviour.state.copy(),
            self.player.position if self.player is not None else np.full(3, np.nan),
        )

    # -- results ---------------------------------------------------------------------------------------
    @property
    def events(self) -> EventLog:
        """The world's event log: its latest events in order (`scenes.EventLog` holds the last `keep`;
        `stream_to` a file keeps them all)."""
        return self.world.events

    def timeline(self, events: tuple[str, ...] | None = None) -> list[str]:
        """One line per held event (the log's latest; see `events`): time, NPC, event, the key details."""
        out = []
        for e in self.world.events:
            if events is not None and e.event not in events:
                continue
            d = dict(e.data)
            who = d.pop("npc", "")
            d.pop("state", None)
            pos = d.pop("position", None)
            details = " ".join(f"{k}={_short(v)}" for k, v in d.items())
            at = f" at {_short(pos)}" if pos is not None else ""
            out.append(f"{e.t:8.2f} s  {who:<10} {e.event:<12}{at} {details}".rstrip())
        return out

    def summary(self) -> list[str]:
        """One line per NPC: time per state, sightings, shots and hits, distance from its start."""
        out = []
        counts = self._counts  # exact, though the event log holds only its latest events
        for npc in self.npcs:
            total = sum(npc.state_time.values()) or 1.0
            shares = ", ".join(
                f"{k} {100 * v / total:.0f}%"
                for k, v in sorted(npc.state_time.items(), key=lambda kv: -kv[1])
            )
            out.append(
                f"{npc.name:<10} {npc.home:<7} spotted {npc.spotted}, shots {npc.shots} ({npc.hits} hit), "
                f"chases {counts[(npc.name, 'chase')]}, searches {counts[(npc.name, 'search')]}, "
                f"heard {counts[(npc.name, 'heard')]}; time: {shares}; now {npc.state}"
            )
        return out

    def close(self) -> None:
        """Close the world if the simulation built it (see the class docs: an injected world is left open,
        an injected client stays connected)."""
        if self._owns_world:
            self.world.close()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _short(v: Any) -> str:
    if isinstance(v, list) and len(v) == 3 and all(isinstance(x, int | float) for x in v):
        return f"({v[0]:.1f}, {v[1]:.1f})"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)
