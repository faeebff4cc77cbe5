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
    major, minor, patch = (int(part) for part in privet.__version__.split("."))
    assert (major, minor, patch) >= (0, 1, 0)
