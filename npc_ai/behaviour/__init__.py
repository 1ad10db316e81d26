"""Enemy behaviour: Wander / Patrol / Aim / Shoot / Chase / Search / Investigate, for every NPC at once.

`BehaviourSettings` holds one archetype's validated settings; `BehaviourBatch` holds every NPC's behaviour
state in arrays (state codes, timers, percepts, memory); `states.decide` runs the state machine over them
with the transitions of `table.ALLOWED`; `Npc` is the thin view of one NPC that the API and tests use.
"""

from npc_ai.behaviour.batch import BehaviourBatch
from npc_ai.behaviour.brain import Memory, Noise, Npc
from npc_ai.behaviour.probes import ObstacleProbe
from npc_ai.behaviour.settings import BehaviourSettings, BehaviourSettingsError
from npc_ai.behaviour.states import decide
from npc_ai.behaviour.table import ALLOWED, STATE_CODES, STATE_NAMES, TRANSITIONS, BehaviourError

__all__ = [
    "ALLOWED",
    "STATE_CODES",
    "STATE_NAMES",
    "TRANSITIONS",
    "BehaviourBatch",
    "BehaviourError",
    "BehaviourSettings",
    "BehaviourSettingsError",
    "Memory",
    "Noise",
    "Npc",
    "ObstacleProbe",
    "decide",
]
