"""No tables of its own: a proxy of Submission gives staff a review page in the admin (flagged runs,
their evidence, accept / reject, rejudge) beside the submissions app's plain one."""

from __future__ import annotations

from leaderboard.submissions.models import Submission


class SubmissionReview(Submission):
    class Meta:
        proxy = True
        verbose_name = "submission review"
        verbose_name_plural = "submission reviews (flagged runs, rejudges)"
