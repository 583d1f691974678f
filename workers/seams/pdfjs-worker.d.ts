// pdfjs-dist ships no types for its worker module; the seam only hands the module object to pdf.js.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
