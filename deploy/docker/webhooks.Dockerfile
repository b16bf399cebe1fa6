# syntax=docker/dockerfile:1
# The webhooks subgraph. Build from the repository root (the workspace's lock file is the input):
#   docker build -f deploy/docker/webhooks.Dockerfile -t <registry>/pf/webhooks:<version> .
# Serve:   node dist/main.js     (the default command; port 4105, /healthz, /readyz)
# Migrate: node dist/migrate.js  (same image; a Kubernetes Job or a compose one-shot service)

# Pinned: the Node line the project is built and tested on. Pin by digest in your own registry.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build: dev dependencies of this service and of the workspace root, then Prisma + tsc -------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Manifests first, so the install layer is reused until a manifest or the lock file changes.
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs/platform/package.json libs/platform/
COPY services/webhooks/package.json services/webhooks/
RUN npm ci --workspace services/webhooks --include-workspace-root --ignore-scripts --no-audit --no-fund
COPY scripts/prisma-generate.mjs scripts/
COPY libs/platform libs/platform
COPY services/webhooks services/webhooks
# prisma-generate.mjs generates the clients of the services present (only this one here); tsc -b
# follows the project references, so @pf/platform is built too.
RUN node scripts/prisma-generate.mjs && npx tsc -b services/webhooks

# --- deps: this service's production dependencies only, from the same lock file ----------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/platform/package.json libs/platform/
COPY services/webhooks/package.json services/webhooks/
RUN npm ci --omit=dev --workspace services/webhooks --include-workspace-root=false --ignore-scripts --no-audit --no-fund \
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
COPY --from=build /src/services/webhooks/dist services/webhooks/dist
COPY --from=build /src/services/webhooks/migrations services/webhooks/migrations
# The SDL is read at run time from src/graphql, next to dist/.
COPY --from=build /src/services/webhooks/src/graphql/*.graphql services/webhooks/src/graphql/
COPY deploy/docker/healthcheck.js /opt/pf/healthcheck.js
WORKDIR /app/services/webhooks
# The node image's unprivileged user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 4105
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/pf/healthcheck.js", "4105"]
# Exec form: node is PID 1 and receives SIGTERM itself (graceful shutdown: stop taking requests,
# finish in-flight ones, stop consumers and workers, flush Kafka, close pools).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
