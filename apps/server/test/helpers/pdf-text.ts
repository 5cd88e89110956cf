/**
 * The text of a PDF made by pdfkit with its standard fonts, one line per text operation, so
 * tests can read what an invoice says without a system tool. Enough for our own documents, not a
 * general PDF reader: it inflates each content stream and decodes the WinAnsi strings of its
 * `TJ`/`Tj` operators.
 */
import { inflateSync } from 'node:zlib';

const winAnsiAbove127: Record<number, string> = {
  0x80: '€',
  0x91: '‘',
  0x92: '’',
  0x93: '“',
  0x94: '”',
  0x95: '•',
  0x96: '–',
  0x97: '—',
};

function decodeHex(hex: string): string {
  let text = '';
  for (let index = 0; index + 1 < hex.length; index += 2) {
    const byte = Number.parseInt(hex.slice(index, index + 2), 16);
    text += winAnsiAbove127[byte] ?? String.fromCharCode(byte);
  }
  return text;
}

export function pdfText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const lines: string[] = [];
  const streamPattern = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamPattern.exec(source))) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end < 0) break;
    const raw = pdf.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(raw).toString('latin1');
    } catch {
      content = raw.toString('latin1');
    }
    for (const operation of content.matchAll(
      /\[((?:<[0-9a-fA-F]*>|[\s\d.-])*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g,
    )) {
      const parts = operation[1]
        ? [...operation[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((part) => part[1]!)
        : [operation[2]!];
      lines.push(parts.map(decodeHex).join(''));
    }
    streamPattern.lastIndex = end;
  }
  return lines.join('\n');
}
