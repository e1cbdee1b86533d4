# Redis from Debian's packages on the local base, for the stack where no registry is reachable
# (docker/compose.local.yaml).
ARG BASE_IMAGE=kernelboard-base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
CMD ["redis-server", "--bind", "127.0.0.1", "--port", "16379", "--appendonly", "yes", "--dir", "/data"]
