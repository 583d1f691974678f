// The document the PDF/A rules read: the object view, the file's syntax facts
// (cos-scan.ts), the walk of what the pages use (walk.ts), the main XMP
// packet, the output intent's colour space, and (level A) the structure
// tree and the marked content of the pages as the PDF/UA check reads them,
// each computed once and only when a rule asks for it.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfStream, type PdfDict } from '../../untrusted/pdf-values.js';
import { scanCos, type CosFacts } from './cos-scan.js';
import { contentFacts, type ContentFacts } from './content-facts.js';
import { glyphReader, type FontGlyphs } from '../fonts/font-glyphs.js';
import { readIccHeader, type IccHeader } from './icc.js';
import { walkDocument, type DocumentWalk } from './walk.js';
import { readPacket, type MetadataPacket } from './xmp-packet.js';
import { readStructureTree, type StructureTree } from '../structure-tree.js';
import { walkMarkedContent, type MarkedContent } from '../ua/marked-content.js';
import { usedFonts, type UsedFont } from '../ua/fonts.js';

export type PdfaPart = 1 | 2 | 3;
/** B (basic), U (Unicode: parts 2 and 3), A (accessible: U plus the logical structure). */
export type PdfaLevel = 'b' | 'u' | 'a';

export class PdfaDocument {
  private cosFacts?: CosFacts;
  private walked?: DocumentWalk;
  private mainPacket?: MetadataPacket | null;
  private packets?: MetadataPacket[];
  private intent?: { header: IccHeader | undefined; count: number; sameProfile: boolean } | null;
  private contents?: ContentFacts;
  private glyphs: ((font: PdfDict) => FontGlyphs) | undefined;
  private tree?: StructureTree;
  private marked?: MarkedContent;
  private fontsUsed?: readonly UsedFont[];

  constructor(
    readonly bytes: Uint8Array,
    readonly pdf: PdfObjects,
    readonly part: PdfaPart,
    readonly level: PdfaLevel,
  ) {}

  get cos(): CosFacts {
    return (this.cosFacts ??= scanCos(this.bytes));
  }

  get walk(): DocumentWalk {
    return (this.walked ??= walkDocument(this.pdf));
  }

  get content(): ContentFacts {
    return (this.contents ??= contentFacts(this));
  }

  get structure(): StructureTree {
    return (this.tree ??= readStructureTree(this.pdf));
  }

  /** Every page's marked-content sequences and the content drawn inside them, Form XObjects included. */
  get markedContent(): MarkedContent {
    return (this.marked ??= walkMarkedContent(this.pdf, this.structure));
  }

  /** The fonts the pages draw text with, each with its ToUnicode map parsed. */
  get textFonts(): readonly UsedFont[] {
    return (this.fontsUsed ??= usedFonts(this.pdf, this.markedContent));
  }

  /** A font's embedded program as the glyph rules read it, parsed once per document. */
  glyphsOf(font: PdfDict): FontGlyphs {
    return (this.glyphs ??= glyphReader(this.pdf))(font);
  }

  /** The catalog's /Metadata packet; null when the catalog has none. */
  get metadata(): MetadataPacket | null {
    if (this.mainPacket === undefined) {
      const stream = this.pdf.stream(this.pdf.catalog?.get('Metadata'));
      this.mainPacket = stream === undefined ? null : readPacket(stream, this.part);
    }
    return this.mainPacket;
  }

  /** Every metadata stream the walk reaches beside the catalog's: pages', images', fonts' descriptors', forms'. */
  get otherPackets(): MetadataPacket[] {
    if (this.packets === undefined) {
      const streams = new Set<PdfStream>();
      const add = (value: unknown): void => {
        const stream = this.pdf.stream(value as never);
        if (stream !== undefined && stream.dict.name('Subtype') === 'XML') streams.add(stream);
      };
      for (const page of this.pdf.pages) add(page.dict.get('Metadata'));
      for (const item of this.walk.xobjects) add(item.value.dict.get('Metadata'));
      for (const item of this.walk.fonts) add(this.pdf.dict(item.value.get('FontDescriptor'))?.get('Metadata'));
      this.packets = [...streams].map((stream) => readPacket(stream, this.part));
    }
    return this.packets;
  }

  /** The PDF/A output intent's destination profile: its ICC header, how many output intents have a profile, whether they share one. */
  get outputIntent(): { header: IccHeader | undefined; count: number; sameProfile: boolean } | null {
    if (this.intent === undefined) {
      const intents = this.pdf.array(this.pdf.catalog?.get('OutputIntents')) ?? [];
      let header: IccHeader | undefined;
      let found = false;
      const profiles = new Set<string>();
      let count = 0;
      for (const item of intents) {
        const intent = this.pdf.dict(item);
        const profile = intent?.get('DestOutputProfile');
        if (profile !== undefined) {
          count++;
          profiles.add(String(profile));
        }
        if (intent?.name('S') === 'GTS_PDFA1' && !found) {
          found = true;
          const stream = this.pdf.stream(profile);
          const bytes = stream?.decoded();
          header = bytes === undefined ? undefined : readIccHeader(bytes);
        }
      }
      this.intent = found ? { header, count, sameProfile: profiles.size <= 1 } : count > 0 ? { header: undefined, count, sameProfile: profiles.size <= 1 } : null;
    }
    return this.intent;
  }

  /** The output colour space veraPDF calls gOutputCS: "RGB ", "CMYK", "GRAY", or undefined without a PDF/A output intent. */
  get outputColourSpace(): string | undefined {
    const intents = this.pdf.array(this.pdf.catalog?.get('OutputIntents')) ?? [];
    const pdfa = intents.map((item) => this.pdf.dict(item)).find((intent) => intent?.name('S') === 'GTS_PDFA1');
    if (pdfa === undefined) return undefined;
    return this.outputIntent?.header?.colourSpace;
  }
}
