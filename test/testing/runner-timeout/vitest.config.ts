// vitest's defaults (5 s a test, 10 s a hook): only where the tests are is said, so that the
// configuration of the repository above is not found and used instead.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['*.spec.ts'] } });
