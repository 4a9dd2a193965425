/**
 * The service's wire types (src/wire/types.gen.ts): the types of openapi/openapi.yaml's schemas, made by the
 * generator the client uses (clients/typescript/openapi-ts.config.mjs) with its `@hey-api/typescript` plugin only.
 * Regenerate with `npm run wire:generate` (Node >= 22.18); `npm run client:check` fails when they differ.
 */
import { defineConfig } from '@hey-api/openapi-ts';

export default defineConfig({
  input: '../../openapi/openapi.yaml',
  output: {
    path: process.env.OPENAPI_TS_OUTPUT || '../../src/wire',
    entryFile: false,
    header: (ctx) => [
      ...ctx.defaultValue,
      '// Generated from openapi/openapi.yaml by `npm run wire:generate` (clients/typescript/openapi-ts.wire.config.mjs); do not edit.',
    ],
  },
  plugins: ['@hey-api/typescript'],
});
