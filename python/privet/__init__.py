"""privet: private federated analytics and learning, from C++ at C++ speed.

The C++ core is header-only; this package compiles the parts Python users
need into one extension module (privet._privet) and exposes them as
submodules. Every error privet raises is a ``privet.Error``, itself a
``ValueError``, with the C++ message unchanged.
"""

from ._privet import (  # noqa: F401
    BudgetExhausted,
    Error,
    InvalidParameter,
    ProtocolError,
    RepresentationOverflow,
    SerializationError,
    __version__,
)
from . import accounting, mechanisms, paillier  # noqa: E402,F401  (one extension: no cost)

__all__ = [
    "BudgetExhausted",
    "Error",
    "InvalidParameter",
    "ProtocolError",
    "RepresentationOverflow",
    "SerializationError",
    "__version__",
    "accounting",
    "mechanisms",
    "paillier",
]
