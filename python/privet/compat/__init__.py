"""Drop-in layers with other libraries' names and module layouts, on top of
privet's native API: ``from privet.compat import dp_accounting`` in place of
``import dp_accounting``."""
