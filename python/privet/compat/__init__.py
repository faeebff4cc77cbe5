"""Drop-in compatibility layers: the public names of other Python libraries,
backed by privet's C++ core. Import the peer's module from here instead of
from the peer (``from privet.compat import phe``)."""
