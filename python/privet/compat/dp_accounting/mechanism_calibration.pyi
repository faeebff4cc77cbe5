"""Types of privet.compat.dp_accounting.mechanism_calibration."""

from typing import Callable, Optional, Union

from .dp_event import DpEvent
from .privacy_accountant import PrivacyAccountant

class BracketInterval: ...

class ExplicitBracketInterval(BracketInterval):
    endpoint_1: float
    endpoint_2: float
    def __init__(self, endpoint_1: float, endpoint_2: float) -> None: ...

class LowerEndpointAndGuess(BracketInterval):
    lower_endpoint: float
    initial_guess: float
    def __init__(self, lower_endpoint: float, initial_guess: float) -> None: ...

class NoBracketIntervalFoundError(Exception): ...
class NonEmptyAccountantError(Exception): ...

def calibrate_dp_mechanism(
    make_fresh_accountant: Callable[[], PrivacyAccountant],
    make_event_from_param: Callable[[Union[float, int]], DpEvent],
    target_epsilon: float,
    target_delta: float,
    bracket_interval: Optional[BracketInterval] = None,
    discrete: bool = False,
    tol: Optional[float] = None,
) -> Union[float, int]: ...
