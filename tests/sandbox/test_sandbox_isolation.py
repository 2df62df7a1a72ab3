"""The worker is isolated from where and how the tutor was started: a learner's own `random.py` in the
current folder, PYTHONPATH, or any variable of theirs (or a classroom server's) changes nothing."""
from pathlib import Path

import numpy as np
import pytest

from engine.sandbox.client import Worker, worker_environment

SHADOWS = ("random", "numbers", "string", "copy", "select", "json", "numpy", "torch", "engine", "sitecustomize")
PROGRAM = "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x ** 2).sum().backward()\nprint(x.grad)\n"


@pytest.fixture
def shadowed_folder(tmp_path, monkeypatch):
    """The current folder and PYTHONPATH full of modules named like the standard library's and ours,
    each of which would leave a file behind and break the import if it were ever imported."""
    for name in SHADOWS:
        (tmp_path / f"{name}.py").write_text(f"open({str(tmp_path / (name + '.imported'))!r}, 'w').close()\n"
                                             f"raise ImportError('the learner\\'s own {name}.py')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHONSTARTUP", str(tmp_path / "random.py"))
    monkeypatch.setenv("AUTOGRAD_SECRET_TOKEN", "hunter2")
    return tmp_path


def test_modules_in_the_current_folder_change_nothing(shadowed_folder):
    own = Worker()
    try:
        answer = own.call("run", 30, source=PROGRAM, expressions=["x.grad"])
        ready = own.start()
        environment = Path(f"/proc/{ready['pid']}/environ").read_bytes().split(b"\0")
    finally:
        own.close()
    assert answer["ok"] and answer["stdout"] == "tensor([2., 4.])\n", answer
    assert np.array(answer["values"][0]["value"]["data"]).tolist() == [2.0, 4.0]
    assert sorted(p.name for p in shadowed_folder.iterdir()) == sorted(f"{name}.py" for name in SHADOWS)
    names = {entry.split(b"=", 1)[0].decode() for entry in environment if entry}
    assert names == set(worker_environment())      # nothing of the learner's, the server's or PYTHON*
