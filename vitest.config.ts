import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{api,crawler,data,domain,net,scripts,server,site,webhooks}/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
