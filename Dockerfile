# The kbqa service as a container image (docs/deploy.md): `kbqa start` by default, `kbqa worker` or
# any other kbqa command as the container's arguments. Build from the repository root:
#   docker build -t kbqa .
# Needs BuildKit (the default builder since Docker 23) for the pnpm store's cache mount.
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
# Passed through so that a build behind a registry mirror installs from it.
ARG NPM_REGISTRY=https://registry.npmjs.org/
ENV npm_config_registry=${NPM_REGISTRY} \
    CI=true \
    TURBO_TELEMETRY_DISABLED=1
# better-sqlite3 compiles from source (pnpm-workspace.yaml lets only it run an install script; the
# scripts of onnxruntime-node and node-llama-cpp stay off).
RUN if ! (command -v python3 && command -v make && command -v g++) >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && \
      rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
COPY package.json ./
# The pnpm that package.json names (packageManager), so it does not fetch another one.
RUN npm install -g --no-fund --no-audit "$(node -p "require('./package.json').packageManager")"
COPY . .
# node-gyp uses the headers installed beside node (the official image has them) rather than
# downloading them from nodejs.org.
RUN --mount=type=cache,id=kbqa-pnpm-store,target=/pnpm/store \
    prefix="$(node -p "require('path').resolve(process.execPath, '../..')")" && \
    if [ -f "$prefix/include/node/node.h" ]; then export npm_config_nodedir="$prefix"; fi && \
    pnpm install --frozen-lockfile --prefer-offline --store-dir /pnpm/store
# The service and the packages it uses (not the test packages).
RUN pnpm exec turbo run build --filter=kbqa... --output-logs=errors-only
# apps/api with only its production dependencies, the workspace packages copied in (injected).
# Native binaries of other platforms are dropped: onnxruntime-node ships all of them.
RUN --mount=type=cache,id=kbqa-pnpm-store,target=/pnpm/store \
    pnpm --config.inject-workspace-packages=true --filter kbqa deploy --prod --offline \
      --store-dir /pnpm/store /app && \
    arch="$(node -p process.arch)" && \
    for bin in /app/node_modules/.pnpm/onnxruntime-node@*/node_modules/onnxruntime-node/bin/napi-v*; do \
      find "$bin" -mindepth 2 -maxdepth 2 -type d ! -path "$bin/linux/$arch" -exec rm -rf {} +; \
    done && \
    rm -rf /app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/Release/obj* \
      /app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/Release/*.a \
      /app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/deps \
      /app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/src \
      /app/pnpm-lock.yaml && \
    chmod +x /app/dist/cli.js

FROM ${BASE}
ENV NODE_ENV=production \
    KBQA_DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=3000
# A fixed uid, so that a bind-mounted data directory can be given to it (chown 10001).
RUN groupadd --system --gid 10001 kbqa && \
    useradd --system --uid 10001 --gid kbqa --home-dir /data --no-create-home --shell /usr/sbin/nologin kbqa && \
    mkdir /data && chown kbqa:kbqa /data
COPY --from=build /app /app
RUN ln -s /app/dist/cli.js /usr/local/bin/kbqa
USER kbqa
WORKDIR /data
VOLUME /data
EXPOSE 3000
# Node's own fetch: the image needs no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# kbqa itself is PID 1: `kbqa start` stops on SIGTERM (docker stop) and exits 0.
ENTRYPOINT ["kbqa"]
CMD ["start"]
