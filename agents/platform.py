"""The agents as clients of a platform server: candidates judged in its exploration tier, the best entered.

`PlatformVerifier` is the loop's verifier when a server's URL and an API token are given (`python -m agents
--url ... --token ...`, `manage.py run_agent --url ...`): each distinct candidate is submitted through the
JSON API in mode `explore` (judged as a benchmark run, on the exploration queue and quota, never ranked;
docs/platform.md, "The exploration tier"), and followed until final. The server, not the agent, decides the
sandbox, the timing budget and the inputs: every judging draws fresh ones, so the loop's per-step secret
seed has nothing to choose there. Identical code judged before answers at once with that run (the server
shares it); a confirming reading (`evaluate_again`) asks for a fresh judging. `enter` submits the run's
best in leaderboard mode and follows it to its verdict.

The HTTP client is the `kernelboard` command line's (standard library only: no Django here).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from agents.verifier import Evaluation, reward_of
from leaderboard.client.connection import ApiClient, ApiError
from leaderboard.submissions.languages import language_of
from runner.vocabulary import EXPLORE, passed


class PlatformError(RuntimeError):
    """The server refused the run itself (no token, no worker for the device kind, no such problem)."""


@dataclass
class Entry:
    """The run's best as a ranked submission on the server: its id, final state and words."""

    id: int
    state: str
    message: str
    score_s: float | None
    url: str


def evaluation_of(doc: dict[str, Any], unit_s: float | None) -> Evaluation:
    """The judge's word on a candidate from the API's account of its submission (GET /api/submissions/ID):
    passed only as runner.vocabulary.passed decides, from its verdict, flags and cases."""
    verdict = doc.get("verdict") or doc["state"]  # a cancelled one has no run
    ok = passed(
        verdict,
        flags=len(doc.get("flags") or []),
        statuses=tuple(c["status"] for c in doc.get("cases") or []),
    ) and bool(doc.get("score_s"))
    return Evaluation(
        verdict=verdict if doc.get("verdict") else "error",
        message=doc.get("message") or "",
        score_s=doc["score_s"] if ok else None,
        reward=reward_of(doc.get("score_s"), ok, unit_s),
        cases=[
            {"id": c["id"], "kind": c["kind"], "status": c["status"], "mean_s": c.get("mean_s")}
            for c in doc.get("cases") or []
        ],
    )


