"""Builds privet's extension module for `pip install` (see python/README.md).

Offline on Debian 12: Debian's setuptools and pybind11 (python3-pybind11)
build it, so pip must run without build isolation, in a virtual environment
that sees the system site-packages (PEP 668 keeps pip out of Debian's own):

    /usr/bin/python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation --no-index ./python

The C++ headers are privet's own (../include) and Debian's -dev packages;
the libraries linked are those the bound headers need.
"""

import glob
import os

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
include = os.path.join(os.path.dirname(here), "include")
if not os.path.isdir(os.path.join(include, "privet")):
    raise SystemExit(
        f"privet's headers are not at {include}: build from a checkout of privet "
        "(pip install ./python from the repository's root)"
    )

# One process per translation unit, as many as there are cores.
ParallelCompile("PRIVET_PYTHON_JOBS", default=0).install()

extension = Pybind11Extension(
    "privet._privet",
    sorted(glob.glob(os.path.join("src", "*.cpp"))),
    include_dirs=[include],
    cxx_std=20,
    define_macros=[("PRIVET_HAS_GMP", "1"), ("PRIVET_HAS_OPENSSL", "1")],
    libraries=["gmp", "crypto", "sodium", "tbb"],
    extra_compile_args=["-O2"],
)

setup(ext_modules=[extension], cmdclass={"build_ext": build_ext})
