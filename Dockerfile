# syntax=docker/dockerfile:1
# The catalog API and its indexer (one image; docker-compose.yml runs it twice).

# --- build: compile TypeScript and better-sqlite3, then keep production dependencies only
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Scripts off: `prepare` would compile before the sources are here; better-sqlite3 is built next.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY indexer indexer
COPY bench bench
COPY scripts scripts
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --ignore-scripts

# --- runtime: no compiler, no dev dependencies, not root
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY fixtures fixtures
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--expose-gc", "--heap-growing-percent=50", "dist/src/server.js"]
