import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The WASM DIDComm library and LevelDB are process-wide; forks keep them isolated per file.
    pool: 'forks',
  },
});
