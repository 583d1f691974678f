// valibot's object schemas (object, strictObject, looseObject,
// objectWithRest) and record take any non-null `typeof 'object'` input,
// arrays included: `"output": []`, `"metadata": []`, an accelerator's
// `"options": []` and fill-form's `"fields": []` were accepted as empty
// objects and answered 200, where the contracts say `type: object` and a
// wrong JSON type is 422 INVALID_TYPE everywhere else. Rather than wrap
// each of the ~50 object schemas by hand (and miss the next one), every
// request schema is walked once, at its first use, and each object or
// record schema in it made to see an array as the wrong type it is: the
// schema's own "Expected Object" issue, so the field error is the same as
// for a number or a string there.
import type * as v from 'valibot';

type AnySchema = v.GenericSchema & Record<string, unknown>;
type Run = (dataset: { value: unknown; typed: boolean }, config: unknown) => unknown;

/** The schema types that test `typeof input === 'object'` and would take an array. */
const OBJECT_TYPES = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest', 'record']);

const walked = new WeakSet<object>();

/** Makes every object and record schema reachable from `schema` refuse arrays (in place, once per schema); returns `schema`. */
export function objectsRefuseArrays<Schema extends v.GenericSchema>(schema: Schema): Schema {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isSchema(node) || walked.has(node)) continue;
    walked.add(node);
    if (OBJECT_TYPES.has(node.type)) refuseArrays(node);
    // Where valibot keeps inner schemas: object entries, a wrapper's schema, a pipe's items,
    // union/variant options, array items, tuple items, record keys and values, an object's rest.
    for (const key of ['entries', 'wrapped', 'pipe', 'options', 'item', 'items', 'key', 'value', 'rest'] as const) {
      const inner = node[key];
      if (Array.isArray(inner)) stack.push(...inner);
      else if (key === 'entries' && typeof inner === 'object' && inner !== null) stack.push(...Object.values(inner));
      else stack.push(inner);
    }
  }
  return schema;
}

function isSchema(node: unknown): node is AnySchema & { type: string } {
  return typeof node === 'object' && node !== null && (node as { kind?: unknown }).kind === 'schema' && typeof (node as { type?: unknown }).type === 'string';
}

function refuseArrays(schema: AnySchema): void {
  const run = schema['~run'] as unknown as Run;
  // An array is handed on as a value no object schema takes (a number), so the issue is the schema's own type issue.
  (schema as { '~run': Run })['~run'] = ((dataset, config) => (Array.isArray(dataset.value) ? run.call(schema, { ...dataset, value: 0 }, config) : run.call(schema, dataset, config))) as Run;
}