class PlatformVerifier:
    """Candidates judged by a platform server's workers, in its exploration tier (see the module)."""

    def __init__(
        self,
        url: str,
        token: str,
        problem: str,
        device_kind: str = "cpu",
        unit_s: float | None = None,
        in_flight: int = 4,
        poll_s: float = 0.5,
        timeout_s: float = 3600.0,
        client: ApiClient | None = None,
    ) -> None:
        self.client = client or ApiClient(url, token, timeout_s=60.0)
        self.problem = problem
        self.device_kind = device_kind
        self.unit_s = unit_s
        self.in_flight = max(1, in_flight)  # our own candidates queued or running at once (the server's
        # quota, EXPLORE_MAX_IN_FLIGHT, is the bound; past it the server answers 429 and we wait)
        self.poll_s = poll_s
        self.timeout_s = timeout_s
        self.judged = 0  # candidates the server's workers judged (not shared from earlier judgings)
        self.shared = 0  # candidates answered with the run of identical code judged before
        self.submitted: list[int] = []  # the ids of every submission this verifier made

    # -- the loop's interface ---------------------------------------------------------------------------
    def evaluate(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        """Each candidate's evaluation, identical code submitted once. `secret_seed` is not sent: the
        server draws fresh inputs for every judging."""
        return self._evaluate(codes, reuse=True)

    def evaluate_again(self, codes: list[str], secret_seed: int) -> list[Evaluation]:
        """A fresh reading of each (the loop's confirmation of a would-be best): never a shared run."""
        return self._evaluate(codes, reuse=False)

    def judge(self, code: str, secret_seed: int, mode: str = "leaderboard") -> Evaluation:
        """One candidate in another mode, followed to its verdict."""
        [doc] = self._judge_all([code], mode=mode, reuse=False)
        return evaluation_of(doc, self.unit_s)

    def enter(self, code: str) -> Entry:
        """Enter `code` as a ranked (leaderboard-mode) submission of the token's user, and follow it to its
        verdict: the run's best, judged like anyone's and ranked with everyone's."""
        [doc] = self._judge_all([code], mode="leaderboard", reuse=False)
        return Entry(doc["id"], doc["state"], doc.get("message") or "", doc.get("score_s"), doc["url"])

    # -- submitting and following -----------------------------------------------------------------------
    def _evaluate(self, codes: list[str], *, reuse: bool) -> list[Evaluation]:
        distinct = list(dict.fromkeys(codes))
        docs = self._judge_all(distinct, mode=EXPLORE, reuse=reuse)
        by_code = {code: evaluation_of(doc, self.unit_s) for code, doc in zip(distinct, docs, strict=True)}
        return [by_code[c] for c in codes]

    def _submit(self, code: str, *, mode: str, reuse: bool) -> dict[str, Any]:
        created = self.client.post(
            "/api/submissions",
            {
                "problem": self.problem,
                "device": self.device_kind,
                "mode": mode,
                "language": language_of(code),
                "source": code,
                "reuse": reuse,
            },
        )
        self.submitted.append(created["id"])
        if created.get("shared_from"):
            self.shared += 1
        else:
            self.judged += 1
        return created

    def _judge_all(self, codes: list[str], *, mode: str, reuse: bool) -> list[dict[str, Any]]:
        """Submit each code, at most `in_flight` of ours waiting at once, and return each submission's final
        account (GET /api/submissions/ID, plus its `url`), in order. A candidate the server refuses (too
        large, not allowed on the device) comes back as a rejected account; a refusal of the run itself
        (401, 404, 503) raises PlatformError."""
        results: list[dict[str, Any] | None] = [None] * len(codes)
        pending = list(range(len(codes)))
        waiting: dict[int, int] = {}  # submission id -> index
        deadline = time.monotonic() + self.timeout_s
        while pending or waiting:
            full = False
            while pending and len(waiting) < self.in_flight:
                i = pending[0]
                try:
                    created = self._submit(codes[i], mode=mode, reuse=reuse)
                except ApiError as exc:
                    if exc.status == 429:  # the server's quota is full: wait for a place
                        full = True
                        break
                    if exc.status in (400, 413, 422):  # this candidate, not the run
                        pending.pop(0)
                        results[i] = {
                            "id": None,
                            "state": "rejected",
                            "verdict": "rejected",
                            "url": "",
                            "message": exc.message,
                            "cases": [],
                            "flags": [],
                            "score_s": None,
                        }
                        continue
                    raise PlatformError(exc.message) from None
                pending.pop(0)
                waiting[created["id"]] = i
            for submission_id, i in list(waiting.items()):
                doc = self._get(submission_id)
                if doc["final"]:
                    results[i] = doc | {"url": f"/api/submissions/{submission_id}"}
                    del waiting[submission_id]
            if time.monotonic() > deadline:
                raise PlatformError(
                    f"{len(waiting) + len(pending)} submissions were not judged within {self.timeout_s:g} s"
                )
            if waiting or pending:
                # Full with none of ours to wait for: the places are held elsewhere (another run of this
                # user's) or the hourly quota is spent; ask again in a while.
                time.sleep(max(self.poll_s, 5.0) if full and not waiting else self.poll_s)
        return [r for r in results if r is not None]

    def _get(self, submission_id: int) -> dict[str, Any]:
        try:
            return self.client.get(f"/api/submissions/{submission_id}")
        except ApiError as exc:
            raise PlatformError(exc.message) from None
