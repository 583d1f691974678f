// The reader's view of a filled form: POST /v1/parse, checked against the
// accelerator contract, and every page's form fields by name.
import assert from 'node:assert/strict';
import { KEYS, bearer } from './keys.js';
import { assertMatchesContract, loadContract } from './openapi.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON response, read field by field
type Data = any;

export async function readFormFields(base: string, pdf: Uint8Array): Promise<Map<string, Data>> {
  const response = await fetch(`${base}/v1/parse`, {
    method: 'POST',
    headers: { ...bearer(KEYS.pro), 'content-type': 'application/json' },
    body: JSON.stringify({ pdf_data: Buffer.from(pdf).toString('base64'), options: { extract_text: false, extract_tables: false } }),
  });
  assert.equal(response.status, 200);
  const body = (await assertMatchesContract(await loadContract('accel'), 'post', '/v1/parse', response)) as Data;
  return new Map(body.data.pages.flatMap((page: Data) => page.form_fields).map((field: Data) => [field.name, field]));
}
