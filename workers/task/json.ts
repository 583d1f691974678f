// JSON bodies are decoded and parsed here, in the worker, never on the main
// thread (DESIGN.md: the main thread does no work proportional to a payload).
const decoder = new TextDecoder('utf-8', { fatal: true });

export type Parsed = { ok: true; value: unknown } | { ok: false; detail: string };

export function parseJson(body: ArrayBuffer, length: number): Parsed {
  let text: string;
  try {
    text = decoder.decode(new Uint8Array(body, 0, length));
  } catch {
    return { ok: false, detail: 'The body is not valid UTF-8.' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // V8's message quotes a snippet of the body; a client's key pasted into a
    // body must not come back in a response (reliability plan INV-2), so only
    // the position is kept.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    return { ok: false, detail: `The body is not valid JSON${position !== undefined ? ` (error at byte ${position})` : ''}.` };
  }
}

/** Request bodies are JSON objects; valibot's object schemas would also accept an array. */
export const NOT_AN_OBJECT = {
  field: '(body)',
  code: 'INVALID_TYPE',
  message: 'The body must be a JSON object.',
} as const;

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
