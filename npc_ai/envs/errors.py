"""The research environments' errors: every one is an `npc_ai.NpcAiError` (and a `ValueError`), raised
before anything changes, so the env stays usable after one."""

from __future__ import annotations

from npc_ai.errors import NpcAiError


class EnvError(NpcAiError, ValueError):
    """Base class of the research environments' errors on bad input."""


class EnvOptionsError(EnvError):
    """A bad constructor argument or `reset(options=...)` entry: an unknown scene, a negative guard count,
    an unknown difficulty. The env keeps its previous episode (or none) and can be reset again."""


class ActionError(EnvError):
    """An action outside the action space (wrong shape, NaN, out of bounds, an unknown index). The step is
    not taken: the world is unchanged and the same episode goes on with the next valid action."""


class RenderModeError(EnvError):
    """An unknown render mode, or "human" where no display exists."""
