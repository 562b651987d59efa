/**
 * Headers on every answer of the service (the app and the node fast path): no content
 * sniffing, no framing (clickjacking), and a content security policy that lets the
 * inspector load only its own files — it has no inline script or style and talks only
 * to this service.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  [
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  ],
  ['Referrer-Policy', 'no-referrer'],
];
