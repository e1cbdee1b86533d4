"""The judge's signed frames: how the caller tells the judge's report from anything else in its stream.

The caller hands the judge a fresh key inside the request on the judge's stdin (never argv, env or a file).
The judge writes two frames to its report stream, each a header line and a payload:

    KB1 started 0 <mac>\\n                 before the contestant exists
    KB1 report <length> <mac>\\n<json>     the RunReport, as its last act

where <mac> is HMAC-SHA256 under the key over the frame's kind and payload. The caller believes a report
only when the stream holds exactly these two frames, both signed, and the judge then exited with status 0.
No process of the contestant can read the key (the judge and the caller are not dumpable while a job runs,
and the contestant has no capabilities), so it can neither forge a frame nor pass one off as the judge's.

The `started` frame separates the platform's failures from the submission's: a judge that never signed
it failed before any submission code ran; one that signed it and then left no report was stopped, killed or
confused while the contestant ran.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

MAGIC = b"KB1"
STARTED, REPORT = b"started", b"report"
MAX_HEADER = 200


def new_key() -> bytes:
    return secrets.token_bytes(32)


def _mac(key: bytes, kind: bytes, payload: bytes) -> str:
    return hmac.new(key, kind + b"\0" + payload, hashlib.sha256).hexdigest()


def frame(key: bytes, kind: bytes, payload: bytes = b"") -> bytes:
    return b"%s %s %d %s\n" % (MAGIC, kind, len(payload), _mac(key, kind, payload).encode()) + payload


@dataclass
class Stream:
    """What the caller found in the judge's report stream."""

    started: bool = False  # the judge signed that it got going
    report: bytes | None = None  # the signed report, when the stream held exactly that and nothing else
    problem: str = ""  # why the stream is not to be believed, in the user's words; "" when it is


def read(key: bytes, out: bytes) -> Stream:
    """Parse the stream strictly: signed frames only, `started` then `report`, nothing before, between or
    after them."""
    result = Stream()
    rest = out
    for want in (STARTED, REPORT):
        if not rest:
            if want == REPORT:
                result.problem = "the judge left no report"
            return result
        newline = rest.find(b"\n", 0, MAX_HEADER)
        parts = rest[:newline].split(b" ") if newline >= 0 else []
        if len(parts) != 4 or parts[0] != MAGIC or parts[1] != want or not parts[2].isdigit():
            result.problem = "the judge's report stream held bytes the judge did not write"
            return result
        length = int(parts[2])
        payload = rest[newline + 1 : newline + 1 + length]
        if len(payload) != length or not hmac.compare_digest(parts[3], _mac(key, want, payload).encode()):
            result.problem = "the judge's report stream held a frame the judge did not sign"
            return result
        rest = rest[newline + 1 + length :]
        if want == STARTED:
            result.started = True
        else:
            result.report = payload
    if rest:
        result.report = None
        result.problem = "the judge's report stream held bytes after the judge's report"
    return result
