import { defineConfig } from '@hey-api/openapi-ts';

export default defineConfig({
  input: '../../openapi/openapi.yaml',
  output: { path: process.env.OPENAPI_TS_OUTPUT || 'src/generated' },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
});
