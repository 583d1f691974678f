// Why a PDF did not open (seams/pdf-structure.ts OpenFailure), as the
// client's 422: one mapping for every task that opens a client's PDF; and
// the refusal of a PDF that cannot be read without a repair
// (seams/qpdf-damage.ts), for every task that writes one back.
import type { FieldError } from '../protocol.js';
import type { OpenFailure } from '../seams/pdf-structure.js';
import { readDamage, type Damage } from '../seams/qpdf-damage.js';
import { TaskFailure } from './json-task.js';

/** An unreadable file is invalid-pdf-data on `field`; a missing or wrong password pdf-password-required on `passwordField`. */
export function openFailure(error: OpenFailure, field = 'pdf', passwordField = 'password'): TaskFailure {
  if (error.reason === 'unreadable') return TaskFailure.content('invalid-pdf-data', field, 'INVALID_PDF', error.message, error.cause);
  // The seam does not know the request's names: the route's own password field is named here (compare's password_b, merge's documents[1].password).
  const message = error.reason === 'password-required' ? `The PDF in ${field} ${error.message}; send it in ${passwordField}.` : `The PDF in ${field} ${error.message}`;
  const entry: FieldError = error.reason === 'password-required' ? { field: passwordField, code: 'REQUIRED', message } : { field: passwordField, code: 'INCORRECT', message };
  return new TaskFailure('pdf-password-required', message, [entry]);
}

/** A PDF that is truncated, damaged or stops qpdf, as invalid-pdf-data on `field` (its detail "pdf is truncated: ..."). */
export function damageFailure(damage: Damage, field = 'pdf'): TaskFailure {
  return TaskFailure.content('invalid-pdf-data', field, 'INVALID_PDF', damage.description, damage.cause);
}

/** Throws damageFailure when qpdf cannot read the PDF as it is (seams/qpdf-damage.ts readDamage). */
export async function refuseDamaged(pdf: Uint8Array, field = 'pdf'): Promise<void> {
  const damage = await readDamage(pdf);
  if (damage !== undefined) throw damageFailure(damage, field);
}
