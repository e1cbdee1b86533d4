"""The judge's signed frames (`started`, `case`, `report`): how the caller tells the judge's report from
anything else in its stream, and the platform's failures from the submission's. docs/harness.md, "The
report is signed", has the format and what the caller concludes from each stream."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

MAGIC = b"KB1"
STARTED, CASE, REPORT = b"started", b"case", b"report"
MAX_HEADER = 200
MAX_CASE = 4096  # a case frame's payload: an id and a few numbers

NOT_WRITTEN = "the judge's report stream held bytes the judge did not write"
NOT_SIGNED = "the judge's report stream held a frame the judge did not sign"
AFTER_REPORT = "the judge's report stream held bytes after the judge's report"
NO_REPORT = "the judge left no report"


def new_key() -> bytes:
    return secrets.token_bytes(32)


def _mac(key: bytes, kind: bytes, payload: bytes) -> str:
    return hmac.new(key, kind + b"\0" + payload, hashlib.sha256).hexdigest()


def frame(key: bytes, kind: bytes, payload: bytes = b"") -> bytes:
    return b"%s %s %d %s\n" % (MAGIC, kind, len(payload), _mac(key, kind, payload).encode()) + payload


CASE_FIELDS = frozenset({"done", "total", "case", "status", "kind", "kind_done", "kind_total", "median_s"})


def case_frame(
    key: bytes,
    done: int,
    total: int,
    case: str,
    status: str,
    kind: str,
    kind_done: int,
    kind_total: int,
    median_s: float | None,
) -> bytes:
    """One finished case: its place in the run (`done` of `total`) and in its phase (`kind_done` of
    `kind_total` cases of its `kind`), its id and status, and a timed case's median seconds per call. Never
    an input or a seed: a secret case says only its public id and its time."""
    payload = {"done": done, "total": total, "case": case, "status": status, "kind": kind}
    payload |= {"kind_done": kind_done, "kind_total": kind_total, "median_s": median_s}
    return frame(key, CASE, json.dumps(payload).encode())


@dataclass
class Stream:
    """What the caller found in the judge's report stream."""

    started: bool = False  # the judge signed that it got going
    report: bytes | None = None  # the signed report, when the stream held exactly that and nothing else
    problem: str = ""  # why the stream is not to be believed, in the user's words; "" when it is
    cases: list[dict[str, Any]] = field(default_factory=list)  # the verified case frames, in order


class Reader:
    """The stream parsed as it arrives: `feed` the bytes of each read, get the case frames verified so far.

    The one parser of the stream (`read` is a Reader fed everything at once). The first thing wrong (a
    header the judge did not write, a frame it did not sign, a frame out of its order, anything after the
    report) sets `problem`, and from then on nothing more is believed: feed returns nothing, the report
    stays None."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.stream = Stream()
        # What came after the last whole frame; appended in place, since a long report arrives in many pieces.
        self._buffer = bytearray()
        self._ended = False  # the report was read: any byte after it is a problem

    @property
    def problem(self) -> str:
        return self.stream.problem

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """The case frames that `data` completed, verified and in order. Those verified before a fault in
        the same bytes are still returned (the judge signed them; however the bytes were split, the same
        frames come back); none after it, nor in any later feed."""
        if self.stream.problem or not data:
            return []
        if self._ended:
            self._fail(AFTER_REPORT)
            return []
        self._buffer += data
        found: list[dict[str, Any]] = []
        while self._buffer and not self.stream.problem:
            case = self._one()
            if case is None:
                break
            if case:
                found.append(case)
        return found

    def _one(self) -> dict[str, Any] | None:
        """Take one whole frame off the buffer: a case frame's payload, {} for another frame, None when the
        buffer holds no whole frame yet or the stream has just become untrusted."""
        newline = self._buffer.find(b"\n", 0, MAX_HEADER)
        if newline < 0:
            if len(self._buffer) >= MAX_HEADER or not MAGIC.startswith(self._buffer[: len(MAGIC)]):
                self._fail(NOT_WRITTEN)
            return None  # else the rest of the header is on its way
        parts = bytes(self._buffer[:newline]).split(b" ")
        if len(parts) != 4 or parts[0] != MAGIC or not parts[2].isdigit() or not self._may_come(parts[1]):
            self._fail(NOT_WRITTEN)
            return None
        kind, length = parts[1], int(parts[2])
        if kind == CASE and length > MAX_CASE:
            self._fail(NOT_WRITTEN)
            return None
        end = newline + 1 + length
        if len(self._buffer) < end:
            return None  # the payload is on its way
        payload = bytes(self._buffer[newline + 1 : end])
        del self._buffer[:end]
        if not hmac.compare_digest(parts[3], _mac(self.key, kind, payload).encode()):
            self._fail(NOT_SIGNED)
            return None
        if kind == STARTED:
            self.stream.started = True
            return {}
        if kind == REPORT:
            self.stream.report, self._ended = payload, True
            if self._buffer:
                self._fail(AFTER_REPORT)
            return None
        case = self._case(payload)
        if case is None:
            self._fail(NOT_SIGNED)
            return None
        self.stream.cases.append(case)
        return case

    def finish(self) -> Stream:
        """The stream once the judge is gone: believed only when it ended with a report and nothing else."""
        if not self.stream.problem:
            if self._buffer:  # a frame cut short: its header or its payload never came whole
                newline = self._buffer.find(b"\n", 0, MAX_HEADER)
                self._fail(NOT_SIGNED if newline >= 0 else NOT_WRITTEN)
            elif self.stream.started and self.stream.report is None:
                self.stream.problem = NO_REPORT
        return self.stream

    def _may_come(self, kind: bytes) -> bool:
        """Started first, then cases, then the report (after which nothing may come at all)."""
        return kind == STARTED if not self.stream.started else kind in (CASE, REPORT)

    def _case(self, payload: bytes) -> dict[str, Any] | None:
        """The payload of a case frame, when well formed and next in the count; None otherwise."""
        try:
            case = json.loads(payload)
        except (ValueError, RecursionError):
            return None
        if not (
            isinstance(case, dict)
            and set(case) == CASE_FIELDS
            and all(type(case[k]) is int for k in ("done", "total", "kind_done", "kind_total"))
            and isinstance(case["case"], str)
            and isinstance(case["status"], str)
            and 0 < len(case["status"]) <= 32
            and isinstance(case["kind"], str)
            and 0 < len(case["kind"]) <= 16  # a CaseKind's value (the wire imports no vocabulary)
            and 0 < case["kind_done"] <= case["kind_total"] <= case["total"]
            and (case["median_s"] is None or type(case["median_s"]) is float)
            and (case["median_s"] is None or 0 <= case["median_s"] < float("inf"))
        ):
            return None
        previous = self.stream.cases[-1] if self.stream.cases else {"done": 0, "total": case["total"]}
        # Counted 1, 2, 3 ... out of one total: a replayed or reordered frame, signed as it is, breaks this.
        if (
            case["done"] != previous["done"] + 1
            or case["total"] != previous["total"]
            or case["done"] > case["total"]
        ):
            return None
        return case

    def _fail(self, problem: str) -> None:
        self.stream.problem = problem
        self.stream.report = None
        self._buffer.clear()


def read(key: bytes, out: bytes) -> Stream:
    """Parse the whole stream strictly: signed frames only, `started`, any `case` frames in their count,
    then `report`; nothing before, between or after them. The report is believed only from here."""
    reader = Reader(key)
    reader.feed(out)
    return reader.finish()
