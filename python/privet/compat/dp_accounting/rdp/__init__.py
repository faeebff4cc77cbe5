"""RDP accounting (``dp_accounting.rdp``) on privet."""

from . import rdp_privacy_accountant  # noqa: F401
from .rdp_privacy_accountant import RdpAccountant, compute_delta, compute_epsilon  # noqa: F401

__all__ = ["RdpAccountant", "compute_delta", "compute_epsilon", "rdp_privacy_accountant"]
