import { pageVersion } from './version';

const tags =
  (values: Record<string, string>) =>
  (name: string): string | undefined =>
    values[name];

describe(pageVersion.name, () => {
  it('sends no version without the attribute', () => {
    expect(
      pageVersion(undefined, undefined, tags({ docusaurus_version: '2.x' }), '/docs/2.x/a'),
    ).toBeUndefined();
    expect(pageVersion('  ', undefined, tags({}), '/')).toBeUndefined();
  });

  it('lets an explicit version win over the page', () => {
    expect(pageVersion('1.4', '^/v(\\d+)/', tags({ docusaurus_version: '2.x' }), '/v3/a')).toBe('1.4');
  });

  it('reads Docusaurus, then Read the Docs meta tags, then the pattern', () => {
    expect(pageVersion('auto', '^/v(\\d+)/', tags({ docusaurus_version: '2.x' }), '/v3/a')).toBe('2.x');
    expect(pageVersion('auto', undefined, tags({ 'readthedocs-version-slug': 'v1.4' }), '/en/v1.4/a')).toBe(
      'v1.4',
    );
    expect(pageVersion('AUTO', '^/v(\\d+)/', tags({}), '/v3/guide')).toBe('3');
    expect(pageVersion('auto', '^/release-[0-9]+/', tags({}), '/release-7/guide')).toBe('release-7');
  });

  it('sends nothing when auto finds no version or the pattern is not a regular expression', () => {
    expect(pageVersion('auto', '^/v(\\d+)/', tags({}), '/guide')).toBeUndefined();
    expect(pageVersion('auto', '(', tags({}), '/v3/guide')).toBeUndefined();
  });
});
