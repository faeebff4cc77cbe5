"""dp_accounting's ``mechanism_calibration``: the parameter of a mechanism
(a noise multiplier, a number of steps, ...) that just meets a target
(epsilon, delta), for any accountant.

The search keeps two parameters, one whose epsilon meets the target and one
whose epsilon does not, and halves the gap between them until it is within
``tol``; the one returned always meets the target (an accountant that
cannot represent a parameter's event, raising privet.Error, counts as not
meeting it)."""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Optional, Union

from privet import Error as _PrivetError
from . import dp_event, privacy_accountant

__all__ = [
    "BracketInterval",
    "ExplicitBracketInterval",
    "LowerEndpointAndGuess",
    "NoBracketIntervalFoundError",
    "NonEmptyAccountantError",
    "calibrate_dp_mechanism",
]


class BracketInterval:
    """Where the search starts."""


@dataclasses.dataclass(frozen=True)
class ExplicitBracketInterval(BracketInterval):
    """The answer lies between the two endpoints (endpoint_1 < endpoint_2)."""

    endpoint_1: float
    endpoint_2: float


@dataclasses.dataclass(frozen=True)
class LowerEndpointAndGuess(BracketInterval):
    """The answer lies above lower_endpoint; initial_guess is where to start
    (the search widens geometrically from there)."""

    lower_endpoint: float
    initial_guess: float


class NoBracketIntervalFoundError(Exception):
    """No bracket was found within a factor 2^30 of the initial guess."""


class NonEmptyAccountantError(Exception):
    """make_fresh_accountant returned an accountant with events in it."""


def calibrate_dp_mechanism(
    make_fresh_accountant: Callable[[], privacy_accountant.PrivacyAccountant],
    make_event_from_param: Callable[[Union[float, int]], dp_event.DpEvent],
    target_epsilon: float,
    target_delta: float,
    bracket_interval: Optional[BracketInterval] = None,
    discrete: bool = False,
    tol: Optional[float] = None,
) -> Union[float, int]:
    """The parameter, within ``tol``, at which make_event_from_param's event
    just meets (target_epsilon, target_delta) by a fresh accountant's answer;
    the returned parameter meets it. epsilon must be monotone in the
    parameter (either direction). discrete=True searches integers.
    Raises ValueError for a negative epsilon, delta outside [0, 1], an empty
    bracket or a non-positive tol; NoBracketIntervalFoundError and
    NonEmptyAccountantError as dp_accounting does."""
    if not callable(make_fresh_accountant):
        raise TypeError(f"make_fresh_accountant must be callable, not {type(make_fresh_accountant)}")
    if not callable(make_event_from_param):
        raise TypeError(f"make_event_from_param must be callable, not {type(make_event_from_param)}")
    if not target_epsilon >= 0:
        raise ValueError(f"target_epsilon must be nonnegative. Found {target_epsilon}.")
    if not 0 <= target_delta <= 1:
        raise ValueError(f"target_delta must be in range [0, 1]. Found {target_delta}.")
    if bracket_interval is None:
        bracket_interval = LowerEndpointAndGuess(0, 1)

    def gap(x: float) -> float:
        if discrete:
            x = round(x)
        accountant = make_fresh_accountant()
        if not isinstance(accountant.ledger, dp_event.NoOpDpEvent):
            raise NonEmptyAccountantError()
        try:
            eps = accountant.compose(make_event_from_param(x)).get_epsilon(target_delta)
        except _PrivetError:
            return math.inf
        return eps - target_epsilon

    if isinstance(bracket_interval, LowerEndpointAndGuess):
        a, b, ga, gb = _find_bracket(bracket_interval, gap)
    elif isinstance(bracket_interval, ExplicitBracketInterval):
        a, b = bracket_interval.endpoint_1, bracket_interval.endpoint_2
        if not a < b:
            raise ValueError(
                f"bracket_interval.endpoint_1 ({a}) must be less than "
                f"bracket_interval.endpoint_2 ({b})."
            )
        ga, gb = gap(a), gap(b)
    else:
        raise TypeError(f"Unrecognized bracket_interval type: {type(bracket_interval)}")

    if tol is None:
        tol = 1.0 if discrete else 1e-6 * (b - a)
    elif discrete:
        tol = max(tol, 1.0)
    elif not tol > 0:
        raise ValueError(f"tol must be positive. Found {tol}.")

    if (ga <= 0) == (gb <= 0):
        raise ValueError(
            f"the bracket interval [{a}, {b}] does not bracket a solution "
            f"(epsilon gaps {ga} and {gb})"
        )
    good, bad = (a, b) if ga <= 0 else (b, a)
    for _ in range(2200):
        if abs(good - bad) <= tol:
            break
        mid = (good + bad) / 2
        if discrete:
            mid = round(mid)
            if mid in (good, bad):
                break
        if mid in (good, bad):
            break
        if gap(mid) <= 0:
            good = mid
        else:
            bad = mid
    return round(good) if discrete else good


def _find_bracket(interval: LowerEndpointAndGuess, gap):
    """Widens geometrically around the guess (lower + scale 2^k, k = 1..30 up
    and down), each time on the side whose last gap was closer to 0, until
    the gap changes sign."""
    lower, guess = interval.lower_endpoint, interval.initial_guess
    if not lower < guess:
        raise ValueError(
            f"bracket_interval.lower_endpoint ({lower}) must be less than "
            f"bracket_interval.initial_guess ({guess})."
        )
    scale = guess - lower
    g0 = gap(guess)
    feasible = g0 <= 0
    up = down = guess
    g_up = g_down = g0
    k_up = k_down = 0
    while k_up < 30 or k_down < 30:
        go_up = k_down >= 30 or (k_up < 30 and abs(g_up) <= abs(g_down))
        if go_up:
            k_up += 1
            x = lower + scale * 2**k_up
            gx = gap(x)
            if (gx <= 0) != feasible:
                return up, x, g_up, gx
            up, g_up = x, gx
        else:
            k_down += 1
            x = lower + scale * 2**-k_down
            gx = gap(x)
            if (gx <= 0) != feasible:
                return x, down, gx, g_down
            down, g_down = x, gx
    raise NoBracketIntervalFoundError(
        f"no bracket found within a factor 2^30 of the initial guess {guess}"
    )
