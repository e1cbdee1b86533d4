# A stand-in for python:3.11-slim where no registry is reachable: Debian bookworm's Python 3.11 in a venv on
# the local base (scripts/docker.sh base). `python` and `pip` on PATH are the venv's, as in the official image.
#   docker build --network host -f docker/python.Dockerfile -t kernelboard-python:3.11 .
ARG BASE_IMAGE=kernelboard-base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv
