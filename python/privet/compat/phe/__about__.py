"""What this package is: python-paillier's names on privet's core."""

from privet import __version__ as _privet_version

__title__ = "privet.compat.phe"
__summary__ = "python-paillier's API (module layout and names) backed by privet's C++ Paillier"
__uri__ = "https://github.com/data61/python-paillier (the API it follows)"
__version__ = _privet_version
__all__ = ["__title__", "__summary__", "__uri__", "__version__"]
