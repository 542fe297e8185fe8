import type { DemoService } from './service.ts';
import { audioTranscription } from './services/audio-transcription.ts';
import { contractScreening } from './services/contract-screening.ts';
import { imageCreation } from './services/image-creation.ts';
import { jobSearch } from './services/job-search.ts';
import { marketData } from './services/market-data.ts';
import { productSearch } from './services/product-search.ts';
import { specialistResearch } from './services/specialist-research.ts';
import { walletBriefing } from './services/wallet-briefing.ts';
import { webSearch } from './services/web-search.ts';
import { websitePerformance } from './services/website-performance.ts';
import { whitepaperExtraction } from './services/whitepaper-extraction.ts';

/** Every demo service, in catalog order. */
export const DEMO_SERVICES: readonly DemoService[] = [
  marketData,
  walletBriefing,
  contractScreening,
  webSearch,
  whitepaperExtraction,
  specialistResearch,
  imageCreation,
  audioTranscription,
  productSearch,
  jobSearch,
  websitePerformance,
];

/**
 * The demo service with this id (case-insensitive), or undefined.
 * @example findDemoService('index-demo-web-search')?.path // '/api/demo/services/web-search'
 */
export function findDemoService(id: string): DemoService | undefined {
  const wanted = id.toLowerCase();
  return DEMO_SERVICES.find((service) => service.id === wanted);
}
