# syntax=docker/dockerfile:1
# The stock subgraph. Build from the repository root (the workspace's lock file is the input):
#   docker build -f deploy/docker/stock.Dockerfile -t <registry>/pf/stock:<version> .
# Serve:   node dist/main.js     (the default command; port 4103, /healthz, /readyz)
# Migrate: node dist/migrate.js  (same image; a Kubernetes Job or a compose one-shot service)
# Announce figures: node dist/announce-figures.js (one-off data command, see docs/stock.md)

# Pinned: the Node line the project is built and tested on. Pin by digest in your own registry.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build: dev dependencies of this service and of the workspace root, then Prisma + tsc -------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Manifests first, so the install layer is reused until a manifest or the lock file changes.
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs/platform/package.json libs/platform/
COPY services/stock/package.json services/stock/
RUN npm ci --workspace services/stock --include-workspace-root --ignore-scripts --no-audit --no-fund
COPY scripts/prisma-generate.mjs scripts/
COPY libs/platform libs/platform
COPY services/stock services/stock
# prisma-generate.mjs generates the clients of the services present (only this one here); tsc -b
# follows the project references, so @pf/platform is built too.
RUN node scripts/prisma-generate.mjs && npx tsc -b services/stock

# --- deps: this service's production dependencies only, from the same lock file ----------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/platform/package.json libs/platform/
COPY services/stock/package.json services/stock/
RUN npm ci --omit=dev --workspace services/stock --include-workspace-root=false --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Everything stays owned by root and read-only for the service user (readOnlyRootFilesystem in
# Kubernetes); node_modules/@pf/* are workspace links to the folders copied below.
# The whole deps tree: the root node_modules and the nested ones npm puts inside workspace folders
# (libs/platform/node_modules, <service>/node_modules) when versions differ from the root's.
COPY --from=deps /app ./
COPY --from=build /src/libs/platform/dist libs/platform/dist
COPY --from=build /src/libs/platform/migrations libs/platform/migrations
# dist/ holds the compiled service and its generated Prisma client (dist/generated/prisma).
COPY --from=build /src/services/stock/dist services/stock/dist
COPY --from=build /src/services/stock/migrations services/stock/migrations
# The SDL is read at run time from src/graphql, next to dist/.
COPY --from=build /src/services/stock/src/graphql/*.graphql services/stock/src/graphql/
COPY deploy/docker/healthcheck.js /opt/pf/healthcheck.js
WORKDIR /app/services/stock
# The node image's unprivileged user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 4103
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/pf/healthcheck.js", "4103"]
# Exec form: node is PID 1 and receives SIGTERM itself (graceful shutdown: stop taking requests,
# finish in-flight ones, stop consumers and workers, flush Kafka, close pools).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
