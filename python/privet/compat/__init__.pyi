"""Types of privet.compat (drop-in layers over privet's core)."""
