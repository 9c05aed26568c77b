import { AuthErrors } from './errors.js';

/** Account rules that need no database: the CLI checks them before opening one. */

export function assertStrongPassword(password: string): void {
  if (password.length < 12) throw AuthErrors.weakPassword();
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
