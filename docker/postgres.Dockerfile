# PostgreSQL from Debian's packages on the local base, for the stack where no registry is reachable
# (docker/compose.local.yaml). Listens on 127.0.0.1:$PGPORT only (host network), password authentication.
ARG BASE_IMAGE=kernelboard-base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive PATH=/usr/lib/postgresql/15/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data PGPORT=15432
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p "$PGDATA" /run/postgresql && chown postgres:postgres "$PGDATA" /run/postgresql
COPY docker/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
CMD ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
