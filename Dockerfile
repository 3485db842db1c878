# The rampflow image: every process of the project (worker, webhook receiver, sandbox, CLI) as
# `node dist/cli/main.js <command>`; docker-compose.yml picks the command per service. It runs the
# build (`npm run build`: compiled code and the prebuilt workflow bundle), not the TypeScript sources,
# so what was tested is what runs and a worker starts without bundling (docs/deploying/versioning.md).

# Stage 1: the build, with the dev dependencies it needs (TypeScript). --ignore-scripts skips
# `prepare`, which builds the Temporal dev server: a local tool the image does not need.
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

# Stage 2: production dependencies only, and the build.
FROM node:20.19-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY . .
COPY --from=build /app/dist ./dist

USER node
# The worker starts with the heap limit WORKER_MEMORY_MB sets (bin/docker-entrypoint.sh).
ENTRYPOINT ["/app/bin/docker-entrypoint.sh"]
CMD ["worker"]
