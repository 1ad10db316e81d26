"""Enemy behaviour: Wander / Patrol / Aim / Shoot / Chase / Search / Investigate on a state machine.

`BehaviourSettings` holds one archetype's validated settings; `Npc` is one enemy's brain (memory, percepts,
state machine) on top of a `Locomotor`; the states live in `npc_ai.behaviour.states`.
"""

from npc_ai.behaviour.brain import Memory, Noise, Npc
from npc_ai.behaviour.machine import BehaviourError, State, StateMachine
from npc_ai.behaviour.perception import ObstacleProbe
from npc_ai.behaviour.settings import BehaviourSettings, BehaviourSettingsError
from npc_ai.behaviour.states import STATE_CODES, STATE_NAMES, build_states

__all__ = [
    "STATE_CODES",
    "STATE_NAMES",
    "BehaviourError",
    "BehaviourSettings",
    "BehaviourSettingsError",
    "Memory",
    "Noise",
    "Npc",
    "ObstacleProbe",
    "State",
    "StateMachine",
    "build_states",
]
