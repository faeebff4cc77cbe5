#!/usr/bin/env python3
"""Runs dp_accounting's own accountant tests against privet.compat.dp_accounting.

Usage:
    peer_suite_dp_accounting.py [--verbose] [CHECKOUT]

CHECKOUT is a checkout of google/differential-privacy (fetched by hand; never
vendored), or set DP_CHECKOUT; it may also point at its python/dp_accounting
directory. privet's package must be importable (PYTHONPATH=<build>/python,
or installed). Interpreter: Debian's /usr/bin/python3 (numpy, scipy, absl,
attr, mpmath from Debian).

A temporary package named ``dp_accounting`` re-exports
privet.compat.dp_accounting module by module; of the checkout only the test
files and their helper privacy_accountant_test.py are loaded, so every
accountant under test is privet's. Each test file runs in its own process
(unittest, as absltest does) and its pass / fail / skip counts are printed,
with every failing or erroring case and the first line of its error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

TEST_FILES = ["rdp/rdp_privacy_accountant_test.py", "pld/pld_privacy_accountant_test.py"]

SHIM = '''\
"""dp_accounting, re-exported from privet.compat.dp_accounting (test shim)."""
import importlib
import sys

from privet.compat.dp_accounting import *  # noqa: F401,F403

for _name in ("dp_event", "dp_event_builder", "mechanism_calibration", "privacy_accountant",
              "rdp", "rdp.rdp_privacy_accountant", "pld", "pld.pld_privacy_accountant"):
    _module = importlib.import_module("privet.compat.dp_accounting." + _name)
    sys.modules["dp_accounting." + _name] = _module
    if "." not in _name:
        globals()[_name] = _module
'''

RUNNER = r'''
import importlib.util, json, sys, unittest
from absl import flags
flags.FLAGS(["peer_suite"])  # absltest's flags, parsed as absltest.main would

package_dir, test_file = sys.argv[1], sys.argv[2]
import dp_accounting
# The abstract test class the accountant tests derive from: the checkout's own.
spec = importlib.util.spec_from_file_location(
    "dp_accounting.privacy_accountant_test", package_dir + "/privacy_accountant_test.py")
helper = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = helper
spec.loader.exec_module(helper)
dp_accounting.privacy_accountant_test = helper

spec = importlib.util.spec_from_file_location("peer_test", test_file)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
assert dp_accounting.dp_event.__name__.startswith("privet."), "shim not in use"

class Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed = []
        self.failed = []
        self.skipped_cases = []
    def addSuccess(self, test):
        self.passed.append(test.id())
    def addFailure(self, test, err):
        self.failed.append((test.id(), "FAIL", self._first(err)))
    def addError(self, test, err):
        self.failed.append((test.id(), "ERROR", self._first(err)))
    def addSkip(self, test, reason):
        self.skipped_cases.append((test.id(), reason))
    def addSubTest(self, test, subtest, err):
        if err is not None:
            self.addFailure(subtest, err) if issubclass(err[0], test.failureException) \
                else self.addError(subtest, err)
    @staticmethod
    def _first(err):
        text = str(err[1]).strip().splitlines()
        return err[0].__name__ + ": " + (text[0][:300] if text else "")

suite = unittest.defaultTestLoader.loadTestsFromModule(module)
result = Result()
suite.run(result)
print(json.dumps({"passed": result.passed, "failed": result.failed,
                  "skipped": result.skipped_cases}))
'''


def find_package_dir(path: str) -> str:
    for candidate in (path, os.path.join(path, "dp_accounting"),
                      os.path.join(path, "python", "dp_accounting", "dp_accounting")):
        if os.path.isfile(os.path.join(candidate, "privacy_accountant_test.py")):
            return os.path.abspath(candidate)
    raise SystemExit(f"no dp_accounting package (privacy_accountant_test.py) under {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", nargs="?", default=os.environ.get("DP_CHECKOUT"),
                        help="google/differential-privacy checkout (or env DP_CHECKOUT)")
    parser.add_argument("--verbose", action="store_true", help="list passing cases too")
    args = parser.parse_args()
    if not args.checkout:
        parser.error("give the checkout's path or set DP_CHECKOUT")
    package_dir = find_package_dir(args.checkout)

    total_ok = True
    with tempfile.TemporaryDirectory(prefix="privet_dp_shim_") as shim_root:
        os.makedirs(os.path.join(shim_root, "dp_accounting"))
        with open(os.path.join(shim_root, "dp_accounting", "__init__.py"), "w") as f:
            f.write(SHIM)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [shim_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for rel in TEST_FILES:
            path = os.path.join(package_dir, rel)
            proc = subprocess.run([sys.executable, "-c", RUNNER, package_dir, path],
                                  env=env, capture_output=True, text=True)
            if proc.returncode != 0 or not proc.stdout.strip():
                print(f"{rel}: the runner failed\n{proc.stderr[-3000:]}")
                total_ok = False
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            n = len(r["passed"]) + len(r["failed"]) + len(r["skipped"])
            print(f"{rel}: {len(r['passed'])} passed, {len(r['failed'])} failed, "
                  f"{len(r['skipped'])} skipped, of {n}")
            for test_id, kind, message in r["failed"]:
                print(f"  {kind} {test_id.split('.', 1)[-1]}: {message}")
            for test_id, reason in r["skipped"]:
                print(f"  SKIP {test_id.split('.', 1)[-1]}: {reason}")
            if args.verbose:
                for test_id in r["passed"]:
                    print(f"  ok {test_id.split('.', 1)[-1]}")
            total_ok = total_ok and not r["failed"]
    return 0 if total_ok else 1


if __name__ == "__main__":
    sys.exit(main())
