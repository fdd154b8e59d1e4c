/** Name of the dashboard's session cookie. */
export const SESSION_COOKIE = 'kbqa_session';

/** The value of the session cookie in a `Cookie` header, or undefined. */
export function sessionCookie(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : header;
  if (!text) return undefined;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    // Session ids are base64url; anything else is not one of ours.
    return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * The Set-Cookie value of a session: HttpOnly (scripts never read it), SameSite=Strict (no other
 * site's page can make the browser send it), Secure behind HTTPS, and an expiry. `value` empty
 * with `maxAgeSeconds` 0 clears it.
 */
export function sessionSetCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
