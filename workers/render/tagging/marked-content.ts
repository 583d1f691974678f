// One page's marked content in a tagged render (ISO 32000-1 §14.6, §14.7.4):
// every text and image drawn inside a sequence whose MCID its structure
// element owns, every path inside /Artifact, as PDF/UA-1 7.1 asks. A
// sequence stays open while consecutive drawing belongs to the same place,
// so a paragraph's lines are one sequence, not one per word; the canvas
// closes a sequence where it opened, inside or outside a text object, so
// BDC/EMC never cut a BT/ET.
import type { Artifact, Element, Structure } from './structure.js';

/** Decoration drawn as paths (rules, borders, fills, underlines). */
const PATHS: Artifact = Object.freeze({ artifact: undefined });

export type ContentKind = 'content' | 'path';

/**
 * MCIDs whose opening operators are kept (they restart at 0 on every page:
 * a page of the 10-page invoice has ~130), by role.
 */
const KEPT_MCIDS = 512;
const openers = new Map<string, string[]>();

/**
 * The operator that opens the sequence `mcid` of an element of `role`: the
 * same few hundred strings on every page of every render, so each is built
 * once per worker thread. Built per sequence, they were ~100 KB of the
 * ~890 KB a render that tagging adds to the 10-page invoice's garbage (the
 * sampling heap profiler, collected objects counted), one per table cell.
 * Roles are the engine's own standard types (structure.ts), so the memo
 * is bounded: at most KEPT_MCIDS strings of ~20 characters for each of
 * ~30 roles (about 1 MB a worker thread at worst; a few KB for a table).
 */
function opener(role: string, mcid: number): string {
  // No space the syntax does not need: a data table writes one of these per cell, and every byte of them is deflated.
  if (mcid >= KEPT_MCIDS) return `/${role}<</MCID ${mcid}>>BDC`;
  let byMcid = openers.get(role);
  if (byMcid === undefined) openers.set(role, (byMcid = []));
  return (byMcid[mcid] ??= `/${role}<</MCID ${mcid}>>BDC`);
}

export class PageMarks {
  #open: Element | Artifact | undefined;
  #nextMcid = 0;
  /** Depth of /ActualText spans: the sequence around one cannot change inside it (they must nest). */
  #spans = 0;

  constructor(
    private readonly structure: Structure,
    /** The page canvas, recorded with each MCID until the document numbers its pages. */
    private readonly page: object,
  ) {}

  /** Where what is drawn next belongs, when the open sequence is not that place (and no /ActualText span is open); undefined when it fits. */
  next(kind: ContentKind): Element | Artifact | undefined {
    if (this.#spans > 0) return undefined;
    const target = kind === 'path' ? PATHS : this.structure.target;
    const open = this.#open;
    if (open === target || (open !== undefined && 'artifact' in open && 'artifact' in target && open.artifact === target.artifact)) return undefined;
    return target;
  }

  /** The operator that opens a sequence for `target` (next()'s answer), once the open one is closed. */
  begin(target: Element | Artifact): string {
    this.#open = target;
    if ('artifact' in target) return target.artifact === undefined ? '/Artifact BMC' : `/Artifact <</Type /${target.artifact}>> BDC`;
    const mcid = this.#nextMcid++;
    target.addContent(this.page, mcid);
    return opener(target.role, mcid);
  }

  beginSpan(): void {
    this.#spans++;
  }

  endSpan(): void {
    this.#spans--;
  }

  /** The operator that closes the open sequence, if one is open. */
  close(): string | undefined {
    if (this.#open === undefined) return undefined;
    this.#open = undefined;
    return 'EMC';
  }
}
