// The sidecar's Unix socket (PLATEN_SOCKET): taking the path over safely,
// listening on it with uWS, and removing it at shutdown.
//
// uSockets unlinks whatever is at the path before it binds, a regular file
// or another server's live socket alike (checked on this build), so the
// path is inspected first: a socket nobody answers on is stale and removed;
// anything else stops start-up with a message instead of being destroyed.
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { uws, type TemplatedApp, type us_listen_socket } from './uws.js';

/**
 * 0660: the server's user and group may connect, nobody else (connecting
 * to a Unix socket needs write permission, unix(7)). Group access lets a
 * sidecar container that shares the socket's directory run under another
 * user of the same group (Kubernetes `fsGroup`); every request still needs
 * an API key. uSockets creates the file 0700 & ~umask, so there is no
 * moment in which others could connect before the chmod.
 */
export const SOCKET_MODE = 0o660;

export class SocketPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SocketPathError';
  }
}

/**
 * Makes `path` free to bind: nothing there, or a stale socket (removed).
 * Throws a SocketPathError naming the problem when the directory is missing,
 * something other than a socket is there, or a live server answers on it.
 */
export async function claimSocketPath(path: string): Promise<void> {
  const dir = dirname(path);
  if (!isDirectory(dir)) throw new SocketPathError(`PLATEN_SOCKET: the directory ${dir} does not exist`);
  let kind: 'socket' | 'other' | 'none';
  try {
    kind = lstatSync(path).isSocket() ? 'socket' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    kind = 'none';
  }
  if (kind === 'none') return;
  if (kind === 'other') throw new SocketPathError(`PLATEN_SOCKET: ${path} exists and is not a socket; refusing to replace it`);
  if (await answers(path)) throw new SocketPathError(`PLATEN_SOCKET: another server is listening on ${path}`);
  try {
    unlinkSync(path);
  } catch (error) {
    // Another process removed it in the meantime: the path is free either way.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Listens on a claimed path and sets the socket's mode. */
export function listenUnix(app: TemplatedApp, path: string): us_listen_socket {
  let listening = false as us_listen_socket | false;
  // uWS listens synchronously: the callback has run when listen_unix returns.
  app.listen_unix((socket) => {
    listening = socket ?? false;
  }, path);
  if (listening === false) throw new SocketPathError(`PLATEN_SOCKET: cannot listen on ${path}`);
  try {
    chmodSync(path, SOCKET_MODE);
  } catch (error) {
    uws.us_listen_socket_close(listening);
    removeSocketFile(path);
    throw error;
  }
  return listening;
}

/** Removes the socket file (uWS leaves it behind when its listener closes). */
export function removeSocketFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when a server accepts a connection on the socket; false when it is refused (stale). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve(false);
      else reject(new SocketPathError(`PLATEN_SOCKET: cannot check ${path}: ${error.code ?? error.message}`));
    });
  });
}
