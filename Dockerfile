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
CMD ["node", "dist/src/cli.js", "serve", "--migrate"]
