/**
 * A document the index writes twice: as Markdown for agents (`/pricing.md`) and as a page for people (`/pricing`).
 * Both are made from one list of blocks, so they cannot say different things. Inline text marks code with backticks
 * and strong words with `**`, the only inline marks these documents use (docs/decisions.md).
 */

export type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'code'; text: string }
  | { kind: 'table'; head: string[]; rows: string[][] };

export interface IndexDocument {
  title: string;
  /** The same document as Markdown, linked from its page. */
  markdownPath: string;
  blocks: Block[];
}

/** A run of inline text: plain, code or strong. */
export interface Inline {
  kind: 'text' | 'code' | 'strong';
  text: string;
}

/**
 * @example toMarkdown({ title: 'Pricing', markdownPath: '/pricing.md', blocks: [{ kind: 'paragraph', text: 'Free.' }] }) // '# Pricing\n\nFree.\n'
 */
export function toMarkdown(document: IndexDocument): string {
  return [`# ${document.title}`, ...document.blocks.map(toMarkdownBlock)].join('\n\n') + '\n';
}

function toMarkdownBlock(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `## ${block.text}`;
    case 'paragraph':
      return block.text;
    case 'list':
      return block.items.map((item) => `- ${item}`).join('\n');
    case 'code':
      return `\`\`\`\n${block.text}\n\`\`\``;
    case 'table':
      return [block.head, block.head.map(() => '---'), ...block.rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
  }
}

/**
 * The runs of a line of inline text, for a page to render each as text, `<code>` or `<strong>`.
 * @example toInline('Run `npm start` **now**') // [{ kind: 'text', text: 'Run ' }, { kind: 'code', text: 'npm start' }, { kind: 'text', text: ' ' }, { kind: 'strong', text: 'now' }]
 */
export function toInline(text: string): Inline[] {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*)/).filter((part) => part !== '').map((part): Inline => {
    if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return { kind: 'code', text: part.slice(1, -1) };
    if (part.startsWith('**') && part.endsWith('**') && part.length > 4) return { kind: 'strong', text: part.slice(2, -2) };
    return { kind: 'text', text: part };
  });
}
