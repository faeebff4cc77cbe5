"""Types of privet.compat.dp_accounting.pld."""

from . import pld_privacy_accountant as pld_privacy_accountant
from .pld_privacy_accountant import PLDAccountant as PLDAccountant
