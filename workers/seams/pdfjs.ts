// The one seam in front of pdf.js (pdfjs-dist 5.6.205, legacy build: the
// modern build fails on Node 20 and 6.x needs Node 22). Nothing else imports
// pdfjs-dist; workers/read/ builds the reader on what this module exports.
//
// How pdf.js runs here:
// - In this thread: pdf.js's "fake worker" (its parser in the same thread),
//   whose module is imported statically and handed over as
//   globalThis.pdfjsWorker, so no document pays a dynamic import and the
//   pool's warm-up task loads it (~0.4 s measured) before the first request.
// - isEvalSupported: false (CVE-2024-4367: font code evaluated as JS), no
//   font loading into a DOM (disableFontFace), no system fonts, no network:
//   CMaps, the standard fonts' data and the decoders' WebAssembly come from
//   the package's own files through a factory that reads each file once per
//   thread and keeps it (a document with the 14 standard fonts otherwise
//   reads them from disk every time).
// - Annotations are not drawn into operator lists (AnnotationMode.DISABLE):
//   their appearance streams are not page content and would add glyphs the
//   text content does not have. Only a task that must see everything a
//   reader shows (redact) asks for them, all of them (intent "any": hidden
//   ones too), each between beginAnnotation and endAnnotation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
// Before pdfjs-dist, so that it captures the built-ins pdf.js's polyfills replace.
import { restoreNatives } from './pdfjs-natives.js';
import { AnnotationMode, getDocument, InvalidPDFException, OPS, PasswordResponses, PDFDateString, Util, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;
restoreNatives();

const PACKAGE_ROOT = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** pdf.js's path operators inside constructPath (src/shared/util.js DrawOPS; not exported by the package). */
export const DRAW_OPS = Object.freeze({ moveTo: 0, lineTo: 1, curveTo: 2, quadraticCurveTo: 3, closePath: 4 });
export const PDF_OPS: Readonly<Record<string, number>> = OPS;

export type PdfDocument = PDFDocumentProxy;
export type PdfPage = PDFPageProxy;

const binaryData = new Map<string, Uint8Array>();

/** pdf.js's BinaryDataFactory interface, served from the package's files, each read once per thread. */
class PackageFiles {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const folder = kind === 'cMapUrl' ? 'cmaps' : kind === 'standardFontDataUrl' ? 'standard_fonts' : kind === 'wasmUrl' ? 'wasm' : null;
    if (folder === null || filename.includes('/') || filename.includes('..')) throw new Error(`pdf.js asked for ${kind} ${filename}`);
    const key = `${folder}/${filename}`;
    let bytes = binaryData.get(key);
    if (bytes === undefined) {
      bytes = new Uint8Array(readFileSync(join(PACKAGE_ROOT, folder, filename)));
      binaryData.set(key, bytes);
    }
    // A copy: pdf.js may transfer what it is given, which would detach the kept one.
    return bytes.slice();
  }
}

export type OpenResult =
  | { readonly ok: true; readonly document: PdfDocument }
  | { readonly ok: false; readonly reason: 'password-required' | 'password-incorrect' | 'invalid'; readonly message: string };

/** Opens a PDF (the bytes are handed over to pdf.js, which may detach them). */
export async function openPdf(bytes: Uint8Array, password: string | undefined): Promise<OpenResult> {
  const task = getDocument({
    data: bytes,
    password,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    cMapUrl: 'pdfjs-package/',
    cMapPacked: true,
    standardFontDataUrl: 'pdfjs-package/',
    wasmUrl: 'pdfjs-package/',
    BinaryDataFactory: PackageFiles,
    useWorkerFetch: false,
    disableRange: true,
    disableStream: true,
    disableAutoFetch: true,
    verbosity: VerbosityLevel.ERRORS,
  } as Parameters<typeof getDocument>[0]);
  try {
    return { ok: true, document: await task.promise };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if (error instanceof Error && error.name === 'PasswordException') {
      const code = (error as Error & { code?: number }).code;
      return { ok: false, reason: code === PasswordResponses.INCORRECT_PASSWORD ? 'password-incorrect' : 'password-required', message: error.message };
    }
    if (error instanceof InvalidPDFException || (error instanceof Error && /^(InvalidPDFException|FormatError|UnknownErrorException)$/.test(error.name))) {
      return { ok: false, reason: 'invalid', message: error.message };
    }
    throw error;
  }
}

/** The page's operator list, without annotations or followed by every annotation's appearance (see the header). */
export function operatorListOf(page: PdfPage, annotations = false): ReturnType<PdfPage['getOperatorList']> {
  return annotations ? page.getOperatorList({ intent: 'any', annotationMode: AnnotationMode.ENABLE }) : page.getOperatorList({ annotationMode: AnnotationMode.DISABLE });
}

/**
 * The pixels pdf.js decoded for an image the page's operator list paints
 * (paintImageXObject's first argument), once that list has been built.
 * Images shared across pages live in the document's objects (`g_` ids).
 */
export function decodedImage(page: PdfPage, id: string): { width: number; height: number; data: Uint8Array } | null {
  const objects = id.startsWith('g_') ? page.commonObjs : page.objs;
  if (!objects.has(id)) return null;
  const image = objects.get(id) as { width?: unknown; height?: unknown; data?: unknown } | null;
  if (image === null || typeof image !== 'object' || typeof image.width !== 'number' || typeof image.height !== 'number') return null;
  if (!(image.data instanceof Uint8Array || image.data instanceof Uint8ClampedArray)) return null;
  return { width: image.width, height: image.height, data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
}

/** The 6-number matrix from user space to the page as displayed (points, top-left origin, y down). */
export function displayTransform(page: PdfPage): number[] {
  return page.getViewport({ scale: 1 }).transform;
}

export function multiply(m1: readonly number[], m2: readonly number[]): number[] {
  return Util.transform(m1 as number[], m2 as number[]);
}

/** A PDF date string (D:YYYYMMDDHHmmSSOHH'mm) as ISO 8601, or null when it is not one. */
export function pdfDate(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const date = PDFDateString.toDateObject(value);
  return date === null || Number.isNaN(date.getTime()) ? null : date.toISOString();
}
