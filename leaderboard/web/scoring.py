"""The page that defines the score, linked from every place a score is shown."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from runner.judge.timing import CONFIDENCE, FEW_WINDOWS, NOISY
from runner.report import SCORE_DEFINITION


@require_safe
def scoring(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "web/scoring.html",
        {
            "definition": SCORE_DEFINITION,
            "confidence": round(CONFIDENCE * 100),
            "few_windows": FEW_WINDOWS,
            "noisy": round(NOISY * 100),
            "judged_again": settings.LEADERS_JUDGED_AGAIN,
        },
    )
