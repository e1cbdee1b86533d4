"""The platform: a Django project (settings, urls, wsgi), its apps, the JSON API and the `kernelboard` client.

This package's __init__ imports nothing, so that `leaderboard.client` (the command-line client) loads without
Django or Celery. The Celery app lives in `leaderboard.celery` (`celery -A leaderboard.celery worker`).
"""
