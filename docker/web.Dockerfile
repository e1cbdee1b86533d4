# syntax=docker/dockerfile:1
# The platform's images, built from the repository root:
#   docker build -f docker/web.Dockerfile --target web .         gunicorn, the sweeper, migrations
#   docker build -f docker/web.Dockerfile --target worker-cpu .  a Celery worker for the cpu queue
# GPU workers run the runner image (CUDA, torch, triton) on GPU hosts, one per GPU: docs/platform.md.
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=leaderboard.settings DJANGO_ENV=production
RUN useradd --create-home --uid 10001 kernelboard
WORKDIR /app
COPY requirements.lock ./
# The web never runs a kernel: no torch, triton or browser in its image (the pins stay those of the lock).
RUN grep -vE '^(torch|triton|playwright|greenlet|sympy|mpmath|networkx)==' requirements.lock > /tmp/web.txt \
 && pip install -r /tmp/web.txt
COPY manage.py pyproject.toml ./
COPY leaderboard ./leaderboard
COPY runner ./runner
COPY agents ./agents
COPY problems ./problems

FROM base AS web
RUN SECRET_KEY=only-for-collectstatic python manage.py collectstatic --noinput
USER kernelboard
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
  CMD python -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:8000/healthz', headers={'Host': 'localhost'}), timeout=4)"
CMD ["gunicorn", "leaderboard.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--preload", \
     "--no-control-socket", "--timeout", "60", "--access-logfile", "-"]

FROM base AS worker-cpu
# bubblewrap is the sandbox of a CPU worker (the container alone would let a submission read the
# worker's environment, database password included).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
RUN pip install --index-url https://download.pytorch.org/whl/cpu "$(grep '^torch==' requirements.lock)" \
 && pip install "$(grep '^triton==' requirements.lock)"
ENV RUNNER_SANDBOX=bwrap
USER kernelboard
CMD ["celery", "-A", "leaderboard.celery", "worker", "--queues", "cpu", "--concurrency", "1", \
     "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"]
