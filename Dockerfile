# The sorry-arena image: the `sorry-arena` command (API, RQ workers, migrations) and the example push bots
# (`python -m clients`). compose.yaml builds it (docs/deploy.md); tests/test_compose.py checks that it installs
# what compose.yaml runs.

# Stage 1: a wheel of the project, from pyproject.toml and the packages it lists.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml ./
COPY engine/ engine/
COPY store/ store/
COPY botlink/ botlink/
COPY ratings/ ratings/
COPY runtime/ runtime/
COPY service/ service/
COPY tournament/ tournament/
COPY clients/ clients/
COPY envs/ envs/
COPY cli/ cli/
RUN pip wheel --no-deps --wheel-dir /wheels .

# Stage 2: the wheel and its runtime dependencies only (no extras: no test tools), no source tree, a non-root user.
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 --user-group arena
USER arena
# Writable by the user: the default SQLite file (DATABASE_URL unset) lands here.
WORKDIR /home/arena
EXPOSE 8000
CMD ["sorry-arena", "serve", "--host", "0.0.0.0", "--port", "8000"]
