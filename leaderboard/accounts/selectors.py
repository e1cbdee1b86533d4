"""Reads of accounts."""

from __future__ import annotations

from django.db.models import QuerySet

from leaderboard.accounts.models import ApiToken
from leaderboard.errors import NotFound


def api_tokens_of(*, user) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first (hashes only: a token's text is shown once, when made)."""
    return ApiToken.objects.filter(user=user).order_by("-created_at")


def api_token_of(*, user, token_id: int) -> ApiToken:
    """One of the user's tokens; NotFound for a token that is not theirs."""
    token = ApiToken.objects.filter(pk=token_id, user=user).first()
    if token is None:
        raise NotFound(f"You have no token #{token_id}.")
    return token
