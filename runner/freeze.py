"""Freezing the contestant while the judge works.

Between windows the judge writes fresh inputs and reads the outputs. With the contestant's whole process
tree stopped (SIGSTOP) meanwhile, a thread of the submission can neither start on inputs before the clock
starts, nor change an output after it stopped. Read from /proc, which the contestant cannot fake.
"""

from __future__ import annotations

import os
import signal
import time


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def process_tree(root: int) -> list[int]:
    """root and all its descendants that are alive now."""
    seen, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in seen or not os.path.exists(f"/proc/{pid}"):
            continue
        seen.append(pid)
        todo.extend(_children(pid))
    return seen


def thread_count(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir(f"/proc/{pid}/task"))
        except FileNotFoundError:
            pass
    return total


def _all_stopped(pids: list[int]) -> bool:
    for pid in pids:
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if state not in ("T", "t", "Z", "X"):
                    return False
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return True


def freeze(root: int, timeout: float = 2.0) -> list[int]:
    """Stop every process of the tree and wait until every thread has stopped. Returns the pids."""
    pids = process_tree(root)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while not _all_stopped(pids):
        if time.monotonic() > deadline:
            break
        time.sleep(0.0001)
    # a child forked while we were stopping the tree is stopped too
    more = [p for p in process_tree(root) if p not in pids]
    return pids + (freeze_list(more) if more else [])


def freeze_list(pids: list[int]) -> list[int]:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass
    return pids


def thaw(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
