import { describe, expect, it } from 'vitest';
import { cleanText, cleanTextField, escapeInvisible } from './text.ts';

/** Cleaning text from outside, and showing it to an operator. */

const FORBIDDEN = '\u0000\u0001\u0008\u000b\u000c\u000e\u001b\u001f\u007f\u0085\u009b\uFFFE\uFFFF\uDFFF\uD800';
const BIDI = '\u061C\u200E\u200F\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069';
/** XML 1.0's Char production: what a strict parser accepts. */
const XML_CHAR = /^[\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

describe('cleanText', () => {
  it('drops what XML 1.0 forbids, the C0 and C1 controls and the bidi controls, and keeps the rest', () => {
    const cleaned = cleanText(`Ch${FORBIDDEN}eap${BIDI} API`);
    expect(cleaned).toBe('Cheap API');
    expect(XML_CHAR.test(cleanText(FORBIDDEN + BIDI))).toBe(true);
  });

  it('keeps tab, newline, every script, emoji and astral characters', () => {
    const text = 'Météo\t天気\nطقس 👩‍💻 \u{1F600} \u{10FFFD} \uE000 \uFFFD';
    expect(cleanText(text)).toBe(text);
  });

  it('makes CRLF and a lone CR a newline', () => {
    expect(cleanText('a\r\nb\rc\n')).toBe('a\nb\nc\n');
  });

  it('drops a lone surrogate of either half but keeps a pair', () => {
    expect(cleanText('a\uD83Db\uDE00c\uD83D\uDE00')).toBe('abc\u{1F600}');
  });
});

describe('cleanTextField', () => {
  it('cleans before its later checks, so text of controls only is empty', () => {
    const field = cleanTextField().trim().min(1);
    expect(field.parse(' \u202EName\u0000 ')).toBe('Name');
    expect(field.safeParse('\u202E\u0001').success).toBe(false);
  });
});

describe('escapeInvisible', () => {
  it('writes controls, bidi and zero-width characters, separators and lone surrogates as \\u escapes', () => {
    expect(escapeInvisible('a\u202Eb\u0000c\u001b\u0085\u200B\u2028\uFEFF\uD800\uFFFF\n'))
      .toBe('a\\u202Eb\\u0000c\\u001B\\u0085\\u200B\\u2028\\uFEFF\\uD800\\uFFFF\\u000A');
    expect(escapeInvisible('Météo 天気 😀')).toBe('Météo 天気 😀');
  });

  it('keeps JSON valid and its values unchanged, line by line', () => {
    const value = { name: 'x\u202E\u0000\u2066y\uD800', tag: '\u{E0001}' };
    const text = JSON.stringify(value, null, 2).split('\n').map(escapeInvisible).join('\n');
    expect(text).not.toMatch(/[\u202E\u2066\u{E0001}]/u);
    expect(JSON.parse(text)).toEqual(value);
  });
});
