// A strict reader of the Prometheus text exposition format 0.0.4
// (prometheus.io/docs/instrumenting/exposition_formats): HELP and TYPE once
// per family and before its samples, label values with their escapes,
// every sample belonging to a declared family (a histogram's `_bucket`,
// `_sum` and `_count`), no sample twice. Tests read values by name and labels.
import assert from 'node:assert/strict';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly samples: Sample[];
}

export type Exposition = ReadonlyMap<string, Family>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function parseExposition(text: string): Exposition {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const families = new Map<string, { name: string; type?: Family['type']; help?: string; samples: Sample[] }>();
  const seen = new Set<string>();
  const family = (name: string) => {
    let f = families.get(name);
    if (f === undefined) {
      f = { name, samples: [] };
      families.set(name, f);
    }
    return f;
  };
  for (const [index, line] of text.split('\n').entries()) {
    const where = `line ${index + 1}: ${line.slice(0, 120)}`;
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name = '', rest = ''] = meta;
      assert.match(name, NAME, where);
      const f = family(name);
      assert.equal(f.samples.length, 0, `${where}: ${kind} after the family's samples`);
      if (kind === 'HELP') {
        assert.equal(f.help, undefined, `${where}: a second HELP`);
        f.help = rest;
      } else {
        assert.equal(f.type, undefined, `${where}: a second TYPE`);
        assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest), `${where}: unknown type`);
        f.type = rest as Family['type'];
      }
      continue;
    }
    assert.ok(!line.startsWith('#'), `${where}: a comment that is neither HELP nor TYPE`);
    const sample = parseSample(line, where);
    const owner = familyOf(sample.name, families);
    assert.ok(owner !== undefined && owner.type !== undefined, `${where}: sample of an undeclared family`);
    const key = `${sample.name}{${Object.entries(sample.labels).map(([k, v]) => `${k}=${v}`).join(',')}}`;
    assert.ok(!seen.has(key), `${where}: the same series twice`);
    seen.add(key);
    owner.samples.push(sample);
  }
  const out = new Map<string, Family>();
  for (const f of families.values()) {
    assert.ok(f.type !== undefined && f.help !== undefined, `family ${f.name} lacks HELP or TYPE`);
    out.set(f.name, { name: f.name, type: f.type, help: f.help, samples: f.samples });
  }
  return out;
}

function familyOf(name: string, families: Map<string, { type?: Family['type'] }>): { type?: Family['type']; samples: Sample[] } | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct as { type?: Family['type']; samples: Sample[] };
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const f = base === undefined ? undefined : families.get(base);
  return f !== undefined && (f.type === 'histogram' || f.type === 'summary') ? (f as { type?: Family['type']; samples: Sample[] }) : undefined;
}

function parseSample(line: string, where: string): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  assert.ok(name !== undefined, `${where}: no metric name`);
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
      assert.ok(label !== null && LABEL_NAME.test(label[1] as string), `${where}: bad label at ${at}`);
      at += label[0].length;
      let value = '';
      for (;;) {
        const c = line[at];
        assert.ok(c !== undefined, `${where}: unterminated label value`);
        if (c === '"') break;
        if (c === '\\') {
          const next = line[at + 1];
          assert.ok(next === '\\' || next === '"' || next === 'n', `${where}: bad escape`);
          value += next === 'n' ? '\n' : next;
          at += 2;
        } else {
          value += c;
          at++;
        }
      }
      at++;
      assert.ok(!((label[1] as string) in labels), `${where}: label ${label[1]} twice`);
      labels[label[1] as string] = value;
      if (line[at] === ',') at++;
    }
    at++;
  }
  const rest = line.slice(at).split(' ');
  assert.equal(rest[0], '', `${where}: no space before the value`);
  const text = rest[1] ?? '';
  // Values are read as Go's strconv.ParseFloat reads them (the format's definition): NaN and Inf in any case.
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  const value = special !== null ? (special[2]?.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity) : Number(text);
  assert.ok(special !== null || (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text) && Number.isFinite(value)), `${where}: value "${text}"`);
  assert.ok(rest.length <= 3, `${where}: trailing text`);
  return { name, labels, value };
}

/** Fetches and parses /metrics, checking status and content type. */
export async function scrape(base: string): Promise<Exposition> {
  const response = await fetch(`${base}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4(?:;|$)/);
  return parseExposition(await response.text());
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none (a counter not yet incremented). */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const matches = samplesOf(exposition, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(matches.length <= 1, `${name} ${JSON.stringify(labels)} matches ${matches.length} series`);
  return matches[0]?.value ?? 0;
}

export function samplesOf(exposition: Exposition, name: string): Sample[] {
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const f = exposition.get(name) ?? (base === undefined ? undefined : exposition.get(base));
  return (f?.samples ?? []).filter((s) => s.name === name);
}
