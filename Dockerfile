# The rampflow image: every process of the project (worker, webhook receiver, sandbox, CLI) as
# `node bin/rampflow.cjs <command>`; docker-compose.yml picks the command per service.
FROM node:20.19-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so a source change does not reinstall them. tsx runs the TypeScript sources
# (there is no build step), so it is a runtime dependency. --ignore-scripts skips `prepare`, which
# builds the Temporal dev server: a local tool the image does not need (and the sources are not here yet).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

COPY . .

USER node
ENTRYPOINT ["node", "bin/rampflow.cjs"]
CMD ["worker"]
