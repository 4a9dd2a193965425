# The service image, on Node 24 (the runtime we ship and test; docs/development.md, "Runtimes").
# Build stage: every dependency, compile src/ and migrations/ (bench/ and tests/ stay out).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npx tsc -p tsconfig.build.json

# Runtime stage: production dependencies and the compiled code only, run as the image's unprivileged
# `node` user (uid 1000), which owns nothing but what it must write (the embedded database folder).
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY openapi ./openapi
COPY docs ./docs
COPY src/pages/templates ./src/pages/templates
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
ENV HOST=0.0.0.0 PORT=3000
# The heap settings `serve` and `import` start with on Node 24 (docs/operations.md, "Memory"): set here so
# the CLI does not restart itself to apply them.
ENV NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size=384"
EXPOSE 3000
# Readiness (database and Redis answer within 1 s); see docs/operations.md.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/cli/main.js", "serve", "--migrate"]
