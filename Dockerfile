# syntax=docker/dockerfile:1
FROM node:26-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY migrations migrations
RUN npm run build && npm prune --omit=dev

FROM node:26-bookworm-slim
# The production launch; npm start runs the same (test/launch-drift.test.ts holds them together).
# Two malloc arenas, not one per thread: the same speed, less memory. A 128 MB old generation makes V8
# collect before it grows, so a busy instance stays within a 256 MB container. An instance that goes quiet
# gives back what a busy spell grew by itself: V8's memory reducer runs full collections once allocation stops.
ENV NODE_ENV=production NODE_OPTIONS=--max-old-space-size=128 MALLOC_ARENA_MAX=2 PORT=8080 DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
