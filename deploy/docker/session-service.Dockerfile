# syntax=docker/dockerfile:1
# session-service: build with the repository root as the context:
#   docker build -f deploy/docker/session-service.Dockerfile -t context-ledger/session-service .
# Multi-stage: the build stage compiles (dev dependencies), the deps stage installs only the production
# dependencies, the runtime stage is distroless Node 22 (no shell, no package manager) running as non-root.
ARG NODE_BUILD_IMAGE=node:22-bookworm-slim
ARG NODE_RUNTIME_IMAGE=gcr.io/distroless/nodejs22-debian12:nonroot

FROM ${NODE_BUILD_IMAGE} AS build
WORKDIR /src
# Install scripts are not needed to build (the "node" dev dependency only fetches a Node binary the image has).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
# The session inspector page (/ui): bundled by the same build into dist/apps/session-service/ui.
COPY ui ./ui
RUN npx nest build session-service

FROM ${NODE_BUILD_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_RUNTIME_IMAGE}
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 LOG_FORMAT=json
COPY --from=deps /src/node_modules ./node_modules
COPY --from=build /src/dist/apps/session-service/main.js ./main.js
COPY --from=build /src/dist/apps/session-service/ui ./ui
USER nonroot
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["/nodejs/bin/node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["main.js"]
