import { sha256 } from '../../core/text/text.js';

export type AdminCheck = 'ok' | 'disabled' | 'unauthorized';

/**
 * Checks an `Authorization: Bearer <token>` header against the admin token in
 * constant time (both sides are hashed to equal length first, then compared without an
 * early exit). With no admin token configured, admin endpoints are disabled.
 */
export function checkAdmin(header: string | undefined, adminToken: string | undefined): AdminCheck {
  if (adminToken === undefined || adminToken === '') return 'disabled';
  const match = /^Bearer[ \t]+(.+)$/i.exec(header ?? '');
  const given = match ? match[1]!.trim() : '';
  return constantTimeEqual(sha256(given), sha256(adminToken)) && match ? 'ok' : 'unauthorized';
}

// --- internal ---

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
