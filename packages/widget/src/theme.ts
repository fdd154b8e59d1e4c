export type Theme = 'light' | 'dark';

/** Parses `rgb()`/`rgba()` as getComputedStyle reports colours; undefined for transparent or other forms. */
export function parseRgb(color: string): [number, number, number] | undefined {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(
    color.trim(),
  );
  if (!m) return undefined;
  const alpha = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
  if (alpha < 0.5) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** WCAG relative luminance of an sRGB colour, 0 (black) to 1 (white). */
export function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * The theme a page shows, from what is known of it, strongest signal first: the colour its
 * background actually is; then the `color-scheme` it declares; then the reader's system setting.
 */
export function pageTheme(background: string[], colorScheme: string, prefersDark: boolean): Theme {
  for (const color of background) {
    const rgb = parseRgb(color);
    // 0.18: where black and white text contrast equally with the background (WCAG).
    if (rgb) return luminance(rgb) < 0.18 ? 'dark' : 'light';
  }
  const schemes = colorScheme.split(/\s+/);
  if (schemes.includes('dark') && !schemes.includes('light')) return 'dark';
  if (schemes.includes('light') && !schemes.includes('dark')) return 'light';
  return prefersDark ? 'dark' : 'light';
}
