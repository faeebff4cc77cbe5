"""PLD accounting (``dp_accounting.pld``) on privet."""

from . import pld_privacy_accountant  # noqa: F401
from .pld_privacy_accountant import PLDAccountant  # noqa: F401

__all__ = ["PLDAccountant", "pld_privacy_accountant"]
