"""Typed errors raised by the navigation package."""

from __future__ import annotations


class NavigationError(Exception):
    """Base class of every error the navigation package raises on bad input."""


class MapFormatError(NavigationError):
    """A MovingAI map or scenario file is malformed (the message names the file and line)."""


class NavMeshError(NavigationError):
    """A navmesh could not be built, loaded or queried because an argument is invalid."""


class NavSettingsError(NavigationError, ValueError):
    """`BakeSettings` or `AgentSettings` was given an out-of-range value."""


class CacheWarning(UserWarning):
    """The navmesh cache cannot be used (its folder is a file, cannot be created or written, or an entry is
    a folder): the mesh is baked without it, and this is said once per cache folder and process."""


class CrowdError(NavigationError, ValueError):
    """Crowd avoidance got bad input: an out-of-range `AvoidanceSettings` value, arrays of the wrong shape
    or with non-finite values, a negative radius or speed, a priority <= 0, malformed wall segments, or
    crowd metrics asked of inconsistent trajectories."""
