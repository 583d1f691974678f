// Which proxy, if any, the client uses for its base URL, from the usual
// environment variables: `HTTPS_PROXY` for https targets, `HTTP_PROXY` for
// http targets, `NO_PROXY` for the exceptions, lower-case spelling first
// (as curl and Node 24's NODE_USE_ENV_PROXY read them).
//
// This module is the client library's one reader of process.env: the client
// runs in its caller's process, which has no Platen configuration
// (test/architecture.test.ts names it as the only exception).
import { isIP } from 'node:net';

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** The proxy for `target`, or undefined to connect directly. */
export function proxyFor(target: URL, env: ProxyEnv = process.env): URL | undefined {
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const configured = firstSet(env, names);
  if (configured === undefined) return undefined;
  if (bypasses(target, firstSet(env, ['no_proxy', 'NO_PROXY']) ?? '')) return undefined;
  let proxy: URL;
  try {
    // A bare `host:port` is an http proxy, as curl reads it.
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(configured) ? configured : `http://${configured}`);
  } catch {
    throw new TypeError(`the ${names[1]} variable is not a URL`);
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') throw new TypeError(`the ${names[1]} variable must be an http:// or https:// URL`);
  return proxy;
}

/**
 * NO_PROXY: comma- or space-separated entries. `*` matches every host; a
 * host name matches itself and its subdomains (`example.com`,
 * `.example.com` and `*.example.com` all match `api.example.com`); an IP
 * address matches only itself; `host:port` limits the entry to that port.
 */
export function bypasses(target: URL, noProxy: string): boolean {
  const host = bareHost(target.hostname);
  const port = target.port === '' ? (target.protocol === 'https:' ? '443' : '80') : target.port;
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, port: entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const suffix = bareHost(name.replace(/^\*?\./, ''));
    if (suffix === '') continue;
    if (host === suffix || (isIP(host) === 0 && host.endsWith(`.${suffix}`))) return true;
  }
  return false;
}

function firstSet(env: ProxyEnv, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** `[::1]:8080` → `[::1]` and `8080`; `::1` stays whole (an IPv6 literal without brackets has no port). */
function splitPort(entry: string): { name: string; port: string | undefined } {
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return { name: bracketed[1] as string, port: bracketed[2] };
  const colons = entry.split(':').length - 1;
  const withPort = colons === 1 ? /^(.*):(\d+)$/.exec(entry) : null;
  return withPort === null ? { name: entry, port: undefined } : { name: withPort[1] as string, port: withPort[2] };
}

function bareHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}
