"""Writes of accounts: users and API tokens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from leaderboard.accounts.models import ApiToken, User
from leaderboard.accounts.validators import validate_username
from leaderboard.errors import Refusal

# Recording every use would make each API call a write; once a minute is enough to see a token is alive.
_LAST_USED_RESOLUTION = timedelta(minutes=1)


def _digest(token: str) -> str:
    # Tokens are 256 random bits, so a fast hash is safe: there is nothing to guess by brute force.
    return hashlib.sha256(token.encode()).hexdigest()


def user_get_or_create(*, username: str, is_agent: bool = False) -> tuple[User, bool]:
    """The user called `username`, made (without a password) if missing; an existing user keeps its flag
    unless `is_agent` asks for the agent mark. A new name must keep to the username rules (Refusal)."""
    if not get_user_model().objects.filter(username=username).exists():
        try:
            validate_username(username)
        except ValidationError as exc:
            raise Refusal(exc.messages[0]) from None
    user, created = get_user_model().objects.get_or_create(username=username, defaults={"is_agent": is_agent})
    if not created and is_agent and not user.is_agent:
        user.is_agent = True
        user.save(update_fields=["is_agent"])
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user, created


def user_email_set(*, user: User, email: str) -> None:
    """Where the user's password reset links go ("" for nowhere)."""
    user.email = get_user_model().objects.normalize_email(email.strip())
    user.save(update_fields=["email"])


def api_token_create(*, user: User, name: str = "") -> tuple[ApiToken, str]:
    """A new token for `user`: returns the row and the token text, which is never stored or shown again."""
    token = ApiToken.PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(user=user, name=name, digest=_digest(token), hint=token[:8])
    return row, token


def api_token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def api_token_authenticate(*, token: str) -> User | None:
    """The active user that `token` belongs to, or None. Records when the token was last used."""
    if not token.startswith(ApiToken.PREFIX):
        return None
    row = (
        ApiToken.objects.select_related("user")
        .filter(digest=_digest(token), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > _LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row.user
