"""Settings of the leaderboard, read from the environment with embedded defaults.

Two environments (DJANGO_ENV):
- "embedded" (the default): one machine, no other server. SQLite under var/, Celery's filesystem broker under
  var/broker/, a secret key generated once into var/secret_key. `manage.py serve` runs everything.
- "production": DATABASE_URL (PostgreSQL), CELERY_BROKER_URL (Redis or RabbitMQ), SECRET_KEY and
  ALLOWED_HOSTS come from the environment; HTTPS-only cookies, HSTS and the SSL redirect are on, so that
  `manage.py check --deploy` is clean (tests/leaderboard/commands/test_check_deploy.py holds it to that).

docs/platform.md lists every variable.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from runner import vocabulary as _vocabulary
from runner.sandbox import default_sandbox as _runner_default_sandbox


def _default_sandbox() -> str:
    try:
        return _runner_default_sandbox()
    except RuntimeError:
        return ""


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: expected true or false")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    try:
        return default if value in (None, "") else int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: expected a whole number") from None


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    try:
        return default if value in (None, "") else float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: expected a number") from None


def _env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


BASE_DIR = Path(__file__).resolve().parent.parent
DJANGO_ENV = os.environ.get("DJANGO_ENV", "embedded")
if DJANGO_ENV not in ("embedded", "production"):
    raise ImproperlyConfigured(f"DJANGO_ENV={DJANGO_ENV!r}: expected embedded or production")
PRODUCTION = DJANGO_ENV == "production"

# Everything the embedded default writes: the SQLite file, the broker's folders, logs, the secret key.
VAR_DIR = Path(os.environ.get("KERNELBOARD_VAR_DIR", BASE_DIR / "var")).resolve()


def _embedded_secret_key() -> str:
    """A key made once per var/ folder, so that sessions survive a restart without anyone choosing one."""
    path = VAR_DIR / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(50)
    try:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(key)
    except FileExistsError:  # another process of `serve` wrote it first
        return path.read_text().strip()
    except OSError:  # a read-only checkout: a key for this process only
        pass
    return key


SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set in production (50+ random characters)")
    SECRET_KEY = _embedded_secret_key()

DEBUG = _env_bool("DEBUG", False)
ALLOWED_HOSTS = _env_list(
    "ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = _env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # the API docs page's static files, served locally (no CDN)
    "leaderboard.accounts",
    "leaderboard.problems",
    "leaderboard.submissions",
    "leaderboard.server",
    "leaderboard.web",
    "leaderboard.agentruns",
    "leaderboard.contests",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "leaderboard.server.middleware.SecurityHeadersMiddleware",  # Content-Security-Policy on every page
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "leaderboard.urls"
WSGI_APPLICATION = "leaderboard.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/admin/login/"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database ----------------------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=_env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web, the worker, its heartbeat thread and the sweeper all write: WAL lets readers run beside the
    # writer, IMMEDIATE takes the write lock when a transaction starts (no lock upgrade to deadlock on),
    # and the timeout makes a writer wait for the lock rather than fail.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    # The rankings' covering indexes (INCLUDE columns) are a PostgreSQL optimisation; SQLite keeps their
    # key columns and conditions, which is all it needs.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]
elif DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # A server that vanishes without closing the socket (a host gone, a partition) must fail a query within
    # seconds rather than hang a sweeper or a heartbeat forever: a connect timeout and TCP keepalives.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "connect_timeout": _env_int("DATABASE_CONNECT_TIMEOUT_S", 10),
            "keepalives": 1,
            "keepalives_idle": 30,
            "keepalives_interval": 10,
            "keepalives_count": 3,
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- static files: whitenoise serves them from gunicorn ----------------------------------------------------
STATIC_URL = "/static/"
# Production serves what `collectstatic` gathered here (docker/web.Dockerfile runs it); the embedded default
# serves straight from the apps' folders, so it needs no collectstatic step.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or (BASE_DIR / "staticfiles" if PRODUCTION else None)
WHITENOISE_USE_FINDERS = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- security --------------------------------------------------------------------------------------------
# HTTPS=false turns the HTTPS-only settings off for a production stack reached over plain HTTP on a private
# network (docker/compose.yaml on a laptop); check --deploy then warns, as it should.
HTTPS = _env_bool("HTTPS", PRODUCTION)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if _env_bool("BEHIND_PROXY", PRODUCTION) else None
)
SECURE_SSL_REDIRECT = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz", r"^metrics$"]  # the load balancer's probe speaks plain HTTP
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = _env_int("SECURE_HSTS_SECONDS", 31536000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "leaderboard.server.views.csrf_failure"  # a page in the site's layout, in words
# Log-in throttling (leaderboard/accounts/throttle.py), counted in the cache below, so every web process
# counts the same attempts: within the window, this many failed log-ins to one account from one address, to
# one account from any address, or from one address to any accounts, and further log-ins there are refused
# with 429 until the oldest failure leaves the window. One account's failures stop at the first limit, below
# the address's, so they never lock out the others behind that address.
LOGIN_MAX_FAILURES = _env_int("LOGIN_MAX_FAILURES", 10)
LOGIN_MAX_ACCOUNT_FAILURES = _env_int("LOGIN_MAX_ACCOUNT_FAILURES", 50)
LOGIN_MAX_ADDRESS_FAILURES = _env_int("LOGIN_MAX_ADDRESS_FAILURES", 50)
LOGIN_FAILURE_WINDOW_S = _env_int("LOGIN_FAILURE_WINDOW_S", 15 * 60)
# Password reset requests (each may send an email) in the same window: from one address, for one email address.
PASSWORD_RESET_MAX_PER_ADDRESS = _env_int("PASSWORD_RESET_MAX_PER_ADDRESS", 10)
PASSWORD_RESET_MAX_PER_EMAIL = _env_int("PASSWORD_RESET_MAX_PER_EMAIL", 3)

# --- cache: shared by every process (the log-in throttle's counts, the pages' standings) -------------------
# CACHE_URL: redis://HOST:PORT/DB (a database number of its own: clearing the cache empties that number), or
# empty: the platform's own database (the table kernelboard_cache, made by `migrate`), which every web
# process of the embedded default and of a cluster already shares, and which survives a restart. Never a
# per-process memory cache: a throttle counted per process lets through a multiple of its limit.
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
elif CACHE_URL in ("", "database"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "kernelboard_cache",
            # Django culls a third of the entries past MAX_ENTRIES (300 by default), throttle counts
            # included: a visitor could clear its own count by filling the cache.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    }
else:
    raise ImproperlyConfigured(
        f"CACHE_URL={CACHE_URL!r}: expected redis://HOST:PORT/DB or empty (the database)"
    )

# --- email: password resets ----------------------------------------------------------------------------------
# EMAIL_HOST set: sent through that SMTP server; else written to the web's log (the console backend), which
# is where an embedded platform's operator finds a reset link to pass on.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = _env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = _env_bool("EMAIL_USE_SSL", EMAIL_PORT == 465)
EMAIL_TIMEOUT = _env_int("EMAIL_TIMEOUT_S", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "kernelboard <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = _env_int("PASSWORD_RESET_TIMEOUT_S", 3 * 3600)  # a reset link works this long

# --- submissions -----------------------------------------------------------------------------------------
# 1 MiB, as GPU MODE's KernelBot takes
SUBMISSION_MAX_SOURCE_BYTES = _env_int("SUBMISSION_MAX_SOURCE_BYTES", 1 << 20)
# Request bodies may be a little over the source limit (JSON escaping), so that an oversized source gets the
# clear 413 of the submission service rather than Django's generic refusal.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(4 * SUBMISSION_MAX_SOURCE_BYTES, 2621440)
SUBMISSION_MAX_IN_FLIGHT = _env_int("SUBMISSION_MAX_IN_FLIGHT", 4)  # queued or running, per user; 0: no limit
SUBMISSION_MAX_PER_HOUR = _env_int("SUBMISSION_MAX_PER_HOUR", 60)  # per user; 0: no limit
# The exploration tier (mode explore: an agent's candidates, never ranked) has a quota of its own, so that an
# agent's thousand candidates never use up its author's ranked submissions, nor theirs its candidates.
EXPLORE_MAX_IN_FLIGHT = _env_int("EXPLORE_MAX_IN_FLIGHT", 16)  # queued or running, per user; 0: no limit
EXPLORE_MAX_PER_HOUR = _env_int("EXPLORE_MAX_PER_HOUR", 600)  # per user, shared results included; 0: none
# A leaderboard run that would enter the top N of its problem and device kind is judged again, with fresh
# secret seeds, before it ranks, and ranks on the slower of its runs: a lucky draw does not stay. 0: never.
LEADERS_JUDGED_AGAIN = _env_int("LEADERS_JUDGED_AGAIN", 3)
# A second judging goes to a worker other than the one that judged its first where another serves its device
# kind and is idle now, so that one machine's drift or fault does not decide both runs; for at most this long
# after it was queued, then whichever worker takes it judges it. 0: any worker at once.
LEADERS_ANOTHER_WORKER_WAIT_S = _env_float("LEADERS_ANOTHER_WORKER_WAIT_S", 60.0)
SUBMISSION_MAX_ATTEMPTS = 3  # claims of one submission before it ends as `error`
# A submission for a device kind that no worker serves now (no worker of its queue has beat within
# WORKER_STALE_AFTER_S) is refused, saying so, rather than queued to wait for nobody; false queues it anyway.
SUBMISSION_REFUSE_UNSERVED = _env_bool("SUBMISSION_REFUSE_UNSERVED", True)
# A queued submission whose device kind has had no worker for this long is taken off the queue (cancelled,
# with a message saying why) by the sweeper; 0: it waits for a worker however long.
SUBMISSION_UNSERVED_TIMEOUT_S = _env_float("SUBMISSION_UNSERVED_TIMEOUT_S", 1800.0)
# Each worker records itself (its device kinds, a beat) this often; one whose beat is older than
# WORKER_STALE_AFTER_S serves nothing (it was killed, or its host is gone).
WORKER_BEAT_INTERVAL_S = _env_float("WORKER_BEAT_INTERVAL_S", 10.0)
WORKER_STALE_AFTER_S = _env_float("WORKER_STALE_AFTER_S", max(30.0, 3 * WORKER_BEAT_INTERVAL_S))

# --- judging ---------------------------------------------------------------------------------------------
# The runner's sandbox, by the runner's one definition (runner.sandbox.default_sandbox: RUNNER_SANDBOX, else
# bwrap, else docker; never `none` unless named). "" where this host has none: a web process needs none, and
# a worker refuses to start there, saying why (leaderboard/submissions/readiness.py).
RUNNER_SANDBOX = _default_sandbox()
RUNNER_THREADS = _env_int("RUNNER_THREADS", 1)  # the contestant's CPU threads, fixed per job
# Timed seconds per benchmark case; empty: the runner's default for the mode (agents and tests use less).
RUNNER_CASE_BUDGET_S = _env_float("RUNNER_CASE_BUDGET_S", 0.0) or None
# An exploration candidate's: short, as the agents' own judging uses (a search needs many evaluations, and its
# best is judged in full when it is entered in leaderboard mode); RUNNER_CASE_BUDGET_S where that is shorter.
EXPLORE_CASE_BUDGET_S = _env_float("EXPLORE_CASE_BUDGET_S", 0.2)
# The function that judges a JobSpec. Only tests point it elsewhere (a fast trusted judge for load tests).
RUNNER_EXECUTE = os.environ.get("RUNNER_EXECUTE", "runner:execute")
HEARTBEAT_INTERVAL_S = _env_float("HEARTBEAT_INTERVAL_S", 5.0)
# A running submission whose heartbeat is older than this is taken back from its worker.
HEARTBEAT_TIMEOUT_S = _env_float("HEARTBEAT_TIMEOUT_S", 60.0)
# A queued submission whose message was sent longer ago than this is sent again (the broker may have lost
# it: a restart without persistence, a worker killed while holding it). A duplicate judges nothing.
REQUEUE_AFTER_S = _env_float("REQUEUE_AFTER_S", 600.0)
SWEEP_INTERVAL_S = _env_float("SWEEP_INTERVAL_S", 10.0)
# A sweeper (`manage.py sweep`, the loop in `serve`) that cannot complete a round for this long exits with
# status 1, so that its supervisor restarts it (or an operator hears of it) rather than it idling on.
SWEEP_GIVE_UP_S = _env_float("SWEEP_GIVE_UP_S", 300.0)
# How long a write that is safe to repeat (a claim, a report, a give-back) is retried while the database
# does not answer, before the worker gives up on it (the sweeper then takes the submission back).
DATABASE_RETRY_S = _env_float("DATABASE_RETRY_S", 120.0)
# /healthz/platform: the sweeper is reported down when its last round is older than this; these queues
# must each have a worker answering (comma-separated device kinds; none by default).
SWEEP_STALE_AFTER_S = _env_float("SWEEP_STALE_AFTER_S", max(60.0, 6 * SWEEP_INTERVAL_S))
HEALTH_EXPECTED_QUEUES = _env_list("HEALTH_EXPECTED_QUEUES", [])
HEALTH_WORKER_TIMEOUT_S = _env_float("HEALTH_WORKER_TIMEOUT_S", 1.0)
JUDGE_SOFT_TIME_LIMIT_S = _env_int("JUDGE_SOFT_TIME_LIMIT_S", 1800)
JUDGE_HARD_TIME_LIMIT_S = _env_int("JUDGE_HARD_TIME_LIMIT_S", JUDGE_SOFT_TIME_LIMIT_S + 120)
if JUDGE_HARD_TIME_LIMIT_S <= JUDGE_SOFT_TIME_LIMIT_S:
    raise ImproperlyConfigured("JUDGE_HARD_TIME_LIMIT_S must be above JUDGE_SOFT_TIME_LIMIT_S")

# --- Celery: one queue per device kind; the queue carries only the submission id -----------------------
DEVICE_KINDS = tuple(_vocabulary.DEVICE_KINDS)  # runner/vocabulary.py: the one table of device kinds
# A hostname, though the filesystem transport ignores it: without one kombu warns "No hostname was supplied"
# on every connection.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "control_folder": str(_broker_dir / "control"),
        "polling_interval": 0.1,
    }
else:
    # Redis (and SQS) give an unacknowledged message back after the visibility timeout. It must exceed the
    # hard limit, or a long run would be handed to a second worker while the first still judges it.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": JUDGE_HARD_TIME_LIMIT_S + 600}
# RabbitMQ closes a channel whose delivery stays unacknowledged past consumer_timeout (30 min by default);
# each queue asks for more than the hard limit (RabbitMQ 3.12+ reads the argument).
_queue_arguments = (
    {"x-consumer-timeout": (JUDGE_HARD_TIME_LIMIT_S + 600) * 1000}
    if CELERY_BROKER_URL.startswith(("amqp://", "amqps://", "pyamqp://"))
    else None
)
_judge_exchange = Exchange("judge", type="direct")
# Each device kind's ranked queue, then its exploration queue ("cpu.explore": runner/vocabulary.py), so that
# a ranked submission never waits behind an agent's candidates in one line (docs/platform.md, "The
# exploration tier").
CELERY_TASK_QUEUES = [
    Queue(name, _judge_exchange, routing_key=name, queue_arguments=_queue_arguments)
    for name in _vocabulary.JUDGING_QUEUES
]
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_DEFAULT_EXCHANGE = "judge"
CELERY_TASK_DEFAULT_ROUTING_KEY = "cpu"
CELERY_TASK_ACKS_LATE = True  # a message is acknowledged after its task ends, not when it is received
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # a killed pool process gives its message back
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a worker holds one message beyond the one it runs
CELERY_TASK_SOFT_TIME_LIMIT = JUDGE_SOFT_TIME_LIMIT_S
CELERY_TASK_TIME_LIMIT = JUDGE_HARD_TIME_LIMIT_S
CELERY_TASK_IGNORE_RESULT = True  # the database row is the result
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 3, "interval_start": 0, "interval_step": 0.5}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# On a lost broker connection the running judge goes on: its result is written to the database, and the
# message the broker gives back later finds nothing to claim.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
