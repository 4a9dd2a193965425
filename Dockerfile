FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY openapi ./openapi
COPY docs ./docs
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm prune --omit=dev
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# Readiness (database and Redis answer within 1 s); see docs/operations.md.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/cli.js", "serve", "--migrate"]
