"""The .pyi stubs against the runtime package: every name a stub declares
(module level and class members) exists in the module it describes, the
parameter names of every pure-Python function and method match, every name
in a module's ``__all__`` is stubbed, and every public module of the package
(privet, privet.compat.phe, privet.compat.dp_accounting, ...) has a stub
next to it under the package's single ``py.typed`` marker (PEP 561: a
marker in the top-level package covers its subpackages).

mypy is not a dependency; this is the check a type checker would otherwise
make implicitly, done against the objects themselves."""

import ast
import dataclasses
import importlib
import inspect
import pathlib
import re
import types

import pytest

import privet

PACKAGE = pathlib.Path(privet.__file__).parent


def _module_name(stub: pathlib.Path) -> str:
    parts = stub.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


STUBS = sorted(PACKAGE.rglob("*.pyi"))
STUB_IDS = [_module_name(s) for s in STUBS]


def _is_overload(node) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id == "overload") or (isinstance(d, ast.Attribute) and d.attr == "overload")
        for d in node.decorator_list
    )


def _stub_params(node) -> list:
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [x.arg for x in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return names


def _runtime_params(func) -> list:
    names = []
    for p in inspect.signature(func).parameters.values():
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def _assigns_attribute(cls, name: str) -> bool:
    """Whether some pure-Python class in cls's MRO sets ``self.<name>``."""
    # self.x = ..., or self.x among the targets of a tuple assignment.
    pattern = re.compile(r"\bself\." + re.escape(name) + r"\s*(?:=[^=]|,[^=\n]*[^=!<>]=[^=])")
    for base in cls.__mro__:
        if base is object or not isinstance(base.__dict__.get("__module__"), str):
            continue
        try:
            if pattern.search(inspect.getsource(base)):
                return True
        except (OSError, TypeError):
            pass
    return False


def _check_function(node, runtime, where, problems):
    if _is_overload(node):
        return
    raw = runtime
    if isinstance(raw, (staticmethod, classmethod)):
        raw = raw.__func__
    if isinstance(raw, types.FunctionType):
        stub, actual = _stub_params(node), _runtime_params(raw)
        if stub != actual:
            problems.append(f"{where}: stub parameters {stub} != runtime {actual}")


def _check_class(node, cls, where, problems):
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = item.name
            if name.startswith("__") and name.endswith("__") and hasattr(cls, name):
                _check_function(item, inspect.getattr_static(cls, name), f"{where}.{name}", problems)
                continue
            if not hasattr(cls, name):
                problems.append(f"{where}.{name}: in the stub, not at runtime")
                continue
            _check_function(item, inspect.getattr_static(cls, name), f"{where}.{name}", problems)
        elif isinstance(item, ast.ClassDef):
            inner = getattr(cls, item.name, None)
            if not isinstance(inner, type):
                problems.append(f"{where}.{item.name}: class in the stub, not at runtime")
            else:
                _check_class(item, inner, f"{where}.{item.name}", problems)
        elif isinstance(item, (ast.AnnAssign, ast.Assign)):
            targets = [item.target] if isinstance(item, ast.AnnAssign) else item.targets
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                name = t.id
                fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
                if hasattr(cls, name) or name in fields or _assigns_attribute(cls, name):
                    continue
                problems.append(f"{where}.{name}: attribute in the stub, not at runtime")


def check_stub(source: str, module) -> list:
    """The discrepancies between stub text ``source`` and ``module``."""
    tree = ast.parse(source)
    problems = []
    declared = set()
    prefix = module.__name__
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [(node.name, node)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [(node.target.id, node)]
        elif isinstance(node, ast.Assign):
            names = [(t.id, node) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            # Only "import x as x" / "from m import x as x" re-export (PEP 484).
            names = [(a.asname, node) for a in node.names if a.asname is not None and a.asname == a.name.split(".")[-1]]
        else:
            names = []
        for name, item in names:
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                continue  # a stub-only helper (a TypeVar, an alias)
            declared.add(name)
            if not hasattr(module, name):
                problems.append(f"{prefix}.{name}: in the stub, not at runtime")
                continue
            runtime = getattr(module, name)
            if isinstance(item, ast.ClassDef):
                if not isinstance(runtime, type):
                    problems.append(f"{prefix}.{name}: a class in the stub, {type(runtime).__name__} at runtime")
                else:
                    _check_class(item, runtime, f"{prefix}.{name}", problems)
            elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not callable(runtime):
                    problems.append(f"{prefix}.{name}: a function in the stub, not callable at runtime")
                else:
                    _check_function(item, runtime, f"{prefix}.{name}", problems)
    for name in getattr(module, "__all__", []):
        if name not in declared:
            problems.append(f"{prefix}.{name}: in __all__, not in the stub")
    return problems


@pytest.mark.parametrize("stub", STUBS, ids=STUB_IDS)
def test_stub_matches_runtime(stub):
    module = importlib.import_module(_module_name(stub))
    assert check_stub(stub.read_text(), module) == []


def test_the_compat_layers_are_stubbed():
    # The two drop-in layers, module by module, as their peers lay them out.
    for name in (
        "privet.compat.phe",
        "privet.compat.phe.paillier",
        "privet.compat.phe.encoding",
        "privet.compat.phe.util",
        "privet.compat.dp_accounting",
        "privet.compat.dp_accounting.dp_event",
        "privet.compat.dp_accounting.dp_event_builder",
        "privet.compat.dp_accounting.privacy_accountant",
        "privet.compat.dp_accounting.mechanism_calibration",
        "privet.compat.dp_accounting.rdp",
        "privet.compat.dp_accounting.rdp.rdp_privacy_accountant",
        "privet.compat.dp_accounting.pld",
        "privet.compat.dp_accounting.pld.pld_privacy_accountant",
    ):
        assert name in STUB_IDS, name


def test_every_public_module_has_a_stub_under_py_typed():
    assert (PACKAGE / "py.typed").is_file()
    assert not [p for p in PACKAGE.rglob("py.typed") if p.parent != PACKAGE]
    missing = [
        str(py.relative_to(PACKAGE))
        for py in PACKAGE.rglob("*.py")
        if (py.name == "__init__.py" or not py.name.startswith("_")) and not py.with_suffix(".pyi").is_file()
    ]
    assert missing == []


# The checker itself: each kind of discrepancy is reported.
def test_checker_reports_names_attributes_and_exports_the_module_lacks():
    from privet.compat.dp_accounting import dp_event, rdp

    problems = check_stub("class GaussianDpEvent:\n    sigma: float\ndef no_such_function() -> None: ...\n", dp_event)
    assert "privet.compat.dp_accounting.dp_event.no_such_function: in the stub, not at runtime" in problems
    assert "privet.compat.dp_accounting.dp_event.GaussianDpEvent.sigma: attribute in the stub, not at runtime" in problems
    assert "privet.compat.dp_accounting.dp_event.LaplaceDpEvent: in __all__, not in the stub" in problems
    assert "privet.compat.dp_accounting.rdp.RdpAccountant: in __all__, not in the stub" in check_stub("", rdp)


def test_checker_reports_missing_methods_and_wrong_parameters():
    from privet.compat.phe import paillier

    problems = check_stub(
        "def generate_paillier_keypair(n_length: int = 3072) -> None: ...\n"
        "class PaillierPublicKey:\n    def no_method(self) -> None: ...\n",
        paillier,
    )
    assert any("generate_paillier_keypair: stub parameters ['n_length']" in p for p in problems)
    assert "privet.compat.phe.paillier.PaillierPublicKey.no_method: in the stub, not at runtime" in problems
