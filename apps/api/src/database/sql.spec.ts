import type { DataSource } from 'typeorm';
import { numberedParameters, runNamedSql } from './sql';

describe(numberedParameters.name, () => {
  it('numbers the placeholders in order, as PostgreSQL wants them', () => {
    expect(numberedParameters('SELECT 1 FROM t WHERE a = ? AND b IN (?, ?) LIMIT ? OFFSET ?')).toBe(
      'SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4 OFFSET $5',
    );
  });

  it('leaves a statement without placeholders as it is', () => {
    expect(numberedParameters("SELECT 'x' AS y")).toBe("SELECT 'x' AS y");
  });
});

describe(runNamedSql.name, () => {
  it('runs a named, numbered statement on the PostgreSQL pool, parsed once per connection', async () => {
    const query = jest.fn(() => Promise.resolve({ rows: [{ id: 1 }] }));
    const dataSource = {
      options: { type: 'postgres' },
      driver: { master: { query } },
    } as unknown as DataSource;
    await expect(
      runNamedSql(dataSource, 'kbqa_x', 'SELECT id FROM t WHERE a = ? AND b = ?', [1, 'b']),
    ).resolves.toEqual([{ id: 1 }]);
    expect(query).toHaveBeenCalledWith({
      name: 'kbqa_x',
      text: 'SELECT id FROM t WHERE a = $1 AND b = $2',
      values: [1, 'b'],
    });
  });

  it('runs the statement as written on SQLite', async () => {
    const query = jest.fn(() => Promise.resolve([{ id: 2 }]));
    const dataSource = { options: { type: 'better-sqlite3' }, query } as unknown as DataSource;
    await expect(runNamedSql(dataSource, 'kbqa_x', 'SELECT id FROM t WHERE a = ?', [1])).resolves.toEqual([
      { id: 2 },
    ]);
    expect(query).toHaveBeenCalledWith('SELECT id FROM t WHERE a = ?', [1]);
  });
});
