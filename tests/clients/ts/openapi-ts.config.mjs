// @hey-api/openapi-ts settings for tests/clients/generated.sh: a fetch client, its types, an SDK
// function per operation, and zod schemas with which the SDK validates every success answer.
import { defineConfig } from '@hey-api/openapi-ts';

export default defineConfig({
  input: process.env.STRS_OPENAPI,
  // `.js` in the generated imports: tsc's output then runs under node as it is.
  output: { path: process.env.STRS_TS_OUT, importFileExtension: '.js' },
  plugins: [
    '@hey-api/client-fetch',
    '@hey-api/typescript',
    'zod',
    { name: '@hey-api/sdk', validator: true },
  ],
});
