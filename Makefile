# Shortcuts for the npm scripts (see README).
.PHONY: install build test lint run demo migrate bench
install:
	npm install
build:
	npm run build
test:
	npm test
lint:
	npm run lint
run: build
	node dist/src/cli/main.js serve
demo:
	npm run demo
migrate: build
	node dist/src/cli/main.js migrate
bench:
	npm run bench
