"""Users (people and agents, in one table) and their API tokens."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person or an agent. Agents rank beside people, marked as agents."""

    is_agent = models.BooleanField(
        default=False, help_text="An AI agent (built in or external); its entries are marked in rankings."
    )


class ApiToken(models.Model):
    """A bearer token for the API. Only its SHA-256 is stored; the token itself is shown once."""

    PREFIX = "kb_"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    digest = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="The token's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.hint}… ({self.user})"


class CacheEntry(models.Model):
    """The table of Django's database cache (settings.CACHES where CACHE_URL is empty), made by `migrate` like
    every other table so that no deployment step can forget it; the cache reads and writes it, nothing else.
    Its columns are those `manage.py createcachetable` would make."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "kernelboard_cache"
