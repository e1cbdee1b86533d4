# The platform's images, built from the repository root:
#   docker build -f docker/web.Dockerfile --target web .         gunicorn, the sweeper, migrations
#   docker build -f docker/web.Dockerfile --target worker-cpu .  a Celery worker for the cpu queue
# GPU workers run the runner image (CUDA, torch, triton) on GPU hosts, one per GPU: docs/platform.md.
# Where no registry is reachable (docker/compose.local.yaml): PYTHON_IMAGE=kernelboard-python:3.11 (Debian's
# Python on the local base, docker/python.Dockerfile), TORCH_INDEX empty and WHEELS a find-links location
# that holds the torch CPU wheel.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE} AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=leaderboard.settings DJANGO_ENV=production
RUN useradd --create-home --uid 10001 kernelboard
WORKDIR /app
COPY requirements.lock ./
# The web never runs a kernel: no torch, triton or browser in its image (the pins stay those of the lock).
# --no-deps: without it pip would fetch the CUDA torch that accelerate and peft, agents' dependencies the
# web never imports, ask for (6 GB). The lock was made on Python 3.11.7; Debian's 3.11.2 (the local base)
# needs redis's async-timeout too. pip check then allows only the missing torch.
RUN grep -vE '^(torch|triton|playwright|greenlet|sympy|mpmath|networkx)==' requirements.lock > /tmp/web.txt \
 && pip install --no-deps -r /tmp/web.txt \
 && pip install --no-deps async-timeout==5.0.1 \
 && pip check | grep -vE '^(accelerate|peft) .* requires torch' | { ! grep . ; }

FROM base AS web
COPY manage.py pyproject.toml ./
COPY leaderboard ./leaderboard
COPY runner ./runner
COPY agents ./agents
COPY problems ./problems
RUN SECRET_KEY=only-for-collectstatic python manage.py collectstatic --noinput
USER kernelboard
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
  CMD python -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:8000/healthz', headers={'Host': 'localhost'}), timeout=4)"
CMD ["gunicorn", "leaderboard.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--preload", \
     "--no-control-socket", "--timeout", "60", "--access-logfile", "-"]

# The worker's heavy layers come before the code, so that a change in the code rebuilds only its copy. After
# the web stage: the classic builder builds every stage before its target.
FROM base AS worker-deps
# bubblewrap is the sandbox of a CPU worker (the container alone would let a submission read the
# worker's environment, database password included).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG WHEELS=
RUN pip install ${TORCH_INDEX:+--index-url "$TORCH_INDEX"} ${WHEELS:+--find-links "$WHEELS"} -c requirements.lock \
      "$(grep '^torch==' requirements.lock)" \
 && pip install "$(grep '^triton==' requirements.lock)" \
 && python -c "import torch; assert torch.__version__.endswith('+cpu'), torch.__version__"

FROM worker-deps AS worker-cpu
COPY docker/worker-entrypoint.sh /usr/local/bin/kernelboard-worker-entrypoint
COPY manage.py pyproject.toml ./
COPY leaderboard ./leaderboard
COPY runner ./runner
COPY agents ./agents
COPY problems ./problems
ENV RUNNER_SANDBOX=bwrap
# Its jobs' uids lie apart from those of a worker or a check run on the host itself (61000 ..): a lease
# kills whatever runs as its uid, the host sees every container's processes, and RLIMIT_NPROC counts a
# uid's processes across the whole kernel, so a shared range let a host's job kill this worker's contestant.
ENV RUNNER_SANDBOX_UID_BASE=1610000
# Root, as the tested default: the worker leases a uid per job and makes the job's cgroup, and its
# contestants run as the leased uid with no capability at all. The container's own capabilities are the
# few docker/compose.yaml grants, each explained there. The entrypoint makes the container's cgroup writable.
USER root
ENTRYPOINT ["kernelboard-worker-entrypoint"]
CMD ["celery", "-A", "leaderboard.celery", "worker", "--queues", "cpu,cpu.explore", "--concurrency", "1", \
     "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"]
