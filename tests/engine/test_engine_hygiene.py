"""Contracts that keep the engine core one mechanism: its modes in one context-local place (`engine.state`),
no module writing another's globals or `sys.modules`, and imports at the top of the torch surface's modules."""
from __future__ import annotations

import ast
import threading
from pathlib import Path

import engine
from engine import state

ENGINE = Path(engine.__file__).parent
SERVICES = ("runner", "sandbox", "explain")  # the three services beside the torch surface
# imports inside a function body of the torch surface, each named with why it is lazy
LAZY_IMPORTS: dict[tuple[str, str], str] = {
}


def _modules(surface_only: bool):
    for path in sorted(ENGINE.rglob("*.py")):
        parts = path.relative_to(ENGINE).parts
        if surface_only and parts[0] in SERVICES:
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_module_writes_sys_modules():
    for path, tree in _modules(surface_only=False):
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else node.targets if isinstance(node, ast.Delete) else []
            for target in targets:
                if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "sys.modules":
                    raise AssertionError(f"{path}:{node.lineno} writes sys.modules")
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.modules.update", "sys.modules.pop",
                                                                         "sys.modules.setdefault"):
                raise AssertionError(f"{path}:{node.lineno} writes sys.modules")


def test_no_module_assigns_another_modules_attributes():
    """A mode or hook of one module set from another (`_tensor._grad_enabled = ...`) is how four modules came to
    share one global; modes live in `engine.state`."""
    for path, tree in _modules(surface_only=True):
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "engine":
                aliases |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname or a.name for a in node.names if a.name.startswith("engine")}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id in aliases:
                        raise AssertionError(f"{path}:{node.lineno} assigns {ast.unparse(target)}")


def test_first_party_imports_are_at_module_level():
    found = {}
    for path, tree in _modules(surface_only=True):
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("engine", "lessons",
                                                                                             "tutor"):
                    found[(path.name, node.module)] = f"{path}:{node.lineno}"
    unexplained = {k: v for k, v in found.items() if k not in LAZY_IMPORTS}
    assert not unexplained, f"first-party imports inside functions (move them up, or name them in LAZY_IMPORTS): " \
                            f"{unexplained}"


def test_modes_are_context_local():
    """A mode set in one thread is that thread's; a new thread starts from PyTorch's defaults."""
    seen = {}
    before = state.current()  # (a test that ran a snippet in this thread leaves the runner's size guard installed)

    def worker():
        seen["start"] = (engine.is_grad_enabled(), engine.is_inference_mode_enabled(), engine.is_anomaly_enabled())
        engine.set_grad_enabled(False)
        engine.autograd.set_detect_anomaly(True)
        seen["set"] = (engine.is_grad_enabled(), engine.is_anomaly_enabled())

    with engine.no_grad(), engine.inference_mode():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert not engine.is_grad_enabled() and engine.is_inference_mode_enabled()
    assert seen == {"start": (True, False, False), "set": (False, True)}
    assert engine.is_grad_enabled() and not engine.is_anomaly_enabled()
    assert state.current() == before
