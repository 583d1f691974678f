// The language-detection seam: eld (Nito-ELD, pinned), pure JavaScript with
// its n-gram tables in the package, so it works offline. The "small"
// database: 60 languages, about 2 MB in memory; loaded on first use.
// Answers ISO 639-1 codes, which are valid BCP 47 primary tags.
type Detector = typeof import('eld/small')['eld'];

let detector: Detector | undefined;

export async function loadLanguageDetector(): Promise<void> {
  detector ??= (await import('eld/small')).eld;
}

/** The language of `text` as a BCP 47 tag, or null when the detector is not confident. */
export function detectLanguage(text: string): string | null {
  if (detector === undefined) throw new Error('loadLanguageDetector() must be awaited before detecting');
  // Past a few thousand characters the answer no longer changes; the cost does.
  const result = detector.detect(text.slice(0, 4000));
  return result.language !== '' && result.isReliable() ? result.language : null;
}
