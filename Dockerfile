# Panic Party: a slim, non-root image that applies the migrations, then serves.
# Behind a reverse proxy: set PUBLIC_URL (the address people open) and FORWARDED_ALLOW_IPS (the
# proxy's address or network, as the container sees it); README, "Playing together".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    VAR_DIR=/data \
    MIGRATE_ON_START=false \
    PUBLIC_URL= \
    FORWARDED_ALLOW_IPS=127.0.0.1

WORKDIR /srv/panic-party
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY docs ./docs
RUN pip install . \
 && useradd --create-home --uid 10001 panic \
 && mkdir -p /data && chown panic:panic /data

USER panic
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz').status == 200 else 1)"
CMD ["sh", "-c", "alembic upgrade head && exec python -m app.server"]
