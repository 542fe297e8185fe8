import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

interface Segment {
  start_seconds: number;
  end_seconds: number;
  speaker: string;
  text: string;
}
interface Clip {
  title: string;
  language: string;
  segments: Segment[];
  action_items: string[];
}

const seg = (start_seconds: number, end_seconds: number, speaker: string, text: string): Segment => ({ start_seconds, end_seconds, speaker, text });

const CLIPS: Record<'standup-2026-09-14' | 'customer-call-excerpt' | 'podcast-intro', Clip> = {
  'standup-2026-09-14': {
    title: 'Team stand-up, 14 September 2026 (sample)',
    language: 'en',
    segments: [
      seg(0, 9.5, 'Maya', 'Morning. Quick round today, we have the release review at ten.'),
      seg(9.5, 24, 'Jonas', 'I finished the facilitator retry logic; the settle timeout is now thirty seconds.'),
      seg(24, 38.2, 'Priya', 'The approval page works in Firefox, still checking the wallet switch on mobile.'),
      seg(38.2, 47, 'Maya', 'Good. Jonas, can you pair with Priya on the mobile check after the review?'),
      seg(47, 52.5, 'Jonas', 'Sure, I will book an hour.'),
    ],
    action_items: ['Jonas and Priya: check the wallet network switch on mobile after the release review'],
  },
  'customer-call-excerpt': {
    title: 'Customer call excerpt: failed test payment (sample)',
    language: 'en',
    segments: [
      seg(0, 11, 'Customer', 'My agent asked me to approve a purchase but the wallet said wrong network.'),
      seg(11, 22.4, 'Support', 'The preview runs on Base Sepolia. The page should have offered to switch; did you see that prompt?'),
      seg(22.4, 30, 'Customer', 'I dismissed it, I think. Then it failed.'),
      seg(30, 44.8, 'Support', 'Nothing was paid. Open the approval link again, accept the switch, and sign; the purchase is valid for five minutes.'),
    ],
    action_items: ['Support: send the customer a fresh approval link', 'Docs: explain the network switch prompt on the purchase page'],
  },
  'podcast-intro': {
    title: 'Agents and Money, episode 12 intro (sample)',
    language: 'en',
    segments: [
      seg(0, 8, 'Host', 'Welcome back to Agents and Money, the show about software that pays its own way.'),
      seg(8, 19.6, 'Host', 'Today: what happens when an API answers with a 402 instead of a 200.'),
      seg(19.6, 31, 'Guest', 'Thanks for having me. The short version: the 402 is a price tag the agent can read.'),
    ],
    action_items: [],
  },
};

/** Prepared transcripts of three sample clips, as timed segments or as speaker-labelled text. */
export const audioTranscription = defineDemoService({
  id: 'index-demo-audio-transcription',
  name: 'Audio transcription (demo)',
  description: 'A speaker-labelled transcript of a sample audio clip, with action items. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/audio-transcription',
  price: '0.01',
  query: demoQuery({
    clip_id: oneOf(['standup-2026-09-14', 'customer-call-excerpt', 'podcast-intro'], {
      description: 'Which sample clip to transcribe.', example: 'customer-call-excerpt',
    }),
    format: oneOf(['segments', 'text'], {
      description: 'segments: timed segments; text: one speaker-labelled line per segment.', example: 'text', default: 'segments',
    }),
  }),
  returns: {
    clip: '{id, title, duration_seconds, language, speakers[]}',
    format: 'string: segments or text',
    segments: '[{start_seconds, end_seconds, speaker, text}], when format is segments',
    transcript: 'string: one speaker-labelled line per segment, when format is text',
    action_items: 'array of string',
  },
  examplePrompts: ['Transcribe the sample customer call as plain text.', 'What were the action items of the 14 September stand-up?'],
  respond: ({ clip_id, format }) => {
    const clip = CLIPS[clip_id];
    const speakers = [...new Set(clip.segments.map((segment) => segment.speaker))];
    const duration_seconds = clip.segments.at(-1)?.end_seconds ?? 0;
    const answer = format === 'segments'
      ? { segments: clip.segments }
      : { transcript: clip.segments.map((segment) => `${segment.speaker}: ${segment.text}`).join('\n') };
    return {
      clip: { id: clip_id, title: clip.title, duration_seconds, language: clip.language, speakers },
      format,
      ...answer,
      action_items: clip.action_items,
    };
  },
});
