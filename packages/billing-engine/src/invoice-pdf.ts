/**
 * Invoice and credit note PDFs on pdfkit (the standard Helvetica fonts, nothing embedded): one A4
 * page with what a bookkeeper checks (docs/decisions/026): the supplier with its address and VAT
 * number, the customer, the camera, the period, every line with its amount, VAT and totals.
 * The layout knows nothing of the database: callers hand it text already formatted.
 */
import PDFDocument from 'pdfkit';

export interface PdfLine {
  description: string;
  /** A second, smaller line under the description, e.g. the period it covers. */
  detail?: string;
  amount: string;
}

export interface PdfTotal {
  label: string;
  amount: string;
  isBold?: boolean;
}

export interface BillingDocument {
  /** "Invoice" or "Credit note". */
  title: string;
  /** Label/value pairs under the title: number, dates, period, status. */
  facts: { label: string; value: string }[];
  supplier: { name: string; addressLines: string[]; vatNumber: string };
  /** The customer: name (when known) and e-mail. */
  billedTo: string[];
  /** "North gate camera (ICCID 8944…)", when the document is for a camera. */
  camera: string | null;
  lines: PdfLine[];
  totals: PdfTotal[];
  /** Short paragraphs under the totals (how it was paid, credit carried forward). */
  notes: string[];
  footer: string;
}

const page = { width: 595.28, height: 841.89, margin: 50 };
const ink = '#1d2a1f';
const muted = '#5b665d';
const rule = '#c9cfc9';
const contentWidth = page.width - 2 * page.margin;
const amountWidth = 110;

/** Renders a billing document; resolves to the PDF's bytes. */
export function renderBillingPdf(document: BillingDocument): Promise<Buffer> {
  const pdf = new PDFDocument({
    size: 'A4',
    margin: page.margin,
    info: { Title: document.facts[0]?.value ?? document.title, Producer: document.supplier.name },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const left = page.margin;
  const right = page.width - page.margin;

  // Heading: the supplier's name and the kind of document.
  pdf
    .fillColor(ink)
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(document.supplier.name, left, 50, {
      width: contentWidth - 160,
    });
  pdf.fontSize(18).text(document.title, right - 160, 50, { width: 160, align: 'right' });

  // Facts (number, dates, period) on the left, the supplier on the right.
  let y = 95;
  for (const fact of document.facts) {
    pdf
      .font('Helvetica-Bold')
      .fontSize(9)
      .fillColor(muted)
      .text(fact.label, left, y, { width: 95 });
    pdf
      .font('Helvetica')
      .fontSize(9)
      .fillColor(ink)
      .text(fact.value, left + 100, y, { width: 170 });
    y += 14;
  }
  const factsBottom = y;

  const column = left + 300;
  y = 95;
  pdf.font('Helvetica-Bold').fontSize(9).fillColor(muted).text('From', column, y);
  y += 13;
  pdf.font('Helvetica-Bold').fontSize(10).fillColor(ink).text(document.supplier.name, column, y);
  y += 13;
  pdf.font('Helvetica').fontSize(9);
  for (const line of document.supplier.addressLines) {
    pdf.text(line, column, y, { width: right - column });
    y += 12;
  }
  pdf.text(`VAT number ${document.supplier.vatNumber}`, column, y);
  y += 20;
  pdf.font('Helvetica-Bold').fontSize(9).fillColor(muted).text('Bill to', column, y);
  y += 13;
  pdf.font('Helvetica').fontSize(9).fillColor(ink);
  for (const line of document.billedTo) {
    pdf.text(line, column, y, { width: right - column });
    y += 12;
  }
  y = Math.max(y, factsBottom) + 14;

  if (document.camera) {
    pdf.font('Helvetica-Bold').fontSize(9).fillColor(muted).text('Camera', left, y, { width: 95 });
    pdf
      .font('Helvetica')
      .fillColor(ink)
      .text(document.camera, left + 100, y, {
        width: contentWidth - 100,
      });
    y += 24;
  }

  // Lines.
  const descriptionWidth = contentWidth - amountWidth - 10;
  pdf.font('Helvetica-Bold').fontSize(9).fillColor(muted);
  pdf.text('Description', left, y, { width: descriptionWidth });
  pdf.text('Amount', right - amountWidth, y, { width: amountWidth, align: 'right' });
  y += 14;
  pdf.moveTo(left, y).lineTo(right, y).lineWidth(0.75).strokeColor(rule).stroke();
  y += 8;
  for (const line of document.lines) {
    pdf.font('Helvetica').fontSize(10).fillColor(ink);
    const height = pdf.heightOfString(line.description, { width: descriptionWidth });
    pdf.text(line.description, left, y, { width: descriptionWidth });
    pdf.text(line.amount, right - amountWidth, y, { width: amountWidth, align: 'right' });
    y += height + 2;
    if (line.detail) {
      pdf.fontSize(8.5).fillColor(muted).text(line.detail, left, y, { width: descriptionWidth });
      y += 12;
    }
    y += 6;
  }
  pdf.moveTo(left, y).lineTo(right, y).lineWidth(0.75).strokeColor(rule).stroke();
  y += 10;

  // Totals, right-aligned.
  const labelLeft = right - amountWidth - 200;
  for (const total of document.totals) {
    pdf
      .font(total.isBold ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(10)
      .fillColor(ink)
      .text(total.label, labelLeft, y, { width: 200 })
      .text(total.amount, right - amountWidth, y, { width: amountWidth, align: 'right' });
    y += 16;
  }

  y += 14;
  pdf.font('Helvetica').fontSize(9).fillColor(ink);
  for (const note of document.notes) {
    pdf.text(note, left, y, { width: contentWidth });
    y += pdf.heightOfString(note, { width: contentWidth }) + 4;
  }

  pdf
    .fontSize(7.5)
    .fillColor(muted)
    .text(document.footer, left, page.height - 70, { width: contentWidth, lineBreak: false });
  pdf.end();
  return done;
}
