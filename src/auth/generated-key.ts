// A fresh key for a server started with none configured, so that `make run`
// works out of the box without ever starting with an empty key store.
import { randomBytes } from 'node:crypto';

export function generateKey(): string {
  const kid = randomBytes(4).toString('hex');
  // 32 bytes = 256 bits of secret, base64url without padding (43 characters).
  const secret = randomBytes(32).toString('base64url');
  return `svc_live_${kid}_${secret}`;
}
