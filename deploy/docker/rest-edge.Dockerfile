# syntax=docker/dockerfile:1
# The REST edge (the public Channel API). Build from the repository root:
#   docker build -f deploy/docker/rest-edge.Dockerfile -t <registry>/pf/rest-edge:<version> .
# Serve: node dist/main.js (the default command; port 8080, /healthz, /readyz). No migrations: the
# edge has no tables (rate limits live in Redis).

# Pinned: the Node line the project is built and tested on. Pin by digest in your own registry.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs/platform/package.json libs/platform/
COPY services/rest-edge/package.json services/rest-edge/
RUN npm ci --workspace services/rest-edge --include-workspace-root --ignore-scripts --no-audit --no-fund
COPY libs/platform libs/platform
COPY services/rest-edge services/rest-edge
RUN npx tsc -b services/rest-edge

# --- deps: the edge's production dependencies only, from the same lock file -------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/platform/package.json libs/platform/
COPY services/rest-edge/package.json services/rest-edge/
RUN npm ci --omit=dev --workspace services/rest-edge --include-workspace-root=false --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# The whole deps tree: the root node_modules and the nested ones npm puts inside workspace folders
# (libs/platform/node_modules, <service>/node_modules) when versions differ from the root's.
COPY --from=deps /app ./
COPY --from=build /src/libs/platform/dist libs/platform/dist
COPY --from=build /src/services/rest-edge/dist services/rest-edge/dist
# The OpenAPI document is a source file of the edge: requests are validated against it at run time.
COPY --from=build /src/services/rest-edge/openapi services/rest-edge/openapi
COPY deploy/docker/healthcheck.js /opt/pf/healthcheck.js
WORKDIR /app/services/rest-edge
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/pf/healthcheck.js", "8080"]
# Exec form: node is PID 1 and receives SIGTERM itself.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
