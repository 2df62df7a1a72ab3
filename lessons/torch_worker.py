"""Runs lesson programs with real PyTorch, in a child process of `check --against-torch`.

Reads a JSON list of jobs `{"program": str, "expression": str | null}` on
stdin and writes one JSON list of outcomes on stdout. This is the author's
own trusted machine (they asked for it with a flag), so the programs run in
a plain `exec`; the parent still keeps them in this separate process with a
timeout.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys

from lessons.values import UnsupportedValue, classify, to_json


def run_job(job: dict) -> dict:
    namespace: dict = {"__name__": "__lesson__"}
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(job["program"], "<lesson>", "exec"), namespace)
            value = eval(job["expression"], namespace) if job.get("expression") else None
    except (Exception, SystemExit) as error:  # the program's own failure is the outcome we report
        return {"error": {"type": type(error).__name__, "message": str(error)}}
    if not job.get("expression"):
        return {"error": None}
    try:
        return {"error": None, "value": to_json(classify(value))}
    except UnsupportedValue as error:
        return {"error": {"type": "UnsupportedValue", "message": str(error)}}


def main() -> None:
    jobs = json.load(sys.stdin)
    json.dump([run_job(job) for job in jobs], sys.stdout)


if __name__ == "__main__":
    main()
