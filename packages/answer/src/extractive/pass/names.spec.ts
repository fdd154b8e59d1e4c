import { source, page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('names: the definition of a name asked about, the names of a list', () => {
    it('adds the definition of the name a problem report is about, whose condition explains it', async () => {
      const content = [
        '## Request',
        '',
        '- `peer` - The address of the client, read from the socket.',
        '- `peers` - A list of addresses from the Via header (only when `proxyMode` is on).',
        '',
        '> Note: `request.peer`, `request.peers` and `request.route` come from request metadata and are read-only.',
      ].join('\n');
      const text = await answer('request.peers is always undefined in my handler', [
        page(1, 'Request', 'request', content),
      ]);
      expect(text).toContain('(only when `proxyMode` is on)');
    });

    it('keeps the names of the entries listed after a chosen sentence that ends in a colon', async () => {
      const content = [
        '## Session',
        '',
        'The first argument of every handler is `Session`.',
        '',
        'Session is a core object holding the following fields:',
        '',
        '- `user` - The signed-in user, when there is one.',
        '- `cart` - The items chosen so far. Items are kept for a day.',
        '- `locale` - The language the pages are shown in.',
        '- `expires` - When the session ends.',
      ].join('\n');
      const text = await answer('What is the Session object?', [page(1, 'Session', 'session', content)]);
      expect(text).toContain(
        'Session is a core object holding the following fields: `user`, `cart`, `locale`, `expires` [1].',
      );
    });

    describe('a question that names an option or method outside a definition', () => {
      it('opens with the first sentence under the heading that is the name', async () => {
        const server = [
          '## Limits',
          '',
          'Requests larger than `bodyLimit` are rejected with a 413 before the handler runs.',
          '',
          '### `bodyLimit`',
          '',
          'Defines the maximum payload, in bytes, that the server accepts.',
        ].join('\n');
        const text = await answer('Can `bodyLimit` be raised for large uploads?', [
          source(1, 'Server', server),
        ]);
        expect(text.startsWith('`bodyLimit`: Defines the maximum payload, in bytes')).toBe(true);
      });

      it('opens with the list entry naming the last part of a dotted name', async () => {
        const request = [
          'Request is the first parameter of the handler. It holds:',
          '',
          '- `ip` - The IP address of the incoming request.',
          '- `ips` - An array of the IP addresses in the `X-Forwarded-For` header.',
          '',
          'Behind a proxy, `request.ip` shows the address of the proxy unless `trustProxy` is set.',
        ].join('\n');
        const text = await answer('Can `request.ip` show the address of a proxy?', [
          source(1, 'Request', request),
        ]);
        expect(text.startsWith('`ip` - The IP address of the incoming request')).toBe(true);
      });

      it('leaves troubleshooting answers opening with the cause', async () => {
        const request = [
          '- `ip` - The IP address of the incoming request.',
          '',
          'Behind a proxy, `request.ip` shows the address of the proxy unless `trustProxy` is set.',
        ].join('\n');
        const text = await answer('Why does `request.ip` show the address of the proxy?', [
          source(1, 'Request', request),
        ]);
        expect(text.startsWith('Behind a proxy')).toBe(true);
      });
    });
  });
});
