# The runner image: where the judge and the contestant of one job run (runner/sandbox/docker.py).
#
# GPU hosts (a CUDA *devel* base, because submissions may build CUDA through torch's inline extensions):
#   docker build -f docker/runner.Dockerfile --label kernelboard.code-hash=$(scripts/docker.sh hash) \
#     -t kernelboard-runner:latest .
# CPU hosts, where no registry is reachable (scripts/docker.sh image does this): a Debian bookworm base made
# with debootstrap, and the torch CPU wheel from this machine's disk, served on a loopback index:
#   --network host --build-arg BASE_IMAGE=kernelboard-base:bookworm --build-arg TORCH_INDEX= \
#   --build-arg WHEELS=http://127.0.0.1:18751/
#
# torch and triton at the lock's versions (and torch's dependencies pinned by the lock); the project's runner
# and problems only (no platform code, no settings, no database). The worker refuses an image whose
# kernelboard.code-hash label is not the hash of its own checkout (runner.sandbox.docker.code_hash), so an
# image older than the code never judges.
#
# The container runs as root with every capability dropped but SETUID, SETGID and KILL: the judge needs
# them to start the contestant as the unprivileged user `contestant` (uid and gid 10002) and to freeze it.
# It starts with no network, a read-only root, tmpfs scratch and /tmp (see runner/sandbox/docker.py), so
# nothing here needs to be writable at run time.
ARG BASE_IMAGE=nvidia/cuda:12.9.1-cudnn-devel-ubuntu24.04
FROM ${BASE_IMAGE}

# The wheel index of the torch build that matches the base image's CUDA (empty: PyPI and WHEELS only).
ARG TORCH_INDEX=https://download.pytorch.org/whl/cu129
# A find-links location with wheels that no index serves here (the CPU build's torch).
ARG WHEELS=

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv python3-dev build-essential ninja-build \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY requirements.lock /tmp/requirements.lock
# PIP_CERT: the system's trust store, which holds whatever CA this host's route to the registry needs.
RUN python3 -m venv /opt/venv \
 && grep -E '^(torch|triton|numpy)==' /tmp/requirements.lock > /tmp/runner.lock \
 && PIP_CERT=/etc/ssl/certs/ca-certificates.crt pip install \
      ${TORCH_INDEX:+--extra-index-url "$TORCH_INDEX"} ${WHEELS:+--find-links "$WHEELS"} \
      -c /tmp/requirements.lock -r /tmp/runner.lock \
 && python -c "import torch, triton; assert torch.__version__.startswith('2.13'), torch.__version__; assert triton.__version__ == '3.7.1'" \
 && rm /tmp/requirements.lock /tmp/runner.lock

# One uid and one gid for the contestant, with an account (getpass and torch's inductor look it up); its
# home is the job's scratch tmpfs, the only place it may write.
RUN groupadd --gid 10002 contestant \
 && useradd --uid 10002 --gid 10002 --no-create-home --home-dir /job/scratch --shell /usr/sbin/nologin contestant

COPY runner /opt/kernelboard/runner
COPY problems /opt/kernelboard/problems
# /tmp 0700: the engine gives a tmpfs the mode of the directory it covers, and the judge's /tmp is its own.
RUN chmod -R a+rX,go-w /opt/kernelboard && python -m compileall -q /opt/kernelboard/runner && chmod 0700 /tmp

WORKDIR /opt/kernelboard
ENV PYTHONPATH=/opt/kernelboard
CMD ["python", "-m", "runner.judge"]
