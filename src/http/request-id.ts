// Request ids: a client's X-Request-Id is honoured when it is a sane token
// (so traces join up across services), otherwise one is generated.
import { randomUUID } from 'node:crypto';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(supplied: string): string {
  return SANE.test(supplied) ? supplied : randomUUID();
}
