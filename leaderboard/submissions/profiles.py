"""A profile run's per-operator tables, as the platform keeps them: inside the run's stored RunReport
(`Run.report["profiles"]`), which the judge already checked, capped and made safe for spreadsheets
(runner/judge/profile.py), so no column or migration of their own. Profile runs are never ranked:
ranking_eligible admits leaderboard mode alone.

Who may read them is the caller's to decide (the API: the author; the pages: leaderboard/web/access.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.errors import NotFound
from runner.report import profile_filename


@dataclass(frozen=True)
class Profile:
    number: int  # 1, 2, ... in the report's order of cases: what the CSV's URL names
    case: str
    text: str
    csv: str
    ncu: str  # Nsight Compute's summary, on a GPU; "" on a CPU

    @property
    def has_csv(self) -> bool:
        return bool(self.csv)  # a malformed table left text that says so and no CSV

    def filename(self, submission_id: int) -> str:
        # profile_filename keeps letters, digits, '-', '_' and '=' only: safe inside a header's quotes.
        return f"submission_{submission_id}_{profile_filename(self.case)}"


def profiles_of(run) -> list[Profile]:
    """The run's tables, first case first; [] for no run, another mode, or a report from before profiles."""
    entries = (run.report or {}).get("profiles") or [] if run is not None else []
    return [
        Profile(
            number=i,
            case=str(e.get("case", "")),
            text=str(e.get("text", "")),
            csv=str(e.get("csv", "")),
            ncu=str(e.get("ncu", "")),
        )
        for i, e in enumerate(entries, start=1)
        if isinstance(e, dict)
    ]


def profile_csv_of(*, run, submission_id: int, number: int) -> Profile:
    """The run's `number`th table with its CSV; NotFound, in words, when there is none."""
    for profile in profiles_of(run):
        if profile.number == number and profile.has_csv:
            return profile
    raise NotFound(f"Submission #{submission_id} has no profile table number {number} to download.")
