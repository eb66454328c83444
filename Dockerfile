# syntax=docker/dockerfile:1
# parley's container image. Build: docker build -t parley .   Run with Redis: docker compose up -d
# CI has no Docker engine: scripts/check-image-recipe.ts runs this file's install and start steps in
# a clean temporary folder instead (bash .ci/run), and lints it with hadolint where that is installed.

# --- Stage 1: production dependencies only --------------------------------------------------------
FROM node:24-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# sharp and the other native modules ship prebuilt binaries for linux glibc: no compiler is needed.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- Stage 2: the runtime -------------------------------------------------------------------------
FROM node:24-slim
# Node 24 runs the TypeScript sources directly (type stripping): there is no build step.
# NODE_COMPILE_CACHE: a restart reads the modules' compiled code instead of compiling them again
# (scripts/start.sh says more).
ENV NODE_ENV=production \
    HEALTH_PORT=8080 \
    HOST=0.0.0.0 \
    NODE_COMPILE_CACHE=/tmp/parley-compile-cache
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY config ./config
COPY bin ./bin
COPY src ./src
COPY commands ./commands
COPY adapters ./adapters
# History (the default SQLite store) and the terminal's files live in folders the unprivileged user
# owns; /app/data is a volume so it outlives the container.
RUN mkdir -p /app/data /app/out && chown node:node /app/data /app/out
USER node
VOLUME ["/app/data"]
# 8080: GET /healthz, /readyz, /metrics. 3000: Slack events in HTTP mode (Socket Mode needs no port).
EXPOSE 8080 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEALTH_PORT || 8080) + '/healthz').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--expose-gc", "bin/parley.ts"]
