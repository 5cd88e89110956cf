/**
 * A small PDF writer for invoices: one A4 page of text in the standard Helvetica fonts (every PDF
 * reader has them, so nothing is embedded). A real PDF 1.4 file with a cross-reference table;
 * a dependency such as pdfkit would add megabytes for what is a page of text.
 */

export interface PdfText {
  text: string;
  x: number;
  /** From the top of the page, in points. */
  y: number;
  size?: number;
  isBold?: boolean;
  /** Right-align at x instead of starting there. */
  alignRight?: boolean;
}

export interface PdfRule {
  x1: number;
  x2: number;
  y: number;
}

const pageWidth = 595;
const pageHeight = 842;

/** WinAnsi (cp1252) bytes for the few characters above Latin-1 an invoice uses. */
const winAnsiExtras: Record<string, number> = { '€': 0x80, '–': 0x96, '—': 0x97, '’': 0x92 };

function encodeWinAnsi(text: string): number[] {
  const bytes: number[] = [];
  for (const character of text) {
    const code = character.codePointAt(0) ?? 63;
    bytes.push(winAnsiExtras[character] ?? (code < 256 ? code : 63));
  }
  return bytes;
}

/** A PDF string literal, with bytes above ASCII written as octal escapes. */
function pdfString(text: string): string {
  return `(${encodeWinAnsi(text)
    .map((byte) => {
      if (byte === 0x28 || byte === 0x29 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
      if (byte < 32 || byte > 126) return `\\${byte.toString(8).padStart(3, '0')}`;
      return String.fromCharCode(byte);
    })
    .join('')})`;
}

/** Helvetica advance widths (per 1000 units) are close enough to 0.5em for right alignment of
 * digits and short labels; digits are exactly 556. */
function approximateWidth(text: string, size: number, isBold: boolean): number {
  let units = 0;
  for (const character of text) {
    if (/[0-9£€$.,]/.test(character)) units += character === '.' || character === ',' ? 278 : 556;
    else if (character === ' ') units += 278;
    else if (/[A-Z]/.test(character)) units += isBold ? 722 : 667;
    else units += isBold ? 611 : 556;
  }
  return (units / 1000) * size;
}

export function renderPdf(content: { texts: PdfText[]; rules?: PdfRule[]; title: string }): Buffer {
  const operations: string[] = [];
  for (const rule of content.rules ?? []) {
    const y = pageHeight - rule.y;
    operations.push(`0.8 G 0.75 w ${rule.x1} ${y} m ${rule.x2} ${y} l S`);
  }
  for (const item of content.texts) {
    const size = item.size ?? 10;
    const isBold = item.isBold ?? false;
    const x = item.alignRight ? item.x - approximateWidth(item.text, size, isBold) : item.x;
    operations.push(
      `BT /${isBold ? 'F2' : 'F1'} ${size} Tf ${x.toFixed(2)} ${(pageHeight - item.y).toFixed(2)} Td ${pdfString(item.text)} Tj ET`,
    );
  }
  const stream = operations.join('\n');

  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageWidth} ${pageHeight}] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    `<< /Title ${pdfString(content.title)} /Producer (Farmcam local billing engine) >>`,
  ];

  let body = '%PDF-1.4\n%\xE2\xE3\xCF\xD3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export interface InvoiceDocument {
  number: string;
  issuedOn: string;
  status: string;
  billedTo: string;
  supplier: string;
  lines: { description: string; amount: string }[];
  totals: { label: string; amount: string; isBold?: boolean }[];
  footer: string;
}

/** An invoice laid out on one A4 page. */
export function renderInvoicePdf(invoice: InvoiceDocument): Buffer {
  const texts: PdfText[] = [
    { text: invoice.supplier, x: 50, y: 60, size: 16, isBold: true },
    { text: 'Invoice', x: 545, y: 60, size: 16, isBold: true, alignRight: true },
    { text: `Invoice number  ${invoice.number}`, x: 50, y: 100 },
    { text: `Date of issue  ${invoice.issuedOn}`, x: 50, y: 116 },
    { text: `Status  ${invoice.status}`, x: 50, y: 132 },
    { text: 'Billed to', x: 330, y: 100, isBold: true },
    { text: invoice.billedTo, x: 330, y: 116 },
    { text: 'Description', x: 50, y: 185, isBold: true },
    { text: 'Amount', x: 545, y: 185, isBold: true, alignRight: true },
  ];
  const rules: PdfRule[] = [{ x1: 50, x2: 545, y: 192 }];
  let y = 210;
  for (const line of invoice.lines) {
    texts.push({ text: line.description, x: 50, y });
    texts.push({ text: line.amount, x: 545, y, alignRight: true });
    y += 18;
  }
  rules.push({ x1: 300, x2: 545, y: y - 6 });
  y += 10;
  for (const total of invoice.totals) {
    texts.push({ text: total.label, x: 300, y, isBold: total.isBold });
    texts.push({ text: total.amount, x: 545, y, isBold: total.isBold, alignRight: true });
    y += 18;
  }
  texts.push({ text: invoice.footer, x: 50, y: 800, size: 8 });
  return renderPdf({ texts, rules, title: `Invoice ${invoice.number}` });
}
