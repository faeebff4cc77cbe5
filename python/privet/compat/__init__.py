"""Drop-in compatibility layers: other Python libraries' public names and
module layouts, backed by privet's C++ core. Import the peer's module from
here instead of from the peer: ``from privet.compat import phe`` in place of
``import phe``, ``from privet.compat import dp_accounting`` in place of
``import dp_accounting``."""
