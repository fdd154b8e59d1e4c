import { luminance, pageTheme, parseRgb } from './theme';

describe(pageTheme.name, () => {
  it('follows the colour of the page background first', () => {
    expect(pageTheme(['rgb(17, 17, 17)'], 'light', false)).toBe('dark');
    expect(pageTheme(['rgb(255, 255, 255)'], 'dark', true)).toBe('light');
  });

  it('looks past transparent backgrounds to the next one, then to color-scheme, then the system', () => {
    expect(pageTheme(['rgba(0, 0, 0, 0)', 'rgb(20, 24, 30)'], '', false)).toBe('dark');
    expect(pageTheme(['rgba(0, 0, 0, 0)'], 'dark', false)).toBe('dark');
    expect(pageTheme(['rgba(0, 0, 0, 0)'], 'light dark', true)).toBe('dark');
    expect(pageTheme([], '', false)).toBe('light');
  });
});

describe(parseRgb.name, () => {
  it('reads computed colours and treats mostly transparent ones as none', () => {
    expect(parseRgb('rgb(1, 2, 3)')).toEqual([1, 2, 3]);
    expect(parseRgb('rgba(1, 2, 3, 0.9)')).toEqual([1, 2, 3]);
    expect(parseRgb('rgba(0, 0, 0, 0)')).toBeUndefined();
    expect(parseRgb('transparent')).toBeUndefined();
    expect(luminance([255, 255, 255])).toBeCloseTo(1);
  });
});
