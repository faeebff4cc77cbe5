#!/usr/bin/env python3
"""python-paillier's own test suite against privet.compat.phe.

    PYTHONPATH=build/py/python /usr/bin/python3 bench/peer_suite_phe.py /path/to/python-paillier [--secure-keys-only] [-v]

Given a checkout of https://github.com/data61/python-paillier (fetched by
hand; nothing of it is vendored here), this makes a temporary package named
``phe`` that re-exports ``privet.compat.phe`` (and its submodules
``phe.paillier``, ``phe.encoding``, ``phe.util``), runs the checkout's
``phe/tests/paillier_test.py`` against it with unittest, and prints the
counts of passed, failed, erroring and skipped tests, then every test that
did not pass with the first line of its reason.

python-paillier's tests use toy keys (8 to 1024 bits). privet refuses keys
below 2048 bits unless asked, so by default the shim asks, process-wide, as
a user of those tests would (PRIVET_ALLOW_INSECURE_KEY_SIZE=1);
``--secure-keys-only`` runs without the opt-in, to show what the rule costs.
"""

import argparse
import os
import sys
import tempfile
import textwrap
import unittest

SHIM = textwrap.dedent(
    """
    # A stand-in for python-paillier's package, made by privet's
    # bench/peer_suite_phe.py: every name comes from privet.compat.phe.
    import sys as _sys
    from privet.compat import phe as _impl
    from privet.compat.phe import *  # noqa: F401,F403
    from privet.compat.phe import encoding, paillier, util  # noqa: F401
    for _name in ("encoding", "paillier", "util"):
        _sys.modules[__name__ + "." + _name] = getattr(_impl, _name)
    """
)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", help="a checkout of data61/python-paillier")
    parser.add_argument("--secure-keys-only", action="store_true", help="do not opt in to keys below 2048 bits")
    parser.add_argument("-v", "--verbose", action="store_true", help="unittest's verbose output")
    args = parser.parse_args()

    test_file = os.path.join(args.checkout, "phe", "tests", "paillier_test.py")
    if not os.path.isfile(test_file):
        sys.exit(f"no {test_file}: give the root of a python-paillier checkout")
    if not args.secure_keys_only:
        os.environ["PRIVET_ALLOW_INSECURE_KEY_SIZE"] = "1"

    with tempfile.TemporaryDirectory(prefix="privet_phe_shim_") as tmp:
        os.makedirs(os.path.join(tmp, "phe"))
        with open(os.path.join(tmp, "phe", "__init__.py"), "w") as f:
            f.write(SHIM)
        sys.path.insert(0, tmp)
        import phe  # the shim

        assert phe._impl.__name__ == "privet.compat.phe", "the shim must shadow any installed phe"
        loader = unittest.TestLoader()
        suite = loader.discover(os.path.dirname(test_file), pattern="paillier_test.py",
                                top_level_dir=os.path.dirname(test_file))
        runner = unittest.TextTestRunner(verbosity=2 if args.verbose else 1, stream=sys.stderr)
        result = runner.run(suite)

    total = result.testsRun
    failed = len(result.failures)
    errors = len(result.errors)
    skipped = len(result.skipped)
    passed = total - failed - errors - skipped - len(result.unexpectedSuccesses)
    mode = "without the insecure-key opt-in" if args.secure_keys_only else "with the insecure-key opt-in"
    print(f"phe/tests/paillier_test.py ({mode}): {passed}/{total} passed "
          f"({100.0 * passed / max(total, 1):.1f} %), {failed} failed, {errors} errors, {skipped} skipped")
    for kind, items in (("FAIL", result.failures), ("ERROR", result.errors)):
        for test, trace in items:
            last = [line for line in trace.strip().splitlines() if line.strip()][-1]
            print(f"  {kind} {test.id()}: {last[:200]}")
    for test, reason in result.skipped:
        print(f"  SKIP {test.id()}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
