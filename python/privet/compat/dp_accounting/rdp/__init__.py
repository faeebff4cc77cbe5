"""RDP accounting (``dp_accounting.rdp``) on privet."""

from . import rdp_privacy_accountant  # noqa: F401
from .rdp_privacy_accountant import RdpAccountant  # noqa: F401

__all__ = ["RdpAccountant", "rdp_privacy_accountant"]
