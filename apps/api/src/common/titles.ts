/** Whether a stored title is a real one: a page without one is stored under its address. */
export function knownTitle(title: string | null | undefined, ...addresses: string[]): title is string {
  return !!title?.trim() && !addresses.includes(title);
}
