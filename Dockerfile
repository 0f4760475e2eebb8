# syntax=docker/dockerfile:1
FROM node:26-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts scripts
COPY src src
COPY migrations migrations
RUN npm run build && npm prune --omit=dev

FROM node:26-bookworm-slim
# The production launch; npm start runs the same (test/launch-drift.test.ts holds them together).
# Flags are per Node major; these were measured on Node 26.12 (service on one core, wrk -c32, MySQL and Redis
# on the other; CPU per request and RSS over list, get and create loads). Re-measure on another major: on
# Node 24 the old-space flag alone lets the young generation grow to 128 MB (v8.getHeapSpaceStatistics), as
# large as the old one, and a page of 20 pets falls from about 4,600 to 520 requests a second.
#   --max-old-space-size=128: V8 collects before the heap grows past what a 256 MB container holds. The live
#     heap is about 45 MB; at 96 V8 collects nearly without pause (list20 1,700 -> 450 req/s, create 1,100 -> 140).
#   --max-semi-space-size=8: caps the young generation (13.5 MB, where V8 grows it to 63 MB under load on
#     Node 26): idle 155 MB instead of 174-175, peak 170-181 MB instead of 209-210, the same CPU per request
#     within the noise (list20 452-476 us against 435-525, create 571-647 against 625-678, on a machine busy
#     with other work; GraphQL list and create medians within 5% over three more rounds). Without flags: peak
#     283-295 MB.
#   MALLOC_ARENA_MAX=2: two malloc arenas, not one per thread: the same speed, less memory.
#   --single-threaded (a V8 flag, so on the command line: NODE_OPTIONS refuses it): the collector and the
#     optimising compilers on the main thread. A process started where it sees more cores than it is then
#     given (a container's CPU limit, the bench's taskset after start) otherwise runs background compiler
#     threads that take turns with the requests: same run, all four started unpinned, list20 5,539 req/s
#     with it against 4,400 with --single-threaded-gc alone and 4,761 for the build before today's changes
#     (get1 7,010 / 5,945 / 6,874); a process pinned before it starts sees one core and gets 4,989 / 6,878.
#   It implies --single-threaded-gc, measured first (those figures were from processes pinned at start):
#     every phase of the
#     collector on the main thread. On one core V8's helper threads for marking, sweeping and scavenging only
#     take turns with the requests and add their synchronisation: with the flag, the same run (2026-11-28,
#     shared bench, one core) gave list20 4,273 -> 5,294 req/s, list100s 2,732 -> 4,027, get1 5,360 -> 6,925,
#     POST 3,731 -> 4,020, and at a fixed 1,485 req/s of list20 a p99 of 7 ms instead of 14-20 (get1 at 1,925:
#     11-14 against 19-22; POST at 931: 7-10 against 18). A semi-space of 16 with it: within the noise on
#     speed, 244 MB RSS after load against 207.
#   --no-allocation-site-pretenuring (also a V8 flag): V8 otherwise learns, from objects that lived long
#     during a spell of writes, to allocate what those allocation sites make straight into the old
#     generation, and keeps doing it for the reads that follow, whose objects die young: an instance that
#     had taken a 3-second burst of POSTs served list20 about 25% more slowly than a fresh one, for good
#     (five rounds of 5 s: 3,710-4,250 req/s against 4,990-5,460). With the flag, the same burst costs
#     nothing (4,870-5,490 after it, 4,350-5,210 fresh, same run). The trade, in a later run against the
#     build before it: reads +12-53%, POST -11% (a create's objects do live long; now they are copied once).
#   --expose-gc: lets the instance give back, once a busy spell is over, the heap the spell grew
#     (src/ops/memory-trim.ts, MEMORY_TRIM_SECONDS). V8's own memory reducer would, but on a quiet instance
#     it kept judging the allocation rate high and never ran (--trace-memory-reducer: "high alloc" every
#     8 s for minutes): after the bench's seeding 158-171 MB resident 20 s later, heap 83 MB holding 52;
#     one memory-reducing collection took it to 115 MB, heap 38 MB. Off by default (MEMORY_TRIM_SECONDS=0):
#     regrowing the heap after a trim cost list20 25-45% of its speed in the rounds that followed.
# It runs the bundle (npm run build: scripts/bundle.ts): our code minified into a few files, its libraries
# from node_modules, with source maps for our own files so that a stack trace in a log names src/...:line
# (about 25 us per stack formatted; a REST 404 formats one: not measurable in its CPU per request). The
# libraries bundled too held 11 MB less heap but served a page of 20 pets 5-10% slower (three runs).
ENV NODE_ENV=production NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8" MALLOC_ARENA_MAX=2 PORT=8080 DATA_DIR=/app/data
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
CMD ["node", "--single-threaded", "--no-allocation-site-pretenuring", "--expose-gc", "dist/bundle/server.mjs"]
