"""privet's exceptions as Python sees them: one hierarchy under privet.Error,
itself a ValueError, so that code catching ValueError (as dp_accounting's and
python-paillier's callers do) catches privet's refusals too."""

import privet


def test_every_error_is_a_privet_error_and_a_value_error():
    for cls in (
        privet.InvalidParameter,
        privet.BudgetExhausted,
        privet.RepresentationOverflow,
        privet.SerializationError,
        privet.ProtocolError,
    ):
        assert issubclass(cls, privet.Error)
        assert issubclass(cls, ValueError)
    assert issubclass(privet.Error, ValueError)


def test_version_matches_the_headers():
    # The extension's __version__ is the C++ privet::version_string of the
    # headers it was built from (include/privet/version.hpp).
    import os
    import re

    header = os.path.join(
        os.path.dirname(__file__), "..", "..", "include", "privet", "version.hpp"
    )
    with open(header, encoding="utf-8") as f:
        match = re.search(r'version_string = "([0-9.]+)"', f.read())
    assert match is not None
    assert privet.__version__ == match.group(1)
