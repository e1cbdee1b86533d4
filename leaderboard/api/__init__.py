"""The JSON API (django-ninja) at /api/: problems, submissions, rankings. See docs/api.md."""
