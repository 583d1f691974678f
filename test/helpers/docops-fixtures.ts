// Source PDFs for the document operations (merge, split), built here with
// pdf-lib so that each carries exactly the structures the operations must
// keep: AcroForm fields (with a name both documents share), an outline with
// nested items, page labels, an internal link and a URI link, metadata, and
// page sizes that differ between documents. Test code only: the service
// itself reaches pdf-lib through its seam in workers/.
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, StandardFonts, type PDFPage } from '@cantoo/pdf-lib';

export interface SourceOptions {
  /** Printed on every page ("<label> page N") so that pdftotext shows where a page came from. */
  readonly label: string;
  readonly pages: number;
  /** Points; every page of the document has this size. */
  readonly size?: readonly [number, number];
  /** Text fields on the first page, by name. */
  readonly textFields?: Readonly<Record<string, string>>;
  /** A check box on the first page. */
  readonly checkBox?: string;
  /** Outline items: title and 0-based page, with optional children. */
  readonly outline?: readonly OutlineSpec[];
  /** Page labels: a style (`r` lower roman, `D` decimal, ...) from a 0-based page. */
  readonly pageLabels?: ReadonlyArray<{ readonly from: number; readonly style: 'D' | 'r' | 'R' | 'a' | 'A'; readonly prefix?: string }>;
  /** A link on the first page to this 0-based page. */
  readonly linkTo?: number;
  readonly title?: string;
  readonly author?: string;
  /** Encrypt with this user password. */
  readonly password?: string;
}

export interface OutlineSpec {
  readonly title: string;
  readonly page: number;
  readonly children?: readonly OutlineSpec[];
}

export async function sourcePdf(options: SourceOptions): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const [width, height] = options.size ?? [612, 792];
  const pages: PDFPage[] = [];
  for (let i = 0; i < options.pages; i++) {
    const page = doc.addPage([width, height]);
    page.drawText(`${options.label} page ${i + 1}`, { x: 50, y: height - 80, size: 18, font });
    pages.push(page);
  }
  const form = doc.getForm();
  let y = height - 160;
  for (const [name, value] of Object.entries(options.textFields ?? {})) {
    const field = form.createTextField(name);
    field.setText(value);
    field.addToPage(pages[0] as PDFPage, { x: 50, y, width: 200, height: 24 });
    y -= 40;
  }
  if (options.checkBox !== undefined) {
    const box = form.createCheckBox(options.checkBox);
    box.check();
    box.addToPage(pages[0] as PDFPage, { x: 50, y, width: 16, height: 16 });
  }
  if (options.title !== undefined) doc.setTitle(options.title);
  if (options.author !== undefined) doc.setAuthor(options.author);
  if (options.outline !== undefined) addOutline(doc, pages, options.outline);
  if (options.pageLabels !== undefined) {
    const nums: Array<PDFNumber | PDFDict> = [];
    for (const label of options.pageLabels) {
      nums.push(PDFNumber.of(label.from));
      const dict = doc.context.obj({ S: label.style }) as PDFDict;
      if (label.prefix !== undefined) dict.set(PDFName.of('P'), PDFString.of(label.prefix));
      nums.push(dict);
    }
    doc.catalog.set(PDFName.of('PageLabels'), doc.context.obj({ Nums: nums }));
  }
  if (options.linkTo !== undefined) {
    const target = pages[options.linkTo] as PDFPage;
    const first = pages[0] as PDFPage;
    const link = doc.context.register(
      doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 100, 250, 130], Border: [0, 0, 0], Dest: [target.ref, 'Fit'] }),
    );
    const uri = doc.context.register(
      doc.context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [300, 100, 500, 130],
        Border: [0, 0, 0],
        A: { Type: 'Action', S: 'URI', URI: PDFString.of('https://example.com/') },
      }),
    );
    first.node.addAnnot(link);
    first.node.addAnnot(uri);
  }
  if (options.password !== undefined) {
    await doc.encrypt({ userPassword: options.password, ownerPassword: `${options.password}-owner` });
  }
  return doc.save({ useObjectStreams: false });
}

function addOutline(doc: PDFDocument, pages: readonly PDFPage[], items: readonly OutlineSpec[]): void {
  const root = doc.context.nextRef();
  const { first, last, count } = addItems(doc, pages, items, root);
  doc.context.assign(root, doc.context.obj({ Type: 'Outlines', First: first, Last: last, Count: count }));
  doc.catalog.set(PDFName.of('Outlines'), root);
}

function addItems(doc: PDFDocument, pages: readonly PDFPage[], items: readonly OutlineSpec[], parent: PDFRef): { first: PDFRef; last: PDFRef; count: number } {
  const refs = items.map(() => doc.context.nextRef());
  let count = items.length;
  items.forEach((item, i) => {
    const dict = doc.context.obj({
      Title: PDFHexString.fromText(item.title),
      Parent: parent,
      Dest: [(pages[item.page] as PDFPage).ref, 'XYZ', 0, 792, null],
    }) as PDFDict;
    if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1] as PDFRef);
    if (i < items.length - 1) dict.set(PDFName.of('Next'), refs[i + 1] as PDFRef);
    if (item.children !== undefined && item.children.length > 0) {
      const kids = addItems(doc, pages, item.children, refs[i] as PDFRef);
      dict.set(PDFName.of('First'), kids.first);
      dict.set(PDFName.of('Last'), kids.last);
      dict.set(PDFName.of('Count'), PDFNumber.of(kids.count));
      count += kids.count;
    }
    doc.context.assign(refs[i] as PDFRef, dict);
  });
  return { first: refs[0] as PDFRef, last: refs[refs.length - 1] as PDFRef, count };
}


