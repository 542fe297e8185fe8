/*
 * Vitest puts Vite's own variables (BASE_URL '/', MODE, DEV, PROD, SSR) into process.env. The processes the tests
 * start (npm start, a replica, the crawl, the admin command) must see the environment a user's shell gives them, so
 * these are taken out: a BASE_URL of '/' would name the index by a relative URL.
 */
for (const name of ['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR']) delete process.env[name];
