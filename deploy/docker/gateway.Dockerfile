# syntax=docker/dockerfile:1
# The GraphQL gateway. Build from the repository root (the workspace's lock file is the input):
#   docker build -f deploy/docker/gateway.Dockerfile -t <registry>/pf/gateway:<version> .
# Serve: node dist/main.js (the default command; port 4000, /healthz, /readyz). No migrations: the
# gateway has no database. It loads the committed supergraph (gateway/supergraph.graphql, checked
# against a fresh composition in CI); Kubernetes mounts the same file from a ConfigMap instead
# (SUPERGRAPH_PATH), so a schema change can ship without rebuilding this image.

# Pinned: the Node line the project is built and tested on. Pin by digest in your own registry.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs/platform/package.json libs/platform/
COPY gateway/package.json gateway/
RUN npm ci --workspace gateway --include-workspace-root --ignore-scripts --no-audit --no-fund
COPY libs/platform libs/platform
COPY gateway gateway
RUN npx tsc -b gateway

# --- deps: the gateway's production dependencies only, from the same lock file ----------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/platform/package.json libs/platform/
COPY gateway/package.json gateway/
RUN npm ci --omit=dev --workspace gateway --include-workspace-root=false --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# The whole deps tree: the root node_modules and the nested ones npm puts inside workspace folders
# (libs/platform/node_modules, <service>/node_modules) when versions differ from the root's.
COPY --from=deps /app ./
COPY --from=build /src/libs/platform/dist libs/platform/dist
COPY --from=build /src/gateway/dist gateway/dist
# Read at run time from the package root: the subgraph list (URLs and their variables) and the
# supergraph (the default SUPERGRAPH_PATH).
COPY --from=build /src/gateway/subgraphs.json /src/gateway/supergraph.graphql gateway/
COPY deploy/docker/healthcheck.js /opt/pf/healthcheck.js
WORKDIR /app/gateway
USER 1000:1000
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/pf/healthcheck.js", "4000"]
# Exec form: node is PID 1 and receives SIGTERM itself.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
