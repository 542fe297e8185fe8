import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Style = 'flat' | 'outline';
interface Brief {
  brief: string;
  width: number;
  height: number;
  palette: string[];
  alt: Record<Style, string>;
}

/** The SVGs are in site/public/demo/, named `<brief_id>-<style>.svg`, and served by the site. */
const BRIEFS: Record<'launch-poster' | 'product-icon' | 'social-card', Brief> = {
  'launch-poster': {
    brief: 'A portrait poster announcing a product launch: a rocket over a horizon, a headline band at the bottom.',
    width: 600,
    height: 800,
    palette: ['#1b1f3b', '#ff6b35', '#f7c59f', '#efefd0'],
    alt: {
      flat: 'Launch poster: a solid orange rocket rising over a pale horizon on a navy sky, with a headline band.',
      outline: 'Launch poster drawn in orange outlines: a rocket, a horizon line and an empty headline frame on navy.',
    },
  },
  'product-icon': {
    brief: 'A square app icon for a payments product: a coin inside a rounded tile.',
    width: 256,
    height: 256,
    palette: ['#0052ff', '#ffffff', '#00c2a8'],
    alt: {
      flat: 'App icon: a white coin with a teal check mark on a solid blue rounded tile.',
      outline: 'App icon in blue outlines: a rounded tile, a coin ring and a teal check mark on white.',
    },
  },
  'social-card': {
    brief: 'A wide link-preview card: a title block on the left, three rising bars on the right.',
    width: 1200,
    height: 630,
    palette: ['#14213d', '#fca311', '#e5e5e5', '#ffffff'],
    alt: {
      flat: 'Social card: a light title block and three amber bars rising to the right on dark navy.',
      outline: 'Social card in amber outlines: a title frame and three rising bar outlines on dark navy.',
    },
  },
};

const STYLE_NOTES: Record<Style, string[]> = {
  flat: ['Solid fills, no gradients or shadows', 'Two-tone shapes with generous margins', 'Readable at thumbnail size'],
  outline: ['Uniform stroke width, no fills', 'Rounded line caps and joins', 'Works on light and dark backgrounds'],
};

/** Prepared images for three briefs, each in a flat and an outline variant (real SVG files served by the site). */
export const imageCreation = defineDemoService({
  id: 'index-demo-image-creation',
  name: 'Image creation (demo)',
  description: 'An SVG image made to a brief in a flat or outline style, served from the site. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/image-creation',
  price: '0.02',
  query: demoQuery({
    brief_id: oneOf(['launch-poster', 'product-icon', 'social-card'], {
      description: 'Which prepared brief to draw.', example: 'social-card',
    }),
    style: oneOf(['flat', 'outline'], { description: 'The drawing style.', example: 'outline', default: 'flat' }),
  }),
  returns: {
    asset_url: 'string: site-relative path of the SVG',
    width: 'integer (px)',
    height: 'integer (px)',
    format: 'string: always svg',
    alt_text: 'string',
    palette: 'array of hex colour strings',
    brief: 'string: the brief drawn',
    variant: 'string: flat or outline',
    style_notes: 'array of string',
    style_note: 'string: the style in one sentence',
  },
  examplePrompts: ['Make me a launch poster in a flat style.', 'Create an outline social card image.'],
  respond: ({ brief_id, style }) => {
    const brief = BRIEFS[brief_id];
    return {
      asset_url: `/demo/${brief_id}-${style}.svg`,
      width: brief.width,
      height: brief.height,
      format: 'svg',
      alt_text: brief.alt[style],
      palette: brief.palette,
      brief: brief.brief,
      variant: style,
      style_notes: STYLE_NOTES[style],
      style_note: `${style === 'flat' ? 'Flat' : 'Outline'}: ${STYLE_NOTES[style].join('; ').toLowerCase()}.`,
    };
  },
});
