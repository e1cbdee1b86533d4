"""The API's documents, as they appear in /api/openapi.json."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import BaseModel
from pydantic import Field as PydanticField

from runner.report import SCORE_DEFINITION
from runner.vocabulary import DEVICE_KINDS, SUBMISSION_MODES

# From runner/vocabulary.py, the one table of each (Literal of a tuple is the Literal of its items).
DeviceKindName = Literal[tuple(DEVICE_KINDS)]  # type: ignore[valid-type]
ModeName = Literal[SUBMISSION_MODES]  # type: ignore[valid-type]
LanguageName = Literal["pytorch", "triton", "cuda"]


class ErrorOut(Schema):
    error: str = Field(
        description="a short code: invalid_request, unauthorized, not_found, limit_reached, ..."
    )
    message: str = Field(description="what went wrong, in words, and what to do about it")


class ProblemSummary(Schema):
    name: str
    title: str
    version: str = Field(description="content hash of the problem; a new version restarts its rankings")
    difficulty: str = Field("", description="easy, medium or hard; empty when the problem does not say")
    tags: list[str] = Field(
        default_factory=list, description="short lower-case words: memory-bound, gemm, ..."
    )


class CaseOut(Schema):
    id: str
    params: dict[str, Any]
    seed: int
    flops: float | None = Field(None, description="floating-point operations one call must do at least")
    bytes: float | None = Field(None, description="bytes one call must move at least")


class CasesOut(Schema):
    test: list[CaseOut]
    benchmark: list[CaseOut]


class ProblemDetail(ProblemSummary):
    statement: str = Field(description="markdown")
    tolerance: str
    cases: dict[str, CasesOut] = Field(description='by runner device: "cpu" (small shapes) and "cuda" (GPUs)')
    device_kinds: dict[str, str] = Field(description="each device kind and the runner device it uses")
    templates: dict[str, str] = Field(description="file name -> source of a starting point")


class SubmissionIn(Schema):
    problem: str = Field(examples=["vectoradd"])
    device: DeviceKindName = "cpu"
    mode: ModeName = "test"
    language: LanguageName = "pytorch"
    source: str = Field(description="a Python module that defines custom_kernel(data)")
    reuse: bool = Field(
        True,
        description="mode explore: answer with a copy of the run of identical code of yours judged before (same "
        "source, problem version, device kind, language) rather than judge it again; false asks for a fresh "
        "judging, even where such code finishes judging while this one waits",
    )


class SubmissionCreated(Schema):
    id: int
    state: str
    queue_position: int | None
    wait_estimate_s: float | None = Field(
        None, description="roughly how long until a worker takes it, from recent runs; null when unknown"
    )
    url: str
    shared_from: int | None = Field(
        None, description="mode explore: final at once, sharing the run of identical code judged as this id"
    )


class DeviceKindOut(Schema):
    name: str = Field(examples=["h100"])
    label: str
    served: bool = Field(
        description="whether a worker serves it now; submissions to one that is not are refused"
    )
    workers: list[str] = Field(description="the workers serving it now (their last beat is recent)")
    queued: int
    running: int
    wait_estimate_s: float | None = Field(
        description="roughly how long before a new submission starts; null when free or unknown"
    )
    status: str = Field(description="the above in words")
    explore_workers: list[str] = Field(
        default_factory=list,
        description="the workers serving its exploration queue (mode explore) now; none: candidates refused",
    )
    explore_queued: int = Field(0, description="exploration candidates queued (never counted in `queued`)")


class CaseResultOut(Schema):
    id: str
    kind: str = Field(description="test, benchmark, or secret (the ranked run's hidden inputs)")
    status: str
    message: str
    median_s: float | None = Field(
        None, description="the median window's seconds per call, from the judge's clock: what the score uses"
    )
    median_low_s: float | None = Field(None, description="the median's 95 % interval, low end")
    median_high_s: float | None = Field(None, description="the median's 95 % interval, high end")
    mean_s: float | None = Field(description="seconds per call over all timed calls, from the judge's clock")
    stderr_s: float | None
    stats: dict[str, Any] | None
    floor_s: float | None = Field(description="the physical floor of this case on this device")


class AttemptOut(Schema):
    number: int
    worker: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str = Field(description="running, finished, taken_back, given_back, or ended (by an operator)")
    reason: str = Field(description="why it ended so, when it did not finish")
    late_result_dropped: bool = Field(description="its worker finished after it was taken back; not used")
    summary: str = Field(description="the attempt in one sentence")


class ProgressOut(Schema):
    done: int = Field(description="cases finished so far")
    total: int = Field(description="cases this run holds")
    case: str = Field(description="the last case finished")
    status: str = Field(description="how it ended: passed, failed, error, ...")
    kind: str = Field("", description="its phase: test, benchmark or secret")
    kind_done: int = Field(0, description="its place among its phase's cases, from 1")
    kind_total: int = Field(0, description="the cases of its phase in this run")
    median_s: float | None = Field(None, description="a timed case's median seconds per call")
    time: str = Field("", description="median_s in words: 12.3 us; empty for an untimed case")
    words: str = Field(
        "", description="the whole in words: benchmark 3 of 5 passed · vectoradd[size=256] · 12.3 us"
    )


class ProfileOut(Schema):
    number: int = Field(description="1, 2, ...: the n of /api/submissions/{id}/profiles/{n}.csv")
    case: str = Field(description="the benchmark case its calls ran on")
    text: str = Field(description="the per-operator table as fixed-width text, headed by the case's verdict")
    has_csv: bool = Field(
        description="whether the table can be downloaded as CSV (not when it was malformed)"
    )
    ncu: str = Field(description="Nsight Compute's summary on a GPU; empty on a CPU")


class SubmissionOut(Schema):
    id: int
    problem: str
    problem_version: str
    device: str
    mode: str
    language: str
    state: str = Field(
        description="queued, running, a verdict (passed failed error timeout rejected flagged), or cancelled "
        "(never judged: by its author, or no worker served its device kind)"
    )
    final: bool
    queue_position: int | None
    attempts: int
    history: list[AttemptOut] = Field(description="every attempt at judging it, first to last")
    message: str
    verdict: str | None
    score_s: float | None = Field(description=f"the score: {SCORE_DEFINITION}")
    score_low_s: float | None = Field(None, description="the score's 95 % interval, low end")
    score_high_s: float | None = Field(None, description="the score's 95 % interval, high end")
    score_note: str = Field(
        "", description="what limits the score's precision, in words (few or noisy windows)"
    )
    cases: list[CaseResultOut]
    flags: list[dict[str, Any]]
    profiles: list[ProfileOut] = Field(
        description="profile mode: each benchmark case's per-operator table; empty in the other modes"
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    source_sha256: str
    progress: ProgressOut | None = Field(
        None,
        description="while running: the judge's last finished case, as it reported it (advisory; the "
        "verdict and cases above are the truth once final)",
    )
    unserved: bool = Field(
        False,
        description="queued for a device kind that no worker serves now: it waits until one starts, and is "
        "cancelled after SUBMISSION_UNSERVED_TIMEOUT_S without one",
    )
    shared_from: int | None = Field(
        None,
        description="mode explore: the submission whose judging of identical code this one shares (its run "
        "is a copy of that one's); null when a worker judged it",
    )


class SubmissionBrief(Schema):
    id: int
    problem: str
    device: str
    mode: str
    language: str
    state: str
    final: bool
    message: str
    score_s: float | None = Field(description=f"the score: {SCORE_DEFINITION}")
    score_low_s: float | None = None
    score_high_s: float | None = None
    created_at: datetime


# Rankings are plain pydantic models: ninja's Schema wraps every row of a response for attribute access,
# which for a 100-row ranking cost more than the database query.
class RankingEntryOut(BaseModel):
    rank: int = PydanticField(
        description="1 + the number of entries faster beyond doubt (their 95 % interval wholly below this "
        "one's): entries whose intervals overlap share a rank"
    )
    user: str
    is_agent: bool
    score_s: float = PydanticField(description=f"the score: {SCORE_DEFINITION}")
    score_low_s: float | None = PydanticField(None, description="the score's 95 % interval, low end")
    score_high_s: float | None = PydanticField(None, description="the score's 95 % interval, high end")
    tied_with: list[str] = PydanticField(
        default_factory=list, description="the users sharing this rank whose intervals overlap this one's"
    )
    submission_id: int
    language: str
    submitted_at: datetime


class RankingOut(BaseModel):
    problem: str
    version: str
    device: str
    entries: list[RankingEntryOut]
