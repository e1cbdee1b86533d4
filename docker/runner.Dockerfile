# The runner image: where the judge and the contestant of one job run, on GPU hosts (runner/sandbox/docker.py).
#
#   docker build -f docker/runner.Dockerfile -t kernelboard-runner:latest .
#
# A CUDA *devel* base, because submissions may build CUDA through torch's inline extensions (nvcc, headers);
# torch 2.13 and triton 3.7.1 from the pinned lock; the project's runner and problems only (no platform
# code, no settings, no database); a non-root user. The container is started by the worker with no network,
# a read-only root, a tmpfs scratch and all capabilities dropped (see runner/sandbox/docker.py), so nothing
# here needs to be writable at run time.
ARG CUDA_IMAGE=nvidia/cuda:12.9.1-cudnn-devel-ubuntu24.04
FROM ${CUDA_IMAGE}

# The wheel index of the torch build that matches the base image's CUDA.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cu129

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv python3-dev build-essential ninja-build \
 && rm -rf /var/lib/apt/lists/*

COPY requirements.lock /tmp/requirements.lock
RUN python3 -m venv /opt/venv \
 && grep -E '^(torch|triton|numpy)==' /tmp/requirements.lock > /tmp/runner.lock \
 && pip install --extra-index-url "${TORCH_INDEX}" -r /tmp/runner.lock \
 && python -c "import torch, triton; assert torch.__version__.startswith('2.13'), torch.__version__; assert triton.__version__ == '3.7.1'" \
 && rm /tmp/requirements.lock /tmp/runner.lock

# A fixed uid, not root; its home is never written (the root is read-only; HOME is the tmpfs /tmp).
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /tmp --shell /usr/sbin/nologin runner

COPY runner /opt/kernelboard/runner
COPY problems /opt/kernelboard/problems
RUN chmod -R a+rX,go-w /opt/kernelboard && python -m compileall -q /opt/kernelboard/runner

WORKDIR /opt/kernelboard
USER runner:runner
ENV PYTHONPATH=/opt/kernelboard
CMD ["python", "-m", "runner.judge"]
