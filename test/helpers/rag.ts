// Shared by the index and search tests: documents rendered by the server
// itself, one topic a page, and calls to the two routes.
import { KEYS, KEY_ENTRIES, bearer } from './keys.js';
import { renderPdf } from './http.js';

/** A second enterprise client (its own label), to prove one client never reaches another's collections. */
export const OTHER_ENTERPRISE = 'svc_live_ent2_ffffffffffffffffffffffffffffffff';
export const KEY_ENTRIES_WITH_OTHER = `${KEY_ENTRIES},${OTHER_ENTERPRISE}:other-client:enterprise:`;

export const TOPICS: Readonly<Record<string, string>> = {
  harbour: 'The harbour master inspects the fishing boats at dawn and records every catch in the harbour ledger. Nets are mended on the quay.',
  lighthouse: 'The lighthouse keeper trims the lamp wick each evening and winds the clockwork that turns the great lens above the rocks.',
  granary: 'The granary stores barley and wheat in tall oak bins; the miller weighs each sack before it is milled into flour.',
  orchard: 'Apple and pear trees fill the orchard; in autumn the pickers carry baskets of ripe fruit to the cider press.',
};

/** One topic a page, in TOPICS order: page n+1 answers questions about topic n. */
export function topicPages(base: string, topics: readonly string[] = Object.keys(TOPICS)): Promise<Uint8Array> {
  return renderPdf(base, {
    operations: topics.flatMap((topic, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), { type: 'add_text', text: `${TOPICS[topic]} ${TOPICS[topic]}` }]),
  });
}

export async function post(base: string, path: string, body: unknown, key: string = KEYS.enterprise): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
}

export interface SearchResult {
  chunk_id: string;
  document_id: string;
  score: number;
  text: string;
  page: number;
  section: string;
  metadata: { headings_path: string[]; is_table: boolean; language: string | null; namespace: string; token_count: number };
}
