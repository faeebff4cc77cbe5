"""Types of privet.compat.dp_accounting.rdp."""

from . import rdp_privacy_accountant as rdp_privacy_accountant
from .rdp_privacy_accountant import (
    RdpAccountant as RdpAccountant,
    compute_delta as compute_delta,
    compute_epsilon as compute_epsilon,
)
