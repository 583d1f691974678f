// What the PDF/UA-1 rules read, built once per check and shared by them: the
// object view, the catalog's XMP packet, the structure tree, and the marked
// content of every page. The expensive parts (the structure tree, the
// content walk) are built the first time a rule asks for them.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfRef, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';
import { parseXmp, type XmpPacket } from '../xmp.js';
import { readStructureTree, type StructureTree } from '../structure-tree.js';
import { glyphReader, type FontGlyphs } from '../fonts/font-glyphs.js';
import { usedFonts, type UsedFont } from './fonts.js';
import { walkMarkedContent, type MarkedContent } from './marked-content.js';

/** Direct nesting followed at most, and dictionaries collected at most: bounds for a hostile file. */
const MAX_NESTING = 32;
const MAX_DICTS = 2_000_000;

export class UaDocument {
  private tree: StructureTree | undefined;
  private content: MarkedContent | undefined;
  private dicts: PdfDict[] | undefined;
  private fontsUsed: UsedFont[] | undefined;
  private glyphs: ((font: PdfDict) => FontGlyphs) | undefined;
  private xmpPacket: XmpPacket | undefined | null = null;

  constructor(readonly pdf: PdfObjects) {}

  get catalog(): PdfDict {
    return this.pdf.catalog ?? new PdfDict(new Map());
  }

  /** The catalog's /Metadata stream, when it is one. */
  get metadataStream(): PdfStream | undefined {
    return this.pdf.stream(this.catalog.get('Metadata'));
  }

  /** The catalog's XMP packet parsed; undefined without a metadata stream or when it cannot be decoded. */
  get xmp(): XmpPacket | undefined {
    if (this.xmpPacket === null) {
      const bytes = this.metadataStream?.decoded();
      this.xmpPacket = bytes === undefined ? undefined : parseXmp(bytes);
    }
    return this.xmpPacket;
  }

  /** The catalog's /Lang as text, when present (even when empty). */
  get catalogLang(): string | undefined {
    return this.pdf.text(this.catalog.get('Lang'));
  }

  /** veraPDF's gContainsCatalogLang: a non-empty /Lang in the catalog. */
  get hasCatalogLang(): boolean {
    const lang = this.catalogLang;
    return lang !== undefined && lang !== '';
  }

  get structure(): StructureTree {
    this.tree ??= readStructureTree(this.pdf);
    return this.tree;
  }

  /**
   * Every dictionary in the file (indirect objects, the dictionaries nested
   * directly in them, stream dictionaries), each once: for the rules about
   * objects wherever they sit (file specifications, reference XObjects).
   */
  allDicts(): readonly PdfDict[] {
    if (this.dicts !== undefined) return this.dicts;
    const found: PdfDict[] = [];
    const seen = new Set<PdfDict>();
    const visit = (value: PdfValue | undefined, depth: number): void => {
      if (depth > MAX_NESTING || found.length >= MAX_DICTS) return;
      const dict = value instanceof PdfStream ? value.dict : value instanceof PdfDict ? value : undefined;
      if (dict !== undefined) {
        if (seen.has(dict)) return;
        seen.add(dict);
        found.push(dict);
        for (const entry of dict.entries.values()) if (!(entry instanceof PdfRef)) visit(entry, depth + 1);
      } else if (Array.isArray(value)) {
        for (const item of value) if (!(item instanceof PdfRef)) visit(item, depth + 1);
      }
    };
    for (const ref of this.pdf.refs()) visit(this.pdf.resolve(ref), 0);
    this.dicts = found;
    return found;
  }

  get markedContent(): MarkedContent {
    this.content ??= walkMarkedContent(this.pdf, this.structure);
    return this.content;
  }

  /** A font's embedded program as the glyph rules read it, parsed once per document. */
  glyphsOf(font: PdfDict): FontGlyphs {
    return (this.glyphs ??= glyphReader(this.pdf))(font);
  }

  /** The fonts the pages draw text with, and the codes each shows. */
  get fonts(): readonly UsedFont[] {
    this.fontsUsed ??= usedFonts(this.pdf, this.markedContent);
    return this.fontsUsed;
  }
}
