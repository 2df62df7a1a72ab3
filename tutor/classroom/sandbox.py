"""One warm snippet worker per class: each student's worker is forked from it, not started afresh.

Every tutor runs lesson code in its own sandbox worker (`engine.sandbox`): a `python -I` process that
imports numpy, sympy and the engine and warms them up — about 4 s of CPU. A class opening a lesson at
once, or a student coming back (a new tutor, a new worker), waited for ten of those on two cores. So
`serve` starts this process once, in the worker's own clean environment: it preloads what a worker
preloads, then serves forks by the classroom zygote's protocol (`zygote.serve`, `launcher`). A
student's tutor starts its worker as usual, with the launcher in front (`client.WARM_WORKER`): the
launcher hands the worker's pipes over, this process forks, and the child answers jobs as a worker
started from scratch would (each job still a fresh confined child of it). If this process cannot be
reached, the launcher starts the worker from scratch. The forked workers share the preloaded pages,
so a student's worker costs a few MB, not 80.

    python -I .../tutor/classroom/sandbox.py IMPORT_PATH [--unconfined] LISTENING_FD
"""
from __future__ import annotations

import gc
import json
import os
import socket
import sys
import threading

DISABLE = "AUTOGRAD_TUTOR_SERVE_WARM_WORKER"  # "0": every worker starts from scratch (benchmarks/serve.py, before/after)


def warm_worker():
    """The server's handle on this process (a `zygote.Zygote` running this file), or None when disabled."""
    if os.environ.get(DISABLE) == "0":
        return None
    from engine.sandbox.client import import_path, worker_environment
    from tutor.classroom.zygote import Zygote

    flags = ["--unconfined"] if os.environ.get("AUTOGRAD_TUTOR_UNCONFINED") == "1" else []  # as the client does
    return Zygote(worker_environment(), program=[sys.executable, "-I", os.path.abspath(__file__),
                                                 json.dumps(import_path()), *flags])


def environment(zygote) -> dict[str, str]:
    """What a student's tutor is told so that its worker is forked from `zygote` (`client.WARM_WORKER`)."""
    from engine.sandbox.client import WARM_WORKER

    return {WARM_WORKER: json.dumps(zygote.launcher())} if zygote is not None and zygote.alive() else {}


def main(argv: list[str]) -> None:
    sys.path += json.loads(argv[0])
    confined = "--unconfined" not in argv
    listener = socket.socket(fileno=int(argv[-1]))
    from engine.sandbox import zygote as worker
    from tutor.classroom.zygote import serve, take_over

    served = worker._preload("full")   # snippets, then the explanations: a class's forks start with everything
    served.update(worker._finish(worker._preload_explain()))
    if threading.active_count() != 1:
        sys.exit(f"the worker's imports started a thread, which a fork would not copy: {threading.enumerate()}")
    sys.stdout.flush()
    gc.freeze()  # the forked workers' garbage collector leaves the preloaded objects (and their pages) alone
    take_over(serve(listener))
    try:
        worker.serve("full", confined=confined, served=served)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    sys.stdout.flush()
    os._exit(0)  # the tutor has gone and its jobs are killed: no interpreter to finalise, its tutor waits for this


if __name__ == "__main__":  # run by path, isolated (`python -I`), like the worker itself
    main(sys.argv[1:])
