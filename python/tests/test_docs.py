"""docs/python.md stays true: every ```python block of the page runs.

Each block runs on its own, in a fresh namespace (a block is a complete
program, as the C++ pages' ```cpp blocks are), with the package under test
on sys.path. The install lines the page gives are also the README's and
setup.py's, so the three cannot drift apart.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "python.md"

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

VENV_LINE = "/usr/bin/python3 -m venv --system-site-packages .venv"
PIP_LINE = ".venv/bin/pip install --no-build-isolation --no-index ./python"


def blocks():
    text = PAGE.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        lang = match.group(1).strip()
        line = text.count("\n", 0, match.start()) + 2  # the block's first code line
        # A block meant to run must say ```python exactly: a ```py or
        # ```python3 fence would silently escape this test.
        assert lang not in ("py", "python3", "pycon", "Python"), f"docs/python.md:{line - 1}: use ```python"
        if lang == "python":
            found.append(pytest.param(match.group(2), line, id=f"python.md:{line}"))
    return found


BLOCKS = blocks()


def test_the_page_has_python_blocks():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code,line", BLOCKS)
def test_block_runs(code, line):
    # Blank lines first, so that a traceback's line numbers are the page's.
    source = "\n" * (line - 1) + code
    compiled = compile(source, str(PAGE), "exec")
    exec(compiled, {"__name__": "__docs__"})


def test_install_lines_agree_with_readme_and_setup_py():
    page = PAGE.read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = (ROOT / "python" / "setup.py").read_text(encoding="utf-8")
    for line in (VENV_LINE, PIP_LINE):
        assert line in page
        assert line in readme
        assert line in setup
    assert "docs/python.md" in readme
    assert "(python.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
