// qpdf's stderr, made into a bounded `detail` a person can act on. qpdf
// names the file and where it looked ("WARNING: /input.pdf (object 6 0,
// offset 960): expected endstream"); the file name and the program name (in
// a worker, the path of the thread's script) are dropped, the location kept.
// Messages describe structure, never the document's text; each is cut to
// MAX_MESSAGE characters and only the first MAX_MESSAGES are shown.

const MAX_MESSAGES = 3;
const MAX_MESSAGE = 200;

/** qpdf's closing line after warnings: says nothing the warnings do not. */
const SUMMARY = /operation succeeded with warnings/;

/** The messages, errors before warnings: qpdf prints the fatal error last, after the warnings that led to it. */
export function qpdfMessages(stderr: string, inputPath: string): string[] {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const raw of stderr.split('\n')) {
    const line = raw.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    if (line === '' || SUMMARY.test(line)) continue;
    (line.startsWith('WARNING: ') ? warnings : errors).push(clip(tidy(line, inputPath)));
  }
  return [...errors, ...warnings];
}

function tidy(line: string, inputPath: string): string {
  const warning = line.startsWith('WARNING: ');
  let text = warning ? line.slice('WARNING: '.length) : line;
  const at = text.indexOf(inputPath);
  if (at >= 0) {
    // "<program>: /input.pdf (object 6 0, offset 960): message" → "(object 6 0, offset 960) message"
    const rest = text.slice(at + inputPath.length);
    const located = /^ \(([^)]*)\): ([\s\S]*)$/.exec(rest);
    text = located !== null ? `${located[2]} (${located[1]})` : rest.replace(/^: /, '');
  } else if (!warning) {
    // "<program>: message"
    text = text.replace(/^[^\s:]+: /, '');
  }
  return text;
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
}

/** "first; second; third (and 4 more)" */
export function summarizeMessages(messages: readonly string[]): string {
  if (messages.length === 0) return 'qpdf gave no reason';
  const shown = messages.slice(0, MAX_MESSAGES).join('; ');
  const more = messages.length - MAX_MESSAGES;
  return more > 0 ? `${shown} (and ${more} more)` : shown;
}

/**
 * What qpdf found, in our words, for a `detail`: how many problems and where
 * the first ones are (object numbers and byte offsets, which any PDF tool
 * can go to). qpdf's own sentences go to the log as the failure's cause.
 */
export function damageInOurWords(messages: readonly string[]): string {
  if (messages.length === 0) return 'its structure cannot be read';
  const places = [...new Set(messages.map((message) => /\(([^()]*)\)$/.exec(message)?.[1]).filter((place) => place !== undefined))].slice(0, MAX_MESSAGES);
  const problems = `${messages.length} structural problem${messages.length === 1 ? '' : 's'}`;
  return places.length === 0 ? problems : `${problems}, at ${places.join('; ')}`;
}
