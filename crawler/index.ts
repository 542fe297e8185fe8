/*
 * The crawler's public entry for the API and the webhook worker: what a request needs of the code that reaches out
 * to services (a seller's check, an owner's recheck, a claim's verification), each through the SSRF guard. The API
 * loads it on first use (api/owner-runtime.ts `crawler()`), so an app that never reaches a host holds none of it.
 * Every other crawler module is the crawler's own; scripts/folders.test.ts fails when api/ or webhooks/ import one.
 */
export { createProbeAgent, probeEndpoint, type ProbeAgent } from './probe.ts';
export { checkOwnership } from './ownership.ts';
export { diagnoseAnswer } from './check/diagnose.ts';
export { readHostDiscovery } from './check/discovery.ts';
