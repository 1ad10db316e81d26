"""Checks for the arguments of the public queries and the nav agent: one typed error, NavMeshError, that
names the argument, says what is expected and shows what was given.

Points are 2 or 3 real numbers [m] (a list, a tuple or a 1-D numeric array) with every coordinate within
COORDINATE_LIMIT of the origin: far beyond any level, and far below where squared distances overflow
(about 1e154 m). Booleans, strings, complex numbers, dicts and arrays of other objects are refused.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Iterable, Sequence

import numpy as np

from navigation.errors import NavMeshError

COORDINATE_LIMIT = 1e9  # [m] largest |x|, |y| or |z| a query or an agent accepts
MAX_SAMPLES = 10_000_000  # largest number of random points drawn in one call
MAX_DT = 3600.0  # [s] longest agent tick
_LIMIT = f"{COORDINATE_LIMIT:.0e}".replace("e+0", "e").replace("e+", "e")  # "1e9"

_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 4


def shown(value: object) -> str:
    """A short repr of a bad value for an error message (strings cut at 40 characters)."""
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return _REPR.repr(value)


def _is_real(value: object) -> bool:
    """A real number: Python or numpy, integer or float; not a bool, a complex number or a string."""
    kind = type(value)
    if kind is float or kind is int or kind is np.float64:  # the common cases, without the ABC check
        return True
    return isinstance(value, numbers.Real | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _real(value: object) -> float:
    """value as a float; NaN when it is not a real number (so every range check refuses it)."""
    if not _is_real(value):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]  # _is_real: a numbers.Real or numpy number
    except OverflowError:  # an int beyond the floats
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]


def _coordinates(value: object) -> list[float] | None:
    """value as 2 or 3 floats, or None when it is not 2 or 3 real numbers."""
    if isinstance(value, tuple | list) and len(value) in (2, 3) and all(type(v) is float for v in value):
        return list(value)  # the common cases, kept cheap: queries run every tick
    if type(value) is np.ndarray and value.dtype == np.float64 and value.shape in ((2,), (3,)):
        return value.tolist()  # type: ignore[no-any-return]
    if value is None or isinstance(value, str | bytes | bytearray | dict | set | frozenset | numbers.Number):
        return None
    try:
        a = np.asarray(value)
        if a.ndim != 1 or a.shape[0] not in (2, 3):
            return None
        if a.dtype.kind == "O":
            if not all(_is_real(v) for v in a):
                return None
        elif a.dtype.kind not in "iuf":
            return None
        return [float(v) for v in a]
    except Exception:  # whatever an odd object raises on conversion, the answer is "not a point"
        return None


def point(value: object, name: str, *, any_height: bool = False) -> np.ndarray:
    """A (3,) point [m] from 2 or 3 real numbers; a 2-D point gets z = NaN.

    Args:
        value: what the caller passed.
        name: the argument's name, for the message.
        any_height: a z of NaN is allowed (the queries read it as "any height").
    Raises:
        NavMeshError: not 2 or 3 real numbers, a non-finite coordinate, or one beyond COORDINATE_LIMIT.
    """
    return np.array(xyz(value, name, any_height=any_height))


def xyz(value: object, name: str, *, any_height: bool = False) -> tuple[float, float, float]:
    """`point` as a tuple of 3 floats [m] (no array: the cheap form for a per-query check)."""
    if type(value) is tuple:  # the commonest calls, checked first: queries run per tick
        if len(value) == 2:
            x, y = value
            if (
                type(x) is float
                and type(y) is float
                and abs(x) <= COORDINATE_LIMIT
                and abs(y) <= COORDINATE_LIMIT
            ):
                return x, y, math.nan
        elif len(value) == 3:
            x, y, z = value
            if (
                type(x) is float
                and type(y) is float
                and type(z) is float
                and abs(x) <= COORDINATE_LIMIT  # False for NaN
                and abs(y) <= COORDINATE_LIMIT
                and (abs(z) <= COORDINATE_LIMIT or (any_height and z != z))
            ):
                return x, y, z
    c = _coordinates(value)
    if c is not None:
        x, y = c[0], c[1]
        z = c[2] if len(c) == 3 else math.nan
        if (
            abs(x) <= COORDINATE_LIMIT  # False for NaN
            and abs(y) <= COORDINATE_LIMIT
            and (abs(z) <= COORDINATE_LIMIT or (math.isnan(z) and (any_height or len(c) == 2)))
        ):
            return x, y, z
    nan = " (z may be NaN: any height)" if any_height else ""
    raise NavMeshError(
        f"{name} must be 2 or 3 finite numbers [m]{nan} with |x|, |y|, |z| <= {_LIMIT}, got {shown(value)}"
    )


def distance(value: object, name: str, *, zero_ok: bool, inf_ok: bool) -> float:
    """A length [m]: a real number > 0 (>= 0 when `zero_ok`), finite unless `inf_ok` (inf = no limit).

    Raises:
        NavMeshError: anything else (NaN, negative, a string, a bool...).
    """
    v = _real(value)
    if not ((v > 0 or (zero_ok and v == 0)) and (inf_ok or math.isfinite(v))):  # False for NaN
        bound = ">= 0" if zero_ok else "> 0"
        extra = " (inf: no limit)" if inf_ok else ""
        raise NavMeshError(f"{name} must be a number of metres {bound}{extra}, got {shown(value)}")
    return v


def count(value: object, name: str, *, low: int, high: int | None = None) -> int:
    """An integer in low..high (a Python or numpy integer; not a bool, not a float).

    Raises:
        NavMeshError: anything else.
    """
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        n = int(value)
        if n >= low and (high is None or n <= high):
            return n
    rng = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    raise NavMeshError(f"{name} must be {rng}, got {shown(value)}")


def seconds(value: object, name: str) -> float:
    """A tick length [s]: a real number in (0, MAX_DT].

    Raises:
        NavMeshError: anything else.
    """
    v = _real(value)
    if not 0 < v <= MAX_DT:  # False for NaN
        raise NavMeshError(f"{name} must be a number of seconds in (0, {MAX_DT:g}], got {shown(value)}")
    return v


def angle(value: object, name: str) -> float:
    """A finite angle [rad].

    Raises:
        NavMeshError: anything else.
    """
    v = _real(value)
    if not math.isfinite(v):
        raise NavMeshError(f"{name} must be a finite number of radians, got {shown(value)}")
    return v


def generator(value: object, name: str) -> np.random.Generator:
    """The caller's seeded numpy Generator.

    Raises:
        NavMeshError: anything else (the legacy RandomState included).
    """
    if not isinstance(value, np.random.Generator):
        raise NavMeshError(
            f"{name} must be a numpy.random.Generator (seeded by its owner), got {shown(value)}"
        )
    return value


def labels(value: object, name: str, count_: int) -> frozenset[int]:
    """A label or an iterable of labels in 0..count_-1, as a non-empty set.

    Raises:
        NavMeshError: a bool, float, string or bytes, something not iterable, a label out of range, or none.
    """
    wrong = f"{name} must be an island label or labels (integers), got {shown(value)}"
    if isinstance(value, bool | float | complex | str | bytes | bytearray | dict) or value is None:
        raise NavMeshError(wrong)
    if isinstance(value, int | np.integer):
        items: list[object] = [value]
    elif isinstance(value, Iterable):
        try:
            items = list(value)
        except Exception:  # an iterable that fails (a 0-d array, a generator that raises)
            raise NavMeshError(wrong) from None
    else:
        raise NavMeshError(wrong)
    out: set[int] = set()
    for label in items:
        if isinstance(label, bool) or not isinstance(label, int | np.integer) or not 0 <= label < count_:
            raise NavMeshError(f"{name} must be labels in 0..{count_ - 1}, got {shown(label)}")
        out.add(int(label))
    if not out:
        raise NavMeshError(f"{name} is empty: name at least one island label")
    return frozenset(out)


def polygon_ids(value: object, name: str, polygon_count: int) -> tuple[int, ...]:
    """A sequence of polygon ids in 0..polygon_count-1 (a corridor), possibly empty.

    Raises:
        NavMeshError: not a sequence of integers, or an id out of range.
    """
    if isinstance(value, str | bytes | bytearray | dict) or not isinstance(value, Sequence | np.ndarray):
        raise NavMeshError(f"{name} must be a sequence of polygon ids (integers), got {shown(value)}")
    items: Iterable[object] = value.tolist() if isinstance(value, np.ndarray) else value
    out = []
    for p in items:
        if isinstance(p, bool) or not isinstance(p, int | np.integer) or not 0 <= p < polygon_count:
            raise NavMeshError(f"{name} must hold polygon ids in 0..{polygon_count - 1}, got {shown(p)}")
        out.append(int(p))
    return tuple(out)
